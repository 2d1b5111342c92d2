"""Do the types of clustered items differ? A chi-square test and an item-label permutation test.

Intuition: notebook 04 asks whether adjective types differ in consistency
(the paper claims they do not, without a test). Phrases share adjectives, so
counting phrases as independent overstates the evidence; shuffling the type
labels among the adjectives (the clusters) gives a null that respects that.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mtlib.analysis import stats
from mtlib.relations.errors import check_count

__all__ = ["type_difference_test"]


def _chi2_stat(k: np.ndarray, n: np.ndarray) -> float:
    """Pearson chi-square statistic of a 2 x G table given true counts k and totals n per group."""
    table = np.vstack([k, n - k]).astype(float)
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.nansum(np.where(expected > 0, (table - expected) ** 2 / expected, 0.0)))


def type_difference_test(
    per_adjective: pd.DataFrame, *, unit: Sequence[str], types: pd.Series, permutations: int = 2000, seed: int = 0
) -> dict[str, float | str]:
    """Do consistency scores differ between adjective types?

    Two tests, both named in the output:

    - Pearson chi-square test of independence on the 2 x G table of
      (holds, fails) counts per group, treating phrases as independent
      (they are not: phrases share adjectives, so its p-value is optimistic);
    - an adjective-label permutation test: the same chi-square statistic,
      its null distribution from shuffling the type labels among adjectives
      (type sizes kept), which respects the clustering of phrases by adjective.

    Args:
        per_adjective: Counts per unit, columns ``unit`` (adjective word, or
            two columns for adjective pairs), ``k`` and ``n``.
        unit: Adjective-word columns, e.g. ``["adj"]`` or ``["adj1", "adj2"]``;
            groups are the types of these adjectives (a type pair for two).
        types: Adjective type indexed by adjective word.
        permutations: Number of label shuffles.
        seed: Seeds the shuffles.

    Raises:
        MtlibInputError: ``permutations`` is not an integer >= 1.

    Returns:
        ``{"chi2": ..., "dof": ..., "p_chi2": ..., "p_permutation": ...,
        "method": "..."}``.
    """
    from scipy import stats as sstats

    permutations = check_count(permutations, "type_difference_test", "permutations", minimum=1)
    words = types.index.to_numpy()
    word_id = {w: i for i, w in enumerate(words)}
    label = pd.Categorical(types.to_numpy()).codes
    n_types = label.max() + 1
    units = np.stack([per_adjective[c].map(word_id).to_numpy() for c in unit], axis=1)
    k, n = per_adjective["k"].to_numpy(float), per_adjective["n"].to_numpy(float)

    def stat(lab: np.ndarray) -> tuple[float, int]:
        g = np.zeros(len(units), dtype=np.int64)
        for col in range(units.shape[1]):
            g = g * n_types + lab[units[:, col]]
        size = n_types ** units.shape[1]
        kk = np.bincount(g, weights=k, minlength=size)
        nn = np.bincount(g, weights=n, minlength=size)
        keep = nn > 0
        return _chi2_stat(kk[keep], nn[keep]), int(keep.sum())

    observed, n_groups = stat(label)
    _, p_permutation = stats.permutation_test(lambda lab: stat(lab)[0], label, permutations=permutations, seed=seed)
    dof = max(1, n_groups - 1)
    return {
        "chi2": observed,
        "dof": dof,
        "p_chi2": float(sstats.chi2.sf(observed, dof)),
        "p_permutation": p_permutation,
        "method": f"chi-square of independence; adjective-label permutation test (B={permutations})",
    }
