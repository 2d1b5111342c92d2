"""The counting engine in torch: the exact counts of :mod:`~mtlib.relations.counting` on any torch device.

Intuition: the counts are integer sums, so they can run wherever the model
ran (a GPU for a GPU run) and still be exact, as long as every float sum stays
below the width of its mantissa. The rules, the same as the numpy engine's:

- a matrix product whose entries are sums of at most ``N`` integer weights
  (``N`` the total weight, ``n`` when unweighted) runs in float32 while
  ``N < 2**24`` (every integer up to 2**24 is a float32), else in float64;
- a reduction of such entries against weights (at most ``N**2``) runs in
  float32 while ``N**2 < 2**24``, else in float64, exact while ``N**2 < 2**53``
  (every partial sum of non-negative integers is below the total, so the
  order of summation does not matter);
- totals over items (at most ``N**3``) are taken in int64.

TF32 is switched off for the products (:func:`_exact_products`): a TF32
product rounds its inputs to 10 bits of mantissa.

Callers pass validated numpy arrays (:mod:`~mtlib.relations.counting` and
:mod:`~mtlib.relations.replicates` validate) and get numpy arrays back, so
the results are the same objects whatever the device. torch is imported on
first use: :mod:`mtlib.relations` still imports without it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from mtlib.utils.batching import resolve_device
from mtlib.utils.inputs import MtlibInputError

__all__ = [
    "statistics_device",
    "concordant_counts",
    "exact_transitivity",
    "order_counts",
    "order_replicates",
    "transitivity_replicates",
    "weighted_sums",
]

_FLOAT32_EXACT = 2**24
_FLOAT64_EXACT = 2**53


def statistics_device(device: str | None) -> str | None:
    """Where an experiment's counts, bootstraps and permutation tests run, given the device its models use.

    A CUDA device runs them there in torch (the data is already there, and the
    host CPU would otherwise bound the run); a CPU, an Apple GPU (no float64
    there, which the exact reductions need) or no torch at all count with numpy
    on the host. Both give the same integers.

    Args:
        device: The models' device: ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``, or None.

    Returns:
        A CUDA device string, or None for numpy on the host.

    Example:
        >>> statistics_device("cpu") is None and statistics_device(None) is None
        True
    """
    if device is None or str(device).split(":", 1)[0] in ("cpu", "mps", "host"):
        return None
    try:
        resolved = resolve_device(device)
    except ImportError:  # the core wheel: no torch, so no device but the host
        return None
    return resolved if resolved.startswith("cuda") else None


def _torch() -> Any:
    import torch  # a heavy package, imported on first use

    return torch


def _device(device: str) -> Any:
    """``device`` as a torch device, refused in the run context's words when it is not there (no CUDA...)."""
    return _torch().device(resolve_device(str(device)))


@contextlib.contextmanager
def _exact_products() -> Iterator[None]:
    """Matrix products in full float32 (no TF32) for the duration."""
    torch = _torch()
    matmul = torch.backends.cuda.matmul.allow_tf32
    cudnn = torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = matmul
        torch.backends.cudnn.allow_tf32 = cudnn


def _product_dtype(total: int) -> Any:
    """float32 while every product entry (at most ``total``) is an exact float32 integer, else float64."""
    torch = _torch()
    if total**2 >= _FLOAT64_EXACT:
        raise MtlibInputError(f"total weight {total:,} is too large to count exactly (needs total**2 < 2**53)")
    return torch.float32 if total < _FLOAT32_EXACT else torch.float64


