"""The parameters of notebook 07, declared once (:mod:`mtlib.experiments.spec`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from mtlib.experiments import spec as base
from mtlib.experiments.seti._facts import (
    FEWSHOT_HOWS,
    FEWSHOT_MODES,
    SETUP_NAMES,
    TEMPLATE,
    SetiError,
    check_fewshot,
    parse_setups,
)
from mtlib.experiments.spec import param
from mtlib.models.training.heads import HEADS
from mtlib.models.training.settings import ClassifierSettings

__all__ = ["Spec"]


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 07: SETI, systematicity of textual inference (Fu & Frank 2023, §3-5, Tables 2-6, Figures 1-2).

    ``finetune_settings`` is the one training block of every fine-tuning (the cross-encoders of
    ``finetune_models``, and the few-shot models when ``fewshot_how`` is ``finetune``): any
    :class:`~mtlib.models.ClassifierSettings` field a profile may set
    (:func:`~mtlib.experiments.spec.training_keys`); the keys it leaves out take the factory's defaults.
    Its default is the paper's recipe at small scale (Adam, batch 16, at most 128 tokens). ``head`` is the
    head on frozen pair features; ``fewshot_epochs`` belongs to the few-shot study alone.
    """

    notebook = "07_seti"
    training_blocks = ("finetune_settings",)
    #: 07's classifiers train on every training item (nothing held out) and are measured on the test items; a
    #: block's own ``heldout_fraction`` (e.g. with ``eval_every``) wins.
    classifier_heldout: ClassVar[float] = 0.0

    seed: int = param(
        0, ">= 0", "seeds the pool subsample; run k of every model uses seed k for data sampling and training"
    )
    seeds: list[int] = param(
        [0, 1, 2, 3, 4],
        "non-empty; each int; each >= 0",
        "one run per seed (Figure 1 draws one symbol per seed; paper: five)",
    )
    sick_path: str = param("", "", "SICK.txt (full release or SemEval 2014 layout); empty for the bundled pool")
    n_lexical: int = param(80, ">= 0", "SICK pairs with a lexical substitution to keep (0 keeps all)")
    n_structural: int = param(30, ">= 0", "SICK active/passive pairs to keep (0 keeps all)")
    template: str = param(TEMPLATE, "non-empty", "premise template of veridical and compositional inferences (§3.1)")
    head_models: list[str] = param(
        ["minilm", "minilm-static"], "each str; distinct", "frozen encoders with a head on pair features"
    )
    head: str = param(
        "linear", f"one of {', '.join(HEADS)}", "head on frozen features: linear (logistic regression) or mlp"
    )
    max_train: int = param(1500, ">= 0", "at most this many training items per head (0 keeps all)")
    finetune_models: list[str] = param(["minilm"], "each str; distinct", "encoders fine-tuned as cross-encoders")
    finetune_tasks: list[str] = param(
        ["1/trivial", "2/non-trivial"],
        f"each one of {', '.join(SETUP_NAMES)}",
        "task/setup pairs to fine-tune on (or all)",
    )
    finetune_seeds: list[int] = param([0, 1], "each int; each >= 0", "seeds of the fine-tuning runs")
    finetune_train_size: int = param(128, ">= 0", "training subsample per fine-tuning run (0 keeps all)")
    finetune_test_size: int = param(256, ">= 0", "test subsample per fine-tuning run (0 keeps all)")
    finetune_settings: dict = param(
        {"epochs": 2, "lr": 5e-5, "batch_size": 16, "max_length": 128},
        "",
        "training settings of every fine-tuning, few-shot ones too (epochs, lr (Adam), batch_size, max_length, "
        "...); keys left out take the factory's defaults",
    )
    fewshot_models: list[str] = param(["minilm"], "each str; distinct", "models of the few-shot study (section 5.2)")
    fewshot_how: str = param(
        "head",
        f"one of {', '.join(FEWSHOT_HOWS)}",
        "few-shot models: head (frozen encoder, trained head) or finetune (cross-encoder)",
    )
    fewshot_mode: str = param(
        "add",
        f"one of {', '.join(FEWSHOT_MODES)}",
        "add: D_few joins the training data; continue: train on D_train, then more epochs on D_few",
    )
    fewshot_epochs: int = param(3, ">= 1", "epochs on D_few alone in the continue mode")
    shots: list[int] = param([0, 1, 2, 4, 8, 16, 32, 64, 128], "each int; each >= 0", "sizes of D_few")

    def training_defaults(self, name: str, block: Mapping[str, Any]) -> dict[str, Any]:
        """The spec's seed and :attr:`classifier_heldout` (0: every training item trains)."""
        return {**super().training_defaults(name, block), "heldout_fraction": self.classifier_heldout}

    def validate(self) -> list[str]:
        """The fine-tuning block is a valid :class:`~mtlib.models.ClassifierSettings`; ``all`` stands alone
        among ``finetune_tasks``; the few-shot choices go together (``continue`` needs an MLP head or
        fine-tuning)."""
        problems = super().validate()
        try:
            self.tasks()
        except SetiError as err:
            problems.append(f"finetune_tasks = {self.finetune_tasks!r}: {err}")
        try:
            check_fewshot(self.fewshot_how, self.fewshot_mode, self.fewshot_epochs, self.head)
        except SetiError as err:
            problems.append(str(err))
        return problems

    def finetune(self) -> ClassifierSettings:
        """``finetune_settings`` as the settings of every fine-tuned cross-encoder."""
        return self.training("finetune_settings")

    def tasks(self) -> list[tuple[int, str]]:
        """``finetune_tasks`` as ``(task, setup)`` pairs (``["all"]``: every task setup)."""
        return parse_setups(self.finetune_tasks)
