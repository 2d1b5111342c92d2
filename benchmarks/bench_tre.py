"""Batched TRE against the per-sentence recursive approach, same steps, same initialisation.

Notebook 06 fits one primitive per word type to every sentence vector at
once. The baseline is the approach of the reference TRE implementation
(Andreas 2019), extended to trees: each step composes every tree
recursively in Python, sums the per-sentence losses and takes one RMSProp
step (``fit_tre_reference`` in ``tests/unit/analysis/tre_reference.py``). Both are timed in this process on
the first 2,000 sentences of the bundled treebank with random target vectors
of width 384 (the encoder does not matter for the optimisation), for
additive composition (one sparse product in the batched version), and on
the first 200 for the learned linear composition (one matrix product per tree
level; its cost is dominated by the d x 2d products at every node, which the
reference pays too, so the ratio is smaller and the reference too slow for
2,000 sentences). Both run in float64 so the comparison of the final
per-sentence TRE tests the computation, not rounding: in float32 RMSProp's
first steps (g / sqrt(mean g^2)) turn rounding noise in near-zero gradients
into full-size updates.

The per-sentence baseline costs about 417 s on 2,000 sentences (2 cores), so by
default it runs on the first ``--reference-n`` (200) sentences only and its
time on ``n`` is extrapolated by node count (its cost is one Python recursion
per node), and the printed line says so. That is a lower bound: the
baseline's cost grows faster than its nodes (in runs here about 0.15-0.28 ms
per node at 200 and 400 sentences, 0.52 ms at 800, and 8.1 ms in a full run
on 2,000 that took 417 s), so the printed ratio understates the speed-up. The agreement of the
two fits is checked on those same sentences (a TRE fit is joint over its
sentences, so both fit the subset for that). ``--reference-n 0`` times the
baseline on all ``n``.

Both run on one CPU thread. Prints one line per composition and one JSON line per figure.

Usage: ``python benchmarks/bench_tre.py [--n 2000] [--linear-n 200] [--reference-n 200] [--steps 2] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the naive reference lives with the tests

from mtlib.analysis.tree_reconstruction import fit_tre  # noqa: E402
from mtlib.data.trees import parse_tree  # noqa: E402
from tests.unit.analysis.tre_reference import fit_tre_reference  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="sentences")
    parser.add_argument("--linear-n", type=int, default=200, help="sentences for the linear composition")
    parser.add_argument(
        "--reference-n", type=int, default=200, help="sentences the baseline runs on (0: all), extrapolated to n"
    )
    parser.add_argument("--steps", type=int, default=2, help="RMSProp steps of both fits")
    parser.add_argument("--dtype", default="float64", help="float64 (default) or float32")
    parser.add_argument("--dim", type=int, default=384, help="width of the target vectors")
    parser.add_argument("--quick", action="store_true", help="n = 200")
    args = parser.parse_args()
    import torch

    n = 200 if args.quick else args.n
    sizes = {"add": n, "linear": min(n, args.linear_n)}
    lines = [
        ln
        for split in ("train", "dev", "test")
        for ln in (ROOT / "data" / "trees" / f"{split}.txt").read_text().splitlines()
    ]
    if len(lines) < n:
        raise SystemExit(f"the bundled treebank has {len(lines)} sentences, fewer than --n {n}")
    all_trees = [parse_tree(ln) for ln in lines[:n]]
    all_targets = np.random.default_rng(0).normal(size=(n, args.dim))
    kw = dict(steps=args.steps, lr=0.01, init_scale=1.0, seed=0, dtype=args.dtype)
    torch.set_num_threads(1)  # both versions: small operations, and a fair comparison on a shared machine
    fit_tre(all_trees[:5], all_targets[:5], steps=1)  # warm torch up outside the timings
    for composition, n in sizes.items():
        trees, targets = all_trees[:n], all_targets[:n]
        m = n if args.reference_n <= 0 else min(n, args.reference_n)
        nodes, ref_nodes = (sum(sum(1 for _ in t.subtrees()) for t in trees[:k]) for k in (n, m))
        start = time.perf_counter()
        fast = fit_tre(trees, targets, composition=composition, **kw).train_tre
        t_fast = time.perf_counter() - start
        if m < n:  # the joint fit of the subset, to compare with the baseline on the same sentences
            fast = fit_tre(trees[:m], targets[:m], composition=composition, **kw).train_tre
        start = time.perf_counter()
        slow = fit_tre_reference(trees[:m], targets[:m], composition=composition, **kw)
        t_slow = (time.perf_counter() - start) * nodes / ref_nodes
        gap = float(np.abs(fast - slow).max())
        how = (
            "" if m == n else f" (at least: extrapolated linearly by node count from {m} sentences, {ref_nodes} nodes)"
        )
        print(
            f"{composition}: {n} sentences ({nodes} nodes), {args.steps} steps: batched {t_fast:.2f} s, "
            f"per-sentence recursive {t_slow:.2f} s{how}, ratio {'at least ' if m < n else ''}{t_slow / t_fast:.0f}x; "
            f"max |TRE gap| {gap:.2e} "
            f"on {m} sentences ({'equal to 1e-4' if gap <= 1e-4 else 'NOT equal to 1e-4'})",
            flush=True,
        )
        for figure, value, unit in (
            ("speedup", t_slow / t_fast, "x"),
            ("batched_seconds", t_fast, "s"),
            ("reference_seconds", t_slow, "s"),
            ("max_tre_gap", gap, "1-cos"),
        ):
            print(
                json.dumps(
                    {
                        "bench": f"tre_{composition}_n{n}",
                        "figure": figure,
                        "value": value,
                        "unit": unit,
                        "n": n,
                        "reference_n": m,
                        "reference_extrapolated": m < n,  # linearly by nodes: a lower bound
                        "steps": args.steps,
                        "dim": args.dim,
                        "dtype": args.dtype,
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
