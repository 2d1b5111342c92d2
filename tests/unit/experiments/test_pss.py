"""Polarity Sensitivity Scoring: cleaning rules, the score, intervals, paired tests, tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.data import papers
from mtlib.experiments import pss
from mtlib.models.training.settings import ClassifierSettings
from mtlib.run.results import RUN_KEYS
from mtlib.utils.context import RunContext


def _pairs(rows):
    return pd.DataFrame(rows, columns=["source", "rewrite", "direction"])


# one hand-made pair per case the rules exist for
CASES = [
    ("the food was bad .", "the food was bad .", "neg_to_pos", "copy"),
    ("the food was bad .", "The  food was BAD . ", "neg_to_pos", "copy"),  # case and spacing only
    ("the food was not good .", "the food was good .", "neg_to_pos", "adds_no_word"),  # removed "not"
    ("the staff was rude and slow .", "the staff was slow .", "neg_to_pos", "adds_no_word"),
    ("bad food . slow service .", "slow service . bad food .", "neg_to_pos", "adds_no_word"),  # reordered
    ("the food was bad .", "the food was great .", "neg_to_pos", "kept"),
    ("the pizza was great .", "the pasta was awful .", "pos_to_neg", "kept"),  # content changed: kept
    ("we loved it .", "we hated it .", "pos_to_neg", "kept"),
    ("we loved it .", "we loved it .", "pos_to_neg", "copy"),
    ("i was not disappointed .", "i was disappointed .", "pos_to_neg", "adds_no_word"),
]


def test_clean_pairs_applies_every_rule_and_reports_it():
    pairs = _pairs([c[:3] for c in CASES])
    kept, report = pss.clean_pairs(pairs)
    expected_kept = [i for i, c in enumerate(CASES) if c[3] == "kept"]
    assert kept.index.tolist() == expected_kept
    assert list(kept.columns) == ["source", "rewrite", "direction"]
    assert report.loc["before cleaning", "all"] == len(CASES)
    assert report.loc[pss.RULE_NAMES["copy"], "all"] == 3
    assert report.loc[pss.RULE_NAMES["adds_no_word"], "all"] == 4
    assert report.loc["kept", "all"] == 3
    assert report.loc["kept", "neg_to_pos"] == 1 and report.loc["kept", "pos_to_neg"] == 2
    assert report.loc[pss.RULE_NAMES["copy"], "pos_to_neg"] == 1
    # counts add up per column
    removed = report.loc[[pss.RULE_NAMES[r] for r in pss.RULES]].sum()
    assert (report.loc["before cleaning"] == removed + report.loc["kept"]).all()


def test_clean_pairs_tokenisation_choice():
    pairs = _pairs([("it 's great .", "it's great.", "pos_to_neg")])
    # whitespace tokens: "it's" and "great." are new words, so the pair is kept
    assert len(pss.clean_pairs(pairs, tokenize="whitespace")[0]) == 1
    # word tokens: the same words, a copy
    kept, report = pss.clean_pairs(pairs, tokenize="words")
    assert kept.empty and report.loc[pss.RULE_NAMES["copy"], "all"] == 1
    with pytest.raises(ValueError, match="tokenize"):
        pss.clean_pairs(pairs, tokenize="spacy")


def test_cleaning_that_empties_the_list_is_a_message_not_a_crash():
    pairs = _pairs([("a b .", "a b .", "neg_to_pos"), ("a b c .", "a c .", "pos_to_neg")])
    kept, report = pss.clean_pairs(pairs)
    assert kept.empty and list(kept.columns) == ["source", "rewrite", "direction"]
    note = pss.cleaning_note(report)
    assert "kept 0 of 2" in note and "undefined" in note
    table = pss.prediction_table(kept, [], [])
    assert np.isnan(pss.pss(table))
    assert all(np.isnan(pss.pss_interval(table["both_right"].to_numpy(), n_boot=20)))


def test_clean_pairs_rejects_bad_input():
    with pytest.raises(KeyError, match="direction"):
        pss.clean_pairs(pd.DataFrame({"source": ["a"], "rewrite": ["b"]}))
    with pytest.raises(ValueError, match="unknown direction"):
        pss.clean_pairs(_pairs([("a", "b", "sideways")]))


def test_pss_on_a_hand_made_prediction_table():
    pairs = _pairs(
        [
            ("s1", "r1", "neg_to_pos"),
            ("s2", "r2", "neg_to_pos"),
            ("s3", "r3", "pos_to_neg"),
            ("s4", "r4", "pos_to_neg"),
            ("s5", "r5", "neg_to_pos"),
        ]
    )
    # gold: neg_to_pos -> (0, 1); pos_to_neg -> (1, 0)
    pred_source = [0, 0, 1, 0, 1]
    pred_rewrite = [1, 0, 0, 0, 1]
    table = pss.prediction_table(pairs, pred_source, pred_rewrite)
    assert table["both_right"].tolist() == [True, False, True, False, False]
    assert pss.pss(table) == pytest.approx(2 / 5)
    assert table["source_right"].sum() == 3 and table["rewrite_right"].sum() == 4
    assert pss.relative_pss(0.4, 0.8) == pytest.approx(0.5)
    assert np.isnan(pss.relative_pss(0.4, 0.0))


def test_labels_other_than_zero_and_one_are_rejected():
    pairs = _pairs([("s", "r", "neg_to_pos")])
    with pytest.raises(ValueError, match="0 .negative. or 1"):
        pss.prediction_table(pairs, [2], [1])
    with pytest.raises(ValueError, match="1 pairs but"):
        pss.prediction_table(pairs, [0, 1], [1])


def test_bootstrap_interval_brackets_the_estimate_and_is_seeded():
    both = np.r_[np.ones(70), np.zeros(30)].astype(bool)
    lo, hi = pss.pss_interval(both, n_boot=500, seed=3)
    assert lo < 0.7 < hi and 0.55 < lo and hi < 0.85
    assert (lo, hi) == pss.pss_interval(both, n_boot=500, seed=3)
    assert pss.pss_interval(np.ones(10, bool), n_boot=50) == (1.0, 1.0)


def test_mcnemar_counts_discordant_pairs():
    a = np.array([1, 1, 1, 1, 1, 1, 0, 0, 1, 0], bool)
    b = np.array([1, 0, 0, 0, 0, 0, 0, 1, 1, 0], bool)
    t = pss.mcnemar(a, b)
    assert (t["a_only"], t["b_only"]) == (5, 1)
    assert t["p_value"] == pytest.approx(0.21875)  # exact binomial: 2 * P(X <= 1 | n=6)
    assert t["difference"] == pytest.approx(0.4)
    assert pss.mcnemar(a, a)["p_value"] == 1.0


def _outcome(setting, seed, both, test_correct, direction=None):
    n = len(both)
    direction = direction or ["neg_to_pos"] * n
    pairs = _pairs([(f"s{i}", f"r{i}", d) for i, d in enumerate(direction)])
    ys, yr = pss.gold_labels(pairs["direction"])
    table = pss.prediction_table(pairs, ys, np.where(both, yr, 1 - yr))
    return pss.Outcome(setting, seed, np.asarray(test_correct, bool), table, 0.5)


def test_tables_from_outcomes():
    fb, ft = pss.Setting("enc", "linear", "FB"), pss.Setting("enc", "linear", "FT")
    dnn = pss.Setting("enc", "mlp", "FB")
    direction = ["neg_to_pos"] * 4 + ["pos_to_neg"] * 4
    outs = [
        _outcome(fb, 0, [1, 0, 0, 0, 1, 0, 1, 0], [1, 1, 0, 0], direction),
        _outcome(fb, 1, [1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 1, 0], direction),
        _outcome(ft, 0, [1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1], direction),
        _outcome(ft, 1, [1, 1, 1, 0, 1, 1, 1, 0], [1, 1, 1, 0], direction),
        _outcome(dnn, 0, [0, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0], direction),
    ]
    t1 = pss.table1(outs, n_boot=200)
    assert t1.loc["enc/linear/FB", "pss"] == pytest.approx((3 / 8 + 4 / 8) / 2)
    assert t1.loc["enc/linear/FB", "accuracy"] == pytest.approx((2 / 4 + 3 / 4) / 2)
    assert t1.loc["enc/linear/FB", "seeds"] == 2 and np.isnan(t1.loc["enc/mlp/FB", "pss_sd"])
    assert t1.loc["enc/linear/FT", "relative"] == pytest.approx((13 / 16) / (7 / 8))
    assert t1.loc["enc/linear/FB", "final_layers"] == "Linear" and t1.loc["enc/mlp/FB", "final_layers"] == "DNN"
    row = t1.loc["enc/linear/FT"]
    assert row["pss_low"] <= row["pss"] <= row["pss_high"]
    assert row["accuracy_low"] <= row["accuracy"] <= row["accuracy_high"]

    tests = pss.paired_tests(outs)
    fbft = tests[tests["comparison"] == "FB vs FT"]
    assert fbft["seed"].tolist() == [0, 1]
    r0 = fbft.iloc[0]
    assert (r0["a_only"], r0["b_only"]) == (0, 4)
    assert r0["p_value"] == pytest.approx(0.125)
    lin = tests[tests["comparison"] == "Linear vs DNN"]
    assert len(lin) == 1 and lin.iloc[0]["b"] == "enc/mlp/FB"  # only seed 0 has a DNN partner

    d = pss.by_direction(outs, n_boot=50).set_index(["setting", "direction"])
    assert d.loc[("enc/linear/FB", "neg_to_pos"), "pss"] == pytest.approx((1 / 4 + 2 / 4) / 2)
    assert d.loc[("enc/linear/FB", "pos_to_neg"), "pss"] == pytest.approx(2 / 4)

    hard = pss.hardest_flips(outs, k=3)
    assert hard.iloc[0]["wrong"] == 5 and hard.iloc[0]["runs"] == 5
    assert hard.index[0] == 7  # the only pair every run gets wrong

    report = pss.report_from(outs, n_boot=200, seed=0, n_hardest=10)
    assert list(report.models) == ["enc"] and report.primary == "enc"
    m = report.models["enc"].metrics()
    assert m["pss/linear/FT"] == pytest.approx(13 / 16)
    assert m["pss/linear/FB/seed1"] == pytest.approx(0.5)
    assert m["pss_direction/linear/FB/pos_to_neg"] == pytest.approx(2 / 4)
    assert m["mcnemar_p/FB_vs_FT/linear/FB/seed0"] == pytest.approx(0.125)
    assert report.models["enc"].headline == ["pss/linear/FB", "pss/linear/FT", "pss/mlp/FB"]
    assert report.metrics() == {"n_settings": 3, "n_runs": 5}
    assert set(report.tables()) >= {"table1_pss", "paired_tests_mcnemar", "hardest_flips"}
    layout = pss.table1_layout(t1)
    assert layout.loc["enc/linear/FB", "PSS"].startswith("43.8 ± ")
    assert layout.loc["paper:BERT/Linear/FT", "PSS"] == "73.7"


def test_paper_table_is_internally_consistent():
    paper = pss.paper_table1()
    assert len(paper) == 14
    # the paper's relative column is PSS / accuracy x 100, to its rounding
    assert np.allclose(paper["pss"] / paper["accuracy"], paper["relative"], atol=0.006)
    assert papers.BHATHENA_PAIRS["before"] == 500 and papers.BHATHENA_PAIRS["after"] == 353


def test_settings_grid():
    grid = pss.settings_grid(["a", "b"], ["linear", "mlp"], finetune=["a"], native=["vader"])
    keys = [s.key for s in grid]
    assert keys == [
        "a/linear/FB",
        "a/mlp/FB",
        "b/linear/FB",
        "b/mlp/FB",
        "a/linear/FT",
        "a/mlp/FT",
        "vader/native/native",
    ]
    with pytest.raises(ValueError, match="not in encoders"):
        pss.settings_grid(["a"], ["linear"], finetune=["c"])
    with pytest.raises(ValueError, match="heads"):
        pss.settings_grid(["a"], ["cnn"])


def test_positive_column():
    assert pss.positive_column([0, 1]) == 1
    assert pss.positive_column(["POSITIVE", "NEGATIVE"]) == 0
    assert pss.positive_column(["negative", "neutral", "positive"]) == 2
    with pytest.raises(ValueError, match="positive class"):
        pss.positive_column(["a", "b"])


def test_figure_draws_ours_and_the_paper():
    fb = pss.Setting("enc", "linear", "FB")
    t1 = pss.table1([_outcome(fb, 0, [1, 0, 1, 1], [1, 1, 0, 1])], n_boot=50)
    fig = pss.pss_vs_accuracy(t1)
    assert len(fig.axes[0].collections) >= 1 + 14


class _Lexicon:
    """A stand-in classifier: positive when the text holds 'good', negative with 'bad', a tie otherwise."""

    labels = ["negative", "positive"]

    def __init__(self):
        self.seen: list[str] = []

    def classify(self, texts):
        self.seen += list(texts)
        pos = np.array([0.9 if "good" in t else 0.1 if "bad" in t else 0.5 for t in texts])
        return np.stack([1 - pos, pos], axis=1)


def test_predict_labels_and_evaluate_setting_with_a_known_model():
    model = _Lexicon()
    assert pss.predict_labels(model, ["good", "bad", "meh", "good"]).tolist() == [1, 0, -1, 1]
    assert model.seen == ["bad", "good", "meh"]  # each unique text once
    test = pd.DataFrame({"text": ["good day", "bad day", "plain day", "bad food"], "label": [1, 0, 1, 1]})
    pairs = _pairs(
        [
            ("bad day", "good day", "neg_to_pos"),
            ("good food", "plain food", "pos_to_neg"),
            ("good x", "bad x", "pos_to_neg"),
        ]
    )
    out = pss.evaluate_setting(model, pss.Setting("lex", "native", "native"), test, pairs)
    assert out.accuracy == pytest.approx(2 / 4)  # the tie on "plain day" counts as wrong
    assert out.table["both_right"].tolist() == [True, False, True]
    assert out.pss == pytest.approx(2 / 3)
    assert out.majority_baseline == pytest.approx(3 / 4) and out.info["undecided"] == 2


def test_run_settings_calls_the_factory_once_per_setting_and_seed():
    calls = []

    def factory(name, train, **kw):
        s = kw.get("settings")
        calls.append(
            (
                name,
                kw.get("how"),
                kw.get("head"),
                kw.get("seed"),
                len(train) if train is not None else 0,
                s.hidden if s is not None and kw.get("head") == "mlp" else None,
                s.lr if s is not None else None,
            )
        )
        return _Lexicon()

    train = pd.DataFrame({"text": ["good", "bad"] * 5, "label": [1, 0] * 5})
    ft_train = train.head(4)
    grid = pss.settings_grid(["enc"], ["linear", "mlp"], finetune=["enc"], native=["lex"])
    test = pd.DataFrame({"text": ["good", "bad"], "label": [1, 0]})
    outs = pss.run_settings(
        grid,
        train,
        test,
        _pairs([("bad", "good", "neg_to_pos")]),
        seeds=[0, 1],
        context=RunContext.resolve(),
        finetune_train=ft_train,
        classifier=factory,
        log=None,
        head_settings=ClassifierSettings(lr=3e-3),
        finetune_settings={"enc": ClassifierSettings(lr=1e-4)},
    )
    assert len(outs) == 2 * 2 + 2 * 2 + 1
    assert calls[0] == ("enc", "head", "linear", 0, 10, None, 3e-3)
    assert calls[2] == ("enc", "head", "mlp", 0, 10, pss.DNN_HIDDEN, 3e-3)  # the paper's DNN
    assert calls[4] == ("enc", "finetune", "linear", 0, 4, None, 1e-4)
    assert calls[-1][:4] == ("lex", "native", None, None)
    assert all(o.pss == 1.0 and o.accuracy == 1.0 for o in outs)


def test_settings_grid_with_fewer_fine_tuned_heads():
    grid = pss.settings_grid(["a", "b"], ["linear", "mlp"], finetune=["a", "b"], finetune_heads={"a": ["linear"]})
    assert [s.key for s in grid if s.mode == "FT"] == ["a/linear/FT", "b/linear/FT", "b/mlp/FT"]
    with pytest.raises(ValueError, match="heads"):
        pss.settings_grid(["a"], ["linear", "cnn"])
    with pytest.raises(ValueError, match="not in encoders"):
        pss.settings_grid(["a"], ["linear"], finetune_heads={"b": ["mlp"]})


def test_frozen_features_are_computed_once_for_both_heads_and_every_seed(tmp_path, monkeypatch):
    """With the real factory and minilm-static: each unique text is embedded once, whatever the settings."""
    from mtlib import models
    from mtlib.data import yelp
    from mtlib.models import factory

    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path))
    encoder = models.build(models.resolve("minilm-static"))
    embedded: list[str] = []
    token_ids = encoder.token_ids
    monkeypatch.setattr(encoder, "token_ids", lambda texts: embedded.extend(texts) or token_ids(texts))

    def factory_on_this_encoder(name, train, **kw):
        return models.classifier(encoder, train, **kw)

    sentences = yelp.load_sentences()
    train = pss.subsample(sentences[sentences["split"] == "train"], 60, seed=0)
    test = pss.subsample(sentences[sentences["split"] == "dev"], 40, seed=0)
    pairs = pss.clean_pairs(yelp.load_reference_pairs())[0].groupby("direction").head(10)
    grid = pss.settings_grid(["minilm-static"], ["linear", "mlp"])
    factory._MEMO.clear()
    fixed = dict(seeds=[0, 1], context=RunContext.resolve(), head_settings=ClassifierSettings(), finetune_settings={})
    outs = pss.run_settings(grid, train, test, pairs, **fixed, classifier=factory_on_this_encoder, log=None)
    assert len(outs) == 4 and not any(o.info["from_cache"] for o in outs)  # 4 heads trained
    unique = set(train["text"]) | set(test["text"]) | set(pairs["source"]) | set(pairs["rewrite"])
    assert sorted(embedded) == sorted(unique)  # every unique text once, for 2 heads x 2 seeds

    embedded.clear()
    factory._MEMO.clear()  # as a new process would: the heads come back from the disk cache
    again = pss.run_settings(grid, train, test, pairs, **fixed, classifier=factory_on_this_encoder, log=None)
    assert embedded == [] and all(o.info["from_cache"] for o in again)  # a rerun: no model call, no training
    assert [o.pss for o in again] == [o.pss for o in outs]


def test_clean_pairs_on_no_pairs():
    kept, report = pss.clean_pairs(_pairs([]))
    assert kept.empty and report.loc["before cleaning", "all"] == 0
    assert "No pairs" in pss.cleaning_note(report)
    with_paper = pss.cleaning_report_with_paper(report)
    assert with_paper.loc["kept", "paper (all)"] == 353


def _recorded(spec, outcome, tmp_path):
    """What notebook 05's cells record for ``outcome`` (``run.record_outcome``), as metrics.json holds it."""
    import dataclasses
    import json

    from mtlib.run.results import Run

    run = Run.from_spec(dataclasses.replace(spec, out_dir=str(tmp_path / "out")))
    run.record_outcome(outcome)
    return json.loads(run.metrics_path.read_text())


