"""Frozen features + a trained head (``how="head"``): the encoder never changes, only a small head learns.

Intuition: a sentence encoder's cached ``embed`` gives the features once
(pairs: ``[u, v, |u - v|, u * v]``); a logistic-regression or MLP head
(:mod:`mtlib.models.training.heads`) learns the task on them. Training is cheap and
cached: a rerun reloads the head's arrays instead of fitting it again.

Inputs with no vector (static word vectors that know none of their words,
:mod:`mtlib.models.inference.oov`) never stop a run: training skips them and counts them
(``training.n_skipped``); a prediction for one is the training class shares,
i.e. the majority class (a tie between equal shares stays a tie), counted in
:attr:`HeadClassifier.fallbacks`. :func:`mtlib.models.inference.oov.coverage_summary`
counts them before any prediction.

The same heads serve probes (:func:`feature_head`, ``classifier(X, y, how="head")``): a probe asks whether some
property (sentiment, hypernymy, an NLI label) can be read off any feature
matrix ``X (n, d)`` with labels ``y (n,)`` by a simple seeded head, evaluated on
held-out data and cached on disk as arrays, keyed by a hash of the data and
settings, so rerunning a notebook never retrains.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.models.base import Model, label_position, log_odds
from mtlib.models.inference.numerics import NonFiniteOutputError, check_finite
from mtlib.models.inference.oov import known_rows
from mtlib.models.training.baseline import majority_baseline
from mtlib.models.training.heads import FORMAT, LinearHead, MLPHead, load_head, make_head, pair_features, save_head
from mtlib.models.training.labelled import Task
from mtlib.models.training.loop import stratified_split
from mtlib.models.training.resolved import ResolvedTraining
from mtlib.models.training.settings import CLASSIFIER_HELDOUT, Training, json_safe
from mtlib.models.training.store import cached_training, evaluate, folder_of, read_entry, write_entry
from mtlib.utils.cache import cache_root, stable_hash
from mtlib.utils.faces import renamed_attribute, renamed_keywords

__all__ = ["HeadClassifier", "frozen_features"]


def frozen_features(model: Model, texts: list[str], pairs: list[str] | None) -> np.ndarray:
    """Head input from a frozen model's cached ``embed``: ``(n, d)``, or ``[u, v, |u-v|, u*v]`` ``(n, 4d)`` for pairs.

    An input with no vector (static word vectors that know none of its words; for pairs, either side)
    is a row of NaN (:mod:`mtlib.models.inference.oov`): :func:`fit_head` skips and counts it, and
    :class:`HeadClassifier` answers the training class shares for it.

    Raises:
        ValueError: a model gives infinite features, naming the model and the first such text.
    """
    if pairs is None:
        X = np.asarray(model.embed(texts), dtype=np.float32)
    else:
        E = np.asarray(model.embed(texts + pairs), dtype=np.float32)  # one call; each unique text once
        X = pair_features(E[: len(texts)], E[len(texts) :])
    infinite: Any = np.flatnonzero(np.isinf(X).any(axis=1)) if len(X) else []
    if len(infinite):
        i = int(infinite[0])
        raise NonFiniteOutputError(
            f"{model.name} gives infinite features for {len(infinite)} input(s), e.g. {texts[i]!r}; a head "
            "cannot train or predict on them: drop those inputs or use another model"
        )
    return X


def class_shares(y: np.ndarray, k: int) -> np.ndarray:
    """Share of each class among training labels ``y`` (class indices), ``(k,)``: the answer without features.

    Example:
        >>> class_shares(np.array([0, 1, 1, 1]), 2)
        array([0.25, 0.75])
    """
    y = np.asarray(y, dtype=np.int64)
    return np.bincount(y, minlength=k)[:k] / max(len(y), 1)


class HeadClassifier(Model):
    """A frozen encoder and a trained head on its (cached) sentence embeddings.

    Attributes:
        encoder: The frozen model (its ``embed`` is cached on disk).
        head: A :class:`~mtlib.models.training.heads.LinearHead` or :class:`~mtlib.models.training.heads.MLPHead`.
        shares: The training labels' class shares ``(k,)``: the probabilities of an input with no vector.
        fallbacks: Inputs predicted by this object so far without a vector (given :attr:`shares`), the
            held-out evaluation right after training included.
    """

    kind = "head-classifier"

    def __init__(
        self,
        encoder: Model,
        head: LinearHead | MLPHead,
        labels: Sequence[Any],
        training: Training,
        shares: np.ndarray | None = None,
    ) -> None:
        super().__init__(
            f"{encoder.name}+{head.head}", f"{encoder.identity}+head:{training.key}", encoder.device, False
        )
        self.encoder, self.head, self.labels, self.training = encoder, head, list(labels), training
        k = len(self.labels)
        self.shares = np.full(k, 1.0 / max(k, 1)) if shares is None else np.asarray(shares, dtype=np.float64)
        self.fallbacks = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.encoder.embed(texts)

    def features(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """The head's input: embeddings ``(n, d)``, or pair features ``(n, 4d)``; NaN rows have no vector."""
        return frozen_features(self.encoder, list(texts), list(text_pairs) if text_pairs is not None else None)

    def _check_pairs(self, text_pairs: Sequence[str] | None) -> None:
        if (text_pairs is not None) != self.training.pairs:
            trained = "text pairs" if self.training.pairs else "single texts"
            raise ValueError(f"{self.name} was trained on {trained}; call it the same way")

    def _predict(self, texts: Sequence[str], text_pairs: Sequence[str] | None, logits: bool) -> np.ndarray:
        """Head output per input; an input with no vector gets the class shares (or their log)."""
        self._check_pairs(text_pairs)
        texts = list(texts)
        if not texts:
            return np.zeros((0, len(self.labels)))
        X = self.features(texts, text_pairs)
        ok = known_rows(X)
        fill = np.log(np.clip(self.shares, 1e-300, None)) if logits else self.shares
        out = np.tile(fill, (len(X), 1))
        if ok.any():
            out[ok] = self.head.logits(X[ok]) if logits else self.head.predict_proba(X[ok])
            check_finite(out, self.name, texts, what="logits" if logits else "class probabilities")
        self.fallbacks += int((~ok).sum())
        return out

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        return self._predict(texts, text_pairs, logits=False)

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        return self._predict(texts, text_pairs, logits=True)

    def linear_parts(self, label: Any) -> tuple[np.ndarray, float] | None:
        """Raw-feature weights and bias of ``label``'s logit when the head is binary and linear, else None."""
        return self.head.linear_parts(self.label_index(label))


