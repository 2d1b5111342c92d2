"""SETI's facts from the paper: the 30 verbs of Table 6, Table 3's rules, the seven settings of §3.2.

Intuition: everything here is read off Fu & Frank (2023) and never computed:
which verbs are veridical, which composition rule gives which label, which
rules each setting's training and test sets hold, Table 5's sizes. The other
modules build and score settings; these constants say what the paper asks.
"""

from __future__ import annotations

import pandas as pd

from mtlib.data.papers import FU_FRANK_TABLE5, FU_FRANK_TABLE5_COLUMNS

__all__ = [
    "VERIDICAL_VERBS",
    "NON_VERIDICAL_VERBS",
    "TEMPLATE",
    "RULES",
    "RULE_SYMBOLS",
    "SETTINGS",
    "CONFIGS",
    "TEST_RULES",
    "TRAIN_RULES",
    "NEEDS_STRUCTURAL",
    "FEWSHOT_SETTINGS",
    "MISSING_RULES",
    "KINDS",
    "PAPER_TABLE5",
    "FUNCTION_WORDS",
    "IRREGULAR_PARTICIPLES",
    "SetiError",
    "COLUMNS",
]

#: Table 6: the 15 veridical verbs f_v (the complement is entailed).
VERIDICAL_VERBS = (
    "realize",
    "acknowledge",
    "remember",
    "note",
    "find",
    "notice",
    "learn",
    "see",
    "reveal",
    "discover",
    "understand",
    "know",
    "admit",
    "recognize",
    "observe",
)
#: Table 6: the 15 non-veridical verbs f_nv (the complement is not entailed).
NON_VERIDICAL_VERBS = (
    "feel",
    "claim",
    "doubt",
    "hope",
    "predict",
    "imply",
    "suspect",
    "wish",
    "think",
    "believe",
    "hear",
    "expect",
    "estimate",
    "assume",
    "argue",
)
#: §3.1: the premise template of veridical and compositional inferences.
TEMPLATE = "Someone {verb} that {s}"
#: Table 3: rule -> (verb veridical, natural inference entailed, composed label).
RULES: dict[int, tuple[bool, bool, int]] = {
    1: (True, True, 1),
    2: (True, False, 0),
    3: (False, True, 0),
    4: (False, False, 0),
}
RULE_SYMBOLS = {1: "①", 2: "②", 3: "③", 4: "④"}
#: §3.2: the seven task settings.
SETTINGS: tuple[tuple[int, str], ...] = (
    (1, "trivial"),
    (1, "non-trivial"),
    (2, "trivial"),
    (2, "non-trivial"),
    (3, "trivial"),
    (3, "non-trivial-R_ver"),
    (3, "non-trivial-R_nat"),
)
CONFIGS = ("cg", "id")
#: The composition rules each setting's (CG) test set holds (§3.2, equations 2, 4, 5, 7, 8, 9).
TEST_RULES: dict[tuple[int, str], frozenset[int]] = {
    (1, "trivial"): frozenset({1, 2, 3, 4}),
    (1, "non-trivial"): frozenset({1, 2, 3, 4}),
    (2, "trivial"): frozenset({1, 2, 3, 4}),
    (2, "non-trivial"): frozenset({2, 3}),
    (3, "trivial"): frozenset({1, 2}),
    (3, "non-trivial-R_ver"): frozenset({3}),
    (3, "non-trivial-R_nat"): frozenset({2}),
}
#: The composition rules in each setting's (CG) training set.
TRAIN_RULES: dict[tuple[int, str], frozenset[int]] = {
    (1, "trivial"): frozenset(),
    (1, "non-trivial"): frozenset(),
    (2, "trivial"): frozenset({1, 2, 3, 4}),
    (2, "non-trivial"): frozenset({1, 4}),
    (3, "trivial"): frozenset({1, 2}),
    (3, "non-trivial-R_ver"): frozenset({1}),
    (3, "non-trivial-R_nat"): frozenset({1}),
}
#: Settings that need structural (active/passive) natural inferences.
NEEDS_STRUCTURAL = frozenset({(2, "trivial"), (3, "trivial")})
#: §5.2: the three non-trivial sub-tasks of the few-shot study (Figure 2 a-c) and the number of composition
#: rule types their test sets need but training lacks (4, 2, 1).
FEWSHOT_SETTINGS: tuple[tuple[int, str], ...] = ((1, "non-trivial"), (2, "non-trivial"), (3, "non-trivial-R_nat"))
MISSING_RULES = {(1, "non-trivial"): 4, (2, "non-trivial"): 2, (3, "non-trivial-R_nat"): 1, (3, "non-trivial-R_ver"): 1}
KINDS = ("PI_ver", "PI_lex", "PI_stru", "CI")

#: Table 5 of the paper (:data:`mtlib.data.papers.FU_FRANK_TABLE5`) as a DataFrame.
PAPER_TABLE5 = pd.DataFrame(list(FU_FRANK_TABLE5), columns=list(FU_FRANK_TABLE5_COLUMNS))

FUNCTION_WORDS = frozenset(
    "a an the is are was were be being been by of to in on at into onto for with and or "
    "not no some this that these those there his her its their one two".split()
)
#: Past participles whose verb the regular rules below miss.
IRREGULAR_PARTICIPLES = {
    "driven": "drive",
    "ridden": "ride",
    "eaten": "eat",
    "thrown": "throw",
    "held": "hold",
    "fed": "feed",
    "caught": "catch",
    "cut": "cut",
    "read": "read",
    "bitten": "bite",
    "written": "write",
    "taken": "take",
    "given": "give",
    "hit": "hit",
    "put": "put",
    "shot": "shoot",
    "beaten": "beat",
    "bought": "buy",
    "brought": "bring",
    "drawn": "draw",
    "blown": "blow",
    "shaken": "shake",
    "sung": "sing",
    "swept": "sweep",
    "dug": "dig",
    "built": "build",
    "seen": "see",
    "kept": "keep",
    "led": "lead",
    "left": "leave",
    "made": "make",
    "worn": "wear",
    "torn": "tear",
    "sewn": "sew",
    "sold": "sell",
    "told": "tell",
    "struck": "strike",
    "stung": "sting",
    "spun": "spin",
    "hung": "hang",
    "won": "win",
    "ground": "grind",
    "split": "split",
    "set": "set",
    "shut": "shut",
    "thrust": "thrust",
    "hidden": "hide",
    "chosen": "choose",
    "frozen": "freeze",
    "woken": "wake",
    "broken": "break",
    "fought": "fight",
    "taught": "teach",
    "stolen": "steal",
    "flown": "fly",
    "grown": "grow",
    "known": "know",
    "shown": "show",
    "laid": "lay",
    "paid": "pay",
    "lit": "light",
    "kicked": "kick",
    "swung": "swing",
    "dragged": "drag",
}


class SetiError(ValueError):
    """An unknown task, setting or configuration, or a pool that cannot build a setting."""


#: The columns of every item frame (training, dev, test and D_few items).
COLUMNS = ["premise", "hypothesis", "label", "kind", "rule", "s", "verb", "nat_type", "nat_rule", "pair_ID"]
