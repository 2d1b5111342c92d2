"""Montague adjective tests on embedding models (Carvalho et al., Eq. 3-8), notebook 04.

Intuition: read an embedding as a proxy for a denotation (a set). For an
intersective adjective, "red car" is the intersection of red things and cars,
so the phrase should lie closer to each of its words than the words lie to
each other (intersectivity, Eq. 3); phrases sharing an intersective adjective
("Canadian writer", "Canadian surgeon") should be closer than phrases sharing a
non-intersective one (Eq. 5); and a non-subsective adjective ("fake",
"former") should pull the phrase towards itself and away from the noun (Eq. 7).

The method is the notebook's cells: every text embedded once
(:class:`EmbeddingTable`), the two distances of every case, the
relation ``near <= far`` counted exactly with a bootstrap over adjectives
(:class:`mtlib.relations.DistanceOrder`), the type-difference tests
(:func:`mtlib.analysis.type_difference.type_difference_test`). This package
keeps what the notebook declares and reads: ``spec`` (the parameters),
``_phrases`` (the phrase language ``(adj)+ noun``, its splits and the types in
the paper's order), ``_embeddings`` (those texts embedded once per model) and
``_paper`` (the published values and the comparison with them).
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_phrases": [
            "PhraseSet",
            "build_phrases",
            "join_terms",
            "split_positions",
            "splits",
            "type_order",
            "type_pair_matrix",
            "types_in_paper_order",
        ],
        "_embeddings": ["EmbeddingTable"],
        "_paper": ["PAPER_COUNTERPARTS", "compare_with_paper", "paper_values", "truncate"],
    },
    moved={"typed_columns": "mtlib.experiments.montague:types_in_paper_order"},
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
