"""What a classifier is asked to be (:class:`ClassifierSettings`) and how it came about (:class:`Training`).

Intuition: :func:`mtlib.models.classifier` takes many options (head, seed,
epochs...). They live in one dataclass, checked once, so each way of building
a classifier (native, frozen features + head, fine-tuned) reads the same
values; the resolved values that decide the trained weights go into the cache
key (:func:`cache_settings`), and the :class:`Training` record travels with
the classifier (and its cache entry) to say how it was obtained.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from mtlib.models.base import Model
from mtlib.models.capabilities import Capabilities
from mtlib.models.training.heads import HEADS, MLP_BATCH, MLP_EPOCHS, MLP_LR
from mtlib.utils.inputs import check_seed

__all__ = ["ClassifierSettings", "Training"]

HOWS = ("auto", "native", "head", "finetune", "prompt")
#: How a prompt classifier (``how="prompt"``) is calibrated: a per-label bias fitted on the training split by
#: maximum likelihood, contextual calibration (Zhao et al. 2021: divide by the answer to a content-free input), none.
CALIBRATIONS = ("bias", "contextual", "none")
#: How a fine-tuned transformer pools a text: the mean of its tokens, or the first token.
POOLINGS = ("mean", "first")
#: How a fine-tuned transformer reads a text pair: one input through the pair encoding (``cross``), or each text
#: encoded on its own by the same encoder, the head on ``[u, v, |u - v|, u * v]`` (``siamese``).
ARCHITECTURES = ("cross", "siamese")
#: What early stopping keeps the best state by: held-out accuracy or macro-F1 over the classes.
SELECT_BY = ("accuracy", "macro_f1")
#: Old names of heads, still accepted with a DeprecationWarning: one vocabulary, ``linear`` and ``mlp``.
OLD_HEADS = {"logreg": "linear"}
#: The share of ``train`` the notebooks' classifiers and every head on a feature matrix (a probe) hold out for
#: their held-out accuracy when there is no validation split: one value, declared here. A notebook's spec hands
#: it to its classifiers in their settings (``Spec.classifier_heldout``, ``Spec.training_defaults``,
#: ``Spec.classifier_settings``); no notebook writes it. The factory's default for a user's classifier over a
#: model is ``ClassifierSettings.heldout_fraction`` (0.1).
CLASSIFIER_HELDOUT = 0.2
#: A fine-tune's defaults (epochs, batch size); its learning rate is its family's (``Capabilities.finetune_lr``).
FINETUNE_EPOCHS, FINETUNE_BATCH = 3, 32


def json_safe(obj: Any) -> Any:
    """``obj`` as JSON would give it back (tuples become lists, other values their ``str``)."""
    return json.loads(json.dumps(obj, default=str))


@dataclass(frozen=True)
class ClassifierSettings:
    """Every option of :func:`mtlib.models.classifier` but the model, the data and ``how``; frozen, checked when made.

    Constructing it (directly, by :meth:`from_options` or by :func:`dataclasses.replace`) runs :meth:`check`
    once; the object is then trusted everywhere below (nothing checks it again, nothing can change it).
    :meth:`mtlib.models.training.resolved.ResolvedTraining.resolve` gives the resolved training of one
    request: every default filled in, and its cache key.

    Attributes:
        head: ``"linear"`` (logistic regression on standardised features) or ``"mlp"``.
        hidden: Hidden sizes of the MLP head.
        labels: Class order (the columns of ``classify``); default: sorted unique training labels.
        valid: Held-out data in the same form as ``train``.
        heldout_fraction: Without ``valid``, this stratified fraction of ``train`` is held out.
        seed: Seeds the split, the initialisation and the batch order.
        epochs, lr, batch_size: Training settings (None: the defaults of :func:`resolved_hyper`).
        max_length: Truncation length in tokens when fine-tuning.
        device: ``"auto"`` or an explicit torch device.
        pooling: Fine-tuning a Hugging Face encoder: ``"mean"`` or ``"first"`` token.
        train_embeddings: Fine-tuning: also train the word-embedding matrix (``(vocabulary, d)``,
            half of MiniLM's weights). None: frozen for a transformer (a short fine-tune moves it
            little, and freezing drops its gradient and optimiser state), trained for a static
            word-piece table (the table is the whole encoder).
        train_layers: Fine-tuning a transformer: train only its top this many blocks and freeze those
            below (with the embeddings under them), so the backward pass stops there; None or ``"all"``:
            every block. The top 3 of MiniLM's 6 fine-tune 1.5x faster on a CPU than all 6, but cost
            notebook 05's Yelp fine-tune 8 points of held-out accuracy (``benchmarks/finetune_accuracy.py``):
            a choice for a user who trades accuracy for time, not the default.
        use_cache: Reload an identical training from the disk cache.
        init: A classifier from the factory to continue training from.
        C: Inverse regularisation strength of a linear head.
        class_weight: ``"balanced"`` or None: a linear head, or a fine-tune's cross-entropy, weighs each class
            by ``n / (k n_c)`` (a minority class counts as much as the majority in the loss).
        head_lr: Fine-tuning: learning rate of the fresh head (None: ``lr``, as before the option). A fresh
            linear head learns slowly at an encoder's 2e-5; CogALex-VI and SST-2 were measured with 1e-3.
        eval_every: Fine-tuning: evaluate on the held-out data (``valid``, else ``heldout_fraction`` of
            ``train``) every this many epochs (e.g. 0.5), keep the best state (early stopping); ``epochs`` is
            then the most epochs trained. None: no evaluation during training (the old behaviour).
        patience: With ``eval_every``: stop after this many evaluations without improvement (None: never
            stop early; the best state is still kept).
        select_by: With ``eval_every``: ``"accuracy"`` or ``"macro_f1"`` (the mean F1 over the classes, which
            a majority-class answer cannot game) on the held-out data.
        architecture: Fine-tuning text pairs with a transformer: ``"cross"`` (one pair encoding) or
            ``"siamese"`` (each text encoded on its own, mean-pooled without normalisation, the head on
            ``[u, v, |u - v|, u * v]``: a vocabulary's every ordered pair is then scored in matrix form).
        template: ``how="prompt"``: a prompt template's name (:data:`mtlib.models.inference.prompts.TEMPLATES`)
            or a :class:`~mtlib.models.inference.prompts.PromptTemplate`; None: ``sentiment`` for single
            texts, ``nli`` for pairs.
        calibration: ``how="prompt"``: one of :data:`CALIBRATIONS`.
        shots: ``how="prompt"``: examples of the training split shown before each query, drawn with ``seed``.
        verbalisers: ``how="prompt"``: ``{label: word}`` over the template's own verbalisers.
        chat: ``how="prompt"``: render through the model's chat template (False: a plain prompt).
    """

    head: str = "linear"
    hidden: Sequence[int] = (500, 100)
    labels: Sequence[Any] | None = None
    valid: Any = None
    heldout_fraction: float = 0.1
    seed: int = 0
    epochs: int | None = None
    lr: float | None = None
    batch_size: int | None = None
    max_length: int = 128
    device: str = "auto"
    pooling: str = "mean"
    train_embeddings: bool | None = None
    train_layers: int | str | None = None
    use_cache: bool = True
    init: Model | None = None
    C: float = 1.0
    class_weight: str | None = None
    head_lr: float | None = None
    eval_every: float | None = None
    patience: int | None = None
    select_by: str = "accuracy"
    architecture: str = "cross"
    template: Any = None
    calibration: str = "bias"
    shots: int = 0
    verbalisers: dict[str, str] | None = None
    chat: bool = True

    def __post_init__(self) -> None:
        self._check(_MADE_HERE)

    @classmethod
    def from_options(
        cls, name: str, options: dict[str, Any], start: ClassifierSettings | None = None
    ) -> ClassifierSettings:
        """Settings from the keyword options of :func:`mtlib.models.classifier` (over ``start``, if given).

        Raises:
            TypeError: an option that is not a field, listing the known ones.
        """
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise TypeError(f"classifier({name!r}): unknown option(s) {unknown}; the options are {known}")
        if options.get("head") in OLD_HEADS:
            old = options["head"]
            warnings.warn(
                f"classifier({name!r}): head={old!r} is now called {OLD_HEADS[old]!r}; the old name goes in the "
                "next release",
                DeprecationWarning,
                stacklevel=3,
            )
            options = {**options, "head": OLD_HEADS[old]}
        if start is not None and not options:
            return start  # checked when it was made: trusted as it is
        try:
            return replace(start, **options) if start is not None else cls(**options)
        except ValueError as err:  # the construction's check (its own error type), named after the call that asked
            err.args = (str(err).replace(_MADE_HERE, f"classifier({name!r})", 1), *err.args[1:])
            raise

    def check(self, name: str) -> None:
        """Refuse values that would silently train something else than asked (0 epochs as the default...).

        Raises:
            ValueError: naming the option, what it must be and what it got.
        """
        self._check(f"classifier({name!r})")

    def _check(self, where: str) -> None:
        """:meth:`check`, its messages starting with ``where``."""
        check_seed(self.seed, where)  # before scikit-learn's random_state message, which names no seed
        for option in ("epochs", "batch_size"):
            value = getattr(self, option)
            if value is not None and not _whole(value, 1):
                raise ValueError(
                    f"{where}: {option} must be a whole number >= 1 (or None for the default); got {value!r}"
                )
        if not _whole(self.max_length, 1):
            raise ValueError(f"{where}: max_length must be a whole number of tokens >= 1; got {self.max_length!r}")
        for option in ("lr", "head_lr", "eval_every"):
            value = getattr(self, option)
            if value is not None and not _positive(value):
                raise ValueError(f"{where}: {option} must be a finite number > 0 (or None); got {value!r}")
        if self.patience is not None and not _whole(self.patience, 1):
            raise ValueError(
                f"{where}: patience must be a whole number of evaluations >= 1 or None; got {self.patience!r}"
            )
        if self.calibration not in CALIBRATIONS:
            raise ValueError(f"{where}: calibration must be one of {', '.join(CALIBRATIONS)}; got {self.calibration!r}")
        if not _whole(self.shots, 0):
            raise ValueError(f"{where}: shots must be a whole number of examples >= 0; got {self.shots!r}")
        if self.select_by not in SELECT_BY:
            raise ValueError(f"{where}: select_by must be one of {', '.join(SELECT_BY)}; got {self.select_by!r}")
        if self.architecture not in ARCHITECTURES:
            raise ValueError(
                f"{where}: architecture must be one of {', '.join(ARCHITECTURES)}; got {self.architecture!r}"
            )
        if not _positive(self.C):
            raise ValueError(
                f"{where}: C (inverse regularisation of a linear head) must be a finite number > 0; got {self.C!r}"
            )
        if self.train_embeddings is not None and not isinstance(self.train_embeddings, bool):
            raise ValueError(f"{where}: train_embeddings must be True, False or None; got {self.train_embeddings!r}")
        if not (self.train_layers in (None, "all") or _whole(self.train_layers, 1)):
            raise ValueError(
                f"{where}: train_layers must be a whole number of top blocks >= 1, 'all' or None (all); "
                f"got {self.train_layers!r}"
            )
        if self.head not in HEADS:
            raise ValueError(f"{where}: unknown head={self.head!r}; choose one of {', '.join(HEADS)}")
        if self.pooling not in POOLINGS:
            raise ValueError(f"{where}: pooling must be one of {', '.join(POOLINGS)}; got {self.pooling!r}")
        if not (isinstance(self.heldout_fraction, (int, float)) and 0 <= self.heldout_fraction < 1):
            raise ValueError(f"{where}: heldout_fraction must be in [0, 1); got {self.heldout_fraction!r}")
        if self.class_weight not in (None, "balanced"):
            raise ValueError(f"{where}: class_weight must be 'balanced' or None; got {self.class_weight!r}")
        sizes = list(self.hidden) if isinstance(self.hidden, Sequence) and not isinstance(self.hidden, str) else None
        if sizes is None or not all(_whole(h, 1) for h in sizes):
            raise ValueError(
                f"{where}: hidden must be a tuple of layer sizes, each a whole number >= 1 "
                f"(e.g. (500, 100)); got {self.hidden!r}"
            )


#: Where the check of a settings object made outside the factory says it was made; :meth:`from_options`
#: names its call instead.
_MADE_HERE = "ClassifierSettings"


def _whole(value: Any, least: int) -> bool:
    """Whether ``value`` is an integer (not a bool) of at least ``least``."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and bool(value >= least)


def _positive(value: Any) -> bool:
    """Whether ``value`` is a finite real number above 0."""
    return (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and bool(value > 0)
    )


#: What a recorded setting reads as when an entry's record lacks it: the :class:`ClassifierSettings` default,
#: written once there (a record keeps only the options off their defaults, and old records predate some).
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(ClassifierSettings)}


