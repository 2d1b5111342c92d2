"""Notebook 02 end to end: load contexts, insertions and extra training pairs, test every model.

Intuition: :func:`run` is the whole experiment in one call; a notebook takes
the same two steps, :func:`load` then :func:`analyse`, so a reader sees the
data before the models run. Every value comes from the
:class:`~mtlib.experiments.nli.spec.Spec`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtlib.experiments.nli.data import NLIData, load_data
from mtlib.experiments.nli.external import ExternalNLI, load_external
from mtlib.experiments.nli.report import compositionality
from mtlib.experiments.nli.spec import Spec
from mtlib.experiments.outcome import Outcome

__all__ = ["NLIInputs", "analyse", "load", "run"]


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


def analyse(spec: Spec, inputs: NLIInputs) -> Outcome:
    """Pairwise compositionality of every model of the spec; a fine-tuned model is its own row (NAME-ft)."""
    reports = {}
    for name in spec.models:
        report = compositionality(
            name,
            inputs.data,
            layer=spec.layer,
            entailment_label=spec.entailment_label,
            n_boot=spec.n_boot,
            permutations=spec.permutations,
            seed=spec.seed,
            device=spec.device,
            how=spec.how,
            external=inputs.external,
            settings=spec.finetune(),
        )
        reports[report.model] = report
    return Outcome(reports=reports, data=inputs, spec=spec)


def run(spec: Spec) -> Outcome:
    """Notebook 02's experiment in one call: :func:`load`, then :func:`analyse`."""
    return analyse(spec, load(spec))