def test_run_of_a_small_spec_gives_what_the_notebook_records(tmp_path, monkeypatch):
    import json

    from mtlib.run.results import _jsonable
    from mtlib.utils.keys import timing_key

    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "cache"))
    spec = pss.Spec(
        profile="smoke",
        encoders=["minilm-static"],
        heads=["linear", "mlp"],
        finetune=["minilm-static"],
        finetune_heads={"minilm-static": ["linear"]},
        native=["vader"],
        seeds=[0],
        n_train=60,
        n_finetune=20,
        n_test=40,
        n_pairs=8,
        finetune_settings={"minilm-static": {"lr": 1e-2, "epochs": 1}},
        head_settings={"epochs": 3},
        n_boot=20,
        n_hardest=3,
    )
    outcome = pss.run(spec)
    assert list(outcome.reports) == ["minilm-static", "vader"] and outcome.primary == "minilm-static"
    cleaning, report = outcome.parts
    assert outcome.data.pairs is cleaning.pairs and len(cleaning.pairs) <= 16
    assert [o.setting.key for o in report.outcomes] == [
        "minilm-static/linear/FB",
        "minilm-static/mlp/FB",
        "minilm-static/linear/FT",
        "vader/native/native",
    ]
    metrics = outcome.metrics()
    assert metrics["pairs_after_cleaning"] == len(cleaning.pairs) and metrics["n_runs"] == 4
    assert metrics["pss/linear/FB"] == metrics["models/minilm-static/pss/linear/FB"]
    assert "models/vader/pss/native" in metrics and "pss/native" not in metrics  # vader is not the primary
    recorded = _recorded(spec, outcome, tmp_path)
    expected = {timing_key(k): _jsonable(v) for k, v in metrics.items()}
    got = {k: recorded[k] for k in expected}
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)
    extra = {k for k in recorded if k not in expected and not k.startswith("timing/")}
    assert extra == set(RUN_KEYS)
    assert recorded["_headline"] == report.models["minilm-static"].headline


