"""Polarity Sensitivity Scoring (Bhathena, Willis, Dass, §3): does a sentiment classifier notice a flip?

Intuition: given pairs ``(s, s')`` where ``s'`` is a polarity-flipped rewrite
of ``s``, PSS is the share of pairs on which the classifier gets **both**
labels right::

    PSS = (1/N) sum_n 1[y_hat(s) = y(s) and z_hat(s') = z(s')]
    relative PSS = PSS / test accuracy      (the paper shows it x 100)

A classifier that ignores the flip (one label for both sides) scores 0; a coin
toss scores 0.25. Each pair has its own source, so pairs are independent items:
intervals bootstrap pairs (:func:`pss_interval`), and two classifiers scored on
the same pairs are compared by McNemar's exact test on the discordant pairs
(:func:`mcnemar`).

Labels are 0 (negative) and 1 (positive); :data:`ABSTAIN` (-1) is a classifier
that cannot decide (a tie), wrong whatever the gold label. Rates are fractions
in ``[0, 1]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.analysis.paired_tests import mcnemar_test
from mtlib.data.yelp import DIRECTIONS
from mtlib.relations.bootstrap import bootstrap_weights, percentile_interval

__all__ = [
    "ABSTAIN",
    "bootstrap_mean",
    "gold_labels",
    "mcnemar",
    "predict_labels",
    "prediction_table",
    "pss",
    "pss_interval",
    "relative_pss",
]

#: A prediction with no decision (both classes equally probable): wrong for either gold label.
ABSTAIN = -1
#: How a classifier may name its positive class (compared lower-cased), first match wins.
POSITIVE_NAMES = ("1", "positive", "pos", "label_1")


def gold_labels(direction: Sequence[str] | pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Gold labels of source and rewrite from the flip's direction: ``neg_to_pos`` -> ``(0, 1)``.

    Returns:
        ``(y_source, y_rewrite)``, int arrays of shape ``(n,)``.

    Example:
        >>> [y.tolist() for y in gold_labels(["neg_to_pos", "pos_to_neg"])]
        [[0, 1], [1, 0]]
    """
    d = np.asarray(direction, dtype=object)
    bad = sorted(set(d.tolist()) - set(DIRECTIONS), key=str)
    if bad:
        raise ValueError(f"unknown direction(s) {bad}; expected {list(DIRECTIONS)}")
    y_source = (d == "pos_to_neg").astype(np.int64)
    return y_source, 1 - y_source


def _binary(values: Any, what: str) -> np.ndarray:
    """Predicted labels as int64, checked: 0, 1 or :data:`ABSTAIN`."""
    arr = np.asarray(values)
    if arr.dtype == bool:
        return arr.astype(np.int64)
    allowed = [0, 1, ABSTAIN]
    if arr.size and not np.isin(arr, allowed).all():
        bad = sorted(set(np.unique(arr[~np.isin(arr, allowed)]).tolist()))[:5]
        raise ValueError(f"{what}: labels must be 0 (negative) or 1 (positive) (or {ABSTAIN}, undecided); got {bad}")
    return arr.astype(np.int64)


def predict_labels(model: Any, texts: Sequence[str]) -> np.ndarray:
    """Labels from any mtlib classifier (``classify`` and ``labels``): 1 positive, 0 negative, -1 undecided.

    The positive column is the label reading ``1``, ``positive``, ``pos`` or ``label_1``. A tie (a lexicon
    model on a text with no sentiment word: 0.5 / 0.5) is :data:`ABSTAIN`, wrong whatever the gold label,
    rather than given to one class by an arbitrary tie-break. Each unique text goes through the model once.

    Returns:
        Shape ``(n,)``, int64.

    Raises:
        ValueError: no label of the model reads as positive.
    """
    texts = list(texts)
    if not texts:
        return np.zeros(0, np.int64)
    names = [str(x).strip().lower() for x in getattr(model, "labels", [0, 1])]
    pos = next((names.index(want) for want in POSITIVE_NAMES if want in names), None)
    if pos is None:
        raise ValueError(f"cannot tell the positive class among labels {list(model.labels)}")
    unique, inverse = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    probs = np.asarray(model.classify(list(unique)), dtype=np.float64)
    p_pos, p_other = probs[:, pos], np.delete(probs, pos, axis=1).max(axis=1)
    pred = np.where(p_pos > p_other, 1, np.where(p_pos < p_other, 0, ABSTAIN)).astype(np.int64)
    return pred[inverse.reshape(-1)]


