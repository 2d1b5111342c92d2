"""Notebook 01 end to end: load the reviews, score every model, one report per model row.

Intuition: :func:`run` is the whole experiment in one call (a script, a test, a
cluster job); a notebook takes the same two steps, :func:`load` then
:func:`analyse`, so a reader sees the data before the models run. Every value
comes from the :class:`~mtlib.experiments.sentiment.spec.Spec`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from mtlib.experiments.outcome import Outcome
from mtlib.experiments.sentiment._data import load_data, load_dev, transformations
from mtlib.experiments.sentiment._report import systematicity
from mtlib.experiments.sentiment._scorer import SentimentScorer, build_scorer
from mtlib.experiments.sentiment.spec import Spec
from mtlib.relations.transformations.concatenation import Concatenation


@dataclass
class Reviews:
    """What notebook 01 runs on.

    Attributes:
        train: ``text, label`` that train the heads (or fine-tune).
        sources: The source set D: ``text, label``; ``attrs["dropped_neutral"]`` counts the neutral
            sentences the loader dropped.
        dev: ``text, label`` that measure a trained classifier, or None (20% of ``train`` held out).
        transformations: The paper's six (T1..T6) and the user's own (U1, ...).
    """

    train: pd.DataFrame
    sources: pd.DataFrame
    dev: pd.DataFrame | None
    transformations: list[Concatenation]

    def summary(self) -> str:
        """Sizes in one line."""
        n = len(self.sources)
        return (
            f"|D| = {n} reviews, {len(self.transformations)} transformations, "
            f"{n * (n - 1) // 2:,} pairs per transformation; {len(self.train)} training reviews"
        )


def load(spec: Spec) -> Reviews:
    """The reviews and the transformations the spec names (bundled, or SST files)."""
    train, sources = load_data(
        spec.data_path,
        spec.data_format,
        train_fraction=spec.train_fraction,
        n_sources=spec.n_sources,
        seed=spec.seed,
        train_path=spec.train_path,
        train_format=spec.train_format,
    )
    dev = load_dev(spec.dev_path, spec.train_format)
    return Reviews(train, sources, dev, transformations(spec.extra_transformations))


def scorer_for(name: str, data: Reviews, spec: Spec) -> SentimentScorer:
    """s_pos of one model of the spec: its own positive class, a head trained here, or a fine-tuning."""
    dev = (list(data.dev["text"]), list(data.dev["label"])) if data.dev is not None else None
    return build_scorer(
        name,
        data.train["text"],
        data.train["label"],
        settings=spec.finetune(),
        how=spec.how,
        context=spec.context(),
        seed=spec.seed,
        positive_label=spec.positive_label,
        dev=dev,
    )


def analyse(spec: Spec, data: Reviews) -> Outcome:
    """Pairwise systematicity of every model of the spec; a fine-tuned model is its own row (NAME-ft)."""
    reports = {}
    for name in spec.models:
        report = systematicity(
            scorer_for(name, data, spec),
            data.sources,
            data.transformations,
            n_boot=spec.n_boot,
            seed=spec.seed,
            stats_device=spec.context().stats_device,
        )
        reports[report.model] = report
    return Outcome(reports=reports, data=data, spec=spec)


def run(spec: Spec) -> Outcome:
    """Notebook 01's experiment in one call: :func:`load`, then :func:`analyse`."""
    return analyse(spec, load(spec))
