"""Lexical-relation prediction matrix: matrix form vs calling the head on every pair.

Notebook 03 needs the n x n Boolean predictions of a logistic head on pair
features [u, v, |u-v|, u*v] for a whole vocabulary. mtlib folds the head into
row, column and bilinear terms plus a blocked |u-v| term; the baseline builds
the pair features of all n(n-1) ordered pairs in blocks and calls the head
(the best direct approach, already vectorised). Both are timed in this
process on n = 2,000 random word vectors of width 384, their outputs compared,
and the exhaustive transitivity count of the result timed too.

Usage: ``python benchmarks/bench_lexical.py [--n 2000] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import tracemalloc

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="n = 300")
    args = parser.parse_args()
    os.environ["MTLIB_CACHE"] = tempfile.mkdtemp(prefix="mtlib-bench-cache-")
    # imported once the cache folder is set
    from mtlib.models import classifier, pair_features, pair_probability_matrix
    from mtlib.relations import count_transitivity_violations

    n, d = (300 if args.quick else args.n), 384
    rng = np.random.default_rng(0)
    W = rng.normal(size=(n, d)).astype(np.float32)
    i, j = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    X = pair_features(W[i], W[j])
    y = X[:, :d] @ rng.normal(size=d) + np.abs(X[:, 2 * d : 3 * d]) @ rng.normal(size=d) > 1.0
    head = classifier(X, y, how="head", seed=0, use_cache=False)  # a head on the feature matrix

    tracemalloc.start()
    start = time.perf_counter()
    fast = pair_probability_matrix(head, W) > 0.5
    t_fast = time.perf_counter() - start
    peak_fast = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()

    start = time.perf_counter()
    slow = np.zeros((n, n), dtype=bool)
    rows = max(1, 200_000 // n)
    for lo in range(0, n, rows):
        block = np.arange(lo, min(n, lo + rows))
        a, b = np.repeat(block, n), np.tile(np.arange(n), len(block))
        slow[a, b] = head.score(pair_features(W[a], W[b]), True) > 0.5
    np.fill_diagonal(slow, False)
    t_slow = time.perf_counter() - start
    disagree = int((fast != slow).sum())
    assert disagree <= max(1, n * n // 10**6), f"{disagree} pairs differ"

    start = time.perf_counter()
    res = count_transitivity_violations(fast, per_item=True)
    t_count = time.perf_counter() - start
    print(
        f"prediction matrix n={n}: matrix form {t_fast:.2f} s (peak {peak_fast:.0f} MB) vs head on every pair "
        f"{t_slow:.2f} s: {t_slow / t_fast:.1f}x; {disagree} of {n * n:,} predictions differ (float rounding at "
        f"the threshold); exhaustive count of {n * (n - 1) * (n - 2):,} triples {t_count:.2f} s "
        f"({res.cases:,} cases)"
    )
    for figure, value, unit in (
        ("matrix_form_seconds", t_fast, "s"),
        ("pairwise_head_seconds", t_slow, "s"),
        ("speedup", t_slow / t_fast, "x"),
        ("matrix_form_peak_memory", peak_fast, "MB"),
        ("exhaustive_count_seconds", t_count, "s"),
    ):
        print(json.dumps({"bench": f"lexical_n{n}", "figure": figure, "value": value, "unit": unit, "n": n}))


if __name__ == "__main__":
    main()
