"""How far each pinned value moves across CPU kernel sets and thread counts (issue 24).

Runs a profile of the notebooks once per environment (ATen's CPU
capability, MKL's instruction set, the number of threads), each with a fresh
``MTLIB_CACHE``, then reads every run's ``metrics.json`` and prints, per key
pinned in ``notebooks/profiles/expected.yaml`` for that profile, the values'
spread (max - min) across environments, in units and, for a model-dependent pin
with a denominator (``items: 343`` / ``per: n_test``), in items. The table
is followed by one JSON line per key (for diffs, or to derive ``tol_items``).

Usage::

    # run the smoke profile under every environment below, then compare (outputs in /tmp/spread)
    python benchmarks/pin_spread.py run --out /tmp/spread [--profile smoke] [--only 01,02]
                                        [--environments default,avx2,sse42,threads1]
    # compare runs made before (folders holding papermill_runs/), named NAME=FOLDER
    python benchmarks/pin_spread.py compare --profile smoke default=/tmp/a/out/default avx2=/tmp/a/out/avx2
    # environments known to `run` (``--settings`` and ``settings`` are their old names)
    python benchmarks/pin_spread.py environments

Add ``--json FILE`` to also write the JSON lines to a file.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools" / "mtrun")]  # mtlib and the runner beside it

#: Environments compared by ``run``: the default kernels and threads, and variants that change the float32
#: summation order of the encoders (ATen's vectorised kernels, MKL's GEMM code path, the thread count).
ENVIRONMENTS: dict[str, dict[str, str]] = {
    "default": {},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "sse42": {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2"},
    "threads1": {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
    "threads2": {"OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"},
    "avx2def": {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    # the two variants of tests/notebooks/test_kernel_variants.py
    "sse42-1thread": {
        "ATEN_CPU_CAPABILITY": "default",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    },
    "avx2-2threads": {
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "OMP_NUM_THREADS": "2",
        "MKL_NUM_THREADS": "2",
        "OPENBLAS_NUM_THREADS": "2",
    },
}


def run_environments(out: Path, profile: str, names: list[str], only: str | None) -> dict[str, Path]:
    """One runner call per environment, each with a fresh cache under ``out``; returns name -> output folder."""
    dirs = {}
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        env = {
            **os.environ,
            **ENVIRONMENTS[name],
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(ROOT), str(ROOT / "tools" / "mtrun"), os.environ.get("PYTHONPATH", "")) if p
            ),
        }
        cache = out / f"cache-{name}"
        shutil.rmtree(cache, ignore_errors=True)
        env["MTLIB_CACHE"] = str(cache)
        dirs[name] = out / "out" / name
        cmd = [
            sys.executable,
            "-m",
            "mtrun",
            "--profile",
            profile,
            "--root",
            str(ROOT),
            "--out-dir",
            str(dirs[name]),
        ] + (["--only", only] if only else [])
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        (out / f"log-{name}.txt").write_text(proc.stdout + proc.stderr)
        print(
            f"# {name}: rc={proc.returncode} in {time.perf_counter() - start:.0f} s "
            f"({' '.join(f'{k}={v}' for k, v in ENVIRONMENTS[name].items()) or 'default environment'})",
            file=sys.stderr,
        )
    return dirs


def _denominator(exp, metrics: dict) -> float | None:
    items = getattr(exp, "items", None)
    if isinstance(items, (int, float)):
        return float(items)
    per = getattr(exp, "per", None)
    if per and isinstance(metrics.get(per), (int, float)):
        return float(metrics[per])
    return None


def compare(
    dirs: dict[str, Path], profile: str, expected_path: str | None = None, only: str | None = None
) -> list[dict]:
    """Per pinned key: its value under each environment, the spread, and the spread in items."""
    from mtlib.run.results import RunLayout, read_metrics
    from mtrun import expected
    from mtrun.profiles import discover

    stems = {p.stem[:2]: p.stem for p in discover(ROOT / "notebooks")}
    wanted = set(only.split(",")) if only else None
    rows = []
    for number, blocks in sorted(expected.load(expected_path).items()):
        if profile not in blocks or (wanted and number not in wanted):
            continue
        metrics = {}
        for name, folder in dirs.items():  # an environment without a run of this notebook is left out of its rows
            path = RunLayout(folder, profile, stems[number]).metrics_path
            if path.exists():
                metrics[name] = read_metrics(path)
        for key, exp in blocks[profile].items():
            values = {n: (m or {}).get(key) for n, m in metrics.items()}
            nums = [
                float(v)
                for v in values.values()
                if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))
            ]
            complete = len(nums) == len(values)
            spread = (max(nums) - min(nums)) if complete and nums else None
            if not complete and len({json.dumps(v) for v in values.values()}) == 1:
                spread = 0.0 if None not in values.values() else None
            denom = next((d for m in metrics.values() if m for d in [_denominator(exp, m)] if d), None)
            items = None if spread is None or not denom else spread * denom
            ok = {n: (key in m and exp.matches(m[key], m)) for n, m in metrics.items()}
            rows.append(
                {
                    "notebook": number,
                    "key": key,
                    "pin_type": exp.pin_type,
                    "pinned": exp.value,
                    "tolerance": exp.tolerance,
                    "values": values,
                    "spread": spread,
                    "denominator": denom,
                    "spread_items": None if items is None else round(items, 3),
                    "pin_holds": ok,
                }
            )
    return rows


def print_table(rows: list[dict], names: list[str]) -> None:
    print(f"{'nb':2}  {'key':52} {'spread':>10} {'items':>6}  pin holds under (environments with a run)")
    for r in rows:
        spread = "n/a" if r["spread"] is None else f"{r['spread']:.3g}"
        items = "" if r["spread_items"] is None else f"{r['spread_items']:g}"
        holds = ",".join(n for n in names if r["pin_holds"].get(n))
        fails = [n for n in names if n in r["pin_holds"] and not r["pin_holds"][n]]
        print(
            f"{r['notebook']:2}  {r['key'][:52]:52} {spread:>10} {items:>6}  "
            + ("all" if not fails else f"{holds or '-'} (fails: {','.join(fails)})")
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the profile under each environment, then compare")
    run.add_argument("--out", required=True, help="folder for the runs, caches and logs")
    run.add_argument(
        "--environments", "--settings", dest="environments", default="default,avx2,sse42,threads1",
        help=f"from {sorted(ENVIRONMENTS)}",
    )  # fmt: skip
    cmp_ = sub.add_parser("compare", help="compare finished runs, given as NAME=FOLDER")
    cmp_.add_argument("runs", nargs="+")
    sub.add_parser("environments", aliases=["settings"], help="list the environments")
    for p in (run, cmp_):
        p.add_argument("--profile", default="smoke")
        p.add_argument("--only", default=None, help="notebook numbers, e.g. 01,02")
        p.add_argument("--expected", default=None, help="the pinned values (default: the project's)")
        p.add_argument("--json", default=None, help="also write the JSON lines to this file")
    args = parser.parse_args(argv)
    if args.command in ("environments", "settings"):
        for name, env in ENVIRONMENTS.items():
            print(f"{name:9} {' '.join(f'{k}={v}' for k, v in env.items()) or '(the environment as it is)'}")
        return 0
    if args.command == "run":
        names = args.environments.split(",")
        unknown = set(names) - set(ENVIRONMENTS)
        if unknown:
            parser.error(f"unknown environments {sorted(unknown)}; known: {sorted(ENVIRONMENTS)}")
        dirs = run_environments(Path(args.out), args.profile, names, args.only)
    else:
        dirs = {}
        for item in args.runs:
            name, _, folder = item.partition("=")
            if not folder:
                parser.error(f"give runs as NAME=FOLDER, got {item!r}")
            dirs[name] = Path(folder)
    rows = compare(dirs, args.profile, args.expected, args.only)
    print_table(rows, list(dirs))
    lines = [json.dumps(r, default=str) for r in rows]
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