def exact_transitivity(
    a: np.ndarray, w: np.ndarray | None, per_item: bool, rows: int, device: str
) -> tuple[int, int, np.ndarray | None, np.ndarray | None]:
    """The exact (weighted) three-way transitivity count by blocked products on ``device``.

    The same algebra as the numpy engine (``counting._exact_transitivity``):
    with ``W = diag(w)`` and ``P = A W A``, the cases and violations of the
    first role are ``P @ w`` and ``(P * O) @ w`` (``O`` the open pairs), the
    last role's the same from the left, the middle role's violations the
    column sums of ``W (A * (O W A^T))`` and its cases in-weight times
    out-weight minus the 2-cycles.

    Args:
        a: Shape (n, n) bool with a False diagonal.
        w: Shape (n,) int64 multiplicities, or None.
        per_item: Whether to return per-item counts.
        rows: Rows per block.
        device: A torch device string.

    Returns:
        ``(cases, violations, per-item violations (n,) or None, per-item cases (n,) or None)``.
    """
    torch = _torch()
    dev = _device(device)
    n = a.shape[0]
    mult_np = np.ones(n, np.int64) if w is None else w
    ft = _product_dtype(int(mult_np.sum()))
    f64 = torch.float64
    adj = torch.as_tensor(a, device=dev)
    af = adj.to(ft)
    mult = torch.as_tensor(mult_np, device=dev)
    mult64 = mult.to(f64)
    wf = None if w is None else mult.to(ft)
    first_c = torch.zeros(n, dtype=torch.int64, device=dev)
    first_v = torch.zeros_like(first_c)
    last_c = torch.zeros(n, dtype=f64, device=dev)
    last_v = torch.zeros_like(last_c)
    middle_v = torch.zeros_like(last_c)
    two_cycles = torch.zeros_like(last_c)
    with _exact_products(), torch.inference_mode():
        for lo in range(0, n, rows):
            hi = min(lo + rows, n)
            local = torch.arange(hi - lo, device=dev)
            left = af[lo:hi] if wf is None else af[lo:hi] * wf
            paths = (left @ af).to(f64)
            paths[local, local + lo] = 0
            is_open = ~adj[lo:hi]
            is_open[local, local + lo] = False
            violated = paths * is_open
            first_c[lo:hi] = (paths @ mult64).to(torch.int64)
            first_v[lo:hi] = (violated @ mult64).to(torch.int64)
            if per_item:
                w_block = mult64[lo:hi]
                last_c += w_block @ paths
                last_v += w_block @ violated
                open_f = is_open.to(ft) if wf is None else is_open.to(ft) * wf
                closing = (open_f @ af.T).to(f64)
                middle_v += w_block @ (closing * adj[lo:hi])
                two_cycles += (w_block * w_block) @ (adj[lo:hi] & adj[:, lo:hi].T).to(f64)
        cases = int((mult * first_c).sum())
        violations = int((mult * first_v).sum())
        if not per_item:
            return cases, violations, None, None
        in_weight = (mult64 @ af.to(f64)).to(torch.int64)
        out_weight = (af.to(f64) @ mult64).to(torch.int64)
        item_cases = first_c + last_c.to(torch.int64) + in_weight * out_weight - two_cycles.to(torch.int64)
        item_violations = first_v + last_v.to(torch.int64) + middle_v.to(torch.int64)
    return cases, violations, item_violations.cpu().numpy(), item_cases.cpu().numpy()


