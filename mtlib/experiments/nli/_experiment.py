"""Notebook 02 end to end: load contexts, insertions and extra training pairs, test every model.

Intuition: :func:`run` is the whole experiment in one call; a notebook takes
the same two steps, :func:`load` then :func:`analyse`, so a reader sees the
data before the models run. Every value comes from the
:class:`~mtlib.experiments.nli.spec.Spec`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtlib.experiments.nli._ablation import TrainingAblation, sets_of, subset_external, training_label, training_sets
from mtlib.experiments.nli._data import NLIData, load_data
from mtlib.experiments.nli._external import ExternalNLI, load_external
from mtlib.experiments.nli._report import CompositionalityReport, compositionality
from mtlib.experiments.nli.spec import Spec
from mtlib.experiments.outcome import Outcome


@dataclass
class NLIInputs:
    """What notebook 02 runs on: the NLI-XY compositions (:class:`NLIData`) and the extra training pairs."""

    data: NLIData
    external: ExternalNLI | None


def load(spec: Spec) -> NLIInputs:
    """The contexts, insertions and extra training pairs the spec names."""
    data = load_data(
        spec.contexts_path,
        spec.insertions_path,
        train_fraction=spec.train_contexts_fraction,
        max_contexts=spec.max_contexts,
        max_insertions=spec.max_insertions,
        seed=spec.seed,
    )
    return NLIInputs(data, load_external(spec.sick_path, spec.med_path))


def _compositionality(spec: Spec, name: str, data: NLIData, external: ExternalNLI | None) -> CompositionalityReport:
    """One model row, every setting from the spec."""
    return compositionality(
        name,
        data,
        layer=spec.layer,
        entailment_label=spec.entailment_label,
        n_boot=spec.n_boot,
        permutations=spec.permutations,
        seed=spec.seed,
        context=spec.context(),
        how=spec.how,
        external=external,
        settings=spec.finetune(),
    )


def ablate(spec: Spec, inputs: NLIInputs, primary: CompositionalityReport) -> TrainingAblation:
    """The primary model row again with its NLI classifier trained on each of ``spec.ablation``'s sets.

    Every entry runs the same :func:`~mtlib.experiments.nli._report.compositionality` as the row itself (the
    probe, the split and the tests are the same; only the NLI classifier's external training pairs change). The
    entry that equals the primary row's own training data reuses its report. Without ``spec.ablation`` the
    result holds the primary row alone and records nothing.
    """
    if not spec.ablation:
        return TrainingAblation.alone(primary)
    own = training_label(sets_of(primary))
    reports = {}
    for entry in spec.ablation:
        sets = training_sets(entry)
        reports[training_label(sets)] = (
            primary
            if training_label(sets) == own
            else _compositionality(spec, primary.model, inputs.data, subset_external(inputs.external, sets))
        )
    return TrainingAblation(primary.model, reports, own)


def analyse(spec: Spec, inputs: NLIInputs) -> Outcome:
    """Pairwise compositionality of every model of the spec; a fine-tuned model is its own row (NAME-ft).

    With ``spec.ablation`` the primary row is also run with each training set (:func:`ablate`), recorded as a
    run-level part (keys ``ablation/...``).
    """
    reports = {}
    for name in spec.models:
        report = _compositionality(spec, name, inputs.data, inputs.external)
        reports[report.model] = report
    primary = next(iter(reports.values()))
    ablation = ablate(spec, inputs, primary)
    return Outcome(reports=reports, parts=[ablation] if ablation.enabled else [], data=inputs, spec=spec)


def ablation_of(outcome: Outcome) -> TrainingAblation:
    """The outcome's training-data ablation; without one, the primary row alone (its sentence says so)."""
    for part in outcome.parts:
        if isinstance(part, TrainingAblation):
            return part
    return TrainingAblation.alone(outcome.report)


def run(spec: Spec) -> Outcome:
    """Notebook 02's experiment in one call: :func:`load`, then :func:`analyse`."""
    return analyse(spec, load(spec))
