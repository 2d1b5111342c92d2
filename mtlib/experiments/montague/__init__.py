"""Montague adjective tests on embedding models (Carvalho et al., Eq. 3-8).

Intuition: read an embedding as a proxy for a denotation (a set). For an
intersective adjective, "red car" is the intersection of red things and cars,
so the phrase should lie closer to each of its words than the words lie to
each other (intersectivity, Eq. 3); phrases sharing an intersective adjective
("Canadian writer", "Canadian surgeon") should be closer than phrases sharing a
non-intersective one (Eq. 5); and a non-subsective adjective ("fake",
"former") should pull the phrase towards itself and away from the noun (Eq. 7).
Each test is an order relation between two cosine distances per case
(:class:`DistanceOrder`, a :class:`mtlib.relations.Relation`): ``near <= far``.
Its *consistency score* E is the share of cases where it holds (1 - the
violation rate), over phrases of the regular language ``(adj)+ noun``, grouped
by adjective type, with per-adjective counts and a bootstrap interval over
adjectives like every other relation of the project.

Everything is computed in matrix form: every unique text (words, AN and AAN
phrases, adjective pairs) is embedded once, rows are L2-normalised, and each
test gathers rows by integer index and compares whole arrays; no Python loop
runs over the 44k phrases x 9 comparisons.

The single-phrase test for phrases of more than two terms follows the
published numbers: each ``d(p, t_i)`` is compared with the distance between
every split of the phrase into a sub-phrase and its complement (each embedded
as text), a split counting only when its distance is below 1. With this
reading the MiniLM rows of the paper's Tables 2 and 6 reproduce exactly.

Entry point: :func:`run_tests` (one model, every test) -> :class:`MontagueReport`
(``metrics()``, ``tables()``, ``headline``), recorded with ``Run.record_report``.

Modules, lowest level first: :mod:`.phrases` (the phrase language),
:mod:`.embeddings` (the table of unit vectors), :mod:`.relation` (``near <= far``
and its consistency score), :mod:`.type_tests` and :mod:`.paper` (type
differences, published values), :mod:`.method` (the three tests),
:mod:`.report` (one model, several models).
"""

from __future__ import annotations

# level 0: no sibling imported
from mtlib.experiments.montague.embeddings import DISTANCE_CHUNK, EmbeddingTable
from mtlib.experiments.montague.paper import PAPER_COUNTERPARTS, compare_with_paper, paper_values, truncate
from mtlib.experiments.montague.phrases import PhraseSet, build_phrases, phrase, split_positions, splits
from mtlib.experiments.montague.relation import (
    INTERSECTIVITY,
    NONSUBSECTIVITY,
    PAIR_INTERSECTIVITY,
    DistanceOrder,
    consistency,
)
from mtlib.experiments.montague.type_tests import type_difference_test

# isort: split
# level 1: the three tests
from mtlib.experiments.montague.method import (
    MAX_SPLIT_DISTANCE,
    intersective_pairs,
    intersectivity,
    nonsubsectivity,
    type_pair_matrix,
)

# isort: split
# level 2: reports
from mtlib.experiments.montague.report import (
    TESTS,
    MontagueReport,
    TestSpec,
    across_models,
    fidelity_table,
    long_form,
    run_tests,
    type_tests_table,
)

__all__ = [
    # level 0
    "DISTANCE_CHUNK",
    "EmbeddingTable",
    "PAPER_COUNTERPARTS",
    "compare_with_paper",
    "paper_values",
    "truncate",
    "PhraseSet",
    "build_phrases",
    "phrase",
    "split_positions",
    "splits",
    "INTERSECTIVITY",
    "NONSUBSECTIVITY",
    "PAIR_INTERSECTIVITY",
    "DistanceOrder",
    "consistency",
    "type_difference_test",
    # level 1
    "MAX_SPLIT_DISTANCE",
    "intersective_pairs",
    "intersectivity",
    "nonsubsectivity",
    "type_pair_matrix",
    # level 2
    "TESTS",
    "MontagueReport",
    "TestSpec",
    "across_models",
    "fidelity_table",
    "long_form",
    "run_tests",
    "type_tests_table",
]
