"""Transformations T that make follow-up inputs: named, seeded, deterministic.

A metamorphic relation needs a transformation T from a source input x to a
follow-up x' = T(x). Each transformation here is a callable ``str -> str``
with a short ``name`` (for metric keys and tables), a one-line
``description`` (for tables and diagrams) and the relation it is expected to
keep: ``expected="same"`` (the score order or class is kept, e.g. a typo)
or ``"opposite"`` (it is reversed, e.g. negation).

A transformation that does not apply to an input (no auxiliary to negate, no
name to swap) raises :class:`NotApplicable`; the relation then skips the input
and counts it (``RelationResult.extra["skipped"]``), so an input is never
passed through unchanged without anyone knowing. Randomised transformations
(typos, swaps) draw from a generator seeded by ``(seed, text)``, so a text
gets the same follow-up whatever batch it comes in. ``t1 >> t2`` applies t1,
then t2.

One module per family: :mod:`~.base` (the protocol, composition, functions),
:mod:`~.concatenation` (Manino et al. Table 1), :mod:`~.surface` (typos,
punctuation, case), :mod:`~.lexical` (contractions, names, numbers, synonyms)
and :mod:`~.negation`. A new transformation is one dataclass in the module of
its family (or a new module) and one line here.

Example::

    from mtlib.relations import transformations as T
    ts = [*T.manino_table1(), T.Typos("swap", seed=0), T.Negation()]
    ts[-1]("The film was good.")   # 'The film was not good.'
"""

from __future__ import annotations

# isort: off
from mtlib.relations.transformations.base import (
    Composed,
    FunctionTransformation,
    NotApplicable,
    Transformation,
    apply,
    as_transformation,
)
from mtlib.relations.transformations.concatenation import POSITIONS, Concatenation, manino_table1
from mtlib.relations.transformations.surface import Casing, Punctuation, Typos
from mtlib.relations.transformations.lexical import CONTRACTIONS, NAMES, Contractions, NameSwap, NumberSwap, Synonyms
from mtlib.relations.transformations.negation import Negation

# isort: on

__all__ = [
    "NotApplicable",
    "Transformation",
    "Composed",
    "Concatenation",
    "Typos",
    "Contractions",
    "NameSwap",
    "NumberSwap",
    "Negation",
    "Punctuation",
    "Casing",
    "Synonyms",
    "FunctionTransformation",
    "as_transformation",
    "apply",
    "manino_table1",
    "robustness_suite",
    "POSITIONS",
    "CONTRACTIONS",
    "NAMES",
]


def robustness_suite(seed: int = 0) -> list[Transformation]:
    """Six label-preserving perturbations for invariance gates: typos, contractions, punctuation, casing."""
    return [
        Typos("swap", seed=seed),
        Typos("delete", seed=seed),
        Contractions("contract"),
        Contractions("expand"),
        Punctuation("strip"),
        Casing("lower"),
    ]
