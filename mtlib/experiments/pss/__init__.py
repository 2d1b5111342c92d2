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
``run(Spec(...))`` runs notebook ``05_polarity_sensitivity`` whole, and the
notebook calls ``load(spec)`` then ``analyse(spec, data)``. Layout (lowest
level first): :mod:`~mtlib.experiments.pss.spec` (the parameters),
:mod:`~mtlib.experiments.pss._build` (cleaning, subsamples),
:mod:`~mtlib.experiments.pss._scoring` (the per-pair table, PSS, intervals,
McNemar), :mod:`~mtlib.experiments.pss._training` (settings, training, scoring
one classifier), :mod:`~mtlib.experiments.pss._tables` (Table 1 and its
tests), :mod:`~mtlib.experiments.pss._figures`, :mod:`~mtlib.experiments.pss._report`
(what the notebook records), :mod:`~mtlib.experiments.pss._experiment` (load, analyse,
run). Majority baselines are :func:`mtlib.models.training.baseline.majority_baseline` of
the test labels.

Units: rates in tables, metrics and function results are fractions in [0, 1];
the paper's Table 1 (percent) is stored as fractions too.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "spec": ["Spec"],
        "_build": [
            "RULE_NAMES",
            "RULES",
            "CleaningReport",
            "clean",
            "clean_pairs",
            "cleaning_note",
            "cleaning_report_with_paper",
            "subsample",
        ],
        "_scoring": ["gold_labels", "mcnemar", "prediction_table", "pss", "pss_interval", "relative_pss"],
        "_training": [
            "DNN_HIDDEN",
            "Outcome",
            "Setting",
            "evaluate_setting",
            "positive_column",
            "predict_labels",
            "run_settings",
            "settings_grid",
        ],
        "_tables": ["by_direction", "hardest_flips", "paired_tests", "paper_table1", "table1", "table1_layout"],
        "_figures": ["pss_vs_accuracy"],
        "_report": ["ModelReport", "PSSReport", "polarity_sensitivity", "report_from"],
        "_experiment": ["PSSData", "analyse", "load", "run"],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
