"""Two models' per-item results paired by id, and the statistics of their difference per task and metric.

Intuition: both models answered the same items, so the honest comparison is *paired*: resample items (or whole
groups of items) once and recompute both means from the same resample. Pairing removes the item-difficulty variance
that an unpaired z-test on two standard errors keeps, so a paired interval is narrower when the models agree on most
items, and honest when they do not.

Per task and metric (:func:`paired_stats`):

- each model's mean with a 95% interval: Wilson for a 0/1 metric on independent items, else the percentile interval
  of the bootstrap below;
- the difference ``mean_b - mean_a`` with a paired bootstrap interval: the replicates are
  :func:`mtlib.relations.bootstrap.bootstrap_weights` over groups (a group, resampled whole, is a document asked
  several ways, a repeat, one source text under several transformations; by default each item is its own group),
  collapsed over groups with identical sums (the same multinomial, drawn over kinds: exact in distribution and
  thousands of times cheaper for 0/1 metrics), and their totals are the counting engine's
  :func:`~mtlib.relations.replicates.weighted_sums` (exact integers) when the values are counts. A mean is a ratio
  ``sum(values) / sum(n)``, so a suite item (violations over its cases) compares as the suite's own rate does;
- for a 0/1 metric on independent items, McNemar's exact test (:func:`mtlib.suite.mcnemar_test`) on the discordant
  counts ``a_only`` (a scores 1, b 0) and ``b_only``; otherwise (a continuous metric, or groups) a paired sign-flip
  permutation test over groups of ``sum(d)``, ``d`` a group's mean difference (signs of equal ``|d|`` are drawn
  together as one binomial);
- across all rows, Holm-adjusted p-values (:func:`holm`).

The same ``seed`` gives the same numbers: every row draws its replicates with ``seed``, its permutations with ``seed
+ 1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations.bootstrap import bootstrap_weights, percentile_interval, wilson_interval
from mtlib.relations.replicates import weighted_sums
from mtlib.suite.comparison import mcnemar_test

__all__ = ["group_sums", "holm", "kinds_of", "paired_replicates", "paired_stats", "sign_flip_p"]

# Sign-flip permutations drawn per block (keeps a block's draws near 64 MB).
_BLOCK = 2**23


def holm(p: Any) -> np.ndarray:
    """Holm's step-down adjustment of p-values (nan stays nan), as statsmodels' ``multipletests(method="holm")``.

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


def group_sums(groups: Any, *columns: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-group sums of each column and the items per group: ``((G, k) sums, (G,) sizes)``, groups in order of
    first appearance."""
    codes, uniques = pd.factorize(np.asarray(groups), sort=False)
    g = len(uniques)
    sums = np.stack([np.bincount(codes, np.asarray(c, float), minlength=g) for c in columns], axis=1)
    return sums, np.bincount(codes, minlength=g)


def kinds_of(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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

    Row b equals ``w_b @ sums`` for the multinomial group weights ``w_b`` of
    :func:`bootstrap_weights` drawn over the kinds of identical rows (same distribution as over groups).

    Args:
        sums: Shape (G, k) per-group sums.
        n_boot: Replicates.
        seed: Seeds the draws.
    """
    kinds, counts = kinds_of(sums)
    w = bootstrap_weights(len(sums), n_boot, seed, multiplicity=counts)
    if np.array_equal(kinds, np.round(kinds)) and np.abs(kinds).max(initial=0) * len(sums) < 2**53:
        return weighted_sums(w, kinds).astype(float)
    return w @ kinds


def sign_flip_p(d: np.ndarray, n_perm: int, seed: int) -> float:
    """Two-sided p-value of ``sum(d)`` under random sign flips of each ``d`` (paired permutation test).

    ``(1 + #{|T*| >= |T|}) / (n_perm + 1)``; the flips of the groups sharing one ``|d|`` are drawn as one binomial.
    """
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


def paired_stats(
    groups: Any, value_a: Any, n_a: Any, value_b: Any, n_b: Any, *, n_boot: int = 10_000, seed: int = 0
) -> dict[str, Any]:
    """One row of the comparison: both means with intervals, the paired difference, the named test.

    Args:
        groups: Shape (n,) the group of each paired item (resampled whole).
        value_a, value_b: Shape (n,) each item's value (a sum over ``n`` cases; a plain metric with ``n = 1``).
        n_a, n_b: Shape (n,) the cases behind each value.
        n_boot: Bootstrap replicates (and sign flips).
        seed: Seeds both.

    Returns:
        ``n_items, n_groups, mean_a, a_low, a_high, mean_b, b_low, b_high, diff, diff_low, diff_high, a_only,
        b_only, test, p`` (``a_only``/``b_only`` for 0/1 metrics only; ``ci_method`` says how the means' intervals
        were made).
    """
    va, na, vb, nb = (np.asarray(x, float) for x in (value_a, n_a, value_b, n_b))
    sums, sizes = group_sums(groups, va, na, vb, nb)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_a, mean_b = sums[:, 0].sum() / sums[:, 1].sum(), sums[:, 2].sum() / sums[:, 3].sum()
        tot = paired_replicates(sums, n_boot, seed) if n_boot else np.full((0, 4), np.nan)
        rep_a, rep_b = tot[:, 0] / tot[:, 1], tot[:, 2] / tot[:, 3]
        d = np.nan_to_num(sums[:, 2] / sums[:, 3] - sums[:, 0] / sums[:, 1])
    binary = bool(np.isin(va, (0, 1)).all() and np.isin(vb, (0, 1)).all() and (na == 1).all() and (nb == 1).all())
    independent = bool((sizes == 1).all())
    row: dict[str, Any] = {"n_items": len(va), "n_groups": len(sizes), "mean_a": mean_a, "mean_b": mean_b}
    if binary and independent:
        (a_low, b_low), (a_high, b_high) = wilson_interval([va.sum(), vb.sum()], [len(va), len(vb)])
        row["ci_method"] = "wilson"
    else:
        (a_low, a_high), (b_low, b_high) = percentile_interval(rep_a), percentile_interval(rep_b)
        row["ci_method"] = "bootstrap over groups" if not independent else "bootstrap over items"
    low, high = percentile_interval(rep_b - rep_a)
    row.update(a_low=a_low, a_high=a_high, b_low=b_low, b_high=b_high, diff=mean_b - mean_a)
    row.update(diff_low=low, diff_high=high, a_only=np.nan, b_only=np.nan)
    if binary:
        row.update(a_only=int(((va == 1) & (vb == 0)).sum()), b_only=int(((vb == 1) & (va == 0)).sum()))
    if binary and independent:
        row.update(test="McNemar exact", p=mcnemar_test(row["a_only"], row["b_only"], exact=True)[1])
    else:
        row.update(test="sign-flip permutation" + (" over groups" if not independent else ""))
        row["p"] = sign_flip_p(d, n_boot, seed + 1)
    return row
