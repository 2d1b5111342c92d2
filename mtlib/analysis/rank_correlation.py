"""Spearman correlations with a bootstrap interval, and a partial Spearman controlling for a third variable.

Intuition: a rank correlation over sentences (TRE against a tree score, in
notebook 06's Table 2) needs an interval, and two scores that both grow with
sentence length correlate for that reason alone, so the partial correlation
of the ranks given length is reported beside it. Bootstrap resamples are
ranked and correlated row-wise in matrix form (``(n_boot, n)`` rank arrays),
with no Python loop per resample.

Example:
    >>> round(spearman_ci([1, 2, 3, 4], [1, 3, 2, 4], n_boot=0)["rho"], 3)
    0.8
    >>> undefined_reason(2, 3, "sentences")
    'only 2 sentences: a Spearman correlation needs 3'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats as sstats

__all__ = ["partial_spearman", "spearman_ci", "undefined_reason"]


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(-1, keepdims=True)
    b = b - b.mean(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))


def _partial(rxy: np.ndarray, rxz: np.ndarray, ryz: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rxy - rxz * ryz) / np.sqrt((1 - rxz**2) * (1 - ryz**2))


def _bootstrap_ranks(columns: Sequence[np.ndarray], n_boot: int, seed: int) -> list[np.ndarray]:
    """Average ranks of each column within each bootstrap resample, ``(n_boot, n)`` each."""
    n = len(columns[0])
    idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    return [sstats.rankdata(np.asarray(c, float)[idx], axis=1) for c in columns]


def _interval(out: dict[str, Any], reps: np.ndarray, alpha: float) -> None:
    """Set ``out``'s ``ci_low``, ``ci_high`` to the percentile interval of the finite replicates (if any)."""
    reps = reps[np.isfinite(reps)]
    if len(reps):
        out["ci_low"], out["ci_high"] = (float(q) for q in np.quantile(reps, [alpha / 2, 1 - alpha / 2]))


def spearman_ci(x: Any, y: Any, *, n_boot: int = 1000, seed: int = 0, alpha: float = 0.05) -> dict[str, float]:
    """Spearman's ρ with its p-value and a percentile bootstrap interval (pairs resampled).

    Pairs with a ``nan`` are dropped first (their number is ``n_dropped``); ``n_boot=0`` gives no interval.

    Returns:
        ``{"rho", "p_value", "ci_low", "ci_high", "n", "n_dropped"}`` (``nan`` where undefined: fewer than 3 pairs).
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    out = {"rho": np.nan, "p_value": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    out |= {"n": int(keep.sum()), "n_dropped": int((~keep).sum())}
    if len(x) < 3:
        return out
    res = sstats.spearmanr(x, y)
    out["rho"], out["p_value"] = float(res.statistic), float(res.pvalue)
    if n_boot:
        rx, ry = _bootstrap_ranks([x, y], n_boot, seed)
        _interval(out, _row_pearson(rx, ry), alpha)
    return out


def partial_spearman(
    x: Any, y: Any, z: Any, *, n_boot: int = 1000, seed: int = 0, alpha: float = 0.05
) -> dict[str, float]:
    """Spearman correlation of ``x`` and ``y`` controlling for ``z`` (e.g. sentence length).

    The partial correlation of the ranks: (r_xy − r_xz r_yz) / sqrt((1 − r_xz²)(1 − r_yz²)),
    with a t-test on n − 3 degrees of freedom and a bootstrap interval.

    Returns:
        ``{"rho", "p_value", "ci_low", "ci_high", "n"}`` (``nan`` where undefined: fewer than 4 triples).
    """
    x, y, z = (np.asarray(v, float) for v in (x, y, z))
    keep = np.isfinite(x) & np.isfinite(y) & np.isfinite(z)
    x, y, z = x[keep], y[keep], z[keep]
    out = {"rho": np.nan, "p_value": np.nan, "ci_low": np.nan, "ci_high": np.nan, "n": int(keep.sum())}
    if len(x) < 4:
        return out
    rx, ry, rz = (sstats.rankdata(v) for v in (x, y, z))
    rho = float(_partial(_row_pearson(rx, ry), _row_pearson(rx, rz), _row_pearson(ry, rz)))
    out["rho"] = rho
    if np.isfinite(rho) and abs(rho) < 1:
        t = rho * np.sqrt((len(x) - 3) / (1 - rho**2))
        out["p_value"] = float(2 * sstats.t.sf(abs(t), len(x) - 3))
    if n_boot:
        bx, by, bz = _bootstrap_ranks([x, y, z], n_boot, seed)
        _interval(out, _partial(_row_pearson(bx, by), _row_pearson(bx, bz), _row_pearson(by, bz)), alpha)
    return out


def undefined_reason(n: int, need: int, what: str, *, partial: bool = False) -> str:
    """Why a Spearman correlation of ``n`` ``what`` is undefined: too few of them, or a constant column."""
    if n < need:
        return f"only {n} {what}: a{' partial' if partial else ''} Spearman correlation needs {need}"
    extra = ", or one perfectly correlated with length" if partial else ""
    return f"Spearman's rho is undefined over these {n} {what} (a constant column{extra})"
