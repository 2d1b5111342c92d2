"""SETI: systematicity of textual inference (Fu & Frank 2023), built from its ingredients.

Intuition: a *compositional inference* chains two primitive inferences. A
*veridical* inference ``f(s) -> s`` holds for a veridical verb ("Someone
realizes that s" entails s) and fails for a non-veridical one ("Someone hopes
that s"). A *natural* inference ``s -> s'`` is a one-word substitution
(lexical: "boy" -> "kid") or an active/passive change (structural). Their
composition ``f(s) -> s'`` is entailed exactly when both are (Table 3's
Boolean rules: ① T∧T→T, ② T∧F→F, ③ F∧T→F, ④ F∧F→F). The three tasks of
§3.2 train a model on some primitives or compositions and test it on
compositions it has not seen; a model that composes what it learned is
*systematic*, one that fits surface cues is not. Each task has a *trivial*
setting (the composition rules needed at test time occur in training) and a
*non-trivial* one (they do not), and each setting a *Compositional
Generalization* configuration (``cg``, the controlled split) and an
*In-Distribution* one (``id``, a random split of the same items with the same
sizes).

This module builds every setting from a pool of natural inferences (as
:func:`extract_natural_inferences` finds them in a SICK-format file) and the
30 verbs of Table 6, checks the invariants of §3.2 in code, and scores models:
every model goes through the classifier factory
(:func:`mtlib.models.classifier`): a head on frozen pair features, each unique
sentence encoded once (:func:`universe` lists them), or a fine-tuned
cross-encoder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data.papers import FU_FRANK_TABLE5, FU_FRANK_TABLE5_COLUMNS
from mtlib.utils.threads import limit_threads

# --- facts from the paper ---------------------------------------------------------------------------

#: Table 6: the 15 veridical verbs f_v (the complement is entailed).
VERIDICAL_VERBS = ("realize", "acknowledge", "remember", "note", "find", "notice", "learn", "see", "reveal",
                   "discover", "understand", "know", "admit", "recognize", "observe")
#: Table 6: the 15 non-veridical verbs f_nv (the complement is not entailed).
NON_VERIDICAL_VERBS = ("feel", "claim", "doubt", "hope", "predict", "imply", "suspect", "wish", "think", "believe",
                       "hear", "expect", "estimate", "assume", "argue")
#: §3.1: the premise template of veridical and compositional inferences.
TEMPLATE = "Someone {verb} that {s}"
#: Table 3: rule -> (verb veridical, natural inference entailed, composed label).
RULES: dict[int, tuple[bool, bool, int]] = {1: (True, True, 1), 2: (True, False, 0), 3: (False, True, 0),
                                            4: (False, False, 0)}
RULE_SYMBOLS = {1: "①", 2: "②", 3: "③", 4: "④"}
#: §3.2: the seven task settings.
SETTINGS: tuple[tuple[int, str], ...] = ((1, "trivial"), (1, "non-trivial"), (2, "trivial"), (2, "non-trivial"),
                                         (3, "trivial"), (3, "non-trivial-R_ver"), (3, "non-trivial-R_nat"))
CONFIGS = ("cg", "id")
#: The composition rules each setting's (CG) test set holds (§3.2, equations 2, 4, 5, 7, 8, 9).
TEST_RULES: dict[tuple[int, str], frozenset[int]] = {
    (1, "trivial"): frozenset({1, 2, 3, 4}), (1, "non-trivial"): frozenset({1, 2, 3, 4}),
    (2, "trivial"): frozenset({1, 2, 3, 4}), (2, "non-trivial"): frozenset({2, 3}),
    (3, "trivial"): frozenset({1, 2}), (3, "non-trivial-R_ver"): frozenset({3}),
    (3, "non-trivial-R_nat"): frozenset({2})}
#: The composition rules in each setting's (CG) training set.
TRAIN_RULES: dict[tuple[int, str], frozenset[int]] = {
    (1, "trivial"): frozenset(), (1, "non-trivial"): frozenset(),
    (2, "trivial"): frozenset({1, 2, 3, 4}), (2, "non-trivial"): frozenset({1, 4}),
    (3, "trivial"): frozenset({1, 2}), (3, "non-trivial-R_ver"): frozenset({1}),
    (3, "non-trivial-R_nat"): frozenset({1})}
#: Settings that need structural (active/passive) natural inferences.
NEEDS_STRUCTURAL = frozenset({(2, "trivial"), (3, "trivial")})
#: §5.2: the three non-trivial sub-tasks of the few-shot study (Figure 2 a-c) and the number of composition
#: rule types their test sets need but training lacks (4, 2, 1).
FEWSHOT_SETTINGS: tuple[tuple[int, str], ...] = ((1, "non-trivial"), (2, "non-trivial"), (3, "non-trivial-R_nat"))
MISSING_RULES = {(1, "non-trivial"): 4, (2, "non-trivial"): 2, (3, "non-trivial-R_nat"): 1,
                 (3, "non-trivial-R_ver"): 1}
KINDS = ("PI_ver", "PI_lex", "PI_stru", "CI")

#: Table 5 of the paper (:data:`mtlib.data.papers.FU_FRANK_TABLE5`) as a DataFrame.
PAPER_TABLE5 = pd.DataFrame(list(FU_FRANK_TABLE5), columns=list(FU_FRANK_TABLE5_COLUMNS))

FUNCTION_WORDS = frozenset("a an the is are was were be being been by of to in on at into onto for with and or "
                           "not no some this that these those there his her its their one two".split())
#: Past participles whose verb the regular rules below miss.
IRREGULAR_PARTICIPLES = {
    "driven": "drive", "ridden": "ride", "eaten": "eat", "thrown": "throw", "held": "hold", "fed": "feed",
    "caught": "catch", "cut": "cut", "read": "read", "bitten": "bite", "written": "write", "taken": "take",
    "given": "give", "hit": "hit", "put": "put", "shot": "shoot", "beaten": "beat", "bought": "buy",
    "brought": "bring", "drawn": "draw", "blown": "blow", "shaken": "shake", "sung": "sing", "swept": "sweep",
    "dug": "dig", "built": "build", "seen": "see", "kept": "keep", "led": "lead", "left": "leave", "made": "make",
    "worn": "wear", "torn": "tear", "sewn": "sew", "sold": "sell", "told": "tell", "struck": "strike",
    "stung": "sting", "spun": "spin", "hung": "hang", "won": "win", "ground": "grind", "split": "split",
    "set": "set", "shut": "shut", "thrust": "thrust", "hidden": "hide", "chosen": "choose", "frozen": "freeze",
    "woken": "wake", "broken": "break", "fought": "fight", "taught": "teach", "stolen": "steal", "flown": "fly",
    "grown": "grow", "known": "know", "shown": "show", "laid": "lay", "paid": "pay", "lit": "light",
    "kicked": "kick", "swung": "swing", "dragged": "drag"}


class SetiError(ValueError):
    """An unknown task, setting or configuration, or a pool that cannot build a setting."""


# --- verbs and templates --------------------------------------------------------------------------


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


def embed_clause(s: str) -> str:
    """A sentence as a complement clause: final period dropped, first letter lower-cased (not acronyms)."""
    s = s.strip().rstrip(".")
    if len(s) > 1 and not s[1].isupper():
        s = s[0].lower() + s[1:]
    return s


def veridical_premises(forms: Sequence[str], sentences: Sequence[str], template: str = TEMPLATE) -> list[str]:
    """``f(s)``: ``template`` filled with each (verb form, sentence) pair."""
    forms, sentences = _objects(forms), _objects(sentences)
    clause = {s: embed_clause(s) for s in set(sentences)}
    return [template.format(verb=f, s=clause[s]) for f, s in zip(forms, sentences)]


def _objects(values: Any) -> np.ndarray:
    """Strings as a NumPy object array (iterating pandas' Arrow strings one by one is slow)."""
    if isinstance(values, (pd.Series, pd.Index)):
        return values.to_numpy(dtype=object)
    return np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=object)


def _strings(*columns: Any) -> set[str]:
    """The set of strings in the given columns."""
    return set().union(*(set(_objects(c).tolist()) for c in columns))


def rule_of(veridical: Any, nat_label: Any) -> np.ndarray:
    """Table 3's rule number (1-4) for arrays of verb veridicality and natural-inference labels."""
    v, n = np.asarray(veridical, dtype=bool), np.asarray(nat_label).astype(int) == 1
    return np.where(v, np.where(n, 1, 2), np.where(n, 3, 4))


