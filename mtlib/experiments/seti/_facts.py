"""SETI's facts from the paper: the 30 verbs of Table 6, Table 3's rules, Table 5, the few-shot study (§5.2).

Intuition: everything here is read off Fu & Frank (2023) and never computed:
which verbs are veridical, which composition rule gives which label, Table
5's sizes, the two readings of the few-shot study. The task setups of §3.2 (the paper's "task settings") and
the rules each one's training and test sets hold are the dataset builder's
(:mod:`mtlib.data.seti_tasks`), re-exported here. The two checks at the end
(:func:`parse_setups`, :func:`check_fewshot`) read names against them; they
import nothing heavy, so notebook 07's spec makes them before anything runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data.seti_tasks import TASK_SETUPS, SetiError
from mtlib.data.seti_tasks import TEMPLATE as TEMPLATE  # §3.1's premise template, the builder's default

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
#: Table 3: rule -> (verb veridical, natural inference entailed, composed label).
RULES: dict[int, tuple[bool, bool, int]] = {
    1: (True, True, 1),
    2: (True, False, 0),
    3: (False, True, 0),
    4: (False, False, 0),
}
RULE_SYMBOLS = {1: "①", 2: "②", 3: "③", 4: "④"}
#: §5.2: the three non-trivial sub-tasks of the few-shot study (Figure 2 a-c) and the number of composition
#: rule types their test sets need but training lacks (4, 2, 1).
FEWSHOT_SETUPS: tuple[tuple[int, str], ...] = ((1, "non-trivial"), (2, "non-trivial"), (3, "non-trivial-R_nat"))
MISSING_RULES = {(1, "non-trivial"): 4, (2, "non-trivial"): 2, (3, "non-trivial-R_nat"): 1, (3, "non-trivial-R_ver"): 1}

#: §4.1, Table 5: items per task setup, inference type and split in the Compositional Generalization (cg) and
#: In-Distribution (id) configurations (the test set counted once per setup: None in its other rows).
PAPER_TABLE5 = pd.DataFrame(
    [
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
    ],
    columns=["task", "setup", "type", "cg_train", "cg_dev", "cg_test", "id_train", "id_dev", "id_test"],
)

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


#: §5.2: the models of the few-shot study: a frozen encoder with a trained head, or a fine-tuned cross-encoder.
FEWSHOT_HOWS = ("head", "finetune")
#: §5.2's two readings: D_few added to the training data, or more epochs on D_few alone after D_train.
FEWSHOT_MODES = ("add", "continue")
#: The names :func:`parse_setups` reads: ``all`` and ``<task>/<setup>`` of every task setup.
SETUP_NAMES = ("all", *(f"{task}/{setup}" for task, setup in TASK_SETUPS))


def parse_setups(names: Sequence[str]) -> list[tuple[int, str]]:
    """``["1/trivial", "2/non-trivial"]`` as ``[(1, "trivial"), (2, "non-trivial")]``; ``["all"]``: every task setup.

    Raises:
        SetiError: a name that is not ``<task>/<setup>`` of :data:`TASK_SETUPS`.

    Example:
        >>> parse_setups(["2/non-trivial"])
        [(2, 'non-trivial')]
    """
    if list(names) == ["all"]:
        return list(TASK_SETUPS)
    if "all" in list(names):
        raise SetiError(f"'all' (every task setup) stands alone; got {list(names)}")
    out = []
    for name in names:
        task, _, setup = str(name).partition("/")
        if not task.isdigit() or (int(task), setup) not in TASK_SETUPS:
            raise SetiError(
                f"task setup {name!r}: expected 'all' or <task>/<setup> among {[f'{t}/{s}' for t, s in TASK_SETUPS]}"
            )
        out.append((int(task), setup))
    return out


def check_fewshot(how: str, mode: str, epochs: Any, head: str) -> None:
    """Fail early, with the valid choices, on few-shot options the study cannot run.

    Args:
        how: ``fewshot_how``: one of :data:`FEWSHOT_HOWS`.
        mode: ``fewshot_mode``: one of :data:`FEWSHOT_MODES`.
        epochs: ``fewshot_epochs``: epochs on D_few alone in the ``continue`` mode.
        head: The head on frozen features (``linear`` or ``mlp``).

    Raises:
        SetiError: an unknown ``how`` or ``mode``, ``epochs`` not a positive integer, or ``mode="continue"``
            with a logistic-regression head (it refits from scratch; continuing needs ``head="mlp"`` or
            ``how="finetune"``).
    """
    if how not in FEWSHOT_HOWS:
        raise SetiError(
            f"fewshot_how={how!r} is not one of {FEWSHOT_HOWS} (head: frozen encoder and a trained "
            "head; finetune: the model fine-tuned as a cross-encoder)"
        )
    if mode not in FEWSHOT_MODES:
        raise SetiError(
            f"fewshot_mode={mode!r} is not one of {FEWSHOT_MODES} (add: D_few joins the training "
            "data; continue: train on D_train, then fewshot_epochs more epochs on D_few)"
        )
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise SetiError(f"fewshot_epochs must be a positive integer, got {epochs!r}")
    if mode == "continue" and how == "head" and head != "mlp":
        raise SetiError(
            f"fewshot_mode='continue' cannot continue a {head!r} head: a logistic-regression head "
            "refits from scratch and forgets D_train. Use head='mlp' or fewshot_how='finetune'"
        )