def transitivity_replicates(a: np.ndarray, weights: np.ndarray, device: str) -> tuple[np.ndarray, np.ndarray]:
    """Violations and cases of three-way transitivity for every row of ``weights``, on ``device``.

    The torch twin of :func:`mtlib.relations.replicates.transitivity_replicates`
    (the algebra is explained there): cases from three batched products, the
    closed triples per middle item over its in- and out-neighbours only.

    Args:
        a: Shape (n, n) bool with a False diagonal.
        weights: Shape (B, n) int64 multiplicities.
        device: A torch device string.

    Returns:
        ``(violations (B,), cases (B,))`` int64.
    """
    torch = _torch()
    dev = _device(device)
    n_boot, n = weights.shape
    total = int(weights.sum(1).max(initial=0))
    ft = _product_dtype(total)
    f64 = torch.float64
    rt = torch.float32 if total**2 < _FLOAT32_EXACT else f64  # a closed-triple reduction is at most total**2
    adj = torch.as_tensor(a, device=dev)
    af = adj.to(ft)
    wt = torch.as_tensor(np.ascontiguousarray(weights.T), device=dev)  # (n, B)
    wt_f = wt.to(ft)
    wt_64 = wt.to(f64)
    wt_r = wt.to(rt)
    with _exact_products(), torch.inference_mode():
        into = (af.T @ wt_f).to(torch.int64)  # into[j, b] = sum_i A[i, j] w[b, i]
        out = (af @ wt_f).to(torch.int64)  # out[j, b] = sum_k A[j, k] w[b, k]
        mutual = (adj & adj.T).to(f64)
        two = (mutual @ (wt_64 * wt_64)).to(torch.int64)
        cases = (wt * (into * out - two)).sum(0)
        closed = torch.zeros(n_boot, dtype=torch.int64, device=dev)
        af_t = af.T.contiguous()
        for j, ins, outs in _neighbourhoods(a):
            ins_t = torch.as_tensor(ins, device=dev)
            outs_t = torch.as_tensor(outs, device=dev)
            sub = af_t.index_select(0, outs_t).index_select(1, ins_t)  # (|out|, |in|): A[i, k] for i in, k out
            paths = (sub @ wt_f.index_select(0, ins_t)).to(rt)  # (|out|, B)
            closed += wt[j] * (paths * wt_r.index_select(0, outs_t)).sum(0).to(torch.int64)
        violations = cases - closed
    return violations.cpu().numpy(), cases.cpu().numpy()


