"""The parameters of notebook 05, declared once (:mod:`mtlib.experiments.spec`)."""

from __future__ import annotations

from dataclasses import dataclass

from mtlib.experiments import spec as base
from mtlib.experiments.spec import param
from mtlib.models.training.heads import HEADS
from mtlib.models.training.settings import ClassifierSettings

__all__ = ["Spec"]

#: Keys a training block of notebook 05 may not set: the grid (``heads``, ``finetune_heads``) chooses the head.
_CHOSEN_BY_THE_GRID = ("head",)


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 05: Polarity Sensitivity Scoring of sentence encoders (Bhathena et al. §3, Table 1).

    Two training blocks, each checked here as a :class:`~mtlib.models.ClassifierSettings`:
    ``head_settings`` for every head on a frozen encoder (FB), and ``finetune_settings``, one block per
    fine-tuned encoder (FT). Keys a block leaves out take the factory's defaults; the head itself is
    chosen by ``heads`` and ``finetune_heads``, never by a block.
    """

    notebook = "05_polarity_sensitivity"
    model_keyed = ("finetune_heads", "finetune_settings")

    profile: str = param("quick", "non-empty", "run profile: smoke, quick, real or paper")
    seed: int = param(0, ">= 0", "seeds the subsamples and the bootstrap")
    seeds: list[int] = param(
        [0, 1],
        "non-empty if encoders; each int; each >= 0",
        "training seeds of every trained condition (tables show the mean and the spread)",
    )
    encoders: list[str] = param(
        ["minilm", "minilm-static", "glove-50d"],
        "non-empty unless native; each str; distinct",
        "sentence encoders: registry names, hub ids or paths",
    )
    heads: list[str] = param(
        ["linear", "mlp"],
        f"non-empty if encoders; each one of {', '.join(HEADS)}; distinct",
        "final layers: linear (one layer) and mlp (the paper's DNN, 500 and 100 units)",
    )
    finetune: list[str] = param(
        ["minilm", "minilm-static"],
        "each str; distinct; subset of encoders",
        "encoders also trained end to end (FT); a subset of encoders",
    )
    finetune_heads: dict = param(
        {"minilm": ["linear"]},
        "keys subset of finetune; each list; each subset of heads",
        "per FT encoder, the heads to fine-tune (unnamed encoders get all heads)",
    )
    native: list[str] = param(
        ["vader", "textblob"], "each str; distinct", "off-the-shelf sentiment analysers scored as they are"
    )
    data_dir: str = param("", "", "folder with sentiment.{train,dev,test}.{0,1}; empty for the bundled data/yelp_style")
    reference_dir: str = param("", "", "folder with the reference pairs; empty means data_dir")
    reference_format: str = param(
        "auto",
        "one of auto, li, rpryzant",
        "auto, li (reference.0/1 tab-separated) or rpryzant (reference.test.0/1 aligned)",
    )
    clean_tokens: str = param(
        "whitespace",
        "one of whitespace, words",
        "tokens for the cleaning rules: whitespace (the files' own) or words",
    )
    n_train: int = param(0, ">= 0", "training sentences of the FB heads (0 means all)")
    n_finetune: int = param(500, ">= 0", "training sentences of the FT conditions (0 means as many as the heads)")
    n_test: int = param(0, ">= 0", "dev and test sentences for accuracy (0 means all)")
    n_pairs: int = param(0, ">= 0", "at most this many cleaned pairs per direction (0 keeps all)")
    finetune_settings: dict = param(
        {"minilm": {"lr": 1e-4, "epochs": 1, "batch_size": 16}, "minilm-static": {"lr": 1e-2, "epochs": 2}},
        "keys subset of finetune; each dict",
        "per FT encoder, its training settings (lr, epochs, batch_size, max_length, ...); unset keys and "
        "unnamed encoders take the factory's defaults",
    )
    head_settings: dict = param(
        {},
        "",
        "training settings of every FB head (lr, epochs, batch_size, hidden of the DNN; C, class_weight of a "
        "linear head); unset keys take the factory's defaults (the paper: lr 3e-3)",
    )
    n_boot: int = param(1000, ">= 1", "bootstrap replicates over pairs for the 95% intervals")
    n_hardest: int = param(10, ">= 1", "rows of the hardest-flips table")

    def validate(self) -> list[str]:
        """Every training block is a valid :class:`~mtlib.models.ClassifierSettings` that leaves the head alone."""
        blocks = {"head_settings": self.head_settings}
        blocks.update({f"finetune_settings[{k!r}]": v for k, v in self.finetune_settings.items()})
        problems = []
        for where, block in blocks.items():
            chosen = [k for k in _CHOSEN_BY_THE_GRID if k in block]
            if chosen:
                problems.append(
                    f"{where}: {', '.join(chosen)} is chosen by heads and finetune_heads, not by a training block"
                )
                continue
            try:
                self.typed_block(block, where)
            except base.ParameterError as err:
                problems += err.problems
        return problems

    def head_training(self) -> ClassifierSettings:
        """``head_settings`` as the settings of every head on a frozen encoder (FB)."""
        return self.typed_block(self.head_settings, "head_settings")

    def finetune_training(self) -> dict[str, ClassifierSettings]:
        """``finetune_settings`` as one :class:`~mtlib.models.ClassifierSettings` per fine-tuned encoder named."""
        return {
            encoder: self.typed_block(block, f"finetune_settings[{encoder!r}]")
            for encoder, block in self.finetune_settings.items()
        }
