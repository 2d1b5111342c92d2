"""mtlib: metamorphic testing and probing of NLP models.

The package behind the research notebooks in ``notebooks/``. Each module is one
concept: ``models`` (registry and adapters), ``batching`` and ``cache``
(inference that runs every unique text through a model once), ``relations``
(metamorphic relations and exact violation counting), ``transformations`` (named follow-up makers),
``testing`` (CI gates) and ``browse`` (failing cases as tables and HTML), ``notation`` (diagrams of
relations), ``probes`` (heads trained on frozen features), ``stats``,
``plots``, ``claims`` (conclusions built from a run's metrics), ``results`` (the run contract),
``run`` (the papermill runner), ``notebooks`` (the notebook files' kernel and canonical metadata) and
``export`` (self-contained HTML of executed notebooks).
"""

__version__ = "0.1.0"

import importlib as _importlib

_SUBMODULES = {
    "batching", "cache", "claims", "counting", "models", "montague", "notation", "plots", "probes", "relations",
    "results", "run", "similarity", "stats", "training", "trees", "data", "sentiment", "nli", "lexical",
    "notebooks", "export", "pss", "tre", "seti", "transformations", "testing", "browse",
}


def __getattr__(name: str):
    """Import submodules on first use, so ``import mtlib; mtlib.models.load(...)`` works."""
    if name in _SUBMODULES:
        return _importlib.import_module(f"mtlib.{name}")
    raise AttributeError(f"module 'mtlib' has no attribute {name!r}")
