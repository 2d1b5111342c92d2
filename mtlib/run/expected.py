"""Pinned reference values: what each notebook must reproduce, checked against its ``metrics.json``.

``notebooks/profiles/expected.yaml`` holds one block per notebook and
profile (format in its header)::

    "01":
      smoke:
        violation_rate/overall: {value: 0.1277, tol: 1.0e-6}    # |actual - value| <= tol
        n_sources: {value: 60}                                  # equal (counts, strings)
      quick:
        accuracy: {value: 0.81, truncate: 2, source: "..."}     # actual truncated to 2 decimals == value

:func:`check` compares one notebook's metrics with its block and returns the
mismatches (key, expected, actual, tolerance; a missing key is one).
``python -m mtlib.run.expected --profile quick`` checks every notebook's
``metrics.json`` (found through :class:`mtlib.run.results.RunLayout`) and exits 1
listing the mismatches. A malformed file fails with its path and line.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mtlib.run.layout import RunLayout, read_metrics
from mtlib.run.profiles import discover
from mtlib.utils.paths import project_root

#: Where the pinned values live, relative to the project folder.
EXPECTED_FILE = Path("notebooks") / "profiles" / "expected.yaml"
_FIELDS = {"value", "tol", "truncate", "source"}


class ExpectedFormatError(ValueError):
    """A malformed ``expected.yaml``: names the file, the line and what was expected."""

    def __init__(self, path: Path | str, line: int, message: str) -> None:
        self.path, self.line = Path(path), line
        super().__init__(f"{path}, line {line}: {message}")


@dataclass(frozen=True)
class Expectation:
    """One pinned value.

    Attributes:
        key: The metric key.
        value: The value to reproduce.
        tol: Absolute tolerance (numbers), or None.
        truncate: Compare the actual value truncated to this many decimals (the papers print truncated
            values), or None. Without ``tol`` and ``truncate`` the values must be equal.
        source: Where the value comes from (e.g. ``"Table 6, Carvalho et al. 2023"``), or None.
        line: Line of the entry in the file (1-based).
    """

    key: str
    value: Any
    tol: float | None = None
    truncate: int | None = None
    source: str | None = None
    line: int = 0

    @property
    def tolerance(self) -> str:
        """The comparison, in words: ``±1e-06``, ``truncated to 4 decimals`` or ``exact``."""
        if self.tol is not None:
            return f"±{self.tol:g}"
        if self.truncate is not None:
            return f"truncated to {self.truncate} decimals"
        return "exact"

    def matches(self, actual: Any) -> bool:
        """Whether ``actual`` (a value from ``metrics.json``; None for NaN) reproduces the pinned value."""
        if self.tol is not None or self.truncate is not None:
            if not _is_number(actual) or not math.isfinite(float(actual)):
                return False
            if self.tol is not None:
                return abs(float(actual) - float(self.value)) <= self.tol
            scale = 10 ** self.truncate
            # truncation towards zero, with a guard against binary rounding (0.35 * 100 = 34.999...)
            cut = math.copysign(math.floor(abs(float(actual)) * scale + 1e-9), float(actual))
            return cut == round(float(self.value) * scale)
        if _is_number(self.value) and _is_number(actual):
            return float(actual) == float(self.value)
        return actual == self.value


@dataclass(frozen=True)
class Mismatch:
    """A pinned value the run did not reproduce (``actual`` is None when the key is missing or NaN)."""

    notebook: str
    key: str
    expected: Any
    actual: Any
    tolerance: str
    missing: bool = False
    line: int = 0

    def __str__(self) -> str:
        got = "missing from metrics.json" if self.missing else f"actual {self.actual!r}"
        return (f"{self.notebook}: {self.key}: expected {self.expected!r} ({self.tolerance}), {got} "
                f"(expected.yaml line {self.line})")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _mapping(node: yaml.Node, path: Path, what: str) -> list[tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise ExpectedFormatError(path, node.start_mark.line + 1, f"expected {what} (a mapping), got "
                                  f"{node.tag.rsplit(':', 1)[-1]}")
    return node.value


def load(path: str | Path | None = None) -> dict[str, dict[str, dict[str, Expectation]]]:
    """Read ``expected.yaml``: notebook number -> profile -> metric key -> :class:`Expectation`.

    Args:
        path: The file (default: ``notebooks/profiles/expected.yaml`` of the project).

    Raises:
        ExpectedFormatError: a malformed file, naming the line and what was expected.
    """
    path = Path(path) if path else project_root() / EXPECTED_FILE
    text = path.read_text()
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise ExpectedFormatError(path, mark.line + 1 if mark else 0, f"not valid YAML ({err})") from None
    finally:
        loader.dispose()
    out: dict[str, dict[str, dict[str, Expectation]]] = {}
    if root is None:
        return out
    for nb_node, profiles in _mapping(root, path, "notebook blocks \"NN\": {profile: {key: entry}}"):
        number = str(loader.construct_object(nb_node))
        for prof_node, entries in _mapping(profiles, path, f"profiles of notebook {number!r}"):
            profile = str(loader.construct_object(prof_node))
            block = out.setdefault(number, {}).setdefault(profile, {})
            for key_node, entry_node in _mapping(entries, path, f"metric entries of {number!r} / {profile!r}"):
                block[str(loader.construct_object(key_node))] = _entry(loader, key_node, entry_node, path)
    return out


def _entry(loader: yaml.SafeLoader, key_node: yaml.Node, node: yaml.Node, path: Path) -> Expectation:
    key, line = str(loader.construct_object(key_node)), key_node.start_mark.line + 1
    what = f"{key}: {{value: ..., tol: ...}}, {{value: ..., truncate: N}} or {{value: ...}}"
    if not isinstance(node, yaml.MappingNode):
        raise ExpectedFormatError(path, line, f"expected {what}")
    entry = loader.construct_object(node, deep=True)
    unknown = set(entry) - _FIELDS
    if "value" not in entry or unknown:
        raise ExpectedFormatError(path, line, f"expected {what}; got fields {sorted(entry)}")
    tol, truncate = entry.get("tol"), entry.get("truncate")
    if tol is not None and truncate is not None:
        raise ExpectedFormatError(path, line, f"{key}: give tol or truncate, not both")
    if tol is not None and (not _is_number(tol) or tol < 0 or not _is_number(entry["value"])):
        raise ExpectedFormatError(path, line, f"{key}: tol must be a number >= 0 beside a numeric value")
    if truncate is not None and (not isinstance(truncate, int) or isinstance(truncate, bool) or truncate < 0
                                 or not _is_number(entry["value"])):
        raise ExpectedFormatError(path, line, f"{key}: truncate must be a whole number of decimals >= 0 beside a "
                                  "numeric value")
    return Expectation(key, entry["value"], None if tol is None else float(tol), truncate, entry.get("source"), line)


def _number(stem_or_number: str) -> str:
    return str(stem_or_number)[:2]


def expectations(stem_or_number: str, profile: str, *,
                 path: str | Path | None = None) -> dict[str, Expectation]:
    """The pinned values of one notebook in one profile (empty when it has none)."""
    return load(path).get(_number(stem_or_number), {}).get(profile, {})


def check(stem_or_number: str, profile: str, metrics: Mapping[str, Any], *,
          path: str | Path | None = None) -> list[Mismatch]:
    """Compare a notebook's metrics with its pinned values.

    Args:
        stem_or_number: ``"04"`` or ``"04_montague_adjectives"``.
        profile: The profile the metrics come from.
        metrics: The run's ``metrics.json``.
        path: The expected-values file (default: the project's).

    Returns:
        Every pinned value not reproduced; a key missing from ``metrics`` is a mismatch.
    """
    out = []
    for key, exp in expectations(stem_or_number, profile, path=path).items():
        missing = key not in metrics
        actual = None if missing else metrics[key]
        if missing or not exp.matches(actual):
            out.append(Mismatch(str(stem_or_number), key, exp.value, actual, exp.tolerance, missing, exp.line))
    return out


def check_runs(profile: str, root: str | Path | None = None, *, only: Sequence[str] | None = None,
               path: str | Path | None = None, notebooks_dir: str | Path | None = None) -> tuple[list[str], list[Mismatch]]:
    """Check every notebook with pinned values for ``profile`` against its ``metrics.json``.

    Args:
        profile: Profile name (outputs are filed under it).
        root: Output root holding ``papermill_runs/`` (default: the project folder).
        only: Notebook numbers to check (default: every one with pinned values).
        path: The expected-values file.
        notebooks_dir: Where the notebooks are (default: the project's ``notebooks/``).

    Returns:
        ``(checked, mismatches)``: the stems checked and what they did not reproduce. A notebook
        with pinned values but no ``metrics.json`` gives one mismatch saying so.
    """
    base = project_root()
    root = Path(root) if root else base
    pinned = {number: blocks[profile] for number, blocks in load(path).items() if blocks.get(profile)}
    stems = {p.stem[:2]: p.stem for p in discover(Path(notebooks_dir) if notebooks_dir else base / "notebooks")}
    wanted = [n for n in sorted(pinned) if not only or n in {_number(o) for o in only}]
    checked, mismatches = [], []
    for number in wanted:
        stem = stems.get(number, number)
        layout = RunLayout(root, profile, stem)
        checked.append(stem)
        if not layout.metrics_path.exists():
            mismatches.append(Mismatch(stem, "metrics.json", str(layout.metrics_path), None, "a run", True))
            continue
        mismatches += check(stem, profile, read_metrics(layout.metrics_path), path=path)
    return checked, mismatches


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mtlib.run.expected --profile quick [--out-dir D] [--only 01,04]``: 0 when every value is reproduced."""
    parser = argparse.ArgumentParser(prog="python -m mtlib.run.expected", description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="quick", help="profile whose runs to check (default: quick)")
    parser.add_argument("--out-dir", default=None, help="output root holding papermill_runs/ (default: the project)")
    parser.add_argument("--only", default="", help="comma-separated notebook numbers, e.g. 01,04")
    parser.add_argument("--expected", default=None, help=f"the pinned values (default: {EXPECTED_FILE})")
    args = parser.parse_args(argv)
    try:
        checked, mismatches = check_runs(args.profile, args.out_dir, only=args.only.split(",") if args.only else None,
                                         path=args.expected)
    except ExpectedFormatError as err:
        print(f"mtlib.run.expected: {err}", file=sys.stderr)
        return 2
    for m in mismatches:
        if m.key == "metrics.json":
            print(f"{m.notebook}: no metrics.json at {m.expected}: run `python -m mtlib.run --profile "
                  f"{args.profile} --only {m.notebook[:2]}` first")
        else:
            print(m)
    bad = {m.notebook for m in mismatches}
    print(f"mtlib.run.expected: {len(checked) - len(bad)} of {len(checked)} notebook(s) reproduce their pinned "
          f"{args.profile} values" + (f"; {len(mismatches)} mismatch(es)" if mismatches else ""))
    if not checked:
        print(f"mtlib.run.expected: nothing checked: no pinned {args.profile} values"
              + (f" for --only {args.only}" if args.only else "") + f" in {args.expected or EXPECTED_FILE}",
              file=sys.stderr)
        return 1
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
