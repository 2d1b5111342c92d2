"""Lexical-relation models for three-way transitivity (notebook 03)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.experiments import lexical as L
from mtlib.models import ClassifierSettings, Model, pair_features
from mtlib.models.training.frozen import train_head
from mtlib.relations import ThreeWayTransitivity, count_transitivity_violations
from mtlib.relations.counting import sample_triples
from mtlib.utils.context import RunContext

CPU = RunContext.resolve(device="cpu")

PAIRS = pd.DataFrame(
    {
        "word1": [
            "poodle",
            "dog",
            "happy",
            "glad",
            "cherry",
            "apple",
            "tree",
            "car",
            "dog",
            "king",
            "cheap",
            "fruit",
            "story",
            "garden",
            "night",
            "film",
            "cast",
            "plot",
            "poodle",
            "table",
        ],
        "word2": [
            "dog",
            "animal",
            "glad",
            "joyful",
            "fruit",
            "fruit",
            "plant",
            "vehicle",
            "cat",
            "ruler",
            "expensive",
            "table",
            "tale",
            "yard",
            "day",
            "movie",
            "crew",
            "story",
            "car",
            "desk",
        ],
        "relation": [
            "HYP",
            "HYP",
            "SYN",
            "SYN",
            "HYP",
            "HYP",
            "HYP",
            "HYP",
            "RANDOM",
            "SYN",
            "ANT",
            "RANDOM",
            "SYN",
            "SYN",
            "ANT",
            "SYN",
            "RANDOM",
            "RANDOM",
            "RANDOM",
            "RANDOM",
        ],
        "split": ["train"] * 14 + ["test"] * 6,
    }
)


def _random_head(kind: str, W: np.ndarray, seed: int = 0):
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, len(W), 300), rng.integers(0, len(W), 300)
    y = rng.random(300) < 0.4
    extra = {"epochs": 3, "hidden": (16,)} if kind == "mlp" else {}
    return train_head(pair_features(W[i], W[j]), y, kind=kind, seed=seed, use_cache=False, **extra)


@pytest.mark.parametrize("kind", ["logreg", "mlp"])
def test_prediction_matrix_equals_pairwise_head_calls(kind):
    rng = np.random.default_rng(1)
    W = rng.normal(size=(30, 12)).astype(np.float32)
    head = _random_head(kind, W)
    P = L.pair_probability_matrix(head, W, block=3, tile=7)  # blocks and tiles that do not divide 30
    i, j = np.nonzero(~np.eye(30, dtype=bool))
    expected = head.predict_proba(pair_features(W[i], W[j]))[:, 1]
    np.testing.assert_allclose(P[i, j], expected, atol=1e-5)
    adj = L.prediction_matrix(head, W)
    assert adj.dtype == bool and adj.shape == (30, 30) and not adj.diagonal().any()
    clear = np.abs(expected - 0.5) > 1e-5
    assert np.array_equal(adj[i, j][clear], (expected > 0.5)[clear])
    assert 0 < adj.sum() < 30 * 29  # the random head is not constant


def test_prediction_matrix_folds_a_negative_positive_class_and_a_bare_estimator():
    rng = np.random.default_rng(2)
    W = rng.normal(size=(15, 6)).astype(np.float32)
    head = _random_head("logreg", W)
    P_true = L.pair_probability_matrix(head, W)
    P_false = L.pair_probability_matrix(head, W, positive=False)
    off = ~np.eye(15, dtype=bool)
    np.testing.assert_allclose(P_true[off] + P_false[off], 1.0, atol=1e-9)
    np.testing.assert_allclose(L.pair_probability_matrix(head.estimator, W), P_true, atol=1e-12)


def test_pair_features_and_shapes():
    U, V = np.array([[1.0, -2.0]]), np.array([[3.0, 1.0]])
    np.testing.assert_allclose(pair_features(U, V), [[1, -2, 3, 1, 2, 3, 3, -2]])
    with pytest.raises(ValueError, match="U and V"):
        pair_features(U, V.T)


def test_vocabulary_split_and_labels():
    train, test = L.split_pairs(PAIRS)
    assert len(train) == 14 and len(test) == 6
    words = L.vocabulary(test)
    assert words[:4] == ["night", "day", "film", "movie"] and len(words) == len(set(words)) == 12
    sub = L.vocabulary(test, max_words=5, seed=3)
    assert len(sub) == 5 and sub == [w for w in words if w in sub]  # order of first appearance kept
    assert L.vocabulary(test, max_words=5, seed=3) == sub
    assert L.relation_labels(PAIRS, "syn").sum() == 6 and L.relation_labels(PAIRS, "hyp").sum() == 6
    gold_only = PAIRS.assign(split="gold")  # e.g. a CogALex-V gold_task2.txt: split by the pair hash
    tr, te = L.split_pairs(gold_only)
    assert len(tr) + len(te) == 20 and len(tr) > 0
    assert list(L.table5_frame().loc["english"]) == [0.809, 0.723]


def test_sampled_transitivity_from_matrices_matches_the_relation_on_a_complete_graph():
    n = 12
    complete = ~np.eye(n, dtype=bool)
    rng = np.random.default_rng(4)
    noisy = rng.random((n, n)) < 0.3
    mats = {"syn": complete, "hyp": noisy}
    frame = L.sampled_transitivity(mats, [f"w{i}" for i in range(n)], 5000, seed=0)
    assert frame.loc["syn", "cases"] == 5000 and frame.loc["syn", "violations"] == 0
    exact = ThreeWayTransitivity("hyp").check(noisy, n_boot=0).rate
    assert abs(frame.loc["hyp", "rate"] - exact) < 0.05
    i, j, k = sample_triples(5, 1000, seed=1)
    assert ((i != j) & (j != k) & (i != k)).all()
    engine = count_transitivity_violations(noisy, sample=5000, seed=0, per_item=False)
    assert (frame.loc["hyp", "cases"], frame.loc["hyp", "violations"]) == (engine.cases, engine.violations)


def test_frozen_heads_end_to_end_with_a_stub_encoder():
    class Stub(Model):
        def __init__(self):
            super().__init__("stub", "stub@1", use_cache=False)

        def embed(self, texts):
            return np.stack([np.random.default_rng(abs(hash(t)) % 2**32).normal(size=8) for t in texts])

    train, test = L.split_pairs(PAIRS)
    model = L.train_frozen_heads(
        Stub(),
        train,
        test,
        settings=ClassifierSettings(),
        seed=0,
        context=CPU,
        use_cache=False,
    )
    words = L.vocabulary(PAIRS)
    mats = L.prediction_matrices(model, words, max_pairs=10**6)
    probs = L.predict_pairs(model, [words[0]], [words[1]])
    for rel in L.RELATIONS:
        assert mats[rel].shape == (len(words), len(words))
        assert mats[rel][0, 1] == (probs[rel][0] > 0.5)
    scores = L.evaluate_heads(model, test)
    assert list(scores.index) == ["syn", "hyp"] and scores["pairs"].tolist() == [6, 6]
    # notebook 03's head_settings (C, class_weight) reach every logistic head (and its cache key)
    weighted = L.train_frozen_heads(
        Stub(),
        train,
        test,
        settings=ClassifierSettings(C=0.1, class_weight="balanced"),
        seed=0,
        context=CPU,
        use_cache=False,
    )
    for rel in L.RELATIONS:
        assert weighted.heads[rel].training.settings["C"] == 0.1
        assert weighted.heads[rel].training.settings["class_weight"] == "balanced"
        assert weighted.heads[rel].training.key != model.heads[rel].training.key


def test_finetuned_pair_classifier_runs_and_is_seeded(tiny_bert_dir):
    train, test = L.split_pairs(PAIRS)
    words = L.vocabulary(PAIRS, max_words=8, seed=0)
    runs = []
    for _ in range(2):  # trained twice (no cache): seeded, so identical
        settings = ClassifierSettings(epochs=1, batch_size=8, lr=1e-3, pooling="first", max_length=32)
        clf = L.finetune_pair_classifier(
            str(tiny_bert_dir),
            train,
            settings=settings,
            seed=5,
            context=CPU,
            use_cache=False,
            heldout_fraction=L.Spec().finetune_heldout_fraction,
        )
        probs = L.predict_pairs(clf, test["word1"], test["word2"], batch_size=4)
        mats = L.prediction_matrices(clf, words, max_pairs=100, batch_size=16)
        runs.append((probs, mats, clf.losses))
    (p1, m1, loss1), (p2, m2, loss2) = runs
    assert len(loss1) == 1 and loss1 == loss2
    for rel in L.RELATIONS:
        assert p1[rel].shape == (6,) and np.array_equal(p1[rel], p2[rel])
        assert m1[rel].dtype == bool and m1[rel].shape == (8, 8) and not m1[rel].diagonal().any()
        assert np.array_equal(m1[rel], m2[rel])
    probs = L.predict_pairs(clf, [words[2]], [words[5]])
    assert all(m1[rel][2, 5] == (probs[rel][0] > 0.5) for rel in L.RELATIONS)
    assert L.prediction_matrices(clf, words, max_pairs=55) is None  # 8 x 7 = 56 ordered pairs
    sampled_model = L.sampled_transitivity(clf, words, 300, seed=2, batch_size=64)
    sampled_matrix = L.sampled_transitivity(m1, words, 300, seed=2)
    pd.testing.assert_frame_equal(sampled_model, sampled_matrix)
