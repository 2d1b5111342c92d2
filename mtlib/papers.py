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
