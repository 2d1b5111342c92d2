"""Utilities every other layer uses; they import nothing else of mtlib.

- :mod:`~mtlib.utils.paths`: the project folder (:func:`project_root`).
- :mod:`~mtlib.utils.batching`: devices, length-sorted batches, progress bars.
- :mod:`~mtlib.utils.similarity`: row-normalised cosine similarities.
- :mod:`~mtlib.utils.cache`: the on-disk cache (atomic, checksummed entries).
- :mod:`~mtlib.utils.threads`: how many BLAS/OpenMP/torch threads a block uses.
- :mod:`~mtlib.utils.provenance`: the files a run read and what its cache answered, for its manifest.
"""

# level 0: no other module of mtlib
from mtlib.utils import provenance
from mtlib.utils.batching import inference_context, progress_bar, resolve_device, run_batched
from mtlib.utils.paths import project_root
from mtlib.utils.similarity import cosine_distance_rows, cosine_matrix, normalize_rows

# isort: split
# level 1: use batching (progress bars, devices)
from mtlib.utils.cache import ArrayCache, cache_root, cached_rows, stable_hash
from mtlib.utils.threads import cpu_threads, limit_threads

__all__ = [
    # level 0
    "provenance",
    "inference_context",
    "progress_bar",
    "resolve_device",
    "run_batched",
    "project_root",
    "cosine_distance_rows",
    "cosine_matrix",
    "normalize_rows",
    # level 1
    "ArrayCache",
    "cache_root",
    "cached_rows",
    "stable_hash",
    "cpu_threads",
    "limit_threads",
]
