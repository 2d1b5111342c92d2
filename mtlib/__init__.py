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
- :mod:`mtlib.run`: the kernel side of a run: results, the run layout, the manifest, the parameter check.
  The runner and the course-book builder are the tool ``mtrun`` beside mtlib (``tools/mtrun/``).
- :mod:`mtlib.testing`: the public CI gate.

Importing ``mtlib`` loads nothing heavy: each wing is imported on first use
(``import mtlib; mtlib.models.load("vader")``). The flat names of release
0.1 (``mtlib.stats``, ``from mtlib import sentiment``), deprecated there, are
gone in 0.2: import from the wing (``mtlib.analysis.stats``,
``mtlib.experiments.sentiment``).
"""

from mtlib.utils.faces import ALL, Face

__version__ = "0.2.0"

#: The wings, imported on first use.
WINGS = ("utils", "data", "models", "relations", "analysis", "experiments", "run", "testing", "suite", "paired")

#: Names of the suite wing reachable from the top: ``mtlib.compare`` (a function), ``mtlib.generate`` (a module).
SHORTCUTS = {"compare": "mtlib.suite", "generate": "mtlib.suite"}

_face = Face(__name__, {**{wing: [] for wing in WINGS}, "suite.comparison": ALL, "suite.generate": ["."]})
__all__, __getattr__, __dir__ = ["SHORTCUTS", "WINGS", "__version__", *_face.names], _face.getattr, _face.dir
