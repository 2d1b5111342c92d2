"""Metamorphic relations: the protocol, exact counting, intervals, transformations, notation.

Manino et al. define a relation by a transformation T of inputs and a property
P of outputs. Every family here has ``check(src, flw)`` (count violations on
outputs you have) and ``evaluate(inputs, scorer)`` (make the follow-ups, score
each unique text once, count; a scorer is any ``texts -> scores`` or a model
with ``classify``, :mod:`~mtlib.relations.scorers`: the relations load no model
and import neither torch nor :mod:`mtlib.models`): single-input (:class:`SingleInput`), pairwise
systematicity and compositionality, three-way transitivity. Counting is exact
and exhaustive (:mod:`~mtlib.relations.counting`), intervals resample source
items (:mod:`~mtlib.relations.bootstrap`), transformations make follow-ups
(:mod:`~mtlib.relations.transformations`), a :class:`RelationResult` gates and
shows its worst cases (:mod:`~mtlib.relations.result`) and every relation can
draw itself (:mod:`~mtlib.relations.notation`). The protocol is
:mod:`~mtlib.relations.base`; the families are :mod:`~mtlib.relations.single`,
:mod:`~mtlib.relations.pairwise` and :mod:`~mtlib.relations.transitivity`.
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "counting": ALL,
        "counting_torch": ALL,
        "sampling": ALL,
        "replicates": ALL,
        "errors": ALL,
        "scorers": ALL,
        "bootstrap": [],
        "notation": [],
        "transformations": [],
        "result": ALL,
        "base": ALL,
        "single": ALL,
        "pairwise": ALL,
        "transitivity": ALL,
        "distance_order": ALL,
    },
    moved={
        "consistency": "mtlib.relations:consistency_scores",
        # given by the transformations face only (each name on one face); the old place warns for one release
        "NotApplicable": "mtlib.relations.transformations:NotApplicable",
        "Concatenation": "mtlib.relations.transformations:Concatenation",
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
