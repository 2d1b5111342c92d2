"""Three-way transitivity of a lexical-relation model (Manino et al. 2022, §6.1): notebook 03's data and spec.

Intuition: a model that reads lexical relations off word pairs predicts, for
every ordered pair ``(x_i, x_j)`` of a vocabulary, two Boolean outputs:
``v_syn`` (x_i and x_j are synonyms) and ``v_hyp`` (x_j is a hypernym of
x_i). Both relations are transitive in language, so an internally consistent
model obeys ``v(x_i, x_j) and v(x_j, x_k) => v(x_i, x_k)`` on every ordered
triple of distinct words. No gold label is needed: the model's own
predictions are tested against each other.

The method is notebook 03's cells: heads and fine-tunes come from
:func:`mtlib.models.classifier`, a frozen head's ``n x n`` predictions from
:func:`mtlib.models.pair_probability_matrix`, the exact count, its bootstrap and the
paper's sampled procedure from :class:`mtlib.relations.ThreeWayTransitivity`,
and the supervised scores from :mod:`mtlib.analysis.class_scores`. This package
keeps what the notebook reads:

- :mod:`~mtlib.experiments.lexical.spec`: the notebook's parameters;
- :mod:`~mtlib.experiments.lexical._data`: every language's pairs, their split,
  the vocabulary under test, the labels a head or a fine-tune trains on, and
  the paper's Table 5 (:func:`load` reads them for a spec).
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "spec": ALL,
        "_data": [
            "COGALEX_CLASSES",
            "LexicalData",
            "PAIR_CLASSES",
            "PROMPT_TEMPLATES",
            "RELATIONS",
            "load",
            "load_data",
            "pair_classes",
            "relation_labels",
            "split_pairs",
            "table5_frame",
            "vocabulary",
        ],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
