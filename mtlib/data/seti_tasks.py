"""SETI's task settings (Fu & Frank 2023, §3.2) built from a pool of natural inferences: a dataset builder.

Intuition: a compositional inference ``f(s) -> s'`` chains a veridical one ``f(s) -> s`` ("Someone realizes
that s") with a natural one ``s -> s'``; Table 3's Boolean rules give its label. Each setup is a recipe over
the pool (``premise``, ``hypothesis``, ``label`` 1/0, ``type`` lexical/structural, ``rule`` e.g. ``boy→kid``,
``pair_ID``) and the verbs: which items train and which compositions test, checked against §3.2.
"""

from __future__ import annotations

import string
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data.errors import DataArgumentError, check_count
from mtlib.utils.faces import renamed_attribute, renamed_keywords

__all__ = ["entailment_predictions", "pair_frame", "rule_groups", "verb_shortcut_right"]

#: §3.1: the premise template of veridical and compositional inferences.
TEMPLATE = "Someone {verb} that {s}"
#: §3.2, per task setup: the composition rules its (CG) test set holds (equations 2, 4, 5, 7, 8, 9), and
#: those its training set holds.
TEST_AND_TRAIN_RULES: dict[tuple[int, str], tuple[frozenset[int], frozenset[int]]] = {
    (1, "trivial"): (frozenset({1, 2, 3, 4}), frozenset()),
    (1, "non-trivial"): (frozenset({1, 2, 3, 4}), frozenset()),
    (2, "trivial"): (frozenset({1, 2, 3, 4}), frozenset({1, 2, 3, 4})),
    (2, "non-trivial"): (frozenset({2, 3}), frozenset({1, 4})),
    (3, "trivial"): (frozenset({1, 2}), frozenset({1, 2})),
    (3, "non-trivial-R_ver"): (frozenset({3}), frozenset({1})),
    (3, "non-trivial-R_nat"): (frozenset({2}), frozenset({1})),
}
TEST_RULES = {key: rules[0] for key, rules in TEST_AND_TRAIN_RULES.items()}
TRAIN_RULES = {key: rules[1] for key, rules in TEST_AND_TRAIN_RULES.items()}
#: §3.2: the seven task setups ``(task, setup)`` (the paper's "task settings"), in the paper's order.
TASK_SETUPS: tuple[tuple[int, str], ...] = tuple(TEST_RULES)
CONFIGS = ("cg", "id")
#: Task setups that need structural (active/passive) natural inferences.
NEEDS_STRUCTURAL = frozenset({(2, "trivial"), (3, "trivial")})
#: An item's type: a primitive inference (veridical, lexical, structural) or a compositional one.
ITEM_TYPES = ("PI_ver", "PI_lex", "PI_stru", "CI")
#: The column of an item frame that holds its type (one of :data:`ITEM_TYPES`); named ``kind`` before issue 57
#: (a column cannot warn: a frame saved with ``kind`` reads back with ``frame.rename(columns={"kind": ITEM_TYPE})``).
ITEM_TYPE = "item_type"
#: The columns of every item frame: ``rule`` is 1-4 for CI and 0 otherwise, ``s`` the natural premise the item
#: was built from, ``nat_rule`` the natural inference's substitution (``boy→kid``).
COLUMNS = ["premise", "hypothesis", "label", ITEM_TYPE, "rule", "s", "verb", "nat_type", "nat_rule", "pair_ID"]


#: Table 3: each rule's primitives, (veridical verb, natural inference entailed): the settings' recipes select
#: their items by these, so they are fixed.
RULE_PRIMITIVES: dict[int, tuple[bool, bool]] = {1: (True, True), 2: (True, False), 3: (False, True), 4: (False, False)}
#: Table 3: each rule's composed label (① T∧T→T, ② T∧F→F, ③ F∧T→F, ④ F∧F→F): what a reader may change.
TABLE3_LABELS: dict[int, int] = {1: 1, 2: 0, 3: 0, 4: 0}


