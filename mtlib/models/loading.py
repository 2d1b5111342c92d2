"""Loading a model by name: resolve its weights, build it through its family's adapter, memoise it.

Intuition: a notebook says ``load("minilm")`` many times and means one object.
:func:`build` makes a fresh object from resolved weights
(:mod:`~mtlib.models.resolve` then :mod:`~mtlib.models.adapters`); :func:`load`
memoises it per process by (name, device, use_cache, backend). The classifier factory
imports this module, not the package face, so ``mtlib.models`` stays a face.
"""

from __future__ import annotations

from mtlib.models.adapters import ADAPTERS
from mtlib.models.backends import resolve_backend
from mtlib.models.base import Model
from mtlib.models.registry import ModelNotFoundError
from mtlib.models.resolve import Resolved, resolve

__all__ = ["build", "load"]

_LOADED: dict[tuple[str, str, bool, str], Model] = {}


def build(resolved: Resolved, device: str = "auto", *, use_cache: bool = True, backend: str | None = None) -> Model:
    """A fresh model object from resolved weights, through its family's adapter (no in-process memo).

    Use :func:`load` in notebooks; ``build`` is for tests and benchmarks that
    need an object of their own (a cold cache, another device, another backend).
    ``backend`` is checked first (:func:`~mtlib.models.backends.resolve_backend`);
    a model that runs no network ignores it.
    """
    backend = resolve_backend(backend)
    if resolved.kind not in ADAPTERS:
        raise ModelNotFoundError(
            f"no adapter for kind {resolved.kind!r} of {resolved.name!r}; known kinds: {sorted(ADAPTERS)}"
        )
    model = ADAPTERS[resolved.kind](resolved, device, use_cache)
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
) -> Model:
    """Load a model by registry name, hub id or local path.

    Args:
        name_or_path: ``"minilm"``, ``"minilm-static"``, ``"vader"``,
            ``"glove-50d"``, any name of :func:`~mtlib.models.resolve.registered`, a hub id
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
            else torch (:mod:`mtlib.models.backends`). Models that run no network ignore it.

    Returns:
        A :class:`~mtlib.models.base.Model`; loading the same name twice in a process (same device,
        cache use and backend) returns the same object.

    Raises:
        ModelNotFoundError: unknown name (the message lists the known ones),
            a hub model while offline (the message says how to get it), a
            path that is not a model, or a pickled file without the opt-in.
        DataFormatError: a word-vector file that is malformed (file and line).
        ValueError: an unknown backend (the message names the known ones).
    """
    backend = resolve_backend(backend)
    key = (str(name_or_path), device, use_cache, backend)
    if key in _LOADED:
        return _LOADED[key]
    resolved = resolve(str(name_or_path), allow_pickle=allow_pickle)
    model = build(resolved, device, use_cache=use_cache, backend=backend)
    _LOADED[key] = model
    return model
