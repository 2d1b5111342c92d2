"""Why two runs differ: ``python -m mtrun.diff RUN_A RUN_B``.

Intuition: "why is my number not yours?" has two halves. First, *which*
numbers differ by more than they may: each metric of the two ``metrics.json``
is compared with the tolerance ``notebooks/profiles/expected.yaml`` pins for it
(:mod:`mtrun.expected`; a key without a pin must be equal, ``timing/``
keys are skipped). Then, *what else* differs: the two ``manifest.json``
(:mod:`mtlib.run.manifest`) compared section by section, code / environment /
machine / inputs / models / parameters, and listed most likely cause first:

====  ==============================================================  ==========
rank  difference                                                      group
====  ==============================================================  ==========
0     a data file read by both with other contents (size, SHA-256)    inputs
1     a model of the same name with other weights (identity)          models
2     a parameter                                                     parameters
3     the code (commit, uncommitted changes, sources, the notebook)   code
3     a model's backend, precision or device                          models
4     a data file read by one run only                                inputs
5     a model used by one run only; a classifier's training record    models
6     the CPU, its instruction sets, the kernel set, device, GPU      machine
7     Python, a package, a BLAS library                               environment
8     threads and how they wait                                       machine
====  ==============================================================  ==========

A changed input comes first because it explains everything downstream of it
(features, trained heads, every rate); a file read by one run only comes after
the parameters because a parameter (a path, a language) usually says why; the
machine's kernel set comes before the libraries because it changes what they
report (OpenBLAS's architecture follows ``OPENBLAS_CORETYPE``).
The disk cache's hits and misses are shown last and never as a cause: they say
what was computed and what reused.

``RUN_A`` and ``RUN_B`` are each a run folder (``papermill_runs/<profile>/<stem>``),
its ``manifest.json`` or ``metrics.json``, or a folder holding several runs (an
output root with ``papermill_runs/``, or a profile folder): runs are then paired
by profile and notebook. Exit status: 0 when every metric agrees within its
tolerance, 1 when one does not, 2 when the arguments name no run.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtlib.run.layout import MetricsError, read_metrics
from mtlib.run.manifest import GROUPS, MANIFEST, read_manifest
from mtrun.expected import Expectation, ExpectedFormatError, expectations

__all__ = [
    "Difference",
    "MetricDifference",
    "RunDiff",
    "RunFiles",
    "compare_manifests",
    "compare_metrics",
    "diff_runs",
    "find_runs",
    "main",
]

_SLACK = 1e-12
_TIMING = "timing/"


@dataclass(frozen=True)
class Difference:
    """One manifest entry that differs: its group, how likely a cause it is (0 first) and what changed."""

    rank: int
    group: str
    what: str

    def __str__(self) -> str:
        return f"{self.group}: {self.what}"


@dataclass(frozen=True)
class MetricDifference:
    """A metric that differs between the runs; ``beyond``: by more than its tolerance (``tolerance`` in words)."""

    key: str
    a: Any
    b: Any
    tolerance: str
    beyond: bool

    def __str__(self) -> str:
        return f"{self.key}: {_show(self.a)} -> {_show(self.b)} ({self.tolerance})"


@dataclass
class RunDiff:
    """The comparison of two runs of one notebook.

    Attributes:
        label: ``<profile>/<stem>`` of the runs (from run A's manifest or folder).
        metrics: Every metric that differs, beyond its tolerance or within it.
        causes: The manifest differences, most likely cause first.
        notes: What is shown but is no cause (cache hits and misses, a missing manifest).
        compared: How many metrics were compared.
    """

    label: str
    metrics: list[MetricDifference] = field(default_factory=list)
    causes: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    compared: int = 0

    @property
    def agree(self) -> bool:
        """Whether every metric agrees within its tolerance."""
        return not any(m.beyond for m in self.metrics)

    def render(self) -> str:
        """The comparison as text: metrics beyond tolerance, then the differences grouped, likely cause first."""
        beyond = [m for m in self.metrics if m.beyond]
        within = len(self.metrics) - len(beyond)
        out = [f"== {self.label}", f"metrics: {len(beyond)} of {self.compared} differ beyond their tolerance"]
        out += [f"  {m}" for m in beyond]
        if within:
            out.append(f"  ({within} more differ within their pinned tolerance)")
        if not self.causes:
            out.append("manifests: no difference in code, environment, machine, inputs, models or parameters")
        else:
            out.append(f"manifests: {len(self.causes)} difference(s), most likely cause first")
            out.append(f"  most likely cause: {self.causes[0]}")
            order = sorted(
                {c.group for c in self.causes}, key=lambda g: min(c.rank for c in self.causes if c.group == g)
            )
            for group in order:
                out.append(f"  {group}:")
                out += [f"    {c.what}" for c in self.causes if c.group == group]
        out += [f"  (not a cause) {note}" for note in self.notes]
        return "\n".join(out)


# -- metrics ----------------------------------------------------------------------------------------------------------
def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."


def _truncated(value: float, decimals: int) -> float:
    scale = 10**decimals
    return math.copysign(math.floor(abs(value) * scale + 1e-9), value)


def _agree(a: Any, b: Any, pin: Expectation | None, ma: Mapping[str, Any], mb: Mapping[str, Any]) -> tuple[bool, str]:
    """Whether two values of one metric agree, and the comparison in words."""
    if pin is not None and _number(a) and _number(b):
        if pin.tol is not None or pin.tol_items is not None:
            tol = pin.absolute_tol(ma)
            tol = pin.absolute_tol(mb) if tol is None else tol
            if tol is not None:
                shown = pin.tolerance + (f" = ±{tol:.3g}" if pin.tol_items is not None else "")
                return abs(float(a) - float(b)) <= tol + _SLACK, f"pinned {shown}"
        elif pin.truncate is not None:
            return _truncated(float(a), pin.truncate) == _truncated(float(b), pin.truncate), f"pinned {pin.tolerance}"
    what = "pinned exact" if pin is not None else "no pin: exact"
    if _number(a) and _number(b):
        return float(a) == float(b), what
    return a == b, what


def compare_metrics(
    a: Mapping[str, Any], b: Mapping[str, Any], pins: Mapping[str, Expectation] | None = None
) -> tuple[list[MetricDifference], int]:
    """Every metric that differs between two ``metrics.json`` (``timing/`` and ``_`` keys skipped).

    Args:
        a, b: The two runs' metrics.
        pins: The notebook's pinned values for its profile (:func:`mtrun.expected.expectations`).

    Returns:
        ``(differences, compared)``: a key missing from one run differs beyond any tolerance.
    """
    keys = sorted(k for k in {*a, *b} if not k.startswith(_TIMING) and not k.startswith("_"))
    out = []
    for key in keys:
        if key not in a or key not in b:
            out.append(MetricDifference(key, a.get(key, "(missing)"), b.get(key, "(missing)"), "in one run only", True))
            continue
        same, how = _agree(a[key], b[key], (pins or {}).get(key), a, b)
        if a[key] != b[key]:
            out.append(MetricDifference(key, a[key], b[key], how, not same))
    return out, len(keys)


# -- manifests --------------------------------------------------------------------------------------------------------
def _short(value: Any) -> str:
    """A digest shortened to 12 hex digits, anything else as :func:`_show` shows it."""
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value[:12]
    if isinstance(value, str) and len(value) == 40 and all(c in "0123456789abcdef" for c in value):
        return value[:10]
    return _show(value)


def _nested_rank(rank: Callable[[str], int], prefix: str, key: str) -> int:
    return rank(f"{prefix}/{key}")


def _fields(group: str, a: Mapping[str, Any], b: Mapping[str, Any], rank: Callable[[str], int]) -> list[Difference]:
    """A difference per key of two flat sections (nested mappings compared key by key)."""
    out = []
    for key in sorted({*a, *b}):
        va, vb = a.get(key), b.get(key)
        if va == vb:
            continue
        if isinstance(va, Mapping) and isinstance(vb, Mapping):
            inner = _fields(group, va, vb, functools.partial(_nested_rank, rank, key))
            out += [Difference(d.rank, group, f"{key}/{d.what}") for d in inner]
        else:
            out.append(Difference(rank(key), group, f"{key}: {_short(va)} -> {_short(vb)}"))
    return out


def _code(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Difference]:
    return _fields("code", a, b, lambda key: 3)


def _environment(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Difference]:
    out = _fields(
        "environment",
        {k: v for k, v in a.items() if k != "blas"},
        {k: v for k, v in b.items() if k != "blas"},
        lambda key: 7,
    )

    def libs(env: Mapping[str, Any]) -> set[str]:
        return {
            f"{e.get('internal_api')} {e.get('version')} ({e.get('library')}, {e.get('threads')} threads)"
            for e in env.get("blas") or []
        }

    la, lb = libs(a), libs(b)
    out += [Difference(7, "environment", f"BLAS only in A: {x}") for x in sorted(la - lb)]
    out += [Difference(7, "environment", f"BLAS only in B: {x}") for x in sorted(lb - la)]
    return out


def _machine_rank(key: str) -> int:
    return 8 if key.split("/")[0] in ("threads", "torch_threads", "wait_policy", "cores") else 6


def _machine(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Difference]:
    fa, fb = set(a.get("cpu_flags") or []), set(b.get("cpu_flags") or [])
    rest_a = {k: v for k, v in a.items() if k != "cpu_flags"}
    rest_b = {k: v for k, v in b.items() if k != "cpu_flags"}
    out = _fields("machine", rest_a, rest_b, _machine_rank)
    if fa != fb:
        only = [f"only A: {' '.join(sorted(fa - fb)) or '-'}", f"only B: {' '.join(sorted(fb - fa)) or '-'}"]
        out.append(Difference(6, "machine", "CPU instruction sets differ (" + "; ".join(only) + ")"))
    return out


def _inputs(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> list[Difference]:
    ia, ib = {e["name"]: e for e in a}, {e["name"]: e for e in b}
    out = []
    for name in sorted({*ia, *ib}):
        ea, eb = ia.get(name), ib.get(name)
        if ea is None or eb is None:
            out.append(Difference(4, "inputs", f"{name}: read by {'B' if ea is None else 'A'} only"))
        elif (ea.get("sha256"), ea.get("bytes")) != (eb.get("sha256"), eb.get("bytes")):
            out.append(
                Difference(
                    0,
                    "inputs",
                    f"{name}: contents differ ({ea.get('bytes')} bytes, sha256 {_short(ea.get('sha256'))} -> "
                    f"{eb.get('bytes')} bytes, sha256 {_short(eb.get('sha256'))})",
                )
            )
    return out


def _pair_models(
    a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]
) -> tuple[list[tuple[Mapping[str, Any], Mapping[str, Any]]], list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """Models of the two runs paired by name (the same identity first); the unpaired of A and of B."""
    pairs, only_a, only_b = [], [], []
    for name in sorted({str(m.get("name")) for m in [*a, *b]}):
        ra = [m for m in a if str(m.get("name")) == name]
        rb = [m for m in b if str(m.get("name")) == name]
        for m in list(ra):
            match = next((n for n in rb if n.get("identity") == m.get("identity") and n == m), None)
            match = match or next((n for n in rb if n.get("identity") == m.get("identity")), None)
            if match is not None:
                pairs.append((m, match))
                ra.remove(m)
                rb.remove(match)
        pairs += list(zip(ra, rb))
        only_a += ra[len(rb) :]
        only_b += rb[len(ra) :]
    return pairs, only_a, only_b


def _models(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> list[Difference]:
    pairs, only_a, only_b = _pair_models(a, b)
    out = [Difference(5, "models", f"{m.get('name')} ({m.get('identity')}): used by A only") for m in only_a]
    out += [Difference(5, "models", f"{m.get('name')} ({m.get('identity')}): used by B only") for m in only_b]
    for ma, mb in pairs:
        name = ma.get("name")
        if ma.get("identity") != mb.get("identity") and ma.get("training") == mb.get("training"):
            what = f"{name}: other weights (identity {ma.get('identity')} -> {mb.get('identity')})"
            out.append(Difference(1, "models", what))
        for key in ("backend", "precision", "device"):
            if ma.get(key) != mb.get(key):
                out.append(Difference(3, "models", f"{name}: {key} {_show(ma.get(key))} -> {_show(mb.get(key))}"))
        ta, tb = ma.get("training") or {}, mb.get("training") or {}
        for key in sorted({*ta, *tb} - {"from_cache"}):
            if ta.get(key) != tb.get(key):
                what = f"{name}: training {key} {_short(ta.get(key))} -> {_short(tb.get(key))}"
                out.append(Difference(5, "models", what))
        if (ma.get("base") or {}) != (mb.get("base") or {}):
            out.append(Difference(5, "models", f"{name}: base {_show(ma.get('base'))} -> {_show(mb.get('base'))}"))
    return out


def _parameters(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Difference]:
    return [
        Difference(2, "parameters", f"{key}: {_show(a.get(key, '(unset)'))} -> {_show(b.get(key, '(unset)'))}")
        for key in sorted({*a, *b})
        if a.get(key) != b.get(key)
    ]


_COMPARE: dict[str, Callable[[Any, Any], list[Difference]]] = {
    "code": _code,
    "environment": _environment,
    "machine": _machine,
    "inputs": _inputs,
    "models": _models,
    "parameters": _parameters,
}


def _cache_notes(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> list[str]:
    """What each run computed and reused, per model and operation, where the two differ."""

    def table(entries: Sequence[Mapping[str, Any]]) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for e in entries:
            key = f"{e.get('model') or e.get('identity') or '(no cache)'} {e.get('operation')}"
            hits, misses = out.get(key, (0, 0))
            out[key] = (hits + int(e.get("hits") or 0), misses + int(e.get("misses") or 0))
        return out

    ta, tb = table(a), table(b)
    notes = []
    for key in sorted({*ta, *tb}):
        ha, hb = ta.get(key, (0, 0)), tb.get(key, (0, 0))
        if ha != hb:
            notes.append(f"cache {key}: A reused {ha[0]}, computed {ha[1]}; B reused {hb[0]}, computed {hb[1]}")
    return notes


def compare_manifests(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[list[Difference], list[str]]:
    """The differences of two manifests, most likely cause first, and the notes that are no cause (cache use)."""
    empty: dict[str, Any] = {"inputs": [], "models": []}
    causes: list[Difference] = []
    for group in GROUPS:
        causes += _COMPARE[group](a.get(group, empty.get(group, {})), b.get(group, empty.get(group, {})))
    causes.sort(key=lambda d: (d.rank, GROUPS.index(d.group)))
    return causes, _cache_notes(a.get("cache") or [], b.get("cache") or [])


# -- runs -------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunFiles:
    """One run's folder, with its ``manifest.json`` and ``metrics.json`` (either may be missing)."""

    folder: Path

    @property
    def manifest(self) -> dict[str, Any]:
        return read_manifest(self.folder / MANIFEST)

    @property
    def metrics(self) -> dict[str, Any]:
        return read_metrics(self.folder / "metrics.json")

    @property
    def key(self) -> tuple[str, str]:
        """``(profile, stem)`` from the manifest, else from the folder's place (``<profile>/<stem>``)."""
        m = self.manifest
        return str(m.get("profile") or self.folder.parent.name), str(m.get("notebook") or self.folder.name)


def _is_run(folder: Path) -> bool:
    if (folder / "metrics.json").is_file():
        return True
    return read_manifest(folder / MANIFEST).get("record_type") == "notebook"


def find_runs(path: str | Path) -> list[RunFiles]:
    """The runs a command-line argument names: a run folder or one of its files, or every run under a folder
    (``papermill_runs/<profile>/<stem>`` or ``<profile>/<stem>`` or ``<stem>``; hidden attempt folders skipped)."""
    p = Path(path)
    if p.is_file():
        return [RunFiles(p.parent)]
    if not p.is_dir():
        return []
    if _is_run(p):
        return [RunFiles(p)]
    found = []
    for pattern in ("*", "*/*", "papermill_runs/*/*"):
        found += [
            RunFiles(f) for f in sorted(p.glob(pattern)) if f.is_dir() and not f.name.startswith(".") and _is_run(f)
        ]
    return list({r.folder: r for r in found}.values())


def _pins(profile: str, stem: str, path: str | None) -> dict[str, Expectation]:
    try:
        return expectations(stem, profile, path=path)
    except FileNotFoundError:
        return {}


def diff_runs(a: RunFiles, b: RunFiles, expected: str | None = None) -> RunDiff:
    """Compare two runs of one notebook: metrics against their tolerances, then the manifests.

    Args:
        a, b: The runs.
        expected: The pinned values (default: the project's ``notebooks/profiles/expected.yaml``).
    """
    profile, stem = a.key
    ma, mb = a.manifest, b.manifest
    result = RunDiff(f"{profile}/{stem}")
    result.metrics, result.compared = compare_metrics(a.metrics, b.metrics, _pins(profile, stem, expected))
    result.causes, result.notes = compare_manifests(ma, mb)
    for which, m, run in (("A", ma, a), ("B", mb, b)):
        if not m:
            result.notes.append(f"run {which} has no {MANIFEST} in {run.folder} (made before manifests existed?)")
    return result


def _pairs(a: list[RunFiles], b: list[RunFiles]) -> tuple[list[tuple[RunFiles, RunFiles]], list[str]]:
    """Runs paired by (profile, notebook); by notebook alone when one side is a single run."""
    if len(a) == 1 and len(b) == 1:
        return [(a[0], b[0])], []
    if len(a) == 1 or len(b) == 1:
        one, many, swap = (a[0], b, False) if len(a) == 1 else (b[0], a, True)
        match = [r for r in many if r.key[1] == one.key[1]]
        if not match:
            return [], [f"no run of {one.key[1]} on the other side"]
        return [((match[0], one) if swap else (one, match[0]))], []
    ka, kb = {r.key: r for r in a}, {r.key: r for r in b}
    notes = [f"{'/'.join(k)}: only in A" for k in sorted(set(ka) - set(kb))]
    notes += [f"{'/'.join(k)}: only in B" for k in sorted(set(kb) - set(ka))]
    return [(ka[k], kb[k]) for k in sorted(set(ka) & set(kb))], notes


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mtrun.diff RUN_A RUN_B``: 0 when the metrics agree within tolerance, 1 when not, 2 when
    an argument names no run (or the pinned values cannot be read)."""
    parser = argparse.ArgumentParser(prog="python -m mtrun.diff", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_a", help="a run folder, its manifest.json or metrics.json, or a folder of runs")
    parser.add_argument("run_b", help="the run to compare with, named the same way")
    parser.add_argument(
        "--expected", default=None, help="the pinned values (default: notebooks/profiles/expected.yaml)"
    )
    args = parser.parse_args(argv)
    runs_a, runs_b = find_runs(args.run_a), find_runs(args.run_b)
    for arg, runs in ((args.run_a, runs_a), (args.run_b, runs_b)):
        if not runs:
            print(f"mtrun.diff: {arg}: no run there (expected a folder with metrics.json or {MANIFEST})")
            return 2
    pairs, notes = _pairs(runs_a, runs_b)
    if not pairs:
        print("mtrun.diff: no notebook run on both sides: " + "; ".join(notes))
        return 2
    try:
        diffs = [diff_runs(a, b, args.expected) for a, b in pairs]
    except (ExpectedFormatError, MetricsError) as err:
        print(f"mtrun.diff: {err}")
        return 2
    for d in diffs:
        print(d.render())
    for note in notes:
        print(f"note: {note}")
    bad = [d.label for d in diffs if not d.agree]
    print(
        f"mtrun.diff: {len(diffs) - len(bad)} of {len(diffs)} run(s) agree within tolerance"
        + (f"; differ: {', '.join(bad)}" if bad else "")
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
