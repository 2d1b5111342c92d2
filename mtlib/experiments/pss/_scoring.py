"""Scoring PSS: gold labels from the flip's direction, the per-pair table, intervals and McNemar's test.

Intuition: a pair counts when the classifier gets **both** sides right, so
PSS = share of such pairs, and relative PSS = PSS / test accuracy. Pairs are
independent items, so intervals bootstrap pairs; two settings scored on the
same pairs are compared by McNemar's exact test on the discordant ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sstats

from mtlib.analysis import stats
from mtlib.data.yelp import DIRECTIONS

#: A prediction with no decision (both classes equally probable): wrong for either gold label.
ABSTAIN = -1


def gold_labels(direction: Sequence[str] | pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Gold labels of source and rewrite from the direction: ``neg_to_pos`` -> (0, 1).

    Returns:
        ``(y_source, y_rewrite)``, int arrays of shape ``(n,)``.
    """
    d = np.asarray(direction, dtype=object)
    bad = sorted(set(d.tolist()) - set(DIRECTIONS))
    if bad:
        raise ValueError(f"unknown direction(s) {bad}; expected {list(DIRECTIONS)}")
    y_source = (d == "pos_to_neg").astype(np.int64)
    return y_source, 1 - y_source


def _binary(values: Any, what: str, abstain: bool = False) -> np.ndarray:
    """Labels as int64, checked: 0 or 1 (and -1, "undecided", where ``abstain``)."""
    arr = np.asarray(values)
    if arr.dtype == bool:
        return arr.astype(np.int64)
    allowed = [0, 1, ABSTAIN] if abstain else [0, 1]
    if arr.size and not np.isin(arr, allowed).all():
        bad = sorted(set(np.unique(arr[~np.isin(arr, allowed)]).tolist()))[:5]
        extra = f" (or {ABSTAIN}, undecided)" if abstain else ""
        raise ValueError(f"{what}: labels must be 0 (negative) or 1 (positive){extra}; got {bad}")
    return arr.astype(np.int64)


def prediction_table(pairs: pd.DataFrame, pred_source: Any, pred_rewrite: Any) -> pd.DataFrame:
    """One row per pair: gold and predicted labels of both sides, and whether each is right.

    Args:
        pairs: ``direction`` column (and ``source``/``rewrite``, copied when present), ``n`` rows.
        pred_source, pred_rewrite: Predicted labels 0/1 (or -1, undecided, which is
            never right), shape ``(n,)``.

    Returns:
        ``direction, y_source, y_rewrite, pred_source, pred_rewrite,
        source_right, rewrite_right, both_right`` (plus ``source``, ``rewrite``),
        index of ``pairs``.

    Raises:
        ValueError: a label other than 0/1, or lengths that differ.
    """
    ps, pr = _binary(pred_source, "pred_source", True), _binary(pred_rewrite, "pred_rewrite", True)
    if not len(ps) == len(pr) == len(pairs):
        raise ValueError(f"{len(pairs)} pairs but {len(ps)} source and {len(pr)} rewrite predictions")
    ys, yr = gold_labels(pairs["direction"])
    out = pd.DataFrame(
        {
            "direction": pairs["direction"].to_numpy(),
            "y_source": ys,
            "y_rewrite": yr,
            "pred_source": ps,
            "pred_rewrite": pr,
        },
        index=pairs.index,
    )
    for c in ("source", "rewrite"):
        if c in pairs:
            out.insert(0 if c == "source" else 1, c, pairs[c].to_numpy())
    out["source_right"] = out["pred_source"] == out["y_source"]
    out["rewrite_right"] = out["pred_rewrite"] == out["y_rewrite"]
    out["both_right"] = out["source_right"] & out["rewrite_right"]
    return out


def pss(table: pd.DataFrame | np.ndarray) -> float:
    """PSS: the share of pairs with both sides right (``nan`` for no pairs)."""
    both = table["both_right"].to_numpy() if isinstance(table, pd.DataFrame) else np.asarray(table)
    return float(both.mean()) if len(both) else float("nan")


def relative_pss(pss_value: float, accuracy: float) -> float:
    """PSS / test accuracy (the paper's "Relative" column divided by 100)."""
    return float(pss_value / accuracy) if accuracy and np.isfinite(accuracy) else float("nan")


def bootstrap_mean(values: np.ndarray, *, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Bootstrap replicates of a mean over independent items, shape ``(n_boot,)`` (vectorised).

    Args:
        values: Per item, shape ``(n,)`` (0/1 outcomes, or a mean over seeds).
    """
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return np.full(n_boot, np.nan)
    w = stats.bootstrap_weights(len(values), n_boot, seed)
    return w @ values / len(values)


def pss_interval(both_right: np.ndarray, *, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of PSS, resampling pairs (each pair has its own source)."""
    return stats.percentile_interval(bootstrap_mean(both_right, n_boot=n_boot, seed=seed))


def accuracy_interval(correct: float, n: int) -> tuple[float, float]:
    """Wilson 95% interval of an accuracy (``correct`` may be a mean count over seeds)."""
    return stats.wilson_interval(correct, n)


def mcnemar(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """McNemar's exact test on paired binary outcomes (the same pairs scored by two settings).

    Args:
        a, b: Per pair, did setting A (B) get both sides right; shape ``(n,)``.

    Returns:
        ``test, a_only, b_only, difference, p_value``: ``a_only`` pairs only A
        gets right, ``b_only`` only B; the exact two-sided binomial test of
        ``a_only`` among the discordant pairs (p = 1 when there are none);
        ``difference`` = PSS(A) - PSS(B).
    """
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    if a.shape != b.shape:
        raise ValueError(f"paired outcomes differ in shape: {a.shape} vs {b.shape}")
    a_only, b_only = int((a & ~b).sum()), int((~a & b).sum())
    n = a_only + b_only
    p = float(sstats.binomtest(a_only, n, 0.5).pvalue) if n else 1.0
    diff = float(a.mean() - b.mean()) if len(a) else float("nan")
    return {
        "test": "McNemar exact (binomial on discordant pairs)",
        "a_only": a_only,
        "b_only": b_only,
        "difference": diff,
        "p_value": p,
    }
