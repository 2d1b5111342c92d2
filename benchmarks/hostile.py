"""Hostile inputs, by family of issues 36 and 43: each case in its own process, under a time and a memory limit.

Every case (``benchmarks/_hostile_cases.py``) builds its own hostile input in a
fresh folder (invented words only) and calls mtlib's public functions as a
user would: a loader given ``max_nouns=-2``, a relation given no texts, the
runner given ``--out-dir ''``, a tree of 5,000 levels. Each runs in a child
process forked from this one (mtlib imported once, before the fork), with a
wall-clock limit and a limit on its resident memory (watched from here, so a
runaway allocation is stopped before it takes the machine). Its outcome is one of

- ``works``: a well-formed result with finite numbers (for an input that is legitimate, or
  one that may either give a result or be refused);
- ``clear``: an error that is mtlib's own (``DataFormatError``, ``MtlibInputError``, ``SystemExit`` of the
  runner...) or a ``ValueError``/``TypeError``/``OSError`` whose message names the argument, option or file
  (each case gives the words the message must hold);
- ``unclear``: any other exception (a ``RecursionError``, numpy's or Python's own words) or a message that
  names neither the argument nor the file;
- ``silent``: a result where a refusal was due, or a NaN, empty or wrong result reported as a result;
- ``hang``: past the time limit or the memory limit;
- ``lost``: an output that existed before the case is gone or changed;
- ``insecure``: a file outside the data folder (or the output folder) was read or written.

Each case also names the outcome wanted once issue 36 is fixed (``either``: a result or a clear refusal,
for arbitrary file content); the cases that miss it are printed with their detail. The family ``last-mile``
holds issue 43's classes of input (blank texts, predictions files that are not what they say, booleans, a
model call that hangs, messages that must name the line or the parameter, negative seeds, a kernel killed by
SIGTERM, a damaged metrics.json, runaway lines, a deep bracketing, a scheduler answering garbage); the family
``round-five`` (``benchmarks/_hostile_round5.py``) issue 49's: the statistics' own arguments, one exit code per
fault of the suite command, JUnit when CI cancels, seeds, the runner's raw tracebacks.

Usage::

    python benchmarks/hostile.py [--json out.json] [--code CHECKOUT] [--family paths] [--case cogalex]
                                 [--timeout 60] [--memory-mb 2500] [--list]

``--code`` tests another checkout's ``mtlib`` (e.g. the base commit, to get the "before" column) with the
cases of this file; without it, the ``mtlib`` of the checkout this file is in. The table printed at the
end counts the outcomes per family and in all (cases / works / clear / unclear / silent / hang / lost /
insecure); ``--json`` also writes every case's outcome and detail.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil

HERE = Path(__file__).resolve().parent
OUTCOMES = ("works", "clear", "unclear", "silent", "hang", "lost", "insecure")


def _prepare(code: Path) -> None:
    """Put ``code``'s mtlib first on the path (here and in every process a case starts) and import it."""
    sys.path[:0] = [str(code), str(code / "tools" / "mtrun")]
    sys.path.insert(0, str(HERE))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(code), str(code / "tools" / "mtrun"), os.environ.get("PYTHONPATH", "")) if p
    )
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["MTLIB_PROGRESS"] = "0"
    os.environ["MPLBACKEND"] = "Agg"
    os.environ["OMP_NUM_THREADS"] = "1"
    import warnings

    warnings.simplefilter("ignore")
    import mtlib

    if Path(mtlib.__file__).resolve().parents[1] != code.resolve():
        raise SystemExit(f"imported mtlib from {mtlib.__file__}, not from {code}")
    # the wings every family uses, imported once before the forks (each case starts in milliseconds)
    for name in (
        "torch",
        "nbformat",
        "matplotlib.pyplot",
        "mtlib.data",
        "mtlib.relations",
        "mtlib.suite",
        "mtrun",
        "mtrun.cli",
        "mtlib.run.results",
        "mtlib.experiments.montague",
        "mtlib.experiments.tre",
        "mtlib.analysis.tree_reconstruction",
    ):
        __import__(name)


def _child(case: Any, folder: str, conn: Any) -> None:
    """Run one case in the forked process and send ``(outcome, detail)`` back."""
    import torch

    torch.set_num_threads(1)
    os.chdir(folder)
    os.environ["MTLIB_CACHE"] = str(Path(folder) / "cache")
    try:
        outcome, detail = case.fn(Path(folder))
    except BaseException as err:  # noqa: BLE001 - a case that cannot even run is itself an unclear outcome
        outcome, detail = "unclear", f"the case raised {type(err).__name__}: {str(err)[:200]}"
    conn.send((outcome, str(detail)[:400]))
    conn.close()
    os._exit(0)


