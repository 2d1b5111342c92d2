"""Hostile tree files: time and peak memory until the SST loader answers.

Two files from issue 13, written to a temporary folder: one line of
``--mb`` megabytes of ``(`` (a runaway line), and one tree nested
``--depth`` levels (``(1 (1 ... (1 w) ...)))``). Each is loaded by
:func:`mtlib.data.sst.load_sst_trees` in a fresh subprocess (so peak RSS is
the case's own), with this checkout's ``mtlib``; with ``--before PATH`` the
same cases also run with the ``mtlib`` of another checkout (e.g. main's, in
a worktree) in the same run, and the ratios before/after are printed.

Also a reference case: the bundled ``data/trees/train.txt`` (well-formed), to
show the normal cost is unchanged.

Prints one line per case and one JSON line per figure. Timings on a loaded
machine are inflated; ratios within one run are the figure to compare.

Usage: ``python benchmarks/bench_bad_trees.py [--mb 50] [--depth 5000] [--before /tmp/base-inputs]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import json, resource, sys, time
t = time.perf_counter()
outcome = "loaded"
try:
    from mtlib.data.sst import load_sst_trees
    load_sst_trees(sys.argv[1], binary=False)
except RecursionError as err:
    outcome = "RecursionError"
except Exception as err:
    outcome = type(err).__name__ + ": " + str(err)[:150]
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "outcome": outcome}))
"""


def run_case(code_root: Path, path: Path, timeout: float) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path.resolve())],
            env=env,
            capture_output=True,
            text=True,
            cwd=code_root,
            timeout=timeout,
        )
        return json.loads(done.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return {"seconds": timeout, "peak_mb": float("nan"), "outcome": f"timeout after {timeout:.0f} s"}
    except (IndexError, ValueError):
        return {"seconds": float("nan"), "peak_mb": float("nan"), "outcome": f"crashed: {done.stderr[-200:]}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=50, help="megabytes of '(' on one line")
    parser.add_argument("--depth", type=int, default=5000, help="nesting of the deep tree")
    parser.add_argument("--before", type=Path, help="another checkout whose mtlib runs the same cases")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per case")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        runaway = Path(tmp) / "runaway.txt"
        runaway.write_bytes(b"(" * (args.mb << 20) + b"\n")
        deep = Path(tmp) / "deep.txt"
        deep.write_text("(1 " * args.depth + "w" + ")" * args.depth + "\n")
        cases = {
            f"{args.mb} MB of '('": runaway,
            f"tree nested {args.depth} levels": deep,
            "bundled train.txt": ROOT / "data" / "trees" / "train.txt",
        }
        roots = {"after": ROOT, **({"before": args.before.resolve()} if args.before else {})}
        for case, path in cases.items():
            results = {label: run_case(root, path, args.timeout) for label, root in roots.items()}
            for label, r in results.items():
                print(f"{case:28s} {label:6s} {r['seconds']:8.2f} s  peak {r['peak_mb']:8.0f} MB  {r['outcome']}")
                print(json.dumps({"figure": "bad_trees", "case": case, "code": label, **r}))
            if "before" in results:
                b, a = results["before"], results["after"]
                print(
                    f"{case:28s} before/after: time {b['seconds'] / a['seconds']:.1f}x, "
                    f"peak memory {b['peak_mb'] / a['peak_mb']:.1f}x"
                )
                print(
                    json.dumps(
                        {
                            "figure": "bad_trees_ratio",
                            "case": case,
                            "time_ratio": b["seconds"] / a["seconds"],
                            "memory_ratio": b["peak_mb"] / a["peak_mb"],
                        }
                    )
                )


if __name__ == "__main__":
    main()
