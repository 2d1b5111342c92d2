"""Pairwise compositionality of an NLI model with a hypernymy probe (Manino et al. §5.1).

An NLI input is the pair (C(ℓa), C(ℓb)): one context C with a placeholder,
filled with two insertions whose lexical relation is known (ℓa ⊆ ℓb, ℓa ⊇ ℓb,
or unrelated). If the model reasons compositionally, a linear probe that
reads "ℓa is a hypernym of ℓb" off the hidden states of the insertions
(s_hyp) should predict the output's entailment score (s_ent): in a downward
context more hypernymy means more entailment (same order), in an upward
context less (reversed order). Every pair of inputs inside one context is a
test case.

The pieces, lowest first:

- :mod:`~mtlib.experiments.nli.data`: contexts, insertions, their
  compositions and the split into training and test contexts;
- :mod:`~mtlib.experiments.nli.external`: SICK and MED as extra training
  pairs (and SICK TEST for a second accuracy);
- :mod:`~mtlib.experiments.nli.scores`: s_hyp and s_ent from ONE forward pass
  per input;
- :mod:`~mtlib.experiments.nli.report`: the experiment,
  ``report = compositionality(model, load_data(...))``, a
  :class:`CompositionalityReport` (Tables 3-4, up against down, the rate
  against chance) that :meth:`mtlib.run.results.Run.record_report` records.
"""

# level 1: the inputs; the two scores
from mtlib.experiments.nli.data import NLIData, load_data, split_contexts
from mtlib.experiments.nli.external import ExternalNLI, load_external, med_pairs, sick_pairs
from mtlib.experiments.nli.scores import (
    FINETUNE_DEFAULTS,
    FINETUNE_SUFFIX,
    EntailmentScorer,
    accuracy_by,
    entailment_scores,
    forward,
    hidden_vectors,
    insertion_spans,
    split_name,
    train_probe,
)

# isort: split
# level 2: the experiment of notebook 02
from mtlib.experiments.nli.report import (
    CompositionalityReport,
    compositionality,
    rates_by_monotonicity,
    relation_symbol,
)

__all__ = [
    "NLIData",
    "load_data",
    "split_contexts",
    "ExternalNLI",
    "load_external",
    "med_pairs",
    "sick_pairs",
    "FINETUNE_DEFAULTS",
    "FINETUNE_SUFFIX",
    "split_name",
    "EntailmentScorer",
    "accuracy_by",
    "entailment_scores",
    "forward",
    "hidden_vectors",
    "insertion_spans",
    "train_probe",
    "CompositionalityReport",
    "compositionality",
    "rates_by_monotonicity",
    "relation_symbol",
]
