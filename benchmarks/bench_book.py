"""Course book build time (``make book``) against issue 44's budget: under 3 minutes on 2 cores once the run exists.

The book is built from ``papermill_runs/<profile>/`` (default: quick) as ``python -m mtrun.book`` builds it,
in a fresh process (imports included) into a new temporary folder (no sources, no doctrees), ``--repeats``
times. The figures are the median wall time and its ratio to the 180-s budget, one JSON line each after a
readable line. A profile without a run is reported and skipped (exit 0): ``make reproduce`` or ``make book``
makes the quick run first.

Usage: ``python benchmarks/bench_book.py [--profile quick] [--repeats 1] [--jobs 1]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools" / "mtrun")]  # mtlib and the runner beside it

from benchmarks._common import emit, timed  # noqa: E402
from mtrun.book import has_run  # noqa: E402

#: Issue 44: once the quick run exists, the book builds in under 3 minutes on 2 cores.
BUDGET_S = 180.0


def _build(profile: str, build: Path, jobs: int) -> float:
    cmd = [sys.executable, "-m", "mtrun.book", "--profile", profile, "--build-dir", str(build)]
    cmd += ["--jobs", str(jobs)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tools" / "mtrun")]))
    _, seconds = timed(lambda: subprocess.run(cmd, check=True, cwd=ROOT, env=env, capture_output=True))
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="Sphinx processes")
    args = parser.parse_args()
    if not has_run(ROOT, args.profile, ROOT):
        print(f"bench_book: no {args.profile} run in papermill_runs/{args.profile}/: skipped (make book makes it)")
        emit("book", "skipped", 0.0, "", profile=args.profile)
        return
    times, pages = [], 0
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="mtlib-book-bench-") as tmp:
            build = Path(tmp) / "build"
            times.append(_build(args.profile, build, args.jobs))
            pages = sum(1 for _ in (build / "html").rglob("*.html"))
    cold = statistics.median(times)
    print(
        f"book of the {args.profile} run ({pages} HTML files, {os.cpu_count()} cores, jobs {args.jobs}): "
        f"{cold:.1f} s (median of {args.repeats}), {cold / BUDGET_S:.2f} of the {BUDGET_S:.0f}-s budget"
    )
    emit("book", "build", round(cold, 2), "s", profile=args.profile, jobs=args.jobs, pages=pages, runs=times)
    emit("book", "build_over_budget", round(cold / BUDGET_S, 3), "ratio", budget_s=BUDGET_S)


if __name__ == "__main__":
    main()
