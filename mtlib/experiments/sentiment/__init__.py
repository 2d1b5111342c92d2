"""Pairwise systematicity of a sentiment classifier (Manino et al. §4.1).

Source inputs are reviews; each transformation T of the paper's Table 1
concatenates a short, neutral sentence at the start or the end. If the model
scores review x1 more positive than x2, it should also score T(x1) more
positive than T(x2); every pair of reviews is a test case.

The pieces, lowest first:

- :mod:`~mtlib.experiments.sentiment.data`: the reviews (heads' training part
  and the source set D) and the paper's transformations;
- :mod:`~mtlib.experiments.sentiment.scorer`: s_pos from any model (its own
  positive class, or a frozen encoder plus a head trained here);
- :mod:`~mtlib.experiments.sentiment.report`: the experiment,
  ``report = systematicity(model, sources, transformations)``, a
  :class:`SystematicityReport` (Tables 1-2, the misclassification tests,
  figures) that :meth:`mtlib.run.results.Run.record_report` records.
"""

# level 1: the reviews and the transformations; the score
from mtlib.experiments.sentiment.data import TABLE1, load_data, load_dev, split_reviews, table1_frame, transformations
from mtlib.experiments.sentiment.scorer import (
    FINETUNE_DEFAULTS,
    FINETUNE_SUFFIX,
    SentimentScorer,
    build_scorer,
    score_follow_ups,
    split_name,
)

# isort: split
# level 2: the experiment of notebook 01
from mtlib.experiments.sentiment.report import SystematicityReport, sample_pairs, systematicity

__all__ = [
    "TABLE1",
    "load_data",
    "load_dev",
    "split_reviews",
    "table1_frame",
    "transformations",
    "FINETUNE_DEFAULTS",
    "FINETUNE_SUFFIX",
    "split_name",
    "SentimentScorer",
    "build_scorer",
    "score_follow_ups",
    "SystematicityReport",
    "sample_pairs",
    "systematicity",
]