def composed_label(veridical: Any, nat_label: Any) -> np.ndarray:
    """The Boolean composition T∧T→T, else F (1 entailment, 0 non-entailment)."""
    return (np.asarray(veridical, dtype=bool) & (np.asarray(nat_label).astype(int) == 1)).astype(int)


def rules_table() -> pd.DataFrame:
    """Table 3 as data: one row per rule with both primitive labels and the composed label."""
    return pd.DataFrame([{"rule": r, "symbol": RULE_SYMBOLS[r], "PI_ver": v, "PI_nat": n, "CI": lab}
                         for r, (v, n, lab) in RULES.items()]).set_index("rule")


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
    if (act[2] == pas[2] and _one_word_apart(act[3], pas[3])) or (act[3] == pas[3] and _one_word_apart(act[2],
                                                                                                      pas[2])):
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
        raise SetiError("a SICK frame needs entailment_AB, entailment_label or entailment_judgment; has "
                        f"{list(sick.columns)}")
    ba = (sick["entailment_BA"].astype(str) == "B_entails_A").to_numpy().astype(int) if (
        both_directions and "entailment_BA" in sick) else None
    rows = []
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
                voice = _voice(p)[0]
                rows.append((p, h, int(lab), "structural", f"{voice}→{'passive' if voice == 'active' else 'active'}",
                             stru, int(pid), direction))
    return pd.DataFrame(rows, columns=["premise", "hypothesis", "label", "type", "rule", "relation", "pair_ID",
                                       "direction"])


def subsample_pool(pool: pd.DataFrame, n_lexical: int = 0, n_structural: int = 0, seed: int = 0) -> pd.DataFrame:
    """Keep at most ``n_lexical`` / ``n_structural`` SICK pairs (both directions of a pair stay together).

    0 keeps every pair of that type.
    """
    rng = np.random.default_rng(seed)
    keep = []
    for kind, n in (("lexical", n_lexical), ("structural", n_structural)):
        ids = pool.loc[pool["type"] == kind, "pair_ID"].unique()
        keep.extend(ids if not n or n >= len(ids) else rng.choice(ids, n, replace=False))
    return pool[pool["pair_ID"].isin(set(keep))].reset_index(drop=True)


# --- primitive and compositional inferences -------------------------------------------------------

COLUMNS = ["premise", "hypothesis", "label", "kind", "rule", "s", "verb", "nat_type", "nat_rule", "pair_ID"]


def primitive_veridical(sentences: Iterable[str], verbs: pd.DataFrame, template: str = TEMPLATE) -> pd.DataFrame:
    """``f(s) -> s`` for every sentence and verb: label 1 for veridical verbs, 0 for non-veridical."""
    s = pd.DataFrame({"s": list(dict.fromkeys(sentences))})
    grid = s.merge(verbs, how="cross")
    return pd.DataFrame({
        "premise": veridical_premises(grid["form"], grid["s"], template), "hypothesis": grid["s"],
        "label": grid["veridical"].astype(int), "kind": "PI_ver", "rule": 0, "s": grid["s"], "verb": grid["verb"],
        "nat_type": "", "nat_rule": "", "pair_ID": -1})[COLUMNS]


def primitive_natural(pairs: pd.DataFrame) -> pd.DataFrame:
    """The natural inferences themselves (``PI_lex`` / ``PI_stru``)."""
    kind = np.where(pairs["type"] == "lexical", "PI_lex", "PI_stru")
    return pd.DataFrame({
        "premise": pairs["premise"].to_numpy(), "hypothesis": pairs["hypothesis"].to_numpy(),
        "label": pairs["label"].astype(int).to_numpy(), "kind": kind, "rule": 0,
        "s": pairs["premise"].to_numpy(), "verb": "", "nat_type": pairs["type"].to_numpy(),
        "nat_rule": pairs["rule"].to_numpy(), "pair_ID": pairs["pair_ID"].to_numpy()})[COLUMNS]


def compositional(pairs: pd.DataFrame, verbs: pd.DataFrame, template: str = TEMPLATE) -> pd.DataFrame:
    """``f(s) -> s'`` for every natural pair ``(s, s')`` and verb, labelled by Table 3's rules."""
    grid = pairs.reset_index(drop=True).merge(verbs, how="cross")
    return pd.DataFrame({
        "premise": veridical_premises(grid["form"], grid["premise"], template), "hypothesis": grid["hypothesis"],
        "label": composed_label(grid["veridical"], grid["label"]), "kind": "CI",
        "rule": rule_of(grid["veridical"], grid["label"]), "s": grid["premise"], "verb": grid["verb"],
        "nat_type": grid["type"], "nat_rule": grid["rule"], "pair_ID": grid["pair_ID"]})[COLUMNS]


def sentence_components(pairs: pd.DataFrame) -> np.ndarray:
    """Connected components of the graph whose nodes are sentences and whose edges are pairs.

    Pairs in different components share no sentence, so splitting by component keeps the sentences of
    the two sides apart. Returns one component id per row of ``pairs``.
    """
    sentences = pd.Index(pd.unique(pd.concat([pairs["premise"], pairs["hypothesis"]])))
    parent = np.arange(len(sentences))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in zip(sentences.get_indexer(pairs["premise"]), sentences.get_indexer(pairs["hypothesis"])):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    roots = np.array([find(i) for i in range(len(sentences))])
    return roots[sentences.get_indexer(pairs["premise"])]