def prediction_table(pairs: pd.DataFrame, pred_source: Any, pred_rewrite: Any) -> pd.DataFrame:
    """One row per pair: gold and predicted labels of both sides, and whether each is right.

    Args:
        pairs: ``direction`` column (and ``source``/``rewrite``, copied when present), ``n`` rows.
        pred_source, pred_rewrite: Predicted labels 0/1 (or -1, undecided, never right), shape ``(n,)``.

    Returns:
        ``[source, rewrite,] direction, y_source, y_rewrite, pred_source, pred_rewrite, source_right,
        rewrite_right, both_right``, index of ``pairs``.

    Raises:
        ValueError: a label other than 0/1/-1, an unknown direction, or lengths that differ.
    """
    ps, pr = _binary(pred_source, "pred_source"), _binary(pred_rewrite, "pred_rewrite")
    if not len(ps) == len(pr) == len(pairs):
        raise ValueError(f"{len(pairs)} pairs but {len(ps)} source and {len(pr)} rewrite predictions")
    ys, yr = gold_labels(pairs["direction"])
    out = pd.DataFrame({c: pairs[c].to_numpy() for c in ("source", "rewrite") if c in pairs}, index=pairs.index)
    out["direction"] = pairs["direction"].to_numpy()
    out["y_source"], out["y_rewrite"], out["pred_source"], out["pred_rewrite"] = ys, yr, ps, pr
    out["source_right"] = out["pred_source"] == out["y_source"]
    out["rewrite_right"] = out["pred_rewrite"] == out["y_rewrite"]
    out["both_right"] = out["source_right"] & out["rewrite_right"]
    return out


def pss(table: pd.DataFrame | np.ndarray) -> float:
    """PSS: the share of pairs with both sides right (a :func:`prediction_table` or its ``both_right``); nan for none.

    Example:
        >>> pss(np.array([True, False, True, True]))
        0.75
    """
    both = table["both_right"].to_numpy() if isinstance(table, pd.DataFrame) else np.asarray(table)
    return float(both.mean()) if len(both) else float("nan")


def relative_pss(pss_value: float, accuracy: float) -> float:
    """PSS / test accuracy (the paper's "Relative" column divided by 100); nan without an accuracy."""
    return float(pss_value / accuracy) if accuracy and np.isfinite(accuracy) else float("nan")


def bootstrap_mean(values: Any, *, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Bootstrap replicates of a mean over independent items, shape ``(n_boot,)`` (one matrix product).

    Args:
        values: Per item, shape ``(n,)``: 0/1 outcomes, or a mean over training seeds.
    """
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return np.full(n_boot, np.nan)
    return bootstrap_weights(len(values), n_boot, seed) @ values / len(values)


def pss_interval(both_right: Any, *, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of PSS, resampling pairs; ``(nan, nan)`` for no pairs."""
    return percentile_interval(bootstrap_mean(both_right, n_boot=n_boot, seed=seed))


def mcnemar(a: Any, b: Any) -> dict[str, Any]:
    """McNemar's exact test on paired binary outcomes (the same pairs scored by two classifiers).

    Args:
        a, b: Per pair, did classifier A (B) get both sides right; shape ``(n,)``.

    Returns:
        ``test``; ``a_only`` / ``b_only``: pairs only A / only B gets right; ``difference`` = PSS(A) - PSS(B);
        ``p_value``: the exact two-sided binomial test of ``a_only`` among the discordant pairs (1 without any),
        :func:`mtlib.analysis.paired_tests.mcnemar_test` (the suite's compare and ``python -m mtlib.paired`` use it).

    Example:
        >>> t = mcnemar([1, 1, 1, 1, 1, 1, 0, 0], [1, 0, 0, 0, 0, 0, 0, 1])
        >>> t["a_only"], t["b_only"], round(t["p_value"], 5)
        (5, 1, 0.21875)
    """
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    if a.shape != b.shape:
        raise ValueError(f"paired outcomes differ in shape: {a.shape} vs {b.shape}")
    a_only, b_only = int((a & ~b).sum()), int((~a & b).sum())
    return {
        "test": "McNemar exact (binomial on discordant pairs)",
        "a_only": a_only,
        "b_only": b_only,
        "difference": float(a.mean() - b.mean()) if len(a) else float("nan"),
        "p_value": mcnemar_test(a_only, b_only)[1],
    }
