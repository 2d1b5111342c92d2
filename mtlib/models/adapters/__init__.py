"""Model families: one adapter module per family, each registering itself in one ``kind -> class`` table.

A new family is one new module with a :class:`mtlib.models.Model` subclass
(constructor ``(resolved, device, use_cache)``) that declares its ``kind`` and
:class:`~mtlib.models.capabilities.Capabilities` (how a registry name of its kind
resolves, how it fine-tunes...) and registers itself with
:func:`~mtlib.models.capabilities.register_adapter` (with the test of the model
folders it reads, if any), and one import line below (its registry entry); the
rest of the code asks the capabilities, never the kind's name.

A user's own object (a scikit-learn pipeline, a transformers
``pipeline("text-classification")``) becomes a model through :func:`wrap`,
chosen from :data:`OBJECT_ADAPTERS` (one ``(predicate, class)`` entry per
object family).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mtlib.models.adapters.hf_classifier import HFClassifierModel
from mtlib.models.adapters.hf_encoder import HFEncoderModel
from mtlib.models.adapters.lexicon import LexiconModel
from mtlib.models.adapters.objects import (
    ObjectModel,
    SklearnTextModel,
    TextClassificationPipelineModel,
    is_sklearn_classifier,
    is_text_classification_pipeline,
)
from mtlib.models.adapters.sentence_transformers import SentenceTransformerModel
from mtlib.models.adapters.static_vectors import GensimModel, PackagedVectorsModel, StaticVectorsModel
from mtlib.models.adapters.transformer import TransformerModel
from mtlib.models.adapters.wordpiece_static import WordPieceStaticModel

# the registry of families: importing a family module registers it (mtlib.models.capabilities.ADAPTERS)
from mtlib.models.capabilities import ADAPTERS

#: Object family -> adapter: the first ``(predicate, class)`` whose predicate holds wraps the object.
OBJECT_ADAPTERS: list[tuple[Callable[[Any], bool], type[ObjectModel]]] = [
    (is_text_classification_pipeline, TextClassificationPipelineModel),
    (is_sklearn_classifier, SklearnTextModel),
]


def wrap(obj: Any, positive_label: Any = None, *, name: str | None = None, identity: str | None = None) -> Any:
    """Whatever scores texts, as something every relation and suite accepts.

    Args:
        obj: An :class:`mtlib.models.Model` (returned as is); an object of a
            family in :data:`OBJECT_ADAPTERS` (an sklearn estimator or pipeline
            with ``predict_proba`` and ``classes_`` taking raw texts, a
            transformers ``pipeline("text-classification")``); or a function
            ``texts -> scores`` (returned as is).
        positive_label: The class whose probability is the score (default:
            ``"positive"`` if there is one, else the last class).
        name: Name of a wrapped object in tables (default: its class or model name).
        identity: A stable identity of a wrapped object: turns on its disk cache.

    Returns:
        The model, a new :class:`ObjectModel`, or the function.

    Raises:
        TypeError: nothing here can score texts with ``obj``.
    """
    if hasattr(obj, "classify") and hasattr(obj, "labels"):
        return obj
    for predicate, adapter in OBJECT_ADAPTERS:
        if predicate(obj):
            return adapter(obj, name=name, positive_label=positive_label, identity=identity)
    if callable(obj):
        return obj
    raise TypeError(
        f"cannot score texts with a {type(obj).__name__}: pass an mtlib model, an object with "
        f"predict_proba and classes_ (sklearn), a transformers text-classification pipeline, "
        f"or a function texts -> scores"
    )


__all__ = [
    "ADAPTERS",
    "OBJECT_ADAPTERS",
    "GensimModel",
    "HFClassifierModel",
    "HFEncoderModel",
    "LexiconModel",
    "ObjectModel",
    "PackagedVectorsModel",
    "SentenceTransformerModel",
    "SklearnTextModel",
    "StaticVectorsModel",
    "TextClassificationPipelineModel",
    "TransformerModel",
    "WordPieceStaticModel",
    "is_sklearn_classifier",
    "is_text_classification_pipeline",
    "wrap",
]
