"""Notebook 03 end to end: load the word pairs, test every model's transitivity.

Intuition: :func:`run` is the whole experiment in one call; a notebook takes
the same two steps, :func:`load` then :func:`analyse`, so a reader sees the
pairs before the models run. Every value comes from the
:class:`~mtlib.experiments.lexical.spec.Spec`.
"""

from __future__ import annotations

from mtlib.experiments.lexical._data import LexicalData, load_data
from mtlib.experiments.lexical._report import transitivity
from mtlib.experiments.lexical.spec import Spec
from mtlib.experiments.outcome import Outcome


def load(spec: Spec) -> LexicalData:
    """The word pairs of every language of the spec, split, with the vocabulary under test."""
    return load_data(
        spec.languages,
        spec.data_dir,
        vocabulary_split=spec.vocabulary_split,
        max_vocabulary=spec.max_vocabulary,
        seed=spec.seed,
    )


def analyse(spec: Spec, data: LexicalData) -> Outcome:
    """Three-way transitivity of every model of the spec; a fine-tuned model is its own row (NAME-ft)."""
    reports = {}
    for name in spec.models:
        report = transitivity(
            name,
            data,
            how=spec.how,
            head_settings=spec.heads(),
            finetune_settings=spec.finetune(),
            finetune_classes=spec.finetune_classes,
            predict_batch_size=spec.predict_batch_size,
            max_pairs=spec.max_pairs,
            n_sample=spec.n_sample,
            n_boot=spec.n_boot,
            n_top=spec.n_top,
            seed=spec.seed,
            context=spec.context(),
            per_language=spec.finetune_per_language,
            heldout_fraction=spec.finetune_heldout_fraction,
        )
        reports[report.model] = report
    return Outcome(reports=reports, data=data, spec=spec)


def run(spec: Spec) -> Outcome:
    """Notebook 03's experiment in one call: :func:`load`, then :func:`analyse`."""
    return analyse(spec, load(spec))
