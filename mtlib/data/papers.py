"""Every value the four papers publish that a notebook or a test compares with.

One table per paper table, each with its source (paper and section), so a
notebook shows ``ours`` beside ``paper`` and ``notebooks/profiles/expected.yaml``
pins what must be reproduced. Sections, in notebook order:

- Manino et al. 2022 (notebooks 01-03)
- Carvalho et al. 2023 (notebook 04)
- Bhathena et al. (notebook 05), Andreas 2019 / TRE (notebook 06); Fu & Frank 2023's Table 5 is with notebook
  07's facts (:mod:`mtlib.experiments.seti`)

Values are typed in from the papers (facts from the papers), never computed here.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# Manino et al. 2022, "Systematicity, Compositionality and Transitivity of Deep
# NLP Models: a Metamorphic Testing Perspective" (notebooks 01-03)
# ---------------------------------------------------------------------------

#: Manino et al. 2022, §4.1, Table 1: transformation id, concatenated text, position, violation rate
#: (RoBERTa-large sentiment, every pair of 10,605 SST reviews), sorted by decreasing rate as printed.
MANINO_TABLE1: tuple[tuple[str, str, str, float], ...] = (
    ("T1", "My friends were happy, though.", "end", 0.100),
    ("T2", "Anyway, the sound of the rain outside was soothing.", "end", 0.090),
    ("T3", "As always: popcorn and coke make everything better!", "end", 0.078),
    ("T4", "Thank you.", "start", 0.068),
    ("T5", "I watched this movie with my brother.", "start", 0.057),
    ("T6", "Here is my review:", "start", 0.045),
)

#: Manino et al. 2022, §4.1 (text beside Table 1): the size of the source set D.
MANINO_S41 = {"n_sources": 10_605}

#: Manino et al. 2022, §5.1 (text beside Tables 3-4): roberta-large-mnli, layer 23 probe.
#: Violation rates of pairwise compositionality by context monotonicity and overall, the hypernymy
#: probe's accuracy, and the data sizes (292 insertion pairs, 211 contexts, about 9M cases).
MANINO_S51 = {
    "violation_rate/up": 0.312,
    "violation_rate/down": 0.519,
    "violation_rate/overall": 0.406,
    "probe_accuracy": 0.9881,
    "n_insertion_pairs": 292,
    "n_contexts": 211,
}

#: Manino et al. 2022, §6.1, Table 5: proportion of violated three-way transitivity tests
#: (fine-tuned XLM-R large, CogALex-VI test words): language -> (syn, hyp).
MANINO_TABLE5: dict[str, tuple[float, float]] = {
    "english": (0.809, 0.723),
    "german": (0.760, 0.713),
    "chinese": (0.610, 0.606),
    "italian": (0.659, 0.741),
}
#: Wachowiak et al. 2020 (Transrelation, fine-tuned XLM-R base), the winning system of the CogALex-VI shared task,
#: English gold test: F1 per relation and the shared task's weighted F1 over SYN, ANT and HYP (as issue 35 of
#: this project gives them; notebook 03 sets its own fine-tuned model's scores beside them).
COGALEX_VI_WINNER: dict[str, dict[str, float]] = {
    "english": {"SYN": 0.477, "ANT": 0.613, "HYP": 0.528, "weighted": 0.543},
}

# ---------------------------------------------------------------------------
# Carvalho et al., "Montague semantics and modifier consistency measurement in
# neural language models" (notebook 04)
# ---------------------------------------------------------------------------

#: Carvalho et al., Appendix A / Table 5: the adjective types, in the order of the tables' columns.
CARVALHO_TYPES = ("S-I", "S-NI", "NS-Pl", "NS-Pr", "A")

#: Carvalho et al., Appendix B, Table 6 column order: ``(first adjective type, second adjective type)``,
#: the second type varying slowest, as printed.
CARVALHO_TABLE6_COLUMNS = tuple((a, b) for b in CARVALHO_TYPES for a in CARVALHO_TYPES)

#: Carvalho et al., Appendix B, Table 7 column order: ``(a1 type, a2 type)`` with a2 not before a1.
CARVALHO_TABLE7_COLUMNS = tuple((a, b) for i, a in enumerate(CARVALHO_TYPES) for b in CARVALHO_TYPES[i:])

#: Carvalho et al., §4.2.1, Table 1: consistency of single-phrase intersectivity (Eq. 3-4) on AN phrases,
#: per adjective type (columns :data:`CARVALHO_TYPES`); printed with at most 2 decimals. Rows by registry name.
CARVALHO_TABLE1: dict[str, tuple[float, ...]] = {
    "sbert": (0.95, 0.97, 0.99, 1.0, 0.97),
    "distilroberta": (1.0,) * 5,
    "t5": (1.0,) * 5,
    "dpr": (1.0, 1.0, 0.98, 1.0, 1.0),
    "labse": (1.0,) * 5,
    "minilm": (1.0,) * 5,
    "glove": (1.0,) * 5,
    "word2vec": (1.0,) * 5,
}

#: Carvalho et al., Appendix B, Table 6 (Table 2 is its (X, S-I) columns): consistency of single-phrase
#: intersectivity on AAN phrases per ordered type pair (columns :data:`CARVALHO_TABLE6_COLUMNS`);
#: 4 decimals, truncated. Rows by registry name.
CARVALHO_TABLE6: dict[str, tuple[float, ...]] = {
    "sbert": (
        0.7939,
        0.7348,
        0.7741,
        0.8495,
        0.7651,
        0.7525,
        0.5694,
        0.7494,
        0.8253,
        0.7175,
        0.7875,
        0.7247,
        0.6635,
        0.7605,
        0.7860,
        0.8463,
        0.8244,
        0.7497,
        0.8021,
        0.8015,
        0.7752,
        0.6898,
        0.7880,
        0.8412,
        0.8194,
    ),
    "distilroberta": (
        0.9810,
        0.9633,
        0.9576,
        0.9751,
        0.9823,
        0.9507,
        0.9305,
        0.8868,
        0.8918,
        0.9537,
        0.9430,
        0.9002,
        0.8520,
        0.8992,
        0.9372,
        0.9816,
        0.9573,
        0.9309,
        0.9523,
        0.9841,
        0.9949,
        0.9953,
        0.9845,
        0.9920,
        1.0,
    ),
    "t5": (
        0.9962,
        0.9898,
        0.9935,
        0.9978,
        1.0,
        0.9734,
        0.9694,
        0.9454,
        0.9375,
        0.9722,
        0.9946,
        0.9742,
        0.9392,
        0.9600,
        0.9825,
        0.9972,
        0.9751,
        0.9594,
        0.9317,
        0.9861,
        0.9949,
        0.9953,
        0.9835,
        0.9900,
        1.0,
    ),
    "dpr": (
        0.8249,
        0.8169,
        0.7730,
        0.8441,
        0.8358,
        0.8257,
        0.8000,
        0.7232,
        0.8055,
        0.9074,
        0.7567,
        0.7011,
        0.6255,
        0.7352,
        0.8034,
        0.8814,
        0.8660,
        0.7768,
        0.8942,
        0.8769,
        0.8560,
        0.8935,
        0.7993,
        0.8234,
        0.875,
    ),
    "labse": (
        0.9204,
        0.9343,
        0.9534,
        0.9139,
        0.9671,
        0.9431,
        0.9555,
        0.9295,
        0.9394,
        0.9814,
        0.9584,
        0.9274,
        0.8360,
        0.8858,
        0.9588,
        0.8874,
        0.9176,
        0.8536,
        0.6483,
        0.9166,
        0.9848,
        0.9861,
        0.9701,
        0.9523,
        1.0,
    ),
    "minilm": (
        0.9803,
        0.9444,
        0.9764,
        0.9924,
        0.9722,
        0.9217,
        0.8805,
        0.9022,
        0.9037,
        0.9398,
        0.9725,
        0.9130,
        0.9102,
        0.9433,
        0.9393,
        0.9880,
        0.9196,
        0.9488,
        0.9565,
        0.9464,
        0.9747,
        0.9675,
        0.9619,
        0.9742,
        0.8888,
    ),
    "glove": (
        1.0,
        1.0,
        1.0,
        0.9393,
        1.0,
        1.0,
        1.0,
        1.0,
        0.9414,
        1.0,
        1.0,
        1.0,
        0.9992,
        0.9442,
        1.0,
        0.9393,
        0.9414,
        0.9442,
        0.8873,
        0.9345,
        1.0,
        1.0,
        1.0,
        0.9345,
        1.0,
    ),
    "word2vec": (
        0.9969,
        1.0,
        0.9691,
        0.9404,
        1.0,
        1.0,
        1.0,
        0.9686,
        0.9394,
        1.0,
        0.9691,
        0.9404,
        0.9394,
        0.9122,
        0.9691,
        0.9404,
        0.9394,
        0.9122,
        0.8736,
        0.9404,
        1.0,
        1.0,
        0.9691,
        0.9404,
        1.0,
    ),
}

#: Carvalho et al., Appendix B, Table 7 (Table 3 summarises it): consistency of phrase-pair intersectivity
#: (Eq. 5-6) per type pair (columns :data:`CARVALHO_TABLE7_COLUMNS`); 4 decimals, truncated.
CARVALHO_TABLE7: dict[str, tuple[float, ...]] = {
    "sbert": (0.5, 0.7561, 0.7549, 0.7883, 0.6382, 0.5, 0.5686, 0.5704, 0.3213, 0.5, 0.4899, 0.3045, 0.5, 0.2805, 0.5),
    "distilroberta": (
        0.5,
        0.7594,
        0.7006,
        0.5545,
        0.7700,
        0.5,
        0.4463,
        0.3109,
        0.4872,
        0.5,
        0.3577,
        0.5372,
        0.5,
        0.6966,
        0.5,
    ),
    "t5": (0.5, 0.6641, 0.6300, 0.5409, 0.7550, 0.5, 0.4454, 0.3849, 0.5333, 0.5, 0.4113, 0.6131, 0.5, 0.7212, 0.5),
    "dpr": (0.5, 0.3728, 0.3944, 0.4504, 0.6454, 0.5, 0.5078, 0.5705, 0.7304, 0.5, 0.5627, 0.7100, 0.5, 0.6635, 0.5),
    "labse": (0.5, 0.4252, 0.3386, 0.5268, 0.3316, 0.5, 0.4155, 0.6216, 0.3877, 0.5, 0.6838, 0.5209, 0.5, 0.2902, 0.5),
    "minilm": (0.5, 0.7048, 0.7275, 0.5197, 0.8909, 0.5, 0.4987, 0.3521, 0.6598, 0.5, 0.3227, 0.6686, 0.5, 0.8222, 0.5),
    "glove": (0.5, 0.6565, 0.6940, 0.7022, 0.4684, 0.5, 0.5428, 0.5552, 0.3215, 0.5, 0.5087, 0.2626, 0.5, 0.2558, 0.5),
    "word2vec": (
        0.5,
        0.7536,
        0.6518,
        0.4879,
        0.9982,
        0.5,
        0.4289,
        0.2953,
        0.8103,
        0.5,
        0.3817,
        0.8503,
        0.5,
        0.8642,
        0.5,
    ),
}

#: Carvalho et al., §4.2.3 and Appendix B, Table 8 (Table 4 rounds it to 3 decimals): consistency of
#: non-subsectivity (Eq. 7-8) per adjective type (columns :data:`CARVALHO_TYPES`); 4 decimals, truncated.
CARVALHO_TABLE8: dict[str, tuple[float, ...]] = {
    "sbert": (0.8030, 0.5000, 0.4907, 0.5833, 0.7777),
    "distilroberta": (0.7424, 0.5000, 0.5432, 0.7380, 0.3333),
    "t5": (0.6818, 0.5416, 0.5864, 0.6547, 0.4166),
    "dpr": (0.4772, 0.3750, 0.4907, 0.5595, 0.3611),
    "labse": (0.3560, 0.3055, 0.5123, 0.3273, 0.1944),
    "minilm": (0.6136, 0.4861, 0.4320, 0.6785, 0.1111),
    "glove": (0.6060, 0.2222, 0.2191, 0.3214, 0.2777),
    "word2vec": (0.5530, 0.2083, 0.3364, 0.4940, 0.0),
}

#: Carvalho et al.: decimals each table is printed with (Table 1: at most 2; Tables 6-8: 4, truncated).
CARVALHO_DECIMALS = {1: 2, 6: 4, 7: 4, 8: 4}
# Bhathena, Willis, Dass, "Evaluating Compositionality of Sentence Representation
# Models" (notebooks 05 and 06)
# ---------------------------------------------------------------------------

#: Bhathena et al., §3.1, Table 1: where notebook 05's paper values come from.
BHATHENA_TABLE1_SOURCE = (
    "Bhathena, Willis, Dass, 'Evaluating Compositionality of Sentence Representation Models', §3.1, Table 1"
)

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
    (
        "A coda in every sense, The Pinochet Case splits time between a minute-by-minute account of the "
        "British court's extradition chess game and the regime's talking-head survivors.",
        1.95,
        0.37,
        "Figure 3",
    ),
)


__all__ = ["COGALEX_VI_WINNER", "BHATHENA_TABLE2_SOURCE"]