def split_by_sentences(pairs: pd.DataFrame, seed: int = 0, test_fraction: float = 0.5,
                       cover_rules: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split natural pairs into a training side and a test side that share no sentence.

    Args:
        pairs: Natural inferences.
        seed: Seeds the order in which sentence components are assigned.
        test_fraction: Target share of pairs on the test side.
        cover_rules: Only put a component on the test side when each of its substitution rules
            (``boy→kid``) already occurs on the training side (Task 1 non-trivial: new sentences,
            known lexical rules).

    Returns:
        ``(train_pairs, test_pairs)``.
    """
    if pairs.empty:
        return pairs.copy(), pairs.copy()
    comp = sentence_components(pairs)
    groups = pd.Series(np.arange(len(pairs))).groupby(comp).apply(list)
    order = np.random.default_rng(seed).permutation(len(groups))
    target = test_fraction * len(pairs)
    seen_rules: set[str] = set()
    train_idx, test_idx = [], []
    rules = pairs["rule"].to_numpy()
    for g in order:
        idx = groups.iloc[g]
        ok = len(test_idx) + len(idx) <= target + 0.5 and (not cover_rules or set(rules[idx]) <= seen_rules)
        # without rule coverage, alternate so that both sides fill from the start
        if ok and (cover_rules or len(test_idx) <= test_fraction * (len(train_idx) + len(test_idx))):
            test_idx.extend(idx)
        else:
            train_idx.extend(idx)
            seen_rules.update(rules[idx])
    return pairs.iloc[sorted(train_idx)].reset_index(drop=True), pairs.iloc[sorted(test_idx)].reset_index(drop=True)


# --- the seven settings ---------------------------------------------------------------------------


@dataclass
class SetiData:
    """One task setting in one configuration.

    Attributes:
        task, setting, config: e.g. ``2``, ``"non-trivial"``, ``"cg"``.
        train, dev, test: DataFrames with :data:`COLUMNS` (``premise``, ``hypothesis``, ``label`` 1/0,
            ``kind`` PI_ver/PI_lex/PI_stru/CI, ``rule`` 1-4 for CI and 0 otherwise, ``s`` the
            natural-inference premise the item was built from, ...).
        few: Few-shot candidates D_few (compositional, built like the test set, sharing no sentence with it),
            ordered so that the first shots cycle through the test's rules; empty unless asked for.
        info: Sizes before balancing and the seed.
    """

    task: int
    setting: str
    config: str
    train: pd.DataFrame
    dev: pd.DataFrame
    test: pd.DataFrame
    few: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COLUMNS))
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"task{self.task}/{self.setting}/{self.config}"

    def __repr__(self) -> str:
        return (f"SetiData({self.name}: train {len(self.train)}, dev {len(self.dev)}, test {len(self.test)}, "
                f"few {len(self.few)})")

    def sentences(self) -> set[str]:
        """Every sentence the setting uses, natural and veridical, across all splits."""
        frames = [self.train, self.dev, self.test, self.few]
        return _strings(*(f[c] for f in frames for c in ("premise", "hypothesis")))


def check_setting(task: int, setting: str, config: str = "cg") -> tuple[int, str, str]:
    """Validate names; raises :class:`SetiError` listing the valid ones."""
    if (task, setting) not in SETTINGS:
        valid = ", ".join(f"({t}, {s!r})" for t, s in SETTINGS)
        raise SetiError(f"unknown task setting ({task!r}, {setting!r}); valid: {valid}")
    if config not in CONFIGS:
        raise SetiError(f"unknown configuration {config!r}; valid: {', '.join(CONFIGS)}")
    return task, setting, config


def _sample(frame: pd.DataFrame, n: int, rng: np.random.Generator) -> pd.DataFrame:
    if n >= len(frame):
        return frame
    return frame.iloc[np.sort(rng.choice(len(frame), n, replace=False))]


def _balanced(parts: Sequence[pd.DataFrame], rng: np.random.Generator) -> list[pd.DataFrame]:
    """Appendix B: the training types are balanced by downsampling the larger ones."""
    n = min(len(p) for p in parts)
    return [_sample(p, n, rng) for p in parts]


def _cg_parts(task: int, setting: str, lex: pd.DataFrame, stru: pd.DataFrame, verbs: pd.DataFrame,
              template: str, seed: int) -> tuple[list[pd.DataFrame], pd.DataFrame, pd.DataFrame]:
    """Training types (to balance), the test set, and the test-side natural pairs (few-shot source)."""
    ver, nonver = verbs[verbs["veridical"]], verbs[~verbs["veridical"]]
    pos, neg = (lambda p: p[p["label"] == 1]), (lambda p: p[p["label"] == 0])
    nat = pd.concat([lex, stru], ignore_index=True)
    if (task, setting) == (1, "trivial"):
        train = [primitive_veridical(lex["premise"], verbs, template), primitive_natural(lex)]
        return train, compositional(lex, verbs, template), lex
    if (task, setting) == (1, "non-trivial"):
        tr, te = split_by_sentences(lex, seed, cover_rules=True)
        train = [primitive_veridical(tr["premise"], verbs, template), primitive_natural(tr)]
        return train, compositional(te, verbs, template), te
    if (task, setting) == (2, "trivial"):
        train = [compositional(lex, ver, template), compositional(stru, nonver, template)]
        test = pd.concat([compositional(stru, ver, template), compositional(lex, nonver, template)])
        return train, test, nat
    if (task, setting) == (2, "non-trivial"):
        tr, te = split_by_sentences(nat, seed)
        train = [compositional(pos(tr), ver, template), compositional(neg(tr), nonver, template)]
        test = pd.concat([compositional(neg(te), ver, template), compositional(pos(te), nonver, template)])
        return train, test, te
    if (task, setting) == (3, "trivial"):
        train = [primitive_natural(stru), compositional(lex, ver, template)]
        return train, compositional(stru, ver, template), stru
    if (task, setting) == (3, "non-trivial-R_ver"):
        tr, te = split_by_sentences(pos(lex), seed)
        train = [primitive_veridical(tr["premise"], nonver, template), compositional(tr, ver, template)]
        return train, compositional(te, nonver, template), te
    tr, te = split_by_sentences(lex, seed)  # (3, "non-trivial-R_nat")
    train = [primitive_natural(neg(tr)), compositional(pos(tr), ver, template)]
    return train, compositional(neg(te), ver, template), neg(te)


def _few_candidates(test: pd.DataFrame, n_few: int, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Reserve D_few (§5.2): compositional items built like the test set from natural pairs whose sentences
    the remaining test set never uses (so D_few ∩ D_test = ∅ and no sentence is shared).

    Sentence components of the test side are taken in random order until every test rule has at least
    ``ceil(n_few / rules)`` items (or half the test items are reserved); D_few is ordered so that the first
    shots cycle through the rules, each drawn at random within its rule.

    Returns:
        ``(few, remaining_test)``.
    """
    if n_few <= 0 or test.empty:
        return test.iloc[:0], test
    rules = sorted(set(test["rule"].astype(int)))
    need = -(-n_few // len(rules))
    comp = sentence_components(pd.DataFrame({"premise": test["s"], "hypothesis": test["hypothesis"]}))
    by_comp = pd.Series(np.arange(len(test))).groupby(comp).apply(list)
    rule_of_item = test["rule"].to_numpy().astype(int)
    counts = dict.fromkeys(rules, 0)
    reserved: list[int] = []
    for g in rng.permutation(len(by_comp)):
        if all(c >= need for c in counts.values()) or len(reserved) >= len(test) // 2:
            break
        idx = by_comp.iloc[g]
        reserved.extend(idx)
        for r in rule_of_item[idx]:
            counts[int(r)] += 1
    pools = {r: [i for i in rng.permutation(reserved) if rule_of_item[i] == r] for r in rules}
    order: list[int] = []
    while len(order) < n_few and any(pools.values()):
        for r in rules:
            if pools[r] and len(order) < n_few:
                order.append(int(pools[r].pop()))
    keep = np.ones(len(test), dtype=bool)
    keep[reserved] = False
    return test.iloc[order].reset_index(drop=True), test[keep].reset_index(drop=True)


def _split_dev(parts: Sequence[pd.DataFrame], dev_fraction: float, rng: np.random.Generator
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    train, dev = [], []
    for p in parts:
        order = rng.permutation(len(p))
        n_dev = int(round(dev_fraction * len(p)))
        dev.append(p.iloc[order[:n_dev]])
        train.append(p.iloc[order[n_dev:]])
    return pd.concat(train, ignore_index=True), pd.concat(dev, ignore_index=True)


def build(task: int, setting: str, config: str, pool: pd.DataFrame, verbs: Any = None, seed: int = 0, *,
          template: str = TEMPLATE, dev_fraction: float = 0.2, n_few: int = 0, check: bool = True) -> SetiData:
    """Build one task setting of §3.2 in one configuration.

    Args:
        task, setting: One of :data:`SETTINGS`, e.g. ``(2, "non-trivial")``.
        config: ``"cg"`` (Compositional Generalization: the controlled split of §3.2) or ``"id"``
            (In-Distribution: D_train ∪ D_dev ∪ D_test of ``cg`` shuffled and cut to the same sizes).
        pool: Natural inferences as :func:`extract_natural_inferences` returns them.
        verbs: ``None`` for the 30 verbs of Table 6, or see :func:`verb_table`.
        seed: Seeds every sampling step (balancing, sentence splits, dev split, the ``id`` shuffle).
        template: Premise template with ``{verb}`` and ``{s}`` (§3.1).
        dev_fraction: Share of the balanced training data held out as dev (the paper's 20%).
        n_few: Reserve this many few-shot candidates (D_few, §5.2) from the test side (``cg`` only).
        check: Verify the invariants (:func:`check_invariants`).

    Returns:
        A :class:`SetiData`.

    Raises:
        SetiError: unknown names, or a pool that lacks what the setting needs (the message says what).
    """
    check_setting(task, setting, config)
    vt = verb_table(verbs)
    lex = pool[pool["type"] == "lexical"].reset_index(drop=True)
    stru = pool[pool["type"] == "structural"].reset_index(drop=True)
    if lex.empty:
        raise SetiError(f"task {task} {setting} needs lexical natural inferences; the pool has none")
    if (task, setting) in NEEDS_STRUCTURAL and stru.empty:
        raise SetiError(f"task {task} {setting} needs structural (active/passive) natural inferences; "
                        "the pool has none")
    rng = np.random.default_rng(seed)
    parts, test, _ = _cg_parts(task, setting, lex, stru, vt, template, seed)
    sizes = {f"before_balancing/{p['kind'].iloc[0] if len(p) else i}": len(p) for i, p in enumerate(parts)}
    if any(len(p) == 0 for p in parts) or test.empty:
        raise SetiError(f"task {task} {setting}: the pool gives an empty training type or test set "
                        f"(sizes {sizes}, test {len(test)}); it needs more pairs of each label")
    train, dev = _split_dev(_balanced(parts, rng), dev_fraction, rng)
    test = test.reset_index(drop=True)
    few, test = _few_candidates(test, n_few if config == "cg" else 0, rng)
    if test.empty:
        raise SetiError(f"task {task} {setting}: no test item is left after reserving {len(few)} D_few items; "
                        "use a larger pool or fewer shots")
    if config == "id":
        everything = pd.concat([train, dev, test], ignore_index=True)
        order = rng.permutation(len(everything))
        n_test, n_dev = len(test), len(dev)
        test = everything.iloc[order[:n_test]].reset_index(drop=True)
        dev = everything.iloc[order[n_test:n_test + n_dev]].reset_index(drop=True)
        train = everything.iloc[order[n_test + n_dev:]].reset_index(drop=True)
    data = SetiData(task, setting, config, train, dev, test, few, {"seed": seed, **sizes})
    if check:
        check_invariants(data)
    return data


def build_all(pool: pd.DataFrame, verbs: Any = None, seed: int = 0, *, configs: Sequence[str] = CONFIGS,
              settings: Sequence[tuple[int, str]] = SETTINGS, **kwargs: Any
              ) -> tuple[dict[tuple[int, str, str], SetiData], dict[tuple[int, str], str]]:
    """Every setting the pool can build; the others are skipped with the reason.

    Returns:
        ``(datasets, skipped)``: ``{(task, setting, config): SetiData}`` and ``{(task, setting): reason}``.
    """
    datasets, skipped = {}, {}
    for task, setting in settings:
        for config in configs:
            try:
                datasets[(task, setting, config)] = build(task, setting, config, pool, verbs, seed, **kwargs)
            except SetiError as err:
                if "unknown" in str(err):
                    raise
                skipped[(task, setting)] = str(err)
    return datasets, skipped


def check_invariants(data: SetiData) -> None:
    """The invariants of §3.2; raises AssertionError naming the broken one.

    - every CI label follows its Table 3 rule, and the rule follows the verb and the natural label;
    - ``cg``: the test set is compositional only and holds only the rules :data:`TEST_RULES` names; the
      training CI rules are within :data:`TRAIN_RULES`;
    - ``cg``, non-trivial: no sentence of a test item (its natural premise s or its hypothesis) occurs in
      any training or dev item;
    - Task 1 non-trivial ``cg``: every test substitution rule occurs in training;
    - D_few shares no item (and no sentence) with D_test; ``id`` has the sizes of ``cg``'s construction.
    """
    key = (data.task, data.setting)
    for name, frame in (("train", data.train), ("dev", data.dev), ("test", data.test), ("few", data.few)):
        ci = frame[frame["kind"] == "CI"]
        expected = np.array([0, 1, 0, 0, 0])[ci["rule"].to_numpy().astype(int)]
        assert ci["rule"].between(1, 4).all(), f"{data.name} {name}: a CI rule outside 1-4"
        assert (ci["label"].to_numpy().astype(int) == expected).all(), f"{data.name} {name}: a CI label breaks its rule"
        assert set(frame["kind"]) <= set(KINDS), f"{data.name} {name}: unknown kind {set(frame['kind'])}"
        assert set(frame["label"].astype(int)) <= {0, 1}, f"{data.name} {name}: labels must be 0/1"
    few_keys = set(zip(_objects(data.few["premise"]), _objects(data.few["hypothesis"])))
    assert not few_keys & set(zip(_objects(data.test["premise"]), _objects(data.test["hypothesis"]))), \
        f"{data.name}: D_few ∩ D_test ≠ ∅"
    few_sentences = _strings(data.few["s"], data.few["hypothesis"])
    assert not few_sentences & _strings(data.test["s"], data.test["hypothesis"]), \
        f"{data.name}: D_few shares a sentence with D_test"
    if data.config != "cg":
        return
    assert set(data.test["kind"]) == {"CI"}, f"{data.name}: the CG test set must be compositional only"
    assert set(data.test["rule"].astype(int)) <= TEST_RULES[key], \
        f"{data.name}: test rules {sorted(set(data.test['rule']))} outside {sorted(TEST_RULES[key])}"
    assert set(data.few["rule"].astype(int)) <= TEST_RULES[key], f"{data.name}: D_few rules outside the test's"
    trained = pd.concat([data.train, data.dev])
    train_rules = set(trained.loc[trained["kind"] == "CI", "rule"].astype(int))
    assert train_rules <= TRAIN_RULES[key], f"{data.name}: training rules {sorted(train_rules)} outside " \
                                            f"{sorted(TRAIN_RULES[key])}"
    if "non-trivial" in data.setting:
        seen = _strings(trained["s"], trained["hypothesis"])
        clash = _strings(data.test["s"], data.test["hypothesis"]) & seen
        assert not clash, f"{data.name}: {len(clash)} test sentences occur in training, e.g. {sorted(clash)[:2]}"
    if key == (1, "non-trivial"):
        known = _strings(trained.loc[trained["kind"] == "PI_lex", "nat_rule"])
        assert _strings(data.test["nat_rule"]) <= known, f"{data.name}: a test substitution rule is unseen in training"


# --- Table 5 --------------------------------------------------------------------------------------


def table5(datasets: Mapping[tuple[int, str, str], SetiData]) -> pd.DataFrame:
    """Counts per task, setting, inference type and split for both configurations, beside the paper's.

    Types follow the paper: PI_lex and PI_stru are reported as PI_nat; train and dev count per type, test
    in total (as Table 5 does).
    """
    rows: dict[tuple[int, str, str], dict[str, Any]] = {}
    for (task, setting, config), d in datasets.items():
        cg = datasets.get((task, setting, "cg"), d)
        types = pd.concat([cg.train, cg.dev])["kind"].replace({"PI_lex": "PI_nat", "PI_stru": "PI_nat"})
        for i, t in enumerate(dict.fromkeys(types)):
            row = rows.setdefault((task, setting, t), {})
            for split in ("train", "dev"):
                frame = getattr(d, split)
                kinds = frame["kind"].replace({"PI_lex": "PI_nat", "PI_stru": "PI_nat"})
                row[f"{config}_{split}"] = int((kinds == t).sum()) if config == "cg" else (
                    len(frame) if i == 0 else None)
            row[f"{config}_test"] = len(d.test) if i == 0 else None
    ours = pd.DataFrame([{"task": k[0], "setting": k[1], "type": k[2], **v} for k, v in rows.items()])
    paper = PAPER_TABLE5.rename(columns={c: f"paper_{c}" for c in PAPER_TABLE5.columns[3:]})
    out = ours.merge(paper, on=["task", "setting", "type"], how="left")
    return out.set_index(["task", "setting", "type"])


# --- models: encode once, train heads, score ------------------------------------------------------


def pairs_frame(items: pd.DataFrame) -> pd.DataFrame:
    """Items as the classifier factory's training data: ``text`` (premise), ``text_pair`` (hypothesis) and
    ``label`` (``"entailment"`` or ``"non-entailment"``)."""
    return pd.DataFrame({"text": _objects(items["premise"]), "text_pair": _objects(items["hypothesis"]),
                         "label": np.where(items["label"].to_numpy().astype(int) == 1, "entailment",
                                           "non-entailment")})


def head_predictions(encoder: Any, train: pd.DataFrame, test: pd.DataFrame, *, seed: int = 0, head: str = "linear",
                     dev: pd.DataFrame | None = None, **kwargs: Any) -> dict[str, Any]:
    """A head on frozen pair features ``[u, v, |u-v|, u*v]`` of ``train`` (the classifier factory,
    ``how="head"``), scored on ``test``.

    The encoder's embeddings are cached per sentence, so once :func:`universe` has been encoded no fit or
    prediction sends a sentence through the model again.

    Returns:
        ``pred`` (0/1 per test row), ``prob`` (entailment probability), ``dev_accuracy``.
    """
    from mtlib import models

    if train["label"].nunique() < 2:  # one class only (possible in a tiny subsample): predict it
        prob = np.full(len(test), float(train["label"].iloc[0]))
        return {"pred": prob.astype(int), "prob": prob, "dev_accuracy": float("nan")}
    # many small fits: one BLAS thread each is faster than two contending ones (10x on a loaded 2-core CPU)
    with limit_threads(1, torch_too=False):
        clf = models.classifier(encoder, pairs_frame(train), how="head", head=head, seed=seed,
                                valid=pairs_frame(dev) if dev is not None and len(dev) else None, **kwargs)
        prob = clf.score(list(_objects(test["premise"])), "entailment", text_pairs=list(_objects(test["hypothesis"])))
    prob = np.asarray(prob, dtype=float)
    return {"pred": (prob > 0.5).astype(int), "prob": prob, "dev_accuracy": clf.training.heldout_accuracy}


def accuracy_by_rule(test: pd.DataFrame, pred: np.ndarray) -> pd.DataFrame:
    """Accuracy per Table 3 rule (CI) and per primitive kind, with counts and the majority baseline."""
    frame = test.assign(correct=(np.asarray(pred).astype(int) == test["label"].to_numpy().astype(int)))
    frame = frame.assign(group=np.where(frame["kind"] == "CI", frame["rule"].map(
        lambda r: f"{RULE_SYMBOLS.get(int(r), r)} rule {int(r)}"), frame["kind"]))
    out = frame.groupby("group").agg(accuracy=("correct", "mean"), n=("correct", "size"),
                                     label=("label", "mean"))
    return out


def majority_baseline(train: pd.DataFrame, test: pd.DataFrame) -> float:
    """Accuracy on ``test`` of the majority-class baseline: always predicting the test set's majority label.

    This is the best any constant predictor can do on the test set (the training majority is often a tie,
    since training types are balanced); ``train`` is accepted for symmetry and unused.
    """
    if test.empty:
        return float("nan")
    p = float(test["label"].astype(int).mean())
    return max(p, 1.0 - p)


def with_shots(data: SetiData, shots: int) -> pd.DataFrame:
    """Training data plus the first ``shots`` D_few items (the paper's most plausible reading of §5.2)."""
    if shots > len(data.few):
        raise SetiError(f"{data.name}: {shots} shots asked, {len(data.few)} D_few candidates reserved")
    return pd.concat([data.train, data.few.iloc[:shots]], ignore_index=True)


# --- the paper's qualitative findings as named tests ----------------------------------------------


def findings(acc: pd.DataFrame, fewshot: pd.DataFrame | None = None, *, near_chance: float = 0.15,
             high: float = 0.9) -> pd.DataFrame:
    """§5's findings tested on this run's numbers.

    Args:
        acc: One row per model, task, setting, config and seed with ``accuracy``.
        fewshot: One row per model, task, setting, shots and seed with ``accuracy`` (optional).
        near_chance: Task 2 non-trivial counts as "near 50%" within this distance.
        high: Task 3 −R_ver counts as "high" at or above this accuracy.

    Returns:
        One row per finding and model: ``finding``, ``model``, ``value`` (the number tested), ``holds``,
        ``detail``.
    """
    from scipy import stats as sstats

    rows = []
    mean = acc.groupby(["model", "task", "setting", "config"])["accuracy"].mean()
    for model in acc["model"].unique():
        for task, setting in [s for s in SETTINGS if "non-trivial" in s[1]]:
            try:
                cg, iid = mean[(model, task, setting, "cg")], mean[(model, task, setting, "id")]
            except KeyError:
                continue
            a = acc[(acc["model"] == model) & (acc["task"] == task) & (acc["setting"] == setting)]
            x = a[a["config"] == "id"].sort_values("seed")["accuracy"].to_numpy()
            y = a[a["config"] == "cg"].sort_values("seed")["accuracy"].to_numpy()
            p = float(sstats.ttest_rel(x, y).pvalue) if len(x) == len(y) and len(x) > 1 and np.ptp(x - y) > 0 \
                else float("nan")
            rows.append({"finding": f"ID > CG, task {task} {setting}", "model": model, "value": iid - cg,
                         "holds": bool(iid > cg),
                         "detail": f"ID {iid:.3f} vs CG {cg:.3f} (paired t-test over seeds p={p:.3g})"})
        if (model, 2, "non-trivial", "cg") in mean:
            v = mean[(model, 2, "non-trivial", "cg")]
            rows.append({"finding": "task 2 non-trivial CG near 50%", "model": model, "value": v,
                         "holds": bool(abs(v - 0.5) <= near_chance),
                         "detail": f"accuracy {v:.3f}; |acc - 0.5| <= {near_chance}? (the test set is all "
                                   "non-entailment, so 50% means half predicted entailment)"})
        if (model, 3, "non-trivial-R_ver", "cg") in mean:
            v = mean[(model, 3, "non-trivial-R_ver", "cg")]
            rows.append({"finding": "task 3 -R_ver CG high (verb shortcut)", "model": model, "value": v,
                         "holds": bool(v >= high), "detail": f"accuracy {v:.3f} >= {high}?"})
    if fewshot is not None and len(fewshot):
        fs = fewshot.groupby(["model", "task", "setting", "shots"])["accuracy"].mean()
        for (model, task, setting), part in fs.groupby(level=[0, 1, 2]):
            curve = part.droplevel([0, 1, 2])
            k = MISSING_RULES.get((task, setting))
            if k is None or 0 not in curve.index or k not in curve.index:
                continue
            gain = curve[k] - curve[0]
            rows.append({"finding": f"few-shot: task {task} {setting} gains by {k} shots", "model": model,
                         "value": gain, "holds": bool(gain > 0.05),
                         "detail": f"{curve[0]:.3f} at 0 shots -> {curve[k]:.3f} at {k} (missing rule types: {k}); "
                                   f"max {curve.max():.3f} at {int(curve.idxmax())}"})
    return pd.DataFrame(rows, columns=["finding", "model", "value", "holds", "detail"])


# --- experiment loops used by notebook 07 ---------------------------------------------------------


def natural_sentences(pool: pd.DataFrame) -> list[str]:
    """Every sentence of the pool (premises and hypotheses), in first-seen order."""
    return list(dict.fromkeys(_objects(pd.concat([pool["premise"], pool["hypothesis"]])).tolist()))


def universe(pool: pd.DataFrame, verbs: Any = None, template: str = TEMPLATE) -> list[str]:
    """Every sentence any setting can use: the natural sentences and f(s) for each premise s and verb.

    Encoding this list once serves every setting, configuration, seed and shot budget.
    """
    vt = verb_table(verbs)
    premises = list(dict.fromkeys(_objects(pool["premise"]).tolist()))
    grid = pd.DataFrame({"s": premises}).merge(vt, how="cross")
    return natural_sentences(pool) + veridical_premises(grid["form"], grid["s"], template)


def build_seeds(pool: pd.DataFrame, seeds: Sequence[int], verbs: Any = None, *,
                settings: Sequence[tuple[int, str]] = SETTINGS, configs: Sequence[str] = CONFIGS,
                **kwargs: Any) -> tuple[dict[tuple[int, str, str, int], SetiData], dict[tuple[int, str], str]]:
    """:func:`build_all` once per seed: seed k draws the balancing, the splits and (later) the model's seed.

    Returns:
        ``({(task, setting, config, seed): SetiData}, {(task, setting): reason skipped})``.
    """
    out, skipped = {}, {}
    for seed in seeds:
        built, skip = build_all(pool, verbs, seed, configs=configs, settings=settings, **kwargs)
        out.update({(*key, seed): data for key, data in built.items()})
        skipped.update(skip)
    return out, skipped


def _score_rows(model: str, key: tuple[int, str, str, int], data: SetiData, pred: np.ndarray, extra: dict[str, Any],
                test: pd.DataFrame | None = None) -> tuple[dict[str, Any], pd.DataFrame]:
    task, setting, config, seed = key
    test = data.test if test is None else test
    correct = np.asarray(pred).astype(int) == test["label"].to_numpy().astype(int)
    row = {"model": model, "task": task, "setting": setting, "config": config, "seed": seed,
           "accuracy": float(correct.mean()), "baseline": majority_baseline(data.train, test), "n_test": len(test),
           "n_train": len(data.train), **extra}
    by_rule = accuracy_by_rule(test, pred).reset_index().assign(model=model, task=task, setting=setting,
                                                                config=config, seed=seed)
    return row, by_rule


def evaluate_heads(encoder: Any, model: str, datasets: Mapping[tuple[int, str, str, int], SetiData], *,
                   head: str = "linear", max_train: int = 0, **kwargs: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A head on frozen pair features for every dataset (seeded by the dataset's seed).

    ``max_train`` > 0 trains on at most that many training items (spread evenly over kinds and rules).

    Returns:
        ``(scores, by_rule)``: one row per dataset (``accuracy``, majority ``baseline``, ``dev_accuracy``,
        sizes) and one row per dataset and rule (accuracy per Table 3 rule / primitive kind).
    """
    rows, rules = [], []
    for key, data in datasets.items():
        train = _stratified(data.train, max_train, key[3], ["kind", "rule"])
        out = head_predictions(encoder, train, data.test, dev=data.dev, seed=key[3], head=head, **kwargs)
        row, by_rule = _score_rows(model, key, data, out["pred"], {"how": f"head-{head}", "n_train": len(train),
                                                                   "dev_accuracy": out["dev_accuracy"]})
        rows.append(row)
        rules.append(by_rule)
    return pd.DataFrame(rows), pd.concat(rules, ignore_index=True)


FEWSHOT_HOWS = ("head", "finetune")
FEWSHOT_MODES = ("add", "continue")


def check_fewshot(how: str = "head", mode: str = "add", epochs: int = 3, head: str = "linear") -> None:
    """Fail early, with the valid choices, on few-shot settings :func:`evaluate_fewshot` cannot run.

    Raises:
        SetiError: an unknown ``how`` or ``mode``, ``epochs`` not a positive integer, or ``mode="continue"``
            with a logistic-regression head (it refits from scratch; continuing needs ``head="mlp"`` or
            ``how="finetune"``).
    """
    if how not in FEWSHOT_HOWS:
        raise SetiError(f"fewshot_how={how!r} is not one of {FEWSHOT_HOWS} (head: frozen encoder and a trained "
                        "head; finetune: the model fine-tuned as a cross-encoder)")
    if mode not in FEWSHOT_MODES:
        raise SetiError(f"fewshot_mode={mode!r} is not one of {FEWSHOT_MODES} (add: D_few joins the training "
                        "data; continue: train on D_train, then fewshot_epochs more epochs on D_few)")
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise SetiError(f"fewshot_epochs must be a positive integer, got {epochs!r}")
    if mode == "continue" and how == "head" and head != "mlp":
        raise SetiError(f"fewshot_mode='continue' cannot continue a {head!r} head: a logistic-regression head "
                        "refits from scratch and forgets D_train. Use head='mlp' or fewshot_how='finetune'")


def pair_classifier(model: Any, train: pd.DataFrame, *, how: str = "head", head: str = "linear", seed: int = 0,
                    init: Any = None, **kwargs: Any) -> Any:
    """The classifier factory on (premise, hypothesis) pairs of ``train``: a head on frozen pair features
    (``how="head"``) or a cross-encoder (``how="finetune"``), nothing held out; ``init`` continues training
    that classifier on ``train`` (which may then hold one class only)."""
    from mtlib import models

    kwargs.setdefault("heldout_fraction", 0.0)
    with limit_threads(1 if how == "head" else None, torch_too=False):
        return models.classifier(model, pairs_frame(train), how=how, head=head, seed=seed, init=init, **kwargs)


def pair_predictions(clf: Any, test: pd.DataFrame) -> np.ndarray:
    """0/1 predictions (entailment probability above 0.5) of a pair classifier on ``test``."""
    prob = clf.score(list(_objects(test["premise"])), "entailment", text_pairs=list(_objects(test["hypothesis"])))
    return (np.asarray(prob, dtype=float) > 0.5).astype(int)


def evaluate_fewshot(encoder: Any, model: str, datasets: Mapping[tuple[int, str, str, int], SetiData],
                     shots: Sequence[int], *, how: str = "head", mode: str = "add", fewshot_epochs: int = 3,
                     head: str = "linear", max_train: int = 0, **kwargs: Any) -> pd.DataFrame:
    """Accuracy against the number of D_few shots (§5.2), per dataset and seed.

    Args:
        encoder: A loaded model or a model name (frozen encoder for ``how="head"``, fine-tuned for
            ``how="finetune"``).
        model: The rows' model label; fine-tuned runs get ``-ft`` appended (as in Figure 1).
        how: ``"head"`` (a head on frozen pair features) or ``"finetune"`` (a cross-encoder, the paper's method).
        mode: ``"add"``: the first k D_few items join the training data (the paper's most plausible reading);
            ``"continue"``: train on D_train, then ``fewshot_epochs`` more epochs on the k items alone, starting
            from the trained weights (0 shots is the D_train model itself).
        head: Head on frozen features (``"mlp"`` for ``mode="continue"``).
        max_train: Train on at most this many D_train items (spread over kinds and rules; 0 keeps all).
        kwargs: Further settings of the factory (e.g. ``epochs``, ``lr``, ``device`` when fine-tuning).

    The test set is the same for every shot budget (D_few was taken out of it when the data was built).
    """
    check_fewshot(how, mode, fewshot_epochs, head)
    rows = []
    for key, data in datasets.items():
        base = SetiData(*key[:3], _stratified(data.train, max_train, key[3], ["kind", "rule"]), data.dev, data.test,
                        data.few)
        if mode == "add" and how == "head":  # unchanged path of the frozen-head curves
            preds = {k: head_predictions(encoder, with_shots(base, k), data.test, dev=data.dev, seed=key[3], head=head,
                                         **kwargs)["pred"] for k in shots}
        elif mode == "add":
            preds = {k: pair_predictions(pair_classifier(encoder, with_shots(base, k), how=how, seed=key[3], **kwargs),
                                         data.test) for k in shots}
        else:
            first = pair_classifier(encoder, base.train, how=how, head=head, seed=key[3], **kwargs)
            more = {**kwargs, "epochs": fewshot_epochs}
            preds = {k: pair_predictions(first if k == 0 else pair_classifier(
                encoder, with_shots(base, k).iloc[len(base.train):], how=how, head=head, seed=key[3], init=first,
                **more), data.test) for k in shots}
        for k, pred in preds.items():
            rows.append({"model": model + ("-ft" if how == "finetune" else ""), "task": key[0], "setting": key[1],
                         "seed": key[3], "shots": int(k), "how": how, "mode": mode,
                         "accuracy": float((pred == data.test["label"].to_numpy()).mean()),
                         "baseline": majority_baseline(data.train, data.test)})
    return pd.DataFrame(rows)


def _stratified(frame: pd.DataFrame, n: int, seed: int, by: str | list[str]) -> pd.DataFrame:
    """At most ``n`` rows, spread evenly over the values of ``by``."""
    if n <= 0 or len(frame) <= n:
        return frame
    rng = np.random.default_rng(seed)
    order = frame.iloc[rng.permutation(len(frame))]
    rank = order.groupby(by).cumcount()
    return order.iloc[np.argsort(rank.to_numpy(), kind="stable")[:n]].sort_index()


def finetune_predictions(model: str, train: pd.DataFrame, test: pd.DataFrame, *, seed: int = 0,
                         dev: pd.DataFrame | None = None, epochs: int = 2, lr: float = 5e-5, batch_size: int = 16,
                         max_length: int = 128, device: str = "auto") -> np.ndarray:
    """Fine-tune ``model`` as a cross-encoder on (premise, hypothesis) pairs and predict ``test`` (0/1).

    Goes through the classifier factory (``mtlib.models.classifier(..., how="finetune")``, Adam, batch 16,
    at most 128 tokens in the paper profile).
    """
    from mtlib import models

    clf = models.classifier(model, pairs_frame(train), how="finetune",
                            valid=pairs_frame(dev) if dev is not None else None, heldout_fraction=0.0, seed=seed, epochs=epochs, lr=lr, batch_size=batch_size, max_length=max_length,
                            device=device)
    prob = clf.score(list(_objects(test["premise"])), "entailment", text_pairs=list(_objects(test["hypothesis"])))
    return (np.asarray(prob) > 0.5).astype(int)


def evaluate_finetune(model: str, datasets: Mapping[tuple[int, str, str, int], SetiData], *,
                      settings: Sequence[tuple[int, str]], seeds: Sequence[int], train_size: int = 256,
                      test_size: int = 512, **kwargs: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fine-tune on a subsample of each chosen setting's training data (balanced by kind) and test on a
    subsample of its test set (balanced by rule); ``kwargs`` go to :func:`finetune_predictions`."""
    rows, rules = [], []
    for key, data in datasets.items():
        if (key[0], key[1]) not in set(settings) or key[3] not in set(seeds):
            continue
        train = _stratified(data.train, train_size, key[3], ["kind", "rule"])
        test = _stratified(data.test, test_size, key[3], "rule")
        pred = finetune_predictions(model, train, test, seed=key[3], **kwargs)
        row, by_rule = _score_rows(model, key, data, pred, {"how": "finetune", "n_train": len(train)}, test)
        rows.append(row)
        rules.append(by_rule)
    if not rows:
        return pd.DataFrame(), pd.DataFrame()
    return pd.DataFrame(rows), pd.concat(rules, ignore_index=True)


# --- reports: what notebook 07 records, in the one key scheme -------------------------------------


def _empty(columns: Sequence[str] = ()) -> pd.DataFrame:
    return pd.DataFrame(columns=list(columns))


@dataclass
class PoolReport:
    """The natural inferences found in a SICK-format file (:func:`natural_pool`).

    Attributes:
        sick: The loaded file.
        found: Every natural inference :func:`extract_natural_inferences` finds (both directions).
        pool: The subsample a run uses (:func:`subsample_pool`).
    """

    sick: pd.DataFrame
    found: pd.DataFrame
    pool: pd.DataFrame

    @property
    def counts(self) -> pd.Series:
        """Lexical and structural inferences found (A→B), as the paper counts them."""
        return self.found[self.found["direction"] == "AB"]["type"].value_counts()

    @property
    def headline(self) -> list[str]:
        return list(self.metrics())

    def metrics(self) -> dict[str, Any]:
        """``pool/lexical``, ``pool/structural`` (A→B pairs found), ``pool/sick_pairs``, ``pool/used_inferences``."""
        c = self.counts
        return {"pool/lexical": int(c.get("lexical", 0)), "pool/structural": int(c.get("structural", 0)),
                "pool/sick_pairs": len(self.sick), "pool/used_inferences": len(self.pool)}

    def summary(self) -> str:
        m = self.metrics()
        return (f"{m['pool/sick_pairs']:,} SICK pairs: {m['pool/lexical']:,} lexical and {m['pool/structural']:,} "
                f"structural (A→B); this run uses {m['pool/used_inferences']:,} directed inferences")

    def table(self) -> pd.DataFrame:
        """Used inferences per type and label."""
        return self.pool.groupby(["type", "label"]).size().unstack().rename(
            columns={0: "non-entailment", 1: "entailment"})


def natural_pool(sick_path: str = "", n_lexical: int = 0, n_structural: int = 0, seed: int = 0) -> PoolReport:
    """Load a SICK-format file (empty: the bundled pool), find its natural inferences, subsample them."""
    from mtlib.data import sick as sick_data

    frame = sick_data.load_sick(sick_path or sick_data.BUNDLED_SICK)
    found = extract_natural_inferences(frame)
    return PoolReport(frame, found, subsample_pool(found, n_lexical, n_structural, seed=seed))


@dataclass
class SetiReport:
    """Scores of one model (or of several, after :func:`concat`) on the SETI settings.

    Metric keys (no model prefix; one model's frames): ``accuracy/task<k>/<setting>/<config>`` (mean over
    seeds) and ``.../seed<s>``, ``baseline/task<k>/<setting>/<config>`` (majority class),
    ``fewshot/task<k>/<shots>`` (mean over seeds), ``finding/<finding>`` (a named test's outcome).

    Attributes:
        model: The model's label (``minilm``; ``minilm-ft`` for a fine-tuned cross-encoder).
        scores: One row per setting, configuration and seed (``accuracy``, ``baseline``, sizes).
        by_rule: Accuracy per composition rule / primitive kind, per run.
        fewshot: One row per few-shot setting, shots and seed.
        findings: :func:`findings` rows.
        note: One line on how the run went (e.g. model calls).
    """

    model: str
    scores: pd.DataFrame = field(default_factory=_empty)
    by_rule: pd.DataFrame = field(default_factory=_empty)
    fewshot: pd.DataFrame = field(default_factory=_empty)
    findings: pd.DataFrame = field(default_factory=_empty)
    note: str = ""

    @property
    def headline(self) -> list[str]:
        return ["accuracy/task2/non-trivial/cg", "accuracy/task2/non-trivial/id"]

    def metrics(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if len(self.scores):
            for (task, setting, config), part in self.scores.groupby(["task", "setting", "config"], sort=False):
                key = f"task{task}/{setting}/{config}"
                out[f"accuracy/{key}"] = float(part["accuracy"].mean())
                out[f"baseline/{key}"] = float(part["baseline"].mean())
                out.update({f"accuracy/{key}/seed{int(s)}": float(a) for s, a in zip(part["seed"], part["accuracy"])})
        if len(self.fewshot):
            for (task, shots), part in self.fewshot.groupby(["task", "shots"]):
                out[f"fewshot/task{task}/{int(shots)}"] = float(part["accuracy"].mean())
        out.update({f"finding/{r.finding}": bool(r.holds) for r in self.findings.itertuples()})
        return out

    def summary_table(self) -> pd.DataFrame:
        """Mean accuracy and majority baseline per model, task and setting (rows), configuration (columns)."""
        keys = ["model", "task", "setting", "config"]
        return self.scores.groupby(keys, sort=False)[["accuracy", "baseline"]].mean().unstack("config").round(3)

    def task2_sentence(self) -> str:
        """Task 2 non-trivial, CG against ID, beside the majority baselines (empty if not run)."""
        m, key = self.metrics(), "task2/non-trivial"
        if f"accuracy/{key}/cg" not in m or f"accuracy/{key}/id" not in m:
            return f"Task 2 non-trivial was not run for {self.model}."
        return (f"Task 2 non-trivial, {self.model}: CG {m[f'accuracy/{key}/cg']:.3f} vs ID {m[f'accuracy/{key}/id']:.3f} "
                f"(majority baselines {m[f'baseline/{key}/cg']:.3f} and {m[f'baseline/{key}/id']:.3f})")


def concat(reports: Iterable[SetiReport], model: str = "all") -> SetiReport:
    """Several models' reports as one (frames stacked; for cross-model tables and figures)."""
    reports = list(reports)

    def stack(name: str) -> pd.DataFrame:
        frames = [getattr(r, name) for r in reports if len(getattr(r, name))]
        return pd.concat(frames, ignore_index=True) if frames else _empty()

    return SetiReport(model, stack("scores"), stack("by_rule"), stack("fewshot"), stack("findings"))


def test_findings(report: SetiReport, **kwargs: Any) -> SetiReport:
    """§5's findings (:func:`findings`) tested on a several-model report's scores and few-shot curves."""
    return SetiReport(report.model, findings=findings(report.scores, report.fewshot if len(report.fewshot) else None,
                                                      **kwargs))


def by_model(report: SetiReport) -> dict[str, SetiReport]:
    """Split a several-model report (e.g. with :func:`findings` rows) into one report per model."""
    frames = ("scores", "by_rule", "fewshot", "findings")
    names = dict.fromkeys(m for f in frames for m in getattr(report, f).get("model", pd.Series(dtype=object)))
    return {m: SetiReport(m, *(getattr(report, f)[getattr(report, f)["model"] == m] if len(getattr(report, f))
                               else _empty() for f in frames)) for m in names}


def head_report(model: str, datasets: Mapping[tuple[int, str, str, int], SetiData], pool: pd.DataFrame, *,
                template: str = TEMPLATE, verbs: Any = None, head: str = "linear", max_train: int = 0,
                device: str = "auto") -> SetiReport:
    """A frozen encoder with a head on pair features, on every dataset (:func:`evaluate_heads`).

    Every sentence any dataset can use (:func:`universe`) is encoded once first; :attr:`SetiReport.note`
    says how many model calls that and the runs took (0 when cached).
    """
    import mtlib

    encoder = mtlib.models.load(model, device=device)
    sentences = universe(pool, verbs, template)
    before = encoder.calls
    encoder.embed(sentences)
    calls = encoder.calls
    scores, rules = evaluate_heads(encoder, model, datasets, head=head, max_train=max_train)
    note = (f"{model}: {len(sentences):,} sentences encoded in {calls - before} model calls (0 when cached); "
            f"{len(scores)} runs added {encoder.calls - calls} model calls")
    return SetiReport(model, scores, rules, note=note)


def parse_settings(names: Sequence[str]) -> list[tuple[int, str]]:
    """``["1/trivial", "2/non-trivial"]`` as ``[(1, "trivial"), (2, "non-trivial")]``; ``["all"]``: every setting.

    Raises:
        SetiError: a name that is not ``<task>/<setting>`` of :data:`SETTINGS`.
    """
    if list(names) == ["all"]:
        return list(SETTINGS)
    out = []
    for name in names:
        task, _, setting = str(name).partition("/")
        if not task.isdigit() or (int(task), setting) not in SETTINGS:
            raise SetiError(f"setting {name!r}: expected 'all' or <task>/<setting> among "
                            f"{[f'{t}/{s}' for t, s in SETTINGS]}")
        out.append((int(task), setting))
    return out


def finetune_report(model: str, datasets: Mapping[tuple[int, str, str, int], SetiData], *,
                    settings: Sequence[str], seeds: Sequence[int], **kwargs: Any) -> SetiReport:
    """``model`` fine-tuned as a cross-encoder on the named settings (:func:`evaluate_finetune`), labelled
    ``<model>-ft``; ``settings`` as :func:`parse_settings` reads them, ``kwargs`` as for
    :func:`evaluate_finetune`."""
    name = f"{model}-ft"
    scores, rules = evaluate_finetune(model, datasets, settings=parse_settings(settings), seeds=seeds, **kwargs)
    if not len(scores):
        return SetiReport(name)
    return SetiReport(name, scores.assign(model=name), rules.assign(model=name))


def fewshot_report(model: str, datasets: Mapping[tuple[int, str, str, int], SetiData], shots: Sequence[int], *,
                   how: str = "head", mode: str = "add", fewshot_epochs: int = 3, head: str = "linear",
                   max_train: int = 0, finetune_train_size: int = 0, epochs: int = 2, lr: float = 5e-5,
                   device: str = "auto") -> SetiReport:
    """The few-shot curves of §5.2 (:func:`evaluate_fewshot`) for one model.

    ``how="head"``: the frozen encoder with a head trained on at most ``max_train`` items; ``"finetune"``:
    the cross-encoder fine-tuned on at most ``finetune_train_size`` items for ``epochs`` epochs at ``lr``
    (batch 16), labelled ``<model>-ft``.
    """
    import mtlib

    check_fewshot(how, mode, fewshot_epochs, head)
    encoder = mtlib.models.load(model, device=device)
    kwargs: dict[str, Any] = dict(head=head, max_train=max_train) if how == "head" else dict(
        max_train=finetune_train_size, epochs=epochs, lr=lr, batch_size=16, device=device)
    frame = evaluate_fewshot(encoder, model, datasets, shots, how=how, mode=mode, fewshot_epochs=fewshot_epochs,
                             **kwargs)
    return SetiReport(model + ("-ft" if how == "finetune" else ""), fewshot=frame)


def figure1(scores: pd.DataFrame):
    """Figure 1: per setting, accuracy of every model in both configurations, one symbol per seed.

    The dotted line is the majority-class baseline (mean over seeds) of each configuration.
    """
    import matplotlib.pyplot as plt

    settings = [s for s in SETTINGS if ((scores["task"] == s[0]) & (scores["setting"] == s[1])).any()]
    models = list(dict.fromkeys(scores["model"]))
    fig, axes = plt.subplots(1, len(settings), figsize=(2.3 * len(settings) + 1, 3.6), sharey=True, squeeze=False)
    markers, colors = {"cg": "o", "id": "s"}, {"cg": "#C44E52", "id": "#4C72B0"}
    for ax, (task, setting) in zip(axes[0], settings):
        part = scores[(scores["task"] == task) & (scores["setting"] == setting)]
        for config, shift in (("cg", -0.15), ("id", 0.15)):
            sub = part[part["config"] == config]
            x = np.array([models.index(m) for m in sub["model"]], dtype=float) + shift
            jitter = (sub["seed"].rank(method="first").to_numpy() - 1) * 0.03 if len(sub) else 0
            ax.scatter(x + jitter, sub["accuracy"], marker=markers[config], color=colors[config], s=22, alpha=0.8,
                       label={"cg": "Compositional Generalization", "id": "In-Distribution"}[config])
            for m, base in sub.groupby("model")["baseline"].mean().items():
                i = models.index(m) + shift
                ax.hlines(base, i - 0.12, i + 0.12, colors=colors[config], linestyles=":", lw=1.2)
        ax.set_xticks(range(len(models)), models, rotation=40, ha="right", fontsize=8)
        ax.set_xlim(-0.6, len(models) - 0.4)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"Task {task}\n{setting}", fontsize=9)
    axes[0][0].set_ylabel("test accuracy (dotted: majority baseline)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles[:2], labels[:2], loc="lower center", ncol=2, bbox_to_anchor=(0.5, -0.08), fontsize=8)
    fig.tight_layout()
    return fig


def figure2(fewshot: pd.DataFrame):
    """Figure 2: few-shot accuracy against the number of shots (log scale; 0 drawn at the left edge),
    one line per model, mean over seeds with the min-max band."""
    import matplotlib.pyplot as plt

    settings = [s for s in FEWSHOT_SETTINGS + ((3, "non-trivial-R_ver"),)
                if ((fewshot["task"] == s[0]) & (fewshot["setting"] == s[1])).any()]
    fig, axes = plt.subplots(1, len(settings), figsize=(3.6 * len(settings), 3.4), sharey=True, squeeze=False)
    for ax, (task, setting) in zip(axes[0], settings):
        part = fewshot[(fewshot["task"] == task) & (fewshot["setting"] == setting)]
        for model, sub in part.groupby("model", sort=False):
            agg = sub.groupby("shots")["accuracy"].agg(["mean", "min", "max"])
            x = np.maximum(agg.index.to_numpy(dtype=float), 0.5)  # 0 shots drawn at 0.5 on the log axis
            ax.plot(x, agg["mean"], marker="o", ms=3, label=model)
            ax.fill_between(x, agg["min"], agg["max"], alpha=0.2)
        ax.axhline(part["baseline"].mean(), color="0.4", ls=":", lw=1, label="majority baseline")
        k = MISSING_RULES.get((task, setting))
        if k:
            ax.axvline(k, color="0.6", ls="--", lw=0.8)
        ax.set_xscale("log", base=2)
        ticks = sorted(set(np.maximum(part["shots"].unique().astype(float), 0.5)))
        ax.set_xticks(ticks, ["0" if t == 0.5 else str(int(t)) for t in ticks], fontsize=7)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("shots in D_few (log scale)")
        ax.set_title(f"Task {task} {setting}" + (f"\n(dashed: {k} missing rule types)" if k else ""), fontsize=9)
    axes[0][0].set_ylabel("test accuracy")
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def rule_table(by_rule: pd.DataFrame, config: str = "cg") -> pd.DataFrame:
    """Accuracy per rule (columns) and model/setting (rows), mean over seeds, for one configuration."""
    part = by_rule[by_rule["config"] == config]
    part = part.assign(row=part["model"] + " · task " + part["task"].astype(str) + " " + part["setting"])
    table = part.pivot_table(index="row", columns="group", values="accuracy", aggfunc="mean", sort=False)
    return table[[c for c in table.columns if c.startswith(tuple(RULE_SYMBOLS.values()))]
                 + [c for c in table.columns if c in KINDS]]


def job_list(models: Sequence[str], seeds: Sequence[int] = (0, 1, 2, 3, 4), *, notebook: str = "07") -> pd.DataFrame:
    """The paper profile as independent jobs: one per model and seed, each running the 7 settings x 2
    configurations and its few-shot curves, as ``mtlib.run`` parameter overrides (``-p 07.finetune_models=[...]``,
    ``07.fewshot_models=[...]``); a distributed
    executor can spread the rows over workers and a final run gathers the cached results.

    Returns:
        One row per job: ``model``, ``seed``, ``runs`` (settings x configurations it covers) and ``overrides``.
    """
    rows = [{"model": m, "seed": s, "runs": len(SETTINGS) * len(CONFIGS),
             "overrides": [f"{notebook}.finetune_models=[{m}]", f"{notebook}.finetune_seeds=[{s}]",
                           f"{notebook}.seeds=[{s}]", f"{notebook}.fewshot_models=[{m}]"]}
            for m in models for s in seeds]
    return pd.DataFrame(rows, columns=["model", "seed", "runs", "overrides"])
