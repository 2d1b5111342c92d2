"""Notebook 02's ablation over the NLI model's training data: does up < down depend on what it learned from?

Intuition: Manino et al. find, with a RoBERTa fine-tuned on MNLI, fewer
violations in upward than in downward contexts (0.312 < 0.519). A model that
also learns from MED, Yanaka et al.'s monotonicity inferences (most of them
downward), may be the one that reverses it. The ablation trains the primary
model's NLI classifier again on each named training set (SICK TRAIN alone,
MED alone, both; always beside the NLI-XY training contexts) and runs the same
:func:`~mtlib.experiments.nli._report.compositionality` on each: its NLI-XY
accuracy beside the majority baseline, up and down violation rates with their
intervals, and the permutation test of up against down. The sentence says
which training data gives the paper's direction and which reverses it, with
the run's numbers.

An entry of the spec's ``ablation`` names external sets joined by ``+``
(``sick``, ``med``, ``sick+med``) or ``none`` (the NLI-XY training contexts alone).

Example:
    >>> training_sets("med+sick"), training_sets("none")
    (('sick', 'med'), ())
    >>> training_label(("med", "sick")), training_label(())
    ('sick+med', 'none')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mtlib.analysis.claims import ALPHA
from mtlib.data import papers
from mtlib.experiments.nli._external import ExternalNLI

if TYPE_CHECKING:  # the spec reads the entry rules here without loading the models
    from mtlib.experiments.nli._report import CompositionalityReport

#: The external training sets an ablation entry can name, in the order they are joined.
EXTERNAL_SETS = ("sick", "med")
#: How the table and the sentence name each set.
SET_NAMES = {"sick": "SICK TRAIN", "med": "MED"}


def training_sets(entry: str) -> tuple[str, ...]:
    """The external sets an ablation entry names, in :data:`EXTERNAL_SETS` order (``none``: no set).

    Raises:
        ValueError: an empty entry, a name outside :data:`EXTERNAL_SETS`, or a set named twice.
    """
    parts = [p.strip().lower() for p in str(entry).split("+")]
    if parts == ["none"]:
        return ()
    unknown = [p for p in parts if p not in EXTERNAL_SETS]
    if unknown or len(set(parts)) != len(parts):
        raise ValueError(
            f"ablation entry {entry!r}: expected none, or {', '.join(EXTERNAL_SETS)} joined by '+' (each once)"
        )
    return tuple(s for s in EXTERNAL_SETS if s in parts)


def training_label(sets: tuple[str, ...] | list[str]) -> str:
    """The canonical entry of a tuple of external sets (``none`` for no set)."""
    return "+".join(s for s in EXTERNAL_SETS if s in sets) or "none"


def ablation_problems(entries: list[str], available: dict[str, bool]) -> list[str]:
    """What is wrong with the spec's ``ablation`` entries (empty when nothing).

    Args:
        entries: The ``ablation`` parameter.
        available: Set name -> whether the spec gives its file (``sick_path``, ``med_path``).
    """
    problems, seen = [], set()
    for entry in entries:
        try:
            sets = training_sets(entry)
        except ValueError as err:
            problems.append(str(err))
            continue
        missing = [s for s in sets if not available.get(s)]
        if missing:
            need = " and ".join(f"{s}_path" for s in missing)
            problems.append(f"ablation entry {entry!r} trains on {'+'.join(missing)}: {need} must name the file")
        if training_label(sets) in seen:
            problems.append(f"ablation entry {entry!r} repeats the training set {training_label(sets)}")
        seen.add(training_label(sets))
    return problems


def subset_external(external: ExternalNLI | None, sets: tuple[str, ...]) -> ExternalNLI | None:
    """``external`` with only the training pairs of ``sets`` (SICK TEST kept); None when nothing is left to hold."""
    if external is None:
        return None
    train = external.train[external.train["source"].isin(list(sets))].reset_index(drop=True)
    if not len(train) and external.sick_test is None:
        return None
    return ExternalNLI(train, external.sick_test)


def sets_of(report: CompositionalityReport) -> tuple[str, ...]:
    """The external sets a report's NLI model trained on, in :data:`EXTERNAL_SETS` order."""
    if report.external is None:
        return ()
    present = set(report.external.train["source"])
    return tuple(s for s in EXTERNAL_SETS if s in present)


