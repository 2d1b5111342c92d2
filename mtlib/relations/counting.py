"""Exact violation counts for pairwise-order and three-way transitivity relations.

A pairwise-systematicity relation (Manino et al. 2022, section 4) compares the
order of two source scores with the order of their follow-up scores: every
unordered pair of inputs whose source scores differ is a test case, and the case
is violated unless the follow-up scores are strictly ordered in the expected
direction. A dataset of n inputs yields up to n(n-1)/2 cases, 56 million for the
paper's 10,605 reviews, so the pairs are never enumerated here. Instead, the
number of violated cases follows from the number of *concordant* pairs (strictly
ordered the same way by both scores) and from tie counts. Concordant pairs are
counted for every item at once by a merge-sort style dominance count: lay the
items out by source score, and for each item count the earlier items with a
smaller follow-up score and the later items with a larger one. That takes
O(n log n) time, O(n) memory and a numpy loop over the log2(n) levels only.

A three-way transitivity relation (section 6) takes a Boolean prediction v for
every ordered pair of inputs, the adjacency matrix A. Every ordered triple of
distinct inputs (i, j, k) with A[i, j] and A[j, k] is a case, violated when
A[i, k] is False. Counting them is matrix algebra: (A @ A)[i, k] is the number
of paths i -> j -> k, so the violations are the entries of A @ A off the
diagonal where A is False. The products run in float32 (exact for integer counts below 2**24) over
blocks of rows, so memory stays near one n x n float matrix. A sampled mode
draws random triples instead, as the paper does.

The reference loops the tests compare with are in the tests
(``tests/unit/relations/counting_naive.py``), not in the package.

Both counts accept integer item multiplicities (``weights``) so that a bootstrap
resample can be counted exactly without materialising the repeated items; a
whole matrix of replicate weights is counted at once by
:mod:`~mtlib.relations.replicates`. Both exact counts take ``device``: None
counts with numpy on the host, a torch device string runs the same kernel
there (:mod:`~mtlib.relations.kernels`, written once for both), with the same
integers; which float holds which sum is :mod:`~mtlib.relations.exactness`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from mtlib.relations import kernels
from mtlib.relations.errors import MtlibInputError
from mtlib.relations.exactness import violation_rate
from mtlib.utils.arrays import namespace

__all__ = [
    "EXPECTED_DIRECTIONS",
    "OrderCount",
    "TransitivityCount",
    "count_order_violations",
    "count_transitivity_violations",
    "sample_triples",
]

EXPECTED_DIRECTIONS = ("same", "opposite")

# Bytes of temporaries per matrix entry of a block of rows in the exact
# transitivity count (float32 and int64 copies of a few b x n matrices).
_BYTES_PER_BLOCK_ENTRY = 48
_BLOCK_BYTES = 256 * 2**20
# Triples drawn per vectorised batch in the sampled transitivity count.
_SAMPLE_BATCH = 1 << 20


@dataclass(frozen=True, eq=False)
class OrderCount:
    """Violations of a pairwise-order relation.

    Attributes:
        n: Number of items (distinct items when counted with weights).
        cases: Unordered pairs whose source scores differ.
        violations: Cases not strictly ordered in the expected direction by
            the follow-up scores.
        rate: ``violations / cases``; nan when there are no cases.
        ties_src: Pairs excluded because their source scores are tied.
        ties_flw: Cases violated because their follow-up scores are tied.
        expected: ``"same"`` or ``"opposite"``.
        per_item: Shape (n,) int64, the violated cases containing each item,
            or None when not requested.
        per_item_cases: Shape (n,) int64, the cases containing each item, or
            None when not requested.
    """

    n: int
    cases: int
    violations: int
    rate: float
    ties_src: int
    ties_flw: int
    expected: str
    per_item: np.ndarray | None = None
    per_item_cases: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        """The scalar fields as a JSON-ready dict."""
        return _scalar_fields(self)


@dataclass(frozen=True, eq=False)
class TransitivityCount:
    """Violations of a three-way transitivity relation.

    Attributes:
        n: Number of items (distinct items when counted with weights).
        cases: Ordered triples (i, j, k) of distinct items with
            ``adj[i, j] and adj[j, k]`` (among the drawn triples when sampled).
        violations: Cases with ``not adj[i, k]``.
        rate: ``violations / cases``; nan when there are no cases.
        sampled: Whether the triples were drawn at random.
        n_sampled: Triples drawn, or None for an exact count.
        per_item: Shape (n,) int64, the violated triples containing each item
            in any role, or None when not requested.
        per_item_cases: Shape (n,) int64, the same for cases, or None.
    """

    n: int
    cases: int
    violations: int
    rate: float
    sampled: bool
    n_sampled: int | None
    per_item: np.ndarray | None = None
    per_item_cases: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        """The scalar fields as a JSON-ready dict."""
        return _scalar_fields(self)


def count_order_violations(
    src: np.ndarray,
    flw: np.ndarray,
    *,
    expected: str = "same",
    per_item: bool = False,
    weights: np.ndarray | None = None,
    device: str | None = None,
) -> OrderCount:
    """Count the violated pairwise-order cases exactly in O(n log n).

    A case is an unordered pair {i, j} with ``src[i] != src[j]``. It is violated
    unless ``sign(flw[i] - flw[j])`` equals ``sign(src[i] - src[j])`` (for
    ``expected="same"``) or its negation (``"opposite"``); a tie in ``flw`` is
    a violation.

    With ``weights``, item i stands for ``weights[i]`` copies, and every count
    equals the count on ``np.repeat(src, weights), np.repeat(flw, weights)``
    (copies of an item are tied in ``src``, so they add to ``ties_src`` and
    never form a case). ``per_item[i]`` is then the count for a single copy of
    item i: the sum of ``weights[j]`` over the items j whose pair with i is a
    violated case. It is defined for items of weight 0 as well, and
    ``weights @ per_item == 2 * violations``. ``per_item_cases`` likewise.

    Args:
        src: Shape (n,), finite source scores.
        flw: Shape (n,), finite follow-up scores.
        expected: ``"same"`` or ``"opposite"``, the expected follow-up order.
        per_item: Also count, for each item, the violated cases and the cases
            that contain it.
        weights: Shape (n,), non-negative integer multiplicities, or None for
            one copy of every item.
        device: None to count with numpy on the host, or a torch device
            string (``"cpu"``, ``"cuda"``...) to count there
            (:mod:`~mtlib.relations.kernels`; the same counts).

    Returns:
        The counts; ``per_item`` and ``per_item_cases`` are shape (n,) int64
        arrays when requested, else None.

    Raises:
        ValueError: On arrays that are not 1-D numeric of equal length, on
            nan or inf scores, on an unknown ``expected`` and on weights that
            are not non-negative integers.
    """
    src, flw = _as_score_pair(src, flw, expected)
    n = src.size
    w = _as_weights(weights, n)
    cases, violations, ties_src, ties_flw, item_v, item_c = kernels.order_counts(
        namespace(device), src, flw, expected, per_item, w
    )
    return OrderCount(
        n=n,
        cases=cases,
        violations=violations,
        rate=violation_rate(violations, cases),
        ties_src=ties_src,
        ties_flw=ties_flw,
        expected=expected,
        per_item=_frozen(item_v),
        per_item_cases=_frozen(item_c),
    )


def count_transitivity_violations(
    adj: np.ndarray,
    *,
    per_item: bool = True,
    weights: np.ndarray | None = None,
    sample: int | None = None,
    seed: int | None = 0,
    block_size: int | None = None,
    device: str | None = None,
) -> TransitivityCount:
    """Count the violated three-way transitivity cases.

    A case is an ordered triple (i, j, k) of pairwise distinct indices with
    ``adj[i, j] and adj[j, k]``; it is violated when ``not adj[i, k]``. The
    diagonal of ``adj`` is ignored.

    The exact count uses matrix products over blocks of ``block_size`` rows:
    O(n^3) BLAS work, O(n^2) memory for one float copy of ``adj`` plus the
    block's temporaries. With ``weights``, the cases are triples of
    pairwise distinct *items* weighted by ``w[i] * w[j] * w[k]`` (copies of the
    same item never form a triple), and ``per_item[i]`` counts the triples
    containing a single copy of item i, so ``weights @ per_item == 3 *
    violations``.

    With ``sample=m`` the count instead follows the paper: m ordered triples of
    pairwise distinct indices are drawn uniformly (with replacement) from a
    numpy Generator seeded with ``seed``, the cases are the drawn triples with
    ``adj[i, j] and adj[j, k]``, and the per-item counts come from the sample.

    Args:
        adj: Shape (n, n), boolean or 0/1; ``adj[i, j]`` is the model's
            prediction for the ordered input pair (x_i, x_j).
        per_item: Also count the violated triples and the cases containing each
            item (in any of the three roles).
        weights: Shape (n,), non-negative integer multiplicities, or None.
            Exact mode only.
        sample: Number of triples to draw, or None for the exact count.
        seed: Seed of the sampling Generator.
        block_size: Rows per block in the exact count; by default, as many as
            keep a block's temporaries near 256 MB.
        device: None to count with numpy on the host, or a torch device
            string to run the exact count there (the same counts; the sampled
            count always runs on the host).

    Returns:
        The counts; per-item arrays are shape (n,) int64 when requested.

    Raises:
        ValueError: On an ``adj`` that is not square boolean or 0/1, on bad
            weights, sample or block size, and on weights with ``sample``.
    """
    a = _as_adjacency(adj)
    w = _as_weights(weights, a.shape[0])
    if sample is None:
        rows = _block_rows(block_size, a.shape[0])
        cases, violations, item_v, item_c = kernels.exact_transitivity(namespace(device), a, w, per_item, rows)
        return TransitivityCount(
            n=a.shape[0],
            cases=cases,
            violations=violations,
            rate=violation_rate(violations, cases),
            sampled=False,
            n_sampled=None,
            per_item=_frozen(item_v),
            per_item_cases=_frozen(item_c),
        )
    if w is not None:
        raise MtlibInputError("weights are only supported by the exact count (sample=None)")
    return _sampled_transitivity(a, _positive_int(sample, "sample"), seed, per_item)


def _sampled_transitivity(a: np.ndarray, m: int, seed: int | None, per_item: bool) -> TransitivityCount:
    """Count over m uniformly drawn ordered triples of distinct indices.

    Args:
        a: Shape (n, n) bool.
        m: Triples to draw.
        seed: Generator seed.
        per_item: Whether to return per-item counts.

    Returns:
        The sampled counts; no triple is drawn when n < 3.
    """
    n = a.shape[0]
    n_sampled = m if n >= 3 else 0
    cases = violations = 0
    item_violations = np.zeros(n, np.int64)
    item_cases = np.zeros(n, np.int64)
    for i, j, k in _triple_batches(n, n_sampled, seed):
        is_case = a[i, j] & a[j, k]
        is_violated = is_case & ~a[i, k]
        cases += int(is_case.sum())
        violations += int(is_violated.sum())
        if per_item:
            for role in (i, j, k):
                item_cases += np.bincount(role[is_case], minlength=n)
                item_violations += np.bincount(role[is_violated], minlength=n)
    return TransitivityCount(
        n=n,
        cases=cases,
        violations=violations,
        rate=violation_rate(violations, cases),
        sampled=True,
        n_sampled=n_sampled,
        per_item=_frozen(item_violations) if per_item else None,
        per_item_cases=_frozen(item_cases) if per_item else None,
    )


def sample_triples(n: int, m: int, seed: int | None = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``m`` ordered triples of distinct indices that the sampled mode draws for ``seed``.

    Lets a caller that cannot afford the n x n matrix predict only the pairs
    these triples need, and still get exactly the triples of
    ``count_transitivity_violations(adj, sample=m, seed=seed)``.

    Returns:
        Three int64 arrays ``i, j, k`` of shape ``(m,)`` (empty when n < 3).
    """
    batches = list(_triple_batches(n, m if n >= 3 else 0, seed))
    if not batches:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    return tuple(np.concatenate(parts) for parts in zip(*batches))  # type: ignore[return-value]


