"""ONNX backend benchmark: ``embed`` on onnxruntime (fp32) against torch, same model, same process.

Encodes 2,000 sentences of mixed length (built from the bundled reviews by
``_common.mixed_sentences``, as in ``bench_inference.py``) with ``minilm`` (all-MiniLM-L6-v2) at one CPU thread,
through mtlib's own path (length-sorted, token-budget batches, no disk cache)
on each backend: ``models.build(..., backend="torch")`` and
``backend="onnx"``. The rounds are interleaved (torch first in even rounds,
ONNX first in odd ones) and the figures are medians, so a load change on the
machine hits both sides alike. Prints:

1. ONNX vs torch encode time (target >= 1.8x at 1 thread);
2. the largest |Δ cosine| between the two backends: over every pair of
   sentences, |cos_torch(i, j) - cos_onnx(i, j)| (what a relation sees), and
   per sentence 1 - cos(torch_i, onnx_i) (target <= 1e-5 for both);
3. the one-off export time (trace, write, check against torch);
4. with ``--st``, sentence-transformers' own ``encode(batch_size=32)`` in the same rounds, for reference.

One JSON line per figure follows the human-readable line.

Usage: ``python benchmarks/bench_onnx.py [--n 2000] [--threads 1] [--rounds 3] [--st] [--quick]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import bench_environment, length_summary, mixed_sentences, timed  # noqa: E402
from benchmarks._common import emit as emit_figure  # noqa: E402

emit = partial(emit_figure, "onnx")


def pairwise_cosine_gap(a: np.ndarray, b: np.ndarray) -> float:
    """max over pairs (i, j) of |cos(a_i, a_j) - cos(b_i, b_j)|, in float64; a, b of shape (n, d)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    return float(np.abs(a @ a.T - b @ b.T).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="number of sentences (default 2000)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads of torch and onnxruntime (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (default 3; medians)")
    parser.add_argument("--st", action="store_true", help="also time sentence-transformers' encode in each round")
    parser.add_argument("--quick", action="store_true", help="200 sentences, for a fast check")
    args = parser.parse_args()
    n = 200 if args.quick else args.n
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    bench_environment()
    import torch

    torch.set_num_threads(args.threads)
    from mtlib import models
    from mtlib.models.inference.backends import cosine_gap

    texts = mixed_sentences(n)
    resolved = models.resolve("minilm")
    on_torch = models.build(resolved, device="cpu", use_cache=False, backend="torch")
    on_onnx = models.build(resolved, device="cpu", use_cache=False, backend="onnx")
    encoder, t_export = timed(lambda: on_onnx.onnx)
    print(
        f"{length_summary(texts)}; torch threads {torch.get_num_threads()}, onnxruntime intra-op threads "
        f"{encoder.threads}; {args.rounds} rounds"
    )
    on_torch.embed(texts[:64])  # warm-up of kernels, allocator and session
    on_onnx.embed(texts[:64])
    times: dict[str, list[float]] = {"torch": [], "onnx": [], "st": []}
    runs = {
        "torch": lambda: on_torch.embed(texts),
        "onnx": lambda: on_onnx.embed(texts),
        "st": lambda: on_torch.st.encode(texts, batch_size=32),
    }
    outputs: dict[str, np.ndarray] = {}
    for r in range(args.rounds):
        order = ["torch", "onnx"] if r % 2 == 0 else ["onnx", "torch"]
        for name in order + (["st"] if args.st else []):
            outputs[name], seconds = timed(runs[name])
            times[name].append(seconds)
    t_torch, t_onnx = statistics.median(times["torch"]), statistics.median(times["onnx"])
    ratio = t_torch / t_onnx
    pair_gap = pairwise_cosine_gap(outputs["torch"], outputs["onnx"])
    self_gap = cosine_gap(outputs["torch"], outputs["onnx"])
    max_abs = float(np.abs(outputs["torch"] - outputs["onnx"]).max())

    print(
        f"ONNX encode {t_onnx:.2f} s vs torch {t_torch:.2f} s (medians of {args.rounds}): {ratio:.2f}x "
        f"(target >= 1.8 at 1 thread)"
    )
    common = {"n": n, "threads": args.threads, "rounds": args.rounds}
    emit(
        "onnx_vs_torch_encode",
        ratio,
        "x",
        target=">= 1.8",
        torch_s=t_torch,
        onnx_s=t_onnx,
        torch_runs=times["torch"],
        onnx_runs=times["onnx"],
        **common,
    )
    print(
        f"largest |Δ cosine| torch vs ONNX: {pair_gap:.3g} over all {n * (n - 1) // 2} sentence pairs, "
        f"{self_gap:.3g} as 1 - cos of a sentence's two vectors (target <= 1e-5); largest |Δ| of a coordinate "
        f"{max_abs:.3g}"
    )
    gaps = {"self_1_minus_cos": self_gap, "max_abs_diff": max_abs}
    emit("max_abs_delta_cosine", pair_gap, "", target="<= 1e-5", **gaps, **common)
    print(f"one-off export (trace, check against torch; no disk cache here): {t_export:.1f} s")
    emit("export_seconds", t_export, "s", **common)
    if args.st:
        t_st = statistics.median(times["st"])
        print(f"  for reference: sentence-transformers encode(batch_size=32) {t_st:.2f} s: ONNX {t_st / t_onnx:.2f}x")
        emit("onnx_vs_sentence_transformers_encode", t_st / t_onnx, "x", st_s=t_st, st_runs=times["st"], **common)


if __name__ == "__main__":
    main()