def composed_labels(rules: Any = None, where: str = "composed_labels") -> dict[int, int]:
    """The composed label (0/1) of each rule 1-4: Table 3's when ``rules`` is ``None``, else ``rules["CI"]``.

    Args:
        rules: ``None``, or a table indexed by rule 1-4 with columns ``PI_ver``, ``PI_nat`` (each rule's primitives,
            as in Table 3: they decide which items a setup takes) and ``CI`` (the composed label, 0 or 1, the
            column to edit), e.g. :func:`mtlib.experiments.seti.rules_table`.
        where: The calling function, named in the error.

    Raises:
        DataArgumentError: a table without those rules or columns, primitives other than Table 3's, or a ``CI``
            that is not 0/1.

    Example:
        >>> table = {"PI_ver": [1, 1, 0, 0], "PI_nat": [1, 0, 1, 0], "CI": [1, 0, 1, 0]}
        >>> rules = pd.DataFrame(table, index=[1, 2, 3, 4])
        >>> composed_labels(rules)  # ③ F∧T→T: a non-veridical verb no longer blocks the inference
        {1: 1, 2: 0, 3: 1, 4: 0}
    """
    if rules is None:
        return dict(TABLE3_LABELS)
    expected = "a table indexed by rule 1-4 with columns PI_ver, PI_nat (Table 3's) and CI (0 or 1)"
    if not isinstance(rules, pd.DataFrame) or not {"PI_ver", "PI_nat", "CI"} <= set(rules.columns):
        raise DataArgumentError(where, "rules", expected, rules)
    if sorted(rules.index.tolist()) != [1, 2, 3, 4]:
        raise DataArgumentError(where, "rules", expected, f"rules {rules.index.tolist()}")
    for rule, (veridical, natural) in RULE_PRIMITIVES.items():
        got = (bool(rules.at[rule, "PI_ver"]), bool(rules.at[rule, "PI_nat"]))
        if got != (veridical, natural):
            raise DataArgumentError(
                where, f"rules (rule {rule}'s PI_ver, PI_nat)", f"Table 3's {(veridical, natural)}", got
            )
    labels = {int(r): rules.at[r, "CI"] for r in RULE_PRIMITIVES}
    if any(label not in (0, 1) or isinstance(label, float) and not label.is_integer() for label in labels.values()):
        raise DataArgumentError(where, "rules (column CI)", "0 or 1 per rule", labels)
    return {r: int(label) for r, label in labels.items()}


class SetiError(ValueError):
    """An unknown task, setup or configuration, or a pool that cannot build a setup."""


def check_template(template: Any, where: str) -> str:
    """``template`` if it is a format string whose placeholders are exactly ``{verb}`` and ``{s}`` (§3.1); else
    :class:`DataArgumentError` naming ``where``."""
    try:
        ok = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None} == {"verb", "s"}
    except (AttributeError, TypeError, ValueError):  # not a string, or an unmatched brace
        ok = False
    if not ok or not isinstance(template, str):
        expected = "a string with {verb} and {s}, e.g. 'Someone {verb} that {s}'"
        raise DataArgumentError(where, "template", expected, template)
    return template


def _texts(values: Any) -> list[str]:
    """Strings as a list (iterating pandas' Arrow strings one by one is slow)."""
    return values.tolist() if isinstance(values, (pd.Series, pd.Index, np.ndarray)) else list(values)


def _strings(*columns: Any) -> set[str]:
    return set().union(*(_texts(c) for c in columns))


def veridical_premises(forms: Sequence[str], sentences: Sequence[str], template: str = TEMPLATE) -> list[str]:
    """``f(s)``: ``template`` filled with each (verb form, sentence) pair, the sentence as a complement clause
    (final period dropped, first letter lower-cased unless the word is an acronym)."""
    check_template(template, "veridical_premises")

    def clause(s: str) -> str:
        s = s.strip().rstrip(".")
        return s[0].lower() + s[1:] if len(s) > 1 and not s[1].isupper() else s

    texts = _texts(sentences)
    clauses = {s: clause(s) for s in set(texts)}
    return [template.format(verb=f, s=clauses[s]) for f, s in zip(_texts(forms), texts)]


def rule_of(veridical: Any, nat_label: Any) -> np.ndarray:
    """Table 3's rule (1-4) for arrays of verb veridicality and natural-inference labels; only ① (T∧T) entails."""
    v, n = np.asarray(veridical, dtype=bool), np.asarray(nat_label).astype(int) == 1
    return np.where(v, np.where(n, 1, 2), np.where(n, 3, 4))


def _items(**columns: Any) -> pd.DataFrame:
    """An item frame: ``columns`` in :data:`COLUMNS` order; a column not given is empty ("", or -1 for pair_ID)."""
    return pd.DataFrame({c: columns.get(c, -1 if c == "pair_ID" else "") for c in COLUMNS})


