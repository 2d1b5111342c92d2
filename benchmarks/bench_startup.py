"""Start-up of the runner's papermill process: plain ``python -m papermill`` against ``mtrun._papermill``.

The runner starts one papermill process per notebook. ``mtrun._papermill``
is papermill's own command line with one unused import skipped
(:mod:`mtrun._startup`: jsonschema's RFC 3987 grammar, built with lark on
import). Both start-ups are timed here in turn, ``--repeats`` times each, on
``--help`` (everything is imported, nothing executes), and the figure is the
ratio of their medians. A check that nbformat still validates a notebook in the
lighter process runs first.

Usage: ``python benchmarks/bench_startup.py [--repeats 7]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools" / "mtrun")]  # mtlib and the runner beside it

from benchmarks._common import emit, timed  # noqa: E402

CHECK = (
    "from mtrun._startup import skip_unused_imports; skip_unused_imports(); import nbformat, sys; "
    "nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1')])); "
    "assert sys.modules.get('rfc3987_syntax') is None"
)


def _start(module: str) -> float:
    cmd = [sys.executable, "-m", module, "--help"]
    _, seconds = timed(lambda: subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT))
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-c", CHECK], check=True, cwd=ROOT)
    plain, ours = [], []
    for _ in range(args.repeats):  # interleaved, so a busy moment hits both
        plain.append(_start("papermill"))
        ours.append(_start("mtrun._papermill"))
    p, o = statistics.median(plain), statistics.median(ours)
    print(f"papermill start-up: plain {p:.2f} s, mtrun._papermill {o:.2f} s (medians of {args.repeats})")
    print(f"ratio plain / ours: {p / o:.2f}x; saved per notebook: {p - o:.2f} s")
    emit("startup", "papermill_startup_ratio", p / o, "x", plain_s=p, ours_s=o, repeats=args.repeats)


if __name__ == "__main__":
    main()
