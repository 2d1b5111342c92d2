"""The counting kernels, each written once for numpy on the host and torch on a device.

Intuition: the exact counts are integer algebra (sorts, prefix sums and
matrix products), the same on any array library. Each kernel here takes an
array namespace ``xp`` (:func:`mtlib.utils.arrays.namespace`: numpy for
``device=None``, torch on a device) and validated numpy inputs, and returns
numpy integers, so a count is the same value wherever it ran. The dtypes
come from :mod:`~mtlib.relations.exactness` (float32 while a sum stays below
2**24, float64 below 2**53, int64 totals). The public entries, which
validate, are :mod:`~mtlib.relations.counting` (one count) and
:mod:`~mtlib.relations.replicates` (a matrix of bootstrap weights at once);
the algebra of each kernel is explained there.

The reference loops the tests compare every kernel with, on both sides, are
``tests/unit/relations/counting_naive.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from mtlib.relations.exactness import FLOAT64_EXACT, check_float64_sums, product_dtype, reduction_dtype
from mtlib.utils.arrays import HostArrays, TorchArrays

__all__ = [
    "TripleReplicates",
    "concordant_counts",
    "exact_transitivity",
    "order_counts",
    "order_replicates",
    "segment_prefix",
    "tie_groups",
    "tied_pairs",
    "weighted_sums",
]

Arrays = HostArrays | TorchArrays


def concordant_counts(xp: Arrays, rank: Any, weights: Any | None) -> Any:
    """Weight of the items each item dominates or is dominated by, in O(n log n).

    Bottom-up view: a merge sort of ``rank`` whose merge step credits every
    item of the right half with the left-half items of smaller rank, and every
    item of the left half with the right-half items of larger rank. The loop
    runs the same sort top-down, one vectorised stable partition per level:
    the slots hold the positions ordered by (segment, rank, later position
    first), and each level splits every segment of positions into its halves.
    Among equal ranks the right half comes first, so ties are never credited.

    Args:
        xp: The array namespace.
        rank: Shape (n,) int64 array, ranks of a sequence of items.
        weights: Shape (n,) int64 multiplicities, or None for all ones.

    Returns:
        Shape (n,) int64; entry p is the total weight of the positions q < p
        with ``rank[q] < rank[p]`` and the positions q > p with
        ``rank[q] > rank[p]``.
    """
    n = rank.shape[0]
    index_type = xp.index_dtype(n)
    slot = xp.arange(n, index_type)
    item = xp.astype(xp.argsort(rank * n + (n - 1 - slot)), index_type)
    weight = None if weights is None else weights[item]
    acc = xp.zeros(n, index_type if weights is None else xp.int64)
    for level in reversed(range(max(n - 1, 0).bit_length())):
        half = 1 << level
        segment = 2 * half
        right = (item >> level) & 1
        local = slot & (segment - 1)
        right_before, right_total = segment_prefix(xp, right, segment)
        if weight is None:
            left_weight_before = local - right_before
            right_weight_before, right_weight_total = right_before, right_total
        else:
            right_weight = weight * right
            right_weight_before, right_weight_total = segment_prefix(xp, right_weight, segment)
            left_weight_before, _ = segment_prefix(xp, weight - right_weight, segment)
        right_weight_after = xp.repeat(right_weight_total, segment)[:n] - right_weight_before
        # Arithmetic selects (x + right * (y - x)) beat a where on random masks.
        acc += right_weight_after + (left_weight_before - right_weight_after) * right
        # Left items move to segment start + left before, right items to
        # segment start + half + right before.
        dest = slot - right_before + (half - local + 2 * right_before) * right
        item = xp.scatter(item, dest)
        acc = xp.scatter(acc, dest)
        if weight is not None:
            weight = xp.scatter(weight, dest)
    return xp.astype(acc, xp.int64)


def segment_prefix(xp: Arrays, values: Any, segment: int) -> tuple[Any, Any]:
    """Exclusive prefix sums restarted at every segment.

    Args:
        xp: The array namespace.
        values: Shape (m,), integer.
        segment: Segment length; the last segment may be shorter.

    Returns:
        Shape (m,) sums of the earlier values in the same segment, and shape
        (ceil(m / segment),) segment totals, both of the dtype of ``values``.
    """
    m = values.shape[0]
    sums = xp.zeros(-(-m // segment) * segment + 1, values.dtype)
    xp.cumsum(values, out=sums[1 : m + 1])
    sums[m + 1 :] = sums[m]
    starts = sums[::segment]
    within = sums[:-1].reshape(-1, segment) - starts[:-1, None]
    return within.reshape(-1)[:m], xp.diff(starts)


def tie_groups(xp: Arrays, values: Any, weights: Any) -> tuple[Any, Any, Any]:
    """Sort order, dense ranks and per-group weights of tied values.

    Args:
        xp: The array namespace.
        values: Shape (n,), n >= 0.
        weights: Shape (n,) int64.

    Returns:
        ``order`` (n,) sorting ``values``; ``rank`` (n,) int64 dense rank of
        each value; ``group`` (g,) int64 total weight of each distinct value.
    """
    n = values.shape[0]
    order = xp.argsort(values)
    ordered = values[order]
    first = xp.ones(n, xp.bool)
    first[1:] = ordered[1:] != ordered[:-1]
    rank = xp.scatter(xp.cumsum(xp.astype(first, xp.int64)) - 1, order)
    if n == 0:
        return order, rank, xp.zeros(0, xp.int64)
    return order, rank, xp.group_sums(weights[order], first)


def tied_pairs(xp: Arrays, group: Any) -> int:
    """Unordered pairs within groups of the given total weights, shape (g,)."""
    return int(xp.vecdot(group, group - 1, 0)) // 2


def order_counts(
    xp: Arrays, src: np.ndarray, flw: np.ndarray, expected: str, per_item: bool, w: np.ndarray | None
) -> tuple[int, int, int, int, np.ndarray | None, np.ndarray | None]:
    """The exact pairwise-order count (:func:`mtlib.relations.counting.count_order_violations`).

    Args:
        xp: The array namespace.
        src: Shape (n,) finite source scores.
        flw: Shape (n,) finite follow-up scores.
        expected: ``"same"`` or ``"opposite"``.
        per_item: Also count per item.
        w: Shape (n,) int64 multiplicities, or None.

    Returns:
        ``(cases, violations, ties_src, ties_flw, per-item violations (n,) or None, per-item cases (n,) or
        None)``.
    """
    n = src.size
    weights = None if w is None else xp.asarray(w)
    mult = xp.ones(n, xp.int64) if weights is None else weights
    _, src_rank, src_group = tie_groups(xp, xp.scores(src), mult)
    _, flw_rank, flw_group = tie_groups(xp, xp.scores(flw), mult)
    # Source ascending, follow-up descending among equal sources, so that items
    # tied in src are never counted as concordant with each other.
    order, joint_rank, joint_group = tie_groups(xp, src_rank * flw_group.shape[0] - flw_rank, mult)
    concordant = xp.scatter(concordant_counts(xp, flw_rank[order], None if weights is None else weights[order]), order)
    total = int(mult.sum())
    ties_src = tied_pairs(xp, src_group)
    ties_flw = tied_pairs(xp, flw_group) - tied_pairs(xp, joint_group)
    cases = total * (total - 1) // 2 - ties_src
    n_concordant = int(xp.vecdot(mult, concordant, 0)) // 2  # each pair is seen from both ends
    violations = cases - n_concordant if expected == "same" else n_concordant + ties_flw
    if not per_item:
        return cases, violations, ties_src, ties_flw, None, None
    item_cases = total - src_group[src_rank]
    if expected == "same":
        item_violations = item_cases - concordant
    else:
        item_violations = concordant + flw_group[flw_rank] - joint_group[joint_rank]
    return cases, violations, ties_src, ties_flw, xp.to_numpy(item_violations), xp.to_numpy(item_cases)


def _count_dtype(xp: Arrays, total: int, where: str) -> Any:
    """The dtype of integer products whose sums reach ``total**2``: int64 on the host, float64 on a device."""
    if xp.int_products:
        return xp.int64
    check_float64_sums(total**2, where)
    return xp.float64


def exact_transitivity(
    xp: Arrays, a: np.ndarray, w: np.ndarray | None, per_item: bool, rows: int
) -> tuple[int, int, np.ndarray | None, np.ndarray | None]:
    """Exact count of three-way transitivity by blocked matrix products.

    With W = diag(w), O the not-adjacent matrix (zero diagonal) and
    P = A W A, so that P[i, k] is the weight of the middle items of the
    paths i -> j -> k: a violated triple contributes w_i w_j w_k, giving, per
    copy of an item, first role (P * O) @ w, last role w @ (P * O), middle
    role column sums of W (A * (O W A^T)). Cases use P with a zero diagonal,
    and the middle role needs no product: in-weight * out-weight minus the
    2-cycles j -> i -> j.

    Args:
        xp: The array namespace.
        a: Shape (n, n) bool with a False diagonal.
        w: Shape (n,) int64 multiplicities, or None.
        per_item: Whether to return per-item counts.
        rows: Rows per block.

    Returns:
        ``(cases, violations, per-item violations (n,) or None, per-item cases (n,) or None)``.
    """
    n = a.shape[0]
    mult_np = np.ones(n, np.int64) if w is None else w
    total = int(mult_np.sum())
    ft = xp.dtype(product_dtype(total))
    acc = _count_dtype(xp, total, "count_transitivity_violations")
    adj = xp.asarray(a)
    af = xp.astype(adj, ft)
    mult = xp.asarray(mult_np)
    mult_acc = xp.astype(mult, acc)
    wf = None if w is None else xp.astype(mult, ft)
    first_c, first_v = xp.zeros(n, xp.int64), xp.zeros(n, xp.int64)
    last_c, last_v, middle_v, two_cycles = (xp.zeros(n, acc) for _ in range(4))
    with xp.exact_products():
        for lo in range(0, n, rows):
            hi = min(lo + rows, n)
            local = xp.arange(hi - lo)
            diag = (local, local + lo)
            left = af[lo:hi] if wf is None else af[lo:hi] * wf
            paths = xp.astype(left @ af, acc)
            paths[diag] = 0
            is_open = ~adj[lo:hi]
            is_open[diag] = False
            violated = xp.where(is_open, paths)
            first_c[lo:hi] = xp.astype(paths @ mult_acc, xp.int64)
            first_v[lo:hi] = xp.astype(violated @ mult_acc, xp.int64)
            if per_item:
                w_block = mult_acc[lo:hi]
                last_c += w_block @ paths
                last_v += w_block @ violated
                open_f = xp.astype(is_open, ft) if wf is None else xp.astype(is_open, ft) * wf
                closing = xp.astype(open_f @ af.T, acc)
                middle_v += w_block @ xp.where(adj[lo:hi], closing)
                two_cycles += (w_block * w_block) @ xp.astype(adj[lo:hi] & adj[:, lo:hi].T, acc)
        cases = int(xp.vecdot(mult, first_c, 0))
        violations = int(xp.vecdot(mult, first_v, 0))
        if not per_item:
            return cases, violations, None, None
        mult_f = xp.astype(mult, ft)
        in_weight = xp.astype(mult_f @ af, xp.int64)
        out_weight = xp.astype(af @ mult_f, xp.int64)
        item_cases = first_c + xp.astype(last_c, xp.int64) + in_weight * out_weight - xp.astype(two_cycles, xp.int64)
        item_violations = first_v + xp.astype(last_v, xp.int64) + xp.astype(middle_v, xp.int64)
    return cases, violations, xp.to_numpy(item_violations), xp.to_numpy(item_cases)


class TripleReplicates:
    """Three-way transitivity counts for every row of a ``(B, n)`` weight matrix, in two parts.

    :meth:`cases` is three ``(n, n) x (n, B)`` products; :meth:`closed` counts
    the closed triples (violations are cases minus closed) whose middle item
    is among the given ones, one small product per middle item, so a caller
    can share the middle items among threads (the host does,
    :func:`mtlib.relations.replicates.transitivity_replicates`).

    Args:
        xp: The array namespace.
        a: Shape (n, n) bool with a False diagonal.
        w: Shape (B, n) int64 multiplicities.
        total: The largest row sum of ``w`` (checked against int64 by the caller).
    """

    def __init__(self, xp: Arrays, a: np.ndarray, w: np.ndarray, total: int) -> None:
        _count_dtype(xp, total, "transitivity_replicates")
        self.xp, self.a, self.n_boot = xp, a, w.shape[0]
        self.ft = xp.dtype(product_dtype(total))  # products: sums <= total
        self.rt = xp.dtype(reduction_dtype(total))  # reductions: <= total**2
        self.adj = xp.asarray(a)
        self.a_t = xp.asarray(np.ascontiguousarray(a.T))
        self.wt = xp.asarray(np.ascontiguousarray(w.T))  # (n, B)
        self.wt_f = xp.astype(self.wt, self.ft)
        self.wt_r = xp.astype(self.wt, self.rt)

    def cases(self) -> Any:
        """Shape (B,) int64: ``sum_j w_j (in_j out_j - sum_i w_i^2 A[i, j] A[j, i])``."""
        xp, wt = self.xp, self.wt
        with xp.exact_products():
            af = xp.astype(self.adj, self.ft)
            into = xp.astype(af.T @ self.wt_f, xp.int64)  # into[j, b] = sum_i A[i, j] w[b, i] (<= total)
            out = xp.astype(af @ self.wt_f, xp.int64)
            wt_64 = xp.astype(wt, xp.float64)
            mutual = xp.astype(self.adj & self.adj.T, xp.float64)
            two = xp.astype(mutual @ (wt_64 * wt_64), xp.int64)  # 2-cycles i -> j -> i
            return (wt * (into * out - two)).sum(0)

    def closed(self, middles: Iterable[int]) -> Any:
        """Shape (B,) int64: the closed triples whose middle item is in ``middles``."""
        xp, a = self.xp, self.a
        closed = xp.zeros(self.n_boot, xp.int64)
        with xp.exact_products():
            for j in middles:
                ins = np.flatnonzero(a[:, j])
                outs = np.flatnonzero(a[j])
                if not (ins.size and outs.size):
                    continue
                ins_x, outs_x = xp.asarray(ins), xp.asarray(outs)
                # paths[k, b]: weight of the in-neighbours i of j with A[i, k], for each out-neighbour k of j
                paths = xp.astype(self.a_t[outs_x][:, ins_x], self.ft) @ self.wt_f[ins_x]
                closed += self.wt[j] * xp.astype(xp.vecdot(xp.astype(paths, self.rt), self.wt_r[outs_x], 0), xp.int64)
        return closed


def order_replicates(
    xp: Arrays, s: np.ndarray, f: np.ndarray, expected: str, w: np.ndarray, rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """``w^T V w / 2`` for every row of ``w`` (``V`` the symmetric 0/1 matrix of violated pairs), built
    ``rows`` rows at a time; cases from the tie groups of ``s``.

    Args:
        xp: The array namespace.
        s: Shape (n,) finite source scores.
        f: Shape (n,) finite follow-up scores.
        expected: ``"same"`` or ``"opposite"``.
        w: Shape (B, n) int64 multiplicities.
        rows: Rows of ``V`` per block.

    Returns:
        ``(violations (B,), cases (B,))`` int64.
    """
    n_boot, n = w.shape
    if n == 0:
        return np.zeros(n_boot, np.int64), np.zeros(n_boot, np.int64)
    largest = int(w.sum(1).max(initial=0))
    ft = xp.dtype(product_dtype(largest))
    _count_dtype(xp, largest, "order_replicates")
    src, flw = xp.scores(s), xp.scores(f)
    wt = xp.asarray(np.ascontiguousarray(w.T))  # (n, B)
    wt_f, wt_64 = xp.astype(wt, ft), xp.astype(wt, xp.float64)
    twice = xp.zeros(n_boot, xp.int64)
    with xp.exact_products():
        for lo in range(0, n, rows):
            hi = min(lo + rows, n)
            # (b, n): the violated pairs of these rows with the higher source first ...
            bad = (src[lo:hi, None] > src[None, :]) & ~_follows(flw[lo:hi, None], flw[None, :], expected)
            if hi - lo == n:  # ... and, V being symmetric, its transpose for the lower source first
                bad = bad | bad.T
            else:
                bad |= (src[lo:hi, None] < src[None, :]) & ~_follows(flw[None, :], flw[lo:hi, None], expected)
            reach = xp.astype(xp.astype(bad, ft) @ wt_f, xp.float64)  # (b, B), at most the total weight each
            if largest**2 < FLOAT64_EXACT:  # the float64 sum (at most total**2) is exact
                twice += xp.astype(xp.vecdot(reach, wt_64[lo:hi], 0), xp.int64)
            else:  # past 2**53 a float64 sum rounds: sum the int64 products instead
                twice += (xp.astype(reach, xp.int64) * wt[lo:hi]).sum(0)
        # cases: all pairs of the resample minus the pairs tied in src
        order = xp.argsort(src)
        first = xp.ones(n, xp.bool)
        first[1:] = src[order][1:] != src[order][:-1]
        per_tie = xp.group_sums(wt[order], first)  # (groups, B) int64
        total = wt.sum(0)
        cases = (total * total - (per_tie * per_tie).sum(0)) // 2
    return xp.to_numpy(twice // 2), xp.to_numpy(cases)


def _follows(first: Any, second: Any, expected: str) -> Any:
    """Whether follow-up ``first`` is strictly above ``second`` (``"same"``) or below it (``"opposite"``)."""
    return first > second if expected == "same" else first < second


def weighted_sums(xp: Arrays, weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``weights @ values`` for integer weights (B, n) and integer values (n, k), exact.

    Every sum is at most ``sum(w) * max|value|``: int64 on the host, float64
    (exact below 2**53) on a device.

    Returns:
        Shape (B, k) int64.
    """
    if xp.int_products:
        acc = xp.int64
    else:
        bound = int(np.abs(weights).sum(1).max(initial=0)) * int(np.abs(values).max(initial=0))
        check_float64_sums(bound, "weighted_sums")
        acc = xp.float64
    with xp.exact_products():
        out = xp.asarray(weights, acc) @ xp.asarray(values, acc)
    return xp.to_numpy(xp.astype(out, xp.int64))