class KeyedSettings(dict[str, Any]):
    """The recorded settings dict (the cache key's): reading it by key warns; read the typed :class:`FitRecord`.

    JSON, ``dict(...)``, ``in`` and iteration are unchanged (the record and the cache key stay as they were).
    """

    def _warn(self, key: Any) -> None:
        warnings.warn(
            f"training.settings[{key!r}] is deprecated: read the typed record, training.{key} "
            "(training.recorded() for the whole dict); the dict access goes in the next release",
            DeprecationWarning,
            stacklevel=3,
        )

    def __getitem__(self, key: Any) -> Any:
        self._warn(key)
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._warn(key)
        return super().get(key, default)


class FitRecord:
    """Typed reads of a training's recorded settings: ``fit.epochs``, not ``settings["epochs"]``.

    A setting the record lacks reads as its :class:`ClassifierSettings` default (one place), except where
    an absent key means something of its own (said per property).

    Example:
        >>> fit = FitRecord({"epochs": 3, "lr": 2e-05, "batch_size": 32, "pairs": False})
        >>> fit.epochs, fit.architecture, fit.select_by
        (3, 'cross', None)
    """

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings

    def _read(self, name: str, absent: Any = None, *, field_default: bool = False) -> Any:
        record = self.settings
        if name in record:
            return dict.__getitem__(record, name) if isinstance(record, dict) else record[name]
        return _DEFAULTS[name] if field_default else absent

    def recorded(self) -> dict[str, Any]:
        """The whole record as a plain dict (what the cache key was computed from)."""
        return dict(self.settings)

    @property
    def epochs(self) -> int:
        """Epochs trained (the most, with early stopping); 0 for a linear head."""
        return int(self._read("epochs", 0))

    @property
    def lr(self) -> float:
        """Learning rate (0 for a linear head)."""
        return float(self._read("lr", 0.0))

    @property
    def batch_size(self) -> int:
        """Batch size (0 for a linear head)."""
        return int(self._read("batch_size", 0))

    @property
    def hidden(self) -> list[int]:
        """Hidden sizes of an MLP head (empty otherwise)."""
        return list(self._read("hidden", []))

    @property
    def pairs(self) -> bool:
        """Whether it was trained on text pairs."""
        return bool(self._read("pairs", False))

    @property
    def heldout_fraction(self) -> float | None:
        """The share of ``train`` held out (None when ``valid`` was given)."""
        return self._read("heldout_fraction", field_default=True)

    @property
    def max_length(self) -> int | None:
        """Truncation in tokens of a fine-tune (None otherwise)."""
        return self._read("max_length")

    @property
    def pooling(self) -> str | None:
        """Pooling of a fine-tuned encoder (None otherwise)."""
        return self._read("pooling")

    @property
    def architecture(self) -> str:
        """``"cross"`` or ``"siamese"`` (a fine-tune of text pairs)."""
        return str(self._read("architecture", field_default=True))

    @property
    def train_layers(self) -> int | str:
        """Top blocks trained, or ``"all"`` (also for a record from before the option: it trained every block)."""
        value = self._read("train_layers")
        return "all" if value is None else value

    @property
    def train_embeddings(self) -> bool:
        """Whether the word-embedding matrix trained (False in a record from before the option: it did not)."""
        return bool(self._read("train_embeddings", False))

    @property
    def class_weight(self) -> str | None:
        """``"balanced"`` or None."""
        return self._read("class_weight", field_default=True)

    @property
    def head_lr(self) -> float | None:
        """A fine-tune's head learning rate (None: ``lr``)."""
        return self._read("head_lr", field_default=True)

    @property
    def eval_every(self) -> float | None:
        """Evaluations per epoch of early stopping (None: no early stopping)."""
        return self._read("eval_every", field_default=True)

    @property
    def patience(self) -> int | None:
        """Early stopping's patience (None: never stop early)."""
        return self._read("patience", field_default=True)

    @property
    def select_by(self) -> str | None:
        """What early stopping kept the best state by; None without early stopping (nothing was selected)."""
        return self._read("select_by") if self.eval_every is not None else None


