"""What notebook 07 records: Table 5, §5's findings as named tests, and per-model reports in one key scheme.

Intuition: a :class:`SetiReport` holds one model's (or, after :func:`concat`,
several models') scores, per-rule accuracies and few-shot curves; its
``metrics()`` gives the keys the runner stores, and :func:`findings` tests
the paper's qualitative claims on this run's numbers (nothing asserted in
advance). The ``*_report`` functions run a model on every dataset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data import sick as sick_data
from mtlib.experiments.seti._builder import POOL_COLUMNS, SetiData, universe
from mtlib.experiments.seti._checks import check_template
from mtlib.experiments.seti._facts import (
    KINDS,
    MISSING_RULES,
    PAPER_TABLE5,
    RULE_SYMBOLS,
    SETTINGS,
    check_fewshot,
    parse_settings,
)
from mtlib.experiments.seti._inferences import extract_natural_inferences, subsample_pool
from mtlib.experiments.seti._scoring import evaluate_fewshot, evaluate_finetune, evaluate_heads
from mtlib.models.loading import load
from mtlib.models.training.settings import ClassifierSettings
from mtlib.relations.errors import check_count, check_frame, check_seeds, refuse
from mtlib.utils.context import RunContext

# --- Table 5 --------------------------------------------------------------------------------------


def table5(datasets: Mapping[tuple[int, str, str], SetiData]) -> pd.DataFrame:
    """Counts per task, setting, inference type and split for both configurations, beside the paper's.

    Types follow the paper: PI_lex and PI_stru are reported as PI_nat; train and dev count per type, test
    in total (as Table 5 does).
    """
    rows: dict[tuple[int, str, str], dict[str, Any]] = {}
    for (task, setting, config), d in datasets.items():
        cg = datasets.get((task, setting, "cg"), d)
        types = pd.concat([cg.train, cg.dev])["kind"].replace({"PI_lex": "PI_nat", "PI_stru": "PI_nat"})
        for i, t in enumerate(dict.fromkeys(types)):
            row = rows.setdefault((task, setting, t), {})
            for split in ("train", "dev"):
                frame = getattr(d, split)
                kinds = frame["kind"].replace({"PI_lex": "PI_nat", "PI_stru": "PI_nat"})
                row[f"{config}_{split}"] = (
                    int((kinds == t).sum()) if config == "cg" else (len(frame) if i == 0 else None)
                )
            row[f"{config}_test"] = len(d.test) if i == 0 else None
    ours = pd.DataFrame([{"task": k[0], "setting": k[1], "type": k[2], **v} for k, v in rows.items()])
    paper = PAPER_TABLE5.rename(columns={c: f"paper_{c}" for c in PAPER_TABLE5.columns[3:]})
    out = ours.merge(paper, on=["task", "setting", "type"], how="left")
    return out.set_index(["task", "setting", "type"])


# --- the paper's qualitative findings as named tests ----------------------------------------------


def findings(
    acc: pd.DataFrame, fewshot: pd.DataFrame | None = None, *, near_chance: float = 0.15, high: float = 0.9
) -> pd.DataFrame:
    """§5's findings tested on this run's numbers.

    Args:
        acc: One row per model, task, setting, config and seed with ``accuracy``.
        fewshot: One row per model, task, setting, shots and seed with ``accuracy`` (optional).
        near_chance: Task 2 non-trivial counts as "near 50%" within this distance.
        high: Task 3 −R_ver counts as "high" at or above this accuracy.

    Returns:
        One row per finding and model: ``finding``, ``model``, ``value`` (the number tested), ``holds``,
        ``detail``.
    """
    from scipy import stats as sstats

    rows = []
    mean = acc.groupby(["model", "task", "setting", "config"])["accuracy"].mean()
    for model in acc["model"].unique():
        for task, setting in [s for s in SETTINGS if "non-trivial" in s[1]]:
            try:
                cg, iid = mean[(model, task, setting, "cg")], mean[(model, task, setting, "id")]
            except KeyError:
                continue
            a = acc[(acc["model"] == model) & (acc["task"] == task) & (acc["setting"] == setting)]
            x = a[a["config"] == "id"].sort_values("seed")["accuracy"].to_numpy()
            y = a[a["config"] == "cg"].sort_values("seed")["accuracy"].to_numpy()
            p = (
                float(sstats.ttest_rel(x, y).pvalue)
                if len(x) == len(y) and len(x) > 1 and np.ptp(x - y) > 0
                else float("nan")
            )
            rows.append(
                {
                    "finding": f"ID > CG, task {task} {setting}",
                    "model": model,
                    "value": iid - cg,
                    "holds": bool(iid > cg),
                    "detail": f"ID {iid:.3f} vs CG {cg:.3f} (paired t-test over seeds p={p:.3g})",
                }
            )
        if (model, 2, "non-trivial", "cg") in mean:
            v = mean[(model, 2, "non-trivial", "cg")]
            rows.append(
                {
                    "finding": "task 2 non-trivial CG near 50%",
                    "model": model,
                    "value": v,
                    "holds": bool(abs(v - 0.5) <= near_chance),
                    "detail": f"accuracy {v:.3f}; |acc - 0.5| <= {near_chance}? (the test set is all "
                    "non-entailment, so 50% means half predicted entailment)",
                }
            )
        if (model, 3, "non-trivial-R_ver", "cg") in mean:
            v = mean[(model, 3, "non-trivial-R_ver", "cg")]
            rows.append(
                {
                    "finding": "task 3 -R_ver CG high (verb shortcut)",
                    "model": model,
                    "value": v,
                    "holds": bool(v >= high),
                    "detail": f"accuracy {v:.3f} >= {high}?",
                }
            )
    if fewshot is not None and len(fewshot):
        fs = fewshot.groupby(["model", "task", "setting", "shots"])["accuracy"].mean()
        for (model, task, setting), part in fs.groupby(level=[0, 1, 2]):
            curve = part.droplevel([0, 1, 2])
            k = MISSING_RULES.get((task, setting))
            if k is None or 0 not in curve.index or k not in curve.index:
                continue
            gain = curve[k] - curve[0]
            rows.append(
                {
                    "finding": f"few-shot: task {task} {setting} gains by {k} shots",
                    "model": model,
                    "value": gain,
                    "holds": bool(gain > 0.05),
                    "detail": f"{curve[0]:.3f} at 0 shots -> {curve[k]:.3f} at {k} (missing rule types: {k}); "
                    f"max {curve.max():.3f} at {int(curve.idxmax())}",
                }
            )
    return pd.DataFrame(rows, columns=["finding", "model", "value", "holds", "detail"])


# --- reports: what notebook 07 records, in the one key scheme -------------------------------------


def _empty(columns: Sequence[str] = ()) -> pd.DataFrame:
    return pd.DataFrame(columns=list(columns))


@dataclass
class PoolReport:
    """The natural inferences found in a SICK-format file (:func:`natural_pool`).

    Attributes:
        sick: The loaded file.
        found: Every natural inference :func:`extract_natural_inferences` finds (both directions).
        pool: The subsample a run uses (:func:`subsample_pool`).
    """

    sick: pd.DataFrame
    found: pd.DataFrame
    pool: pd.DataFrame

    @property
    def counts(self) -> pd.Series:
        """Lexical and structural inferences found (A→B), as the paper counts them."""
        return self.found[self.found["direction"] == "AB"]["type"].value_counts()

    @property
    def headline(self) -> list[str]:
        return list(self.metrics())

    def metrics(self) -> dict[str, Any]:
        """``pool/lexical``, ``pool/structural`` (A→B pairs found), ``pool/sick_pairs``, ``pool/used_inferences``."""
        c = self.counts
        return {
            "pool/lexical": int(c.get("lexical", 0)),
            "pool/structural": int(c.get("structural", 0)),
            "pool/sick_pairs": len(self.sick),
            "pool/used_inferences": len(self.pool),
        }

    def summary(self) -> str:
        m = self.metrics()
        return (
            f"{m['pool/sick_pairs']:,} SICK pairs: {m['pool/lexical']:,} lexical and {m['pool/structural']:,} "
            f"structural (A→B); this run uses {m['pool/used_inferences']:,} directed inferences"
        )

    def table(self) -> pd.DataFrame:
        """Used inferences per type and label."""
        return (
            self.pool.groupby(["type", "label"]).size().unstack().rename(columns={0: "non-entailment", 1: "entailment"})
        )


def natural_pool(sick_path: str = "", n_lexical: int = 0, n_structural: int = 0, seed: int = 0) -> PoolReport:
    """Load a SICK-format file (empty: the bundled pool), find its natural inferences, subsample them.

    Raises:
        MtlibInputError: ``sick_path`` not a string or path, a count or ``seed`` not an integer >= 0.
    """
    if not isinstance(sick_path, (str, PurePath)):
        raise refuse("natural_pool", "sick_path", "a path (str, empty for the bundled pool)", sick_path)
    for name, value in (("n_lexical", n_lexical), ("n_structural", n_structural), ("seed", seed)):
        check_count(value, "natural_pool", name)
    frame = sick_data.load_sick(sick_path or sick_data.BUNDLED_SICK)
    found = extract_natural_inferences(frame)
    return PoolReport(frame, found, subsample_pool(found, n_lexical, n_structural, seed=seed))


@dataclass
class SetiReport:
    """Scores of one model (or of several, after :func:`concat`) on the SETI settings.

    Metric keys (no model prefix; one model's frames): ``accuracy/task<k>/<setting>/<config>`` (mean over
    seeds) and ``.../seed<s>``, ``baseline/task<k>/<setting>/<config>`` (majority class),
    ``fewshot/task<k>/<shots>`` (mean over seeds), ``finding/<finding>`` (a named test's outcome);
    ``head_device`` (the torch device the heads or fine-tuning ran on, ``"auto"`` resolved) and
    ``encoder_device`` (the device the frozen encoder's model reports; ``cpu`` for static vectors),
    when the report was made by :func:`head_report`, :func:`finetune_report` or :func:`fewshot_report`.

    Attributes:
        model: The model's label (``minilm``; ``minilm-ft`` for a fine-tuned cross-encoder).
        scores: One row per setting, configuration and seed (``accuracy``, ``baseline``, sizes).
        by_rule: Accuracy per composition rule / primitive kind, per run.
        fewshot: One row per few-shot setting, shots and seed.
        findings: :func:`findings` rows.
        note: One line on how the run went (e.g. model calls).
        device: The device the run's torch parts used (``""``: not recorded).
        encoder_device: The device of the frozen encoder (``""``: no encoder, or not recorded).
    """

    model: str
    scores: pd.DataFrame = field(default_factory=_empty)
    by_rule: pd.DataFrame = field(default_factory=_empty)
    fewshot: pd.DataFrame = field(default_factory=_empty)
    findings: pd.DataFrame = field(default_factory=_empty)
    note: str = ""
    device: str = ""
    encoder_device: str = ""

    @property
    def headline(self) -> list[str]:
        return ["accuracy/task2/non-trivial/cg", "accuracy/task2/non-trivial/id"]

    def metrics(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if len(self.scores):
            for (task, setting, config), part in self.scores.groupby(["task", "setting", "config"], sort=False):
                key = f"task{task}/{setting}/{config}"
                out[f"accuracy/{key}"] = float(part["accuracy"].mean())
                out[f"baseline/{key}"] = float(part["baseline"].mean())
                out.update({f"accuracy/{key}/seed{int(s)}": float(a) for s, a in zip(part["seed"], part["accuracy"])})
        if len(self.fewshot):
            for (task, shots), part in self.fewshot.groupby(["task", "shots"]):
                out[f"fewshot/task{task}/{int(shots)}"] = float(part["accuracy"].mean())
        out.update({f"finding/{r.finding}": bool(r.holds) for r in self.findings.itertuples()})
        if self.device:
            out["head_device"] = self.device  # "device" is the run's own key (mtlib.run.results.RUN_KEYS)
        if self.encoder_device:
            out["encoder_device"] = self.encoder_device
        return out

    def summary_table(self) -> pd.DataFrame:
        """Mean accuracy and majority baseline per model, task and setting (rows), configuration (columns)."""
        keys = ["model", "task", "setting", "config"]
        return self.scores.groupby(keys, sort=False)[["accuracy", "baseline"]].mean().unstack("config").round(3)

    def task2_sentence(self) -> str:
        """Task 2 non-trivial, CG against ID, beside the majority baselines (empty if not run)."""
        m, key = self.metrics(), "task2/non-trivial"
        if f"accuracy/{key}/cg" not in m or f"accuracy/{key}/id" not in m:
            return f"Task 2 non-trivial was not run for {self.model}."
        return (
            f"Task 2 non-trivial, {self.model}: CG {m[f'accuracy/{key}/cg']:.3f} vs ID {m[f'accuracy/{key}/id']:.3f} "
            f"(majority baselines {m[f'baseline/{key}/cg']:.3f} and {m[f'baseline/{key}/id']:.3f})"
        )


def concat(reports: Iterable[SetiReport], model: str = "all") -> SetiReport:
    """Several models' reports as one (frames stacked; for cross-model tables and figures)."""
    reports = list(reports)

    def stack(name: str) -> pd.DataFrame:
        frames = [getattr(r, name) for r in reports if len(getattr(r, name))]
        return pd.concat(frames, ignore_index=True) if frames else _empty()

    return SetiReport(model, stack("scores"), stack("by_rule"), stack("fewshot"), stack("findings"))


def test_findings(report: SetiReport, **kwargs: Any) -> SetiReport:
    """§5's findings (:func:`findings`) tested on a several-model report's scores and few-shot curves."""
    return SetiReport(
        report.model, findings=findings(report.scores, report.fewshot if len(report.fewshot) else None, **kwargs)
    )


def by_model(report: SetiReport) -> dict[str, SetiReport]:
    """Split a several-model report (e.g. with :func:`findings` rows) into one report per model."""
    frames = ("scores", "by_rule", "fewshot", "findings")
    names = dict.fromkeys(m for f in frames for m in getattr(report, f).get("model", pd.Series(dtype=object)))
    return {
        m: SetiReport(
            m,
            *(
                getattr(report, f)[getattr(report, f)["model"] == m] if len(getattr(report, f)) else _empty()
                for f in frames
            ),
        )
        for m in names
    }


def head_report(
    model: str,
    datasets: Mapping[tuple[int, str, str, int], SetiData],
    pool: pd.DataFrame,
    *,
    template: str,
    head: str,
    max_train: int,
    context: RunContext,
    verbs: Any = None,
) -> SetiReport:
    """A frozen encoder with a head on pair features, on every dataset (:func:`evaluate_heads`).

    ``template`` is the premise template the datasets were built with, ``verbs`` their verb table
    (None: Table 6's), ``head`` ``"linear"`` or ``"mlp"``, ``max_train`` the most training items per run
    (0 keeps all).

    Every sentence any dataset can use (:func:`universe`) is encoded once first; :attr:`SetiReport.note`
    says how many model calls that and the runs took (0 when cached). The model loads and the heads train in
    ``context`` (the run's); the report records the devices used (:attr:`SetiReport.device`,
    :attr:`SetiReport.encoder_device`).

    Raises:
        MtlibInputError: ``context`` not a RunContext, a ``template`` without ``{verb}`` and ``{s}``,
            ``pool`` not a DataFrame of natural inferences, ``datasets`` not a mapping, ``max_train`` < 0.
    """
    _check_report_inputs("head_report", model, datasets, context, max_train=max_train)
    check_frame(pool, "head_report", "pool", POOL_COLUMNS)
    check_template(template, "head_report")
    encoder = load(model, context=context)
    sentences = universe(pool, verbs, template)
    before = encoder.calls
    encoder.embed(sentences)
    calls = encoder.calls
    scores, rules = evaluate_heads(encoder, model, datasets, head=head, max_train=max_train, context=context)
    note = (
        f"{model}: {len(sentences):,} sentences encoded in {calls - before} model calls (0 when cached); "
        f"{len(scores)} runs added {encoder.calls - calls} model calls"
    )
    return SetiReport(model, scores, rules, note=note, device=context.device, encoder_device=str(encoder.device))


def _check_report_inputs(where: str, model: Any, datasets: Any, context: Any, **counts: Any) -> None:
    """The checks every report entry makes."""
    if not isinstance(model, str) or not model:
        raise refuse(where, "model", "a model name (non-empty str)", model)
    if not isinstance(datasets, Mapping):
        raise refuse(where, "datasets", "a mapping {(task, setting, config, seed): SetiData} (build_seeds)", datasets)
    for name, value in counts.items():
        check_count(value, where, name)
    if not isinstance(context, RunContext):
        raise refuse(where, "context", "a RunContext (Spec.context(), or RunContext.resolve(device=...))", context)


def finetune_report(
    model: str,
    datasets: Mapping[tuple[int, str, str, int], SetiData],
    *,
    tasks: Sequence[str],
    seeds: Sequence[int],
    train_size: int,
    test_size: int,
    settings: ClassifierSettings,
    context: RunContext,
) -> SetiReport:
    """``model`` fine-tuned as a cross-encoder on the named task settings (:func:`evaluate_finetune`),
    labelled ``<model>-ft``.

    Args:
        model: A model name.
        datasets: ``{(task, setting, config, seed): SetiData}`` (:func:`build_seeds`).
        tasks: ``<task>/<setting>`` names as :func:`parse_settings` reads them (``["all"]``: every one).
        seeds: The seeds to fine-tune.
        train_size, test_size: Subsample sizes per run (0 keeps all).
        settings: The fine-tuning's :class:`~mtlib.models.ClassifierSettings` (epochs, lr, batch size, ...).
        context: The run's context (its device is recorded as :attr:`SetiReport.device`).

    Raises:
        MtlibInputError: ``seeds`` not a non-empty list of integers, ``context`` not a RunContext,
            ``datasets`` not a mapping, ``tasks`` a single string.
        SetiError: an unknown task setting name.
    """
    name = f"{model}-ft"
    _check_report_inputs("finetune_report", model, datasets, context)
    check_seeds(seeds, "finetune_report")
    if isinstance(tasks, str):
        raise refuse("finetune_report", "tasks", "a list of '<task>/<setting>' names (or ['all'])", tasks)
    scores, rules = evaluate_finetune(
        model,
        datasets,
        tasks=parse_settings(tasks),
        seeds=seeds,
        train_size=train_size,
        test_size=test_size,
        settings=settings,
        context=context,
    )
    if not len(scores):
        return SetiReport(name, device=context.device)
    return SetiReport(name, scores.assign(model=name), rules.assign(model=name), device=context.device)


def fewshot_report(
    model: str,
    datasets: Mapping[tuple[int, str, str, int], SetiData],
    shots: Sequence[int],
    *,
    how: str,
    mode: str,
    fewshot_epochs: int,
    head: str,
    max_train: int,
    finetune_train_size: int,
    settings: ClassifierSettings,
    context: RunContext,
) -> SetiReport:
    """The few-shot curves of §5.2 (:func:`evaluate_fewshot`) for one model.

    ``how="head"``: the frozen encoder with a ``head`` trained on at most ``max_train`` items;
    ``"finetune"``: the cross-encoder fine-tuned on at most ``finetune_train_size`` items with ``settings``
    (notebook 07's ``finetune_settings``), labelled ``<model>-ft``. ``mode`` and ``fewshot_epochs`` as
    :func:`check_fewshot` describes them. The model, the heads and fine-tuning run in ``context``; the
    report records the devices used (:attr:`SetiReport.device`, :attr:`SetiReport.encoder_device`).

    Raises:
        SetiError: unknown few-shot settings (:func:`check_fewshot`).
        MtlibInputError: ``shots`` not a non-empty list of integers >= 0, ``context`` not a RunContext,
            ``datasets`` not a mapping, a size < 0.
    """
    check_fewshot(how, mode, fewshot_epochs, head)
    _check_report_inputs(
        "fewshot_report", model, datasets, context, max_train=max_train, finetune_train_size=finetune_train_size
    )
    check_seeds(shots, "fewshot_report", "shots")
    encoder = load(model, context=context)
    frame = evaluate_fewshot(
        encoder,
        model,
        datasets,
        shots,
        how=how,
        mode=mode,
        fewshot_epochs=fewshot_epochs,
        head=head,
        max_train=max_train if how == "head" else finetune_train_size,
        settings=settings,
        context=context,
    )
    return SetiReport(
        model + ("-ft" if how == "finetune" else ""),
        fewshot=frame,
        device=context.device,
        encoder_device=str(encoder.device) if how == "head" else "",
    )


def rule_table(by_rule: pd.DataFrame, config: str = "cg") -> pd.DataFrame:
    """Accuracy per rule (columns) and model/setting (rows), mean over seeds, for one configuration."""
    part = by_rule[by_rule["config"] == config]
    part = part.assign(row=part["model"] + " · task " + part["task"].astype(str) + " " + part["setting"])
    table = part.pivot_table(index="row", columns="group", values="accuracy", aggfunc="mean", sort=False)
    return table[
        [c for c in table.columns if c.startswith(tuple(RULE_SYMBOLS.values()))]
        + [c for c in table.columns if c in KINDS]
    ]
