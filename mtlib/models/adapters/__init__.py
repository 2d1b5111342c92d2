"""Model families: one adapter module per family, each registering itself in one ``kind -> class`` table.

A new family is one new module with a :class:`mtlib.models.Model` subclass
(constructor ``(resolved, device, use_cache)``) that declares its ``kind`` and
:class:`~mtlib.models.capabilities.Capabilities` (how a registry name of its kind
resolves, how it fine-tunes...) and registers itself with
:func:`~mtlib.models.capabilities.register_adapter` (with the test of the model
folders it reads, if any), and one import line below, its registry entry; the
rest of the code asks the capabilities, never the kind's name.

A user's own object (a scikit-learn pipeline, a transformers
``pipeline("text-classification")``) becomes a model through :func:`wrap`,
chosen from :data:`OBJECT_ADAPTERS` (one ``(predicate, class)`` entry per
object family).
"""

# the registry of families: importing a family module registers it in mtlib.models.capabilities.ADAPTERS
# (one line per family; mtlib.models imports this package, so every family is known before any resolution)
from mtlib.models.adapters import (  # noqa: F401
    causal_lm,
    hf_classifier,
    hf_encoder,
    lexicon,
    sentence_transformers,
    static_vectors,
    transformer,
    wordpiece_static,
)
from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "transformer": ALL,
        "causal_lm": ALL,
        "sentence_transformers": ALL,
        "hf_encoder": ALL,
        "hf_classifier": ALL,
        "wordpiece_static": ALL,
        "static_vectors": ALL,
        "lexicon": ALL,
        "objects": ALL,
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