def _describe(sets: tuple[str, ...]) -> str:
    """``NLI-XY train contexts + SICK TRAIN + MED``."""
    return " + ".join(["NLI-XY train contexts", *(SET_NAMES[s] for s in sets)])


TABLE_COLUMNS = [
    "training_data",
    "n_external",
    "nli_accuracy",
    "majority_baseline",
    "p_above_baseline",
    "sick_test_accuracy",
    "up",
    "up_ci_low",
    "up_ci_high",
    "down",
    "down_ci_low",
    "down_ci_high",
    "p_permutation",
    "direction",
]
#: Table column -> the report's own metric name, used under ``ablation/<entry>/``.
METRIC_NAMES = {
    "nli_accuracy": "nli_accuracy",
    "majority_baseline": "nli_accuracy_majority_baseline",
    "p_above_baseline": "nli_accuracy_p_above_baseline",
    "sick_test_accuracy": "accuracy/sick_test",
    "up": "violation_rate/up",
    "up_ci_low": "violation_rate/up_ci_low",
    "up_ci_high": "violation_rate/up_ci_high",
    "down": "violation_rate/down",
    "down_ci_low": "violation_rate/down_ci_low",
    "down_ci_high": "violation_rate/down_ci_high",
    "p_permutation": "up_vs_down_p_permutation",
}


def _row(label: str, report: CompositionalityReport) -> dict[str, Any]:
    """One row of the ablation table from one report (its own accuracy, rates and test)."""
    by, acc = report.by_monotonicity, report.nli_accuracy
    up = by.loc["up"] if "up" in by.index else None
    down = by.loc["down"] if "down" in by.index else None
    n_ext = 0 if report.external is None else len(report.external.train)
    row: dict[str, Any] = {
        "entry": label,
        "training_data": _describe(sets_of(report)),
        "n_external": n_ext,
        "nli_accuracy": acc.accuracy,
        "majority_baseline": acc.majority_baseline,
        "p_above_baseline": acc.p_above_baseline,
        "sick_test_accuracy": report.sick_test.accuracy if report.sick_test is not None else np.nan,
        "p_permutation": report.difference.loc[1, "p_value"] if len(report.difference) else np.nan,
    }
    for side, part in (("up", up), ("down", down)):
        for col in ("", "_ci_low", "_ci_high"):
            row[side + col] = np.nan if part is None else float(part["rate" if not col else col[1:]])
    if up is None or down is None:
        row["direction"] = "not compared"
    else:
        row["direction"] = "up < down (paper)" if row["up"] < row["down"] else "up >= down (reversed)"
    return row


@dataclass
class TrainingAblation:
    """The primary model's NLI classifier trained on each training set, each tested as the primary model is.

    A run-level report for :meth:`mtlib.run.results.Run.record_report` (keys ``ablation/<entry>/<metric>``
    with the report's own metric names (:data:`METRIC_NAMES`), the entry's ``+`` written ``_``; table
    ``training_data_ablation``).

    Attributes:
        model: The model row (``minilm-ft``).
        reports: Entry (:func:`training_label`) -> its :class:`CompositionalityReport`, in the spec's order.
        primary: The entry of the primary model's own training data (its report is reused, not retrained).
        enabled: Whether the spec asked for the ablation; without it the report holds the primary run alone
            and records nothing (its sentence says so).
    """

    model: str
    reports: dict[str, CompositionalityReport]
    primary: str
    enabled: bool = True

    @classmethod
    def alone(cls, report: CompositionalityReport) -> TrainingAblation:
        """No ablation: the primary row alone, under its own training data's entry; it records nothing."""
        own = training_label(sets_of(report))
        return cls(report.model, {own: report}, own, enabled=False)

    def table(self) -> pd.DataFrame:
        """One row per training set: NLI-XY accuracy and baseline, up and down rates with intervals, p."""
        rows = [_row(label, r) for label, r in self.reports.items()]
        return pd.DataFrame(rows, columns=["entry", *TABLE_COLUMNS]).set_index("entry")

    def metrics(self) -> dict[str, Any]:
        """``ablation/<entry>/<metric>`` for every entry (nothing when the ablation is off)."""
        if not self.enabled:
            return {}
        out: dict[str, Any] = {}
        for label, row in self.table().iterrows():
            key = "ablation/" + str(label).replace("+", "_")
            out[f"{key}/n_external"] = int(row["n_external"])
            for col, name in METRIC_NAMES.items():
                if np.isfinite(row[col]):
                    out[f"{key}/{name}"] = float(row[col])
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """The ablation table (none when the ablation is off)."""
        return {"training_data_ablation": self.table()} if self.enabled else {}

    def sentence(self) -> str:
        """Which training data gives the paper's up < down and which reverses it, from this run's numbers."""
        return ablation_sentence(self.table(), self.model, primary=self.primary, enabled=self.enabled)


