"""Ready-made lists of transformations: the robustness suite of label-preserving perturbations."""

from __future__ import annotations

from mtlib.relations.transformations.base import Transformation
from mtlib.relations.transformations.lexical import Contractions
from mtlib.relations.transformations.surface import Casing, Punctuation, Typos

__all__ = ["robustness_suite"]


def robustness_suite(seed: int = 0) -> list[Transformation]:
    """Six label-preserving perturbations for invariance gates: typos, contractions, punctuation, casing."""
    return [
        Typos("swap", seed=seed),
        Typos("delete", seed=seed),
        Contractions("contract"),
        Contractions("expand"),
        Punctuation("strip"),
        Casing("lower"),
    ]
