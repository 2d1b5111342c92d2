"""The two scores of every NLI input from one forward pass: s_hyp (the probe) and s_ent (the output).

Intuition: the hidden states of the insertion tokens at a chosen layer (their
word pieces found through the tokenizer's offset mapping) feed a linear
hypernymy probe (s_hyp); the entailment score (s_ent) comes from the model's
own ENTAILMENT label, from a head trained here on frozen pooled features, or
from the model fine-tuned here as a cross-encoder (``how="finetune"``); both
train on the training contexts (never the test contexts) and on any external
pairs (SICK TRAIN, MED: :mod:`mtlib.experiments.nli._external`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.models.adapters.transformer import TransformerModel
from mtlib.models.base import Features, Model
from mtlib.models.factory import classifier
from mtlib.models.inference.spans import SpanRequest
from mtlib.models.training.finetune import FineTunedClassifier
from mtlib.models.training.frozen import Head, HeadClassifier, train_head
from mtlib.models.training.settings import ClassifierSettings
from mtlib.utils.context import RunContext


def insertion_spans(items: pd.DataFrame) -> list[list[SpanRequest]]:
    """For each NLI input: ℓa (``x``) in the premise and ℓb (``y``) in the hypothesis."""
    return [[SpanRequest(x, 0), SpanRequest(y, 1)] for x, y in zip(items["x"], items["y"])]


def forward(model: TransformerModel, items: pd.DataFrame, layer: int) -> Features:
    """One forward pass per (premise, hypothesis): pooled output, logits, insertion states at ``layer``.

    Args:
        model: A transformer (:class:`mtlib.models.TransformerModel`).
        items: Rows of :func:`mtlib.data.monotonicity.compose`.
        layer: Hidden-state index (``-2`` = second-to-last layer; 23 for the
            paper's layer 23 of RoBERTa-large's 24).

    Returns:
        :class:`mtlib.models.Features`; ``spans`` has shape ``(n, 2, h)``.
    """
    return model.features(list(items["premise"]), list(items["hypothesis"]), layer=layer, spans=insertion_spans(items))


def hidden_vectors(features: Features) -> np.ndarray:
    """z: the pooled states of ℓa and ℓb side by side, shape ``(n, 2h)``."""
    assert features.spans is not None
    return features.spans.reshape(len(features.spans), -1)


@dataclass
class EntailmentScorer:
    """s_ent for every input, and how it was obtained.

    Attributes:
        source: ``"model label ENTAILMENT"`` or ``"head trained on ... inputs"``.
        log_odds: s_ent as log-odds, shape ``(n,)`` (used for orders: no saturation).
        prob: P(entailed), shape ``(n,)``.
        head: The head classifier from :func:`mtlib.models.classifier`, if one was trained.
        info: Held-out accuracy of the head (and its majority-class baseline).
        score: ``(premises, hypotheses) -> log-odds of entailed`` for any other pairs (SICK TEST), or None.
    """

    source: str
    log_odds: np.ndarray
    prob: np.ndarray
    head: Model | None = None
    info: dict[str, Any] = field(default_factory=dict)
    score: Callable[[list[str], list[str]], np.ndarray] | None = field(default=None, repr=False)


def entailment_scores(
    model: Model,
    items: pd.DataFrame,
    train_mask: np.ndarray,
    *,
    features: Features | None = None,
    entailment_label: str,
    seed: int,
    how: str,
    external: pd.DataFrame | None = None,
    settings: ClassifierSettings,
    context: RunContext,
) -> EntailmentScorer:
    """Entailment scores from the model's own NLI head, a head trained here, or the model fine-tuned here.

    With ``how="head"``, a model with an ``entailment_label`` class
    (``roberta-large-mnli``) is used natively; its logits come from
    ``features`` when given (the same forward pass as the probe's hidden
    states). Any other model gets :func:`mtlib.models.classifier` with
    ``how="head"``: a logistic head on the pair features ``[u, v, |u - v|,
    u * v]`` of its sentence embeddings of premise and hypothesis. With
    ``how="finetune"`` the model is fine-tuned as a cross-encoder on the
    (premise, hypothesis) pair encoding with ``settings`` (the spec's
    ``finetune_settings``). Both train on the training contexts'
    inputs (natural-logic gold label, entailed or not) plus ``external``
    (``premise, hypothesis, entailed``), 20% held out for the accuracy.
    """
    premises, hypotheses = list(items["premise"]), list(items["hypothesis"])
    if how == "head" and entailment_label.lower() in [str(lab).lower() for lab in model.labels]:
        native = classifier(model, how="native")
        lo = (
            features.log_odds(entailment_label)
            if features is not None and features.logits is not None
            else native.log_odds(premises, entailment_label, hypotheses)
        )
        return EntailmentScorer(
            f"model label {entailment_label}",
            lo,
            1 / (1 + np.exp(-lo)),
            score=lambda p, h: native.log_odds(p, entailment_label, h),
        )
    gold = items["entailed"].to_numpy().astype(bool)
    train = np.flatnonzero(train_mask)
    t_prem, t_hyp, t_gold = [premises[i] for i in train], [hypotheses[i] for i in train], list(gold[train])
    if external is not None and len(external):
        t_prem += list(external["premise"])
        t_hyp += list(external["hypothesis"])
        t_gold += [bool(x) for x in external["entailed"]]
    if how == "finetune":
        clf = classifier(
            model,
            (t_prem, t_hyp, t_gold),
            how="finetune",
            settings=settings,
            labels=[False, True],
            heldout_fraction=0.2,
            seed=seed,
            context=context,
        )
        what = "cross-encoder fine-tuned"
    elif how == "head":
        clf = classifier(model, (t_prem, t_hyp, t_gold), how="head", heldout_fraction=0.2, seed=seed, context=context)
        assert isinstance(clf, HeadClassifier)
        what = "logistic head on [u, v, |u-v|, u*v] trained"
    else:
        raise ValueError(f"how must be 'head' or 'finetune', got {how!r}")
    assert isinstance(clf, (HeadClassifier, FineTunedClassifier))
    lo = clf.log_odds(premises, True, hypotheses)
    t = clf.training
    n_ctx = len(train)
    extra = f" and {len(t_gold) - n_ctx} external pairs" if len(t_gold) > n_ctx else ""
    info: dict[str, Any] = {
        "nli_head_accuracy_train_contexts": t.heldout_accuracy,
        "nli_head_majority_baseline": t.majority_baseline,
        "nli_head_n_train": t.n_train,
    }
    if how == "finetune":
        info["train_seconds"] = t.seconds
    return EntailmentScorer(
        f"{what} on {n_ctx} training-context inputs{extra} ({t.n_train} after holding out 20%)"
        if extra or how == "finetune"
        else f"{what} on {t.n_train} training-context inputs",
        lo,
        1 / (1 + np.exp(-lo)),
        clf,
        info,
        score=lambda p, h: clf.log_odds(p, True, h),
    )


def train_probe(
    z: np.ndarray, items: pd.DataFrame, train_mask: np.ndarray, *, seed: int = 0, C: float = 1.0
) -> tuple[Head, np.ndarray]:
    """Linear hypernymy probe on z: is ℓa a hypernym of ℓb?

    z are span states, not texts, so the probe is the factory's linear head
    on arrays (:func:`mtlib.models.training.frozen.train_head`, the same
    :class:`mtlib.models.training.heads.LinearHead`). Trained on the training contexts' inputs and evaluated on the test
    contexts' inputs (its ``accuracy``).

    Returns:
        ``(head, s_hyp)`` with s_hyp the probe's log-odds for every input, shape ``(n,)``.
    """
    y = items["hypernym"].to_numpy()
    head = train_head(
        z[train_mask], y[train_mask], kind="logreg", seed=seed, C=C, X_test=z[~train_mask], y_test=y[~train_mask]
    )
    return head, head.log_odds(z, True)


def accuracy_by(items: pd.DataFrame, predicted: np.ndarray, by: str = "monotonicity") -> pd.Series:
    """Accuracy of boolean predictions against ``items["entailed"]``, overall and per group."""
    correct = pd.Series(np.asarray(predicted) == items["entailed"].to_numpy(), index=items.index)
    out = correct.groupby(items[by]).mean()
    out.loc["overall"] = correct.mean()
    return out
