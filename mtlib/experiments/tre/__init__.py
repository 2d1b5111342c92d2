"""Notebook 06: Tree Reconstruction Error against Tree Impurity and Weighted Node Switching (Bhathena et al. §4).

The method is in the notebook's cells, over generic blocks: the trees and
their ground-truth scores (:mod:`mtlib.data.trees`: Tree Impurity, Weighted
Node Switching), the TRE fit (:mod:`mtlib.analysis.tree_reconstruction`) and
the rank correlations of Table 2 (:mod:`mtlib.analysis.rank_correlation`).
This package keeps what is the notebook's own:

- :mod:`~mtlib.experiments.tre.spec`: the parameters (with :class:`TreFitOptions`, the fit's part of them);
- :mod:`~mtlib.experiments.tre._data`: the tree files (:func:`load_trees`) and the paper's published
  values (:func:`paper_table2`, :func:`paper_rows`, :func:`find_paper_examples`).
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_fit_options": ["TreFitOptions"],
        "_data": ["PAPER_ENCODERS", "find_paper_examples", "load_trees", "paper_rows", "paper_table2"],
    },
    moved={"FitSettings": "mtlib.experiments.tre:TreFitOptions"},
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
