"""Causal LM benchmark: SmolLM2-135M-Instruct (``smollm2-135m``) scoring prompts, in one run.

Measured on this machine, in one process started fresh (so its peak memory is the model's):

1. load: seconds to load ``smollm2-135m`` (GGUF, dequantised to fp32) and the process's peak resident memory
   before and after;
2. prompts per second, mtlib's batched path (length-sorted, left-padded, one forward pass per batch, the
   shared prefix's key/value cache) against a loop of one prompt per forward pass (its whole prompt, no
   batching) on the bundled reviews, zero-shot — floor 5x;
3. prefix reuse against none on 4-shot prompts, both batched — floor 2x.

Scores are checked equal across the methods (to 1e-3 in fp32) before any figure is printed. One JSON line per
figure follows the human-readable line. ``--device cuda`` measures on a GPU (``bench_gpu.py``'s machine).

Usage: ``python benchmarks/bench_llm.py [--n 48] [--n-shot 64] [--device cpu]``
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import bench_environment, timed  # noqa: E402
from benchmarks._common import emit as emit_figure  # noqa: E402

T = TypeVar("T")
#: Where the figures were measured (set in :func:`main`).
WHERE: dict[str, str] = {}
FLOOR_BATCHED, FLOOR_PREFIX = 5.0, 2.0


def emit(figure: str, value: float, unit: str, **extra: object) -> None:
    """One JSON line of this benchmark, naming the device."""
    emit_figure("llm", figure, value, unit, **extra, **WHERE)


def clocked(fn: Callable[[], T]) -> tuple[T, float, float]:
    """``fn()``, its wall-clock seconds and this process's CPU seconds (all threads).

    On a machine shared with other jobs the wall clock measures the neighbours too; the CPU seconds measure
    the work done, so both ratios are reported.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def peak_mb() -> float:
    """This process's peak resident memory so far, MB (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=48, help="reviews scored zero-shot by each method")
    parser.add_argument("--n-shot", type=int, default=64, help="reviews scored 4-shot with and without reuse")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    bench_environment()
    import torch

    from mtlib.data.sst import load_reviews
    from mtlib.models.inference.numerics import device_name
    from mtlib.models.inference.prompts import TEMPLATES, fill, plan
    from mtlib.models.loading import build
    from mtlib.models.weights.resolve import resolve

    WHERE.update(device=args.device, device_name=device_name(args.device), threads=str(torch.get_num_threads()))
    before = peak_mb()
    lm, seconds = timed(lambda: build(resolve("smollm2-135m"), args.device, use_cache=False))
    after = peak_mb()
    print(f"load: {seconds:.1f} s; peak resident memory {before:.0f} MB before, {after:.0f} MB after")
    emit("load_seconds", round(seconds, 2), "s")
    emit("peak_rss_mb", round(after, 1), "MB", before=round(before, 1))

    reviews = load_reviews()
    template = TEMPLATES["sentiment"]
    texts = reviews["text"].tolist()[: args.n]
    queries = [fill(template, t, None) for t in texts]
    zero = plan(template, lm.tokenizer, [0, 1])
    lm.calls = 0
    batched, t_batched, c_batched = clocked(lambda: lm.score_queries(zero, queries))
    batched_calls = lm.calls

    def one_at_a_time() -> np.ndarray:
        lm.reuse_prefix, size = False, lm.batch_size
        lm.batch_size = 1
        try:
            return np.concatenate([lm.score_queries(zero, [q]) for q in queries])
        finally:
            lm.reuse_prefix, lm.batch_size = True, size

    single, t_single, c_single = clocked(one_at_a_time)
    gap = float(np.abs(batched - single).max())
    assert gap < 1e-3, f"batched and one-at-a-time scores differ by {gap}"
    ratio = t_single / t_batched
    print(
        f"zero-shot, {len(queries)} reviews, prefix {len(zero.prefix)} tokens: batched {len(queries) / t_batched:.1f} "
        f"prompts/s ({batched_calls} forward passes), one at a time {len(queries) / t_single:.1f} prompts/s: "
        f"{ratio:.1f}x (floor {FLOOR_BATCHED:.0f}x; in CPU seconds {c_single / c_batched:.1f}x; scores agree to "
        f"{gap:.1e})"
    )
    emit("batched_prompts_per_s", round(len(queries) / t_batched, 2), "prompts/s", n=len(queries))
    emit("single_prompts_per_s", round(len(queries) / t_single, 2), "prompts/s", n=len(queries))
    emit("batched_vs_single", round(ratio, 2), "x", floor=FLOOR_BATCHED, cpu_ratio=round(c_single / c_batched, 2))

    pool = reviews.iloc[args.n : args.n + 40]  # shots from outside the scored reviews
    shots = [(t, None, int(y)) for t, y in zip(pool["text"], pool["label"])][:4]
    four = plan(template, lm.tokenizer, [0, 1], shots=shots)
    shot_queries = queries[: args.n_shot]
    reused, t_reused, c_reused = clocked(lambda: lm.score_queries(four, shot_queries))
    lm.reuse_prefix = False
    full, t_full, c_full = clocked(lambda: lm.score_queries(four, shot_queries))
    lm.reuse_prefix = True
    gap = float(np.abs(reused - full).max())
    assert gap < 1e-3, f"scores with and without the prefix's cache differ by {gap}"
    ratio = t_full / t_reused
    print(
        f"4-shot, {len(shot_queries)} reviews, prefix {len(four.prefix)} tokens: prefix reused "
        f"{len(shot_queries) / t_reused:.1f} prompts/s, whole prompts {len(shot_queries) / t_full:.1f} prompts/s: "
        f"{ratio:.1f}x (floor {FLOOR_PREFIX:.0f}x; in CPU seconds {c_full / c_reused:.1f}x; "
        f"scores agree to {gap:.1e})"
    )
    n = len(shot_queries)
    emit("four_shot_reused_prompts_per_s", round(n / t_reused, 2), "prompts/s", n=n)
    emit("four_shot_full_prompts_per_s", round(n / t_full, 2), "prompts/s", n=n)
    emit(
        "prefix_reuse_vs_none",
        round(ratio, 2),
        "x",
        floor=FLOOR_PREFIX,
        cpu_ratio=round(c_full / c_reused, 2),
        prefix_tokens=len(four.prefix),
    )


if __name__ == "__main__":
    main()
