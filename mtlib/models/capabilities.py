"""What a model family can do, and how: declared once by its adapter, asked by the rest of the code.

Intuition: the classifier factory, fine-tuning, resolution and the training
defaults used to branch on a family's name (``kind == "wordpiece-static"``);
adding a family meant finding every branch. Now each adapter class carries a
:class:`Capabilities` and the code asks it: a new family is one adapter module
and one entry of :data:`mtlib.models.adapters.ADAPTERS` (the registry kind it
resolves names of, its resolution recipe, how it fine-tunes, its default
learning rate, whether it has word embeddings to freeze).

What a family's forward passes run in and on is declared beside it, as class
attributes of the :class:`~mtlib.models.base.Model` (``precisions``,
``backends``), because a loaded object changes them (``set_precision``,
``set_backend``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["FINETUNE_WAYS", "Capabilities"]

#: How a family fine-tunes (:func:`mtlib.models.finetune.build_network`): its own pipeline and pooling, a
#: Hugging Face encoder pooled by mtlib, a sequence classifier keeping its own layer, a static word-piece table.
FINETUNE_WAYS = ("pipeline", "encoder", "classifier", "static-table")


@dataclass(frozen=True)
class Capabilities:
    """A family's declared abilities.

    Attributes:
        resolves: The registry kind (:attr:`mtlib.models.registry.ModelSpec.kind`) whose names this
            family resolves with :attr:`resolve`, or ``None`` (its weights are found as a transformer
            folder's, and :func:`mtlib.models.resolve.folder_kind` names it).
        resolve: ``resolve(spec, allow_pickle) -> Resolved``: where the weights of a registry entry are.
        offline_status: ``offline_status(spec) -> str``: how :attr:`resolve` would find them now, without
            downloading (``"packaged"``, ``"missing"``...).
        identity: ``identity(resolved) -> str`` when the weights' identity is not a hash of their files
            (a lexicon: its package version); ``None`` for :func:`mtlib.models.identity.model_identity`'s own.
        finetune: One of :data:`FINETUNE_WAYS`, or ``None`` when it cannot be fine-tuned.
        why_not_finetune: Why it cannot (the factory's message), when ``finetune`` is ``None``.
        finetune_lr: Default learning rate of a fine-tune.
        trains_word_embeddings: Whether a fine-tune trains its word-embedding matrix by default (a
            static table is the whole encoder; a transformer's stays frozen, :func:`trains_embeddings`).
        keeps_own_head: A fine-tune keeps the model's own classification layer (recorded as ``"native"``).

    Example:
        >>> Capabilities(finetune="encoder").can_finetune
        True
    """

    resolves: str | None = None
    resolve: Callable[[Any, bool], Any] | None = None
    offline_status: Callable[[Any], str] | None = None
    identity: Callable[[Any], str] | None = None
    finetune: str | None = None
    why_not_finetune: str = "it has no trainable weights"
    finetune_lr: float = 2e-5
    trains_word_embeddings: bool = False
    keeps_own_head: bool = False

    def __post_init__(self) -> None:
        if self.finetune is not None and self.finetune not in FINETUNE_WAYS:
            raise ValueError(f"finetune={self.finetune!r}: expected one of {FINETUNE_WAYS} or None")

    @property
    def can_finetune(self) -> bool:
        """Whether :func:`mtlib.models.classifier` can train its weights (``how="finetune"``)."""
        return self.finetune is not None