def _rates(row: pd.Series) -> str:
    p = row["p_permutation"]
    if np.isfinite(p):
        test = f"permutation p = {p:.3g}" + ("" if p < ALPHA else ", not significant")
    else:
        test = "not tested"
    return (
        f"up {row['up']:.3f} [{row['up_ci_low']:.3f}, {row['up_ci_high']:.3f}] vs down {row['down']:.3f} "
        f"[{row['down_ci_low']:.3f}, {row['down_ci_high']:.3f}] ({test}); "
        f"NLI-XY accuracy {row['nli_accuracy']:.3f} (majority baseline {row['majority_baseline']:.3f})"
    )


def _short(row: pd.Series) -> str:
    """``SICK TRAIN (p = 0.401, not significant)``: the external sets of a row and its permutation test."""
    sets = row["training_data"].removeprefix("NLI-XY train contexts").removeprefix(" + ") or "the NLI-XY contexts alone"
    p = row["p_permutation"]
    if not np.isfinite(p):
        return f"{sets} (not tested)"
    return f"{sets} (p = {p:.3g}{'' if p < ALPHA else ', not significant'})"


def ablation_sentence(table: pd.DataFrame, model: str, *, primary: str, enabled: bool = True) -> str:
    """The ablation's conclusion as Markdown, every number from ``table`` (:meth:`TrainingAblation.table`).

    Args:
        table: Index: entries; columns :data:`TABLE_COLUMNS`.
        model: The model row the ablation retrained.
        primary: The entry of the primary run's training data.
        enabled: False when the spec's ``ablation`` is empty (the table holds the primary run alone).
    """
    paper = papers.MANINO_S51
    head = (
        f"Manino et al. (RoBERTa fine-tuned on MNLI): up {paper['violation_rate/up']} < down "
        f"{paper['violation_rate/down']}."
    )
    compared = table[table["direction"] != "not compared"]
    if not len(compared):
        return head + f" This run has no upward and downward test contexts to compare ({model})."
    paper_side = compared[compared["up"] < compared["down"]]
    reversed_side = compared[compared["up"] >= compared["down"]]
    parts = []
    for _, row in compared.iterrows():
        verdict = "the paper's direction" if row["up"] < row["down"] else "the reverse of the paper's direction"
        parts.append(
            f"with its NLI classifier trained on {row['training_data']}, {model} gives {verdict}: {_rates(row)}"
        )
    text = head + " " + "; ".join(p[0].upper() + p[1:] for p in parts[:1]) + "".join("; " + p for p in parts[1:])
    text += "."
    if not enabled:
        return text + (
            " No training-data ablation in this run (`ablation` is empty), so it does not say which training data"
            " sets the direction."
        )
    names = {label: _short(compared.loc[label]) for label in compared.index}
    if len(paper_side) and len(reversed_side):
        text += (
            f" The paper's up < down holds with {'; '.join(names[x] for x in paper_side.index)}; it is reversed "
            f"with {'; '.join(names[x] for x in reversed_side.index)}."
        )
    elif len(paper_side):
        text += " Every training set gives the paper's up < down: the training data does not reverse it here."
    else:
        text += " Every training set reverses the paper's up < down: the training data alone does not explain it here."
    if primary in table.index:
        text += f" The primary row ({model}) trains on {table.loc[primary, 'training_data']}."
    return text
