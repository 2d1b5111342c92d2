"""The parameters of notebook 00_tour, declared once (:mod:`mtlib.experiments.spec`)."""

from __future__ import annotations

from dataclasses import dataclass

from mtlib.experiments import spec as base
from mtlib.experiments.spec import param

__all__ = ["Spec"]


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 00_tour: a suite of seven metamorphic tests on two sentiment models, a failing case, their
    comparison and three exercises."""

    notebook = "00_tour"

    profile: str = param("quick", "non-empty", "run profile: smoke, quick, real or paper (selects sizes)")
    device: str = param(
        "auto", "non-empty", "torch device: auto (cuda, then mps, then cpu), cpu, cuda, mps (lexicon models ignore it)"
    )
    seed: int = param(
        0, ">= 0", "random seed for the review sample, the template sample, typos, name swaps and bootstraps"
    )
    model_a: str = param(
        "vader", "str; non-empty", "first model: a registry name of a sentiment classifier (vader, textblob, ...)"
    )
    model_b: str = param("textblob", "str; non-empty", "second model, compared with the first")
    n_reviews: int = param(300, ">= 0", "bundled reviews sampled as sources of the pairwise test; 0 means all 1200")
    n_people: int = param(60, ">= 1", 'sentences sampled from the "{name} thought the {noun} was {adj}." template')
    threshold: float = param(
        0.10, "in [0, 1]", "highest violation rate a test allows (the gate reads the interval's upper end)"
    )
    n_boot: int = param(1000, ">= 1", "bootstrap replicates for the intervals and the paired rate differences")
    n_show: int = param(3, ">= 1", "violating cases shown for the failing test")
