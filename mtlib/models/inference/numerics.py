"""Numerics of a model's outputs: the precision a forward pass runs in, the device class it ran on, finiteness.

Intuition: the same weights give slightly different numbers in another
precision (bf16 autocast moves MiniLM's sentence vectors by up to about 1e-3)
and, in the last bits, on another type of device (a GPU's fp32 kernels sum in
another order than a CPU's). The published cells of notebook 04 compare
cosine distances of pairs of pairs, so a few last bits can swap an order. So
precision is a declared choice, fp32 by default on every device, and every
cache entry of a model's outputs says which numerics made it.

- the precisions, ``"fp32"`` (default), ``"tf32"`` (fp32 weights, TF32
  matrix products on CUDA; on a CPU the same arithmetic as fp32), ``"bf16"``
  or ``"fp16"`` (autocast), are resolved once per run with the rest of its
  context (:func:`mtlib.utils.context.resolve_precision`,
  :class:`mtlib.utils.context.RunContext`); this module re-exports the names.
- :func:`numerics_parts` / :func:`numerics_tag`: what a cache key adds for
  them. Nothing for fp32 on a CPU (the keys cached before precision existed
  stay valid); ``device=<class>`` for another device class (``cuda``,
  ``mps``); ``precision=<p>`` for another precision.
- :func:`run_numerics`: what ``metrics.json`` records (device, its name, precision).
- :func:`check_finite`: the one check of every model output path; a
  non-finite value is refused with :class:`NonFiniteOutputError`.

Why the device *class* is in the key, and not the card or the CPU model: the
pinned values of the notebooks (``notebooks/profiles/expected.yaml``) are
made on CPUs and must hold on any x86-64 CPU, so CPUs are one numerical world
whose last-bit differences the pins tolerate; a GPU's fp32 kernels (cuBLAS,
other reduction orders, TF32 if some library turned it on) are another, not
vouched for by any pin. A CPU rerun must never inherit a GPU's rows, and a
cluster of GPU and CPU workers must not mix them; two GPUs of one class may
share rows as two CPUs do.
"""

from __future__ import annotations

import contextlib
import platform
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from mtlib.utils.batching import inference_context, resolve_device
from mtlib.utils.context import (
    AUTO,
    DEFAULT_PRECISION,
    PRECISION_ENV,
    PRECISION_VALUES,
    PRECISIONS,
    resolve_precision,
)
from mtlib.utils.inputs import MtlibInputError

__all__ = [
    "AUTO",
    "DEFAULT_PRECISION",
    "MIXED_TRAINING",
    "EXPECTED_OUTPUT",
    "NonFiniteOutputError",
    "PRECISIONS",
    "PRECISION_ENV",
    "PRECISION_VALUES",
    "autocast_dtype",
    "check_finite",
    "device_class",
    "device_name",
    "expected_output",
    "numerics_parts",
    "numerics_tag",
    "precision_context",
    "resolve_precision",
    "run_numerics",
    "training_precision",
]

#: How :func:`mtlib.models.training.loop.fit` trains on CUDA: fp32 weights, bf16 autocast (recorded in the key).
MIXED_TRAINING = "bf16-mixed"


def device_class(device: str) -> str:
    """``"cpu"``, ``"cuda"``, ``"mps"``...: a device string without its index.

    Example:
        >>> device_class("cuda:1"), device_class("cpu")
        ('cuda', 'cpu')
    """
    return str(device or "cpu").split(":", 1)[0].strip().lower() or "cpu"


def numerics_parts(device: str, precision: str) -> tuple[str, ...]:
    """What a cache namespace adds for these numerics: nothing for fp32 on a CPU (the keys as they always were).

    Example:
        >>> numerics_parts("cpu", "fp32"), numerics_parts("cuda:0", "fp32"), numerics_parts("cpu", "bf16")
        ((), ('device=cuda',), ('precision=bf16',))
    """
    tag = numerics_tag(device, precision)
    return tuple(f"{k}={v}" for k, v in tag.items())


def numerics_tag(device: str, precision: str) -> dict[str, str]:
    """The numerics as key fields: ``device`` unless the CPU, ``precision`` unless fp32 (empty for both defaults).

    Example:
        >>> numerics_tag("cuda", "bf16")
        {'device': 'cuda', 'precision': 'bf16'}
    """
    tag: dict[str, str] = {}
    if device_class(device) != "cpu":
        tag["device"] = device_class(device)
    if precision != DEFAULT_PRECISION:
        tag["precision"] = precision
    return tag


def training_precision(device: str) -> str:
    """How :func:`mtlib.models.training.loop.fit` trains on ``device``: :data:`MIXED_TRAINING` on CUDA, else fp32."""
    return MIXED_TRAINING if device_class(device) == "cuda" else DEFAULT_PRECISION


def autocast_dtype(precision: str) -> Any:
    """The torch dtype autocast runs in for ``precision`` (``None`` for fp32 and tf32: no autocast)."""
    if precision in ("fp32", "tf32"):
        return None
    import torch

    return {"bf16": torch.bfloat16, "fp16": torch.float16}[precision]


@contextlib.contextmanager
def _tf32(device: str, allowed: bool) -> Iterator[None]:
    """TF32 matrix products (and cuDNN convolutions) on CUDA on or off for the block, restored after."""
    if device_class(device) != "cuda":
        yield
        return
    import torch

    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    before = (matmul.allow_tf32, cudnn.allow_tf32)
    matmul.allow_tf32, cudnn.allow_tf32 = allowed, allowed
    try:
        yield
    finally:
        matmul.allow_tf32, cudnn.allow_tf32 = before


