"""The run context: device, precision, backend, threads and cache folder, resolved once and passed explicitly.

Intuition: where and in what numerics a run computes used to be process
state: a notebook's ``Run`` wrote its precision into ``$MTLIB_PRECISION`` and
every later ``load`` read it back, so a script asking for bf16 ran in whatever
the environment said and a JupyterLab kernel carried one run's numerics into
the next. Now the entry of a run (a notebook's spec, a user's ``load``) resolves one :class:`RunContext` from its
arguments, falling back to the environment and then to the defaults, and hands
that object down: :func:`mtlib.models.load`, the classifier factory, training,
the statistics and the run's manifest all read the same values, and nothing
writes the environment.

Resolution, once per context (:meth:`RunContext.resolve`):

- ``device``: ``"auto"`` is CUDA, then MPS, then the CPU (:func:`mtlib.utils.batching.resolve_device`);
- ``precision``: ``fp32`` (default), ``tf32``, ``bf16``, ``fp16``; ``"auto"`` reads ``$MTLIB_PRECISION``
  (which ``python -m mtrun --precision`` gives the notebooks it starts), else fp32;
- ``backend``: ``torch`` (default) or ``onnx``; ``"auto"`` reads ``$MTLIB_BACKEND``, else torch;
- ``threads``: the threads the runner planned for this process (``$MTLIB_THREADS``), else None (the process's
  own pool sizes); recorded, and applied by the runner to the kernel's environment as it starts (its pools are
  sized before any mtlib code runs). Within a process, a fit too small for many threads limits its own
  (the MLP head, :meth:`mtlib.models.training.heads.MLPHead.fit`); no notebook limits threads;
- ``cache_dir``: ``$MTLIB_CACHE``, else ``~/.cache/mtlib`` (:func:`mtlib.utils.cache.default_cache_dir`, the one
  reader of ``$MTLIB_CACHE``); every function that caches takes this folder.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mtlib.utils.batching import resolve_device
from mtlib.utils.cache import cache_root, default_cache_dir
from mtlib.utils.choices import AUTO, resolve_choice
from mtlib.utils.threads import THREADS_ENV

__all__ = [
    "AUTO",
    "BACKENDS",
    "BACKEND_ENV",
    "BACKEND_VALUES",
    "DEFAULT_PRECISION",
    "DEVICES",
    "PRECISIONS",
    "PRECISION_ENV",
    "PRECISION_VALUES",
    "RunContext",
    "resolve_backend",
    "resolve_precision",
]

#: The precisions a forward pass runs in.
PRECISIONS = ("fp32", "tf32", "bf16", "fp16")
#: The precision of every device unless asked otherwise.
DEFAULT_PRECISION = "fp32"
#: Values of a notebook's ``precision`` parameter.
PRECISION_VALUES = (AUTO, *PRECISIONS)
#: The environment variable read for ``precision="auto"`` (the runner's ``--precision`` sets it for its notebooks).
PRECISION_ENV = "MTLIB_PRECISION"
#: What a frozen encoder's ``embed`` runs on.
BACKENDS = ("torch", "onnx")
#: Values of a ``backend`` parameter.
BACKEND_VALUES = (AUTO, *BACKENDS)
#: The environment variable read for ``backend="auto"`` (the runner's ``--backend`` sets it).
BACKEND_ENV = "MTLIB_BACKEND"


def resolve_precision(precision: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """One of :data:`PRECISIONS`: ``precision`` itself, or for ``"auto"`` / ``None`` ``$MTLIB_PRECISION``, else fp32.

    Raises:
        ValueError: an unknown precision (or an unknown ``$MTLIB_PRECISION``), naming the allowed ones.

    Example:
        >>> resolve_precision(" BF16 ")
        'bf16'
        >>> resolve_precision("auto", environ={})
        'fp32'
        >>> resolve_precision("int8")
        Traceback (most recent call last):
        ...
        ValueError: precision='int8': expected one of fp32, tf32, bf16, fp16, or auto ($MTLIB_PRECISION, else fp32)
    """
    return resolve_choice(
        precision, name="precision", choices=PRECISIONS, env=PRECISION_ENV, default=DEFAULT_PRECISION, environ=environ
    )


def resolve_backend(backend: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``"torch"`` or ``"onnx"``: ``backend`` itself, or for ``"auto"`` / ``None`` ``$MTLIB_BACKEND``, else torch.

    Raises:
        ValueError: an unknown backend (or an unknown ``$MTLIB_BACKEND``), naming the allowed ones.

    Example:
        >>> resolve_backend(" ONNX ")
        'onnx'
        >>> resolve_backend("tensorrt")
        Traceback (most recent call last):
        ...
        ValueError: backend='tensorrt': expected one of torch, onnx, or auto ($MTLIB_BACKEND, else torch)
    """
    return resolve_choice(backend, name="backend", choices=BACKENDS, env=BACKEND_ENV, default="torch", environ=environ)


#: The devices a run can be asked for (``cuda:<n>`` too).
DEVICES = (AUTO, "cpu", "cuda", "mps")
_CUDA_N = re.compile(r"cuda:\d+")


