"""What a model family can do, and the table of families: declared once by its adapter, asked by the rest.

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
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["ADAPTERS", "folder_family"]

A = TypeVar("A", bound=type)

#: Resolved kind -> adapter class. Each family adds itself as its module is imported (:func:`register_adapter`);
#: :mod:`mtlib.models.adapters` imports every family module, so importing :mod:`mtlib.models` fills it.
ADAPTERS: dict[str, type] = {}
#: ``(priority, kind, test)`` of the families that recognise a model folder, the most specific first.
_FOLDER_TESTS: list[tuple[int, str, Callable[[Path], bool]]] = []

#: How a family fine-tunes (:func:`mtlib.models.training.networks.build_network`): its own pipeline and pooling, a
#: Hugging Face encoder pooled by mtlib, a sequence classifier keeping its own layer, a static word-piece table.
FINETUNE_WAYS = ("pipeline", "encoder", "classifier", "static-table")


@dataclass(frozen=True)
class Capabilities:
    """A family's declared abilities.

    Attributes:
        resolves: The registry kind (:attr:`mtlib.models.weights.registry.ModelSpec.kind`) whose names this
            family resolves with :attr:`resolve`, or ``None`` (its weights are found as a transformer
            folder's, and :func:`folder_family` names it).
        resolve: ``resolve(spec, allow_pickle) -> Resolved``: where the weights of a registry entry are.
        offline_status: ``offline_status(spec) -> str``: how :attr:`resolve` would find them now, without
            downloading (``"packaged"``, ``"missing"``...).
        identity: ``identity(resolved) -> str`` when the weights' identity is not a hash of their files
            (a lexicon: its package version); ``None`` for :func:`mtlib.models.weights.identity.model_identity`'s own.
        finetune: One of :data:`FINETUNE_WAYS`, or ``None`` when it cannot be fine-tuned.
        why_not_finetune: Why it cannot (the factory's message), when ``finetune`` is ``None``.
        finetune_lr: Default learning rate of a fine-tune.
        trains_word_embeddings: Whether a fine-tune trains its word-embedding matrix by default (a
            static table is the whole encoder; a transformer's stays frozen, :func:`trains_embeddings`).
        keeps_own_head: A fine-tune keeps the model's own classification layer (recorded as ``"native"``).
        prompts: It classifies by prompting (a causal language model): :func:`mtlib.models.classifier` builds
            its classifier with ``how="prompt"``.

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
    prompts: bool = False

    def __post_init__(self) -> None:
        if self.finetune is not None and self.finetune not in FINETUNE_WAYS:
            raise ValueError(f"finetune={self.finetune!r}: expected one of {FINETUNE_WAYS} or None")

    @property
    def can_finetune(self) -> bool:
        """Whether :func:`mtlib.models.classifier` can train its weights (``how="finetune"``)."""
        return self.finetune is not None


def register_adapter(recognises: Callable[[Path], bool] | None = None, *, priority: int = 0) -> Callable[[A], A]:
    """Class decorator: an adapter class joins :data:`ADAPTERS` under its ``kind``.

    Args:
        recognises: ``recognises(folder) -> bool``: whether a model folder (a Hugging Face or
            sentence-transformers folder found by resolution) is of this family; None for a family whose
            names resolve by its :class:`Capabilities` (a lexicon, a vector file) rather than by folder.
        priority: Folder tests run from the highest priority down; the first that holds names the family
            (a catch-all test belongs at the lowest priority).

    Raises:
        ValueError: another class already registered that kind.

    Example:
        >>> @register_adapter(lambda folder: (folder / "toy.json").exists(), priority=50)
        ... class Toy:
        ...     kind = "toy-doc"
        >>> ADAPTERS["toy-doc"] is Toy
        True
        >>> _ = ADAPTERS.pop("toy-doc"); _FOLDER_TESTS[:] = [t for t in _FOLDER_TESTS if t[1] != "toy-doc"]
    """

    def register(cls: A) -> A:
        kind = str(getattr(cls, "kind", ""))
        if not kind:
            raise ValueError(f"{cls.__name__} declares no kind")
        if ADAPTERS.get(kind, cls) is not cls:
            raise ValueError(f"kind {kind!r} is registered already, by {ADAPTERS[kind].__name__}")
        ADAPTERS[kind] = cls
        if recognises is not None:
            _FOLDER_TESTS.append((priority, kind, recognises))
            _FOLDER_TESTS.sort(key=lambda t: -t[0])
        return cls

    return register


def folder_family(folder: Path) -> str:
    """The model family that reads a folder: the first registered family whose folder test holds.

    The families say which folders they read (:func:`register_adapter`, tests in priority order):
    ``modules.json`` marks a sentence-transformers pipeline, a config whose architecture ends in
    ``ForSequenceClassification`` a classifier, and any other folder is a plain encoder.

    Raises:
        LookupError: no registered family recognises it.
    """
    for _, family, test in _FOLDER_TESTS:
        if test(folder):
            return family
    known = ", ".join(family for _, family, _ in _FOLDER_TESTS) or "none registered"
    raise LookupError(f"no model family recognises the folder {folder} (families that read folders: {known})")
