"""Polarity Sensitivity Scoring's building blocks: labels from a classifier, the pair table, PSS, intervals, McNemar."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.analysis import polarity_sensitivity as ps


def _pairs(rows):
    return pd.DataFrame(rows, columns=["source", "rewrite", "direction"])


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
    table = ps.prediction_table(pairs, pred_source, pred_rewrite)
    assert list(table.columns) == [
        "source",
        "rewrite",
        "direction",
        "y_source",
        "y_rewrite",
        "pred_source",
        "pred_rewrite",
        "source_right",
        "rewrite_right",
        "both_right",
    ]
    assert table["y_source"].tolist() == [0, 0, 1, 1, 0] and table["y_rewrite"].tolist() == [1, 1, 0, 0, 1]
    assert table["both_right"].tolist() == [True, False, True, False, False]
    assert ps.pss(table) == pytest.approx(2 / 5)
    assert table["source_right"].sum() == 3 and table["rewrite_right"].sum() == 4
    assert ps.relative_pss(0.4, 0.8) == pytest.approx(0.5)
    assert np.isnan(ps.relative_pss(0.4, 0.0))


def test_an_undecided_side_is_never_right():
    pairs = _pairs([("s", "r", "neg_to_pos"), ("t", "u", "pos_to_neg")])
    table = ps.prediction_table(pairs, [ps.ABSTAIN, 1], [1, ps.ABSTAIN])
    assert table["source_right"].tolist() == [False, True] and table["rewrite_right"].tolist() == [True, False]
    assert ps.pss(table) == 0.0


def test_labels_other_than_zero_and_one_and_unknown_directions_are_rejected():
    pairs = _pairs([("s", "r", "neg_to_pos")])
    with pytest.raises(ValueError, match="0 .negative. or 1"):
        ps.prediction_table(pairs, [2], [1])
    with pytest.raises(ValueError, match="1 pairs but"):
        ps.prediction_table(pairs, [0, 1], [1])
    with pytest.raises(ValueError, match="unknown direction"):
        ps.prediction_table(_pairs([("s", "r", "sideways")]), [0], [1])


def test_no_pairs_give_nan_not_a_crash():
    table = ps.prediction_table(_pairs([]), [], [])
    assert table.empty and np.isnan(ps.pss(table))
    assert all(np.isnan(ps.pss_interval(table["both_right"].to_numpy(), n_boot=20)))


def test_bootstrap_interval_brackets_the_estimate_and_is_seeded():
    both = np.r_[np.ones(70), np.zeros(30)].astype(bool)
    lo, hi = ps.pss_interval(both, n_boot=500, seed=3)
    assert lo < 0.7 < hi and 0.55 < lo and hi < 0.85
    assert (lo, hi) == ps.pss_interval(both, n_boot=500, seed=3)
    assert ps.pss_interval(np.ones(10, bool), n_boot=50) == (1.0, 1.0)
    replicates = ps.bootstrap_mean([0.0, 0.5, 1.0], n_boot=40, seed=1)
    assert replicates.shape == (40,) and set(np.round(replicates * 6)) <= set(range(7))  # means of 3 halves


def test_mcnemar_counts_discordant_pairs():
    a = np.array([1, 1, 1, 1, 1, 1, 0, 0, 1, 0], bool)
    b = np.array([1, 0, 0, 0, 0, 0, 0, 1, 1, 0], bool)
    t = ps.mcnemar(a, b)
    assert (t["a_only"], t["b_only"]) == (5, 1)
    assert t["p_value"] == pytest.approx(0.21875)  # exact binomial: 2 * P(X <= 1 | n=6)
    assert t["difference"] == pytest.approx(0.4)
    assert ps.mcnemar(a, a)["p_value"] == 1.0
    with pytest.raises(ValueError, match="differ in shape"):
        ps.mcnemar(a, b[:3])


class _Lexicon:
    """A stand-in classifier: positive when the text holds 'good', negative with 'bad', a tie otherwise."""

    def __init__(self, labels=("negative", "positive")):
        self.labels = list(labels)
        self.seen: list[str] = []

    def classify(self, texts):
        self.seen += list(texts)
        pos = np.array([0.9 if "good" in t else 0.1 if "bad" in t else 0.5 for t in texts])
        probs = np.stack([1 - pos, pos], axis=1)
        return probs if str(self.labels[1]).lower() in ("positive", "1", "pos", "label_1") else probs[:, ::-1]


def test_predict_labels_reads_the_positive_column_and_calls_each_text_once():
    model = _Lexicon()
    assert ps.predict_labels(model, ["good", "bad", "meh", "good"]).tolist() == [1, 0, ps.ABSTAIN, 1]
    assert model.seen == ["bad", "good", "meh"]  # each unique text once
    for labels in (["POSITIVE", "NEGATIVE"], [0, 1], ["LABEL_0", "LABEL_1"], ["pos", "neg"]):
        assert ps.predict_labels(_Lexicon(labels), ["good", "bad"]).tolist() == [1, 0], labels
    assert ps.predict_labels(model, []).shape == (0,)
    with pytest.raises(ValueError, match="positive class"):
        ps.predict_labels(_Lexicon(["a", "b"]), ["good"])


def test_labels_and_table_of_a_known_model():
    model = _Lexicon()
    test = pd.DataFrame({"text": ["good day", "bad day", "plain day", "bad food"], "label": [1, 0, 1, 1]})
    pairs = _pairs(
        [
            ("bad day", "good day", "neg_to_pos"),
            ("good food", "plain food", "pos_to_neg"),
            ("good x", "bad x", "pos_to_neg"),
        ]
    )
    labels = ps.predict_labels(model, [*test["text"], *pairs["source"], *pairs["rewrite"]])
    correct = labels[:4] == test["label"].to_numpy()
    assert correct.mean() == pytest.approx(2 / 4)  # the tie on "plain day" counts as wrong
    table = ps.prediction_table(pairs, labels[4:7], labels[7:])
    assert table["both_right"].tolist() == [True, False, True]
    assert ps.pss(table) == pytest.approx(2 / 3) and int((labels == ps.ABSTAIN).sum()) == 2