def fit_head(
    model: Model, data: dict[str, Any], plan: ResolvedTraining, device: str, init: MLPHead | None = None
) -> tuple[LinearHead | MLPHead, list[float], int]:
    """Fit a fresh head (or continue ``init``) on the training part's frozen features; ``(head, losses, skipped)``.

    ``plan`` is the resolved training (:class:`~mtlib.models.training.resolved.ResolvedTraining`), read by
    attribute.

    Training inputs with no vector are skipped; ``skipped`` counts them.

    Raises:
        ValueError: no training input has a vector, or skipping left a class of a linear head without example.
    """
    X = frozen_features(model, data["texts"], data["pairs"])
    y = np.asarray(data["y"])
    ok = known_rows(X)
    skipped = int((~ok).sum())
    if skipped:
        if not ok.any():
            raise ValueError(
                f"{model.name} has no vector for any of the {len(X)} training inputs (none of their words is "
                "known): nothing to train a head on; use a model with word pieces such as 'minilm'"
            )
        X, y = X[ok], y[ok]
        lost = sorted(set(range(int(data["k"]))) - set(y.tolist()))
        if lost and plan.head != "mlp" and init is None:
            raise ValueError(
                f"{model.name}: after skipping {skipped} training input(s) with no vector, class index(es) "
                f"{lost} have no example left for the linear head; add examples of them or use another model"
            )
    if plan.head == "mlp":
        params: dict[str, Any] = {
            "hidden": plan.hidden,
            "epochs": plan.epochs,
            "lr": plan.lr,
            "batch_size": plan.batch_size,
            "device": device,
        }
    else:
        params = {"C": plan.C, "class_weight": plan.class_weight, "device": device}
    head = make_head(plan.head, plan.seed, **params)
    if isinstance(head, MLPHead):
        head.fit(X, y, data["k"], init=init)
        return head, head.losses, skipped
    return head.fit(X, y), [], skipped


