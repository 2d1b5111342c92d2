"""Every value the four papers publish that a notebook or a test compares with.

One table per paper table, each with its source (paper and section), so a
notebook shows ``ours`` beside ``paper`` and ``notebooks/profiles/expected.yaml``
pins what must be reproduced. Sections, in notebook order:

- Manino et al. 2022 (notebooks 01-03)
- Carvalho et al. 2023 (notebook 04)
- Bhathena et al. (notebook 05), Andreas 2019 / TRE (notebook 06), Fu & Frank 2023 (notebook 07)

Values are typed in from the papers (facts from the papers), never computed here.
"""

from __future__ import annotations


# ---------------------------------------------------------------------------
# Bhathena, Willis, Dass, "Evaluating Compositionality of Sentence Representation
# Models" (notebooks 05 and 06), and Fu & Frank 2023, "SETI: Systematicity
# Evaluation of Textual Inference" (notebook 07)
# ---------------------------------------------------------------------------

#: Bhathena et al., §3.1, Table 1: where notebook 05's paper values come from.
BHATHENA_TABLE1_SOURCE = ("Bhathena, Willis, Dass, 'Evaluating Compositionality of Sentence Representation Models', "
                          "§3.1, Table 1")

#: Bhathena et al., §3.1 and Appendix B: Yelp reference pairs before and after the cleaning rules.
BHATHENA_PAIRS = {"before": 500, "after": 353, "source": "Bhathena et al., §3.1 and Appendix B"}

#: Bhathena et al., §3.1, Table 1, as printed (percent): encoder, final layers, finetune mode,
#: test accuracy, PSS, relative PSS.
BHATHENA_TABLE1: tuple[tuple[str, str, str, float, float, float], ...] = (
    ("BERT", "Linear", "FB", 79.2, 59.5, 75.1),
    ("BERT", "Linear", "FT", 81.3, 73.7, 90.7),
    ("ELMo", "Linear", "FB", 75.3, 57.2, 76.0),
    ("ELMo", "Linear", "FT", 75.8, 67.9, 89.6),
    ("ELMo", "DNN", "FB", 77.0, 57.5, 74.7),
    ("ELMo", "DNN", "FT", 77.2, 70.0, 90.7),
    ("USE DAN", "DNN", "FB", 75.3, 62.3, 82.8),
    ("USE DAN", "DNN", "FT", 79.6, 69.4, 87.2),
    ("USE DAN", "Linear", "FB", 69.3, 49.9, 71.9),
    ("USE DAN", "Linear", "FT", 78.1, 69.1, 88.5),
    ("USE Transformer", "Linear", "FB", 76.5, 65.7, 85.9),
    ("USE Transformer", "Linear", "FT", 82.3, 73.7, 89.5),
    ("USE Transformer", "DNN", "FB", 78.7, 65.7, 83.5),
    ("USE Transformer", "DNN", "FT", 80.2, 69.4, 86.5),
)

#: Bhathena et al., §4.3, Tables 2 and 4, Figure 3: where notebook 06's paper values come from.
BHATHENA_TABLE2_SOURCE = "Bhathena et al. §4.3 Table 2 (Spearman TRE vs WNS on SST), Table 4 and Figure 3 (TI, WNS)"

#: Bhathena et al., §4.3, Table 2: Spearman's rho(TRE, WNS) per encoder on SST dev.
BHATHENA_TABLE2: dict[str, float] = {"BERT": -0.1997, "ELMo": -0.344, "USE DAN": -0.485, "USE Transformer": -0.168}

#: Bhathena et al., Table 4 rows and the Figure 3 caption's sentence: (sentence as printed, TI, WNS, source).
BHATHENA_TABLE4: tuple[tuple[str, float, float, str], ...] = (
    ("If Steven Soderbergh 's ' Solaris ' is a failure it is a glorious failure", 2.51, 1.65, "Table 4"),
    ("A sober and affecting chronicle of the leveling effect of loss .", 0.0, 0.23, "Table 4"),
    ("Cool ?", 0.33, 2.5, "Table 4"),
    ("Nothing is black and white .", 0.0, 0.0, "Table 4"),
    ("A coda in every sense, The Pinochet Case splits time between a minute-by-minute account of the "
     "British court's extradition chess game and the regime's talking-head survivors.", 1.95, 0.37, "Figure 3"),
)

#: Fu & Frank 2023, §4.1, Table 5: columns of :data:`FU_FRANK_TABLE5`.
FU_FRANK_TABLE5_COLUMNS = ("task", "setting", "type", "cg_train", "cg_dev", "cg_test", "id_train", "id_dev",
                           "id_test")

#: Fu & Frank 2023, §4.1, Table 5: items per task, setting, inference type and split in the Compositional
#: Generalization (cg) and In-Distribution (id) configurations (test counted once per setting: None below).
FU_FRANK_TABLE5: tuple[tuple, ...] = (
    (1, "trivial", "PI_ver", 1680, 420, 63240, 3366, 842, 63240),
    (1, "trivial", "PI_nat", 1686, 422, None, None, None, None),
    (1, "non-trivial", "PI_ver", 600, 150, 22620, 1203, 301, 22620),
    (1, "non-trivial", "PI_nat", 603, 151, None, None, None, None),
    (2, "trivial", "CI", 25296, 6324, 31620, 25296, 6324, 31620),
    (2, "non-trivial", "CI", 25296, 6324, 31620, 25296, 6324, 31620),
    (3, "trivial", "PI_nat", 480, 120, 9000, 960, 240, 9000),
    (3, "trivial", "CI", 480, 120, None, None, None, None),
    (3, "non-trivial-R_ver", "PI_ver", 9048, 2262, 11310, 18096, 4524, 11310),
    (3, "non-trivial-R_ver", "CI", 9048, 2262, None, None, None, None),
    (3, "non-trivial-R_nat", "PI_nat", 600, 150, 11310, 1203, 301, 11310),
    (3, "non-trivial-R_nat", "CI", 603, 151, None, None, None, None),
)
