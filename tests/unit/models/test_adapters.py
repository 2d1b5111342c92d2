"""One adapter per family, chosen from one kind -> class table; the packaged real models for real."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib import models


def test_every_resolved_kind_has_exactly_one_adapter(tiny_bert_dir, tiny_roberta_nli_dir, tmp_path):
    vectors = tmp_path / "v.txt"
    vectors.write_text("red 1 0\ndog 0 1\n")
    seen = {}
    for name in (str(tiny_bert_dir), str(tiny_roberta_nli_dir), str(vectors), "minilm", "minilm-static", "vader",
                 "textblob", "glove-50d"):
        resolved = models.resolve(name)
        model = models.load(name, device="cpu")
        assert type(model) is models.ADAPTERS[resolved.kind] and model.kind == resolved.kind
        seen[resolved.kind] = name
    assert set(seen) == set(models.ADAPTERS)


def test_encoder_classifier_and_pipeline_share_one_forward_interface(tiny_bert_dir, tiny_roberta_nli_dir):
    enc = models.load(str(tiny_bert_dir), device="cpu")
    clf = models.load(str(tiny_roberta_nli_dir), device="cpu")
    assert isinstance(enc, models.HFEncoderModel) and isinstance(clf, models.HFClassifierModel)
    assert enc.features(["a tree"]).logits is None and clf.features(["a tree"]).logits.shape == (1, 3)
    np.testing.assert_allclose(enc.embed(["a tree"]), enc.features(["a tree"]).pooled, atol=1e-5)
    lo = clf.log_odds(["a tree"], "entailment", ["a cherry tree"])
    p = clf.score(["a tree"], "entailment", ["a cherry tree"])
    np.testing.assert_allclose(lo, np.log(p) - np.log1p(-p), atol=1e-5)


PLAIN = [("I love this wonderful, happy film.", 1), ("A great and beautiful story.", 1),
         ("This is a terrible, boring movie.", -1), ("I hate the awful acting.", -1)]


@pytest.mark.parametrize("name", ["vader", "textblob"])
def test_lexicon_scorers_give_the_right_sign_on_plain_sentences(name):
    model = models.load(name)
    texts, signs = [t for t, _ in PLAIN], np.array([s for _, s in PLAIN])
    probs = model.classify(texts)
    assert model.labels == ["negative", "positive"]
    np.testing.assert_allclose(probs.sum(1), 1.0)
    assert (np.sign(probs[:, 1] - 0.5) == signs).all()
    c = model.polarity(texts)
    np.testing.assert_allclose(probs, np.stack([(1 - c) / 2, (1 + c) / 2], 1))
    calls = model.calls
    model.classify(texts)
    assert model.calls == calls  # cached per text
    with pytest.raises(ValueError, match="single texts"):
        model.classify(["a"], ["b"])


def test_packaged_glove_50d_is_the_full_vocabulary_and_behaves_like_glove():
    glove = models.load("glove-50d")
    assert glove.vectors.shape == (400_000, 50) and glove.vectors.dtype == np.float32
    E = glove.embed(["good", "bad", "dog", "cat", "tax", "Dog"])

    def cos(a, b):
        return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))

    assert cos(E[0], E[1]) > 0.7
    assert cos(E[2], E[3]) > cos(E[2], E[4])
    np.testing.assert_array_equal(E[2], E[5])  # lower-cased lookups
    out = glove.embed(["red dog", "red qwzxv"])
    np.testing.assert_allclose(out[0], glove.vectors[[glove.vocab["red"], glove.vocab["dog"]]].mean(0), rtol=1e-6)
    assert np.isnan(out[1]).all() and glove.missing_words(["red qwzxv"]) == {"red qwzxv": ["qwzxv"]}


def test_available_lists_the_real_offline_models_and_the_paper_checkpoints():
    table = models.available()
    for name in ("vader", "textblob", "glove-50d", "minilm"):
        assert table.loc[name, "resolves"] == "packaged"
    for name in ("bert-base-uncased", "bert-large-uncased", "roberta-large", "albert-large-v2", "facebook/bart-large",
                 "t5-large", "gpt2-large"):
        assert name in table.index
    assert "deberta-v3-large" not in table.index and "bart-large-mnli" not in table.index
