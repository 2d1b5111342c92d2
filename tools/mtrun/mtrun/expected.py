"""Pinned reference values: what each notebook must reproduce, checked against its ``metrics.json``.

``notebooks/profiles/expected.yaml`` holds one block per notebook and
profile, each split by what its values depend on (format in its header)::

    "02":
      smoke:
        exact:                                   # functions of the data alone: equal
          n_contexts: {value: 12}
          cell: {value: 0.9803, truncate: 4}     # actual truncated to 4 decimals == value (published cells)
        model:                                   # depend on a model's float arithmetic: a tolerance in items
          nli_accuracy: {value: 0.7085, tol_items: 4, per: nli_accuracy_n}   # |actual - value| <= 4 / n
          violation_rate/down: {value: 0.2947, tol_items: 6, items: 1700}    # |actual - value| <= 6 / 1700
          spearman: {value: -0.09, tol: 0.02}    # a statistic that is no share of items: an absolute tol

``tol_items: N`` says how many items (test items, cases) may change their
outcome, over a denominator given as a number (``items: 343``) or as the
metrics key that holds it in the run (``per: nli_accuracy_n``). A block
without ``exact:`` / ``model:`` is read as before: ``tol`` / ``tol_items``
make an entry model-dependent, anything else exact.

:func:`check` compares one notebook's metrics with its block and returns the
mismatches (key, pin_type, expected, actual, tolerance; a missing key is one).
``python -m mtrun.expected --profile quick`` checks every notebook's
``metrics.json`` (found through :class:`mtlib.run.results.RunLayout`) and exits 1
listing the mismatches, 2 when the file is malformed (naming its path and
line) or when nothing was checked (an unknown profile, ``--only`` without pins).
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

from mtlib.run.layout import MetricsError, RunLayout, read_metrics
from mtlib.utils.paths import project_root
from mtrun.profiles import discover

__all__ = [
    "EXPECTED_FILE",
    "PIN_TYPES",
    "Expectation",
    "ExpectedFormatError",
    "Mismatch",
    "check",
    "check_runs",
    "expectations",
    "load",
    "main",
]

#: Where the pinned values live, relative to the project folder.
EXPECTED_FILE = Path("notebooks") / "profiles" / "expected.yaml"
#: The two types of pinned value (sub-blocks of a profile): a pin's pin_type.
PIN_TYPES = ("exact", "model")
_FIELDS = {"value", "tol", "tol_items", "items", "per", "truncate", "source"}
_PIN_TYPE_FIELDS = {
    "exact": {"value", "truncate", "source"},
    "model": {"value", "tol", "tol_items", "items", "per", "source"},
}
#: Slack on every tolerance comparison, for the binary rounding of N / items.
_SLACK = 1e-12


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
            values), or None. Without ``tol``, ``tol_items`` and ``truncate`` the values must be equal.
        source: Where the value comes from (e.g. ``"Table 6, Carvalho et al. 2023"``), or None.
        line: Line of the entry in the file (1-based).
        pin_type: ``"exact"`` (a function of the data alone) or ``"model"`` (depends on a model's arithmetic).
        tol_items: How many items may change outcome (the tolerance is ``tol_items / denominator``), or None.
        items: The denominator as a number, or None.
        per: The metrics key holding the denominator in the run, or None.
    """

    key: str
    value: Any
    tol: float | None = None
    truncate: int | None = None
    source: str | None = None
    line: int = 0
    pin_type: str = "exact"
    tol_items: int | None = None
    items: int | None = None
    per: str | None = None

    @property
    def tolerance(self) -> str:
        """The comparison, in words: ``±4 items of 343``, ``±1e-06``, ``truncated to 4 decimals`` or ``exact``."""
        if self.tol_items is not None:
            of = self.items if self.items is not None else self.per
            return f"±{self.tol_items} items of {of}"
        if self.tol is not None:
            return f"±{self.tol:g}"
        if self.truncate is not None:
            return f"truncated to {self.truncate} decimals"
        return "exact"

    def absolute_tol(self, metrics: Mapping[str, Any] | None = None) -> float | None:
        """The tolerance in the value's units (``tol_items / denominator``, the denominator from ``metrics``
        for ``per``); None when there is none or the denominator is missing from ``metrics``."""
        if self.tol_items is None:
            return self.tol
        denominator: Any = self.items if self.items is not None else (metrics or {}).get(str(self.per))
        if not _is_number(denominator) or float(denominator) <= 0:
            return None
        return self.tol_items / float(denominator)

    def matches(self, actual: Any, metrics: Mapping[str, Any] | None = None) -> bool:
        """Whether ``actual`` (a value from ``metrics.json``; None for NaN) reproduces the pinned value.

        ``metrics``: the run's metrics, for a ``per`` denominator (its absence is a mismatch).
        """
        if self.tol is not None or self.truncate is not None or self.tol_items is not None:
            if not _is_number(actual) or not math.isfinite(float(actual)):
                return False
            if self.tol is not None or self.tol_items is not None:
                tol = self.absolute_tol(metrics)
                return tol is not None and abs(float(actual) - float(self.value)) <= tol + _SLACK
            scale = 10 ** int(self.truncate or 0)
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
    pin_type: str = "exact"

    def __str__(self) -> str:
        if self.key == "metrics.json":  # the whole file: missing, or unreadable (``actual`` says where)
            return (
                f"{self.notebook}: {self.actual}"
                if self.actual
                else f"{self.notebook}: no metrics.json at {self.expected}"
            )
        got = "missing from metrics.json" if self.missing else f"actual {self.actual!r}"
        return (
            f"{self.notebook}: {self.key}: expected {self.expected!r} ({self.pin_type}, {self.tolerance}), {got} "
            f"(expected.yaml line {self.line})"
        )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _mapping(node: yaml.Node, path: Path, what: str) -> list[tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise ExpectedFormatError(
            path, node.start_mark.line + 1, f"expected {what} (a mapping), got {node.tag.rsplit(':', 1)[-1]}"
        )
    return node.value


def _unique(
    loader: yaml.SafeLoader,
    pairs: list[tuple[yaml.Node, yaml.Node]],
    path: Path,
    what: str,
    seen: dict[str, int] | None = None,
) -> list[tuple[str, yaml.Node, yaml.Node]]:
    """The mapping's items with their keys as strings; a key given twice is refused at its second line."""
    seen = {} if seen is None else seen
    out = []
    for key_node, value_node in pairs:
        key, line = str(loader.construct_object(key_node)), key_node.start_mark.line + 1
        if key in seen:
            raise ExpectedFormatError(path, line, f"{key!r} is given twice in {what} (first at line {seen[key]})")
        seen[key] = line
        out.append((key, key_node, value_node))
    return out


def load(path: str | Path | None = None) -> dict[str, dict[str, dict[str, Expectation]]]:
    """Read ``expected.yaml``: notebook number -> profile -> metric key -> :class:`Expectation`.

    Args:
        path: The file (default: ``notebooks/profiles/expected.yaml`` of the project).

    Raises:
        ExpectedFormatError: a malformed file, naming the line and what was expected: an unknown field, a
            tolerance that is negative, infinite or not a number, ``tol_items`` without its denominator, a key
            pinned twice in one profile (also across its ``exact:`` and ``model:`` blocks).
    """
    path = Path(path) if path else project_root() / EXPECTED_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise ExpectedFormatError(path, line, f"not UTF-8 text ({err.reason}); save the file as UTF-8") from None
    except OSError as err:
        raise ExpectedFormatError(path, 0, f"cannot read it ({err.strerror or err}); expected a YAML file") from None
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise ExpectedFormatError(path, mark.line + 1 if mark else 0, f"not valid YAML ({err})") from None
    except RecursionError:
        raise ExpectedFormatError(path, 0, "nested too deeply to be pins (notebook: profile: key: entry)") from None
    finally:
        loader.dispose()
    out: dict[str, dict[str, dict[str, Expectation]]] = {}
    if root is None:
        return out
    notebooks = _mapping(root, path, 'notebook blocks "NN": {profile: {key: entry}}')
    for number, _, profiles in _unique(loader, notebooks, path, "the file"):
        for profile, _, entries in _unique(
            loader, _mapping(profiles, path, f"profiles of notebook {number!r}"), path, f"notebook {number!r}"
        ):
            block = out.setdefault(number, {}).setdefault(profile, {})
            what = f"{number!r} / {profile!r}"
            items = _mapping(entries, path, f"metric entries of {what}")
            seen: dict[str, int] = {}
            typed = bool(items) and all(
                isinstance(k, yaml.ScalarNode) and k.value in PIN_TYPES and isinstance(v, yaml.MappingNode)
                for k, v in items
            )
            for head, head_node, sub in _unique(loader, items, path, what, {} if typed else seen):
                if typed:
                    for key, key_node, node in _unique(
                        loader, _mapping(sub, path, f"{head} entries of {what}"), path, what, seen
                    ):
                        block[key] = _entry(key, key_node, node, loader, path, head)
                else:
                    block[head] = _entry(head, head_node, sub, loader, path, None)
    return out


def _entry(
    key: str, key_node: yaml.Node, node: yaml.Node, loader: yaml.SafeLoader, path: Path, pin_type: str | None
) -> Expectation:
    line = key_node.start_mark.line + 1
    what = (
        f"{key}: {{value: ...}}, {{value: ..., truncate: N}} (exact), {{value: ..., tol_items: N, items: M}}, "
        "{value: ..., tol_items: N, per: KEY} or {value: ..., tol: T} (model)"
    )
    if not isinstance(node, yaml.MappingNode):
        raise ExpectedFormatError(path, line, f"expected {what}")
    entry = loader.construct_object(node, deep=True)
    allowed = _PIN_TYPE_FIELDS[pin_type] if pin_type else _FIELDS
    unknown = set(entry) - allowed
    if "value" not in entry or unknown:
        where = f" in a {pin_type!r} block" if pin_type else ""
        raise ExpectedFormatError(
            path,
            line,
            f"expected {what}; got fields {sorted(entry)}{where}"
            + (f" (a {pin_type!r} entry takes {sorted(allowed)})" if pin_type and unknown else ""),
        )
    value, tol, truncate = entry["value"], entry.get("tol"), entry.get("truncate")
    tol_items, items, per = entry.get("tol_items"), entry.get("items"), entry.get("per")
    if sum(x is not None for x in (tol, truncate, tol_items)) > 1:
        raise ExpectedFormatError(path, line, f"{key}: give one of tol, tol_items or truncate, not both")
    if tol is not None and (not _is_number(tol) or not math.isfinite(tol) or tol < 0 or not _is_number(value)):
        raise ExpectedFormatError(
            path, line, f"{key}: tol must be a finite number >= 0 beside a numeric value, got {tol!r}"
        )
    if tol_items is not None:
        if not _is_count(tol_items) or tol_items < 0 or not _is_number(value):
            raise ExpectedFormatError(
                path,
                line,
                f"{key}: tol_items must be a whole number of items >= 0 beside a numeric value, got {tol_items!r}",
            )
        if (items is None) == (per is None):
            raise ExpectedFormatError(
                path,
                line,
                f"{key}: tol_items needs its denominator: items: N (a number) or "
                "per: KEY (the metrics key holding it), one of the two",
            )
        if items is not None and (not _is_count(items) or items <= 0):
            raise ExpectedFormatError(path, line, f"{key}: items must be a whole number > 0, got {items!r}")
        if per is not None and (not isinstance(per, str) or not per):
            raise ExpectedFormatError(path, line, f"{key}: per must be a metrics key, got {per!r}")
    elif items is not None or per is not None:
        raise ExpectedFormatError(path, line, f"{key}: items / per only go with tol_items")
    if truncate is not None and (
        not isinstance(truncate, int) or isinstance(truncate, bool) or truncate < 0 or not _is_number(value)
    ):
        raise ExpectedFormatError(
            path, line, f"{key}: truncate must be a whole number of decimals >= 0 beside a numeric value"
        )
    if pin_type == "model" and tol is None and tol_items is None:
        raise ExpectedFormatError(path, line, f"{key}: a 'model' entry needs tol_items (with items or per) or tol")
    if pin_type is None:
        pin_type = "model" if tol is not None or tol_items is not None else "exact"
    return Expectation(
        key,
        value,
        None if tol is None else float(tol),
        truncate,
        entry.get("source"),
        line,
        pin_type,
        tol_items,
        items,
        per,
    )


def _number(stem_or_number: str) -> str:
    return str(stem_or_number)[:2]


def expectations(stem_or_number: str, profile: str, *, path: str | Path | None = None) -> dict[str, Expectation]:
    """The pinned values of one notebook in one profile (empty when it has none)."""
    return load(path).get(_number(stem_or_number), {}).get(profile, {})


def check(
    stem_or_number: str, profile: str, metrics: Mapping[str, Any], *, path: str | Path | None = None
) -> list[Mismatch]:
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
        if missing or not exp.matches(actual, metrics):
            tolerance = exp.tolerance
            if exp.tol_items is not None:
                tol = exp.absolute_tol(metrics)
                tolerance += f" = ±{tol:.3g}" if tol is not None else f" ({exp.per} missing from metrics.json)"
            out.append(
                Mismatch(str(stem_or_number), key, exp.value, actual, tolerance, missing, exp.line, exp.pin_type)
            )
    return out


def check_runs(
    profile: str,
    root: str | Path | None = None,
    *,
    only: Sequence[str] | None = None,
    path: str | Path | None = None,
    notebooks_dir: str | Path | None = None,
) -> tuple[list[str], list[Mismatch]]:
    """Check every notebook with pinned values for ``profile`` against its ``metrics.json``.

    Args:
        profile: Profile name (outputs are filed under it).
        root: Output root holding ``papermill_runs/`` (default: the project folder).
        only: Notebook numbers to check (default: every one with pinned values).
        path: The expected-values file.
        notebooks_dir: Where the notebooks are (default: the project's ``notebooks/``).

    Returns:
        ``(checked, mismatches)``: the stems checked and what they did not reproduce. A notebook
        with pinned values but no ``metrics.json``, or one that is not valid JSON, gives one mismatch
        saying so (for a damaged file its ``actual`` names the path, the line and the column).
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
        try:
            metrics = read_metrics(layout.metrics_path)
        except MetricsError as err:  # one mismatch naming the file and the place, not every key "missing"
            mismatches.append(Mismatch(stem, "metrics.json", str(layout.metrics_path), str(err), "a run", True))
            continue
        mismatches += check(stem, profile, metrics, path=path)
    return checked, mismatches


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mtrun.expected --profile quick [--out-dir D] [--only 01,04]``: 0 when every value is reproduced,
    1 on a mismatch, 2 for a malformed file or when nothing was checked."""
    parser = argparse.ArgumentParser(prog="python -m mtrun.expected", description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="quick", help="profile whose runs to check (default: quick)")
    parser.add_argument("--out-dir", default=None, help="output root holding papermill_runs/ (default: the project)")
    parser.add_argument("--only", default="", help="comma-separated notebook numbers, e.g. 01,04")
    parser.add_argument("--expected", default=None, help=f"the pinned values (default: {EXPECTED_FILE})")
    args = parser.parse_args(argv)
    only = [o.strip() for o in args.only.split(",") if o.strip()] if args.only else None
    try:
        pinned = {n for n, blocks in load(args.expected).items() if blocks.get(args.profile)}
        checked, mismatches = check_runs(args.profile, args.out_dir, only=only, path=args.expected)
    except ExpectedFormatError as err:
        print(f"mtrun.expected: {err}", file=sys.stderr)
        return 2
    unpinned = sorted({_number(o) for o in only or []} - pinned)
    if not checked or unpinned:
        what = f"notebook(s) {', '.join(unpinned)} have no" if unpinned else "no notebook has"
        print(
            f"mtrun.expected: checked nothing: {what} pinned {args.profile!r} values (notebooks with "
            f"{args.profile!r} values: {', '.join(sorted(pinned)) or 'none'}; profiles in the file: "
            f"{', '.join(sorted({p for b in load(args.expected).values() for p in b}))})",
            file=sys.stderr,
        )
        return 2
    for m in mismatches:
        if m.key == "metrics.json" and not m.actual:
            print(
                f"{m.notebook}: no metrics.json at {m.expected}: run `python -m mtrun --profile "
                f"{args.profile} --only {m.notebook[:2]}` first"
            )
        else:
            print(m)
    bad = {m.notebook for m in mismatches}
    counts = {k: 0 for k in PIN_TYPES}
    for number in {_number(c) for c in checked}:
        for exp in expectations(number, args.profile, path=args.expected).values():
            counts[exp.pin_type] += 1
    print(
        f"mtrun.expected: {len(checked) - len(bad)} of {len(checked)} notebook(s) reproduce their pinned "
        f"{args.profile} values ({counts['exact']} exact, {counts['model']} model-dependent within their "
        "tolerance)" + (f"; {len(mismatches)} mismatch(es)" if mismatches else "")
    )
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
