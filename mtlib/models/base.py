"""What every model is: the :class:`Model` interface, forward-pass :class:`Features`,
and the two small numeric helpers every adapter shares (log-odds, masked mean).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.models.capabilities import Capabilities
from mtlib.models.inference.numerics import numerics_parts
from mtlib.utils.cache import ArrayCache
from mtlib.utils.context import RunContext, resolve_backend, resolve_precision
from mtlib.utils.inputs import check_texts

#: When set, every batch a model sends through its network appends ``<model name><TAB><batches>`` to this
#: file: the Dask executor counts the forward calls of a job with it (0 in a gather job = cache hits only).
CALLS_LOG_ENV = "MTLIB_CALLS_LOG"
#: The public methods of a model that take texts (and, for a pair classifier, ``text_pairs``): every adapter's
#: own version is checked on entry by :meth:`Model.__init_subclass__`, so a bare string or a ``None`` among the
#: texts is refused with the model's name, not read character by character or as ``"None"``.
TEXT_ENTRIES = ("embed", "classify", "logits")


def _checking_texts(method: Callable[..., Any], entry: str) -> Callable[..., Any]:
    """``method`` with its ``texts`` (and ``text_pairs``, when given) checked as lists of ``str`` first."""

    @functools.wraps(method)
    def checked(self: Model, texts: Any, *args: Any, **kwargs: Any) -> Any:
        where = f"{self.name}.{entry}"
        texts = check_texts(texts, where, "texts")
        if args and args[0] is not None:
            args = (check_texts(args[0], where, "text_pairs"), *args[1:])
        elif kwargs.get("text_pairs") is not None:
            kwargs["text_pairs"] = check_texts(kwargs["text_pairs"], where, "text_pairs")
        return method(self, texts, *args, **kwargs)

    checked.checks_texts = True  # type: ignore[attr-defined]
    return checked


def log_odds(scores: np.ndarray, column: int) -> np.ndarray:
    """log P(column) - log P(any other column), shape ``(n,)``.

    Args:
        scores: Logits or log-probabilities, shape ``(n, k)`` (the result is
            the same: a softmax's normaliser cancels).
        column: The class.

    Unlike probabilities, log-odds do not saturate at 0 or 1, so order
    relations see no artificial ties between confident predictions.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        return np.zeros(0)
    others = np.delete(scores, column, axis=1)
    top = others.max(axis=1, keepdims=True)
    rest = top[:, 0] + np.log(np.exp(others - top).sum(axis=1))
    return scores[:, column] - rest


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax in float64, shape ``(n, k)``."""
    z = np.asarray(logits, dtype=np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True)) if len(z) else z
    return e / e.sum(axis=1, keepdims=True) if len(z) else e


def masked_mean(hidden: Any, mask: Any) -> Any:
    """Mean over tokens where ``mask`` is 1 (torch); hidden ``(b, t, h)``, mask ``(b, t)`` -> ``(b, h)``."""
    mask = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)


def label_position(labels: Sequence[Any], label: Any, owner: str) -> int:
    """Column of ``label`` in ``labels``: exact match first, then case-insensitive by name.

    Raises:
        KeyError: naming ``owner`` and the labels it has.
    """
    for i, lab in enumerate(labels):
        if lab == label and type(lab) is type(label):
            return i
    lowered = [str(lab).lower() for lab in labels]
    if str(label).lower() in lowered:
        return lowered.index(str(label).lower())
    raise KeyError(f"{owner} has no label {label!r}; its labels are {list(labels)}")


@dataclass
class Features:
    """Outputs of one forward pass per input.

    Attributes:
        pooled: Masked mean of the last hidden layer, shape ``(n, h)``.
        probs: Class probabilities ``(n, k)``, or ``None`` without a head.
        spans: Mean hidden state at the requested layer over each requested
            substring's word pieces, shape ``(n, m, h)`` for ``m`` spans per
            input, or ``None``.
        labels: Class names of ``probs``.
        logits: Raw class scores ``(n, k)``, or ``None``.
    """

    pooled: np.ndarray
    probs: np.ndarray | None = None
    spans: np.ndarray | None = None
    labels: list[str] = field(default_factory=list)
    logits: np.ndarray | None = None

    def log_odds(self, label: str) -> np.ndarray:
        """log P(label) - log P(not label) from the logits, shape ``(n,)``."""
        if self.logits is None:
            raise ValueError("these features come from a model without a classification head")
        return log_odds(self.logits, label_position(self.labels, label, "these features"))


class Model:
    """Common interface of every adapter.

    Its numerics live in one place, :attr:`context`: ``device``, ``precision`` and ``backend`` read it.

    Attributes:
        name: Registry name or path given to :func:`mtlib.models.load`.
        identity: Weights identity used in cache keys.
        context: The run context it runs in (:meth:`run_in`; :func:`mtlib.models.loading.build` places every
            loaded model in its run's): its device, precision, backend and the cache folder of its outputs.
            A model built directly runs in the defaults (fp32, torch, the default cache folder) on its device.
        device: Resolved torch device (``"cpu"`` for non-torch models): ``context.device``.
        labels: Class names for :meth:`classify` (empty for encoders).
        calls: Number of batches sent through the underlying model; tests
            and benchmarks read it to check the cache.
        kind: Adapter family (a key of :data:`mtlib.models.adapters.ADAPTERS`).
        capabilities: What its family can do and how (:class:`~mtlib.models.capabilities.Capabilities`);
            ``can_finetune`` reads it.
        backends: The backends :meth:`embed` can run on (:mod:`mtlib.models.inference.backends`);
            empty for a model that runs no network (word vectors, lexicons), which a backend does not concern.
        backend: The backend :meth:`embed` runs on (``context.backend``), ``None`` when ``backends`` is empty.
        precisions: The precisions its forward passes can run in (:mod:`mtlib.models.inference.numerics`); empty for a
            model that runs no network, whose outputs the precision does not concern.
        precision: The precision its forward passes run in (``context.precision``), ``None`` when ``precisions``
            is empty.
    """

    kind: str = "model"
    capabilities: Capabilities = Capabilities()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every adapter's :data:`TEXT_ENTRIES` check their texts on entry (one check, written once)."""
        super().__init_subclass__(**kwargs)
        for entry in TEXT_ENTRIES:
            method = cls.__dict__.get(entry)
            if callable(method) and not getattr(method, "checks_texts", False):
                setattr(cls, entry, _checking_texts(method, entry))

    backends: tuple[str, ...] = ()
    precisions: tuple[str, ...] = ()

    def __init__(self, name: str, identity: str, device: str = "cpu", use_cache: bool = True) -> None:
        self.name, self.identity = name, identity
        #: The one place of its numerics (and of its cache folder); a classifier trained on it runs in it
        #: unless given another.
        self.context = RunContext(device=device)
        self.labels: list[Any] = []
        self.use_cache = use_cache
        self._calls = 0
        self._caches: dict[tuple[Any, ...], ArrayCache] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, identity={self.identity!r}, device={self.device!r})"

    @property
    def calls(self) -> int:
        """Batches sent through the underlying model so far (adapters add 1 per batch)."""
        return getattr(self, "_calls", 0)

    @calls.setter
    def calls(self, value: int) -> None:
        log = os.environ.get(CALLS_LOG_ENV)
        if log and value > self.calls:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(f"{self.name}\t{value - self.calls}\n")
        self._calls = value

    @property
    def device(self) -> str:
        """Where it runs: its context's device."""
        return self.context.device

    @device.setter
    def device(self, device: str) -> None:
        self.context = replace(self.context, device=device)

    @property
    def precision(self) -> str | None:
        """What its forward passes run in (its context's precision); None for a model that runs no network."""
        return self.context.precision if self.precisions else None

    @property
    def backend(self) -> str | None:
        """What :meth:`embed` runs on (its context's backend); None for a model that runs no network."""
        return self.context.backend if self.backends else None

    def set_precision(self, precision: str | None) -> None:
        """Run its forward passes in ``precision`` (``"auto"`` / None: ``$MTLIB_PRECISION``, else fp32).

        Raises:
            ValueError: an unknown precision, or one this model cannot run in (naming its precisions).
        """
        chosen = resolve_precision(precision)
        if chosen not in self.precisions:
            raise ValueError(f"{self.name}: precision={chosen!r}; it runs in {list(self.precisions) or 'no network'}")
        self.context = replace(self.context, precision=chosen)

    def set_backend(self, backend: str | None) -> None:
        """Run :meth:`embed` on ``backend`` (``"auto"`` / None: ``$MTLIB_BACKEND``, else torch).

        Raises:
            ValueError: an unknown backend, or one this model cannot run on (naming its backends).
        """
        chosen = resolve_backend(backend)
        if chosen not in self.backends:
            raise ValueError(f"{self.name}: backend={chosen!r}; it runs on {list(self.backends) or 'no network'}")
        self.context = replace(self.context, backend=chosen)

    def run_in(self, context: RunContext) -> None:
        """Run in ``context``: its cache folder, precision and backend (those this model has), on its own device.

        A model that runs no network keeps fp32 and torch in its context (its outputs do not depend on them).

        Raises:
            ValueError: a precision or backend this model cannot run in (:meth:`set_precision`,
                :meth:`set_backend`: a transformer refuses a precision other than fp32 on ONNX).
        """
        self.context = replace(
            context, device=self.device, precision=self.context.precision, backend=self.context.backend
        )
        if self.precisions:
            self.set_precision(context.precision)
        if self.backends:
            self.set_backend(context.backend)

    def numerics_parts(self) -> tuple[str, ...]:
        """What the cache keys of this model's outputs add for its numerics (device class, precision).

        Nothing for fp32 on a CPU, or for a model that runs no network
        (:func:`mtlib.models.inference.numerics.numerics_parts` says why the device class counts).
        """
        return numerics_parts(self.device, self.precision) if self.precision else ()

    def _cache(self, *op: Any) -> ArrayCache | None:
        """The disk-cache namespace of one operation, opened once per model object."""
        if not self.use_cache:
            return None
        if op not in self._caches:
            self._caches[op] = ArrayCache((self.identity, *op), root=self.cache_dir)
        return self._caches[op]

    @property
    def cache_dir(self) -> Path:
        """The cache folder of its outputs: its context's."""
        return self.context.cache_dir

    @property
    def can_finetune(self) -> bool:
        """Whether :func:`mtlib.models.classifier` can train its weights (``how="finetune"``)."""
        return self.capabilities.can_finetune

    @property
    def has_embeddings(self) -> bool:
        """Whether :meth:`embed` gives sentence vectors (a head can be trained on them)."""
        return type(self).embed is not Model.embed

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence embeddings, shape ``(n, d)`` float32, one row per text."""
        raise NotImplementedError(f"{self!r} cannot embed sentences")

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """Class probabilities, shape ``(n, k)``, columns named by ``self.labels``."""
        raise NotImplementedError(
            f"{self!r} has no classification head; train one with "
            f"mtlib.models.classifier({self.name!r}, train) (how='head' or how='finetune')"
        )

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """Unnormalised class scores ``(n, k)``; by default the log of :meth:`classify`."""
        probs = np.asarray(self.classify(texts, text_pairs), dtype=np.float64)
        return np.log(np.clip(probs, 1e-300, None))

    def score(self, texts: Sequence[str], label: Any, text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """Probability of one named class, shape ``(n,)``.

        Raises:
            KeyError: the label is not one of ``self.labels`` (case-insensitive).
        """
        column = self.label_index(label)
        return np.asarray(self.classify(texts, text_pairs))[:, column]

    def log_odds(self, texts: Sequence[str], label: Any, text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """log P(label) - log P(other classes), shape ``(n,)``; no saturation at 0 or 1."""
        column = self.label_index(label)
        return log_odds(self.logits(texts, text_pairs), column)

    def label_index(self, label: Any) -> int:
        """Column of a class in :meth:`classify`'s output (exact, then case-insensitive by name)."""
        if not self.labels:
            self.classify([])  # raises the "no head" explanation
        return label_position(self.labels, label, self.name)


__all__ = ["log_odds", "softmax", "masked_mean", "label_position", "Features", "Model"]
