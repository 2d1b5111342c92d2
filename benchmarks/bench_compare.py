"""Benchmark of ``python -m mtlib.paired``: 2 x 100,000 items over 20 tasks, 10,000 paired bootstrap replicates.

Usage::

    python benchmarks/bench_compare.py            # 20 tasks x 5,000 items per model, n_boot = 10,000
    python benchmarks/bench_compare.py --quick    # 4 tasks x 1,000 items, n_boot = 1,000 (a smoke run)

What it measures, all in this process, on the same data (0/1 metrics, like lm-eval's ``acc``):

1. **engine**: :func:`mtlib.paired.stats.paired_stats` per task (the bootstrap drawn over the kinds of items,
   totals by the counting engine, McNemar, Wilson) and, end to end, :func:`mtlib.paired.compare_runs` from two
   CSV files (reading, pairing, statistics, Holm);
2. **loop, same draws**: a plain numpy loop, one replicate at a time, drawing each replicate's weights from the
   same seeded generator: its replicates must equal the engine's bit for bit, else the script exits 1;
3. **loop, textbook**: the per-replicate loop people write, resampling item indices
   (``rng.integers(0, n, n)``) and taking both means: other draws, the same distribution; its interval is
   printed beside the engine's.

It prints the ratios (the issue's floor: 10x, and under 5 s end to end on 2 cores) and one JSON line per figure.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import emit  # noqa: E402
from mtlib.analysis.paired_tests import group_sums, paired_replicates  # noqa: E402
from mtlib.paired import compare_runs  # noqa: E402
from mtlib.paired.stats import paired_stats  # noqa: E402


def data(tasks: int, n: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per task, two 0/1 vectors: a at 55-75% accuracy, b equal but on 10% of the items."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(tasks):
        a = (rng.random(n) < rng.uniform(0.55, 0.75)).astype(float)
        out.append((a, np.where(rng.random(n) < 0.1, (rng.random(n) < 0.7).astype(float), a)))
    return out


def loop_same_draws(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Replicates of b - a one at a time, each drawn from the engine's generator (one multinomial per replicate)."""
    sums, _ = group_sums(np.arange(a.size), a, np.ones(a.size), b, np.ones(b.size))
    kinds, counts = np.unique(sums, axis=0, return_counts=True)
    rng = np.random.default_rng(seed)
    out = np.empty(n_boot)
    for r in range(n_boot):
        ta, na, tb, nb = rng.multinomial(len(sums), counts / len(sums)).astype(np.int64) @ kinds
        out[r] = tb / nb - ta / na
    return out


def loop_textbook(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """The usual per-replicate loop: resample item indices, take both means."""
    rng = np.random.default_rng(seed)
    out = np.empty(n_boot)
    for r in range(n_boot):
        idx = rng.integers(0, a.size, a.size)
        out[r] = b[idx].mean() - a[idx].mean()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 tasks x 1,000 items, 1,000 replicates")
    args = parser.parse_args()
    tasks, n, n_boot = (4, 1000, 1000) if args.quick else (20, 5000, 10_000)
    runs = data(tasks, n)
    print(
        f"{tasks} tasks x {n:,} items per model ({tasks * n:,} items), {n_boot:,} replicates, "
        f"{os.cpu_count()} CPUs visible (shared with other jobs: ratios measured in this run)"
    )

    paired_stats(np.arange(n), runs[0][0], np.ones(n), runs[0][1], np.ones(n), n_boot=10)  # imports scipy: not timed
    start = time.perf_counter()
    rows = [paired_stats(np.arange(n), a, np.ones(n), b, np.ones(n), n_boot=n_boot, seed=0) for a, b in runs]
    engine = time.perf_counter() - start
    engine_reps = []
    for a, b in runs:
        sums, _ = group_sums(np.arange(n), a, np.ones(n), b, np.ones(n))
        tot = paired_replicates(sums, n_boot, 0)
        engine_reps.append(tot[:, 2] / tot[:, 3] - tot[:, 0] / tot[:, 1])

    start = time.perf_counter()
    same = [loop_same_draws(a, b, n_boot, 0) for a, b in runs]
    t_same = time.perf_counter() - start
    identical = all(np.array_equal(x, y) for x, y in zip(engine_reps, same))

    start = time.perf_counter()
    textbook = [loop_textbook(a, b, n_boot, 0) for a, b in runs]
    t_text = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as tmp:
        for k, name in enumerate(("a", "b")):
            pd.DataFrame(
                {
                    "task": np.repeat([f"task{t:02d}" for t in range(tasks)], n),
                    "id": np.tile(np.arange(n), tasks),
                    "acc": np.concatenate([r[k] for r in runs]).astype(int),
                }
            ).to_csv(Path(tmp) / f"{name}.csv", index=False)
        start = time.perf_counter()
        table = compare_runs(Path(tmp) / "a.csv", Path(tmp) / "b.csv", n_boot=n_boot).table
        t_end = time.perf_counter() - start
    assert np.allclose(table["diff_low"].to_numpy(), [r["diff_low"] for r in rows])

    print(f"engine (statistics of {tasks} tasks):           {engine:8.3f} s")
    print(
        f"loop, the same draws one at a time:         {t_same:8.3f} s  ({t_same / engine:,.0f}x the engine); "
        f"replicates identical: {identical}"
    )
    print(f"loop, textbook index resampling:            {t_text:8.3f} s  ({t_text / engine:,.0f}x the engine)")
    print(f"end to end, compare_runs from two CSV files: {t_end:8.3f} s (target < 5 s on 2 cores)")
    lo_e, hi_e = np.quantile(engine_reps[0], [0.025, 0.975])
    lo_t, hi_t = np.quantile(textbook[0], [0.025, 0.975])
    print(f"task00 interval: engine [{lo_e:+.4f}, {hi_e:+.4f}], textbook loop [{lo_t:+.4f}, {hi_t:+.4f}]")
    emit("compare", "engine_s", engine, "s", tasks=tasks, items=tasks * n, n_boot=n_boot)
    emit("compare", "ratio_same_draws_loop", t_same / engine, "x", identical=identical)
    emit("compare", "ratio_textbook_loop", t_text / engine, "x")
    emit("compare", "end_to_end_s", t_end, "s")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
