"""SETI's data: the verbs of Table 6 with their forms, Table 3 as data, and the natural inferences of a SICK file.

Intuition: a natural inference is a SICK pair whose sentences differ by one
content word (lexical, ``boy -> kid``) or by voice (structural,
active/passive). :func:`extract_natural_inferences` finds them in a
SICK-format frame and :func:`subsample_pool` keeps the pairs a run uses;
:func:`verb_table` gives the verbs the premises ``f(s)`` are built with. The
task setups are built from both by :func:`mtlib.data.seti_tasks.build`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from mtlib.experiments.seti._facts import (
    FUNCTION_WORDS,
    IRREGULAR_PARTICIPLES,
    NON_VERIDICAL_VERBS,
    RULE_SYMBOLS,
    RULES,
    VERIDICAL_VERBS,
    SetiError,
)
from mtlib.relations.errors import check_count, check_frame

# --- verbs and rules -----------------------------------------------------------------------------


def third_person(verb: str) -> str:
    """``realize -> realizes``, ``wish -> wishes``, ``imply -> implies``."""
    if re.search(r"(s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def verb_table(verbs: Mapping[str, bool] | pd.DataFrame | None = None) -> pd.DataFrame:
    """The verbs used to build premises: ``verb`` (base form), ``form`` (3rd person), ``veridical``.

    Args:
        verbs: ``None`` for the paper's 30 (Table 6); a mapping ``verb -> veridical``; or a DataFrame
            with columns ``verb`` and ``veridical``.
    """
    if verbs is None:
        pairs = [(v, True) for v in VERIDICAL_VERBS] + [(v, False) for v in NON_VERIDICAL_VERBS]
    elif isinstance(verbs, pd.DataFrame):
        pairs = list(zip(verbs["verb"], verbs["veridical"].astype(bool)))
    else:
        pairs = [(v, bool(ver)) for v, ver in verbs.items()]
    table = pd.DataFrame(pairs, columns=["verb", "veridical"])
    if table["veridical"].nunique() < 2:
        raise SetiError("verbs must include veridical and non-veridical ones")
    table["form"] = table["verb"].map(third_person)
    return table[["verb", "form", "veridical"]]


def rules_table() -> pd.DataFrame:
    """Table 3 as data: one row per rule with both primitive labels and the composed label."""
    return pd.DataFrame(
        [
            {"rule": r, "symbol": RULE_SYMBOLS[r], "PI_ver": v, "PI_nat": n, "CI": lab}
            for r, (v, n, lab) in RULES.items()
        ]
    ).set_index("rule")


# --- extraction of natural inferences -------------------------------------------------------------

_PASSIVE = re.compile(r"^(?P<patient>.+?) (?:is|are) being (?P<verb>\w+) by (?P<agent>.+)$", re.I)
_ACTIVE = re.compile(r"^(?P<agent>.+?) (?:is|are) (?P<verb>\w+ing) (?P<patient>.+)$", re.I)


def _tokens(s: str) -> list[str]:
    return re.sub(r"[^\w\s'-]", " ", s.lower()).split()


def _content(phrase: str) -> tuple[str, ...]:
    return tuple(t for t in _tokens(phrase) if t not in FUNCTION_WORDS)


def _stems_ing(word: str) -> set[str]:
    w = word.lower()[:-3]
    out = {w, w + "e"}
    if len(w) > 2 and w[-1] == w[-2]:
        out.add(w[:-1])
    return out


def _stems_participle(word: str) -> set[str]:
    w = word.lower()
    if w in IRREGULAR_PARTICIPLES:
        return {IRREGULAR_PARTICIPLES[w]}
    out = {w}
    if w.endswith("ied"):
        out.add(w[:-3] + "y")
    if w.endswith("ed"):
        out |= {w[:-2], w[:-1]}
        if len(w) > 4 and w[-3] == w[-4]:
            out.add(w[:-3])
    if w.endswith("en"):
        out |= {w[:-2], w[:-1]}
    return out


def _voice(sentence: str) -> tuple[str, str, tuple[str, ...], tuple[str, ...]] | None:
    """``(voice, verb, agent words, patient words)`` of a simple active or passive clause, else None."""
    s = sentence.strip().rstrip(".")
    m = _PASSIVE.match(s)
    if m:
        return "passive", m["verb"], _content(m["agent"]), _content(m["patient"])
    m = _ACTIVE.match(s)
    if m and " by " not in f" {m['patient']} ":
        return "active", m["verb"], _content(m["agent"]), _content(m["patient"])
    return None


def _one_word_apart(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 1


def structural_match(a: str, b: str) -> str | None:
    """How ``b`` restates ``a`` with the other voice: ``"same"`` roles, ``"swapped"`` roles, ``"changed"``
    content (one noun-phrase word differs), or None when they are not an active/passive pair.

    One side must be passive ("is/are being <participle> by"), the other active ("is/are <verb>ing"), with
    the same verb.
    """
    va, vb = _voice(a), _voice(b)
    if va is None or vb is None or va[0] == vb[0]:
        return None
    act, pas = (va, vb) if va[0] == "active" else (vb, va)
    if not (_stems_ing(act[1]) & _stems_participle(pas[1])):
        return None
    if not act[2] or not act[3]:
        return None
    if (act[2], act[3]) == (pas[2], pas[3]):
        return "same"
    if (act[2], act[3]) == (pas[3], pas[2]):
        return "swapped"
    if (act[2] == pas[2] and _one_word_apart(act[3], pas[3])) or (act[3] == pas[3] and _one_word_apart(act[2], pas[2])):
        return "changed"
    return None


def lexical_substitution(a: str, b: str) -> tuple[str, str] | None:
    """The substituted word pair ``(word in a, word in b)`` when ``b`` is ``a`` with one content word
    replaced (same length, one position differs, neither word a function word), else None."""
    ta, tb = _tokens(a), _tokens(b)
    if len(ta) != len(tb):
        return None
    diff = [(x, y) for x, y in zip(ta, tb) if x != y]
    if len(diff) != 1:
        return None
    x, y = diff[0]
    if x in FUNCTION_WORDS or y in FUNCTION_WORDS:
        return None
    return x, y


def _binary(values: pd.Series, positive: str) -> np.ndarray:
    return (values.astype(str).str.upper() == positive.upper()).to_numpy().astype(int)


def extract_natural_inferences(sick: pd.DataFrame, both_directions: bool = True) -> pd.DataFrame:
    """Lexical and structural natural inferences of a SICK-format frame (:func:`mtlib.data.sick.load_sick`).

    A pair is **lexical** when the two sentences differ by one content-word substitution, **structural** when
    one is the other in the other voice (:func:`structural_match`); everything else is skipped. Labels are
    binary (footnote 3): 1 for entailment, 0 for neutral or contradiction. A→B reads ``entailment_AB``
    (else ``entailment_label`` or ``entailment_judgment``); B→A reads ``entailment_BA`` and is only produced
    when the file has it.

    Args:
        sick: The loaded file.
        both_directions: Also produce B→A inferences (when the file has ``entailment_BA``).

    Returns:
        One row per inference: ``premise``, ``hypothesis``, ``label``, ``type`` (``lexical`` or
        ``structural``), ``rule`` (the substitution ``boy→kid``, or ``active→passive`` /
        ``passive→active``), ``relation`` (structural: same/swapped/changed; lexical: empty), ``pair_ID``
        and ``direction`` (``AB`` or ``BA``).
    """
    if "entailment_AB" in sick:
        ab = (sick["entailment_AB"].astype(str) == "A_entails_B").to_numpy().astype(int)
    elif "entailment_label" in sick:
        ab = _binary(sick["entailment_label"], "ENTAILMENT")
    elif "entailment_judgment" in sick:
        ab = _binary(sick["entailment_judgment"], "ENTAILMENT")
    else:
        raise SetiError(
            f"a SICK frame needs entailment_AB, entailment_label or entailment_judgment; has {list(sick.columns)}"
        )
    ba = (
        (sick["entailment_BA"].astype(str) == "B_entails_A").to_numpy().astype(int)
        if (both_directions and "entailment_BA" in sick)
        else None
    )
    rows: list[tuple[Any, ...]] = []
    for i, (pid, a, b) in enumerate(zip(sick["pair_ID"], sick["sentence_A"], sick["sentence_B"])):
        sub = lexical_substitution(a, b)
        stru = None if sub else structural_match(a, b)
        if sub is None and stru is None:
            continue
        for direction, p, h, lab in (("AB", a, b, ab[i]), ("BA", b, a, None if ba is None else ba[i])):
            if lab is None:
                continue
            if sub:
                x, y = sub if direction == "AB" else sub[::-1]
                rows.append((p, h, int(lab), "lexical", f"{x}→{y}", "", int(pid), direction))
            else:
                parsed = _voice(p)
                assert parsed is not None  # a structural match parses in either voice
                voice = parsed[0]
                rows.append(
                    (
                        p,
                        h,
                        int(lab),
                        "structural",
                        f"{voice}→{'passive' if voice == 'active' else 'active'}",
                        stru,
                        int(pid),
                        direction,
                    )
                )
    return pd.DataFrame(
        rows, columns=["premise", "hypothesis", "label", "type", "rule", "relation", "pair_ID", "direction"]
    )


def subsample_pool(pool: pd.DataFrame, n_lexical: int = 0, n_structural: int = 0, seed: int = 0) -> pd.DataFrame:
    """Keep at most ``n_lexical`` / ``n_structural`` SICK pairs (both directions of a pair stay together).

    0 keeps every pair of that type.

    Raises:
        MtlibInputError: ``pool`` is not a DataFrame with ``type`` and ``pair_ID``, or a count or the seed is
            not an integer >= 0.
    """
    check_frame(pool, "subsample_pool", "pool", ["type", "pair_ID"])
    for name, value in (("n_lexical", n_lexical), ("n_structural", n_structural), ("seed", seed)):
        check_count(value, "subsample_pool", name)
    rng = np.random.default_rng(seed)
    keep: list[Any] = []
    for nat_type, n in (("lexical", n_lexical), ("structural", n_structural)):
        ids = pool.loc[pool["type"] == nat_type, "pair_ID"].unique()
        keep.extend(ids if not n or n >= len(ids) else rng.choice(ids, n, replace=False))
    return pool[pool["pair_ID"].isin(set(keep))].reset_index(drop=True)
