"""How a forward pass runs: its numerics, its backend, word-piece spans, words without a vector.

- :mod:`~mtlib.models.inference.numerics`: the precision a forward pass runs in, the device class, finiteness;
- :mod:`~mtlib.models.inference.backends`: torch or ONNX for a frozen encoder's ``embed``;
- :mod:`~mtlib.models.inference.spans`: which word pieces a substring covers;
- :mod:`~mtlib.models.inference.oov`: texts whose words a static model does not know;
- :mod:`~mtlib.models.inference.prompts`: prompt templates of a causal LM, their slots and label verbalisers.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "numerics": [],
        "backends": [],
        "spans": [],
        "oov": [],
        "prompts": [],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
