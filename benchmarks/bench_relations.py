"""Benchmark of the exact violation counts in ``mtlib.relations.counting``.

Usage: ``python benchmarks/bench_relations.py [--quick]``

Figures, all measured in this process:

1. pairwise order, n = 10,605 (the paper's dataset size): the exact count
   against the best naive approach, a chunked numpy enumeration of all pairs;
   both must give the same counts.
2. pairwise order, n = 1,000,000 with per-item counts.
3. three-way transitivity, n = 2,000 random adjacency of density 0.05, with
   per-item counts.

Each figure is printed as a human-readable line followed by one JSON line per
number (``{"bench", "figure", "value", "unit", ...}``). Times are the best of a
few runs; peak memory is the tracemalloc peak of one further run. ``--quick``
shrinks the sizes to 2,000 / 100,000 / 500 for a smoke run.
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from mtlib.relations import counting

FULL_SIZES = {"order": 10_605, "order_large": 1_000_000, "transitivity": 2_000}
QUICK_SIZES = {"order": 2_000, "order_large": 100_000, "transitivity": 500}
NAIVE_BLOCK_ROWS = 256


def best_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Best wall time in seconds over ``repeat`` calls, and the last result."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_mb(fn: Callable[[], Any]) -> float:
    """Peak traced memory in MiB of one call."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def emit(bench: str, figure: str, value: float, unit: str, **extra: Any) -> None:
    """Print one JSON line for one figure."""
    print(json.dumps({"bench": bench, "figure": figure, "value": value, "unit": unit, **extra}))


def scores(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Shape (n,) source and follow-up scores in [0, 1], rounded to 3 decimals
    so both have many ties."""
    src = rng.random(n).round(3)
    flw = np.clip(src + rng.normal(0.0, 0.05, n), 0.0, 1.0).round(3)
    return src, flw


def naive_order_counts(src: np.ndarray, flw: np.ndarray) -> dict[str, int]:
    """Same-direction counts by vectorised enumeration of all pairs i < j,
    ``NAIVE_BLOCK_ROWS`` rows of i at a time against every j > i."""
    n = src.size
    cases = violations = ties_src = ties_flw = 0
    for lo in range(0, n, NAIVE_BLOCK_ROWS):
        hi = min(lo + NAIVE_BLOCK_ROWS, n)
        upper = np.arange(lo, hi)[:, None] < np.arange(lo, n)[None, :]
        ds = np.sign(src[lo:hi, None] - src[None, lo:])
        df = np.sign(flw[lo:hi, None] - flw[None, lo:])
        is_case = upper & (ds != 0)
        cases += int(is_case.sum())
        violations += int((is_case & (df != ds)).sum())
        ties_src += int((upper & (ds == 0)).sum())
        ties_flw += int((is_case & (df == 0)).sum())
    return {"cases": cases, "violations": violations, "ties_src": ties_src, "ties_flw": ties_flw}


def bench_order_vs_naive(rng: np.random.Generator, n: int) -> None:
    """Figure 1 (and its peak memory): exact count against pair enumeration."""
    src, flw = scores(rng, n)
    exact_s, exact = best_time(lambda: counting.count_order_violations(src, flw), repeat=5)
    naive_s, naive = best_time(lambda: naive_order_counts(src, flw), repeat=2)
    got = {key: getattr(exact, key) for key in naive}
    if got != naive:
        raise AssertionError(f"exact {got} != naive {naive}")
    memory = peak_mb(lambda: counting.count_order_violations(src, flw))
    speedup = naive_s / exact_s
    bench = f"order_n{n}"
    print(
        f"order n={n}: {exact.cases:,} cases, {exact.violations:,} violations "
        f"(rate {exact.rate:.4f}); exact {exact_s * 1e3:.2f} ms vs vectorised pairs "
        f"{naive_s:.3f} s = {speedup:,.0f}x faster (target >= 100x); "
        f"exact peak memory {memory:.2f} MB"
    )
    emit(bench, "exact_seconds", exact_s, "s", n=n)
    emit(bench, "naive_vectorised_seconds", naive_s, "s", n=n)
    emit(bench, "speedup", speedup, "x", n=n, target=">= 100")
    emit(bench, "exact_peak_memory", memory, "MB", n=n)


def bench_order_large(rng: np.random.Generator, n: int) -> None:
    """Figure 2: exact count with per-item counts on a large n."""
    src, flw = scores(rng, n)

    def run() -> counting.OrderCount:
        return counting.count_order_violations(src, flw, per_item=True)

    seconds, result = best_time(run, repeat=3)
    memory = peak_mb(run)
    bench = f"order_per_item_n{n}"
    print(
        f"order per-item n={n:,}: {result.cases:,} cases, {result.violations:,} violations; "
        f"{seconds:.3f} s (target < 10 s), peak memory {memory:.1f} MB"
    )
    emit(bench, "seconds", seconds, "s", n=n, target="< 10")
    emit(bench, "peak_memory", memory, "MB", n=n)


def bench_transitivity(rng: np.random.Generator, n: int) -> None:
    """Figure 3: exact transitivity count with per-item counts."""
    adj = rng.random((n, n)) < 0.05

    def run() -> counting.TransitivityCount:
        return counting.count_transitivity_violations(adj, per_item=True)

    seconds, result = best_time(run, repeat=3)
    memory = peak_mb(run)
    bench = f"transitivity_per_item_n{n}"
    print(
        f"transitivity per-item n={n:,} (density 0.05, {n * (n - 1) * (n - 2):,} triples): "
        f"{result.cases:,} cases, {result.violations:,} violations; "
        f"{seconds:.3f} s (target < 10 s), peak memory {memory:.1f} MB"
    )
    emit(bench, "seconds", seconds, "s", n=n, target="< 10")
    emit(bench, "peak_memory", memory, "MB", n=n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    rng = np.random.default_rng(0)
    bench_order_vs_naive(rng, sizes["order"])
    bench_order_large(rng, sizes["order_large"])
    bench_transitivity(rng, sizes["transitivity"])


if __name__ == "__main__":
    main()
