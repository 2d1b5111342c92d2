"""The parameters of notebook 06, declared once (:mod:`mtlib.experiments.spec`)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from mtlib.experiments import spec as base
from mtlib.experiments.spec import param
from mtlib.experiments.tre._fit_options import TreFitOptions

__all__ = ["Spec"]


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 06: Tree Reconstruction Error against Tree Impurity and WNS (Bhathena et al. §4, Table 2).

    The TRE fit's parameters (``composition``, ``steps``, ``lr``, ``init_scale``, ``heldout_fraction``,
    ``unseen``) are an optimiser's, not a classifier's: :meth:`fit_options` hands them on as one
    :class:`~mtlib.experiments.tre._fit_options.TreFitOptions`.
    """

    notebook = "06_tree_reconstruction_error"

    profile: str = param("quick", "non-empty", "run profile: smoke, quick, real or paper")
    device: str = param("auto", "non-empty", "torch device for the encoders and the TRE fit: auto, cpu, cuda or mps")
    seed: int = param(0, ">= 0", "seeds the split, the initialisation and the bootstraps")
    models: list[str] = param(
        ["minilm", "minilm-static"],
        "non-empty; each str; distinct",
        "encoders: registry names, hub ids or local paths (paper: bert-base)",
    )
    data_path: str = param(
        "trees/dev.txt", "", "PTB tree file, absolute or relative to data/ (SST: external/sst/dev.txt)"
    )
    max_sentences: int = param(0, ">= 0", "keep at most this many sentences, in file order (0 keeps all)")
    fit_path: str = param(
        "", "", "optional second tree file whose sentences only join the fit (SST: external/sst/train.txt)"
    )
    composition: str = param(
        "add",
        "one of add, linear",
        "composition of children: add (sum) or linear (learned W[a; b], starts at addition)",
    )
    steps: int = param(400, ">= 1", "RMSProp steps of the TRE fit (full batch)")
    lr: float = param(0.01, "> 0", "RMSProp learning rate")
    init_scale: float = param(1.0, "> 0", "standard deviation of the primitives' normal initialisation")
    heldout_fraction: float = param(
        0.3, "in [0, 1)", "share of sentences held out of the fit (0 is the paper's protocol)"
    )
    unseen: str = param(
        "zero",
        "one of zero, exclude",
        "held-out words never seen in training: zero (zero vector) or exclude (drop sentence)",
    )
    wns_weight: str = param(
        "height", "one of height, depth, uniform", "WNS node weight: height (literal), depth or uniform"
    )
    wns_average: str = param("mean", "one of mean, weighted, sum", "WNS averaging: mean (literal), weighted or sum")
    sweep_steps: list[int] = param(
        [100, 1000], "each int; each >= 1", "steps tried in the sensitivity sweep (empty skips it)"
    )
    sweep_lr: list[float] = param([0.03], "each > 0", "learning rates tried in the sweep")
    sweep_init_scale: list[float] = param([0.1], "each > 0", "initialisation scales tried in the sweep")
    n_boot: int = param(1000, ">= 1", "bootstrap resamples of each correlation interval")
    n_trees: int = param(1, ">= 1", "trees drawn at each end (most and least) by WNS and by TRE")
    n_examples: int = param(4, ">= 1", "sentences at each end of the Table 4-style table")

    def fit_options(self) -> TreFitOptions:
        """The TRE fit's parameters as one :class:`~mtlib.experiments.tre._fit_options.TreFitOptions`."""
        return TreFitOptions(
            composition=self.composition,
            steps=self.steps,
            lr=self.lr,
            init_scale=self.init_scale,
            heldout_fraction=self.heldout_fraction,
            unseen=self.unseen,
        )

    def fit_settings(self) -> TreFitOptions:
        """Deprecated name of :meth:`fit_options` (a :class:`DeprecationWarning`; goes in the next release)."""
        warnings.warn(
            "tre.Spec.fit_settings() is renamed spec.fit_options() (a TreFitOptions); the old name goes in the "
            "next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.fit_options()
