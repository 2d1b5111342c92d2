"""Notebook 07 end to end: build the settings from the pool, score every model, test the paper's findings.

Intuition: :func:`run` is the whole experiment in one call (a script, a test,
a cluster job); a notebook takes the same two steps, :func:`load` then
:func:`analyse`, so a reader sees the pool and Table 5 before any model runs.
Every value comes from the :class:`~mtlib.experiments.seti.spec.Spec`.

A model row can come from several parts of the study: ``minilm`` has a head
on every setting, few-shot curves and its findings; ``minilm-ft`` its
fine-tuned runs (and fine-tuned few-shot curves). :func:`analyse` gives each
row one :class:`~mtlib.experiments.seti._report.SetiReport` holding all of
them, so ``outcome.metrics()`` gives the keys the notebook records, and
``concat(outcome.reports.values())`` every frame for the tables and figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd

from mtlib.experiments.outcome import Outcome
from mtlib.experiments.seti._builder import SetiData, build_seeds
from mtlib.experiments.seti._facts import FEWSHOT_SETTINGS
from mtlib.experiments.seti._report import (
    PoolReport,
    SetiReport,
    by_model,
    concat,
    fewshot_report,
    finetune_report,
    head_report,
    natural_pool,
    table5,
    test_findings,
)
from mtlib.experiments.seti.spec import Spec

Datasets = dict[tuple[int, str, str, int], SetiData]


@dataclass
class SetiInputs:
    """What notebook 07 runs on.

    Attributes:
        pool: The natural inferences found in the SICK-format file and the subsample used.
        datasets: ``{(task, setting, config, seed): SetiData}``: every setting, both configurations, every seed.
        skipped: ``{(task, setting): reason}`` for the settings the pool cannot build.
        few: The few-shot datasets: the three non-trivial sub-tasks of §5.2, Compositional Generalization
            only, each with D_few of ``max(shots)`` items.
        seeds: The seeds the datasets were built with.
    """

    pool: PoolReport
    datasets: Datasets
    skipped: dict[tuple[int, str], str]
    few: Datasets
    seeds: list[int]

    def table5(self) -> pd.DataFrame:
        """Table 5 (sizes beside the paper's) of the first seed's datasets."""
        return table5({key[:3]: data for key, data in self.datasets.items() if key[3] == self.seeds[0]})


def load(spec: Spec) -> SetiInputs:
    """The pool of natural inferences the spec names, and every setting (and few-shot setting) built from it."""
    pool = natural_pool(spec.sick_path, spec.n_lexical, spec.n_structural, seed=spec.seed)
    datasets, skipped = build_seeds(pool.pool, spec.seeds, template=spec.template)
    few, _ = build_seeds(
        pool.pool,
        spec.seeds,
        settings=FEWSHOT_SETTINGS,
        configs=["cg"],
        template=spec.template,
        n_few=max(spec.shots, default=0),
    )
    return SetiInputs(pool, datasets, skipped, few, list(spec.seeds))


def analyse(spec: Spec, data: SetiInputs) -> Outcome:
    """Every model of the spec: heads on every setting, fine-tuned cross-encoders, few-shot curves, then §5's
    findings tested on all of them; one report per model row, the first head model's the primary one.

    The pool's counts are the run-level part of the outcome.
    """
    settings = spec.finetune()
    scored: dict[str, SetiReport] = {}
    for name in spec.head_models:
        report = head_report(
            name,
            data.datasets,
            data.pool.pool,
            template=spec.template,
            head=spec.head,
            max_train=spec.max_train,
            context=spec.context(),
        )
        scored[report.model] = report
    for name in spec.finetune_models:
        report = finetune_report(
            name,
            data.datasets,
            tasks=spec.finetune_tasks,
            seeds=spec.finetune_seeds,
            train_size=spec.finetune_train_size,
            test_size=spec.finetune_test_size,
            settings=settings,
            context=spec.context(),
        )
        scored[report.model] = report
    fewshot: dict[str, SetiReport] = {}
    for name in spec.fewshot_models:
        report = fewshot_report(
            name,
            data.few,
            spec.shots,
            how=spec.fewshot_how,
            mode=spec.fewshot_mode,
            fewshot_epochs=spec.fewshot_epochs,
            head=spec.head,
            max_train=spec.max_train,
            finetune_train_size=spec.finetune_train_size,
            settings=settings,
            context=spec.context(),
        )
        fewshot[report.model] = report
    found = by_model(test_findings(concat([*scored.values(), *fewshot.values()])))
    rows = dict.fromkeys([*scored, *fewshot, *found])
    reports = {row: _one_row([p[row] for p in (scored, fewshot, found) if row in p]) for row in rows}
    primary = spec.head_models[0] if spec.head_models else None
    return Outcome(reports=reports, parts=[data.pool], primary=primary, data=data, spec=spec)


def run(spec: Spec) -> Outcome:
    """Notebook 07's experiment in one call: :func:`load`, then :func:`analyse`."""
    return analyse(spec, load(spec))


def _one_row(parts: Sequence[SetiReport]) -> SetiReport:
    """The reports of one model row as one: frames stacked, the first note, the last device recorded (as a run
    that records the parts one after the other keeps)."""
    merged = concat(parts, model=parts[0].model)
    note = next((p.note for p in parts if p.note), "")
    device = next((p.device for p in reversed(parts) if p.device), "")
    encoder = next((p.encoder_device for p in reversed(parts) if p.encoder_device), "")
    return replace(merged, note=note, device=device, encoder_device=encoder)
