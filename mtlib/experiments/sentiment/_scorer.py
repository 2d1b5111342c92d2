"""s_pos(x), the probability that a text is positive, from any model.

Intuition: the relation compares the order of sources with the order of their
follow-ups on one score axis. Any model gives that axis through
:func:`mtlib.models.classifier`: a model's own positive class, or a frozen
encoder plus a logistic-regression head trained here, or the encoder
fine-tuned here (``how="finetune"``, or a name ending in ``-ft`` such as
``minilm-ft``: its own model row). Every unique text (sources and follow-ups)
goes through the model once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtlib.models.base import Model
from mtlib.models.factory import classifier
from mtlib.models.loading import load
from mtlib.models.training.finetune import (
    FineTunedClassifier,
    split_name,  # the model layer's rule, re-exported here
)
from mtlib.models.training.frozen import HeadClassifier
from mtlib.models.training.settings import ClassifierSettings
from mtlib.relations.transformations.concatenation import Concatenation
from mtlib.utils.context import RunContext


@dataclass
class SentimentScorer:
    """s_pos(x): the probability that a text is positive, from any model.

    Attributes:
        name: Model name.
        model: A classifier from :func:`mtlib.models.classifier` (native, or
            a frozen encoder with a trained head).
        positive: Column of ``classify`` that is the positive class.
        head: The trained head classifier, when mtlib trained one.
        info: Accuracy and sizes of the head's training (empty for a
            pretrained classifier).
    """

    name: str
    model: Model
    positive: int
    head: Model | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """s_pos for each text, shape ``(n,)``; each unique text goes through the model once."""
        texts = list(texts)
        if not texts:
            return np.zeros(0)
        return np.asarray(self.model.classify(texts))[:, self.positive].astype(float)

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Predicted label (1 positive, 0 negative), shape ``(n,)``."""
        return (self.score(texts) > 0.5).astype(int)


def build_scorer(
    name: str,
    train_texts: Sequence[str],
    train_labels: Sequence[int],
    *,
    settings: ClassifierSettings,
    how: str,
    context: RunContext,
    seed: int,
    positive_label: str,
    dev: tuple[Sequence[str], Sequence[int]] | None = None,
) -> SentimentScorer:
    """A sentiment scorer for any registry name or path, through :func:`mtlib.models.classifier`.

    A model with its own classes (``siebert``, ``vader``, ``textblob``) is
    used as is (``how="native"``), its positive class chosen by
    ``positive_label`` (case-insensitive). An encoder (e.g. ``minilm``) gets a
    head trained on its frozen sentence embeddings of ``train_texts``
    (``how="head"``: a linear head with the factory's settings), or is fine-tuned with a head on them
    (``how="finetune"`` or a name ending in ``-ft``, with ``settings``, the spec's ``finetune_settings``). Without
    ``dev`` 20% of the training texts are held out; with ``dev`` every
    training text trains and ``dev`` measures; a fine-tune whose settings ask for early
    stopping (``eval_every``) also keeps its best state on it, and ``info`` records the
    chosen epoch. The held-out accuracy and its majority-class baseline are in ``info``. Everything loads and
    trains in ``context`` (the run's device, precision, backend and cache folder).
    """
    base, how, row = split_name(name, how)
    model = load(base, context=context)
    if model.labels and how == "head":
        clf = classifier(model, how="native")
        return SentimentScorer(name, clf, clf.label_index(positive_label))
    train = (list(train_texts), list(train_labels))
    split: dict[str, Any] = {"heldout_fraction": 0.2} if dev is None else {"valid": (list(dev[0]), list(dev[1]))}
    if how == "finetune":
        clf = classifier(model, train, how="finetune", settings=settings, seed=seed, context=context, **split)
    else:
        clf = classifier(model, train, how="head", head="linear", seed=seed, context=context, **split)
    assert isinstance(clf, (HeadClassifier, FineTunedClassifier))
    t = clf.training
    info: dict[str, Any] = {
        "head_accuracy": t.heldout_accuracy,
        "head_majority_baseline": t.majority_baseline,
        "head_n_train": t.n_train,
        "head_n_test": t.n_heldout,
    }
    if how == "finetune":
        info.update(train_seconds=t.seconds, finetune_epochs=t.settings["epochs"], finetune_lr=t.settings["lr"])
        if t.best_epoch is not None:  # early stopping: the epoch whose state was kept
            info["finetune_best_epoch"] = t.best_epoch
    if dev is not None:
        info["head_evaluated_on"] = "dev"
    return SentimentScorer(row, clf, clf.label_index(1), clf, info)


def score_follow_ups(
    scorer: SentimentScorer, sources: Sequence[str], ts: Sequence[Concatenation]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Scores of the sources and of every follow-up, all unique texts in one model call.

    Returns:
        ``(src (n,), {transformation id: flw (n,)})``.
    """
    sources = list(sources)
    texts = sources + [t(x) for t in ts for x in sources]
    scores = scorer.score(texts)
    n = len(sources)
    return scores[:n], {t.name: scores[n * (i + 1) : n * (i + 2)] for i, t in enumerate(ts)}
