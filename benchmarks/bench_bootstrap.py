"""Benchmark of notebook 03's transitivity bootstrap: replicates counted together against one product each.

Usage::

    python benchmarks/bench_bootstrap.py                      # n = 1,604 words, density 0.181, n_boot = 1,000
    python benchmarks/bench_bootstrap.py --adj syn.npy hyp.npy  # real prediction matrices (n x n bool, np.save)
    python benchmarks/bench_bootstrap.py --quick              # n = 400, n_boot = 100 (a smoke run)

What it measures, all in this process, on the same seeded weights:

1. **baseline**: the bootstrap as it was, one weighted exact count per
   replicate (``count_transitivity_violations(adj, weights=w)``: an
   ``n x n x n`` product each, 4.1 billion multiply-adds at n = 1,604);
2. **host**: :func:`mtlib.relations.replicates.transitivity_replicates` with
   numpy (what a CPU run of notebook 03 uses);
3. **torch-cpu**: the same algebra in torch on the CPU (what a GPU run uses,
   on a GPU).

The replicates must be identical (every integer count equal), else the
script exits 1. It prints the ratio baseline / host (the issue's floor is
3x at n_boot = 1,000 on 2 cores) and one JSON line per figure.

The default matrices are random with the size and positive share of
CogALex-VI English under the quick models (1,604 words; 18.1% of ordered
pairs predicted synonyms, 17.2% hypernyms, as measured from the real profile's
frozen MiniLM heads). Real matrices can be passed with ``--adj``: a
prediction matrix of notebook 03 (``adjacency["minilm", "english"]["syn"]``),
saved with ``np.save``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import emit  # noqa: E402
from mtlib.relations import bootstrap, counting, replicates  # noqa: E402

DENSITIES = {"syn": 0.181, "hyp": 0.172}


def synthetic(n: int, density: float, seed: int) -> np.ndarray:
    """An ``(n, n)`` bool matrix with a share ``density`` of True off the diagonal."""
    adj = np.random.default_rng(seed).random((n, n)) < density
    np.fill_diagonal(adj, False)
    return adj


def per_replicate(adj: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The baseline: one exact weighted count per replicate."""
    counts = [counting.count_transitivity_violations(adj, per_item=False, weights=w) for w in weights]
    return np.array([c.violations for c in counts]), np.array([c.cases for c in counts])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adj", nargs="*", default=[], help="real prediction matrices (.npy, n x n bool)")
    parser.add_argument("--n", type=int, default=1604, help="words of the synthetic matrices")
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="n = 400, n_boot = 100")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch-cpu figure")
    args = parser.parse_args()
    n, n_boot = (400, 100) if args.quick else (args.n, args.n_boot)
    if args.adj:
        matrices = {os.path.basename(p): np.load(p).astype(bool) for p in args.adj}
    else:
        matrices = {f"{rel} (synthetic, d={d})": synthetic(n, d, i) for i, (rel, d) in enumerate(DENSITIES.items())}
    print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, cpus={os.cpu_count()}")
    if not args.no_torch:
        import torch  # imported before the clock starts: the figure is the counting, not the import

        torch.zeros(1)
    ok = True
    for name, adj in matrices.items():
        weights = bootstrap.bootstrap_weights(len(adj), n_boot, args.seed)
        start = time.perf_counter()
        base_v, base_c = per_replicate(adj, weights)
        base = time.perf_counter() - start
        start = time.perf_counter()
        host = replicates.transitivity_replicates(adj, weights)
        host_s = time.perf_counter() - start
        same = np.array_equal(host.violations, base_v) and np.array_equal(host.cases, base_c)
        line = (
            f"{name}: n={len(adj)}, density {adj.mean():.3f}, n_boot={n_boot}: per-replicate {base:.2f} s, "
            f"batched host {host_s:.2f} s ({base / host_s:.1f}x)"
        )
        dev_s = None
        if not args.no_torch:
            start = time.perf_counter()
            dev = replicates.transitivity_replicates(adj, weights, device="cpu")
            dev_s = time.perf_counter() - start
            same = same and np.array_equal(dev.violations, base_v) and np.array_equal(dev.cases, base_c)
            line += f", torch-cpu {dev_s:.2f} s ({base / dev_s:.1f}x)"
        print(line + (", replicates identical" if same else ", REPLICATES DIFFER"))
        emit("bootstrap", f"{name}/per_replicate", base, "s", n=len(adj), n_boot=n_boot)
        emit("bootstrap", f"{name}/host", host_s, "s", n=len(adj), n_boot=n_boot)
        emit("bootstrap", f"{name}/speedup_host", base / host_s, "x", identical=bool(same))
        if dev_s is not None:
            emit("bootstrap", f"{name}/torch_cpu", dev_s, "s", n=len(adj), n_boot=n_boot)
        ok = ok and same
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