def primitive_veridical(sentences: Any, verbs: pd.DataFrame, template: str) -> pd.DataFrame:
    """``f(s) -> s`` for every sentence and verb (``PI_ver``): label 1 for veridical verbs, 0 for the others."""
    g = pd.DataFrame({"s": list(dict.fromkeys(sentences))}).merge(verbs, how="cross")
    premise = veridical_premises(g["form"], g["s"], template)
    label = g["veridical"].astype(int)
    return _items(
        premise=premise, hypothesis=g["s"], label=label, **{ITEM_TYPE: "PI_ver"}, rule=0, s=g["s"], verb=g["verb"]
    )


def primitive_natural(pairs: pd.DataFrame) -> pd.DataFrame:
    """The natural inferences themselves (``PI_lex`` / ``PI_stru``)."""
    c = {name: pairs[name].to_numpy() for name in ("premise", "hypothesis", "type", "rule", "pair_ID")}
    item_type, label = np.where(c["type"] == "lexical", "PI_lex", "PI_stru"), pairs["label"].astype(int).to_numpy()
    return _items(premise=c["premise"], hypothesis=c["hypothesis"], label=label, **{ITEM_TYPE: item_type}, rule=0,
                  s=c["premise"],
                  nat_type=c["type"], nat_rule=c["rule"], pair_ID=c["pair_ID"])  # fmt: skip


def compositional(
    pairs: pd.DataFrame, verbs: pd.DataFrame, template: str, labels: dict[int, int] = TABLE3_LABELS
) -> pd.DataFrame:
    """``f(s) -> s'`` (``CI``) for every natural pair ``(s, s')`` and verb, labelled by the rules' ``labels``."""
    g = pairs.reset_index(drop=True).merge(verbs, how="cross")
    premise = veridical_premises(g["form"], g["premise"], template)
    rule = rule_of(g["veridical"], g["label"])
    label = np.array([-1] + [labels[r] for r in (1, 2, 3, 4)])[rule]  # Table 3 by default: T∧T→T, else F
    return _items(premise=premise, hypothesis=g["hypothesis"], label=label, **{ITEM_TYPE: "CI"}, rule=rule,
                  s=g["premise"], verb=g["verb"], nat_type=g["type"], nat_rule=g["rule"],
                  pair_ID=g["pair_ID"])  # fmt: skip


def sentence_components(premises: Any, hypotheses: Any) -> np.ndarray:
    """One id per pair: the connected component of the graph of sentences (nodes) and pairs (edges).

    Pairs in different components share no sentence, so splitting by component keeps two sides apart.
    """
    sentences = pd.Index(pd.unique(pd.concat([pd.Series(premises), pd.Series(hypotheses)])))
    a_idx, b_idx = sentences.get_indexer(premises), sentences.get_indexer(hypotheses)
    parent = np.arange(len(sentences))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in zip(a_idx, b_idx):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return np.array([find(i) for i in range(len(sentences))])[a_idx]