@contextlib.contextmanager
def precision_context(device: str, precision: str) -> Iterator[None]:
    """``torch.inference_mode`` in ``precision`` on ``device``: autocast for bf16/fp16, TF32 only for tf32.

    fp32 turns TF32 off on CUDA for the block (whatever another library set), so fp32 means IEEE fp32 products.

    Raises:
        ValueError: the device has no autocast in this precision (e.g. fp16 on an old CPU build).
    """
    dtype = autocast_dtype(precision)
    with contextlib.ExitStack() as stack:
        stack.enter_context(_tf32(device, precision == "tf32"))
        try:
            stack.enter_context(inference_context(device, dtype))
        except RuntimeError as err:  # this torch build has no autocast of that dtype on that device
            raise ValueError(f"precision={precision!r} is not available on device {device!r}: {err}") from err
        yield


def device_name(device: str = "cpu") -> str:
    """The card's name for a CUDA device, else the CPU's model name (``/proc/cpuinfo``, else the platform's)."""
    cls = device_class(device)
    if cls == "cuda":
        import torch

        index = int(device.split(":", 1)[1]) if ":" in device else torch.cuda.current_device()
        return str(torch.cuda.get_device_name(index))
    if cls == "mps":
        return f"Apple MPS ({platform.machine()})"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def run_numerics(device: str | None = "auto", precision: str | None = None) -> dict[str, str]:
    """What a run records about its numerics: ``device`` (resolved), ``device_name`` and ``precision``.

    Without torch (a notebook that loads no network) the device is ``"cpu"``; a device asked for but
    not available here (``cuda`` without a GPU) is recorded as asked, named ``"unavailable"``.

    Example:
        >>> sorted(run_numerics("cpu", "fp32"))
        ['device', 'device_name', 'precision']
    """
    try:
        resolved = resolve_device(device or "auto")
    except ImportError:
        resolved = "cpu"
    except ValueError:
        return {"device": str(device), "device_name": "unavailable", "precision": resolve_precision(precision)}
    return {"device": resolved, "device_name": device_name(resolved), "precision": resolve_precision(precision)}


class NonFiniteOutputError(MtlibInputError):
    """A model gave NaN or infinite values; the message names the model, how many and the first input.

    A bad output, as a wrong argument is a bad input (an ``MtlibInputError``, so a ``ValueError``): the
    suite's command exits 2 on it, whatever wraps the model."""


def check_finite(
    values: Any, model: str, inputs: Sequence[Any], *, what: str = "outputs", nan_rows: bool = False
) -> np.ndarray:
    """``values`` (one row per input) when every value is finite, else :class:`NonFiniteOutputError`.

    Args:
        values: A model's outputs, shape ``(n, ...)`` (or ``(n,)``), row ``i`` from ``inputs[i]``.
        model: The model's name, for the message.
        inputs: The inputs, length ``n`` (texts, or pairs / items that hold them).
        what: What the values are (``"embeddings"``, ``"class probabilities"``...), for the message.
        nan_rows: Let a row that is NaN in every value through: static word vectors give a text
            with no known word such a row *by design* (:mod:`mtlib.models.inference.oov`), skipped and counted
            downstream.
            An infinite value, or a row only partly NaN, is still refused.

    Returns:
        ``values`` as an array, unchanged.

    Example:
        >>> try:
        ...     check_finite(np.array([[1.0], [np.inf]]), "toy", ["fine", "bad"])
        ... except NonFiniteOutputError as err:
        ...     print(err)
        toy gave 1 non-finite value(s) in its outputs, in 1 of 2 input(s); the first is 'bad'; expected finite
        numbers, one row per input ...
    """
    arr = np.asarray(values)
    if arr.dtype.kind not in "fc" or arr.size == 0:
        return arr
    finite = np.isfinite(arr)
    if finite.all():
        return arr
    bad = ~finite.reshape(len(arr), -1)
    if nan_rows:
        whole_nan = np.isnan(arr.reshape(len(arr), -1)).all(axis=1)
        bad[whole_nan] = False
        if not bad.any():
            return arr
    rows = np.flatnonzero(bad.any(axis=1))
    first = inputs[int(rows[0])] if int(rows[0]) < len(inputs) else f"input #{int(rows[0])}"
    raise NonFiniteOutputError(
        f"{model} gave {int(bad.sum())} non-finite value(s) in its {what}, in {len(rows)} of {len(arr)} input(s); "
        f"the first is {first!r}; expected {expected_output(what)} (a model that gives NaN or inf is broken for "
        "these inputs: check its weights, or run it in fp32)"
    )


#: What a model's output of each sort must be, for :func:`check_finite`'s message.
EXPECTED_OUTPUT = {
    "class probabilities": "finite probabilities in [0, 1], one row per input",
    "logits": "finite scores (logits), one row per input",
    "embeddings": "finite vectors, one row per input",
    "polarities": "finite polarity scores, one per input",
}


def expected_output(what: str) -> str:
    """What an output called ``what`` must be (``"finite probabilities in [0, 1] ..."``); finite values else.

    Example:
        >>> expected_output("class probabilities")
        'finite probabilities in [0, 1], one row per input'
    """
    return EXPECTED_OUTPUT.get(what, "finite numbers, one row per input")
