"""Tokenise once, pad per batch: the same tensors as the tokenizer's own padding, the same rows either way."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib import models
from mtlib.models.adapters.tokens import PROBE_PAIRS, PROBE_TEXTS, pad_rows, same_batches, tokenise
from mtlib.utils.batching import Prefetcher
from tests.conftest import SENTENCES


@pytest.mark.parametrize("fixture", ["tiny_bert_dir", "tiny_roberta_nli_dir"])
def test_padding_from_the_ids_equals_the_tokenizers_own(fixture, request):
    import torch

    model = models.build(models.resolve(str(request.getfixturevalue(fixture))), device="cpu", use_cache=False)
    tok = model.tokenizer
    for side in ("right", "left"):
        tok.padding_side = side
        want = tok(
            list(PROBE_TEXTS), list(PROBE_PAIRS), padding=True, truncation=True, max_length=64, return_tensors="pt"
        )
        got = pad_rows(tokenise(tok, PROBE_TEXTS, PROBE_PAIRS, 64), tok)
        assert set(got) == {k for k in want if k != "offset_mapping"}
        assert all(torch.equal(want[k], got[k]) for k in got)
    tok.padding_side = "right"
    assert same_batches(tok, model._reference, model.max_length, pairs=True)


@pytest.mark.parametrize("fixture", ["tiny_bert_dir", "tiny_roberta_nli_dir"])
def test_one_pass_and_per_batch_tokenising_give_the_same_rows(fixture, request):
    folder = request.getfixturevalue(fixture)
    one = models.build(models.resolve(str(folder)), device="cpu", use_cache=False)
    per_batch = models.build(models.resolve(str(folder)), device="cpu", use_cache=False)
    per_batch._one_pass = {"embed": False, "features": False}  # the tokenizer pads every batch, as before
    texts = [*SENTENCES, "", "word " * 600]
    assert one._fast("embed") and one._fast("features")
    np.testing.assert_array_equal(one.embed(texts), per_batch.embed(texts))
    spans = [[models.SpanRequest(t.split()[0])] for t in SENTENCES]
    a = one.features(SENTENCES, SENTENCES[::-1], layer=-1, spans=spans)
    b = per_batch.features(SENTENCES, SENTENCES[::-1], layer=-1, spans=spans)
    np.testing.assert_array_equal(a.pooled, b.pooled)
    np.testing.assert_array_equal(a.spans, b.spans)


def test_the_background_tokeniser_changes_no_row(tiny_bert_dir):
    texts = [f"sentence number {i} about {SENTENCES[i % len(SENTENCES)]}" for i in range(4500)]  # two cache chunks
    plain = models.build(models.resolve(str(tiny_bert_dir)), device="cpu", use_cache=False)
    ahead = models.build(models.resolve(str(tiny_bert_dir)), device="cpu", use_cache=False)
    ahead.prefetch = True  # as on a GPU
    np.testing.assert_array_equal(ahead.embed(texts), plain.embed(texts))
    assert ahead.calls == plain.calls


def test_a_prefetcher_prepares_what_it_was_not_asked_ahead_for():
    prepared: list[list[int]] = []

    def prepare(items):
        prepared.append(list(items))
        return [i * 10 for i in items]

    with Prefetcher(prepare) as pre:
        pre.ahead([1, 2])
        assert pre.take([2, 3]) == [20, 30]
        assert pre.take([4]) == [40]
    assert sorted(map(tuple, prepared)) == [(1, 2), (3,), (4,)]
    off = Prefetcher(prepare, enabled=False)
    off.ahead([7])
    assert off.take([7]) == [70] and [7] in prepared and off._pool is None
