"""SETI's dataset builder: Table 3's labels, the seven settings' invariants (§3.2), D_few, the input checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.data import seti_tasks
from mtlib.data.errors import DataArgumentError
from mtlib.data.sick import BUNDLED_SICK, load_sick
from mtlib.experiments import seti


@pytest.fixture(scope="module")
def pool() -> pd.DataFrame:
    return seti.extract_natural_inferences(load_sick(BUNDLED_SICK))


@pytest.fixture(scope="module")
def verbs() -> pd.DataFrame:
    return seti.verb_table()


@pytest.fixture(scope="module")
def datasets(pool, verbs):
    return {
        (task, setting, config): seti_tasks.build(task, setting, config, pool, verbs, 3, n_few=32)
        for task, setting in seti_tasks.TASK_SETUPS
        for config in seti_tasks.CONFIGS
    }


def test_boolean_rules_and_premises():
    v, n = np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0])
    assert seti_tasks.rule_of(v, n).tolist() == [1, 2, 3, 4]
    pairs = pd.DataFrame({"premise": ["A boy runs."] * 2, "hypothesis": ["A kid runs."] * 2, "label": [1, 0],
                          "type": "lexical", "rule": "boy→kid", "pair_ID": [1, 2]})  # fmt: skip
    verbs = seti.verb_table({"know": True, "hope": False})
    ci = seti_tasks.compositional(pairs, verbs, seti_tasks.TEMPLATE)
    expected = [["know", 1, 1], ["hope", 3, 0], ["know", 2, 0], ["hope", 4, 0]]  # Table 3: only ① entails
    assert ci[["verb", "rule", "label"]].values.tolist() == expected
    assert ci["premise"].iloc[1] == "Someone hopes that a boy runs"
    assert seti_tasks.veridical_premises(["hopes", "knows"], ["A man is eating a pizza.", "NASA is closed"]) == [
        "Someone hopes that a man is eating a pizza",
        "Someone knows that NASA is closed",  # an acronym keeps its capitals
    ]


@pytest.mark.parametrize("task, setting", seti_tasks.TASK_SETUPS)
def test_every_setting_keeps_its_invariants(datasets, task, setting):
    cg, iid = datasets[(task, setting, "cg")], datasets[(task, setting, "id")]
    seti_tasks.check_invariants(cg)
    seti_tasks.check_invariants(iid)
    assert set(cg.test["rule"]) == seti_tasks.TEST_RULES[(task, setting)], "every rule §3.2 names is tested"
    if (task, setting) == (2, "non-trivial"):
        assert (cg.test["label"] == 0).all(), "Task 2 non-trivial tests rules ② and ③ only: all non-entailment"
    trained = pd.concat([cg.train, cg.dev])
    types = trained[seti_tasks.ITEM_TYPE].value_counts()
    if trained[seti_tasks.ITEM_TYPE].nunique() == 2:
        assert types.iloc[0] - types.iloc[1] <= 1, f"training types balanced (Appendix B): {types.to_dict()}"
    rules = seti_tasks.TEST_RULES[(task, setting)]
    assert len(cg.few) == 32 and set(cg.few["rule"]) == rules
    assert len(set(cg.few["rule"].iloc[: len(rules)])) == len(rules), "the first shots cycle through the rules"
    if "non-trivial" in setting:
        seen = set(trained["s"]) | set(trained["hypothesis"])
        assert not (set(cg.test["s"]) | set(cg.test["hypothesis"])) & seen
    # In-Distribution: the same items, randomly split with the same sizes (its own D_few is not reserved)
    assert (len(iid.train), len(iid.dev), len(iid.few)) == (len(cg.train), len(cg.dev), 0)
    assert set(iid.test[seti_tasks.ITEM_TYPE]) >= {"CI"}
    assert repr(cg).startswith(f"SetiData(task{task}/{setting}/cg: train {len(cg.train)}")


def test_invariant_checks_catch_a_broken_label(datasets):
    data = datasets[(2, "trivial", "cg")]
    broken = seti_tasks.SetiData(data.task, data.setup, data.config, data.train.copy(), data.dev, data.test)
    broken.train.loc[broken.train.index[broken.train["rule"] == 2][0], "label"] = 1
    with pytest.raises(AssertionError, match="breaks its rule"):
        seti_tasks.check_invariants(broken)


def test_invariant_checks_catch_a_leaked_sentence(datasets):
    data = datasets[(2, "non-trivial", "cg")]
    leaked = pd.concat([data.train, data.test.iloc[:1]], ignore_index=True).assign(
        rule=lambda d: d["rule"].where(d.index < len(data.train), 1),
        label=lambda d: d["label"].where(d.index < len(data.train), 1),
    )
    with pytest.raises(AssertionError, match="occur in training"):
        seti_tasks.check_invariants(seti_tasks.SetiData(2, "non-trivial", "cg", leaked, data.dev, data.test))


def test_task1_non_trivial_reuses_the_substitution_rules(datasets):
    data = datasets[(1, "non-trivial", "cg")]
    trained = pd.concat([data.train, data.dev])
    known = set(trained.loc[trained[seti_tasks.ITEM_TYPE] == "PI_lex", "nat_rule"])
    assert set(data.test["nat_rule"]) <= known and len(set(data.test["nat_rule"])) > 10


def test_split_by_sentences_shares_no_sentence(pool):
    lex = pool[pool["type"] == "lexical"]
    train, test = seti_tasks.split_by_sentences(lex, seed=1)
    assert len(train) + len(test) == len(lex) and abs(len(test) - len(lex) / 2) < 0.1 * len(lex)
    sentences = lambda f: set(f["premise"]) | set(f["hypothesis"])  # noqa: E731
    assert not sentences(train) & sentences(test)


def test_build_is_deterministic(pool, verbs):
    a = seti_tasks.build(3, "non-trivial-R_nat", "id", pool, verbs, seed=5)
    b = seti_tasks.build(3, "non-trivial-R_nat", "id", pool, verbs, seed=5)
    pd.testing.assert_frame_equal(a.test, b.test)
    assert not a.test.equals(seti_tasks.build(3, "non-trivial-R_nat", "id", pool, verbs, seed=6).test)


def test_unknown_names_list_the_valid_ones(pool, verbs):
    with pytest.raises(seti_tasks.SetiError, match=r"valid: \(1, 'trivial'\)"):
        seti_tasks.build(4, "trivial", "cg", pool, verbs)
    with pytest.raises(seti_tasks.SetiError, match="valid: cg, id"):
        seti_tasks.build(1, "trivial", "ood", pool, verbs)


def test_pool_without_structural_pairs_says_what_is_missing(pool, verbs):
    lexical_only = pool[pool["type"] == "lexical"]
    for task, setting in seti_tasks.TASK_SETUPS:
        if (task, setting) in {(2, "trivial"), (3, "trivial")}:
            with pytest.raises(seti_tasks.SetiError, match="needs structural"):
                seti_tasks.build(task, setting, "cg", lexical_only, verbs)
        else:
            seti_tasks.build(task, setting, "cg", lexical_only, verbs)
    with pytest.raises(seti_tasks.SetiError, match="needs lexical"):
        seti_tasks.build(1, "trivial", "cg", pool[pool["type"] == "structural"], verbs)


def test_custom_verbs_and_template(pool):
    small = seti.subsample_pool(pool, 40, 0)
    verbs = seti.verb_table({"know": True, "guess": False})
    data = seti_tasks.build(1, "trivial", "cg", small, verbs, template="Somebody {verb} that {s}.")
    assert set(data.test["verb"]) == {"know", "guess"}
    assert data.test["premise"].str.startswith(("Somebody knows that ", "Somebody guesses that ")).all()


# --- the checks at the entry: a wrong argument fails there, naming it ------------------------------


@pytest.mark.parametrize(
    "template", ["Someone {verb} that", "Someone believes that {s}", "Someone {verb} that {s} {x}", "{verb} {s", 5]
)
def test_a_bad_template_is_refused_where_it_is_given(pool, verbs, template):
    with pytest.raises(DataArgumentError, match=r"build: template must be a string with \{verb\} and \{s\}") as err:
        seti_tasks.build(1, "trivial", "cg", pool, verbs, template=template)
    assert err.value.argument == "template"
    with pytest.raises(DataArgumentError, match="veridical_premises: template"):
        seti_tasks.veridical_premises(["knows"], ["a man sleeps"], template)


def test_bad_pool_and_counts(pool, verbs):
    with pytest.raises(DataArgumentError, match="build: pool must be a DataFrame"):
        seti_tasks.build(1, "trivial", "cg", "pool.tsv", verbs)  # type: ignore[arg-type]
    with pytest.raises(DataArgumentError, match="build: pool must be a DataFrame with columns"):
        seti_tasks.build(1, "trivial", "cg", pool.drop(columns="type"), verbs)
    with pytest.raises(DataArgumentError, match="build: n_few must be an integer >= 0"):
        seti_tasks.build(1, "trivial", "cg", pool, verbs, n_few=-1)
    with pytest.raises(DataArgumentError, match="build: seed"):
        seti_tasks.build(1, "trivial", "cg", pool, verbs, seed=0.5)  # type: ignore[arg-type]


def test_rules_are_data_a_reader_can_edit(pool, verbs):
    rules = seti.rules_table()
    assert seti_tasks.composed_labels(rules) == seti_tasks.TABLE3_LABELS == {1: 1, 2: 0, 3: 0, 4: 0}
    lenient = rules.copy()
    lenient.loc[3, "CI"] = 1  # F∧T→T: a non-veridical verb no longer blocks an entailed natural inference
    data = seti_tasks.build(1, "trivial", "cg", pool, verbs, 3, rules=lenient)
    by_rule = data.test.groupby("rule")["label"].unique().map(list).to_dict()
    assert by_rule == {1: [1], 2: [0], 3: [1], 4: [0]}
    seti_tasks.check_invariants(data, rules=lenient)
    with pytest.raises(AssertionError, match="a CI label breaks its rule"):
        seti_tasks.check_invariants(data)  # Table 3's labels: rule 3 must be 0
    table3 = seti_tasks.build(1, "trivial", "cg", pool, verbs, 3)
    assert table3.test[["premise", "hypothesis", "rule"]].equals(data.test[["premise", "hypothesis", "rule"]])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.drop(columns="CI"), "rules must be a table indexed by rule 1-4 with columns PI_ver, PI_nat"),
        (lambda r: r.drop(index=4), r"got str 'rules \[1, 2, 3\]'"),
        (lambda r: r.assign(PI_ver=[True, False, False, False]), r"rule 2's PI_ver, PI_nat\) must be Table 3's"),
        (lambda r: r.assign(CI=[1, 0, 2, 0]), r"rules \(column CI\) must be 0 or 1 per rule"),
    ],
)
def test_a_broken_rules_table_is_refused_naming_what_is_wrong(pool, verbs, edit, message):
    with pytest.raises(DataArgumentError, match=message):
        seti_tasks.build(1, "trivial", "cg", pool, verbs, rules=edit(seti.rules_table()))


def test_the_steps_one_by_one_give_what_build_gives(pool, verbs):
    for config in seti_tasks.CONFIGS:
        types, test = seti_tasks.recipe(2, "non-trivial", pool, verbs, 4)
        rng = np.random.default_rng(4)
        train, dev = seti_tasks.split_dev(seti_tasks.balance_types(types, rng), rng)
        few, test = seti_tasks.reserve_few(test, 16 if config == "cg" else 0, rng)
        if config == "id":
            train, dev, test = seti_tasks.shuffle_in_distribution(train, dev, test, rng)
        built = seti_tasks.build(2, "non-trivial", config, pool, verbs, 4, n_few=16)
        for split, frame in {"train": train, "dev": dev, "test": test, "few": few}.items():
            assert getattr(built, split).equals(frame), (config, split)
    assert len({len(t) for t in seti_tasks.balance_types(types, np.random.default_rng(0))}) == 1


def test_each_invariant_says_where_it_applies(datasets):
    applies = {
        what: sorted(key for key, data in datasets.items() if check(data, None))
        for what, check in seti_tasks.INVARIANTS.items()
    }
    assert len(applies["compositional labels follow their rules"]) == 2 * len(seti_tasks.TASK_SETUPS)
    assert applies["CG tests and trains the rules §3.2 names"] == sorted(
        (t, s, "cg") for t, s in seti_tasks.TASK_SETUPS
    )
    assert applies["non-trivial CG: no test sentence in training"] == sorted(
        (t, s, "cg") for t, s in seti_tasks.TASK_SETUPS if "non-trivial" in s
    )
    assert applies["task 1 non-trivial CG: test substitutions seen in training"] == [(1, "non-trivial", "cg")]
