"""Two runs paired by item id, compared per task and metric, and gated on the difference's interval.

:func:`pair_items` matches the two long tables of :mod:`mtlib.paired.readers` on ``(task, metric, id)`` and reports
everything left unmatched (a task, a metric or an item on one side only, naming the file and, for an item, its
line); :func:`compare_runs` computes one row of :func:`mtlib.paired.stats.paired_stats` per task and metric,
Holm-adjusts the p-values across all rows, and applies the gate: a row passes when the lower end of the 95% interval
of b's improvement over a (``gate_bound``: ``diff_low`` of ``b - a``, or ``-diff_high`` for a lower-is-better
metric) is above ``min_diff``. ``min_diff=-0.01`` reads: "b may be worse than a by less than one point, with 97.5%
confidence"; ``0`` asks b to be better.

Every row also gets a **verdict** (:func:`verdicts`), read in b's favour (for a ``--lower-better`` metric, a lower
value is better):

- ``better`` / ``worse``: the row's test rejects "no difference" at 5% after the adjustment across rows (``adjust``:
  Holm's family-wise control, or Benjamini-Hochberg's false discovery rate for suites of many tasks), and b's
  improvement is positive / negative;
- ``equivalent`` (only with ``equivalence`` M): otherwise, the two one-sided tests at 5% (TOST) both reject, i.e.
  the 90% paired bootstrap interval of the difference lies inside ``(-M, M)``;
- ``inconclusive``: neither; the row's ``mde`` (:mod:`mtlib.paired.power`) says how large a difference these items
  could have shown.

The gate can ask for verdicts as well (``require``): ``not-worse`` (no row is ``worse``), ``equivalent`` (every row's
interval inside ``(-M, M)``) or ``better``; with ``min_diff`` too, a row passes when both hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtlib.analysis.paired_tests import benjamini_hochberg, holm
from mtlib.paired.power import power_columns
from mtlib.paired.readers import read_items
from mtlib.paired.stats import paired_stats
from mtlib.relations.errors import MtlibInputError
from mtlib.suite.outcome import plain

__all__ = ["Comparison", "compare_runs", "pair_items", "verdicts"]

#: ``adjust`` -> the column of adjusted p-values the verdicts read.
ADJUSTMENTS = {"holm": "p_holm", "bh": "p_bh"}
#: What ``require`` can ask of every row.
REQUIREMENTS = ("not-worse", "equivalent", "better")

#: Unmatched items listed by name per task and side (the rest are counted).
_SHOWN = 5


@dataclass
class Comparison:
    """The comparison of two runs.

    Attributes:
        table: One row per ``(task, metric)``: ``n_items, n_groups, mean_a, a_low, a_high, mean_b, b_low, b_high,
            diff, diff_low, diff_high, diff_low90, diff_high90, a_only, b_only, sd_diff, test, p, ci_method, p_holm,
            p_bh, mde, mde_test, [items_for], lower_better, equivalent, verdict, gate_bound, passed``.
        model_a, model_b: The runs' names (a is the baseline; ``diff`` is ``b - a``).
        unmatched: What one side has and the other lacks, one line each (file and line named).
        notes: What the readers left out and why.
        min_diff: The gate (None: no gate, every row passes).
    """

    table: pd.DataFrame
    model_a: str
    model_b: str
    unmatched: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    min_diff: float | None = None
    n_boot: int = 10_000
    seed: int = 0
    equivalence: float | None = None
    adjust: str = "holm"
    require: str | None = None
    items_for: float | None = None

    @property
    def passed(self) -> bool:
        """Whether every row passes the gate."""
        return bool(self.table["passed"].all())

    def failing(self) -> list[str]:
        """``task/metric`` of the rows that fail the gate."""
        return [f"{t}/{m}" for (t, m), ok in self.table["passed"].items() if not ok]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (NaN as null)."""
        fields = {k: v for k, v in vars(self).items() if k != "table"}
        rows = self.table.reset_index().to_dict(orient="records")
        return plain({"format": "mtlib.paired-comparison/1", **fields, "passed": self.passed, "rows": rows})


