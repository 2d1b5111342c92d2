"""Building SETI's settings: primitive and compositional items, sentence-disjoint splits, the invariants.

Intuition: each task setting of §3.2 is a recipe over the natural pool and
the verbs: which items train (balanced by type), which test, and (for
``cg``) a split by sentence components so that test sentences never occur in
training. ``id`` reshuffles the same items with the same sizes. Every built
setting is checked against §3.2 (:func:`check_invariants`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.experiments.seti._checks import check_template
from mtlib.experiments.seti._facts import (
    COLUMNS,
    CONFIGS,
    KINDS,
    NEEDS_STRUCTURAL,
    SETTINGS,
    TEMPLATE,
    TEST_RULES,
    TRAIN_RULES,
    SetiError,
)
from mtlib.experiments.seti._inferences import (
    _objects,
    _strings,
    composed_label,
    rule_of,
    verb_table,
    veridical_premises,
)
from mtlib.relations.errors import check_count, check_frame, check_seeds

# --- primitive and compositional inferences -------------------------------------------------------


def primitive_veridical(sentences: Iterable[str], verbs: pd.DataFrame, template: str = TEMPLATE) -> pd.DataFrame:
    """``f(s) -> s`` for every sentence and verb: label 1 for veridical verbs, 0 for non-veridical."""
    s = pd.DataFrame({"s": list(dict.fromkeys(sentences))})
    grid = s.merge(verbs, how="cross")
    return pd.DataFrame(
        {
            "premise": veridical_premises(grid["form"], grid["s"], template),
            "hypothesis": grid["s"],
            "label": grid["veridical"].astype(int),
            "kind": "PI_ver",
            "rule": 0,
            "s": grid["s"],
            "verb": grid["verb"],
            "nat_type": "",
            "nat_rule": "",
            "pair_ID": -1,
        }
    )[COLUMNS]


def primitive_natural(pairs: pd.DataFrame) -> pd.DataFrame:
    """The natural inferences themselves (``PI_lex`` / ``PI_stru``)."""
    kind = np.where(pairs["type"] == "lexical", "PI_lex", "PI_stru")
    return pd.DataFrame(
        {
            "premise": pairs["premise"].to_numpy(),
            "hypothesis": pairs["hypothesis"].to_numpy(),
            "label": pairs["label"].astype(int).to_numpy(),
            "kind": kind,
            "rule": 0,
            "s": pairs["premise"].to_numpy(),
            "verb": "",
            "nat_type": pairs["type"].to_numpy(),
            "nat_rule": pairs["rule"].to_numpy(),
            "pair_ID": pairs["pair_ID"].to_numpy(),
        }
    )[COLUMNS]


def compositional(pairs: pd.DataFrame, verbs: pd.DataFrame, template: str = TEMPLATE) -> pd.DataFrame:
    """``f(s) -> s'`` for every natural pair ``(s, s')`` and verb, labelled by Table 3's rules."""
    grid = pairs.reset_index(drop=True).merge(verbs, how="cross")
    return pd.DataFrame(
        {
            "premise": veridical_premises(grid["form"], grid["premise"], template),
            "hypothesis": grid["hypothesis"],
            "label": composed_label(grid["veridical"], grid["label"]),
            "kind": "CI",
            "rule": rule_of(grid["veridical"], grid["label"]),
            "s": grid["premise"],
            "verb": grid["verb"],
            "nat_type": grid["type"],
            "nat_rule": grid["rule"],
            "pair_ID": grid["pair_ID"],
        }
    )[COLUMNS]


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


def split_by_sentences(
    pairs: pd.DataFrame, seed: int = 0, test_fraction: float = 0.5, cover_rules: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame]:
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
    train_idx: list[int] = []
    test_idx: list[int] = []
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
        return (
            f"SetiData({self.name}: train {len(self.train)}, dev {len(self.dev)}, test {len(self.test)}, "
            f"few {len(self.few)})"
        )

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


def _cg_parts(
    task: int, setting: str, lex: pd.DataFrame, stru: pd.DataFrame, verbs: pd.DataFrame, template: str, seed: int
) -> tuple[list[pd.DataFrame], pd.DataFrame, pd.DataFrame]:
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


