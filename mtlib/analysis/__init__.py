"""Analysis: statistics, figures and the conclusions a notebook draws from its run.

- :mod:`~mtlib.analysis.stats`: named tests and tables (intervals come from
  :mod:`mtlib.relations.bootstrap`).
- :mod:`~mtlib.analysis.plots`: one seaborn style, every figure as PNG and PDF.
- :mod:`~mtlib.analysis.claims`: sentences computed from a run's metrics.
"""

# level 0: no module of mtlib.analysis imports another (stats: scipy; plots: matplotlib, seaborn; claims: papers)
from mtlib.analysis import claims, plots, stats

__all__ = [
    # level 0
    "claims",
    "plots",
    "stats",
]