def _neighbourhoods(a: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """``(j, in-neighbours of j, out-neighbours of j)`` for every item with both."""
    for j in range(a.shape[0]):
        ins = np.flatnonzero(a[:, j])
        outs = np.flatnonzero(a[j])
        if ins.size and outs.size:
            yield j, ins, outs


def concordant_counts(rank: Any, weights: Any) -> Any:
    """The torch twin of ``counting._concordant_counts`` (same merge-sort levels, on tensors).

    Args:
        rank: Shape (n,) int64 tensor, ranks of a sequence of items.
        weights: Shape (n,) int64 tensor of multiplicities, or None for all ones.

    Returns:
        Shape (n,) int64 tensor; entry p is the total weight of the positions
        q < p with ``rank[q] < rank[p]`` and q > p with ``rank[q] > rank[p]``.
    """
    torch = _torch()
    n = rank.numel()
    dev = rank.device
    slot = torch.arange(n, device=dev)
    item = torch.argsort(rank * n + (n - 1 - slot))
    weight = None if weights is None else weights[item]
    acc = torch.zeros(n, dtype=torch.int64, device=dev)
    for level in reversed(range(max(n - 1, 0).bit_length())):
        half = 1 << level
        segment = 2 * half
        right = (item >> level) & 1
        local = slot & (segment - 1)
        right_before, right_total = _segment_prefix(right, segment)
        if weight is None:
            left_weight_before = local - right_before
            right_weight_before, right_weight_total = right_before, right_total
        else:
            right_weight = weight * right
            right_weight_before, right_weight_total = _segment_prefix(right_weight, segment)
            left_weight_before, _ = _segment_prefix(weight - right_weight, segment)
        right_weight_after = torch.repeat_interleave(right_weight_total, segment)[:n] - right_weight_before
        acc += right_weight_after + (left_weight_before - right_weight_after) * right
        dest = slot - right_before + (half - local + 2 * right_before) * right
        item = _scatter(item, dest)
        acc = _scatter(acc, dest)
        if weight is not None:
            weight = _scatter(weight, dest)
    return acc


def _segment_prefix(values: Any, segment: int) -> tuple[Any, Any]:
    """Exclusive prefix sums restarted at every ``segment`` values, and the segment totals (tensors)."""
    torch = _torch()
    m = values.numel()
    padded = -(-m // segment) * segment
    sums = torch.zeros(padded + 1, dtype=values.dtype, device=values.device)
    sums[1 : m + 1] = torch.cumsum(values, 0)
    sums[m + 1 :] = sums[m]
    starts = sums[::segment]
    within = sums[:-1].reshape(-1, segment) - starts[:-1, None]
    return within.reshape(-1)[:m], torch.diff(starts)


def _scatter(values: Any, dest: Any) -> Any:
    """``values[t]`` moved to slot ``dest[t]``."""
    out = values.new_empty(values.shape)
    out[dest] = values
    return out


def _tie_groups(values: Any, weights: Any) -> tuple[Any, Any, Any]:
    """Sort order, dense ranks and per-group total weights of tied values (tensors)."""
    torch = _torch()
    order = torch.argsort(values, stable=True)
    ordered = values[order]
    first = torch.ones(values.numel(), dtype=torch.bool, device=values.device)
    first[1:] = ordered[1:] != ordered[:-1]
    group_of_sorted = torch.cumsum(first.to(torch.int64), 0) - 1
    rank = torch.empty_like(group_of_sorted)
    rank[order] = group_of_sorted
    n_groups = int(group_of_sorted[-1]) + 1 if values.numel() else 0
    group = torch.zeros(n_groups, dtype=torch.int64, device=values.device)
    group.index_add_(0, group_of_sorted, weights[order])
    return order, rank, group


def order_counts(
    src: np.ndarray, flw: np.ndarray, expected: str, per_item: bool, w: np.ndarray | None, device: str
) -> dict[str, Any]:
    """The torch twin of the numpy pairwise-order count (``counting.count_order_violations``).

    Args:
        src: Shape (n,) finite source scores.
        flw: Shape (n,) finite follow-up scores.
        expected: ``"same"`` or ``"opposite"``.
        per_item: Also count per item.
        w: Shape (n,) int64 multiplicities, or None.
        device: A torch device string.

    Returns:
        ``cases, violations, ties_src, ties_flw`` (ints) and ``per_item``,
        ``per_item_cases`` (shape (n,) int64 arrays, or None).
    """
    torch = _torch()
    dev = _device(device)
    n = src.size
    s = torch.as_tensor(np.asarray(src, np.float64), device=dev)
    f = torch.as_tensor(np.asarray(flw, np.float64), device=dev)
    weights = None if w is None else torch.as_tensor(w, device=dev)
    mult = torch.ones(n, dtype=torch.int64, device=dev) if weights is None else weights
    _, src_rank, src_group = _tie_groups(s, mult)
    _, flw_rank, flw_group = _tie_groups(f, mult)
    order, joint_rank, joint_group = _tie_groups(src_rank * flw_group.numel() - flw_rank, mult)
    concordant = torch.empty(n, dtype=torch.int64, device=dev)
    concordant[order] = concordant_counts(flw_rank[order], None if weights is None else weights[order])
    total = int(mult.sum())
    ties_src = _tied_pairs(src_group)
    ties_flw = _tied_pairs(flw_group) - _tied_pairs(joint_group)
    cases = total * (total - 1) // 2 - ties_src
    n_concordant = int((mult * concordant).sum()) // 2
    violations = cases - n_concordant if expected == "same" else n_concordant + ties_flw
    item_violations = item_cases = None
    if per_item:
        cases_t = total - src_group[src_rank]
        if expected == "same":
            viol_t = cases_t - concordant
        else:
            viol_t = concordant + flw_group[flw_rank] - joint_group[joint_rank]
        item_cases, item_violations = cases_t.cpu().numpy(), viol_t.cpu().numpy()
    return {
        "cases": cases,
        "violations": violations,
        "ties_src": ties_src,
        "ties_flw": ties_flw,
        "per_item": item_violations,
        "per_item_cases": item_cases,
    }


def _tied_pairs(group: Any) -> int:
    """Unordered pairs within groups of the given total weights."""
    return int((group * (group - 1)).sum()) // 2


def order_replicates(
    src: np.ndarray, flw: np.ndarray, expected: str, weights: np.ndarray, rows: int, device: str
) -> tuple[np.ndarray, np.ndarray]:
    """Violations and cases of a pairwise-order relation for every row of ``weights``, on ``device``.

    The torch twin of :func:`mtlib.relations.replicates.order_replicates`:
    violations ``w^T V w / 2`` with ``V`` the symmetric 0/1 matrix of violated
    pairs, built ``rows`` rows at a time; cases from the tie groups of ``src``.

    Args:
        src: Shape (n,) finite source scores.
        flw: Shape (n,) finite follow-up scores.
        expected: ``"same"`` or ``"opposite"``.
        weights: Shape (B, n) int64 multiplicities.
        rows: Rows of ``V`` per block.
        device: A torch device string.

    Returns:
        ``(violations (B,), cases (B,))`` int64.
    """
    torch = _torch()
    dev = _device(device)
    n_boot, n = weights.shape
    ft = _product_dtype(int(weights.sum(1).max(initial=0)))
    s = torch.as_tensor(np.asarray(src, np.float64), device=dev)
    f = torch.as_tensor(np.asarray(flw, np.float64), device=dev)
    wt = torch.as_tensor(np.ascontiguousarray(weights.T), device=dev)  # (n, B)
    wt_f = wt.to(ft)
    twice = torch.zeros(n_boot, dtype=torch.int64, device=dev)
    with _exact_products(), torch.inference_mode():
        for lo in range(0, n, rows):
            hi = min(lo + rows, n)
            up_s = s[lo:hi, None] > s[None, :]
            down_s = s[lo:hi, None] < s[None, :]
            up_f = f[lo:hi, None] > f[None, :]
            down_f = f[lo:hi, None] < f[None, :]
            if expected == "opposite":
                up_f, down_f = down_f, up_f
            bad = (up_s & ~up_f) | (down_s & ~down_f)  # (b, n): the violated pairs of these rows
            reach = (bad.to(ft) @ wt_f).to(torch.float64)  # (b, B), at most the total weight each
            twice += (reach * wt[lo:hi].to(torch.float64)).sum(0).to(torch.int64)
        # cases: all pairs of the resample minus the pairs tied in src (tie groups by sorting)
        order = torch.argsort(s, stable=True)
        first = torch.ones(n, dtype=torch.bool, device=dev)
        first[1:] = s[order][1:] != s[order][:-1]
        group_of = torch.cumsum(first.to(torch.int64), 0) - 1
        n_groups = int(group_of[-1]) + 1 if n else 0
        per_group = torch.zeros(n_groups, n_boot, dtype=torch.int64, device=dev)
        per_group.index_add_(0, group_of, wt[order])
        total = wt.sum(0)
        cases = (total * total - (per_group * per_group).sum(0)) // 2
    return (twice // 2).cpu().numpy(), cases.cpu().numpy()


def weighted_sums(weights: np.ndarray, values: np.ndarray, device: str) -> np.ndarray:
    """``weights @ values`` for integer weights (B, n) and integer values (n, k), exact, on ``device``.

    Every sum is at most ``sum(w) * max|value|``; float64 holds it exactly
    below 2**53, so the product runs in float64 and returns int64.

    Returns:
        Shape (B, k) int64.
    """
    torch = _torch()
    dev = _device(device)
    bound = int(np.abs(weights).sum(1).max(initial=0)) * int(np.abs(values).max(initial=0))
    if bound >= _FLOAT64_EXACT:
        raise MtlibInputError(f"weighted sums up to {bound:,} are too large to count exactly in float64")
    w = torch.as_tensor(np.asarray(weights, np.float64), device=dev)
    v = torch.as_tensor(np.asarray(values, np.float64), device=dev)
    with _exact_products(), torch.inference_mode():
        out = (w @ v).round().to(torch.int64)
    return out.cpu().numpy()
