"""A user's own classifier object as an mtlib :class:`~mtlib.models.Model`.

Two object families become models with ``classify`` (class probabilities,
columns named by ``labels``) and ``score`` of a positive label, so every
relation, gate and suite accepts them like a built-in model:

- :class:`SklearnTextModel`: anything with ``predict_proba(texts)`` and
  ``classes_`` (a scikit-learn pipeline that takes raw texts, e.g.
  ``TfidfVectorizer`` + ``LogisticRegression``);
- :class:`TextClassificationPipelineModel`: a transformers
  ``pipeline("text-classification")`` (every class's score, labels from the
  model config's ``id2label``).

Neither has a stable identity on disk, so neither caches on disk unless given
one (``identity=``, e.g. a version string of the trained model): without it
each object still computes every unique text once (an in-memory memo), and
``calls`` counts its batches like any adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mtlib.models.base import Model
from mtlib.models.inference.numerics import check_finite
from mtlib.utils.cache import cached_rows
from mtlib.utils.inputs import MtlibInputError

__all__ = [
    "OBJECT_ADAPTERS",
    "wrap",
    "ObjectModel",
    "SklearnTextModel",
    "TextClassificationPipelineModel",
    "is_sklearn_classifier",
    "is_text_classification_pipeline",
]


def is_sklearn_classifier(obj: Any) -> bool:
    """Whether ``obj`` has ``predict_proba`` and ``classes_`` (a fitted scikit-learn classifier or pipeline)."""
    return callable(getattr(obj, "predict_proba", None)) and hasattr(obj, "classes_")


def is_text_classification_pipeline(obj: Any) -> bool:
    """Whether ``obj`` is a transformers pipeline for text classification (without importing transformers)."""
    task = getattr(obj, "task", None)
    return callable(obj) and hasattr(obj, "model") and task in ("text-classification", "sentiment-analysis")


class ObjectModel(Model):
    """Base of the object adapters: an in-memory memo (and a disk cache given an identity) of class probabilities.

    Args:
        obj: The wrapped object.
        name: Name in tables and messages (default: the object's class name).
        positive_label: The class :meth:`positive_score` reads (default:
            ``"positive"`` if a label is named so, case-insensitive, else the last label).
        identity: A stable identity of the trained object; enables the disk cache (``$MTLIB_CACHE``).
    """

    kind = "object"

    def __init__(
        self, obj: Any, *, name: str | None = None, positive_label: Any = None, identity: str | None = None
    ) -> None:
        super().__init__(
            name or type(obj).__name__, identity or f"object:{id(obj)}", "cpu", use_cache=identity is not None
        )
        self.obj = obj
        self.labels = list(self._labels())
        self.positive_label = positive_label
        if positive_label is not None:
            self.label_index(positive_label)  # fail early on an unknown label
        self._memo: dict[str, np.ndarray] = {}

    def _labels(self) -> Sequence[Any]:
        raise NotImplementedError

    def _probs(self, texts: list[str]) -> np.ndarray:
        """Class probabilities of one batch of texts, shape ``(n, k)``."""
        raise NotImplementedError

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        if text_pairs is not None:
            raise ValueError(f"{self.name} scores single texts; it has no sentence-pair input")
        texts = [str(t) for t in texts]
        if not texts:
            return np.zeros((0, len(self.labels)))
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:

            def compute(batch: list[str]) -> np.ndarray:
                self.calls += 1
                probs = np.asarray(self._probs(batch), dtype=np.float64)
                if probs.shape != (len(batch), len(self.labels)):
                    raise MtlibInputError(
                        f"model {self.name!r}: its class probabilities have shape {probs.shape} for "
                        f"{len(batch):,} texts; expected ({len(batch)}, {len(self.labels)}): one row per text, "
                        f"one column per class {self.labels}",
                        argument="model",
                        expected="one row of class probabilities per text",
                    )
                return check_finite(probs, self.name, batch, what="class probabilities")  # before it is cached

            rows = cached_rows(self._cache("classify"), missing, compute, desc=f"classify {self.name}")
            check_finite(rows, self.name, missing, what="class probabilities")
            self._memo.update(zip(missing, np.asarray(rows, dtype=np.float64)))
        return np.stack([self._memo[t] for t in texts])

    def positive_score(self, texts: Sequence[str]) -> np.ndarray:
        """Probability of the positive label, shape ``(n,)``."""
        if self.positive_label is not None:
            column = self.label_index(self.positive_label)
        else:
            lower = [str(label).lower() for label in self.labels]
            column = lower.index("positive") if "positive" in lower else len(lower) - 1
        return self.classify(texts)[:, column]


class SklearnTextModel(ObjectModel):
    """A fitted scikit-learn classifier (or pipeline) on raw texts: ``predict_proba``, labels from ``classes_``."""

    kind = "sklearn"

    def _labels(self) -> Sequence[Any]:
        return [c.item() if hasattr(c, "item") else c for c in self.obj.classes_]

    def _probs(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.obj.predict_proba(texts), dtype=np.float64)


class TextClassificationPipelineModel(ObjectModel):
    """A transformers ``pipeline("text-classification")``: every class's score, labels from ``id2label``."""

    kind = "hf-pipeline"

    def __init__(
        self, obj: Any, *, name: str | None = None, positive_label: Any = None, identity: str | None = None
    ) -> None:
        default = getattr(getattr(obj.model, "config", None), "_name_or_path", "") or type(obj).__name__
        super().__init__(obj, name=name or default, positive_label=positive_label, identity=identity)

    def _labels(self) -> Sequence[Any]:
        config = self.obj.model.config
        return [config.id2label[i] for i in range(config.num_labels)]

    def _probs(self, texts: list[str]) -> np.ndarray:
        out = self.obj(texts, top_k=None, truncation=True)
        column = {label: i for i, label in enumerate(self.labels)}
        probs = np.zeros((len(texts), len(self.labels)))
        for row, scores in enumerate(out):
            for entry in scores if isinstance(scores, list) else [scores]:
                probs[row, column[entry["label"]]] = entry["score"]
        return probs


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
