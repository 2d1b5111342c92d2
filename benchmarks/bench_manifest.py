"""What writing a run's manifest costs per notebook, hashing the real datasets included (issue 38: under 1 s).

For each notebook of the ``real`` profile whose data files are present under ``data/`` (put them in
``data/external/`` as ``data/README.md`` says), a fresh process (as each notebook's kernel is) imports
what a notebook imports (:mod:`mtlib.run.results`, torch), then:

1. reads every file the notebook's path parameters name through the loaders' reader
   (:func:`mtlib.data.tsv.text_lines`, which records each file for the manifest); a folder parameter
   counts every file in it, more than a notebook reads: an upper bound on the hashing. This is the
   baseline: the least a notebook does with its data;
2. writes the manifest once, cold (git, the package sources' digest, the CPU, the package versions, and
   the SHA-256 of every input file);
3. rewrites it ``--writes`` times (a notebook rewrites it after every ``record`` and figure; nothing is
   rehashed, and the file is written only when something changed).

Figures per notebook (one JSON line each after the table): ``first_write_s``, ``later_write_ms`` (the
mean of the rewrites), ``manifest_total_s`` (first + ``--writes`` rewrites), ``read_s`` (the baseline)
and ``manifest_over_read`` (total / baseline), and ``input_mb``.

Usage: ``python benchmarks/bench_manifest.py [--writes 50] [--only 01,03]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Run in a fresh process per notebook; argv: stem, JSON list of files, writes, output folder.
CHILD = r"""
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
import torch  # a notebook's kernel has it loaded: torch's kernel set and threads are read
from mtlib.data.tsv import text_lines
from mtlib.run.manifest import notebook_manifest, write_manifest
from mtlib.utils import provenance
stem, files, writes, out = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
provenance.reset()
start = time.perf_counter()
lines = sum(1 for f in files for _ in text_lines(f))
read = time.perf_counter() - start
path = out / "manifest.json"
start = time.perf_counter()
manifest = notebook_manifest(stem, "real", {"profile": "real"}, {})
write_manifest(path, manifest)
first = time.perf_counter() - start
last = json.dumps({k: v for k, v in manifest.items() if k != "written"}, sort_keys=True)
start = time.perf_counter()
for i in range(writes):
    manifest = notebook_manifest(stem, "real", {"profile": "real"}, {f"timing/x{i % 3}_seconds": 1.0})
    body = json.dumps({k: v for k, v in manifest.items() if k != "written"}, sort_keys=True)
    if body != last:  # as Run.write_manifest does
        write_manifest(path, manifest)
        last = body
later = time.perf_counter() - start
print(json.dumps({"read_s": read, "lines": lines, "first_write_s": first, "later_s": later,
                  "inputs": len(manifest["inputs"]), "input_bytes": sum(e["bytes"] for e in manifest["inputs"])}))
"""


def notebook_files(profile: dict, data: Path) -> dict[str, list[Path]]:
    """Per notebook number, the existing files its path parameters name (a folder: every file in it)."""
    out: dict[str, list[Path]] = {}
    for number, params in sorted((profile.get("notebooks") or {}).items()):
        files: list[Path] = []
        for key, value in (params or {}).items():
            if not isinstance(value, str) or not value or not key.endswith(("_path", "_dir", "_folder")):
                continue
            target = data / value
            if target.is_file():
                files.append(target)
            elif target.is_dir():
                files += sorted(p for p in target.rglob("*") if p.is_file())
        if files:
            out[str(number)] = sorted(set(files))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=50, help="rewrites after the first (default 50)")
    parser.add_argument("--only", default="", help="comma-separated notebook numbers")
    args = parser.parse_args(argv)
    profile = yaml.safe_load((ROOT / "notebooks" / "profiles" / "real.yaml").read_text())
    per_notebook = notebook_files(profile, ROOT / "data")
    if args.only:
        per_notebook = {n: f for n, f in per_notebook.items() if n in args.only.split(",")}
    if not per_notebook:
        print("bench_manifest: no real dataset under data/external/ (see data/README.md); nothing measured")
        return 0
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.setdefault("MTLIB_CACHE", tempfile.mkdtemp(prefix="mtlib-bench-cache-"))
    rows = []
    for number, files in per_notebook.items():
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-c", CHILD, f"{number}_real", json.dumps([str(f) for f in files]), str(args.writes)]
            proc = subprocess.run([*cmd, out], env=env, capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            print(f"{number}: failed\n{proc.stderr[-2000:]}")
            return 1
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        total = r["first_write_s"] + r["later_s"]
        rows.append((number, r, total))
    print(f"manifest cost per notebook, real datasets, {args.writes} rewrites after the first (fresh process each)")
    print("notebook  files  MB     read s  first write s  later write ms  manifest total s  total / read")
    for number, r, total in rows:
        later_ms = 1000 * r["later_s"] / max(args.writes, 1)
        print(
            f"{number:8}  {r['inputs']:5}  {r['input_bytes'] / 1e6:5.2f}  {r['read_s']:6.3f}  "
            f"{r['first_write_s']:13.3f}  {later_ms:14.2f}  {total:16.3f}  {total / r['read_s']:12.2f}"
        )
    for number, r, total in rows:
        common = {"notebook": number, "inputs": r["inputs"], "writes": args.writes}
        for figure, value, unit in (
            ("first_write_s", r["first_write_s"], "s"),
            ("later_write_ms", 1000 * r["later_s"] / max(args.writes, 1), "ms"),
            ("manifest_total_s", total, "s"),
            ("read_s", r["read_s"], "s"),
            ("manifest_over_read", total / r["read_s"], "ratio"),
            ("input_mb", r["input_bytes"] / 1e6, "MB"),
        ):
            print(json.dumps({"bench": "manifest", "figure": figure, "value": value, "unit": unit, **common}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
