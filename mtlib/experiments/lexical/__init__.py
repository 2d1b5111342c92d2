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
- :mod:`~mtlib.experiments.lexical.report`: the experiment of notebook 03,
  ``report = transitivity(model, load_data(languages))``.
"""

# level 0: other wings (re-exported for the tests and benchmarks)
from mtlib.models import pair_features
from mtlib.relations.counting import sample_triples

# isort: split
# level 1: the pairs; a head's prediction matrix
from mtlib.experiments.lexical.data import (
    RELATIONS,
    TABLE5,
    TEST_SPLITS,
    TRAIN_SPLITS,
    LexicalData,
    load_data,
    relation_labels,
    split_pairs,
    table5_frame,
    vocabulary,
)
from mtlib.experiments.lexical.matrix import pair_probability_matrix, prediction_matrix
from mtlib.experiments.lexical.scores import f1_summary, learnt_contrast, learnt_p, relation_scores

# isort: split
# level 2: the two models
from mtlib.experiments.lexical.pair_models import (
    COGALEX_CLASSES,
    PAIR_CLASSES,
    FineTunedPairClassifier,
    FrozenPairHeads,
    PairModel,
    evaluate_heads,
    finetune_pair_classifier,
    pair_classes,
    pair_model,
    predict_pairs,
    prediction_matrices,
    relation_probabilities,
    train_frozen_heads,
)

# isort: split
# level 3: transitivity on one vocabulary
from mtlib.experiments.lexical.check import (
    TransitivityReport,
    check_transitivity,
    most_violating_words,
    sampled_transitivity,
)

# isort: split
# level 4: the experiment of notebook 03
from mtlib.experiments.lexical.report import FINETUNE_SUFFIX, LexicalTransitivityReport, split_name, transitivity

__all__ = [
    "pair_features",
    "sample_triples",
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
    "pair_probability_matrix",
    "prediction_matrix",
    "f1_summary",
    "learnt_contrast",
    "learnt_p",
    "relation_scores",
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
    "TransitivityReport",
    "check_transitivity",
    "most_violating_words",
    "sampled_transitivity",
    "FINETUNE_SUFFIX",
    "split_name",
    "LexicalTransitivityReport",
    "transitivity",
]