def test_spec_training_blocks_become_classifier_settings_and_leave_the_head_to_the_grid():
    from mtlib.utils.rules import ParameterError

    spec = pss.Spec(head_settings={"lr": 3e-3}, finetune_settings={"minilm": {"lr": 1e-4, "epochs": 1}})
    assert isinstance(spec.head_training(), ClassifierSettings) and spec.head_training().lr == 3e-3
    assert pss.Spec().head_training() == ClassifierSettings()  # {}: the factory's defaults, as head_lr 0 was
    assert spec.finetune_training()["minilm"].epochs == 1 and "minilm-static" not in spec.finetune_training()
    assert pss.DNN_HIDDEN == tuple(ClassifierSettings().hidden)  # an mlp head is the paper's DNN by default
    for bad, message in [
        ({"head_settings": {"head": "mlp"}}, "head_settings: head is chosen by heads"),
        ({"finetune_settings": {"minilm": {"learning_rate": 1}}}, r"finetune_settings\['minilm'\]: unknown key"),
        ({"finetune_settings": {"minilm": {"epochs": 0}}}, "epochs must be a whole number"),
        ({"finetune_settings": {"glove-50d": {}}}, "expected an entry of finetune"),
    ]:
        with pytest.raises(ParameterError, match=message):
            pss.Spec(**bad)
