"""A frozen head's predictions on every ordered word pair, in matrix form (notebook 03's prediction matrices)."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib.models import ClassifierSettings, Model, classifier, pair_features, pair_probability_matrix
from mtlib.utils.context import RunContext

CPU = RunContext.resolve(device="cpu")


def _random_head(kind: str, W: np.ndarray, seed: int = 0):
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, len(W), 300), rng.integers(0, len(W), 300)
    y = rng.random(300) < 0.4
    extra = {"epochs": 3, "hidden": (16,)} if kind == "mlp" else {}
    head = {"logreg": "linear"}.get(kind, kind)
    return classifier(pair_features(W[i], W[j]), y, how="head", head=head, seed=seed, use_cache=False, **extra)


@pytest.mark.parametrize("kind", ["logreg", "mlp"])
def test_prediction_matrix_equals_pairwise_head_calls(kind):
    rng = np.random.default_rng(1)
    W = rng.normal(size=(30, 12)).astype(np.float32)
    head = _random_head(kind, W)
    P = pair_probability_matrix(head, W, block=3, tile=7)  # blocks and tiles that do not divide 30
    i, j = np.nonzero(~np.eye(30, dtype=bool))
    expected = head.predict_proba(pair_features(W[i], W[j]))[:, 1]
    np.testing.assert_allclose(P[i, j], expected, atol=1e-5)
    adj = P > 0.5  # the prediction matrix: diagonal 0, so False
    assert adj.dtype == bool and adj.shape == (30, 30) and not adj.diagonal().any()
    clear = np.abs(expected - 0.5) > 1e-5
    assert np.array_equal(adj[i, j][clear], (expected > 0.5)[clear])
    assert 0 < adj.sum() < 30 * 29  # the random head is not constant


def test_prediction_matrix_folds_a_negative_positive_class_and_a_bare_estimator():
    rng = np.random.default_rng(2)
    W = rng.normal(size=(15, 6)).astype(np.float32)
    head = _random_head("logreg", W)
    P_true = pair_probability_matrix(head, W)
    P_false = pair_probability_matrix(head, W, positive=False)
    off = ~np.eye(15, dtype=bool)
    np.testing.assert_allclose(P_true[off] + P_false[off], 1.0, atol=1e-9)
    np.testing.assert_allclose(pair_probability_matrix(head.estimator, W), P_true, atol=1e-12)


def test_pair_features_and_shapes():
    U, V = np.array([[1.0, -2.0]]), np.array([[3.0, 1.0]])
    np.testing.assert_allclose(pair_features(U, V), [[1, -2, 3, 1, 2, 3, 3, -2]])
    with pytest.raises(ValueError, match="U and V"):
        pair_features(U, V.T)


class _Stub(Model):
    """Word vectors from a hash of the word: a frozen encoder without weights."""

    def __init__(self):
        super().__init__("stub", "stub@1", use_cache=False)

    def embed(self, texts):
        return np.stack([np.random.default_rng(abs(hash(t)) % 2**32).normal(size=8) for t in texts])


WORDS = ["poodle", "dog", "animal", "happy", "glad", "joyful", "cherry", "fruit", "tree", "car", "cheap", "dear"]


@pytest.mark.parametrize("head", ["linear", "mlp"])
def test_a_head_classifier_on_word_pairs_gives_its_classify_in_matrix_form(head):
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 12, 80), rng.integers(0, 12, 80)
    train = ([WORDS[i] for i in a], [WORDS[j] for j in b], (a + b) % 3 == 0)
    extra = {"epochs": 2, "hidden": (8,)} if head == "mlp" else {}
    clf = classifier(_Stub(), train, how="head", settings=ClassifierSettings(head=head, **extra), seed=0, context=CPU)
    P = pair_probability_matrix(clf, _Stub().embed(WORDS))
    i, j = np.nonzero(~np.eye(12, dtype=bool))
    direct = clf.classify([WORDS[x] for x in i], [WORDS[y] for y in j])[:, clf.label_index(True)]
    np.testing.assert_allclose(P[i, j], direct, atol=1e-6)
    assert (P.diagonal() == 0).all()


def test_linear_head_settings_reach_the_head_and_its_cache_key():
    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 12, 60), rng.integers(0, 12, 60)
    train = ([WORDS[i] for i in a], [WORDS[j] for j in b], a % 2 == 0)
    plain = classifier(_Stub(), train, how="head", seed=0, context=CPU, use_cache=False)
    weighted = classifier(
        _Stub(), train, how="head", settings=ClassifierSettings(C=0.1, class_weight="balanced"), seed=0, context=CPU
    )
    assert weighted.training.settings["C"] == 0.1 and weighted.training.settings["class_weight"] == "balanced"
    assert weighted.training.key != plain.training.key