def _split_dev(
    parts: Sequence[pd.DataFrame], dev_fraction: float, rng: np.random.Generator
) -> tuple[pd.DataFrame, pd.DataFrame]:
    train, dev = [], []
    for p in parts:
        order = rng.permutation(len(p))
        n_dev = int(round(dev_fraction * len(p)))
        dev.append(p.iloc[order[:n_dev]])
        train.append(p.iloc[order[n_dev:]])
    return pd.concat(train, ignore_index=True), pd.concat(dev, ignore_index=True)


#: The columns of a pool of natural inferences the settings use (:func:`extract_natural_inferences` has more).
POOL_COLUMNS = ["premise", "hypothesis", "label", "type", "pair_ID"]


def check_inputs(pool: Any, template: Any, where: str, **counts: Any) -> None:
    """The checks of every building entry: ``pool`` (:data:`POOL_COLUMNS`), ``template``, integer ``counts`` >= 0.

    Raises:
        MtlibInputError: naming the argument and what was expected.
    """
    check_frame(pool, where, "pool", POOL_COLUMNS)
    check_template(template, where)
    for name, value in counts.items():
        check_count(value, where, name)


def build(
    task: int,
    setting: str,
    config: str,
    pool: pd.DataFrame,
    verbs: Any = None,
    seed: int = 0,
    *,
    template: str = TEMPLATE,
    dev_fraction: float = 0.2,
    n_few: int = 0,
    check: bool = True,
) -> SetiData:
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
        MtlibInputError: ``pool`` not a DataFrame of natural inferences, ``template`` without ``{verb}`` and
            ``{s}``, or ``seed`` / ``n_few`` not an integer >= 0 (not skipped by :func:`build_all`).
    """
    check_inputs(pool, template, "build", seed=seed, n_few=n_few)
    check_setting(task, setting, config)
    vt = verb_table(verbs)
    lex = pool[pool["type"] == "lexical"].reset_index(drop=True)
    stru = pool[pool["type"] == "structural"].reset_index(drop=True)
    if lex.empty:
        raise SetiError(f"task {task} {setting} needs lexical natural inferences; the pool has none")
    if (task, setting) in NEEDS_STRUCTURAL and stru.empty:
        raise SetiError(
            f"task {task} {setting} needs structural (active/passive) natural inferences; the pool has none"
        )
    rng = np.random.default_rng(seed)
    parts, test, _ = _cg_parts(task, setting, lex, stru, vt, template, seed)
    sizes = {f"before_balancing/{p['kind'].iloc[0] if len(p) else i}": len(p) for i, p in enumerate(parts)}
    if any(len(p) == 0 for p in parts) or test.empty:
        raise SetiError(
            f"task {task} {setting}: the pool gives an empty training type or test set "
            f"(sizes {sizes}, test {len(test)}); it needs more pairs of each label"
        )
    train, dev = _split_dev(_balanced(parts, rng), dev_fraction, rng)
    test = test.reset_index(drop=True)
    few, test = _few_candidates(test, n_few if config == "cg" else 0, rng)
    if test.empty:
        raise SetiError(
            f"task {task} {setting}: no test item is left after reserving {len(few)} D_few items; "
            "use a larger pool or fewer shots"
        )
    if config == "id":
        everything = pd.concat([train, dev, test], ignore_index=True)
        order = rng.permutation(len(everything))
        n_test, n_dev = len(test), len(dev)
        test = everything.iloc[order[:n_test]].reset_index(drop=True)
        dev = everything.iloc[order[n_test : n_test + n_dev]].reset_index(drop=True)
        train = everything.iloc[order[n_test + n_dev :]].reset_index(drop=True)
    data = SetiData(task, setting, config, train, dev, test, few, {"seed": seed, **sizes})
    if check:
        check_invariants(data)
    return data


def build_all(
    pool: pd.DataFrame,
    verbs: Any = None,
    seed: int = 0,
    *,
    configs: Sequence[str] = CONFIGS,
    settings: Sequence[tuple[int, str]] = SETTINGS,
    **kwargs: Any,
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
    assert not few_keys & set(zip(_objects(data.test["premise"]), _objects(data.test["hypothesis"]))), (
        f"{data.name}: D_few ∩ D_test ≠ ∅"
    )
    few_sentences = _strings(data.few["s"], data.few["hypothesis"])
    assert not few_sentences & _strings(data.test["s"], data.test["hypothesis"]), (
        f"{data.name}: D_few shares a sentence with D_test"
    )
    if data.config != "cg":
        return
    assert set(data.test["kind"]) == {"CI"}, f"{data.name}: the CG test set must be compositional only"
    assert set(data.test["rule"].astype(int)) <= TEST_RULES[key], (
        f"{data.name}: test rules {sorted(set(data.test['rule']))} outside {sorted(TEST_RULES[key])}"
    )
    assert set(data.few["rule"].astype(int)) <= TEST_RULES[key], f"{data.name}: D_few rules outside the test's"
    trained = pd.concat([data.train, data.dev])
    train_rules = set(trained.loc[trained["kind"] == "CI", "rule"].astype(int))
    assert train_rules <= TRAIN_RULES[key], (
        f"{data.name}: training rules {sorted(train_rules)} outside {sorted(TRAIN_RULES[key])}"
    )
    if "non-trivial" in data.setting:
        seen = _strings(trained["s"], trained["hypothesis"])
        clash = _strings(data.test["s"], data.test["hypothesis"]) & seen
        assert not clash, f"{data.name}: {len(clash)} test sentences occur in training, e.g. {sorted(clash)[:2]}"
    if key == (1, "non-trivial"):
        known = _strings(trained.loc[trained["kind"] == "PI_lex", "nat_rule"])
        assert _strings(data.test["nat_rule"]) <= known, f"{data.name}: a test substitution rule is unseen in training"


def with_shots(data: SetiData, shots: int) -> pd.DataFrame:
    """Training data plus the first ``shots`` D_few items (the paper's most plausible reading of §5.2)."""
    if shots > len(data.few):
        raise SetiError(f"{data.name}: {shots} shots asked, {len(data.few)} D_few candidates reserved")
    return pd.concat([data.train, data.few.iloc[:shots]], ignore_index=True)


def natural_sentences(pool: pd.DataFrame) -> list[str]:
    """Every sentence of the pool (premises and hypotheses), in first-seen order."""
    return list(dict.fromkeys(_objects(pd.concat([pool["premise"], pool["hypothesis"]])).tolist()))


def universe(pool: pd.DataFrame, verbs: Any = None, template: str = TEMPLATE) -> list[str]:
    """Every sentence any setting can use: the natural sentences and f(s) for each premise s and verb.

    Encoding this list once serves every setting, configuration, seed and shot budget.
    """
    check_inputs(pool, template, "universe")
    vt = verb_table(verbs)
    premises = list(dict.fromkeys(_objects(pool["premise"]).tolist()))
    grid = pd.DataFrame({"s": premises}).merge(vt, how="cross")
    return natural_sentences(pool) + veridical_premises(grid["form"], grid["s"], template)


def build_seeds(
    pool: pd.DataFrame,
    seeds: Sequence[int],
    verbs: Any = None,
    *,
    settings: Sequence[tuple[int, str]] = SETTINGS,
    configs: Sequence[str] = CONFIGS,
    **kwargs: Any,
) -> tuple[dict[tuple[int, str, str, int], SetiData], dict[tuple[int, str], str]]:
    """:func:`build_all` once per seed: seed k draws the balancing, the splits and (later) the model's seed.

    Returns:
        ``({(task, setting, config, seed): SetiData}, {(task, setting): reason skipped})``.

    Raises:
        MtlibInputError: ``seeds`` not a non-empty list of integers >= 0, ``pool`` or ``template`` as for
            :func:`build`.
    """
    check_seeds(seeds, "build_seeds")
    check_inputs(pool, kwargs.get("template", TEMPLATE), "build_seeds")
    out, skipped = {}, {}
    for seed in seeds:
        built, skip = build_all(pool, verbs, seed, configs=configs, settings=settings, **kwargs)
        out.update({(*key, seed): data for key, data in built.items()})
        skipped.update(skip)
    return out, skipped
