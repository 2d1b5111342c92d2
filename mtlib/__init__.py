"""mtlib: metamorphic testing and probing of NLP models.

The package behind the research notebooks in ``notebooks/``, built in wings
whose dependencies point one way (each imports only those to its left)::

    utils  <-  data  <-  models  <-  relations  <-  analysis  <-  experiments  <-  run

- :mod:`mtlib.utils`: paths, batching, the on-disk cache, threads, similarity.
- :mod:`mtlib.data`: one loader per dataset family, PTB trees, the papers' published values.
- :mod:`mtlib.models`: registry, offline resolution, adapters, heads, fine-tuning, probes.
- :mod:`mtlib.relations`: the relation protocol, exact counting, intervals, transformations, notation.
- :mod:`mtlib.analysis`: statistics, plots, claims computed from a run.
- :mod:`mtlib.experiments`: one sub-package per notebook.
- :mod:`mtlib.run`: the runner, parameters, the run layout, results, reports.
- :mod:`mtlib.testing`: the public CI gate.

Importing ``mtlib`` loads nothing heavy: each wing is imported on first use
(``import mtlib; mtlib.models.load("vader")``). The flat names of earlier
releases (``mtlib.stats``, ``from mtlib import sentiment``) still work for
one release, with a :class:`DeprecationWarning` naming the new place.
"""

from __future__ import annotations

import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys
import warnings as _warnings

__version__ = "0.1.0"

#: The wings, imported on first use.
WINGS = ("utils", "data", "models", "relations", "analysis", "experiments", "run", "testing", "suite")

#: Flat module names of earlier releases -> their new place (kept for one release).
MOVED = {
    "batching": "mtlib.utils.batching",
    "browse": "mtlib.relations.result",
    "cache": "mtlib.utils.cache",
    "claims": "mtlib.analysis.claims",
    "counting": "mtlib.relations.counting",
    "dask_executor": "mtlib.run.dask_executor",
    "expected": "mtlib.run.expected",
    "export": "mtlib.run.export",
    "fanout": "mtlib.run.fanout",
    "lexical": "mtlib.experiments.lexical",
    "montague": "mtlib.experiments.montague",
    "nli": "mtlib.experiments.nli",
    "notation": "mtlib.relations.notation",
    "notebooks": "mtlib.run.notebooks",
    "papers": "mtlib.data.papers",
    "params": "mtlib.run.params",
    "plots": "mtlib.analysis.plots",
    "probes": "mtlib.models.probes",
    "pss": "mtlib.experiments.pss",
    "results": "mtlib.run.results",
    "sentiment": "mtlib.experiments.sentiment",
    "seti": "mtlib.experiments.seti",
    "similarity": "mtlib.utils.similarity",
    "stats": "mtlib.analysis.stats",
    "threads": "mtlib.utils.threads",
    "training": "mtlib.models.training",
    "transformations": "mtlib.relations.transformations",
    "tre": "mtlib.experiments.tre",
    "trees": "mtlib.data.trees",
}

#: Names of the suite wing reachable from the top: ``mtlib.compare`` (a function), ``mtlib.generate`` (a module).
SHORTCUTS = {"compare": "mtlib.suite", "generate": "mtlib.suite"}

__all__ = ["MOVED", "SHORTCUTS", "WINGS", "__version__", *WINGS, *SHORTCUTS]


def _moved(name: str) -> str:
    new = MOVED[name]
    _warnings.warn(
        f"mtlib.{name} moved to {new}; import it from there (the old name goes in the next release)",
        DeprecationWarning,
        stacklevel=3,
    )
    return new


def __getattr__(name: str):
    """Import a wing on first use; an old flat name imports its new module with a DeprecationWarning."""
    if name in WINGS:
        return _importlib.import_module(f"mtlib.{name}")
    if name in SHORTCUTS:
        value = getattr(_importlib.import_module(SHORTCUTS[name]), name)
        globals()[name] = value
        return value
    if name in MOVED:
        module = _importlib.import_module(_moved(name))
        globals()[name] = module  # warn once per name
        return module
    raise AttributeError(f"module 'mtlib' has no attribute {name!r}")


class _MovedFinder(_abc.MetaPathFinder, _abc.Loader):
    """Lets ``import mtlib.stats`` and ``from mtlib.stats import x`` find the moved module, with a warning."""

    def find_spec(self, fullname, path=None, target=None):  # noqa: D102
        head, _, tail = fullname.partition(".")
        if head != "mtlib" or tail not in MOVED:
            return None
        return _util.spec_from_loader(fullname, self)

    def create_module(self, spec):  # noqa: D102
        return _importlib.import_module(_moved(spec.name.partition(".")[2]))

    def exec_module(self, module):  # noqa: D102
        return None

    def get_code(self, fullname):  # noqa: D102 - ``python -m mtlib.expected`` runs mtlib.run.expected
        new = _moved(fullname.partition(".")[2])
        spec = _util.find_spec(new)
        loader = spec.loader if spec else None
        return loader.get_code(new) if isinstance(loader, _abc.InspectLoader) else None


if not any(isinstance(f, _MovedFinder) for f in _sys.meta_path):
    _sys.meta_path.append(_MovedFinder())