def head_classifier(base: Model, task: Task, plan: ResolvedTraining, key: str, device: str) -> HeadClassifier:
    """A head on ``base``'s frozen features as ``plan`` says: reloaded from the cache entry ``key``, else trained.

    Args:
        base: The frozen encoder.
        task: The prepared training and held-out parts.
        plan: The resolved training, made once by the factory (:meth:`ResolvedTraining.resolve`).
        key: Its cache key (:meth:`ResolvedTraining.cache_key` of ``task``'s data).
        device: Where an MLP head trains.
    """
    use_cache = plan.use_cache
    folder = folder_of(key, base.cache_dir)
    record = read_entry(folder) if use_cache else None
    shares = class_shares(task.data["y"], len(task.classes))
    if record is not None:
        loaded = load_head(folder)
        if loaded is not None:
            return HeadClassifier(base, loaded[0], task.classes, cached_training(record), shares)
    start = time.perf_counter()
    held = task.held
    # every input's features in one embed call (then cached): the same batches as one call
    extra = held if plan.valid is not None and held is not None else {"texts": [], "pairs": []}
    frozen_features(base, task.texts + extra["texts"], None if task.pairs is None else task.pairs + extra["pairs"])
    n_held = 0 if held is None else len(held["y"])
    training = Training(
        "head", plan.head, plan.keyed(), plan.seed, None, None, n_train=len(task.data["y"]), n_heldout=n_held, key=key
    )
    given = plan.request.init if plan.request is not None else None
    init = given.head if isinstance(given, HeadClassifier) and isinstance(given.head, MLPHead) else None
    est, training.train_log, training.n_skipped = fit_head(base, task.data, plan, device, init)
    training.n_train -= training.n_skipped
    clf = HeadClassifier(base, est, task.classes, training, shares)
    training.seconds = time.perf_counter() - start
    evaluate(clf, training, held)
    if use_cache:
        save_head(est, folder, {"labels": json_safe(task.classes)})
        write_entry(folder, training, task.classes, base, None)
    return clf


# -- probes: a head on any feature matrix --------------------------------------------------------------------
KINDS = ("logreg", "linear", "mlp")


@renamed_keywords(kind="head")
@dataclass
class Head:
    """A trained classifier on frozen features and its held-out evaluation.

    Attributes:
        head: The head, ``"linear"`` (logistic regression) or ``"mlp"``; ``"logreg"`` given is read as
            ``"linear"``. (``kind``: its old name, read-only, a DeprecationWarning; it gives
            :attr:`recorded_head`, as it did, and goes in the next release.)
        estimator: The fitted :class:`~mtlib.models.training.heads.LinearHead` or
            :class:`~mtlib.models.training.heads.MLPHead` (it works on class indices).
        classes_: Class labels, the column order of :meth:`predict_proba`.
        accuracy: Accuracy on the held-out examples (``nan`` without any).
        n_train, n_test: Sizes of the two parts.
        key: Hash of data and settings (the cache key).
        settings: The recorded head (its key ``kind``), seed and hyper-parameters: what the cache key hashes.
        majority_baseline: Share of the held-out set's most frequent class.
    """

    head: str
    estimator: LinearHead | MLPHead
    classes_: np.ndarray
    accuracy: float
    n_train: int
    n_test: int
    key: str
    settings: dict[str, Any] = field(default_factory=dict)
    majority_baseline: float = float("nan")

    def __post_init__(self) -> None:
        if self.head not in _RECORDED_KIND and self.head not in _RECORDED_KIND.values():
            known = ", ".join(_RECORDED_KIND)
            raise ValueError(f"Head: head must be one of {known} ('logreg' is read as linear); got {self.head!r}")
        self.head = "linear" if self.head == "logreg" else self.head

    @property
    def recorded_head(self) -> str:
        """The name a head on a feature matrix records: ``"logreg"`` for ``linear`` (its old name, kept so that
        every cached probe keeps its cache key and ``metrics.json`` its values), ``"mlp"``."""
        return _RECORDED_KIND[self.head]

    kind = renamed_attribute("Head.kind", "recorded_head")

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
            "kind": self.recorded_head,
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