def run_case(case: Any, timeout: float, memory_mb: float, tmp: Path) -> tuple[str, str, float]:
    """``(outcome, detail, seconds)`` of one case in a forked child, stopped past ``timeout`` or ``memory_mb``."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    folder = tempfile.mkdtemp(prefix="case-", dir=tmp)
    proc = ctx.Process(target=_child, args=(case, folder, child), daemon=True)
    start = time.monotonic()
    proc.start()
    child.close()
    watched = psutil.Process(proc.pid)
    outcome: tuple[str, str] | None = None
    while outcome is None:
        if parent.poll(0.05):
            try:
                outcome = parent.recv()
            except EOFError:
                outcome = ("unclear", "the case's process ended without an answer")
            break
        if not proc.is_alive():
            if parent.poll(0.2):
                continue
            outcome = ("unclear", f"the case's process died (exit code {proc.exitcode})")
            break
        try:
            family = [watched, *watched.children(recursive=True)]
            rss = sum(p.memory_info().rss for p in family) / 2**20
        except psutil.Error:
            rss = 0.0
        if rss > memory_mb:
            outcome = ("hang", f"over {memory_mb:.0f} MB of memory after {time.monotonic() - start:.1f} s")
        elif time.monotonic() - start > timeout:
            outcome = ("hang", f"no answer within {timeout:.0f} s")
    seconds = time.monotonic() - start
    if proc.is_alive():
        try:
            for p in [*watched.children(recursive=True), watched]:
                p.kill()
        except psutil.Error:
            pass
    proc.join(5)
    return outcome[0], outcome[1], seconds


def table(rows: list[dict[str, Any]]) -> str:
    """The before/after table of the issue: one line per family, then the total."""
    families = list(dict.fromkeys(r["family"] for r in rows))
    head = "| family | cases | " + " | ".join(OUTCOMES) + " |"
    lines = [head, "|" + "---|" * (len(OUTCOMES) + 2)]
    for family in [*families, "all"]:
        part = [r for r in rows if family in ("all", r["family"])]
        counts = Counter(r["outcome"] for r in part)
        name = f"**{family}**" if family == "all" else family
        lines.append(f"| {name} | {len(part)} | " + " | ".join(str(counts.get(o, 0)) for o in OUTCOMES) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", default=None, help="write every case's outcome here")
    parser.add_argument("--code", default=str(HERE.parent), help="the checkout whose mtlib is tested")
    parser.add_argument("--family", default="", help="only the families whose name contains this")
    parser.add_argument("--case", default="", help="only the cases whose name contains this")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case (default 60)")
    parser.add_argument("--memory-mb", type=float, default=2500.0, help="resident memory per case (default 2500)")
    parser.add_argument("--list", action="store_true", help="list the cases, run nothing")
    args = parser.parse_args(argv)
    code = Path(args.code).resolve()
    _prepare(code)
    import _hostile_round5  # noqa: F401 - registers issue 49's cases
    from _hostile_cases import CASES

    cases = [c for c in CASES if args.family in c.family and args.case in c.name]
    if args.list:
        for c in cases:
            print(f"{c.family:20s} {c.name:55s} {c.wanted}")
        return 0
    rows = []
    print(f"hostile: {len(cases)} cases on the mtlib of {code}", flush=True)
    with tempfile.TemporaryDirectory(prefix="mtlib-hostile-") as tmp:
        for c in cases:
            outcome, detail, seconds = run_case(c, args.timeout, args.memory_mb, Path(tmp))
            rows.append(
                {
                    "family": c.family,
                    "case": c.name,
                    "owner": c.owner,
                    "outcome": outcome,
                    "wanted": c.wanted,
                    "detail": detail,
                    "seconds": round(seconds, 2),
                }
            )
            met = outcome == c.wanted or (c.wanted == "either" and outcome in ("works", "clear"))
            mark = "" if met else f"   (wanted {c.wanted})"
            print(f"  {c.family:18s} {c.name:52s} {outcome:8s} {seconds:6.1f} s{mark}", flush=True)
            if not met:
                print(f"      {detail[:300]}", flush=True)
    print()
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"code": str(code), "cases": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
