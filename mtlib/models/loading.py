"""Loading a model by name: resolve its weights, build it through its family's adapter, memoise it.

Intuition: a notebook says ``load("minilm")`` many times and means one object.
:func:`build` makes a fresh object from resolved weights
(:mod:`~mtlib.models.weights.resolve` then :mod:`~mtlib.models.adapters`); :func:`load`
memoises it per process by (name, use_cache and the context: device, backend, precision, cache folder).
Both take a :class:`~mtlib.utils.context.RunContext` (a run hands its own down); without one they
resolve one from their arguments, then the environment, then the defaults, each call, and write nothing back.
"""

from __future__ import annotations

from mtlib.models.base import Model
from mtlib.models.capabilities import ADAPTERS
from mtlib.models.weights.identity import digests_in
from mtlib.models.weights.registry import ModelNotFoundError
from mtlib.models.weights.resolve import Resolved, resolve
from mtlib.utils.choices import AUTO
from mtlib.utils.context import RunContext

__all__ = ["build", "load"]

_LOADED: dict[tuple[str, bool, str, str, str, str], Model] = {}


def load_context(
    context: RunContext | None = None,
    device: str | None = None,
    backend: str | None = None,
    precision: str | None = None,
) -> RunContext:
    """The context a load runs in: ``context`` (else one resolved now), with any explicit argument taking over.

    ``device``, ``backend`` and ``precision`` given as ``None`` or ``"auto"`` leave the context's value
    (without a context: resolve it from the environment, then the default).
    """
    if context is None:
        return RunContext.resolve(device=device or AUTO, precision=precision or AUTO, backend=backend or AUTO)
    return context.override(device=device, backend=backend, precision=precision)


def build(
    resolved: Resolved,
    device: str | None = AUTO,
    *,
    use_cache: bool = True,
    backend: str | None = None,
    precision: str | None = None,
    context: RunContext | None = None,
) -> Model:
    """A fresh model object from resolved weights, through its family's adapter (no in-process memo).

    Use :func:`load` in notebooks; ``build`` is for tests and benchmarks that
    need an object of their own (a cold cache, another device, backend or precision).
    The model runs in ``context`` (:func:`load_context`: explicit ``device``, ``backend``, ``precision``
    take over); a model that runs no network ignores the backend and the precision.
    """
    ctx = load_context(context, device, backend, precision)
    if resolved.kind not in ADAPTERS:
        raise ModelNotFoundError(
            f"no adapter for kind {resolved.kind!r} of {resolved.name!r}; known kinds: {sorted(ADAPTERS)}"
        )
    with digests_in(ctx.cache_dir):  # the adapter hashes its weight files while constructed: memo in ctx's folder
        model = ADAPTERS[resolved.kind](resolved, ctx.device, use_cache)
    model.run_in(ctx)  # its one place of numerics: the run's precision, backend and cache folder, its own device
    return model


def load(
    name_or_path: str,
    device: str | None = AUTO,
    *,
    use_cache: bool = True,
    allow_pickle: bool = False,
    backend: str | None = None,
    precision: str | None = None,
    context: RunContext | None = None,
) -> Model:
    """Load a model by registry name, hub id or local path.

    Args:
        name_or_path: ``"minilm"``, ``"minilm-static"``, ``"vader"``,
            ``"glove-50d"``, any name of :func:`~mtlib.models.weights.resolve.registered`, a hub id
            (``"org/model"``), a local Hugging Face / sentence-transformers
            folder, or a word2vec/GloVe file.
        device: ``"auto"`` (cuda, then mps, then cpu), or an explicit device.
        use_cache: Cache outputs on disk, in the context's cache folder (``context.cache_dir``).
        allow_pickle: Let gensim unpickle a ``.kv`` / ``.model`` file given
            as the path (it can run code; refused unless asked for, or
            ``$MTLIB_ALLOW_PICKLE=1``).
        backend: What a transformer's ``embed`` runs on: ``"torch"``, ``"onnx"``
            (exported once into the cache, run by onnxruntime in fp32), or
            ``"auto"`` / ``None``: ``$MTLIB_BACKEND`` (``python -m mtrun --backend``),
            else torch (:mod:`mtlib.models.inference.backends`). Models that run no network ignore it.
        precision: What its forward passes run in: ``"fp32"`` (IEEE fp32, TF32 off), ``"tf32"``
            (TF32 matrix products on CUDA), ``"bf16"`` or ``"fp16"`` (autocast), or ``"auto"`` / ``None``:
            ``$MTLIB_PRECISION`` (``python -m mtrun --precision``), else fp32, on every device
            (:mod:`mtlib.models.inference.numerics`). Cached outputs are keyed by it (and by the device class), so a
            bf16 run never serves an fp32 one. Models that run no network ignore it.
        context: The run's :class:`~mtlib.utils.context.RunContext` (device, precision, backend, cache
            folder); an explicit ``device``, ``backend`` or ``precision`` takes over its value.

    Returns:
        A :class:`~mtlib.models.base.Model`; loading the same name twice in a process (same device,
        cache use, backend, precision and cache folder) returns the same object.

    Raises:
        ModelNotFoundError: unknown name (the message lists the known ones),
            a hub model while offline (the message says how to get it), a
            path that is not a model, or a pickled file without the opt-in.
        DataFormatError: a word-vector file that is malformed (file and line).
        ValueError: an unknown backend or precision (the message names the known ones), or the ONNX
            backend with a precision other than fp32.
    """
    ctx = load_context(context, device, backend, precision)
    key = (str(name_or_path), use_cache, ctx.device, ctx.backend, ctx.precision, str(ctx.cache_dir))
    if key in _LOADED:
        return _LOADED[key]
    resolved = resolve(str(name_or_path), allow_pickle=allow_pickle)
    model = build(resolved, use_cache=use_cache, context=ctx)
    _LOADED[key] = model
    return model