#: The head settings a head on a feature matrix takes besides the factory's own options (its cache key keeps
#: every one given, as ``train_head`` did).
FEATURE_HEAD_OPTIONS = (
    "C",
    "max_iter",
    "standardize",
    "class_weight",
    "device",
    "hidden",
    "epochs",
    "lr",
    "batch_size",
)
#: The name a head on a feature matrix records (:attr:`Head.recorded_head`, in its cache key): ``linear`` keeps
#: the old name ``logreg``, so every cached probe keeps its key.
_RECORDED_KIND = {"linear": "logreg", "mlp": "mlp"}


def feature_head(
    X: np.ndarray,
    y: np.ndarray,
    *,
    head: str = "linear",
    seed: int = 0,
    heldout_fraction: float = CLASSIFIER_HELDOUT,
    valid: tuple[np.ndarray, np.ndarray] | None = None,
    use_cache: bool = True,
    cache_dir: str | Path | None = None,
    params: dict[str, Any] | None = None,
) -> Head:
    """Train a seeded head on a feature matrix and measure held-out accuracy (``classifier(X, y, how="head")``).

    The factory (:func:`mtlib.models.classifier`) calls it for a feature matrix and has checked the options.

    Args:
        X: Features, shape ``(n, d)``.
        y: Labels, shape ``(n,)`` (any hashable values; sorted, they are the columns).
        head: ``"linear"`` (logistic regression) or ``"mlp"``.
        seed: Seeds the split and the estimator.
        heldout_fraction: Held-out fraction (stratified) when no ``valid`` set is given (it is part of the cache
            key even with ``valid``, as it was of ``train_head``'s).
        valid: An explicit held-out set ``(X_test, y_test)``; then all of ``X`` trains.
        use_cache: Reload a head trained on identical data and settings.
        cache_dir: The cache folder (a run's ``context.cache_dir``); None: the default
            (:func:`mtlib.utils.cache.default_cache_dir`).
        params: Head settings given (:data:`FEATURE_HEAD_OPTIONS`), e.g. ``C=0.5``, ``hidden=(500, 100)``
            or ``epochs=20``; each one given is part of the cache key.

    Returns:
        The trained :class:`Head` (trained on the training part only).

    Raises:
        ValueError: fewer than two classes, mismatched lengths, or an unknown head.
    """
    params = dict(params or {})
    X_test, y_test = valid if valid is not None else (None, None)
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y)
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError(f"X must be (n, d) and y (n,); got {X.shape} and {y.shape}")
    if head not in _RECORDED_KIND:
        raise ValueError(f"unknown head {head!r}; choose one of {', '.join(_RECORDED_KIND)}")
    recorded = _RECORDED_KIND[head]
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(f"a head needs at least two classes; y has {classes.tolist()}")
    settings = {"kind": recorded, "seed": seed, "test_size": heldout_fraction, **params}
    key = stable_hash([data_hash(X, y, X_test, y_test), settings, FORMAT], 24)
    folder = cache_root(cache_dir) / "heads" / key
    if use_cache:
        loaded = load_head(folder)
        if loaded is not None:
            est, rec = loaded
            return Head(
                head,
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
        tr, te = stratified_split(y, heldout_fraction, seed)
        X_tr, y_tr, X_te, y_te = X[tr], y[tr], X[te], y[te]
    else:
        X_tr, y_tr = X, y
        X_te, y_te = np.asarray(X_test, dtype=np.float32), np.asarray(y_test)
    classes = np.unique(y_tr)
    est = make_head(recorded, seed, **params)
    y_idx = np.searchsorted(classes, y_tr)
    est.fit(X_tr, y_idx, len(classes)) if isinstance(est, MLPHead) else est.fit(X_tr, y_idx)
    acc = float(np.mean(classes[est.predict_proba(X_te).argmax(1)] == y_te)) if len(y_te) else float("nan")
    trained = Head(head, est, classes, acc, len(y_tr), len(y_te), key, settings, majority_baseline(y_te))
    if use_cache:
        save_head(
            est,
            folder,
            {
                "classes": [_json_label(c) for c in classes],
                "accuracy": acc,
                "n_train": len(y_tr),
                "n_test": len(y_te),
                "majority_baseline": trained.majority_baseline,
            },
        )
    return trained