def _triple_batches(n: int, m: int, seed: int | None):
    """Yield the sampled triples in batches of at most ``_SAMPLE_BATCH``."""
    rng = np.random.default_rng(seed)
    for lo in range(0, m, _SAMPLE_BATCH):
        yield _distinct_triples(rng, n, min(_SAMPLE_BATCH, m - lo))


def _distinct_triples(rng: np.random.Generator, n: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three shape (size,) index arrays, each row a uniform ordered triple of
    distinct values in range(n): draw from the n - 1 (n - 2) values left and
    step over the indices already taken."""
    i = rng.integers(0, n, size)
    j = rng.integers(0, n - 1, size)
    j += j >= i
    k = rng.integers(0, n - 2, size)
    k += k >= np.minimum(i, j)
    k += k >= np.maximum(i, j)
    return i, j, k


def _block_rows(block_size: int | None, n: int) -> int:
    """Rows per block of the exact transitivity count."""
    if block_size is not None:
        return _positive_int(block_size, "block_size")
    return max(1, _BLOCK_BYTES // (_BYTES_PER_BLOCK_ENTRY * max(n, 1)))


def _as_scores(x: Any, name: str) -> np.ndarray:
    """Validate a shape (n,) array of finite real scores."""
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise MtlibInputError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise MtlibInputError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            first = int(np.argmax(bad))
            raise MtlibInputError(f"{name}[{first}] is {arr[first]}; counting needs finite scores")
    return arr


def _as_weights(weights: Any, n: int) -> np.ndarray | None:
    """Validate shape (n,) non-negative integer multiplicities as int64."""
    if weights is None:
        return None
    arr = np.asarray(weights)
    if arr.shape != (n,):
        raise MtlibInputError(f"weights must have shape ({n},), got {arr.shape}")
    return integer_weights(arr)


def integer_weights(arr: np.ndarray) -> np.ndarray:
    """``arr`` (any shape) as int64 when every entry is a non-negative integer; else the first bad entry named.

    Raises:
        MtlibInputError: a non-numeric dtype, or the first negative, non-finite or fractional entry.
    """
    if arr.dtype.kind not in "biuf":
        raise MtlibInputError(f"weights must be non-negative integers, got dtype {arr.dtype}")
    bad = arr < 0
    if arr.dtype.kind == "f":
        bad |= ~np.isfinite(arr) | (arr != np.round(arr))
    if bad.any():
        where = np.unravel_index(int(np.argmax(bad)), arr.shape)
        index = ", ".join(str(int(i)) for i in where)
        raise MtlibInputError(f"weights[{index}] is {arr[where]}; weights must be non-negative integers")
    return arr.astype(np.int64)


def _as_adjacency(adj: Any) -> np.ndarray:
    """Validate a square boolean or 0/1 matrix; a bool copy, diagonal False."""
    arr = np.asarray(adj)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise MtlibInputError(f"adj must be a square 2-D matrix, got shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise MtlibInputError(f"adj must be boolean or 0/1, got dtype {arr.dtype}")
    if arr.dtype.kind != "b":
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            i, j = np.unravel_index(int(np.argmax(bad)), arr.shape)
            raise MtlibInputError(f"adj must be boolean or 0/1, found adj[{i}, {j}] = {arr[i, j]}")
    a = arr.astype(bool)
    np.fill_diagonal(a, False)
    return a


def _positive_int(value: Any, name: str) -> int:
    """Validate a positive integer argument."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise MtlibInputError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _as_score_pair(src: Any, flw: Any, expected: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate shape (n,) source and follow-up scores and the direction."""
    src = _as_scores(src, "src")
    flw = _as_scores(flw, "flw")
    if src.size != flw.size:
        raise MtlibInputError(f"src and flw must have equal lengths, got {src.size} and {flw.size}")
    if expected not in EXPECTED_DIRECTIONS:
        raise MtlibInputError(f"expected must be 'same' or 'opposite', got {expected!r}")
    return src, flw


def _frozen(arr: np.ndarray | list[int] | None) -> np.ndarray | None:
    """The counts as a read-only int64 array, so results stay immutable."""
    if arr is None:
        return None
    out = np.asarray(arr, dtype=np.int64)
    out.flags.writeable = False
    return out


def _scalar_fields(result: OrderCount | TransitivityCount) -> dict[str, Any]:
    """Scalar dataclass fields of a result, by name."""
    return {f.name: getattr(result, f.name) for f in fields(result) if f.name not in ("per_item", "per_item_cases")}
