"""The parameters of notebook 03, declared once (:mod:`mtlib.experiments.spec`)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mtlib.experiments import spec as base
from mtlib.experiments.spec import param
from mtlib.models.training.settings import ClassifierSettings

__all__ = ["Spec"]


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 03: three-way transitivity of a lexical-relation model on CogALex (Manino et al. §6.1, Table 5).

    Two training blocks, each one :class:`~mtlib.models.ClassifierSettings` checked here: ``head_settings``
    for the heads on frozen word vectors (``how="head"``), ``finetune_settings`` for the fine-tuned pair
    classifier (``how="finetune"``, or a model named ``NAME-ft``). Keys they leave out take the factory's
    defaults.
    """

    notebook = "03_cogalex_transitivity"
    training_blocks = ("head_settings", "finetune_settings")

    profile: str = param("quick", "non-empty", "run profile: smoke, quick, real or paper")
    seed: int = param(
        0, ">= 0", "seeds heads, fine-tuning, the vocabulary subset, the bootstrap and the sampled triples"
    )
    models: list[str] = param(
        ["minilm"],
        "non-empty; each str; distinct",
        "registry names or paths; the first is the primary one (paper: xlm-roberta-large)",
    )
    languages: list[str] = param(
        ["english", "german"],
        "non-empty; each one of english, german, chinese, italian",
        "languages to test (CogALex-VI also has chinese and italian)",
    )
    data_dir: str = param(
        "", "", "empty for the bundled pairs, else a CogALex-VI folder or a CogALex-V gold_task2.txt path"
    )
    vocabulary_split: str = param(
        "test", "one of test, all", "test: words of the gold test pairs (as the paper), all: words of every pair"
    )
    max_vocabulary: int = param(0, ">= 0", "keep a random subset of this many words per language (0 keeps all)")
    lm_vocabulary: int = param(
        40,
        ">= 0",
        "with a causal LM among models (it answers by prompt, n(n-1) prompts per relation for its matrix): every "
        "model's vocabulary is cut to a random subset of this many words per language (0: no cut beyond "
        "max_vocabulary)",
    )
    how: str = param(
        "head",
        "one of head, finetune",
        "head: frozen word vectors plus one head per relation; finetune: the model fine-tuned on word pairs (a "
        "model named NAME-ft is fine-tuned whatever this says)",
    )
    head_settings: dict = param(
        {"head": "linear"},
        "",
        "heads on frozen vectors: head linear (matrix-form predictions) or mlp, C and class_weight (balanced) of "
        "a linear head, ...",
    )
    finetune_classes: int = param(
        3, "one of 3, 4", "classes of a fine-tuned model: 3 (SYN, HYP, OTHER) or 4 (SYN, ANT, HYP, RANDOM)"
    )
    finetune_settings: dict = param(
        {"epochs": 5, "batch_size": 32, "lr": 1e-5, "pooling": "first", "max_length": 32},
        "",
        "training settings of the fine-tuned pair classifier (epochs, batch_size, lr with warm-up then decay, "
        "pooling first or mean, max_length, architecture cross or siamese, class_weight, head_lr, eval_every, "
        "patience and select_by for early stopping, ...)",
    )
    finetune_per_language: bool = param(
        False,
        "",
        "fine-tune one model per language (early stopping on its validgold pairs, else on the held-out part of its "
        "train pairs) instead of one model on every language's pairs",
    )
    finetune_heldout_fraction: float = param(
        0.15,
        "in (0, 1)",
        "without validgold pairs: the stratified share of train pairs held out for a fine-tune's early stopping "
        "(finetune_settings eval_every)",
    )
    threshold: float = param(
        0.5,
        "in (0, 1)",
        "decision threshold: a relation holds for a pair when its probability is above it (matrices, sampled "
        "triples, gold scores and accuracies alike)",
    )
    predict_batch_size: int = param(512, ">= 1", "word pairs per forward pass of a fine-tuned model")
    max_pairs: int = param(5_000_000, ">= 1", "most ordered pairs a fine-tuned model predicts for the exhaustive count")
    n_sample: int = param(200_000, ">= 0", "random triples of the paper's sampled procedure")
    n_boot: int = param(1000, ">= 1", "bootstrap replicates over words for the 95% intervals")
    n_top: int = param(10, ">= 1", "words shown per language and relation in the ranking of violations")

    def head_training(self) -> ClassifierSettings:
        """``head_settings`` as the training settings of the heads on frozen vectors (as notebook 05's spec names
        them)."""
        return self.training("head_settings")

    def heads(self) -> ClassifierSettings:
        """Deprecated name of :meth:`head_training` (it returns settings, not heads); goes in the next release."""
        warnings.warn(
            "lexical.Spec.heads() is deprecated: call spec.head_training() (the heads' training settings)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.head_training()

    def finetune(self) -> ClassifierSettings:
        """``finetune_settings`` as the settings of the fine-tuned pair classifier."""
        return self.training("finetune_settings")

    def training_defaults(self, name: str, block: Mapping[str, Any]) -> dict[str, Any]:
        """The spec's seed and the held-out share of each block, unless the block sets its own ``heldout_fraction``.

        ``head_settings``: :attr:`classifier_heldout` (the heads train on every training pair and are measured
        on the test pairs, given as ``valid``). ``finetune_settings``: with early stopping (``eval_every``),
        ``finetune_heldout_fraction`` of the training pairs (a notebook with validgold pairs passes them as
        ``valid`` instead); without it 0, every training pair trains.
        """
        out = super().training_defaults(name, block)
        if name == "finetune_settings":
            return {
                **out,
                "heldout_fraction": self.finetune_heldout_fraction if block.get("eval_every") is not None else 0,
            }
        return {**out, "heldout_fraction": self.classifier_heldout}
