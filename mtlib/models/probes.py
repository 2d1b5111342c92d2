"""Heads and probes trained on frozen features (arrays in, a held-out accuracy out).

Intuition: a probe asks whether some property (sentiment, hypernymy, NLI
label) can be read off a model's representations by a simple classifier.
Here that is a seeded head (:mod:`mtlib.models.heads`: ``"logreg"`` /
``"linear"`` logistic regression, or ``"mlp"``) on a feature matrix
``X (n, d)`` with labels ``y (n,)``, evaluated on held-out data and cached
on disk as arrays, keyed by a hash of the data and settings, so rerunning a
notebook never retrains. :func:`mtlib.models.classifier` uses the same heads
when the features come from a model's ``embed``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtlib.models.base import label_position, log_odds
from mtlib.models.baseline import majority_baseline
from mtlib.models.heads import FORMAT, LinearHead, MLPHead, load_head, make_head, save_head
from mtlib.models.training import stratified_split
from mtlib.utils.cache import cache_root, stable_hash
from mtlib.utils.inputs import check_seed

__all__ = ["KINDS", "Head", "data_hash", "train_head"]

KINDS = ("logreg", "linear", "mlp")


@dataclass
class Head:
    """A trained classifier on frozen features and its held-out evaluation.

    Attributes:
        kind: ``"logreg"``, ``"linear"`` or ``"mlp"``.
        estimator: The fitted :class:`~mtlib.models.heads.LinearHead` or
            :class:`~mtlib.models.heads.MLPHead` (it works on class indices).
        classes_: Class labels, the column order of :meth:`predict_proba`.
        accuracy: Accuracy on the held-out examples (``nan`` without any).
        n_train, n_test: Sizes of the two parts.
        key: Hash of data and settings (the cache key).
        settings: Kind, seed and hyper-parameters.
        majority_baseline: Share of the held-out set's most frequent class.
    """

    kind: str
    estimator: LinearHead | MLPHead
    classes_: np.ndarray
    accuracy: float
    n_train: int
    n_test: int
    key: str
    settings: dict[str, Any] = field(default_factory=dict)
    majority_baseline: float = float("nan")

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities, shape ``(n, k)``; empty input gives ``(0, k)``."""
        X = np.asarray(X)
        if len(X) == 0:
            return np.zeros((0, len(self.classes_)))
        return self.estimator.predict_proba(X)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Most probable class per row, shape ``(n,)``."""
        return self.classes_[self.predict_proba(X).argmax(1)]

    def _column(self, label: Any) -> int:
        return label_position(list(self.classes_), label, "head")

    def score(self, X: np.ndarray, label: Any) -> np.ndarray:
        """Probability of one class, shape ``(n,)``."""
        return self.predict_proba(X)[:, self._column(label)]

    def log_odds(self, X: np.ndarray, label: Any) -> np.ndarray:
        """log P(label) - log P(other classes), shape ``(n,)``; does not saturate like probabilities."""
        column = self._column(label)
        X = np.asarray(X)
        return log_odds(self.estimator.logits(X), column) if len(X) else np.zeros(0)

    def linear_parts(self, label: Any) -> tuple[np.ndarray, float] | None:
        """Raw-feature weights and bias of ``label``'s logit for a binary linear head, else None."""
        return self.estimator.linear_parts(self._column(label))

    def summary(self) -> dict[str, Any]:
        """Scalars for ``metrics.json``."""
        return {
            "kind": self.kind,
            "accuracy": self.accuracy,
            "majority_baseline": self.majority_baseline,
            "n_train": self.n_train,
            "n_test": self.n_test,
        }


def data_hash(*arrays: Any) -> str:
    """SHA-256 (24 hex digits) of arrays or lists of texts/labels, by shape, dtype and content."""
    h = hashlib.sha256()
    for a in arrays:
        if a is None:
            h.update(b"none")
            continue
        a = np.asarray(a)
        h.update(str((a.shape, a.dtype.str if a.dtype != object else "object")).encode())
        if a.dtype == object or a.dtype.kind in "US":
            h.update(
                json.dumps([x.item() if hasattr(x, "item") else x for x in a.ravel().tolist()], default=str).encode()
            )
        else:
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:24]


def _json_label(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


def train_head(
    X: np.ndarray,
    y: np.ndarray,
    *,
    kind: str = "logreg",
    seed: int = 0,
    test_size: float = 0.2,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    use_cache: bool = True,
    **params: Any,
) -> Head:
    """Train a seeded head on frozen features and measure held-out accuracy.

    Args:
        X: Features, shape ``(n, d)``.
        y: Labels, shape ``(n,)`` (any hashable values; sorted, they are the columns).
        kind: ``"logreg"`` (= ``"linear"``) or ``"mlp"``.
        seed: Seeds the split and the estimator.
        test_size: Held-out fraction (stratified) when no test set is given.
        X_test, y_test: An explicit held-out set; then all of ``X`` trains.
        use_cache: Reload a head trained on identical data and settings.
        **params: Head settings, e.g. ``C=0.5`` (logreg), ``hidden=(500, 100)``
            or ``epochs=20`` (mlp), ``standardize=False``.

    Returns:
        The trained :class:`Head` (trained on the training part only).

    Raises:
        ValueError: fewer than two classes, mismatched lengths, an unknown kind, or a seed outside
            [0, 2**32 - 1] (naming ``seed``).
    """
    seed = check_seed(seed, "train_head")
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y)
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError(f"X must be (n, d) and y (n,); got {X.shape} and {y.shape}")
    if kind not in KINDS:
        raise ValueError(f"unknown head kind {kind!r}; choose one of {KINDS}")
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(f"a head needs at least two classes; y has {classes.tolist()}")
    settings = {"kind": kind, "seed": seed, "test_size": test_size, **params}
    key = stable_hash([data_hash(X, y, X_test, y_test), settings, FORMAT], 24)
    folder = cache_root() / "heads" / key
    if use_cache:
        loaded = load_head(folder)
        if loaded is not None:
            est, rec = loaded
            return Head(
                kind,
                est,
                np.asarray(rec["classes"], dtype=classes.dtype),
                rec["accuracy"],
                rec["n_train"],
                rec["n_test"],
                key,
                settings,
                rec["majority_baseline"],
            )
    if X_test is None:
        tr, te = stratified_split(y, test_size, seed)
        X_tr, y_tr, X_te, y_te = X[tr], y[tr], X[te], y[te]
    else:
        X_tr, y_tr = X, y
        X_te, y_te = np.asarray(X_test, dtype=np.float32), np.asarray(y_test)
    classes = np.unique(y_tr)
    est = make_head(kind, seed, **params)
    y_idx = np.searchsorted(classes, y_tr)
    est.fit(X_tr, y_idx, len(classes)) if isinstance(est, MLPHead) else est.fit(X_tr, y_idx)
    acc = float(np.mean(classes[est.predict_proba(X_te).argmax(1)] == y_te)) if len(y_te) else float("nan")
    head = Head(kind, est, classes, acc, len(y_tr), len(y_te), key, settings, majority_baseline(y_te))
    if use_cache:
        save_head(
            est,
            folder,
            {
                "classes": [_json_label(c) for c in classes],
                "accuracy": acc,
                "n_train": len(y_tr),
                "n_test": len(y_te),
                "majority_baseline": head.majority_baseline,
            },
        )
    return head
