"""Three-way transitivity of a lexical-relation model (Manino et al. 2022, §6.1).

Intuition: a model that reads lexical relations off word pairs predicts, for
every ordered pair ``(x_i, x_j)`` of a vocabulary, two Boolean outputs:
``v_syn`` (x_i and x_j are synonyms) and ``v_hyp`` (x_j is a hypernym of
x_i). Both relations are transitive in language, so an internally consistent
model obeys ``v(x_i, x_j) and v(x_j, x_k) => v(x_i, x_k)`` on every ordered
triple of distinct words. No gold label is needed: the model's own
predictions are tested against each other.

The pieces, lowest first:

- :mod:`~mtlib.experiments.lexical.data`: the pairs of every language, their
  split, the vocabulary under test and the paper's Table 5;
- :mod:`~mtlib.experiments.lexical.matrix`: a head's ``n x n`` prediction
  matrix in matrix form, never by ``n^2`` head calls;
- :mod:`~mtlib.experiments.lexical.scores`: precision, recall, F1 and
  balanced accuracy per relation, the shared task's summary F1, and the
  claim that uses them;
- :mod:`~mtlib.experiments.lexical.pair_models`: the quick model
  (:class:`FrozenPairHeads`) and the paper's (:class:`FineTunedPairClassifier`),
  with one interface and their supervised scores (:func:`evaluate_heads`);
- :mod:`~mtlib.experiments.lexical.check`: the exact count and the paper's
  sampled procedure on one vocabulary;
- :mod:`~mtlib.experiments.lexical.report`: the experiment of one model,
  ``report = transitivity(model, load_data(languages), ...)``;
- :mod:`~mtlib.experiments.lexical.spec` and :mod:`~mtlib.experiments.lexical.experiment`: notebook 03's
  parameters and ``run(spec)`` (the notebook: ``load(spec)`` then ``analyse(spec, data)``).
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "data": [
            "RELATIONS",
            "TABLE5",
            "TEST_SPLITS",
            "TRAIN_SPLITS",
            "LexicalData",
            "load_data",
            "relation_labels",
            "split_pairs",
            "table5_frame",
            "vocabulary",
        ],
        "matrix": ["pair_probability_matrix", "prediction_matrix"],
        "scores": ["f1_summary", "learnt_contrast", "learnt_p", "relation_scores"],
        "pair_models": [
            "COGALEX_CLASSES",
            "PAIR_CLASSES",
            "FineTunedPairClassifier",
            "FrozenPairHeads",
            "PairModel",
            "evaluate_heads",
            "finetune_pair_classifier",
            "pair_classes",
            "pair_model",
            "predict_pairs",
            "prediction_matrices",
            "relation_probabilities",
            "train_frozen_heads",
        ],
        "check": ["TransitivityReport", "check_transitivity", "most_violating_words", "sampled_transitivity"],
        "report": ["FINETUNE_SUFFIX", "LexicalTransitivityReport", "split_name", "transitivity"],
        "experiment": ["analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