def pair_items(a: pd.DataFrame, b: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Items of both runs matched on ``(task, metric, id)``, and a line per thing only one side has.

    Returns:
        The paired table (``task, metric, id, group, value_a, n_a, value_b, n_b``) and the unmatched lines.

    Raises:
        MtlibInputError: an item put in different groups by the two files (both lines named).
    """
    pa, pb = a.attrs.get("path", "a"), b.attrs.get("path", "b")
    both = a.merge(b, on=["task", "metric", "id"], how="outer", suffixes=("_a", "_b"), indicator=True)
    unmatched: list[str] = []
    keys_a, keys_b = (set(x[["task", "metric"]].drop_duplicates().itertuples(index=False, name=None)) for x in (a, b))
    for keys, path, other in ((keys_a - keys_b, pa, pb), (keys_b - keys_a, pb, pa)):
        for task, metric in sorted(keys):
            unmatched.append(f"task {task!r} metric {metric!r}: only in {path} (not compared; {other} lacks it)")
    shared = pd.MultiIndex.from_frame(both[["task", "metric"]]).isin(list(keys_a & keys_b))
    for side, path, other in (("left_only", pa, pb), ("right_only", pb, pa)):
        lonely = both[shared & (both["_merge"] == side).to_numpy()]
        line = "line_a" if side == "left_only" else "line_b"
        for (task, metric), rows in lonely.groupby(["task", "metric"], sort=True):
            shown = ", ".join(
                f"{i!r} (line {int(n)})" if n else repr(i) for i, n in zip(rows["id"][:_SHOWN], rows[line][:_SHOWN])
            )
            more = f" and {len(rows) - _SHOWN:,} more" if len(rows) > _SHOWN else ""
            unmatched.append(
                f"task {task!r} metric {metric!r}: {len(rows):,} items only in {path}, not in {other} (left out of "
                f"the comparison): {shown}{more}"
            )
    paired = both[both["_merge"] == "both"]
    clash = paired[paired["group_a"] != paired["group_b"]]
    if len(clash):
        r = clash.iloc[0]
        raise MtlibInputError(
            f"item {r['id']!r} of task {r['task']!r} is in group {r['group_a']!r} in {pa} (line {int(r['line_a'])}) "
            f"and in group {r['group_b']!r} in {pb} (line {int(r['line_b'])}); the groups must agree"
        )
    paired = paired.rename(columns={"group_a": "group"})
    return paired[["task", "metric", "id", "group", "value_a", "n_a", "value_b", "n_b"]], unmatched


def _check_options(equivalence: float | None, adjust: str, require: str | None, items_for: float | None) -> None:
    if adjust not in ADJUSTMENTS:
        raise MtlibInputError(f"--adjust must be one of {sorted(ADJUSTMENTS)}, got {adjust!r}", argument="adjust")
    if require not in (None, *REQUIREMENTS):
        raise MtlibInputError(f"--require must be one of {list(REQUIREMENTS)}, got {require!r}", argument="require")
    if equivalence is not None and not (np.isfinite(equivalence) and equivalence > 0):
        raise MtlibInputError(f"--equivalence must be a margin > 0, got {equivalence}", argument="equivalence")
    if require == "equivalent" and equivalence is None:
        raise MtlibInputError("--require equivalent needs the margin: add --equivalence M", argument="require")
    if items_for is not None and not (np.isfinite(items_for) and items_for != 0):
        raise MtlibInputError(f"--items-for must be a difference other than 0, got {items_for}", argument="items_for")


def _named(metric: pd.Series, names: list[str]) -> pd.Series:
    """Whether each metric is one of ``names``, by its full name or its name before lm-eval's filter (``acc,none``)."""
    return metric.isin(names) | metric.str.split(",").str[0].isin(names)


def verdicts(table: pd.DataFrame, lower: np.ndarray, equivalence: float | None, adjust: str) -> pd.DataFrame:
    """``equivalent`` (the 90% interval inside ``(-M, M)``; None without M) and ``verdict`` per row (module
    docstring); ``lower`` marks the lower-is-better rows."""
    improvement = np.where(lower, -table["diff"], table["diff"])
    significant = table[ADJUSTMENTS[adjust]].to_numpy(float) < 0.05
    out = pd.DataFrame(index=table.index)
    if equivalence is None:
        out["equivalent"] = None
        inside = np.zeros(len(table), bool)
    else:
        inside = ((table["diff_low90"] > -equivalence) & (table["diff_high90"] < equivalence)).to_numpy()
        out["equivalent"] = inside
    out["verdict"] = np.select(
        [significant & (improvement > 0), significant & (improvement < 0), inside],
        ["better", "worse", "equivalent"],
        "inconclusive",
    )
    return out


def _gate(table: pd.DataFrame, min_diff: float | None, require: str | None) -> np.ndarray:
    passed = np.ones(len(table), bool)
    if min_diff is not None:
        passed &= np.nan_to_num(table["gate_bound"], nan=-np.inf) > min_diff
    if require == "not-worse":
        passed &= (table["verdict"] != "worse").to_numpy()
    elif require == "equivalent":
        passed &= table["equivalent"].to_numpy(bool)
    elif require == "better":
        passed &= (table["verdict"] == "better").to_numpy()
    return passed


def compare_runs(
    path_a: str | Path,
    path_b: str | Path,
    *,
    metrics: list[str] | None = None,
    n_boot: int = 10_000,
    seed: int = 0,
    min_diff: float | None = None,
    require_all: bool = False,
    lower_better: list[str] | None = None,
    names: tuple[str | None, str | None] = (None, None),
    equivalence: float | None = None,
    adjust: str = "holm",
    require: str | None = None,
    items_for: float | None = None,
) -> Comparison:
    """Read two runs' per-item files, pair them, compare per task and metric, gate.

    Args:
        path_a, path_b: The baseline's and the candidate's files (or lm-eval output folders).
        metrics: Metric names to compare (lm-eval's ``acc`` matches ``acc,none``); None: every shared one.
        n_boot: Bootstrap replicates (and sign flips of the permutation test).
        seed: Seeds both: the same seed gives the same numbers.
        min_diff: The gate: every row's ``gate_bound`` must be above it (None: no gate).
        require_all: Refuse (rather than report and leave out) items on one side only.
        lower_better: Metrics (named as ``metrics``) where lower is better (a loss): b improves when ``b - a < 0``.
        names: The runs' names (default: the file's stem or the folder's name, a suite result's model).
        equivalence: The margin M of the equivalence verdict (None: no ``equivalent`` verdict).
        adjust: ``holm`` or ``bh``: the adjusted p-values the verdicts read.
        require: What the gate asks of every row's verdict (:data:`REQUIREMENTS`; None: nothing).
        items_for: A difference D: each row says how many items it would need to detect it (80% power).

    Raises:
        MtlibInputError: bad input (the message names the file and line); no shared item.
    """
    _check_options(equivalence, adjust, require, items_for)
    a, b = read_items(path_a), read_items(path_b)
    if metrics:
        a, b = (x[_named(x["metric"], metrics)] for x in (a, b))
    paired, unmatched = pair_items(a, b)
    if require_all and any(" items only in " in u for u in unmatched):
        raise MtlibInputError("items on one side only (--require-all):\n" + "\n".join(unmatched))
    if paired.empty:
        raise MtlibInputError(f"{path_a} and {path_b} share no (task, metric, id); nothing to compare")
    rows = {
        key: paired_stats(g["group"], g["value_a"], g["n_a"], g["value_b"], g["n_b"], n_boot=n_boot, seed=seed)
        for key, g in paired.groupby(["task", "metric"], sort=True)
    }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index = pd.MultiIndex.from_tuples(list(rows), names=["task", "metric"])
    table["p_holm"] = holm(table["p"].to_numpy(float))
    table["p_bh"] = benjamini_hochberg(table["p"].to_numpy(float))
    table = table.join(power_columns(table, items_for))
    lower = _named(table.index.get_level_values("metric").to_series(), lower_better or []).to_numpy()
    table["lower_better"] = lower
    table = table.join(verdicts(table, lower, equivalence, adjust))
    table["gate_bound"] = np.where(lower, -table["diff_high"], table["diff_low"])
    table["passed"] = _gate(table, min_diff, require)
    name_a, name_b = (
        given or str(x.attrs.get("model") or (Path(p).name if Path(p).is_dir() else Path(p).stem))
        for given, x, p in zip(names, (a, b), (path_a, path_b))
    )
    notes = list(a.attrs.get("notes", [])) + list(b.attrs.get("notes", []))
    if items_for is not None and table["items_for"].isna().any():
        notes.append(
            f"items for {items_for:g}: n/a on a McNemar row whose share of discordant items is below "
            f"{abs(items_for):g} (a difference needs at least that many items where the models disagree), or on a "
            f"row without spread"
        )
    if table["mde"].isna().any():
        notes.append(
            "MDE n/a: even a model right on every discordant item would be missed more than one time in five at "
            "this discordance (McNemar), or the per-group differences have no spread (paired t)"
        )
    return Comparison(
        table, name_a, name_b, unmatched, notes, min_diff, n_boot, seed, equivalence, adjust, require, items_for
    )
