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
  collapsed over groups with identical sums (the same multinomial, drawn over the distinct sums: exact in
  distribution and thousands of times cheaper for 0/1 metrics), and their totals are the counting engine's
  :func:`~mtlib.relations.replicates.weighted_sums` (exact integers) when the values are counts. A mean is a ratio
  ``sum(values) / sum(n)``, so a suite item (violations over its cases) compares as the suite's own rate does;
- for a 0/1 metric on independent items, McNemar's exact test (:func:`mtlib.analysis.paired_tests.mcnemar_test`)
  on the discordant counts ``a_only`` (a scores 1, b 0) and ``b_only``; otherwise (a continuous metric, or
  groups) a paired sign-flip permutation test over groups of ``sum(d)``, ``d`` a group's mean difference (signs of
  equal ``|d|`` are drawn together as one binomial);
- across all rows, Holm-adjusted p-values (:func:`mtlib.analysis.paired_tests.holm`).

The same ``seed`` gives the same numbers: every row draws its replicates with ``seed``, its permutations with ``seed
+ 1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtlib.analysis.paired_tests import group_sums, mcnemar_test, paired_ratio_replicates, sign_flip_p
from mtlib.relations.bootstrap import percentile_interval, wilson_interval

__all__ = ["paired_stats"]


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
        ``n_items, n_groups, mean_a, a_low, a_high, mean_b, b_low, b_high, diff, diff_low, diff_high, diff_low90,
        diff_high90, a_only, b_only, sd_diff, test, p`` (``a_only``/``b_only`` for 0/1 metrics only; ``ci_method``
        says how the means' intervals were made; ``diff_low90``/``diff_high90``, the 90% interval from the same
        replicates, decide equivalence; ``sd_diff`` is the standard deviation of the per-group differences, for the
        paired t power).
    """
    va, na, vb, nb = (np.asarray(x, float) for x in (value_a, n_a, value_b, n_b))
    sums, sizes = group_sums(groups, va, na, vb, nb)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_a, mean_b = sums[:, 0].sum() / sums[:, 1].sum(), sums[:, 2].sum() / sums[:, 3].sum()
        rep_a, rep_b = paired_ratio_replicates(sums, n_boot, seed)
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
    low90, high90 = percentile_interval(rep_b - rep_a, alpha=0.10)
    row.update(a_low=a_low, a_high=a_high, b_low=b_low, b_high=b_high, diff=mean_b - mean_a)
    row.update(diff_low=low, diff_high=high, diff_low90=low90, diff_high90=high90, a_only=np.nan, b_only=np.nan)
    row["sd_diff"] = float(np.std(d, ddof=1)) if len(d) > 1 else float("nan")
    if binary:
        row.update(a_only=int(((va == 1) & (vb == 0)).sum()), b_only=int(((vb == 1) & (va == 0)).sum()))
    if binary and independent:
        row.update(test="McNemar exact", p=mcnemar_test(row["a_only"], row["b_only"])[1])
    else:
        row.update(test="sign-flip permutation" + (" over groups" if not independent else ""))
        row["p"] = sign_flip_p(d, n_boot, seed + 1)
    return row
