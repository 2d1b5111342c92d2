"""Loading a model by name: resolve its weights, build it through its family's adapter, memoise it.

Intuition: a notebook says ``load("minilm")`` many times and means one object.
:func:`build` makes a fresh object from resolved weights
(:mod:`~mtlib.models.weights.resolve` then :mod:`~mtlib.models.adapters`); :func:`load`
memoises it per process by (name, device, use_cache, backend, precision). The classifier factory
imports this module, not the package face, so ``mtlib.models`` stays a face.
"""

from __future__ import annotations

from mtlib.models.adapters import ADAPTERS
from mtlib.models.base import Model
from mtlib.models.inference.backends import resolve_backend
from mtlib.models.inference.numerics import resolve_precision
from mtlib.models.weights.registry import ModelNotFoundError
from mtlib.models.weights.resolve import Resolved, resolve

__all__ = ["build", "load"]

_LOADED: dict[tuple[str, str, bool, str, str], Model] = {}


def build(
    resolved: Resolved,
    device: str = "auto",
    *,
    use_cache: bool = True,
    backend: str | None = None,
    precision: str | None = None,
) -> Model:
    """A fresh model object from resolved weights, through its family's adapter (no in-process memo).

    Use :func:`load` in notebooks; ``build`` is for tests and benchmarks that
    need an object of their own (a cold cache, another device, backend or precision).
    ``backend`` and ``precision`` are checked first (:func:`~mtlib.models.inference.backends.resolve_backend`,
    :func:`~mtlib.models.inference.numerics.resolve_precision`); a model that runs no network ignores them.
    """
    backend, precision = resolve_backend(backend), resolve_precision(precision)
    if resolved.kind not in ADAPTERS:
        raise ModelNotFoundError(
            f"no adapter for kind {resolved.kind!r} of {resolved.name!r}; known kinds: {sorted(ADAPTERS)}"
        )
    model = ADAPTERS[resolved.kind](resolved, device, use_cache)
    if model.precisions:
        model.set_precision(precision)
    if model.backends:
        model.set_backend(backend)
    return model


def load(
    name_or_path: str,
    device: str = "auto",
    *,
    use_cache: bool = True,
    allow_pickle: bool = False,
    backend: str | None = None,
    precision: str | None = None,
) -> Model:
    """Load a model by registry name, hub id or local path.

    Args:
        name_or_path: ``"minilm"``, ``"minilm-static"``, ``"vader"``,
            ``"glove-50d"``, any name of :func:`~mtlib.models.weights.resolve.registered`, a hub id
            (``"org/model"``), a local Hugging Face / sentence-transformers
            folder, or a word2vec/GloVe file.
        device: ``"auto"`` (cuda, then mps, then cpu), or an explicit device.
        use_cache: Cache outputs on disk (``$MTLIB_CACHE``).
        allow_pickle: Let gensim unpickle a ``.kv`` / ``.model`` file given
            as the path (it can run code; refused unless asked for, or
            ``$MTLIB_ALLOW_PICKLE=1``).
        backend: What a transformer's ``embed`` runs on: ``"torch"``, ``"onnx"``
            (exported once into the cache, run by onnxruntime in fp32), or
            ``"auto"`` / ``None``: ``$MTLIB_BACKEND`` (``python -m mtlib.run --backend``),
            else torch (:mod:`mtlib.models.inference.backends`). Models that run no network ignore it.
        precision: What its forward passes run in: ``"fp32"`` (IEEE fp32, TF32 off), ``"tf32"``
            (TF32 matrix products on CUDA), ``"bf16"`` or ``"fp16"`` (autocast), or ``"auto"`` / ``None``:
            ``$MTLIB_PRECISION`` (``python -m mtlib.run --precision``), else fp32, on every device
            (:mod:`mtlib.models.inference.numerics`). Cached outputs are keyed by it (and by the device class), so a
            bf16 run never serves an fp32 one. Models that run no network ignore it.

    Returns:
        A :class:`~mtlib.models.base.Model`; loading the same name twice in a process (same device,
        cache use, backend and precision) returns the same object.

    Raises:
        ModelNotFoundError: unknown name (the message lists the known ones),
            a hub model while offline (the message says how to get it), a
            path that is not a model, or a pickled file without the opt-in.
        DataFormatError: a word-vector file that is malformed (file and line).
        ValueError: an unknown backend or precision (the message names the known ones), or the ONNX
            backend with a precision other than fp32.
    """
    backend, precision = resolve_backend(backend), resolve_precision(precision)
    key = (str(name_or_path), device, use_cache, backend, precision)
    if key in _LOADED:
        return _LOADED[key]
    resolved = resolve(str(name_or_path), allow_pickle=allow_pickle)
    model = build(resolved, device, use_cache=use_cache, backend=backend, precision=precision)
    _LOADED[key] = model
    return model
