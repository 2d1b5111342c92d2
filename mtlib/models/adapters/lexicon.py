"""Lexicon and rule-based sentiment scorers that run offline: VADER and TextBlob.

Both give a polarity ``c`` in ``[-1, 1]`` (VADER's ``compound``, TextBlob's
pattern-analyzer ``polarity``); ``classify`` maps it to the two classes
``negative, positive`` as ``((1 - c) / 2, (1 + c) / 2)``. Deterministic,
nothing to train: these are "native" classifiers for
:func:`mtlib.models.classifier` and cannot be fine-tuned.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtlib.models.base import Model
from mtlib.models.capabilities import Capabilities, register_adapter
from mtlib.models.inference.numerics import check_finite
from mtlib.models.weights.identity import model_identity, package_identity
from mtlib.models.weights.registry import ModelNotFoundError, ModelSpec
from mtlib.models.weights.resolve import Resolved, module_installed
from mtlib.utils.cache import cached_rows

__all__ = ["LexiconModel"]


def _vader():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    return lambda text: analyzer.polarity_scores(text)["compound"]


def _textblob():
    from textblob import TextBlob

    return lambda text: TextBlob(text).sentiment.polarity


#: Registry source -> factory of a ``text -> polarity`` function.
SCORERS = {"vaderSentiment": _vader, "textblob": _textblob}


def resolve_lexicon(spec: ModelSpec, allow_pickle: bool = False) -> Resolved:
    """A lexicon scorer is its installed Python package.

    Raises:
        ModelNotFoundError: the package is not installed (says which to install).
    """
    module = spec.packaged or spec.source
    if not module_installed(module):
        raise ModelNotFoundError(f"{spec.name!r} needs the Python package {module!r}: pip install {spec.source}")
    return Resolved(spec.name, None, "lexicon", "packaged", spec)


def lexicon_status(spec: ModelSpec) -> str:
    """``"packaged"`` when the scorer's package is installed, else ``"missing"``."""
    return "packaged" if module_installed(spec.packaged or spec.source) else "missing"


@register_adapter()
class LexiconModel(Model):
    """A polarity scorer as a two-class sentiment classifier (labels ``negative``, ``positive``)."""

    kind = "lexicon"
    capabilities = Capabilities(
        resolves="lexicon",
        resolve=resolve_lexicon,
        offline_status=lexicon_status,
        identity=package_identity,
        why_not_finetune="a lexicon scorer has no trainable weights",
    )

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:
        super().__init__(resolved.name, model_identity(resolved), "cpu", use_cache)
        source = resolved.spec.source if resolved.spec else resolved.name
        if source not in SCORERS:
            raise ValueError(f"no lexicon scorer {source!r}; known: {sorted(SCORERS)}")
        self._polarity_of = SCORERS[source]()
        self.labels = ["negative", "positive"]

    def polarity(self, texts: Sequence[str]) -> np.ndarray:
        """Polarity ``c`` in ``[-1, 1]`` of each text, shape ``(n,)``; cached per text."""
        texts = list(texts)
        if not texts:
            return np.zeros(0)

        def compute(batch: list[str]) -> np.ndarray:
            self.calls += 1
            return np.array([[self._polarity_of(t)] for t in batch], dtype=np.float32)

        rows = cached_rows(self._cache("polarity"), texts, compute, desc=f"score {self.name}")
        return check_finite(rows, self.name, texts, what="polarities")[:, 0].astype(np.float64)

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        if text_pairs is not None:
            raise ValueError(f"{self.name} scores single texts; it has no sentence-pair input")
        c = self.polarity(texts)
        return np.stack([(1 - c) / 2, (1 + c) / 2], axis=1) if len(c) else np.zeros((0, 2))
