"""Non-finite outputs are refused at the model boundary: the model's name, how many, and the first input."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib import models
from mtlib.data.errors import DataFormatError
from mtlib.models.inference.numerics import NonFiniteOutputError, check_finite
from tests.conftest import SENTENCES


def test_the_check_names_the_model_the_count_and_the_first_input():
    values = np.array([[0.1, 0.2], [np.nan, np.inf], [0.3, np.nan]])
    with pytest.raises(NonFiniteOutputError, match=r"^m gave 3 non-finite value\(s\) in its x, in 2 of 3 input\(s\); "):
        check_finite(values, "m", ["a", "b", "c"], what="x")
    assert issubclass(NonFiniteOutputError, ValueError)
    rows = np.array([[0.1, 0.2], [np.nan, np.nan]])
    assert check_finite(rows, "m", ["a", "b"], nan_rows=True) is not None  # a whole NaN row: no vector, by design
    half = np.array([[0.1, 0.2], [np.nan, np.nan], [0.3, np.nan]])
    with pytest.raises(
        NonFiniteOutputError, match=r"1 non-finite value\(s\) .* in 1 of 3 input\(s\); the first is 'c'"
    ):
        check_finite(half, "m", ["a", "b", "c"], nan_rows=True)  # a half-NaN row is refused


def test_a_transformer_that_gives_nan_is_refused_and_nothing_is_cached(tiny_bert_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path))
    model = models.build(models.resolve(str(tiny_bert_dir)), device="cpu")
    original = model._embed_encoded

    def poisoned(enc):
        out = original(enc)
        out[0, 0] = float("nan")
        return out

    model._embed_encoded = poisoned  # type: ignore[method-assign]
    with pytest.raises(NonFiniteOutputError, match=rf"{model.name} gave \d+ non-finite value\(s\) in its embeddings"):
        model.embed(SENTENCES[:3])
    model._embed_encoded = original  # type: ignore[method-assign]
    assert np.isfinite(model.embed(SENTENCES[:3])).all()  # computed again: the refused rows were never stored


def test_a_classifier_with_infinite_logits_is_refused_naming_the_pair(tiny_roberta_nli_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path))
    model = models.build(models.resolve(str(tiny_roberta_nli_dir)), device="cpu")
    original = model._backbone_hidden

    def infinite(enc, layer):
        last, at_layer, logits = original(enc, layer)
        return last, at_layer, logits * float("inf")

    monkeypatch.setattr(model, "_backbone_hidden", infinite)
    with pytest.raises(NonFiniteOutputError, match=r"forward-pass outputs.*the first is \('premise one', 'hyp one'\)"):
        model.classify(["premise one", "premise two"], ["hyp one", "hyp two"])


def test_wrapped_objects_lexicons_and_heads_refuse_nan(monkeypatch):
    class NanClassifier:
        classes_ = np.array(["negative", "positive"])

        def predict_proba(self, texts):
            return np.array([[np.nan, 1.0] if "bad" in t else [0.5, 0.5] for t in texts])

    wrapped = models.wrap(NanClassifier(), name="nanny")
    assert wrapped.classify(["fine"]).shape == (1, 2)
    with pytest.raises(NonFiniteOutputError, match="nanny gave 1 non-finite value.*the first is 'so bad'"):
        wrapped.score(["fine", "so bad"], "positive")
    vader = models.load("vader")
    # models.load may hand back a shared instance: patch it for this test only, so later tests get the real VADER
    monkeypatch.setattr(vader, "_polarity_of", lambda text: float("nan") if text == "nan?" else 0.5)
    with pytest.raises(NonFiniteOutputError, match="vader gave 1 non-finite value.*polarities.*'nan\\?'"):
        vader.log_odds(["ok", "nan?"], "positive")


def test_a_text_with_no_known_word_stays_a_nan_row_and_a_vector_file_with_nan_is_refused(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("2 2\ncat 0.1 0.2\ndog 0.3 0.4\n")
    out = models.load(str(good)).embed(["cat", "zebra"])
    assert np.isfinite(out[0]).all() and np.isnan(out[1]).all()
    bad = tmp_path / "bad.txt"
    bad.write_text("cat 0.1 0.2\ndog nan 0.4\nemu 1 2\n")
    with pytest.raises(DataFormatError, match=r"bad.txt:2: .*'dog' holds nan or inf; 1 of 3 vectors do"):
        models.load(str(bad))


def test_packaged_vectors_with_inf_are_refused_naming_the_row(tmp_path):
    import pandas as pd

    from mtlib.models.weights.resolve import Resolved

    np.save(tmp_path / "vectors.npy", np.array([[0.0, 1.0], [np.inf, 0.0]], dtype=np.float32))
    pd.DataFrame({"word": ["cat", "dog"]}).to_parquet(tmp_path / "words.parquet")
    with pytest.raises(DataFormatError, match=r"vectors.npy: .*row 1 \(word 'dog'\) holds nan or inf"):
        models.PackagedVectorsModel(Resolved("toy-vectors", tmp_path, "packaged-vectors", "path"))


@pytest.mark.parametrize("bad", ["a bare string", None, ["a text", None], ["a text", b"bytes"], [1, 2]])
def test_every_model_entry_refuses_what_is_not_a_list_of_texts(bad):
    """One check at every adapter's embed, classify and logits: no text read character by character or as 'None'."""
    from mtlib.relations import MtlibInputError

    for name, entries in (("vader", ("classify", "logits")), ("minilm-static", ("embed",))):
        model = models.load(name)
        for entry in entries:
            with pytest.raises(MtlibInputError, match=rf"{name}\.(classify|{entry}): texts(\[\d\])? must be"):
                getattr(model, entry)(bad)

    class Half:
        classes_ = np.array(["negative", "positive"])

        def predict_proba(self, texts):
            return np.full((len(texts), 2), 0.5)

    wrapped = models.wrap(Half(), name="half")
    with pytest.raises(MtlibInputError, match=r"half\.classify: texts(\[\d\])? must be"):
        wrapped.classify(bad)
