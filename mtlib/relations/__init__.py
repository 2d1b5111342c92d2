"""Metamorphic relations: the protocol, exact counting, intervals, transformations, notation.

Manino et al. define a relation by a transformation T of inputs and a property
P of outputs. Every family here has ``check(src, flw)`` (count violations on
outputs you have) and ``evaluate(inputs, model)`` (make the follow-ups, score
each unique text once, count): single-input (:class:`SingleInput`), pairwise
systematicity and compositionality, three-way transitivity. Counting is exact
and exhaustive (:mod:`~mtlib.relations.counting`), intervals resample source
items (:mod:`~mtlib.relations.bootstrap`), transformations make follow-ups
(:mod:`~mtlib.relations.transformations`) and every relation can draw itself
(:mod:`~mtlib.relations.notation`).
"""

from mtlib.relations.counting import (  # level 0
    EXPECTED_DIRECTIONS,
    OrderCount,
    TransitivityCount,
    count_order_violations,
    count_order_violations_naive,
    count_transitivity_violations,
    count_transitivity_violations_naive,
)
from mtlib.relations import bootstrap, notation  # level 1
from mtlib.relations.transformations import Concatenation, NotApplicable  # level 1
from mtlib.relations.core import (  # level 2
    RelationResult,
    Relation,
    SingleInput,
    PairwiseSystematicity,
    PairwiseCompositionality,
    ThreeWayTransitivity,
    unique_outputs,
    as_scorer,
)
from mtlib.relations import transformations  # noqa: E402

__all__ = [
    "EXPECTED_DIRECTIONS",
    "OrderCount",
    "TransitivityCount",
    "count_order_violations",
    "count_order_violations_naive",
    "count_transitivity_violations",
    "count_transitivity_violations_naive",
    "Concatenation",
    "NotApplicable",
    "RelationResult",
    "Relation",
    "SingleInput",
    "PairwiseSystematicity",
    "PairwiseCompositionality",
    "ThreeWayTransitivity",
    "unique_outputs",
    "as_scorer",
    "bootstrap",
    "notation",
    "transformations",
]
