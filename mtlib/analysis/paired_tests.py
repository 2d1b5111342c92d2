"""Paired statistics, written once: McNemar's exact test, the paired bootstrap of a difference, the sign-flip
permutation test, and the Holm and Benjamini-Hochberg adjustments of p-values across rows.

Two models scored on the same items are compared *paired*: only the items they answer differently carry
information about which is better, and a resample draws each item (or each group of items: a document asked
several ways, a repeat) once for both models. Three users share these functions, so one data set gives one
p-value whichever door it enters by:

- :func:`mtlib.suite.compare` (two suite results; McNemar on item pass/fail, the bootstrap of the rate difference);
- ``python -m mtlib.paired`` (:func:`mtlib.paired.stats.paired_stats`: every test here);
- :func:`mtlib.analysis.polarity_sensitivity.mcnemar` (notebook 05's FB vs FT, Linear vs DNN comparisons).

McNemar is exact everywhere (:func:`mcnemar_test`): the two-sided binomial test of the discordant counts at 1/2,
statsmodels' ``mcnemar(table, exact=True)``. The chi-square form with continuity, which the suite used above 25
discordant items before, approximates this p-value and drifts from it by up to 20% at 40 discordant items
(0.00266 vs 0.00222 for 10 vs 30); the exact test costs one binomial tail at any size, so nothing calls for the
approximation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from mtlib.relations.bootstrap import bootstrap_weights
from mtlib.relations.replicates import weighted_sums

__all__ = [
    "benjamini_hochberg",
    "group_sums",
    "holm",
    "distinct_rows",
    "mcnemar_test",
    "paired_ratio_replicates",
    "paired_replicates",
    "sign_flip_p",
]

# Sign-flip permutations drawn per block (keeps a block's draws near 64 MB).
_BLOCK = 2**23


def mcnemar_test(a_only: int, b_only: int) -> tuple[float, float]:
    """McNemar's exact test from the discordant counts: ``(statistic, p-value)``.

    The two-sided binomial test of ``min(a, b)`` successes in ``a + b`` trials at 1/2, ``p = min(1, 2 P(X <=
    min(a, b)))``, the statistic being ``min(a, b)``: statsmodels' ``mcnemar(table, exact=True)`` (checked in
    ``tests/unit/analysis/test_paired_tests.py``). No discordant item: ``(nan, 1.0)``.

    Args:
        a_only: Items only the first model gets right (or only the first fails: the test is symmetric).
        b_only: Items only the second gets right.

    Example:
        >>> mcnemar_test(0, 6)[1], mcnemar_test(10, 30)[0], round(mcnemar_test(10, 30)[1], 6)
        (0.03125, 10.0, 0.002221)
    """
    a_only, b_only = int(a_only), int(b_only)
    if a_only < 0 or b_only < 0:
        raise ValueError(f"mcnemar_test: discordant counts must be >= 0, got a_only={a_only}, b_only={b_only}")
    if a_only + b_only == 0:
        return float("nan"), 1.0
    small = min(a_only, b_only)
    return float(small), float(min(1.0, 2 * stats.binom.cdf(small, a_only + b_only, 0.5)))


def holm(p: Any) -> np.ndarray:
    """Holm's step-down adjustment of p-values (nan stays nan), as statsmodels' ``multipletests(method="holm")``.

    Controls the family-wise error rate: the chance of any false "different" among all rows.

    Example:
        >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
        [0.03, 0.06, 0.06]
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = (len(order) - np.arange(len(order))) * p[order]
    out[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    return out


def benjamini_hochberg(p: Any) -> np.ndarray:
    """Benjamini-Hochberg step-up adjustment (nan stays nan), as statsmodels' ``multipletests(method="fdr_bh")``.

    Controls the false discovery rate: among the rows called different, the expected share that are not. For a
    suite of many tasks it keeps more findings than Holm. The adjusted value of the ``i``-th smallest of ``m``
    p-values is ``min_{j >= i} m p_(j) / j``, capped at 1.

    Example:
        >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(3).tolist()
        [0.03, 0.04, 0.04]
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    scaled = m * p[order] / np.arange(1, m + 1)
    out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out


def group_sums(groups: Any, *columns: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-group sums of each column and the items per group: ``((G, k) sums, (G,) sizes)``, groups in order of
    first appearance."""
    codes, uniques = pd.factorize(np.asarray(groups), sort=False)
    g = len(uniques)
    sums = np.stack([np.bincount(codes, np.asarray(c, float), minlength=g) for c in columns], axis=1)
    return sums, np.bincount(codes, minlength=g)


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-d array in lexicographic order and how often each occurs (``np.unique(rows,
    axis=0, return_counts=True)``, by one sort of integer codes instead of a sort of rows)."""
    codes = np.zeros(len(rows), np.int64)
    for column in rows.T:  # mixed radix, the first column most significant
        values, inverse = np.unique(column, return_inverse=True)
        if codes.max(initial=0) >= 2**62 // max(len(values), 1):
            return np.unique(rows, axis=0, return_counts=True)  # too many distinct values for one int64 code
        codes = codes * len(values) + inverse.ravel()
    first, counts = np.unique(codes, return_index=True, return_counts=True)[1:]
    return rows[first], counts


def paired_replicates(sums: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Bootstrap totals of per-group sums: ``(n_boot, k)``, each replicate resampling the ``G`` groups (rows).

    Row b equals ``w_b @ sums`` for the multinomial group weights ``w_b`` of :func:`bootstrap_weights` drawn over
    the distinct rows, each weighted by its count (the same distribution as over groups, and thousands of times
    cheaper for 0/1 metrics); totals of integer sums are the counting engine's exact :func:`weighted_sums`.

    Args:
        sums: Shape (G, k) per-group sums.
        n_boot: Replicates.
        seed: Seeds the draws.
    """
    distinct, counts = distinct_rows(sums)
    w = bootstrap_weights(len(sums), n_boot, seed, multiplicity=counts)
    if np.array_equal(distinct, np.round(distinct)) and np.abs(distinct).max(initial=0) * len(sums) < 2**53:
        return weighted_sums(w, distinct).astype(float)
    return w @ distinct


def paired_ratio_replicates(sums: np.ndarray, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The paired bootstrap of two ratio means: ``(rep_a, rep_b)``, each shape ``(n_boot,)``.

    Each replicate resamples the groups once for both sides and recomputes ``sum(value_a) / sum(n_a)`` and
    ``sum(value_b) / sum(n_b)`` from the same resample, so ``rep_b - rep_a`` is the paired bootstrap of the
    difference (its percentile interval is the comparison's interval).

    Args:
        sums: Shape (G, 4) per-group ``value_a, n_a, value_b, n_b`` (a suite item: violations and cases; a plain
            metric: the value and 1).
        n_boot: Replicates (0: two empty arrays).
        seed: Seeds the draws.
    """
    if not n_boot or len(sums) == 0:
        return np.full(n_boot, np.nan), np.full(n_boot, np.nan)
    tot = paired_replicates(np.asarray(sums, float), n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        return tot[:, 0] / tot[:, 1], tot[:, 2] / tot[:, 3]


def sign_flip_p(d: np.ndarray, n_perm: int, seed: int) -> float:
    """Two-sided p-value of ``sum(d)`` under random sign flips of each ``d`` (paired permutation test).

    ``(1 + #{|T*| >= |T|}) / (n_perm + 1)``; the flips of the groups sharing one ``|d|`` are drawn as one binomial.

    Args:
        d: Shape (G,) per-group differences (b - a).
        n_perm: Sign flips drawn (0: nan).
        seed: Seeds them.
    """
    d = np.asarray(d, float)
    mags, counts = np.unique(np.abs(d[d != 0]), return_counts=True)
    if not mags.size or not n_perm:
        return 1.0 if not mags.size else float("nan")
    observed = abs(float(d.sum())) * (1 - 1e-12)
    rng = np.random.default_rng(seed)
    hits, rows = 0, max(1, _BLOCK // mags.size)
    for start in range(0, n_perm, rows):
        plus = rng.binomial(counts, 0.5, size=(min(rows, n_perm - start), mags.size))
        hits += int((np.abs((2 * plus - counts) @ mags) >= observed).sum())
    return (1 + hits) / (n_perm + 1)
