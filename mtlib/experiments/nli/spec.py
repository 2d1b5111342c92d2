"""The parameters of notebook 02, declared once (:mod:`mtlib.experiments.spec`), and the rules of its ``ablation``.

An entry of the spec's ``ablation`` names the external training sets of the NLI classifier joined by ``+``
(``sick``, ``med``, ``sick+med``) or ``none`` (the NLI-XY training contexts alone).

Example:
    >>> training_sets("med+sick"), training_sets("none")
    (('sick', 'med'), ())
    >>> training_label(("med", "sick")), training_label(())
    ('sick+med', 'none')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mtlib.experiments import spec as base
from mtlib.experiments.spec import param
from mtlib.models.training.settings import ClassifierSettings

__all__ = ["Spec", "training_label", "training_sets"]

#: The external training sets an ablation entry can name, in the order they are joined.
EXTERNAL_SETS = ("sick", "med")


def training_sets(entry: str) -> tuple[str, ...]:
    """The external sets an ablation entry names, in :data:`EXTERNAL_SETS` order (``none``: no set).

    Raises:
        ValueError: an empty entry, a name outside :data:`EXTERNAL_SETS`, or a set named twice.
    """
    parts = [p.strip().lower() for p in str(entry).split("+")]
    if parts == ["none"]:
        return ()
    unknown = [p for p in parts if p not in EXTERNAL_SETS]
    if unknown or len(set(parts)) != len(parts):
        raise ValueError(
            f"ablation entry {entry!r}: expected none, or {', '.join(EXTERNAL_SETS)} joined by '+' (each once)"
        )
    return tuple(s for s in EXTERNAL_SETS if s in parts)


def training_label(sets: tuple[str, ...] | list[str]) -> str:
    """The canonical entry of a tuple of external sets (``none`` for no set)."""
    return "+".join(s for s in EXTERNAL_SETS if s in sets) or "none"


def ablation_problems(entries: list[str], available: dict[str, bool]) -> list[str]:
    """What is wrong with the spec's ``ablation`` entries (empty when nothing).

    Args:
        entries: The ``ablation`` parameter.
        available: Set name -> whether the spec gives its file (``sick_path``, ``med_path``).
    """
    problems, seen = [], set()
    for entry in entries:
        try:
            sets = training_sets(entry)
        except ValueError as err:
            problems.append(str(err))
            continue
        missing = [s for s in sets if not available.get(s)]
        if missing:
            need = " and ".join(f"{s}_path" for s in missing)
            problems.append(f"ablation entry {entry!r} trains on {'+'.join(missing)}: {need} must name the file")
        if training_label(sets) in seen:
            problems.append(f"ablation entry {entry!r} repeats the training set {training_label(sets)}")
        seen.add(training_label(sets))
    return problems


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 02: pairwise compositionality of an NLI model with a hypernymy probe (Manino et al. §5.1).

    ``finetune_settings`` is the one training block of the fine-tuned cross-encoder (``how="finetune"``, or a
    model named ``NAME-ft``); keys it leaves out take the factory's defaults.
    """

    notebook = "02_nli_probe_compositionality"
    training_blocks = ("finetune_settings",)

    profile: str = param("quick", "non-empty", "run profile: smoke, quick, real or paper")
    seed: int = param(0, ">= 0", "seeds the context split, the heads and the bootstrap")
    models: list[str] = param(
        ["minilm"],
        "non-empty; each str; distinct",
        "NLI models, encoders or causal LMs; the first is the primary one (plain keys)",
    )
    entailment_label: str = param("ENTAILMENT", "non-empty", "entailment class name of a Hugging Face NLI classifier")
    layer: int = param(
        -2, "", "hidden-state index of z; -2 is the second-to-last layer (paper: 23 for roberta-large-mnli)"
    )
    contexts_path: str = param("", "", "NLI-XY contexts.tsv, empty for the bundled contexts")
    insertions_path: str = param("", "", "NLI-XY insertions.tsv, empty for the bundled insertions")
    train_contexts_fraction: float = param(
        0.3, "in (0, 1)", "share of contexts that trains the probe and the NLI head; never tested"
    )
    max_contexts: int = param(0, ">= 0", "keep at most this many contexts (0 keeps all)")
    max_insertions: int = param(0, ">= 0", "keep at most this many insertion pairs (0 keeps all)")
    how: str = param(
        "head",
        "one of head, finetune",
        "head (the model's own NLI label, else a logistic head on frozen pair features) or finetune "
        "(cross-encoder fine-tuned, row MODEL-ft); a model named NAME-ft is fine-tuned whatever this says",
    )
    sick_path: str = param(
        "",
        "",
        "full SICK.txt: its TRAIN pairs also train the NLI model, its TEST pairs give accuracy/sick_test; empty "
        "for none",
    )
    med_path: str = param("", "", "MED.tsv (monotonicity entailment pairs): every pair also trains the NLI model")
    finetune_settings: dict = param(
        {"lr": 5e-5, "epochs": 1, "batch_size": 32, "max_length": 96},
        "",
        "training settings of the fine-tuned cross-encoder (lr, epochs, batch_size, max_length, ...); keys left "
        "out take the factory's defaults",
    )
    ablation: list[str] = param(
        [],
        "each str",
        "training-data ablation of the primary model's NLI classifier: each entry names the external sets it "
        "trains on beside the NLI-XY training contexts (sick, med, sick+med, or none); empty: off",
    )
    n_boot: int = param(200, ">= 1", "bootstrap replicates over insertion pairs for the 95% intervals")
    permutations: int = param(5000, ">= 1", "label shuffles of the up-vs-down permutation test")
    n_show: int = param(6, ">= 1", "rows shown at the top and at the bottom of Tables 3 and 4")

    def validate(self) -> list[str]:
        """The fine-tuning block is a valid :class:`~mtlib.models.ClassifierSettings`; every ``ablation`` entry
        names known sets whose files the spec gives, each set once."""
        problems = ablation_problems(list(self.ablation), {"sick": bool(self.sick_path), "med": bool(self.med_path)})
        return problems + super().validate()

    def finetune(self) -> ClassifierSettings:
        """``finetune_settings`` as the settings of the fine-tuned cross-encoder."""
        return self.training("finetune_settings")

    def training_defaults(self, name: str, block: Mapping[str, Any]) -> dict[str, Any]:
        """The spec's seed and, without a validation set, the held-out share :attr:`classifier_heldout` of the
        training data (a block's own ``heldout_fraction`` wins)."""
        return {**super().training_defaults(name, block), "heldout_fraction": self.classifier_heldout}
