"""SETI: the SICK loader, natural-inference extraction, the Boolean rules and the seven settings' invariants."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtlib.data import DataFormatError
from mtlib.data.sick import FULL_COLUMNS, load_sick
from mtlib.experiments import seti
from mtlib.experiments.seti._scoring import _stratified as stratified
from mtlib.models.training.baseline import majority_baseline
from mtlib.models.training.settings import ClassifierSettings
from mtlib.run.results import RUN_KEYS
from mtlib.utils.context import RunContext
from mtlib.utils.rules import ParameterError

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = ROOT / "data" / "nli_pool" / "SICK.txt"
GENERATOR = ROOT / "data" / "nli_pool" / "make_sick.py"

# A hand-made SICK file: 3 lexical pairs, 2 active/passive pairs (one with swapped roles), and 4 pairs
# the extractor must skip (unrelated, two words changed, determiner only, negation).
FIXTURE_ROWS = [
    (
        "1",
        "A boy is jumping into the water",
        "A kid is jumping into the water",
        "ENTAILMENT",
        "A_entails_B",
        "B_neutral_A",
    ),
    ("2", "A woman is smiling", "A man is smiling", "CONTRADICTION", "A_contradicts_B", "B_contradicts_A"),
    ("3", "A man is cutting a potato", "A man is slicing a potato", "ENTAILMENT", "A_entails_B", "B_entails_A"),
    (
        "4",
        "The detective is following the man",
        "The man is being followed by the detective",
        "ENTAILMENT",
        "A_entails_B",
        "B_entails_A",
    ),
    (
        "5",
        "A dog is being chased by a cat",
        "A dog is chasing a cat",
        "CONTRADICTION",
        "A_contradicts_B",
        "B_contradicts_A",
    ),
    ("6", "A fish is being sliced by a man", "A cat is jumping into a box", "NEUTRAL", "A_neutral_B", "B_neutral_A"),
    ("7", "A boy is running in the park", "A girl is running in the garden", "NEUTRAL", "A_neutral_B", "B_neutral_A"),
    ("8", "A boy is running in the park", "The boy is running in the park", "ENTAILMENT", "A_entails_B", "B_entails_A"),
    (
        "9",
        "A car is being driven by a man",
        "A car is not being driven by a man",
        "CONTRADICTION",
        "A_contradicts_B",
        "B_contradicts_A",
    ),
]


def _write_sick(path: Path, rows, header=FULL_COLUMNS) -> Path:
    lines = ["\t".join(header)]
    for pid, a, b, label, ab, ba in rows:
        lines.append("\t".join([pid, a, b, label, "4.2", ab, ba, a, b, "FLICKR", "FLICKR", "TRAIN"]))
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    return path


@pytest.fixture(scope="module")
def pool() -> pd.DataFrame:
    return seti.extract_natural_inferences(load_sick(BUNDLED))


@pytest.fixture(scope="module")
def datasets(pool):
    built, skipped = seti.build_all(pool, seed=3, n_few=32)
    assert not skipped
    return built


# --- loader ---------------------------------------------------------------------------------------


def test_load_bundled_sick_has_the_real_layout():
    raw = BUNDLED.read_bytes()
    assert raw.endswith(b"\r\n") and raw.count(b"\r\n") == raw.count(b"\n"), "CRLF line ends as in the real file"
    frame = load_sick(BUNDLED)
    assert list(frame.columns[:12]) == list(FULL_COLUMNS)
    assert (
        frame["pair_ID"].is_unique and frame["entailment_label"].isin(["ENTAILMENT", "NEUTRAL", "CONTRADICTION"]).all()
    )
    assert frame["line"].iloc[0] == 2


def test_load_semeval_layout(tmp_path):
    path = tmp_path / "SICK_train.txt"
    path.write_text(
        "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
        "1\tA boy is jumping\tA kid is jumping\t4.5\tENTAILMENT\n"
    )
    frame = load_sick(path)
    pool = seti.extract_natural_inferences(frame)
    assert list(pool["direction"]) == ["AB"] and pool["label"].tolist() == [1]  # no B->A without entailment_BA


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda h, r: (h.replace("entailment_AB", "entailment_X"), r), "missing ['entailment_AB']"),
        (lambda h, r: (h, r.replace("\tCONTRADICTION\t", "\tCONTRA\t", 1)), "entailment_label in"),
        (lambda h, r: (h, r.replace("A_contradicts_B", "A_follows_B", 1)), "entailment_AB in"),
        (lambda h, r: (h, "\t".join(r.split("\t")[:3])), "12 tab-separated columns"),
        (lambda h, r: (h, r.replace("4.2", "high", 1)), "numeric relatedness_score"),
    ],
)
def test_bad_sick_input_names_file_line_and_expectation(tmp_path, mutate, expected):
    good = _write_sick(tmp_path / "good.txt", FIXTURE_ROWS[:2]).read_text().splitlines()
    header, row = mutate(good[0], good[2])
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join([header, good[1], row]) + "\n")
    with pytest.raises(DataFormatError) as err:
        load_sick(bad)
    assert str(bad) in str(err.value) and expected in str(err.value)
    assert err.value.line == 1 if "missing" in expected else err.value.line == 3


def test_unknown_header_lists_both_layouts(tmp_path):
    bad = tmp_path / "x.txt"
    bad.write_text("a\tb\n1\t2\n")
    with pytest.raises(DataFormatError, match="entailment_judgment"):
        load_sick(bad)


# --- extraction -----------------------------------------------------------------------------------


def test_extraction_on_hand_made_fixture(tmp_path):
    pool = seti.extract_natural_inferences(load_sick(_write_sick(tmp_path / "SICK.txt", FIXTURE_ROWS)))
    assert set(pool["pair_ID"]) == {1, 2, 3, 4, 5}
    lex = pool[pool["type"] == "lexical"].set_index(["pair_ID", "direction"])
    assert lex.loc[(1, "AB"), "rule"] == "boy→kid" and lex.loc[(1, "AB"), "label"] == 1
    assert lex.loc[(1, "BA"), "rule"] == "kid→boy" and lex.loc[(1, "BA"), "label"] == 0  # B_neutral_A
    assert lex.loc[(3, "BA"), "label"] == 1 and lex.loc[(2, "AB"), "label"] == 0
    stru = pool[pool["type"] == "structural"].set_index(["pair_ID", "direction"])
    assert stru.loc[(4, "AB"), "rule"] == "active→passive" and stru.loc[(4, "AB"), "relation"] == "same"
    assert stru.loc[(5, "AB"), "rule"] == "passive→active" and stru.loc[(5, "AB"), "relation"] == "swapped"
    assert stru["label"].tolist().count(1) == 2
    assert len(pool) == 10  # both directions of the five pairs


def test_structural_match_handles_irregular_and_changed_content():
    assert seti.structural_match("A man is driving a car", "A car is being driven by a man") == "same"
    assert seti.structural_match("A man is carrying a box", "A box is being carried by a man") == "same"
    assert seti.structural_match("A man is slicing a potato", "A tomato is being sliced by a man") == "changed"
    assert seti.structural_match("A man is slicing a potato", "A potato is being eaten by a man") is None
    assert seti.structural_match("A man is slicing a potato", "A man is slicing a tomato") is None


def test_bundled_pool_sizes(pool):
    ab = pool[pool["direction"] == "AB"]
    counts = ab["type"].value_counts()
    assert counts["lexical"] >= 800 and counts["structural"] >= 300
    assert set(pool.groupby("type")["label"].nunique()) == {2}
    assert set(pool.loc[pool["type"] == "structural", "relation"]) == {"same", "swapped", "changed"}
    assert len(load_sick(BUNDLED)) > ab["pair_ID"].nunique(), "unrelated pairs are skipped"


def test_generator_reproduces_committed_file(tmp_path):
    out = tmp_path / "SICK.txt"
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(out)], check=True, capture_output=True)
    assert out.read_bytes() == BUNDLED.read_bytes()


# --- verbs and rules ------------------------------------------------------------------------------


def test_table6_verbs_and_template():
    verbs = seti.verb_table()
    assert len(verbs) == 30 and verbs["veridical"].sum() == 15 and verbs["verb"].is_unique
    forms = dict(zip(verbs["verb"], verbs["form"]))
    assert forms["realize"] == "realizes" and forms["wish"] == "wishes" and forms["imply"] == "implies"
    assert seti.veridical_premises(["hopes"], ["A man is eating a pizza."]) == [
        "Someone hopes that a man is eating a pizza"
    ]


def test_boolean_rules_table():
    table = seti.rules_table()
    assert table.loc[1, ["PI_ver", "PI_nat", "CI"]].tolist() == [True, True, 1]
    assert table.loc[2, ["PI_ver", "PI_nat", "CI"]].tolist() == [True, False, 0]
    assert table.loc[3, ["PI_ver", "PI_nat", "CI"]].tolist() == [False, True, 0]
    assert table.loc[4, ["PI_ver", "PI_nat", "CI"]].tolist() == [False, False, 0]
    v, n = np.array([1, 1, 0, 0]), np.array([1, 0, 1, 0])
    assert seti.rule_of(v, n).tolist() == [1, 2, 3, 4]
    assert seti.composed_label(v, n).tolist() == [1, 0, 0, 0]


# --- builder --------------------------------------------------------------------------------------


@pytest.mark.parametrize("task, setting", seti.SETTINGS)
def test_every_setting_keeps_its_invariants(datasets, task, setting):
    cg, iid = datasets[(task, setting, "cg")], datasets[(task, setting, "id")]
    seti.check_invariants(cg)
    seti.check_invariants(iid)
    assert set(cg.test["rule"]) == seti.TEST_RULES[(task, setting)], "every rule §3.2 names is tested"
    if (task, setting) == (2, "non-trivial"):
        assert (cg.test["label"] == 0).all(), "Task 2 non-trivial tests rules ② and ③ only: all non-entailment"
    trained = pd.concat([cg.train, cg.dev])
    types = trained["kind"].value_counts()
    if trained["kind"].nunique() == 2:
        assert types.iloc[0] - types.iloc[1] <= 1, f"training types balanced (Appendix B): {types.to_dict()}"
    assert len(cg.few) == 32 and set(cg.few["rule"]) == seti.TEST_RULES[(task, setting)]
    assert len(set(cg.few["rule"].iloc[: len(seti.TEST_RULES[(task, setting)])])) == len(
        seti.TEST_RULES[(task, setting)]
    )
    if "non-trivial" in setting:
        seen = set(trained["s"]) | set(trained["hypothesis"])
        assert not (set(cg.test["s"]) | set(cg.test["hypothesis"])) & seen
    # In-Distribution: the same items, randomly split with the same sizes (its own D_few is not reserved)
    assert (len(iid.train), len(iid.dev)) == (len(cg.train), len(cg.dev))
    every = Counter(
        zip(
            pd.concat([iid.train, iid.dev, iid.test])["premise"],
            pd.concat([iid.train, iid.dev, iid.test])["hypothesis"],
        )
    )
    assert max(every.values()) >= 1 and set(iid.test["kind"]) >= {"CI"}


def test_invariant_checks_catch_a_broken_label(datasets):
    data = datasets[(2, "trivial", "cg")]
    broken = seti.SetiData(data.task, data.setting, data.config, data.train.copy(), data.dev, data.test)
    row = broken.train.index[broken.train["rule"] == 2][0]
    broken.train.loc[row, "label"] = 1
    with pytest.raises(AssertionError, match="breaks its rule"):
        seti.check_invariants(broken)


def test_invariant_checks_catch_a_leaked_sentence(datasets):
    data = datasets[(2, "non-trivial", "cg")]
    leaked = pd.concat([data.train, data.test.iloc[:1]], ignore_index=True).assign(
        rule=lambda d: d["rule"].where(d.index < len(data.train), 1),
        label=lambda d: d["label"].where(d.index < len(data.train), 1),
    )
    with pytest.raises(AssertionError, match="occur in training"):
        seti.check_invariants(seti.SetiData(2, "non-trivial", "cg", leaked, data.dev, data.test))


def test_task1_non_trivial_reuses_the_substitution_rules(datasets):
    data = datasets[(1, "non-trivial", "cg")]
    known = set(data.train.loc[data.train["kind"] == "PI_lex", "nat_rule"]) | set(
        data.dev.loc[data.dev["kind"] == "PI_lex", "nat_rule"]
    )
    assert set(data.test["nat_rule"]) <= known and len(set(data.test["nat_rule"])) > 10


def test_build_is_deterministic(pool):
    a = seti.build(3, "non-trivial-R_nat", "id", pool, seed=5)
    b = seti.build(3, "non-trivial-R_nat", "id", pool, seed=5)
    pd.testing.assert_frame_equal(a.test, b.test)


def test_unknown_names_list_the_valid_ones(pool):
    with pytest.raises(seti.SetiError, match=r"valid: \(1, 'trivial'\)"):
        seti.build(4, "trivial", "cg", pool)
    with pytest.raises(seti.SetiError, match="valid: cg, id"):
        seti.build(1, "trivial", "ood", pool)


def test_pool_without_structural_pairs_skips_with_reason(pool):
    lexical_only = pool[pool["type"] == "lexical"]
    built, skipped = seti.build_all(lexical_only, configs=("cg",))
    assert set(skipped) == {(2, "trivial"), (3, "trivial")}
    assert all("structural" in reason for reason in skipped.values())
    assert len(built) == 5


def test_custom_verbs_and_template(pool):
    data = seti.build(
        1,
        "trivial",
        "cg",
        seti.subsample_pool(pool, 40, 0),
        verbs={"know": True, "guess": False},
        template="Somebody {verb} that {s}.",
    )
    assert set(data.test["verb"]) == {"know", "guess"}
    assert data.test["premise"].str.startswith(("Somebody knows that ", "Somebody guesses that ")).all()


def test_table5_side_by_side(datasets):
    table = seti.table5(datasets)
    row = table.loc[(2, "non-trivial", "CI")]
    assert row["paper_cg_test"] == 31620 and row["cg_test"] == len(datasets[(2, "non-trivial", "cg")].test)
    assert row["id_train"] == len(datasets[(2, "non-trivial", "id")].train)


# --- models ---------------------------------------------------------------------------------------


def test_each_unique_sentence_is_encoded_once(pool):
    """The universe is encoded once; every setting, seed and shot budget then adds no model call."""
    import mtlib

    small = seti.subsample_pool(pool, 60, 20, seed=1)
    built, _ = seti.build_all(small, n_few=4, settings=[(2, "non-trivial"), (3, "non-trivial-R_nat")])
    encoder = mtlib.models.load("minilm-static")
    sentences = seti.universe(small)
    assert set().union(*(data.sentences() for data in built.values())) <= set(sentences)
    encoder.embed(sentences)
    calls = encoder.calls
    assert calls >= 1
    for data in built.values():
        for seed, shots in ((0, 0), (1, 4)):
            train = seti.with_shots(data, shots) if data.config == "cg" else data.train
            out = seti.head_predictions(encoder, train, data.test, dev=data.dev, seed=seed, head="linear")
            assert out["pred"].shape == (len(data.test),) and 0 <= out["dev_accuracy"] <= 1
    assert encoder.calls == calls, "no sentence went through the model twice"


def test_accuracy_by_rule_and_baseline(datasets):
    data = datasets[(1, "trivial", "cg")]
    pred = np.zeros(len(data.test), dtype=int)  # "never entailed"
    table = seti.accuracy_by_rule(data.test, pred)
    assert table.loc["① rule 1", "accuracy"] == 0.0 and table.loc["③ rule 3", "accuracy"] == 1.0
    assert majority_baseline(data.test["label"]) == max(
        (data.test["label"] == 0).mean(), (data.test["label"] == 1).mean()
    )


def test_findings_are_computed_from_numbers():
    rows = []
    for seed in range(3):
        for setting, cg, iid in (("non-trivial", 0.5 + 0.01 * seed, 0.9), ("non-trivial-R_ver", 0.97, 0.99)):
            task = 2 if setting == "non-trivial" else 3
            rows += [
                {"model": "m", "task": task, "setting": setting, "config": "cg", "seed": seed, "accuracy": cg},
                {"model": "m", "task": task, "setting": setting, "config": "id", "seed": seed, "accuracy": iid},
            ]
    few = pd.DataFrame(
        [
            {"model": "m", "task": 2, "setting": "non-trivial", "shots": k, "seed": 0, "accuracy": a}
            for k, a in ((0, 0.5), (1, 0.55), (2, 0.8))
        ]
    )
    table = seti.findings(pd.DataFrame(rows), few).set_index("finding")
    assert table.loc["ID > CG, task 2 non-trivial", "holds"]
    assert table.loc["task 2 non-trivial CG near 50%", "holds"]
    assert table.loc["task 3 -R_ver CG high (verb shortcut)", "holds"]
    assert table.loc["few-shot: task 2 non-trivial gains by 2 shots", "value"] == pytest.approx(0.3)


# --- few-shot: fine-tuned models, add or continue (§5.2) ------------------------------------------


@pytest.fixture(scope="module")
def few_data(pool):
    small = seti.subsample_pool(pool, 30, 12, seed=0)
    built, _ = seti.build_seeds(
        small, [0], settings=[(2, "non-trivial"), (3, "non-trivial-R_nat")], configs=["cg"], n_few=4
    )
    return built


@pytest.mark.parametrize(
    "how,mode,head", [("head", "continue", "mlp"), ("finetune", "add", "linear"), ("finetune", "continue", "linear")]
)
def test_fewshot_modes_and_finetuned_models(few_data, how, mode, head):
    import mtlib

    encoder = mtlib.models.load("minilm-static")
    # a fine-tune takes its settings whole; a head's fit gets its epochs as a factory option
    fit = ClassifierSettings(epochs=1) if how == "finetune" else ClassifierSettings(head=head)
    extra = dict(device="cpu") if how == "finetune" else dict(epochs=5)
    max_train = 40 if how == "finetune" else 120
    shots = [0, 1, 4]
    out = seti.evaluate_fewshot(
        encoder,
        "static",
        few_data,
        shots,
        how=how,
        mode=mode,
        fewshot_epochs=3,
        head=head,
        max_train=max_train,
        settings=fit if how == "finetune" else None,
        **extra,
    )
    assert len(out) == len(few_data) * len(shots) and set(out["shots"]) == set(shots)
    assert out["accuracy"].between(0, 1).all() and (out["mode"] == mode).all()
    assert (out["model"] == ("static-ft" if how == "finetune" else "static")).all()
    if mode == "continue":  # 0 shots is the D_train model itself; shots only continue from it
        key, data = next(iter(few_data.items()))
        train = stratified(data.train, max_train, key[3], ["kind", "rule"])
        first = seti.pair_classifier(encoder, train, how=how, settings=fit, seed=key[3], **extra)
        acc0 = float((seti.pair_predictions(first, data.test) == data.test["label"].to_numpy()).mean())
        row = out[(out["task"] == key[0]) & (out["setting"] == key[1]) & (out["shots"] == 0)]
        assert row["accuracy"].item() == pytest.approx(acc0)
        more = seti.pair_classifier(
            encoder, data.few.iloc[:4], how=how, settings=fit, seed=key[3], init=first, **{**extra, "epochs": 3}
        )
        p0, p4 = (c.classify(list(data.test["premise"]), list(data.test["hypothesis"])) for c in (first, more))
        assert not np.allclose(p0, p4)


def test_fewshot_add_mode_with_heads_is_unchanged(few_data):
    """The default (frozen head, D_few added) is the former code path: the same numbers as head_predictions."""
    import mtlib

    encoder = mtlib.models.load("minilm-static")
    out = seti.evaluate_fewshot(
        encoder, "static", few_data, [0, 2], how="head", mode="add", fewshot_epochs=3, head="linear", max_train=120
    )
    key, data = next(iter(few_data.items()))
    train = stratified(data.train, 120, key[3], ["kind", "rule"])
    pred = seti.head_predictions(
        encoder,
        pd.concat([train, data.few.iloc[:2]], ignore_index=True),
        data.test,
        dev=data.dev,
        seed=key[3],
        head="linear",
    )["pred"]
    row = out[(out["task"] == key[0]) & (out["setting"] == key[1]) & (out["shots"] == 2)]
    assert row["accuracy"].item() == pytest.approx(float((pred == data.test["label"].to_numpy()).mean()))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(how="frozen"), "fewshot_how='frozen' is not one of"),
        (dict(mode="append"), "fewshot_mode='append' is not one of"),
        (dict(epochs=0), "positive integer"),
        (dict(epochs=2.5), "positive integer"),
        (dict(mode="continue", head="linear"), "head='mlp' or fewshot_how"),
    ],
)
def test_bad_fewshot_parameters_are_clear(few_data, kwargs, match):
    good = dict(how="head", mode="add", epochs=3, head="linear")
    with pytest.raises(seti.SetiError, match=match):
        seti.check_fewshot(**{**good, **kwargs})
    args = {("fewshot_epochs" if k == "epochs" else k): v for k, v in {**good, **kwargs}.items()}
    with pytest.raises(seti.SetiError, match=match):
        seti.evaluate_fewshot(None, "m", few_data, [0], max_train=0, **args)
    # the spec refuses the same choices before anything runs, naming the parameter
    spec_args = {("fewshot_" + k if k in ("how", "mode", "epochs") else k): v for k, v in kwargs.items()}
    with pytest.raises(ParameterError, match="fewshot_"):
        seti.Spec(**spec_args)


def test_fewshot_finetune_needs_the_finetune_settings(few_data):
    with pytest.raises(seti.SetiError, match="needs the fine-tuning's settings"):
        seti.evaluate_fewshot(
            None, "m", few_data, [0], how="finetune", mode="add", fewshot_epochs=3, head="linear", max_train=0
        )


def test_reports_give_the_one_key_scheme():
    rows = [
        {"model": m, "task": 2, "setting": "non-trivial", "config": c, "seed": s, "accuracy": a, "baseline": 0.5}
        for m in ("a", "b")
        for c, a0 in (("cg", 0.5), ("id", 0.9))
        for s, a in ((0, a0), (1, a0 + 0.1))
    ]
    few = pd.DataFrame(
        [
            {"model": "a", "task": 2, "setting": "non-trivial", "shots": k, "seed": 0, "accuracy": x}
            for k, x in ((0, 0.5), (2, 0.8))
        ]
    )
    every = seti.concat(
        [
            seti.SetiReport("a", pd.DataFrame(rows[:4])),
            seti.SetiReport("b", pd.DataFrame(rows[4:])),
            seti.SetiReport("a", fewshot=few),
        ]
    )
    parts = seti.by_model(seti.concat([every, seti.test_findings(every)]))
    assert list(parts) == ["a", "b"]
    m = parts["a"].metrics()
    assert m["accuracy/task2/non-trivial/cg"] == pytest.approx(0.55)
    assert m["accuracy/task2/non-trivial/id/seed1"] == pytest.approx(1.0)
    assert m["baseline/task2/non-trivial/cg"] == 0.5
    assert m["fewshot/task2/2"] == pytest.approx(0.8)
    assert m["finding/ID > CG, task 2 non-trivial"] is True
    assert m["finding/few-shot: task 2 non-trivial gains by 2 shots"] is True
    assert not any(k.startswith(("models/", "a/")) for k in m)  # the run adds the model prefix
    assert "fewshot/task2/2" not in parts["b"].metrics()
    assert set(parts["a"].headline) <= set(m)
    assert "CG 0.550 vs ID 0.950" in parts["a"].task2_sentence()


def test_parse_settings():
    assert seti.parse_settings(["1/trivial", "3/non-trivial-R_ver"]) == [(1, "trivial"), (3, "non-trivial-R_ver")]
    assert seti.parse_settings(["all"]) == list(seti.SETTINGS)
    with pytest.raises(seti.SetiError, match="task1/trivial|<task>/<setting>"):
        seti.parse_settings(["task1/trivial"])
    with pytest.raises(seti.SetiError, match="'all' .* stands alone"):
        seti.parse_settings(["all", "1/trivial"])


# --- notebook 07's spec and run(spec) -------------------------------------------------------------

#: A small notebook 07: one seed, the static MiniLM with a head, fine-tuned on one setting, few-shot curves.
SMALL = dict(
    profile="smoke",
    device="cpu",
    seeds=[0],
    n_lexical=30,
    n_structural=12,
    head_models=["minilm-static"],
    max_train=150,
    finetune_models=["minilm-static"],
    finetune_tasks=["1/trivial"],
    finetune_seeds=[0],
    finetune_train_size=16,
    finetune_test_size=16,
    finetune_settings={"epochs": 1, "batch_size": 16},
    fewshot_models=["minilm-static"],
    shots=[0, 2],
)


def test_spec_is_the_notebooks_one_declaration():
    from mtlib.experiments import spec_for

    assert spec_for("07") is seti.Spec
    spec = seti.Spec()
    settings = spec.finetune()  # the paper's recipe at small scale, as the fine-tuning had it before
    assert (settings.epochs, settings.lr, settings.batch_size, settings.max_length) == (2, 5e-5, 16, 128)
    assert spec.tasks() == [(1, "trivial"), (2, "non-trivial")]
    assert seti.Spec(finetune_tasks=["all"]).tasks() == list(seti.SETTINGS)
    assert 'finetune_tasks: list = ["1/trivial", "2/non-trivial"]' in seti.Spec.cell()


@pytest.mark.parametrize(
    "values,match",
    [
        (dict(finetune_tasks=["4/trivial"]), "one of all, 1/trivial"),
        (dict(finetune_tasks=["all", "1/trivial"]), "stands alone"),
        (dict(finetune_settings={"learning_rate": 1e-5}), r"unknown key\(s\) \['learning_rate'\]"),
        (dict(finetune_settings={"epochs": 0}), "epochs must be a whole number"),
        (dict(head="logreg"), "one of linear, mlp"),
        (dict(seeds=[]), "at least one entry"),
        (dict(epochs=2), "no such parameter"),  # folded into finetune_settings
    ],
)
def test_spec_refuses_bad_values_naming_the_parameter(values, match):
    with pytest.raises(ParameterError, match=match):
        seti.Spec.from_values(values)


@pytest.fixture(scope="module")
def small_outcome(tmp_path_factory):
    spec = seti.Spec(**SMALL, out_dir=str(tmp_path_factory.mktemp("seti_run")))
    return seti.run(spec)


def _recorded(run) -> dict:
    return {k: v for k, v in run.metrics.items() if k not in RUN_KEYS and not k.startswith("timing/")}


def test_run_gives_the_keys_the_notebook_records(small_outcome):
    from mtlib.run import results

    spec = small_outcome.spec
    run = results.Run.from_spec(spec)
    run.record_outcome(small_outcome)
    assert _recorded(run) == small_outcome.metrics()
    assert run.headline == ["pool/lexical", "pool/structural", "pool/sick_pairs", "pool/used_inferences"] + [
        "accuracy/task2/non-trivial/cg",
        "accuracy/task2/non-trivial/id",
    ]
    m = small_outcome.metrics()
    assert list(small_outcome.reports) == ["minilm-static", "minilm-static-ft"]
    assert {"accuracy/task1/trivial/cg/seed0", "fewshot/task2/2", "head_device", "encoder_device"} <= set(m)
    assert "models/minilm-static-ft/accuracy/task1/trivial/cg" in m
    assert "accuracy/task1/non-trivial/id" in m and "models/minilm-static-ft/accuracy/task1/non-trivial/id" not in m
    assert "finding/ID > CG, task 2 non-trivial" in m


def test_run_records_what_the_notebook_recorded_part_by_part(small_outcome, tmp_path):
    """run(spec) merges each model row's reports; recording them one by one (the notebook before the spec) gives
    the same keys and values."""
    from mtlib.run import results

    spec, data = small_outcome.spec, small_outcome.data
    old = results.Run("07_seti", profile="smoke", out_dir=str(tmp_path), params={}, checked=True)
    old.record_report(data.pool)
    head = seti.head_report(
        "minilm-static", data.datasets, data.pool.pool, template=spec.template, head="linear", max_train=150,
        context=RunContext.resolve(device="cpu"),
    )  # fmt: skip
    old.record_report(head, model=head.model, primary=True)
    tuned = seti.finetune_report(
        "minilm-static", data.datasets, tasks=["1/trivial"], seeds=[0], train_size=16, test_size=16,
        settings=ClassifierSettings(epochs=1, batch_size=16), context=RunContext.resolve(device="cpu"),
    )  # fmt: skip
    old.record_report(tuned, model=tuned.model, primary=False)
    few = seti.fewshot_report(
        "minilm-static", data.few, [0, 2], how="head", mode="add", fewshot_epochs=3, head="linear", max_train=150,
        finetune_train_size=16, settings=spec.finetune(), context=RunContext.resolve(device="cpu"),
    )  # fmt: skip
    old.record_report(few, model=few.model, primary=True)
    tests = seti.test_findings(seti.concat([seti.concat([head, tuned]), seti.concat([few])]))
    for name, part in seti.by_model(tests).items():
        old.record_report(part, model=name, primary=name == "minilm-static")
    assert _recorded(old) == small_outcome.metrics()
    every = seti.concat(small_outcome.reports.values())
    assert every.scores.equals(seti.concat([head, tuned]).scores)
    assert every.fewshot.equals(few.fewshot.reset_index(drop=True))
