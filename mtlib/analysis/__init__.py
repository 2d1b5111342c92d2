"""Analysis: statistics, figures and the conclusions a notebook draws from its run.

- :mod:`~mtlib.analysis.stats`: named tests and tables (intervals come from
  :mod:`mtlib.relations.bootstrap`).
- :mod:`~mtlib.analysis.plots`: one seaborn style, every figure as PNG and PDF.
- :mod:`~mtlib.analysis.claims`: sentences computed from a run's metrics.
"""

from mtlib.analysis import stats  # level 0: scipy, statsmodels
from mtlib.analysis import plots  # level 0: matplotlib, seaborn
from mtlib.analysis import claims  # level 1: uses papers' published values

__all__ = ["claims", "plots", "stats"]
