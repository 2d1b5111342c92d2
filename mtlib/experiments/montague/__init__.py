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

Entry points: ``run(Spec(...))``, notebook 04 whole (the notebook: ``load(spec)`` then
``analyse(spec, phrases)``); :func:`run_tests` (one model, every test) -> :class:`MontagueReport`
(``metrics()``, ``tables()``, ``headline``).

Modules, lowest level first: :mod:`.phrases` (the phrase language),
:mod:`.embeddings` (the table of unit vectors), :mod:`.relation` (``near <= far``
and its consistency score), :mod:`.type_tests` and :mod:`.paper` (type
differences, published values), :mod:`.method` (the three tests),
:mod:`.report` (one model, several models), :mod:`.spec` and :mod:`.experiment` (notebook 04).
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "_embeddings": ["EmbeddingTable"],
        "_phrases": ["build_phrases", "splits"],
        "_relation": ["DistanceOrder", "INTERSECTIVITY", "PAIR_INTERSECTIVITY", "consistency"],
        "_method": ["intersective_pairs", "intersectivity", "nonsubsectivity"],
        "_type_tests": ["type_difference_test"],
        "_paper": ["compare_with_paper", "paper_values", "truncate"],
        "_report": [
            "MontagueReport",
            "TESTS",
            "across_models",
            "fidelity_table",
            "long_form",
            "run_tests",
            "type_tests_table",
        ],
        "_experiment": ["analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
