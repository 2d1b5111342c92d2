"""Bootstrap replicates counted together: exact counts for a whole ``(B, n)`` matrix of item weights.

Intuition: a bootstrap replicate is the same data with integer item weights
(a multinomial resample), so B replicates are B exact weighted counts. Counted
one at a time, three-way transitivity costs a full ``n x n x n`` product per
replicate (4.1 billion multiply-adds for 1,604 words). Counted together, the
work shrinks with the algebra:

- **cases** need no product over triples: with ``in_j = sum_i w_i A[i, j]``
  and ``out_j = sum_k A[j, k] w_k``, the weighted triples ``i -> j -> k`` are
  ``sum_j w_j (in_j out_j - sum_i w_i^2 A[i, j] A[j, i])`` (the last term
  takes out ``i = k``): three ``(n, n) x (n, B)`` products for all replicates;
- **closed** triples (those with ``A[i, k]`` too; violations are cases minus
  closed) are counted per middle item j over its in-neighbours and
  out-neighbours only: ``sum_j w_j sum_{i in In_j, k in Out_j} w_i A[i, k] w_k``,
  one ``(|Out_j|, |In_j|) x (|In_j|, B)`` product per j. With a share ``d`` of
  positive pairs that is ``d^2`` of the dense work (0.03 at CogALex's 0.18).

Pairwise-order replicates use the quadratic form ``w^T V w / 2`` over the
symmetric 0/1 matrix ``V`` of violated pairs, or, past
:data:`DENSE_ORDER_MAX` items on the host, one weighted O(n log n) count per
replicate.

Every function takes ``device``: ``None`` counts with numpy on the host, a
torch device string (``"cpu"``, ``"cuda"``...) in torch there; both run the
same kernels (:mod:`~mtlib.relations.kernels`), so they agree value for
value. The bounds that keep float products exact are
:mod:`~mtlib.relations.exactness` (float32 for sums below 2**24, float64
reductions, int64 totals). Only the scheduling differs: the host shares the
closed triples' middle items among threads, and past :data:`DENSE_ORDER_MAX`
items counts order replicates one at a time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from mtlib.relations import kernels
from mtlib.relations.counting import _as_adjacency, _as_score_pair, count_order_violations, integer_weights
from mtlib.relations.errors import MtlibInputError
from mtlib.relations.exactness import INT64_LIMIT, check_int64_total
from mtlib.utils.arrays import namespace

__all__ = ["ReplicateCounts", "order_replicates", "transitivity_replicates", "weighted_sums"]

#: Largest item count whose order replicates use the dense quadratic form on the host.
DENSE_ORDER_MAX = 2500
# Fewer items than this count their closed triples in one thread (threads cost more than they save).
_THREADED_MIN_ITEMS = 256
# Rows of V (or of a product) per block: a block's temporaries stay near 256 MB.
_BLOCK_BYTES = 256 * 2**20


@dataclass(frozen=True, eq=False)
class ReplicateCounts:
    """Exact violations and cases of every replicate.

    Attributes:
        violations: Shape (B,) int64.
        cases: Shape (B,) int64.
    """

    violations: np.ndarray
    cases: np.ndarray

    @property
    def rates(self) -> np.ndarray:
        """Shape (B,) float: ``violations / cases``, nan for a replicate without cases."""
        v, c = self.violations.astype(float), self.cases.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(c > 0, v / np.where(c > 0, c, 1), np.nan)


def as_weight_matrix(weights: Any, n: int) -> np.ndarray:
    """Validate a ``(B, n)`` matrix of non-negative integer item weights; returns int64.

    Raises:
        MtlibInputError: naming the first bad entry, or the shape expected.
    """
    arr = np.asarray(weights)
    if arr.ndim != 2 or arr.shape[1] != n:
        raise MtlibInputError(f"weights must have shape (B, {n}), got {arr.shape}")
    return integer_weights(arr)


def exact_total(w: np.ndarray, power: int, where: str, what: str) -> int:
    """The largest row sum of replicate weights ``w``, if ``total**power`` (the largest count) fits in int64.

    Raises:
        MtlibInputError: past the bound, naming ``where``: a count there would wrap around, never be exact.
    """
    return check_int64_total(int(w.sum(1).max(initial=0)), power, where, what)


def transitivity_replicates(adj: Any, weights: Any, *, device: str | None = None) -> ReplicateCounts:
    """Exact weighted three-way transitivity counts for every row of ``weights``.

    Row b's counts equal ``count_transitivity_violations(adj, weights=weights[b])``.

    Args:
        adj: Shape (n, n) boolean or 0/1 prediction matrix; the diagonal is ignored.
        weights: Shape (B, n) non-negative integer item weights.
        device: None for numpy on the host, or a torch device string.

    Returns:
        The counts, shape (B,) each.

    Example:
        >>> a = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], bool)  # a 3-cycle: every case violated
        >>> r = transitivity_replicates(a, [[1, 1, 1], [2, 1, 0]])
        >>> r.violations.tolist(), r.cases.tolist()
        ([3, 0], [3, 0])
    """
    a = _as_adjacency(adj)
    w = as_weight_matrix(weights, a.shape[0])
    total = exact_total(w, 3, "transitivity_replicates", "triples")
    xp = namespace(device)
    triples = kernels.TripleReplicates(xp, a, w, total)
    cases = triples.cases()
    n = a.shape[0]
    if not xp.on_host or n < _THREADED_MIN_ITEMS:
        closed = triples.closed(range(n))
    else:
        # Many mid-sized products: one BLAS thread each, the middle items shared among as many Python threads as
        # BLAS would have used (numpy releases the GIL in a product). Threaded BLAS on products this size
        # synchronises its threads once per product, which costs several times the work on a busy machine.
        workers = _blas_threads()
        with threadpool_limits(1), ThreadPoolExecutor(workers) as pool:
            parts = pool.map(triples.closed, [range(k, n, workers) for k in range(workers)])
            closed = sum(parts, np.zeros(w.shape[0], np.int64))
    return ReplicateCounts(xp.to_numpy(cases - closed), xp.to_numpy(cases))


def _blas_threads() -> int:
    """The threads numpy's BLAS would use now (its pool size), at least 1."""
    sizes = [int(pool.get("num_threads") or 1) for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return max([1, *sizes])


def order_replicates(
    src: Any, flw: Any, weights: Any, *, expected: str = "same", device: str | None = None
) -> ReplicateCounts:
    """Exact weighted pairwise-order counts for every row of ``weights``.

    Row b's counts equal ``count_order_violations(src, flw, expected=expected, weights=weights[b])``.

    Args:
        src: Shape (n,) finite source scores.
        flw: Shape (n,) finite follow-up scores.
        weights: Shape (B, n) non-negative integer item weights.
        expected: ``"same"`` or ``"opposite"``.
        device: None for numpy on the host, or a torch device string.

    Returns:
        The counts, shape (B,) each.

    Example:
        >>> r = order_replicates([1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [[1, 1, 1], [0, 2, 1]])
        >>> r.violations.tolist(), r.cases.tolist()
        ([1, 2], [3, 2])
    """
    s, f = _as_score_pair(src, flw, expected)
    w = as_weight_matrix(weights, s.size)
    exact_total(w, 2, "order_replicates", "pairs")
    rows = max(1, _BLOCK_BYTES // (16 * max(s.size, 1)))
    if device is None and s.size > DENSE_ORDER_MAX:
        counts = [count_order_violations(s, f, expected=expected, weights=row) for row in w]
        return ReplicateCounts(
            np.array([r.violations for r in counts], np.int64), np.array([r.cases for r in counts], np.int64)
        )
    return ReplicateCounts(*kernels.order_replicates(namespace(device), s, f, expected, w, rows))


def weighted_sums(weights: Any, values: Any, *, device: str | None = None) -> np.ndarray:
    """``weights @ values`` for integer item weights ``(B, n)`` and integer per-item counts ``(n,)`` or ``(n, k)``.

    The replicate totals of per-item counts (violations and cases per source
    item), exact: int64 on the host, float64 below 2**53 on a torch device.

    Returns:
        Shape (B,) or (B, k) int64.

    Example:
        >>> weighted_sums([[2, 0, 1], [1, 1, 1]], [1, 5, 3]).tolist()
        [5, 9]
    """
    vals = np.asarray(values)
    if vals.dtype.kind not in "biu" and not (vals.dtype.kind == "f" and np.array_equal(vals, np.round(vals))):
        raise MtlibInputError(f"values must be integer counts, got dtype {vals.dtype}")
    if vals.ndim not in (1, 2):
        raise MtlibInputError(f"values must have shape (n,) or (n, k), got {vals.shape}")
    vals = vals.astype(np.int64)
    w = as_weight_matrix(weights, vals.shape[0])
    if int(w.sum(1).max(initial=0)) * int(np.abs(vals).max(initial=0)) >= INT64_LIMIT:
        raise MtlibInputError("weighted_sums: the sums would pass 2**63 and wrap around in int64")
    two_d = vals.reshape(vals.shape[0], -1)
    out = kernels.weighted_sums(namespace(device), w, two_d)
    return out if vals.ndim == 2 else out[:, 0]
