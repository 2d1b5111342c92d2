"""One adapter per family, chosen from one kind -> class table; the packaged real models for real."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib import models
from mtlib.models.adapters import OBJECT_ADAPTERS, SklearnTextModel, TextClassificationPipelineModel, wrap
from mtlib.relations import PairwiseSystematicity, SingleInput
from mtlib.relations import transformations as T
from mtlib.suite import MFT, Suite, generate
from mtlib.testing import assert_relation
from tests.conftest import SENTENCES, _wordpiece_tokenizer
from tests.unit.models.tiny_lm import make_tiny_lm


def test_every_resolved_kind_has_exactly_one_adapter(tiny_bert_dir, tiny_roberta_nli_dir, tmp_path):
    vectors = tmp_path / "v.txt"
    vectors.write_text("red 1 0\ndog 0 1\n")
    tiny_lm = make_tiny_lm(tmp_path / "tiny-lm")  # a causal LM folder (a GGUF file is the same kind)
    seen = {}
    for name in (
        str(tiny_bert_dir),
        str(tiny_lm),
        str(tiny_roberta_nli_dir),
        str(vectors),
        "minilm",
        "minilm-static",
        "vader",
        "textblob",
        "glove-50d",
    ):
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


PLAIN = [
    ("I love this wonderful, happy film.", 1),
    ("A great and beautiful story.", 1),
    ("This is a terrible, boring movie.", -1),
    ("I hate the awful acting.", -1),
]


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
    out = glove.embed(["red dog", "red qwzxv", "qwzxv"])
    np.testing.assert_allclose(out[0], glove.vectors[[glove.vocab["red"], glove.vocab["dog"]]].mean(0), rtol=1e-6)
    np.testing.assert_array_equal(out[1], glove.vectors[glove.vocab["red"]])  # the known word alone
    assert np.isnan(out[2]).all() and glove.missing_words(["red qwzxv"]) == {"red qwzxv": ["qwzxv"]}


def test_available_lists_the_real_offline_models_and_the_paper_checkpoints():
    table = models.available()
    for name in ("vader", "textblob", "glove-50d", "minilm"):
        assert table.loc[name, "resolves"] == "packaged"
    for name in (
        "bert-base-uncased",
        "bert-large-uncased",
        "roberta-large",
        "albert-large-v2",
        "facebook/bart-large",
        "t5-large",
        "gpt2-large",
    ):
        assert name in table.index
    assert "deberta-v3-large" not in table.index and "bart-large-mnli" not in table.index


# -- a user's own objects: sklearn pipelines and transformers pipelines, through wrap ------------------------

GOOD = ["great", "wonderful", "excellent", "superb"]
BAD = ["awful", "terrible", "boring", "dreadful"]


def _sklearn_pipeline():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    texts = [f"{s} {w}." for w in GOOD + BAD for s in ("It was", "The film was", "A truly", "What a")]
    labels = ["positive" if w in GOOD else "negative" for w in GOOD + BAD for _ in range(4)]
    return make_pipeline(TfidfVectorizer(), LogisticRegression(C=10.0)).fit(texts, labels)


def _text_classification_pipeline():
    import torch
    from transformers import BertConfig, BertForSequenceClassification, pipeline

    tokenizer = _wordpiece_tokenizer(SENTENCES + [f"The film was {w}." for w in GOOD + BAD])
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        num_labels=2,
        id2label={0: "NEGATIVE", 1: "POSITIVE"},
        label2id={"NEGATIVE": 0, "POSITIVE": 1},
    )
    model = BertForSequenceClassification(config).eval()
    return pipeline("text-classification", model=model, tokenizer=tokenizer, device=-1)


def _template():
    return generate.template(
        "The {adj} {noun} was {verb}.", adj=["new", "long", "old"], noun=["film", "show"], verb=GOOD + BAD
    )["text"].tolist()


def test_wrap_turns_sklearn_and_transformers_pipelines_into_models():
    assert [cls for _, cls in OBJECT_ADAPTERS] == [TextClassificationPipelineModel, SklearnTextModel]
    sk = wrap(_sklearn_pipeline())
    assert isinstance(sk, SklearnTextModel) and isinstance(sk, models.Model) and sk.labels == ["negative", "positive"]
    probs = sk.classify(["It was great.", "It was awful.", "It was great."])
    assert probs.shape == (3, 2) and probs[0, 1] > 0.5 > probs[1, 1] and sk.calls == 1
    np.testing.assert_allclose(probs[0], probs[2])
    np.testing.assert_allclose(sk.score(["It was great."], "positive"), probs[0, 1])
    sk.classify(["It was great."])
    assert sk.calls == 1  # each unique text once per object
    neg = wrap(_sklearn_pipeline(), positive_label="negative")
    np.testing.assert_allclose(neg.positive_score(["It was great."]), probs[0, 0])
    with pytest.raises(KeyError, match="labels"):
        wrap(_sklearn_pipeline(), positive_label="neutral")
    hf = wrap(_text_classification_pipeline())
    assert isinstance(hf, TextClassificationPipelineModel) and hf.labels == ["NEGATIVE", "POSITIVE"]
    p = hf.classify(["The film was great.", "bad"])
    assert p.shape == (2, 2) and np.allclose(p.sum(1), 1.0, atol=1e-5)
    vader = models.load("vader")
    assert wrap(vader) is vader
    fn = lambda texts: np.zeros(len(texts))  # noqa: E731
    assert wrap(fn) is fn
    with pytest.raises(TypeError, match="predict_proba"):
        wrap(object())


def test_user_objects_pass_the_same_relation_tests_as_built_in_models():
    texts = _template()
    lower = SingleInput("lower case", "equivalence", T.Casing("lower"))
    suite = Suite("same tests", n_boot=100)
    suite.add("lower case keeps the label", lower, texts, threshold=0.1)
    suite.add("typos", SingleInput("typos", "equivalence", T.Typos("swap")), texts, threshold=1.0)
    suite.add("Table 1", PairwiseSystematicity("Table 1", T.manino_table1()), texts, threshold=1.0)
    suite.add("praise", MFT("positive"), [t for t in texts if any(w in t for w in GOOD)], threshold=0.15)
    built_in = suite.run("vader")
    sk_pipeline, hf_pipeline = _sklearn_pipeline(), _text_classification_pipeline()
    for obj in (sk_pipeline, hf_pipeline):
        model = wrap(obj)
        assert_relation(model, lower, texts, max_rate=0.1)  # relations accept the wrapped object
        res = suite.run(obj)  # a suite wraps it itself
        assert [t.name for t in res.tests] == [t.name for t in built_in.tests]
        for mine, theirs in zip(res.tests, built_in.tests):
            assert mine.n_items == theirs.n_items and mine.inputs_digest == theirs.inputs_digest
        assert res["lower case keeps the label"].passed and res["Table 1"].cases > 0
    assert built_in.passed and suite.run(sk_pipeline).passed  # the trained pipeline also gets the praise right