def split_by_sentences(
    pairs: pd.DataFrame, seed: int = 0, test_fraction: float = 0.5, cover_rules: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split natural pairs into ``(train, test)`` sides that share no sentence.

    Sentence components go, in a seeded order, to the test side while it is below ``test_fraction`` of the
    pairs. ``cover_rules`` (Task 1 non-trivial: new sentences, known substitutions) puts a component on the
    test side only when each of its ``rule`` values already occurs on the training side.
    """
    if pairs.empty:
        return pairs.copy(), pairs.copy()
    groups = pd.Series(np.arange(len(pairs))).groupby(sentence_components(pairs["premise"], pairs["hypothesis"]))
    groups = groups.apply(list)
    seen_rules: set[str] = set()
    train_idx: list[int] = []
    test_idx: list[int] = []
    rules = pairs["rule"].to_numpy()
    for g in np.random.default_rng(seed).permutation(len(groups)):
        idx = groups.iloc[g]
        ok = len(test_idx) + len(idx) <= test_fraction * len(pairs) + 0.5
        ok = ok and (not cover_rules or set(rules[idx]) <= seen_rules)
        # without rule coverage, alternate so that both sides fill from the start
        if ok and (cover_rules or len(test_idx) <= test_fraction * (len(train_idx) + len(test_idx))):
            test_idx.extend(idx)
        else:
            train_idx.extend(idx)
            seen_rules.update(rules[idx])
    return pairs.iloc[sorted(train_idx)].reset_index(drop=True), pairs.iloc[sorted(test_idx)].reset_index(drop=True)


@renamed_keywords(setting="setup")
@dataclass
class SetiData:
    """One task setup in one configuration.

    Attributes:
        task, setup, config: e.g. ``2``, ``"non-trivial"``, ``"cg"`` (``setting``: the old name of ``setup``,
            as a keyword and a read-only attribute, a DeprecationWarning; it goes in the next release).
        train, dev, test: Item frames (:data:`COLUMNS`).
        few: Few-shot candidates D_few (§5.2): compositional, built like the test set, sharing no sentence with
            it, ordered so that the first shots cycle through the test's rules; empty unless asked for.
    """

    task: int
    setup: str
    config: str
    train: pd.DataFrame
    dev: pd.DataFrame
    test: pd.DataFrame
    few: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COLUMNS))

    @property
    def name(self) -> str:
        return f"task{self.task}/{self.setup}/{self.config}"

    setting = renamed_attribute("SetiData.setting", "setup")

    def __repr__(self) -> str:
        sizes = ", ".join(f"{s} {len(getattr(self, s))}" for s in ("train", "dev", "test", "few"))
        return f"SetiData({self.name}: {sizes})"

    def shots(self, k: int) -> pd.DataFrame:
        """The first ``k`` D_few items (they cycle through the test's rules); SetiError past the candidates."""
        if k > len(self.few):
            raise SetiError(f"{self.name}: {k} shots asked, {len(self.few)} D_few candidates reserved")
        return self.few.iloc[:k]


def pair_frame(items: pd.DataFrame) -> pd.DataFrame:
    """Items as a classifier's pair data: ``text`` (premise), ``text_pair`` (hypothesis), ``label``
    (``"entailment"`` or ``"non-entailment"``).

    >>> pair_frame(pd.DataFrame({"premise": ["a"], "hypothesis": ["b"], "label": [1]}))["label"].tolist()
    ['entailment']
    """
    label = np.where(items["label"].to_numpy().astype(int) == 1, "entailment", "non-entailment")
    return pd.DataFrame({"text": items["premise"].tolist(), "text_pair": items["hypothesis"].tolist(), "label": label})


def entailment_predictions(clf: Any, items: pd.DataFrame) -> np.ndarray:
    """0/1 predictions of a pair classifier (``clf.score(texts, "entailment", text_pairs=...)``): P above 0.5."""
    prob = clf.score(items["premise"].tolist(), "entailment", text_pairs=items["hypothesis"].tolist())
    return (np.asarray(prob, dtype=float) > 0.5).astype(int)


def subsample(frame: pd.DataFrame, n: int, seed: int, by: Any) -> pd.DataFrame:
    """At most ``n`` rows (0: all), spread evenly over the values of the columns ``by``, in the frame's order.

    >>> frame = pd.DataFrame({"rule": [1, 1, 1, 1, 2, 2]})
    >>> subsample(frame, 4, 0, "rule")["rule"].value_counts().sort_index().tolist()
    [2, 2]
    """
    if n <= 0 or len(frame) <= n:
        return frame
    order = frame.iloc[np.random.default_rng(seed).permutation(len(frame))]
    return order.iloc[np.argsort(order.groupby(by).cumcount().to_numpy(), kind="stable")[:n]].sort_index()


def _recipe(
    task: int,
    setup: str,
    lex: pd.DataFrame,
    stru: pd.DataFrame,
    verbs: pd.DataFrame,
    template: str,
    seed: int,
    labels: dict[int, int],
) -> tuple[list[pd.DataFrame], pd.DataFrame]:
    """§3.2: the training types (to balance) and the CG test set of one setup."""
    ver, nonver = verbs[verbs["veridical"]], verbs[~verbs["veridical"]]
    pos, neg = (lambda p: p[p["label"] == 1]), (lambda p: p[p["label"] == 0])

    def composed(pairs: pd.DataFrame, verbs: pd.DataFrame, template: str) -> pd.DataFrame:
        return compositional(pairs, verbs, template, labels)

    if (task, setup) == (1, "trivial"):
        train = [primitive_veridical(lex["premise"], verbs, template), primitive_natural(lex)]
        return train, composed(lex, verbs, template)
    if (task, setup) == (1, "non-trivial"):
        tr, te = split_by_sentences(lex, seed, cover_rules=True)
        train = [primitive_veridical(tr["premise"], verbs, template), primitive_natural(tr)]
        return train, composed(te, verbs, template)
    if (task, setup) == (2, "trivial"):
        train = [composed(lex, ver, template), composed(stru, nonver, template)]
        return train, pd.concat([composed(stru, ver, template), composed(lex, nonver, template)])
    if (task, setup) == (2, "non-trivial"):
        tr, te = split_by_sentences(pd.concat([lex, stru], ignore_index=True), seed)
        train = [composed(pos(tr), ver, template), composed(neg(tr), nonver, template)]
        return train, pd.concat([composed(neg(te), ver, template), composed(pos(te), nonver, template)])
    if (task, setup) == (3, "trivial"):
        return [primitive_natural(stru), composed(lex, ver, template)], composed(stru, ver, template)
    if (task, setup) == (3, "non-trivial-R_ver"):
        tr, te = split_by_sentences(pos(lex), seed)
        train = [primitive_veridical(tr["premise"], nonver, template), composed(tr, ver, template)]
        return train, composed(te, nonver, template)
    tr, te = split_by_sentences(lex, seed)  # (3, "non-trivial-R_nat")
    return [primitive_natural(neg(tr)), composed(pos(tr), ver, template)], composed(neg(te), ver, template)


def _few_candidates(test: pd.DataFrame, n_few: int, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(few, remaining_test)``: D_few reserved from the test side (§5.2), sharing no sentence with what is left.

    Sentence components of the test side are taken in random order until every test rule has at least
    ``ceil(n_few / rules)`` items (or half the test items are reserved); D_few cycles through the rules.
    """
    if n_few <= 0 or test.empty:
        return test.iloc[:0], test
    rules = sorted(set(test["rule"].astype(int)))
    need = -(-n_few // len(rules))
    by_comp = pd.Series(np.arange(len(test))).groupby(sentence_components(test["s"], test["hypothesis"])).apply(list)
    rule_of_item = test["rule"].to_numpy().astype(int)
    counts = dict.fromkeys(rules, 0)
    reserved: list[int] = []
    for g in rng.permutation(len(by_comp)):
        if all(c >= need for c in counts.values()) or len(reserved) >= len(test) // 2:
            break
        reserved.extend(by_comp.iloc[g])
        for r in rule_of_item[by_comp.iloc[g]]:
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


@renamed_keywords(setting="setup")
def recipe(
    task: int,
    setup: str,
    pool: pd.DataFrame,
    verbs: pd.DataFrame,
    seed: int = 0,
    *,
    template: str = TEMPLATE,
    rules: Any = None,
) -> tuple[list[pd.DataFrame], pd.DataFrame]:
    """Step 1 of a setup (§3.2): its training types, one item frame each, and its CG test set, from the pool.

    Args:
        task, setup: One of :data:`TASK_SETUPS`, e.g. ``(2, "non-trivial")`` (``setting=``: the old keyword of
            ``setup``, a DeprecationWarning; it goes in the next release).
        pool: The natural inferences (``premise``, ``hypothesis``, ``label`` 1/0, ``type`` lexical/structural,
            ``rule``, ``pair_ID``).
        verbs: ``verb``, ``form`` (3rd person) and ``veridical`` per verb.
        seed: Seeds the sentence splits of the non-trivial settings.
        template: Premise template with ``{verb}`` and ``{s}`` (§3.1).
        rules: The composition rules' labels (:func:`composed_labels`; ``None``: Table 3).

    Returns:
        ``(types, test)``: the training types (balanced in step 2) and the test items.

    Raises:
        SetiError: an unknown setup, or a pool that lacks what it needs (the message says what).
        DataArgumentError: ``pool`` not a DataFrame of natural inferences, a bad ``template``, ``seed`` or ``rules``.
    """
    columns = ["premise", "hypothesis", "label", "type", "pair_ID"]
    if not isinstance(pool, pd.DataFrame) or not set(columns) <= set(pool.columns):
        raise DataArgumentError("build", "pool", f"a DataFrame with columns {columns}", pool)
    check_template(template, "build")
    check_count(seed, "build", "seed")
    labels = composed_labels(rules, "build")
    if (task, setup) not in TASK_SETUPS:
        raise SetiError(f"unknown task setup ({task!r}, {setup!r}); valid: {', '.join(map(str, TASK_SETUPS))}")
    lex = pool[pool["type"] == "lexical"].reset_index(drop=True)
    stru = pool[pool["type"] == "structural"].reset_index(drop=True)
    if lex.empty or ((task, setup) in NEEDS_STRUCTURAL and stru.empty):
        need = "structural (active/passive)" if not lex.empty else "lexical"
        raise SetiError(f"task {task} {setup} needs {need} natural inferences; the pool has none")
    parts, test = _recipe(task, setup, lex, stru, verbs, template, seed, labels)
    if any(len(p) == 0 for p in parts) or test.empty:
        sizes = f"training types {[len(p) for p in parts]}, test {len(test)}"
        raise SetiError(f"task {task} {setup}: the pool gives an empty training type or test set ({sizes})")
    return parts, test.reset_index(drop=True)


def balance_types(types: list[pd.DataFrame], rng: np.random.Generator) -> list[pd.DataFrame]:
    """Step 2 (Appendix B): every training type downsampled, at random, to the size of the smallest one."""
    n = min(len(p) for p in types)
    return [p if n >= len(p) else p.iloc[np.sort(rng.choice(len(p), n, replace=False))] for p in types]


def split_dev(
    types: list[pd.DataFrame], rng: np.random.Generator, dev_fraction: float = 0.2
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Step 3 (Table 5): ``(train, dev)``, ``dev_fraction`` of every (balanced) type drawn at random as dev."""
    train_parts, dev_parts = [], []
    for part in types:
        order = rng.permutation(len(part))
        n_dev = int(round(dev_fraction * len(part)))
        dev_parts.append(part.iloc[order[:n_dev]])
        train_parts.append(part.iloc[order[n_dev:]])
    return pd.concat(train_parts, ignore_index=True), pd.concat(dev_parts, ignore_index=True)


def reserve_few(test: pd.DataFrame, n_few: int, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Step 4 (§5.2): ``(few, test)``, D_few of ``n_few`` items reserved from the test side (none when 0).

    Sentence components of the test side are taken in random order until every test rule has at least
    ``ceil(n_few / rules)`` items (or half the test items are reserved); D_few cycles through the rules and
    shares no sentence with the test items left.

    Raises:
        SetiError: no test item left after the reserve.
    """
    check_count(n_few, "build", "n_few")
    few, rest = _few_candidates(test.reset_index(drop=True), n_few, rng)
    if rest.empty:
        raise SetiError(f"no test item is left after reserving {len(few)} D_few items")
    return few, rest


def shuffle_in_distribution(
    train: pd.DataFrame, dev: pd.DataFrame, test: pd.DataFrame, rng: np.random.Generator
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Step 5, In-Distribution only: D_train ∪ D_dev ∪ D_test shuffled and cut to the same sizes, ``(train, dev,
    test)``."""
    everything = pd.concat([train, dev, test], ignore_index=True)
    order = rng.permutation(len(everything))
    cut = [len(test), len(test) + len(dev)]
    test, dev, train = (everything.iloc[i].reset_index(drop=True) for i in np.split(order, cut))
    return train, dev, test


@renamed_keywords(setting="setup")
def build(
    task: int,
    setup: str,
    config: str,
    pool: pd.DataFrame,
    verbs: pd.DataFrame,
    seed: int = 0,
    *,
    template: str = TEMPLATE,
    dev_fraction: float = 0.2,
    n_few: int = 0,
    rules: Any = None,
) -> SetiData:
    """Build one task setup of §3.2 in one configuration, and check its invariants (:func:`check_invariants`).

    The steps, each a function of its own (notebook 07 runs them one by one): :func:`recipe`,
    :func:`balance_types`, :func:`split_dev`, :func:`reserve_few` (CG only), :func:`shuffle_in_distribution` (ID
    only), all drawing from one generator seeded with ``seed``.

    Args:
        task, setup: One of :data:`TASK_SETUPS`, e.g. ``(2, "non-trivial")`` (``setting=``: the old keyword of
            ``setup``, a DeprecationWarning; it goes in the next release).
        config: ``"cg"`` (Compositional Generalization: the controlled split) or ``"id"`` (In-Distribution:
            D_train ∪ D_dev ∪ D_test of ``cg`` shuffled and cut to the same sizes).
        pool, verbs: The natural inferences; ``verb``, ``form`` (3rd person) and ``veridical`` per verb.
        seed: Seeds every sampling step: balancing the training types by downsampling (Appendix B), sentence
            splits, the dev split (``dev_fraction`` of the balanced training data, Table 5), D_few, the ``id`` shuffle.
        template: Premise template with ``{verb}`` and ``{s}`` (§3.1).
        n_few: Reserve this many few-shot candidates (D_few, §5.2) from the test side (``cg`` only).
        rules: The composition rules' labels (:func:`composed_labels`; ``None``: Table 3).

    Raises:
        SetiError: unknown names, or a pool that lacks what the setup needs (the message says what).
        DataArgumentError: ``pool`` not a DataFrame of natural inferences, a bad ``template``, ``seed``, ``n_few``
            or ``rules``.
    """
    check_count(n_few, "build", "n_few")
    if config not in CONFIGS:
        raise SetiError(f"unknown configuration {config!r}; valid: {', '.join(CONFIGS)}")
    types, test = recipe(task, setup, pool, verbs, seed, template=template, rules=rules)
    rng = np.random.default_rng(seed)
    train, dev = split_dev(balance_types(types, rng), rng, dev_fraction)
    try:
        few, test = reserve_few(test, n_few if config == "cg" else 0, rng)
    except SetiError as err:
        raise SetiError(f"task {task} {setup}: {err}") from None
    if config == "id":
        train, dev, test = shuffle_in_distribution(train, dev, test, rng)
    data = SetiData(task, setup, config, train, dev, test, few)
    check_invariants(data, rules=rules)
    return data


def labels_follow_rules(data: SetiData, rules: Any = None) -> bool:
    """Every compositional item's rule is 1-4 and its label is its rule's (Table 3, or ``rules``); every item type is
    known and every label 0/1. Raises AssertionError naming the split; True when checked."""
    labels = composed_labels(rules, "check_invariants")
    for name, frame in (("train", data.train), ("dev", data.dev), ("test", data.test), ("few", data.few)):
        ci = frame[frame[ITEM_TYPE] == "CI"]
        expected = np.array([0] + [labels[r] for r in (1, 2, 3, 4)])[ci["rule"].to_numpy().astype(int)]
        assert ci["rule"].between(1, 4).all(), f"{data.name} {name}: a CI rule outside 1-4"
        assert (ci["label"].to_numpy().astype(int) == expected).all(), f"{data.name} {name}: a CI label breaks its rule"
        assert set(frame[ITEM_TYPE]) <= set(ITEM_TYPES), (
            f"{data.name} {name}: unknown item type {set(frame[ITEM_TYPE])}"
        )
        assert set(frame["label"].astype(int)) <= {0, 1}, f"{data.name} {name}: labels must be 0/1"
    return True


def few_apart_from_test(data: SetiData, rules: Any = None) -> bool:
    """D_few shares no item and no sentence with D_test (§5.2). Raises AssertionError; True when checked."""
    few_items = set(zip(_texts(data.few["premise"]), _texts(data.few["hypothesis"])))
    test_items = set(zip(_texts(data.test["premise"]), _texts(data.test["hypothesis"])))
    assert not few_items & test_items, f"{data.name}: D_few ∩ D_test ≠ ∅"
    test_sentences = _strings(data.test["s"], data.test["hypothesis"])
    assert not _strings(data.few["s"], data.few["hypothesis"]) & test_sentences, f"{data.name}: D_few shares a sentence"
    return True


def cg_rules_as_named(data: SetiData, rules: Any = None) -> bool:
    """CG only: the test set is compositional only, with the rules §3.2 names (:data:`TEST_RULES`, D_few too), and
    training holds :data:`TRAIN_RULES`. Raises AssertionError; False for ID (not checked)."""
    if data.config != "cg":
        return False
    key = (data.task, data.setup)
    assert set(data.test[ITEM_TYPE]) == {"CI"}, f"{data.name}: the CG test set must be compositional only"
    test_rules = set(data.test["rule"].astype(int))
    assert test_rules <= TEST_RULES[key], f"{data.name}: test rules {sorted(test_rules)} outside {set(TEST_RULES[key])}"
    assert set(data.few["rule"].astype(int)) <= TEST_RULES[key], f"{data.name}: D_few rules outside the test's"
    trained = pd.concat([data.train, data.dev])
    train_rules = set(trained.loc[trained[ITEM_TYPE] == "CI", "rule"].astype(int))
    assert train_rules <= TRAIN_RULES[key], f"{data.name}: training rules {sorted(train_rules)} outside the setup's"
    return True


def unseen_test_sentences(data: SetiData, rules: Any = None) -> bool:
    """Non-trivial CG only: no test sentence (natural premise ``s`` or hypothesis) occurs in training or dev.
    Raises AssertionError; False where it does not apply."""
    if data.config != "cg" or "non-trivial" not in data.setup:
        return False
    trained = pd.concat([data.train, data.dev])
    clash = _strings(data.test["s"], data.test["hypothesis"]) & _strings(trained["s"], trained["hypothesis"])
    assert not clash, f"{data.name}: {len(clash)} test sentences occur in training, e.g. {sorted(clash)[:2]}"
    return True


def substitutions_seen(data: SetiData, rules: Any = None) -> bool:
    """Task 1 non-trivial CG only: every test substitution rule (``boy→kid``) occurs among the training PI_lex
    items (new sentences, known substitutions). Raises AssertionError; False where it does not apply."""
    if data.config != "cg" or (data.task, data.setup) != (1, "non-trivial"):
        return False
    trained = pd.concat([data.train, data.dev])
    known = _strings(trained.loc[trained[ITEM_TYPE] == "PI_lex", "nat_rule"])
    assert _strings(data.test["nat_rule"]) <= known, f"{data.name}: a test substitution rule is unseen in training"
    return True


#: §3.2's invariants, each a check ``(data, rules) -> bool`` (True: checked and held; False: does not apply;
#: AssertionError naming the setup when broken).
INVARIANTS = {
    "compositional labels follow their rules": labels_follow_rules,
    "D_few shares no item or sentence with D_test": few_apart_from_test,
    "CG tests and trains the rules §3.2 names": cg_rules_as_named,
    "non-trivial CG: no test sentence in training": unseen_test_sentences,
    "task 1 non-trivial CG: test substitutions seen in training": substitutions_seen,
}


def check_invariants(data: SetiData, rules: Any = None) -> None:
    """Every check of :data:`INVARIANTS`; raises AssertionError naming the broken one: CI labels follow Table 3
    (or ``rules``); D_few shares no item or sentence with D_test; ``cg`` tests CI only, with :data:`TEST_RULES`
    (D_few too), and trains on :data:`TRAIN_RULES`; non-trivial ``cg`` tests sentences unseen in training (its
    natural premise ``s`` and its hypothesis), Task 1 non-trivial with substitution rules seen in training."""
    for check in INVARIANTS.values():
        check(data, rules)


def verb_shortcut_right(items: pd.DataFrame, veridical_verbs: Any) -> pd.Series:
    """Per item, whether the verb shortcut ("entailment exactly when the verb is veridical", whatever the clause
    says) gets its label right.

    >>> items = pd.DataFrame({"verb": ["know", "hope"], "label": [0, 0]})
    >>> verb_shortcut_right(items, {"know"}).tolist()
    [False, True]
    """
    return items["verb"].isin(set(veridical_verbs)).astype(int) == items["label"].astype(int)


def rule_groups(items: pd.DataFrame, symbols: Any) -> np.ndarray:
    """Per item, the group its accuracy is reported under: a compositional item's rule (``"① rule 1"``, with
    ``symbols[rule]``), any other item's type (``PI_lex``, ``PI_ver``, ...)."""
    rule = items["rule"].map(lambda r: f"{symbols.get(int(r), r)} rule {int(r)}")
    return np.where(items[ITEM_TYPE] == "CI", rule, items[ITEM_TYPE])


#: Old names, kept one release: old -> new (a DeprecationWarning on use).
_RENAMED = {"SETTINGS": "TASK_SETUPS", "KINDS": "ITEM_TYPES"}


def __getattr__(name: str) -> Any:
    """The old names of :data:`_RENAMED`, with a :class:`DeprecationWarning` (PEP 562)."""
    if name in _RENAMED:
        new = _RENAMED[name]
        warnings.warn(
            f"mtlib.data.seti_tasks.{name} is renamed {new}; the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return globals()[new]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
