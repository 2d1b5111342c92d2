"""Reference counts by plain Python loops over every pair or triple: the tests' slow, obviously right counts.

The same definitions and validation as :func:`~mtlib.relations.counting.count_order_violations`
and :func:`~mtlib.relations.counting.count_transitivity_violations`, in O(n^2) and
O(n^3): a slow, obviously right count that the fast ones are tested against.
"""

from __future__ import annotations

import numpy as np

from mtlib.relations.counting import OrderCount, TransitivityCount, _as_adjacency, _as_score_pair, _frozen
from mtlib.relations.exactness import violation_rate

__all__ = ["count_order_violations_naive", "count_transitivity_violations_naive"]


def count_order_violations_naive(src: np.ndarray, flw: np.ndarray, *, expected: str = "same") -> OrderCount:
    """Reference count by a Python double loop over all pairs; for tests only.

    Same definitions and validation as :func:`count_order_violations` (without
    weights), with ``per_item`` and ``per_item_cases`` always filled. O(n^2).

    Args:
        src: Shape (n,), finite source scores.
        flw: Shape (n,), finite follow-up scores.
        expected: ``"same"`` or ``"opposite"``.

    Returns:
        The counts with per-item arrays of shape (n,).
    """
    src, flw = _as_score_pair(src, flw, expected)
    n = src.size
    direction = 1 if expected == "same" else -1
    s, f = src.tolist(), flw.tolist()
    cases = violations = ties_src = ties_flw = 0
    item_violations = [0] * n
    item_cases = [0] * n
    for i in range(n):
        for j in range(i + 1, n):
            src_sign = (s[i] > s[j]) - (s[i] < s[j])
            flw_sign = (f[i] > f[j]) - (f[i] < f[j])
            if src_sign == 0:
                ties_src += 1
                continue
            cases += 1
            item_cases[i] += 1
            item_cases[j] += 1
            if flw_sign != direction * src_sign:
                violations += 1
                ties_flw += flw_sign == 0
                item_violations[i] += 1
                item_violations[j] += 1
    return OrderCount(
        n=n,
        cases=cases,
        violations=violations,
        rate=violation_rate(violations, cases),
        ties_src=ties_src,
        ties_flw=ties_flw,
        expected=expected,
        per_item=_frozen(item_violations),
        per_item_cases=_frozen(item_cases),
    )


def count_transitivity_violations_naive(adj: np.ndarray) -> TransitivityCount:
    """Reference count by a Python triple loop over all triples; for tests only.

    Args:
        adj: Shape (n, n), boolean or 0/1.

    Returns:
        The exact counts with per-item arrays of shape (n,). O(n^3).
    """
    a = _as_adjacency(adj).tolist()
    n = len(a)
    cases = violations = 0
    item_violations = [0] * n
    item_cases = [0] * n
    for i in range(n):
        for j in range(n):
            for k in range(n):
                if len({i, j, k}) < 3 or not (a[i][j] and a[j][k]):
                    continue
                cases += 1
                violated = not a[i][k]
                violations += violated
                for item in (i, j, k):
                    item_cases[item] += 1
                    item_violations[item] += violated
    return TransitivityCount(
        n=n,
        cases=cases,
        violations=violations,
        rate=violation_rate(violations, cases),
        sampled=False,
        n_sampled=None,
        per_item=_frozen(item_violations),
        per_item_cases=_frozen(item_cases),
    )
