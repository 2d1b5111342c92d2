"""The parameters of notebook 01, declared once (:mod:`mtlib.experiments.spec`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mtlib.experiments import spec as base
from mtlib.experiments.spec import param
from mtlib.models.training.settings import ClassifierSettings

__all__ = ["Spec"]


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 01: pairwise systematicity of a sentiment classifier (Manino et al. §4.1, Tables 1-2).

    ``finetune_settings`` is the one training block of a fine-tuned model (``how="finetune"``, or a model
    named ``NAME-ft``): any :class:`~mtlib.models.ClassifierSettings` field a profile may set
    (:func:`~mtlib.experiments.spec.training_keys`); the keys it leaves out take the factory's defaults.
    """

    notebook = "01_pairwise_sentiment_systematicity"
    training_blocks = ("finetune_settings",)

    profile: str = param("quick", "non-empty", "run profile: smoke, quick, real or paper")
    seed: int = param(0, ">= 0", "seeds the data split, the heads and the bootstrap")
    models: list[str] = param(
        ["minilm", "minilm-static", "vader", "textblob"],
        "non-empty; each str; distinct",
        "sentiment models; the first is the primary one (its metrics have plain keys)",
    )
    positive_label: str = param(
        "POSITIVE", "non-empty", "positive class name of a Hugging Face classifier (siebert: POSITIVE)"
    )
    data_path: str = param(
        "", "", "reviews to test: SST sentence file (stsa.binary.*) or SST tree file, empty for the bundled reviews"
    )
    data_format: str = param("auto", "one of auto, sentences, trees", "auto, sentences or trees")
    train_fraction: float = param(0.4, "in (0, 1)", "share of the bundled reviews that trains the heads of encoders")
    train_path: str = param(
        "",
        "",
        "labelled reviews that train the heads or the fine-tuning: SST sentence file (stsa.binary.train) or tree "
        "file; empty for the bundled reviews",
    )
    train_format: str = param(
        "auto", "one of auto, sentences, trees", "format of train_path and dev_path: auto, sentences or trees"
    )
    dev_path: str = param(
        "",
        "",
        "labelled reviews that measure the trained classifier (stsa.binary.dev), and pick a fine-tune's epoch when "
        "finetune_settings has eval_every; empty holds out 20% of the training data",
    )
    how: str = param(
        "head",
        "one of head, finetune",
        "head (frozen encoder and a logistic head) or finetune (encoder fine-tuned, row MODEL-ft); a model named "
        "NAME-ft is fine-tuned whatever this says",
    )
    finetune_settings: dict = param(
        {"lr": 3e-5, "epochs": 1, "batch_size": 32, "max_length": 64},
        "",
        "training settings of a fine-tuning (lr, head_lr, epochs, batch_size, max_length, eval_every and patience "
        "for early stopping on the dev data, ...); keys left out take the factory's defaults",
    )
    n_sources: int = param(0, ">= 0", "at most this many source reviews (0 means all)")
    extra_transformations: list = param(
        [],
        "each list; each length 2; each each str",
        "your own transformations as [text, position] pairs, position start or end",
    )
    n_boot: int = param(1000, ">= 1", "bootstrap replicates over source reviews for the 95% intervals")
    n_show: int = param(8, ">= 1", "rows shown at the top and at the bottom of Table 2")
    n_sample_pairs: int = param(120, ">= 1", "pairs drawn in the geometric figure (rates always use every pair)")

    def finetune(self) -> ClassifierSettings:
        """``finetune_settings`` as the settings of the fine-tuned classifiers."""
        return self.training("finetune_settings")

    def training_defaults(self, name: str, block: Mapping[str, Any]) -> dict[str, Any]:
        """The spec's seed and, without a validation set, the held-out share :attr:`classifier_heldout` of the
        training data (a block's own ``heldout_fraction`` wins)."""
        return {**super().training_defaults(name, block), "heldout_fraction": self.classifier_heldout}
