"""Analysis: statistics, figures and the conclusions a notebook draws from its run.

- :mod:`~mtlib.analysis.stats`: named tests and tables (intervals come from
  :mod:`mtlib.relations.bootstrap`).
- :mod:`~mtlib.analysis.plots`: one seaborn style, every figure as PNG and PDF.
- :mod:`~mtlib.analysis.claims`: sentences computed from a run's metrics.
- :mod:`~mtlib.analysis.class_scores`: per-class precision, recall, F1, balanced accuracy, a shared task's F1.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "stats": [],
        "plots": [],
        "claims": [],
        "class_scores": [],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
