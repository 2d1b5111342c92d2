"""Utilities every other layer uses; they import nothing else of mtlib.

- :mod:`~mtlib.utils.paths`: the project folder (:func:`project_root`).
- :mod:`~mtlib.utils.batching`: devices, length-sorted batches, progress bars.
- :mod:`~mtlib.utils.similarity`: row-normalised cosine similarities.
- :mod:`~mtlib.utils.cache`: the on-disk cache (atomic, checksummed entries).
- :mod:`~mtlib.utils.threads`: how many BLAS/OpenMP/torch threads a block uses.
- :mod:`~mtlib.utils.provenance`: the files a run read and what its cache answered, for its manifest.
- :mod:`~mtlib.utils.contracts`: what a replaceable notebook cell must return (:func:`check_output`).
- :mod:`~mtlib.utils.timing`: how long a block took (:func:`stopwatch`).
- :mod:`~mtlib.utils.keys`: the metric-key scheme of a model's values (:func:`model_keys`, :func:`model_slug`).
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "paths": ALL,
        "batching": ALL,
        "similarity": ALL,
        "provenance": [],
        "cache": ALL,
        "threads": ALL,
        "contracts": ALL,
        "timing": ALL,
        "keys": ALL,
    },
    moved={"cpu_threads": "mtlib.utils:threads_for_device", "scheme": "mtlib.utils:model_keys"},
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