def _device(device: str | None) -> str:
    """The resolved device; the CPU where torch is not installed (a core install runs no network).

    Raises:
        ValueError: not one of :data:`DEVICES` or ``cuda:<n>`` (e.g. ``"tpu"``), or a device this machine lacks.
    """
    if device is not None and not isinstance(device, str):
        raise ValueError(f"device={device!r}: expected one of 'auto', 'cpu', 'cuda', 'cuda:<n>', 'mps'")
    if (device or AUTO) not in DEVICES and not _CUDA_N.fullmatch(device or ""):
        raise ValueError(
            f"device {device!r} is not a device mtlib knows; expected one of 'auto', 'cpu', 'cuda', 'cuda:<n>', 'mps'"
        )
    try:
        return resolve_device(device or AUTO)
    except ImportError:
        if str(device or AUTO).split(":", 1)[0] not in (AUTO, "cpu"):
            raise ValueError(f"device {device!r} asked for, but torch is not installed; use device='cpu'") from None
        return "cpu"


def _threads(environ: Mapping[str, str]) -> int | None:
    """The threads planned for this process (``$MTLIB_THREADS``), or None when nothing was planned."""
    text = environ.get(THREADS_ENV, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"${THREADS_ENV}={text!r}: expected a whole number of threads >= 1 (or unset it)")
    return int(text)


@dataclass(frozen=True)
class RunContext:
    """Where and in what numerics a run computes: every value resolved (no ``"auto"`` left).

    Attributes:
        device: Torch device of the models (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``).
        precision: What the models' forward passes run in (one of :data:`PRECISIONS`).
        backend: What a frozen encoder's ``embed`` runs on (``"torch"`` or ``"onnx"``).
        threads: CPU threads planned for this process, or None (the process's own pool sizes).
        cache_dir: The on-disk cache of model outputs, trained classifiers and exported graphs.

    Example:
        >>> ctx = RunContext.resolve(device="cpu", precision="bf16", environ={})
        >>> ctx.device, ctx.precision, ctx.backend, ctx.stats_device
        ('cpu', 'bf16', 'torch', None)
        >>> RunContext.resolve(device="cpu", environ={"MTLIB_PRECISION": "tf32"}).precision
        'tf32'
    """

    device: str = "cpu"
    precision: str = DEFAULT_PRECISION
    backend: str = "torch"
    threads: int | None = None
    cache_dir: Path = field(default_factory=default_cache_dir)

    @classmethod
    def resolve(
        cls,
        *,
        device: str | None = AUTO,
        precision: str | None = AUTO,
        backend: str | None = AUTO,
        threads: int | None = None,
        cache_dir: str | Path | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> RunContext:
        """Resolve every choice once: an explicit value, else its environment variable, else its default.

        Args:
            device: ``"auto"`` (CUDA, then MPS, then CPU) or a torch device.
            precision: One of :data:`PRECISION_VALUES`.
            backend: One of :data:`BACKEND_VALUES`.
            threads: CPU threads, or None for ``$MTLIB_THREADS`` (else None).
            cache_dir: The cache folder, or None for ``$MTLIB_CACHE`` (else ``~/.cache/mtlib``).
            environ: The environment to read (``os.environ`` by default); it is never written.

        Raises:
            ValueError: an unknown precision or backend, an unavailable device, or a bad ``$MTLIB_THREADS``.
        """
        env = os.environ if environ is None else environ
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads={threads!r}: expected a whole number >= 1, or None")
        return cls(
            device=_device(device),
            precision=resolve_precision(precision, env),
            backend=resolve_backend(backend, env),
            threads=threads if threads is not None else _threads(env),
            cache_dir=cache_root(cache_dir),
        )

    def override(
        self, *, device: str | None = None, precision: str | None = None, backend: str | None = None
    ) -> RunContext:
        """This context with each explicit choice taking over; ``None``, ``""`` or ``"auto"`` keep its value.

        Only the choices given are resolved (the environment is not read again).

        Raises:
            ValueError: an unknown precision or backend, or an unavailable device.

        Example:
            >>> RunContext(precision="bf16").override(device="cpu", precision="auto").precision
            'bf16'
        """
        chosen: dict[str, Any] = {}
        if device not in (None, "", AUTO):
            chosen["device"] = _device(device)
        if backend not in (None, "", AUTO):
            chosen["backend"] = resolve_backend(backend)
        if precision not in (None, "", AUTO):
            chosen["precision"] = resolve_precision(precision)
        return replace(self, **chosen) if chosen else self

    @property
    def stats_device(self) -> str | None:
        """Where the exact counts, bootstraps and permutation tests run: this CUDA device, else None (numpy).

        On a GPU run the statistics run where the data is (torch on the card; the host CPU would otherwise
        bound the run); on a CPU, or an Apple GPU (no float64 there, which the exact reductions need), they
        count with numpy on the host. Both give the same integers (:mod:`mtlib.relations.kernels`).
        """
        return self.device if self.device.startswith("cuda") else None

    def record(self) -> dict[str, Any]:
        """What a run's ``metrics.json`` and manifest say about its context (JSON-ready)."""
        return {
            "device": self.device,
            "precision": self.precision,
            "backend": self.backend,
            "threads": self.threads,
            "stats_device": self.stats_device or "host",
        }
