"""Frozen features + a trained head (``how="head"``): the encoder never changes, only a small head learns.

Intuition: a sentence encoder's cached ``embed`` gives the features once
(pairs: ``[u, v, |u - v|, u * v]``); a logistic-regression or MLP head
(:mod:`mtlib.models.heads`) learns the task on them. Training is cheap and
cached: a rerun reloads the head's arrays instead of fitting it again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from mtlib.models.base import Model
from mtlib.models.heads import LinearHead, MLPHead, load_head, make_head, pair_features, save_head
from mtlib.models.labelled import Task
from mtlib.models.settings import ClassifierSettings, Training, json_safe
from mtlib.models.store import cached_training, evaluate, folder_of, read_entry, write_entry

__all__ = ["HeadClassifier", "fit_head", "frozen_features", "head_classifier"]


def frozen_features(model: Model, texts: list[str], pairs: list[str] | None) -> np.ndarray:
    """Head input from a frozen model's cached ``embed``: ``(n, d)``, or ``[u, v, |u-v|, u*v]`` ``(n, 4d)`` for pairs.

    Raises:
        ValueError: a text has no embedding (out-of-vocabulary words of static
            vectors), naming the model, the text and the words.
    """
    if pairs is None:
        X = np.asarray(model.embed(texts), dtype=np.float32)
    else:
        E = np.asarray(model.embed(texts + pairs), dtype=np.float32)  # one call; each unique text once
        X = pair_features(E[: len(texts)], E[len(texts) :])
    bad: Any = np.flatnonzero(np.isnan(X).any(axis=1)) if len(X) else []
    if len(bad):
        i = int(bad[0])
        words: Any = getattr(model, "missing_words", lambda t: {})
        missing: dict[str, list[str]] = words([texts[i]] + ([pairs[i]] if pairs else []))
        raise ValueError(
            f"{model.name} has no vector for {len(bad)} input(s), e.g. {texts[i]!r} (missing words: "
            f"{sorted({w for ws in missing.values() for w in ws})}); drop those inputs or use a "
            "model with word pieces such as 'minilm'"
        )
    infinite: Any = np.flatnonzero(np.isinf(X).any(axis=1)) if len(X) else []
    if len(infinite):
        i = int(infinite[0])
        raise ValueError(
            f"{model.name} gives infinite features for {len(infinite)} input(s), e.g. {texts[i]!r}; a head "
            "cannot train or predict on them: drop those inputs or use another model"
        )
    return X


class HeadClassifier(Model):
    """A frozen encoder and a trained head on its (cached) sentence embeddings.

    Attributes:
        encoder: The frozen model (its ``embed`` is cached on disk).
        head: A :class:`~mtlib.models.heads.LinearHead` or :class:`~mtlib.models.heads.MLPHead`.
    """

    kind = "head-classifier"

    def __init__(self, encoder: Model, head: LinearHead | MLPHead, labels: Sequence[Any], training: Training) -> None:
        super().__init__(
            f"{encoder.name}+{head.kind}", f"{encoder.identity}+head:{training.key}", encoder.device, False
        )
        self.encoder, self.head, self.labels, self.training = encoder, head, list(labels), training

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.encoder.embed(texts)

    def features(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """The head's input: embeddings ``(n, d)``, or pair features ``(n, 4d)``."""
        return frozen_features(self.encoder, list(texts), list(text_pairs) if text_pairs is not None else None)

    def _check_pairs(self, text_pairs: Sequence[str] | None) -> None:
        if (text_pairs is not None) != self.training.settings["pairs"]:
            trained = "text pairs" if self.training.settings["pairs"] else "single texts"
            raise ValueError(f"{self.name} was trained on {trained}; call it the same way")

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        self._check_pairs(text_pairs)
        texts = list(texts)
        return self.head.predict_proba(self.features(texts, text_pairs)) if texts else np.zeros((0, len(self.labels)))

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        self._check_pairs(text_pairs)
        texts = list(texts)
        return self.head.logits(self.features(texts, text_pairs)) if texts else np.zeros((0, len(self.labels)))

    def linear_parts(self, label: Any) -> tuple[np.ndarray, float] | None:
        """Raw-feature weights and bias of ``label``'s logit when the head is binary and linear, else None."""
        return self.head.linear_parts(self.label_index(label))


def fit_head(
    model: Model, data: dict[str, Any], s: dict[str, Any], device: str, init: MLPHead | None = None
) -> tuple[LinearHead | MLPHead, list[float]]:
    """Fit a fresh head (or continue ``init``) on the training part's frozen features; ``(head, losses)``."""
    X = frozen_features(model, data["texts"], data["pairs"])
    if s["head"] == "mlp":
        params: dict[str, Any] = {
            "hidden": tuple(s["hidden"]),
            "epochs": s["epochs"],
            "lr": s["lr"],
            "batch_size": s["batch_size"],
            "device": device,
        }
    else:
        params = {k: s[k] for k in ("C", "class_weight") if k in s}
    head = make_head(s["head"], s["seed"], **params)
    if isinstance(head, MLPHead):
        head.fit(X, data["y"], data["k"], init=init)
        return head, head.losses
    return head.fit(X, data["y"]), []


def head_classifier(
    base: Model, task: Task, settings: dict[str, Any], key: str, s: ClassifierSettings, device: str
) -> HeadClassifier:
    """A head on ``base``'s frozen features: reloaded from the cache entry ``key``, else trained and stored."""
    folder = folder_of(key)
    record = read_entry(folder) if s.use_cache else None
    if record is not None:
        loaded = load_head(folder)
        if loaded is not None:
            return HeadClassifier(base, loaded[0], task.classes, cached_training(record))
    start = time.perf_counter()
    held = task.held
    # every input's features in one embed call (then cached): the same batches as one call
    extra = held if s.valid is not None and held is not None else {"texts": [], "pairs": []}
    frozen_features(base, task.texts + extra["texts"], None if task.pairs is None else task.pairs + extra["pairs"])
    training = Training(
        "head",
        s.head,
        settings,
        s.seed,
        None,
        None,
        [],
        False,
        len(task.data["y"]),
        0 if held is None else len(held["y"]),
        key,
    )
    init = s.init.head if isinstance(s.init, HeadClassifier) and isinstance(s.init.head, MLPHead) else None
    est, training.train_log = fit_head(base, task.data, settings, device, init)
    clf = HeadClassifier(base, est, task.classes, training)
    training.seconds = time.perf_counter() - start
    evaluate(clf, training, held)
    if s.use_cache:
        save_head(est, folder, {"labels": json_safe(task.classes)})
        write_entry(folder, training, task.classes, base, None)
    return clf
