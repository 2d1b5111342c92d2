"""The one resolved training (:class:`ResolvedTraining`): a request with every default applied, and its cache key.

Intuition: :class:`~mtlib.models.training.settings.ClassifierSettings` is what was asked (checked when made,
frozen); which epochs, learning rate and held-out share a training then uses also depends on ``how``, the
model family and the data. The factory resolves that once, into one frozen object, computes the cache key
from it, and hands it to the builder that trains; nothing below reads a settings dict or checks again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mtlib.models.capabilities import Capabilities
from mtlib.models.training.heads import FORMAT
from mtlib.models.training.settings import (
    _DEFAULTS,
    ClassifierSettings,
    FitRecord,
    json_safe,
    resolved_hyper,
    trains_embeddings,
)
from mtlib.utils.cache import stable_hash

__all__ = ["ResolvedTraining"]


@dataclass(frozen=True)
class ResolvedTraining:
    """One training as it runs: the request's every default applied, made once by :meth:`resolve`.

    The factory makes it, computes the cache key from it (:meth:`cache_key`), and hands this one object to the
    way that trains (a head on frozen features, a fine-tune); they read its attributes and check nothing
    again. :meth:`keyed` is the settings dict of the cache key and of the :class:`Training` record, the same
    keys as before this object existed (an option off its default adds its key; a default adds none), so
    every cached training keeps its key. No field has a default of its own: :meth:`resolve` passes every one,
    from the request's :class:`ClassifierSettings` fields and :func:`resolved_hyper`, where each default is
    written once.

    Attributes:
        how: ``"head"`` or ``"finetune"``.
        head: ``"linear"`` or ``"mlp"`` (a continued fine-tune: its init's).
        hidden: Hidden sizes of an MLP head (empty otherwise).
        epochs, lr, batch_size: Resolved (:func:`resolved_hyper`); zeros for a linear head.
        labels: The class order (JSON values).
        pairs: Whether it trains on text pairs.
        heldout_fraction: The stratified share of ``train`` held out (None when ``valid`` was given).
        valid: Digest of the ``valid`` data (None without).
        max_length, pooling: A fine-tune's truncation and pooling (a head's record says None).
        seed: Seeds the split, the initialisation and the batch order.
        train_embeddings: Whether a fine-tune trains the word-embedding matrix (:func:`trains_embeddings`).
        train_layers: Top transformer blocks a fine-tune trains, or ``"all"``.
        C, class_weight: A linear head's regularisation and class weights (``class_weight`` also weighs a
            fine-tune's loss).
        head_lr, eval_every, patience, select_by: A fine-tune's head learning rate and early stopping.
        architecture: ``"cross"`` or ``"siamese"`` (a continued fine-tune: its init's).
        init: Identity of the classifier it continues from (None: fresh weights).
        backend: The frozen encoder's backend when it is not torch (a head only).
        numerics: Where and in what precision the features and weights were computed (None: fp32 on a CPU).
        request: The :class:`ClassifierSettings` it came from (``valid`` data, ``init`` model, ``use_cache``).
    """

    how: str
    head: str
    hidden: tuple[int, ...]
    epochs: int
    lr: float
    batch_size: int
    labels: tuple[Any, ...]
    pairs: bool
    heldout_fraction: float | None
    valid: str | None
    max_length: int
    pooling: str
    seed: int
    train_embeddings: bool
    train_layers: int | str
    C: float
    class_weight: str | None
    head_lr: float | None
    eval_every: float | None
    patience: int | None
    select_by: str
    architecture: str
    init: str | None
    backend: str | None
    numerics: Mapping[str, Any] | None
    request: ClassifierSettings | None = field(compare=False, repr=False)

    @classmethod
    def resolve(
        cls,
        s: ClassifierSettings,
        how: str,
        caps: Capabilities,
        classes: list[Any],
        pairs: bool,
        valid_hash: str | None,
        *,
        backend: str | None = None,
        numerics: Mapping[str, Mapping[str, str]] | None = None,
    ) -> ResolvedTraining:
        """The one resolved training of the request ``s``: every default applied.

        Args:
            s: The checked request (its options, or a spec's training block).
            how: ``"head"`` or ``"finetune"`` (the factory's resolved ``how``).
            caps: The model family's capabilities (its fine-tuning learning rate, whether it trains its word
                embeddings).
            classes: The class order.
            pairs: Whether it trains on text pairs.
            valid_hash: Digest of the ``valid`` data (None without).
            backend: The frozen encoder's backend when it is not torch (a head on ONNX embeddings).
            numerics: :func:`mtlib.models.factory.numerics_key` (empty or None: fp32 on a CPU).
        """
        n_epochs, n_lr, n_batch = resolved_hyper(how, s, caps)
        finetune = how == "finetune"
        head, hidden = s.head, tuple(s.hidden) if s.head == "mlp" else ()
        pooling, max_length = s.pooling, s.max_length
        architecture, init = s.architecture, None
        if s.init is not None:  # continue: the init's architecture, and its identity in the cache key
            record = s.init.training.recorded()  # type: ignore[attr-defined]
            hidden = tuple(record["hidden"])
            if finetune:
                head, pooling, max_length = record["head"], record["pooling"], record["max_length"]
                architecture = record.get("architecture", architecture)
            init = s.init.identity
        return cls(
            how=how,
            head=head,
            hidden=hidden,
            epochs=n_epochs,
            lr=n_lr,
            batch_size=n_batch,
            labels=tuple(json_safe(classes)),
            pairs=pairs,
            heldout_fraction=s.heldout_fraction if s.valid is None else None,
            valid=valid_hash,
            max_length=max_length,
            pooling=pooling,
            seed=s.seed,
            train_embeddings=trains_embeddings(s, caps) if finetune else False,
            train_layers="all" if s.train_layers is None else s.train_layers,
            C=float(s.C),
            class_weight=s.class_weight,
            head_lr=None if s.head_lr is None else float(s.head_lr),
            eval_every=None if s.eval_every is None else float(s.eval_every),
            patience=s.patience,
            select_by=s.select_by,
            architecture=architecture,
            init=init,
            backend=backend,
            numerics=json_safe(dict(numerics)) if numerics else None,
            request=s,
        )

    @property
    def use_cache(self) -> bool:
        """Reload an identical training from the disk cache (the request's ``use_cache``)."""
        return self.request is None or self.request.use_cache

    def keyed(self) -> dict[str, Any]:
        """The settings that decide the trained weights: the cache key's dict and the :class:`Training` record.

        Example:
            >>> from mtlib.models.capabilities import Capabilities
            >>> r = ResolvedTraining.resolve(ClassifierSettings(), "head", Capabilities(), [0, 1], False, None)
            >>> sorted(r.keyed())[:4], r.keyed()["heldout_fraction"]
            (['batch_size', 'epochs', 'format', 'head'], 0.1)
        """
        finetune = self.how == "finetune"
        settings: dict[str, Any] = {
            "how": self.how,
            "head": self.head,
            "hidden": list(self.hidden),
            "epochs": self.epochs,
            "lr": self.lr,
            "batch_size": self.batch_size,
            "labels": list(self.labels),
            "pairs": self.pairs,
            "heldout_fraction": self.heldout_fraction,
            "valid": self.valid,
            "max_length": self.max_length if finetune else None,
            "pooling": self.pooling if finetune else None,
            "seed": self.seed,
            "format": FORMAT,
        }
        if finetune:  # a key of its own: fine-tunes cached before the option existed are not reused for it
            settings["train_embeddings"] = self.train_embeddings
            if self.train_layers != "all":  # only when asked: every full fine-tune keeps its key
                settings["train_layers"] = self.train_layers
            if self.class_weight is not None:
                settings["class_weight"] = self.class_weight
            if self.head_lr is not None:
                settings["head_lr"] = self.head_lr
            if self.eval_every is not None:
                settings.update(eval_every=self.eval_every, patience=self.patience, select_by=self.select_by)
            if self.architecture != _DEFAULTS["architecture"]:
                settings["architecture"] = self.architecture
        if self.how == "head" and self.head == "linear" and (self.C != _DEFAULTS["C"] or self.class_weight is not None):
            # only when asked for: the keys of every default linear head (and their caches) stay as they were
            settings.update(C=self.C, class_weight=self.class_weight)
        if self.init is not None:
            settings["init"] = self.init
        if self.backend is not None:  # a head on ONNX embeddings is cached apart
            settings["backend"] = self.backend
        if self.numerics:  # only off the defaults: every fp32 CPU training keeps its key
            settings["numerics"] = dict(self.numerics)
        return settings

    def cache_key(self, identity: str, data_sha256: str) -> str:
        """24 hex digits naming this training of the encoder ``identity`` on the data ``data_sha256``.

        ``data_sha256`` is :func:`mtlib.models.training.store.data_digest` of the training set; the key is
        :func:`mtlib.models.training.store.cache_key`'s.
        """
        return stable_hash([identity, data_sha256, self.keyed()], 24)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ResolvedTraining:
        """The resolved training a recorded settings dict (:meth:`keyed`, a cache entry's) describes.

        A setting an older record lacks reads as its default, written once (:class:`FitRecord`).
        """
        fit = FitRecord(record)
        raw = fit.recorded()
        return cls(
            how=str(raw.get("how", "finetune")),
            head=str(raw.get("head", _DEFAULTS["head"])),
            hidden=tuple(fit.hidden),
            epochs=fit.epochs,
            lr=fit.lr,
            batch_size=fit.batch_size,
            labels=tuple(raw.get("labels", ())),
            pairs=fit.pairs,
            heldout_fraction=fit.heldout_fraction,
            valid=raw.get("valid"),
            max_length=int(_DEFAULTS["max_length"] if fit.max_length is None else fit.max_length),
            pooling=str(fit.pooling or _DEFAULTS["pooling"]),
            seed=int(raw.get("seed", _DEFAULTS["seed"])),
            train_embeddings=fit.train_embeddings,
            train_layers=fit.train_layers,
            C=float(raw.get("C", _DEFAULTS["C"])),
            class_weight=fit.class_weight,
            head_lr=fit.head_lr,
            eval_every=fit.eval_every,
            patience=fit.patience,
            select_by=str(raw.get("select_by", _DEFAULTS["select_by"])),
            architecture=fit.architecture,
            init=raw.get("init"),
            backend=raw.get("backend"),
            numerics=raw.get("numerics"),
            request=None,
        )


def cache_settings(
    how: str, s: ClassifierSettings, caps: Capabilities, classes: list[Any], pairs: bool, valid_hash: str | None
) -> dict[str, Any]:
    """The resolved settings that decide the trained weights: ``ResolvedTraining.resolve(s, ...).keyed()``.

    ``caps`` are the model family's capabilities (its default learning rate, whether it trains its word embeddings).
    """
    return ResolvedTraining.resolve(s, how, caps, classes, pairs, valid_hash).keyed()
