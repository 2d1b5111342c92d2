"""Three-way transitivity of a lexical-relation model (Manino et al. 2022, §6.1).

Intuition: a model that reads lexical relations off word pairs predicts, for
every ordered pair ``(x_i, x_j)`` of a vocabulary, two Boolean outputs:
``v_syn`` (x_i and x_j are synonyms) and ``v_hyp`` (x_j is a hypernym of
x_i). Both relations are transitive in language, so an internally consistent
model obeys ``v(x_i, x_j) and v(x_j, x_k) => v(x_i, x_k)`` on every ordered
triple of distinct words. No gold label is needed: the model's own
predictions are tested against each other.

The pieces, lowest first:

- :mod:`~mtlib.experiments.lexical._data`: the pairs of every language, their
  split, the vocabulary under test and the paper's Table 5;
- :mod:`~mtlib.experiments.lexical._matrix`: a head's ``n x n`` prediction
  matrix in matrix form, never by ``n^2`` head calls;
- :mod:`~mtlib.experiments.lexical._scores`: precision, recall, F1 and
  balanced accuracy per relation, the shared task's summary F1, and the
  claim that uses them;
- :mod:`~mtlib.experiments.lexical._pair_models`: the quick model
  (:class:`FrozenPairHeads`) and the paper's (:class:`FineTunedPairClassifier`),
  with one interface and their supervised scores (:func:`evaluate_heads`);
- :mod:`~mtlib.experiments.lexical._check`: the exact count and the paper's
  sampled procedure on one vocabulary;
- :mod:`~mtlib.experiments.lexical._report`: the experiment of one model,
  ``report = transitivity(model, load_data(languages), ...)``;
- :mod:`~mtlib.experiments.lexical.spec` and :mod:`~mtlib.experiments.lexical._experiment`: notebook 03's
  parameters and ``run(spec)`` (the notebook: ``load(spec)`` then ``analyse(spec, data)``).
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "_data": ["LexicalData", "RELATIONS", "relation_labels", "split_pairs", "table5_frame", "vocabulary"],
        "_matrix": ["pair_probability_matrix", "prediction_matrix"],
        "_scores": ["f1_summary", "relation_scores"],
        "_pair_models": [
            "COGALEX_CLASSES",
            "PAIR_CLASSES",
            "evaluate_heads",
            "finetune_pair_classifier",
            "predict_pairs",
            "prediction_matrices",
            "relation_probabilities",
            "train_frozen_heads",
        ],
        "_check": ["TransitivityReport", "check_transitivity", "sampled_transitivity"],
        "_report": ["LexicalTransitivityReport"],
        "_experiment": ["analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