@dataclass
class Training(FitRecord):
    """How a classifier was obtained and how well it does on held-out data.

    Attributes:
        how: ``"native"``, ``"head"`` or ``"finetune"``.
        head: ``"linear"``, ``"mlp"`` or ``"native"`` (the model's own layer).
        settings: Every setting that went into the cache key.
        seed: Seeds the split, the initialisation and the batch order.
        heldout_accuracy: Accuracy on ``valid`` if given, else on the
            stratified ``heldout_fraction`` of ``train`` left out of training
            (``None`` without held-out data).
        majority_baseline: Share of the held-out set's most frequent label
            (the accuracy of always answering it); ``None`` likewise.
        train_log: Mean training loss per epoch (empty for a linear head or native).
        from_cache: True when the trained weights were reloaded, not trained.
        n_train, n_heldout: Examples trained on and evaluated on.
        key: The cache key.
        seconds: Time to train (0 when reloaded).
        n_skipped: Training examples left out because the frozen encoder has no vector for them
            (static word vectors that know none of their words; :mod:`mtlib.models.inference.oov`).
        data_sha256: Digest of the training set (texts, pairs, labels; :func:`mtlib.models.training.store.data_digest`),
            which a run's manifest records; None for a native classifier.
        best_epoch: With early stopping (``eval_every``): the epoch whose state was kept (None without).
        valid_curve: With early stopping: ``[epoch, held-out score]`` at every evaluation (``select_by``).

    The recorded settings read typed (:class:`FitRecord`): ``training.epochs``, ``training.select_by``...;
    ``training.settings[...]`` still works for one release, with a DeprecationWarning.
    """

    how: str
    head: str
    settings: dict[str, Any]
    seed: int
    heldout_accuracy: float | None
    majority_baseline: float | None
    train_log: list[float] = field(default_factory=list)
    from_cache: bool = False
    n_train: int = 0
    n_heldout: int = 0
    key: str = ""
    seconds: float = 0.0
    n_skipped: int = 0
    data_sha256: str | None = None
    best_epoch: float | None = None
    valid_curve: list[list[float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.settings, KeyedSettings):
            self.settings = KeyedSettings(self.settings)


def resolved_hyper(how: str, s: ClassifierSettings, caps: Capabilities) -> tuple[int, float, int]:
    """``(epochs, lr, batch_size)`` with the defaults filled in.

    Fine-tuning: :data:`FINETUNE_EPOCHS` (3), the family's learning rate (``caps.finetune_lr``: 2e-5, 1e-3 for a
    static embedding table), :data:`FINETUNE_BATCH` (32); an MLP head: the defaults of
    :class:`~mtlib.models.training.heads.MLPHead` (30 epochs, lr 1e-3, batch 64); a linear head has none (zeros).
    """
    if how == "finetune":
        return (s.epochs or FINETUNE_EPOCHS, s.lr or caps.finetune_lr, s.batch_size or FINETUNE_BATCH)
    if s.head == "mlp":
        return (s.epochs or MLP_EPOCHS, s.lr or MLP_LR, s.batch_size or MLP_BATCH)
    return (0, 0.0, 0)


def trains_embeddings(s: ClassifierSettings, caps: Capabilities) -> bool:
    """Whether a fine-tune trains the word-embedding matrix: as asked, else the family's default.

    Examples:
        >>> trains_embeddings(ClassifierSettings(), Capabilities(finetune="pipeline"))
        False
        >>> trains_embeddings(ClassifierSettings(), Capabilities(finetune="static-table", trains_word_embeddings=True))
        True
        >>> trains_embeddings(ClassifierSettings(train_embeddings=True), Capabilities(finetune="encoder"))
        True
    """
    return bool(s.train_embeddings) if s.train_embeddings is not None else caps.trains_word_embeddings


def finetune_extras(s: ClassifierSettings) -> dict[str, Any]:
    """The fine-tuning options that change the weights, only those off their defaults (old keys stay valid).

    Examples:
        >>> finetune_extras(ClassifierSettings())
        {}
        >>> finetune_extras(ClassifierSettings(head_lr=1e-3, eval_every=0.5, patience=2))
        {'head_lr': 0.001, 'eval_every': 0.5, 'patience': 2, 'select_by': 'accuracy'}
    """
    out: dict[str, Any] = {}
    if s.class_weight is not None:
        out["class_weight"] = s.class_weight
    if s.head_lr is not None:
        out["head_lr"] = float(s.head_lr)
    if s.eval_every is not None:
        out.update(eval_every=float(s.eval_every), patience=s.patience, select_by=s.select_by)
    if s.architecture != "cross":
        out["architecture"] = s.architecture
    return out
