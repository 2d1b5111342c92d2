"""Analysis: statistics, figures and the conclusions a notebook draws from its run.

- :mod:`~mtlib.analysis.stats`: named tests and tables (intervals come from
  :mod:`mtlib.relations.bootstrap`).
- :mod:`~mtlib.analysis.plots`: one seaborn style, every figure as PNG and PDF.
- :mod:`~mtlib.analysis.claims`: sentences computed from a run's metrics.
- :mod:`~mtlib.analysis.polarity_sensitivity`: PSS (Bhathena et al.), its intervals and paired test.
- :mod:`~mtlib.analysis.paired_tests`: paired statistics written once (McNemar exact, the paired bootstrap, the
  sign-flip test, Holm and Benjamini-Hochberg), for the suite's compare, ``python -m mtlib.paired`` and PSS.
- :mod:`~mtlib.analysis.type_difference`: do the types of clustered items differ (chi-square, label permutations).
- :mod:`~mtlib.analysis.rank_correlation`: Spearman with a bootstrap interval, and partial Spearman.
- :mod:`~mtlib.analysis.tree_reconstruction`: Tree Reconstruction Error (TRE) of sentence vectors.
- :mod:`~mtlib.analysis.class_scores`: per-class precision, recall, F1, balanced accuracy, a shared task's F1.
"""

from mtlib.utils.faces import ALL, MODULE, Face

_face = Face(
    __name__,
    {
        "stats": [],
        "plots": [],
        "claims": [],
        "polarity_sensitivity": [],
        "paired_tests": ALL,
        "type_difference": ALL,
        "rank_correlation": [MODULE, ALL],
        "tree_reconstruction": [MODULE, ALL],
        "class_scores": [MODULE, ALL],
    },
    moved={"tre_by_split": "mtlib.analysis:fit_tre_heldout", "kinds_of": "mtlib.analysis:distinct_rows"},
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
