"""Loading a model by name: resolve its weights, build it through its family's adapter, memoise it.

Intuition: a notebook says ``load("minilm")`` many times and means one object.
:func:`build` makes a fresh object from resolved weights
(:mod:`~mtlib.models.resolve` then :mod:`~mtlib.models.adapters`); :func:`load`
memoises it per process by (name, device, use_cache). The classifier factory
imports this module, not the package face, so ``mtlib.models`` stays a face.
"""

from __future__ import annotations

from mtlib.models.adapters import ADAPTERS
from mtlib.models.base import Model
from mtlib.models.registry import ModelNotFoundError
from mtlib.models.resolve import Resolved, resolve

__all__ = ["build", "load"]

_LOADED: dict[tuple[str, str, bool], Model] = {}


def build(resolved: Resolved, device: str = "auto", *, use_cache: bool = True) -> Model:
    """A fresh model object from resolved weights, through its family's adapter (no in-process memo).

    Use :func:`load` in notebooks; ``build`` is for tests and benchmarks that
    need an object of their own (a cold cache, another device).
    """
    if resolved.kind not in ADAPTERS:
        raise ModelNotFoundError(
            f"no adapter for kind {resolved.kind!r} of {resolved.name!r}; known kinds: {sorted(ADAPTERS)}"
        )
    return ADAPTERS[resolved.kind](resolved, device, use_cache)


def load(name_or_path: str, device: str = "auto", *, use_cache: bool = True, allow_pickle: bool = False) -> Model:
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

    Returns:
        A :class:`~mtlib.models.base.Model`; loading the same name twice in a process returns
        the same object.

    Raises:
        ModelNotFoundError: unknown name (the message lists the known ones),
            a hub model while offline (the message says how to get it), a
            path that is not a model, or a pickled file without the opt-in.
        DataFormatError: a word-vector file that is malformed (file and line).
    """
    key = (str(name_or_path), device, use_cache)
    if key in _LOADED:
        return _LOADED[key]
    resolved = resolve(str(name_or_path), allow_pickle=allow_pickle)
    model = build(resolved, device, use_cache=use_cache)
    _LOADED[key] = model
    return model
