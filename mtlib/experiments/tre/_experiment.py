"""Notebook 06 end to end: load and score the trees, then fit TRE for every encoder.

Intuition: :func:`run` is the whole experiment in one call; a notebook takes
the same two steps, :func:`load` then :func:`analyse`, so a reader sees the
trees and their ground-truth scores before any encoder runs. Every value comes
from the :class:`~mtlib.experiments.tre.spec.Spec`. The sensitivity sweep and
the tables and figures that lay several encoders side by side are drawn by the
notebook from the outcome's reports (:func:`~mtlib.experiments.tre.sweep`,
:func:`~mtlib.experiments.tre.table2_from`): they record no metric.
"""

from __future__ import annotations

from mtlib.experiments.outcome import Outcome
from mtlib.experiments.tre._report import GroundTruth, ground_truth, tree_reconstruction
from mtlib.experiments.tre.spec import Spec


def load(spec: Spec) -> GroundTruth:
    """The trees the spec names (and its fit-only trees), with their Tree Impurity and WNS."""
    return ground_truth(
        spec.data_path,
        fit_path=spec.fit_path,
        max_sentences=spec.max_sentences,
        weight=spec.wns_weight,
        average=spec.wns_average,
    )


def analyse(spec: Spec, truth: GroundTruth) -> Outcome:
    """TRE of every encoder of the spec on ``truth``'s trees, and its correlations (Table 2 rows).

    Returns:
        An :class:`~mtlib.experiments.outcome.Outcome`: ``parts`` is the ground truth (counts, mean TI and
        WNS, the paper's examples); ``reports`` one :class:`~mtlib.experiments.tre._report.TREReport` per
        encoder, the first being the primary one.
    """
    fit = spec.fit_settings()
    reports = {
        name: tree_reconstruction(name, truth, fit=fit, seed=spec.seed, n_boot=spec.n_boot, context=spec.context())
        for name in spec.models
    }
    return Outcome(reports=reports, parts=[truth], data=truth, spec=spec)


def run(spec: Spec) -> Outcome:
    """Notebook 06's experiment in one call: :func:`load`, then :func:`analyse`."""
    return analyse(spec, load(spec))
