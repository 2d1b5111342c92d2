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

# imports ordered by dependency level, lowest first
# isort: off
# level 0: counting, intervals, transformations, notation (numpy, pandas only)
from mtlib.relations import bootstrap, notation, transformations
from mtlib.relations.counting import (
    EXPECTED_DIRECTIONS,
    OrderCount,
    TransitivityCount,
    count_order_violations,
    count_transitivity_violations,
    sample_triples,
)
from mtlib.relations.counting_naive import count_order_violations_naive, count_transitivity_violations_naive
from mtlib.relations.counting_torch import statistics_device
from mtlib.relations.replicates import ReplicateCounts, order_replicates, transitivity_replicates, weighted_sums
from mtlib.relations.errors import MtlibInputError
from mtlib.relations.scorers import Scorer, as_scorer, unique_outputs
from mtlib.relations.transformations import Concatenation, NotApplicable

# level 1: the result and its failing cases
from mtlib.relations.result import RelationResult

# level 2: the protocol
from mtlib.relations.base import Relation

# level 3: the families
from mtlib.relations.pairwise import PairwiseCompositionality, PairwiseSystematicity
from mtlib.relations.single import SingleInput
from mtlib.relations.transitivity import ThreeWayTransitivity

# isort: on

__all__ = [
    "EXPECTED_DIRECTIONS",
    "Concatenation",
    "MtlibInputError",
    "NotApplicable",
    "OrderCount",
    "PairwiseCompositionality",
    "PairwiseSystematicity",
    "Relation",
    "RelationResult",
    "ReplicateCounts",
    "Scorer",
    "SingleInput",
    "ThreeWayTransitivity",
    "TransitivityCount",
    "as_scorer",
    "bootstrap",
    "count_order_violations",
    "count_order_violations_naive",
    "count_transitivity_violations",
    "count_transitivity_violations_naive",
    "notation",
    "order_replicates",
    "sample_triples",
    "statistics_device",
    "transformations",
    "transitivity_replicates",
    "unique_outputs",
    "weighted_sums",
]
