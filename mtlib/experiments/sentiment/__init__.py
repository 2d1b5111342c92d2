"""Pairwise systematicity of a sentiment classifier (Manino et al. §4.1), notebook 01.

Source inputs are reviews; each transformation T of the paper's Table 1
concatenates a short, neutral sentence at the start or the end. If the model
scores review x1 more positive than x2, it should also score T(x1) more
positive than T(x2); every pair of reviews is a test case.

The method is the notebook's cells: the classifiers come from
:func:`mtlib.models.classifier`, the relation and its exact counts from
:class:`mtlib.relations.PairwiseSystematicity`, the tests from
:mod:`mtlib.analysis`. This package keeps what the notebook declares and
reads: ``spec`` (the parameters) and ``_data`` (the reviews, and the paper's
Table 1 beside the transformations).
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_data": ["load_data", "load_dev", "split_reviews", "table1_frame"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
