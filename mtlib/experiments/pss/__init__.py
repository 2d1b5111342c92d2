"""Polarity Sensitivity Scoring (Bhathena, Willis, Dass, §3, Table 1, Appendices B-C).

Intuition: a sentiment classifier built on a sentence encoder should notice
when a few words flip a review's polarity while its content stays the same.
Given pairs ``(s, s')`` where ``s'`` is a polarity-flipped rewrite of ``s``,
PSS is the share of pairs on which the classifier gets **both** labels right::

    PSS = (1/N) sum_n 1[y_hat(s) = y(s) and z_hat(s') = z(s')]
    relative PSS = PSS / test accuracy      (the paper shows it x 100)

A classifier that ignores the flip (one label for both sides) scores 0; a
coin toss scores 0.25. Rewrites come from a style-transfer model, so pairs are
cleaned first (:func:`clean_pairs`, Appendix B): a rewrite identical to its
source is dropped, and so is one that adds no word absent from its source
(delete-only rewrites).

The package holds the pure logic and the small driver that trains one
classifier per setting through :func:`mtlib.models.classifier` and scores it;
the notebook ``05_polarity_sensitivity`` only orchestrates. Layout (lowest
level first): :mod:`~mtlib.experiments.pss.build` (cleaning, subsamples),
:mod:`~mtlib.experiments.pss.scoring` (the per-pair table, PSS, intervals,
McNemar), :mod:`~mtlib.experiments.pss.method` (settings, training, scoring
one classifier), :mod:`~mtlib.experiments.pss.tables` (Table 1 and its
tests), :mod:`~mtlib.experiments.pss.figures`, :mod:`~mtlib.experiments.pss.report`
(what the notebook records). Majority baselines are
:func:`mtlib.models.baseline.majority_baseline` of the test labels.

Units: rates in tables, metrics and function results are fractions in [0, 1];
the paper's Table 1 (percent) is stored as fractions too.
"""

from __future__ import annotations

# level 0
from mtlib.experiments.pss.build import (
    RULE_NAMES,
    RULES,
    TOKENIZERS,
    CleaningReport,
    clean,
    clean_pairs,
    cleaning_note,
    cleaning_report_with_paper,
    subsample,
    tokens,
)

# isort: split
# level 0
from mtlib.experiments.pss.scoring import (
    ABSTAIN,
    accuracy_interval,
    bootstrap_mean,
    gold_labels,
    mcnemar,
    prediction_table,
    pss,
    pss_interval,
    relative_pss,
)

# isort: split
# level 1
from mtlib.experiments.pss.method import (
    DNN_HIDDEN,
    FINAL_LAYERS,
    MODES,
    OOV_PARTS,
    Outcome,
    Setting,
    coverage,
    evaluate_setting,
    positive_column,
    predict_labels,
    run_settings,
    settings_grid,
)

# isort: split
# level 2
from mtlib.experiments.pss.tables import (
    by_direction,
    direction_tests,
    hardest_flips,
    paired_tests,
    paper_table1,
    table1,
    table1_layout,
)

# isort: split
# level 3
from mtlib.experiments.pss.figures import (
    pss_vs_accuracy,
    table1_bars,
)

# isort: split
# level 4
from mtlib.experiments.pss.report import (
    ModelReport,
    PSSReport,
    conclusions,
    polarity_sensitivity,
    report_from,
)

__all__ = [
    "TOKENIZERS",
    "RULES",
    "RULE_NAMES",
    "tokens",
    "clean_pairs",
    "cleaning_report_with_paper",
    "cleaning_note",
    "CleaningReport",
    "clean",
    "subsample",
    "ABSTAIN",
    "gold_labels",
    "prediction_table",
    "pss",
    "relative_pss",
    "bootstrap_mean",
    "pss_interval",
    "accuracy_interval",
    "mcnemar",
    "FINAL_LAYERS",
    "DNN_HIDDEN",
    "MODES",
    "Setting",
    "settings_grid",
    "Outcome",
    "positive_column",
    "predict_labels",
    "evaluate_setting",
    "coverage",
    "OOV_PARTS",
    "run_settings",
    "table1",
    "paper_table1",
    "table1_layout",
    "by_direction",
    "direction_tests",
    "paired_tests",
    "hardest_flips",
    "pss_vs_accuracy",
    "table1_bars",
    "ModelReport",
    "PSSReport",
    "polarity_sensitivity",
    "report_from",
    "conclusions",
]
