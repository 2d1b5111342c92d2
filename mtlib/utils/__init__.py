"""Utilities every other layer uses; they import nothing else of mtlib.

- :mod:`~mtlib.utils.paths`: the project folder (:func:`project_root`).
- :mod:`~mtlib.utils.batching`: devices, length-sorted batches, progress bars.
- :mod:`~mtlib.utils.cache`: the on-disk cache (atomic, checksummed entries).
- :mod:`~mtlib.utils.threads`: how many BLAS/OpenMP/torch threads a block uses.
- :mod:`~mtlib.utils.similarity`: row-normalised cosine similarities.
"""

from mtlib.utils.paths import project_root  # level 0
from mtlib.utils.batching import inference_context, progress_bar, resolve_device, run_batched  # level 1
from mtlib.utils.cache import ArrayCache, cache_root, cached_rows, stable_hash  # level 2
from mtlib.utils.threads import cpu_threads, limit_threads  # level 2
from mtlib.utils.similarity import cosine_distance_rows, cosine_matrix, normalize_rows  # level 0

__all__ = [
    "ArrayCache", "cache_root", "cached_rows", "cosine_distance_rows", "cosine_matrix", "cpu_threads",
    "inference_context", "limit_threads", "normalize_rows", "progress_bar", "project_root", "resolve_device",
    "run_batched", "stable_hash",
]
