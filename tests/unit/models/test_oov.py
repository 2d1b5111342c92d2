"""Out-of-vocabulary texts of static word vectors: the one rule, and heads on them."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib import models
from mtlib.models import factory
from mtlib.models.inference.oov import coverage_metrics, coverage_note, coverage_summary, model_token_counts

# 2-d vectors: "good" words point one way, "bad" words the other
VECTORS = {
    "good": (1.0, 0.2),
    "great": (0.9, 0.1),
    "fine": (0.8, 0.3),
    "bad": (-1.0, 0.2),
    "awful": (-0.9, 0.1),
    "poor": (-0.8, 0.3),
    "food": (0.0, 1.0),
    "service": (0.1, 0.9),
}


def _vector_file(tmp_path, extra: str = ""):
    """A word2vec text file (header, then ``word v1 v2``) of :data:`VECTORS`, plus ``extra`` lines."""
    lines = [f"{w} {a} {b}" for w, (a, b) in VECTORS.items()] + ([extra] if extra else [])
    path = tmp_path / "vectors.txt"
    path.write_text(f"{len(lines)} 2\n" + "\n".join(lines) + "\n")
    return path


def test_static_vectors_average_the_known_words_and_give_nan_without_any(tmp_path):
    model = models.load(str(_vector_file(tmp_path)))
    texts = ["good food", "good zorg", "zorg blorf", "", "bad service blorf"]
    out = model.embed(texts)
    np.testing.assert_allclose(out[0], [0.5, 0.6], rtol=1e-6)
    np.testing.assert_allclose(out[1], [1.0, 0.2], rtol=1e-6)  # "zorg" unknown: "good" alone
    assert np.isnan(out[2]).all() and np.isnan(out[3]).all()  # no known word (or no word): no vector
    np.testing.assert_allclose(out[4], [-0.45, 0.55], rtol=1e-6)
    counts = model_token_counts(model, texts)
    np.testing.assert_array_equal(counts, [[2, 2], [1, 2], [0, 2], [0, 0], [2, 3]])
    summary = coverage_summary(counts)
    assert summary == {"texts": 5, "vocabulary": True, "skipped": 2, "partial": 2, "token_coverage": 5 / 9}
    assert coverage_metrics(summary, "train") == {
        "oov/skipped/train": 2,
        "oov/partial/train": 2,
        "oov/token_coverage/train": 5 / 9,
    }
    assert coverage_note("vecs", summary) == (
        "vecs: 2 of 5 texts have no known word (skipped); 2 (40.00%) have some unknown words (the mean of the "
        "known ones); 55.56% of the tokens have a vector."
    )


def test_a_model_without_vocabulary_covers_every_text():
    class Encoder:
        def embed(self, texts):
            return np.ones((len(texts), 2))

    assert model_token_counts(Encoder(), ["a b", "c"]) is None
    assert coverage_metrics(coverage_summary(None, 2)) == {
        "oov/skipped": 0,
        "oov/partial": 0,
        "oov/token_coverage": 1.0,
    }


def _train(n: int = 12):
    pos = ["good food", "great service", "fine food", "good service"]
    neg = ["bad food", "awful service", "poor food", "bad service"]
    texts = [pos[i % 4] if i % 2 == 0 else neg[i % 4] for i in range(n)]
    labels = [1 if i % 2 == 0 else 0 for i in range(n)]
    return texts, labels


@pytest.mark.parametrize("head", ["linear", "mlp"])
def test_a_head_skips_training_texts_without_a_vector_and_answers_the_class_shares(tmp_path, head):
    model = models.load(str(_vector_file(tmp_path)))
    texts, labels = _train()
    # three training texts with no known word (two positive, one negative), one with a partial match
    texts += ["zorg", "blorf zorg", "qux", "good zorg"]
    labels += [1, 1, 0, 1]
    factory._MEMO.clear()
    kw = {"epochs": 5} if head == "mlp" else {}
    clf = models.classifier(model, (texts, labels), how="head", head=head, heldout_fraction=0, seed=0, **kw)
    assert clf.training.n_skipped == 3 and clf.training.n_train == len(texts) - 3
    np.testing.assert_allclose(clf.shares, [7 / 16, 9 / 16])  # shares of every training label
    probs = clf.classify(["great food", "zorg zorg", "awful service", "good qux"])
    np.testing.assert_allclose(probs[1], [7 / 16, 9 / 16])  # no vector: the training shares
    assert probs[0, 1] > 0.5 and probs[2, 1] < 0.5 and probs[3, 1] > 0.5
    assert clf.fallbacks == 1
    np.testing.assert_allclose(clf.logits(["blorf"])[0], np.log([7 / 16, 9 / 16]))
    assert clf.fallbacks == 2
    # reloaded from the cache: same shares, same answers
    factory._MEMO.clear()
    again = models.classifier(model, (texts, labels), how="head", head=head, heldout_fraction=0, seed=0, **kw)
    assert again.training.from_cache and again.training.n_skipped == 3
    np.testing.assert_allclose(again.classify(["great food", "zorg zorg"]), probs[:2])


def test_a_head_with_no_training_vector_stops_and_a_vector_file_with_inf_is_refused_at_load(tmp_path):
    from mtlib.data.errors import DataFormatError

    bad = _vector_file(tmp_path, extra="boom inf 0")
    n_lines = len(bad.read_text().splitlines())
    with pytest.raises(DataFormatError, match=rf"vectors.txt:{n_lines}: .*'boom' holds nan or inf; 1 of"):
        models.load(str(bad))
    model = models.load(str(_vector_file(tmp_path)))
    factory._MEMO.clear()
    with pytest.raises(ValueError, match="no vector for any of the 4 training inputs"):
        models.classifier(model, (["zorg", "blorf", "qux", "zorg qux"], [0, 1, 0, 1]), how="head", heldout_fraction=0)
    # a linear head that loses a whole class by skipping says so
    with pytest.raises(ValueError, match=r"class index\(es\) \[0\]"):
        models.classifier(model, (["zorg", "good", "qux", "fine"], [0, 1, 0, 1]), how="head", heldout_fraction=0)
