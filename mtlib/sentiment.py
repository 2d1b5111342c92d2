"""Pairwise systematicity of a sentiment classifier (Manino et al. §4.1).

Source inputs are reviews; each transformation T of the paper's Table 1
concatenates a short, neutral sentence at the start or the end. If the model
scores review x1 more positive than x2, it should also score T(x1) more
positive than T(x2); every pair of reviews is a test case.

This module holds what the notebook needs beyond the generic relation
engine: the paper's transformations, a sentiment scorer built from any model
(through :func:`mtlib.models.classifier`: a model's own positive class, or
a frozen encoder plus a logistic-regression head trained here), and the pairs behind the geometric
picture of §4.2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib import models as mt_models
from mtlib.relations import Concatenation

#: Manino et al. Table 1: concatenated text, position, published violation rate.
TABLE1 = (
    ("T1", "My friends were happy, though.", "end", 0.100),
    ("T2", "Anyway, the sound of the rain outside was soothing.", "end", 0.090),
    ("T3", "As always: popcorn and coke make everything better!", "end", 0.078),
    ("T4", "Thank you.", "start", 0.068),
    ("T5", "I watched this movie with my brother.", "start", 0.057),
    ("T6", "Here is my review:", "start", 0.045),
)


def transformations(extra: Sequence[Sequence[str]] = ()) -> list[Concatenation]:
    """The paper's six transformations (ids T1..T6) plus the user's own.

    Args:
        extra: ``[text, position]`` pairs (position ``start`` or ``end``);
            they get ids U1, U2, ...

    Raises:
        ValueError: a malformed entry or an unknown position.
    """
    out = [Concatenation(text, pos, name=tid) for tid, text, pos, _ in TABLE1]
    for i, entry in enumerate(extra, start=1):
        if isinstance(entry, str) or len(entry) != 2:
            raise ValueError(f"extra transformation {entry!r}: expected [text, position] with position start/end")
        out.append(Concatenation(str(entry[0]), str(entry[1]), name=f"U{i}"))
    return out


def table1_frame(ts: Sequence[Concatenation]) -> pd.DataFrame:
    """Id, text, position and the paper's rate (``nan`` for user transformations)."""
    paper = {tid: rate for tid, _, _, rate in TABLE1}
    return pd.DataFrame({"transformation": [t.name for t in ts], "text": [t.text for t in ts],
                         "position": [t.position for t in ts],
                         "paper_rate": [paper.get(t.name, np.nan) for t in ts]}).set_index("transformation")


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
    model: mt_models.Model
    positive: int
    head: mt_models.Model | None = None
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


def build_scorer(name: str, train_texts: Sequence[str], train_labels: Sequence[int], *, device: str = "auto",
                 seed: int = 0, positive_label: str = "POSITIVE", head_kind: str = "logreg") -> SentimentScorer:
    """A sentiment scorer for any registry name or path, through :func:`mtlib.models.classifier`.

    A model with its own classes (``siebert``, ``vader``, ``textblob``) is
    used as is (``how="native"``), its positive class chosen by
    ``positive_label`` (case-insensitive). An encoder (e.g. ``minilm``) gets a
    head trained on its frozen sentence embeddings of ``train_texts``
    (``how="head"``, 20% held out); the held-out accuracy and its
    majority-class baseline are in ``info``.
    """
    model = mt_models.load(name, device=device)
    if model.labels:
        clf = mt_models.classifier(model, how="native")
        return SentimentScorer(name, clf, clf.label_index(positive_label))
    clf = mt_models.classifier(model, (list(train_texts), list(train_labels)), how="head",
                               head="linear" if head_kind in ("logreg", "linear") else head_kind,
                               heldout_fraction=0.2, seed=seed, device=device)
    t = clf.training
    return SentimentScorer(name, clf, clf.label_index(1), clf, {
        "head_accuracy": t.heldout_accuracy, "head_majority_baseline": t.majority_baseline,
        "head_n_train": t.n_train, "head_n_test": t.n_heldout})


def split_reviews(reviews: pd.DataFrame, train_fraction: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Stratified split of the bundled reviews into a head-training part and the source set D."""
    from sklearn.model_selection import train_test_split

    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    train, rest = train_test_split(reviews, train_size=train_fraction, random_state=seed,
                                   stratify=reviews["label"])
    return train.reset_index(drop=True), rest.reset_index(drop=True)


def score_follow_ups(scorer: SentimentScorer, sources: Sequence[str],
                     ts: Sequence[Concatenation]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Scores of the sources and of every follow-up, all unique texts in one model call.

    Returns:
        ``(src (n,), {transformation id: flw (n,)})``.
    """
    sources = list(sources)
    texts = sources + [t(x) for t in ts for x in sources]
    scores = scorer.score(texts)
    n = len(sources)
    return scores[:n], {t.name: scores[n * (i + 1): n * (i + 2)] for i, t in enumerate(ts)}


def sample_pairs(src: np.ndarray, flw: np.ndarray, k: int, seed: int = 0, expected: str = "same") -> pd.DataFrame:
    """A random sample of source pairs with their four scores and whether each is violated.

    Used for the geometric picture of §4.2 only; the rates come from exact counting.
    """
    n = len(src)
    if n < 2 or k <= 0:
        return pd.DataFrame(columns=["i", "j", "src_i", "src_j", "flw_i", "flw_j", "violated"])
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, size=4 * k)
    j = rng.integers(0, n, size=4 * k)
    keep = (i != j) & (src[i] != src[j])
    i, j = i[keep][:k], j[keep][:k]
    s = np.sign(src[i] - src[j]) * (1 if expected == "same" else -1)
    violated = np.sign(flw[i] - flw[j]) != s
    return pd.DataFrame({"i": i, "j": j, "src_i": src[i], "src_j": src[j], "flw_i": flw[i], "flw_j": flw[j],
                         "violated": violated})
