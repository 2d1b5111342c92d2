"""Registry resolution, adapters, span extraction, batching order, cache behaviour."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import warnings

import numpy as np
import pytest

from mtlib import models
from mtlib.utils.cache import ArrayCache, cached_rows
from tests.conftest import SENTENCES


def test_registry_lists_the_embedded_default_and_paper_models():
    table = models.available()
    assert {"minilm", "minilm-static", "siebert", "roberta-large-mnli", "xlm-roberta-large", "glove"} <= set(
        table.index
    )
    assert table.loc["minilm", "resolves"] == "packaged"


def test_unknown_name_lists_known_names_and_how_to_pass_a_path():
    with pytest.raises(models.ModelNotFoundError) as err:
        models.load("no-such-model")
    msg = str(err.value)
    assert "minilm" in msg and "roberta-large-mnli" in msg and "path" in msg


def test_hub_model_offline_says_how_to_make_it_available(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(models.ModelNotFoundError) as err:
        models.load("roberta-large-mnli")
    msg = str(err.value)
    assert "roberta-large-mnli" in msg and "HF_HUB_OFFLINE" in msg and "path" in msg and "cache" in msg


def test_local_folder_resolves_before_anything_else(tiny_bert_dir):
    resolved = models.resolve(str(tiny_bert_dir))
    assert resolved.how == "path" and resolved.kind == "hf-encoder"
    model = models.load(str(tiny_bert_dir), device="cpu")
    assert isinstance(model, models.TransformerModel)
    assert model.embed(["a tree"]).shape == (1, 32)


def test_identity_follows_the_weights(tiny_bert_dir, tmp_path):
    import shutil

    from transformers import BertModel

    first = models.model_identity(models.resolve(str(tiny_bert_dir)))
    assert first == models.model_identity(models.resolve(str(tiny_bert_dir)))
    copy = tmp_path / "changed"
    shutil.copytree(tiny_bert_dir, copy)
    bert = BertModel.from_pretrained(copy)
    with __import__("torch").no_grad():
        bert.embeddings.word_embeddings.weight[0, 0] += 1.0
    bert.save_pretrained(copy)
    assert models.model_identity(models.resolve(str(copy))) != first


def test_embed_preserves_input_order_whatever_the_lengths(tiny_bert_dir):
    model = models.build(models.resolve(str(tiny_bert_dir)), device="cpu", use_cache=False)
    texts = ["tree", SENTENCES[2] * 3, "no", SENTENCES[0], "the king " * 20, "a"]
    batched = model.embed(texts)
    one_by_one = np.vstack([model.embed([t]) for t in texts])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)


def test_each_unique_text_goes_through_the_model_once(tiny_bert_dir):
    model = models.build(models.resolve(str(tiny_bert_dir)), device="cpu", use_cache=False)
    seen: list[str] = []
    original = model._embed_batch
    model._embed_batch = lambda rows: (seen.extend(r["text"] for r in rows), original(rows))[1]
    out = model.embed(["a", "b", "a", "a", "b"])
    assert sorted(seen) == ["a", "b"]
    np.testing.assert_array_equal(out[0], out[2])


def test_cache_hit_costs_no_model_call(tiny_bert_dir):
    model = models.build(models.resolve(str(tiny_bert_dir)), device="cpu")
    first = model.embed(["cache me", "and me"])
    calls = model.calls
    again = models.build(models.resolve(str(tiny_bert_dir)), device="cpu")
    second = again.embed(["and me", "cache me"])
    assert again.calls == 0 and model.calls == calls
    np.testing.assert_array_equal(first[::-1], second)


def test_corrupted_cache_entry_is_detected_and_recomputed(tmp_path):
    cache = ArrayCache(("unit", "op"), root=tmp_path)
    calls = []

    def compute(items):
        calls.append(list(items))
        return np.array([[len(t), 1.0] for t in items])

    first = cached_rows(cache, ["ab", "cde"], compute)
    shard = next(cache.folder.glob("shard-*.npz"))
    shard.write_bytes(shard.read_bytes()[:40] + b"garbage")
    fresh = ArrayCache(("unit", "op"), root=tmp_path)
    with pytest.warns(UserWarning, match="damaged"):
        second = cached_rows(fresh, ["ab", "cde"], compute)
    np.testing.assert_array_equal(first, second)
    assert len(calls) == 2


def test_cache_folder_follows_mtlib_cache(monkeypatch, tmp_path):
    from mtlib.utils.cache import cache_root

    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "elsewhere"))
    assert cache_root() == tmp_path / "elsewhere"


def test_many_shards_are_compacted_without_losing_entries(tmp_path):
    cache = ArrayCache(("compact",), root=tmp_path)
    for i in range(40):
        cached_rows(cache, [f"t{i}"], lambda items: np.ones((len(items), 3)) * len(items[0]))
    assert len(list(cache.folder.glob("shard-*.npz"))) < 40
    again = ArrayCache(("compact",), root=tmp_path)
    assert len(again) == 40


def test_empty_input_gives_an_empty_result(tiny_bert_dir):
    model = models.load(str(tiny_bert_dir), device="cpu")
    assert model.embed([]).shape == (0, 32)
    assert model.features([]).pooled.shape[0] == 0


def test_wordpiece_span_covers_exactly_the_substring_pieces(tiny_bert_dir):
    model = models.load(str(tiny_bert_dir), device="cpu")
    text = "There was no cherry tree in the garden."
    enc = model.tokenizer(text, return_offsets_mapping=True)
    mask = models.substring_token_mask(text, "cherry tree", enc["offset_mapping"], enc.sequence_ids(0))
    pieces = [t for t, m in zip(enc.tokens(), mask) if m]
    assert "".join(p.replace("##", "") for p in pieces) == "cherrytree"


def test_bpe_span_covers_exactly_the_substring_pieces(tiny_roberta_nli_dir):
    model = models.load(str(tiny_roberta_nli_dir), device="cpu")
    premise, hypothesis = "There was no tree in the garden.", "There was no cherry tree in the garden."
    enc = model.tokenizer(premise, hypothesis, return_offsets_mapping=True)
    mask = models.substring_token_mask(hypothesis, "cherry tree", enc["offset_mapping"], enc.sequence_ids(0), segment=1)
    pieces = [t for t, m in zip(enc.tokens(), mask) if m]
    assert "".join(pieces).replace("Ġ", " ").strip() == "cherry tree"
    assert all(s == 1 for s, m in zip(enc.sequence_ids(0), mask) if m)


def test_missing_substring_names_text_and_substring(tiny_bert_dir):
    model = models.load(str(tiny_bert_dir), device="cpu")
    with pytest.raises(ValueError, match=r"'banana'.*'There was no tree\.'"):
        model.features(["There was no tree."], layer=-2, spans=[[models.SpanRequest("banana")]])


def test_features_pool_spans_from_one_forward_pass(tiny_roberta_nli_dir):
    model = models.load(str(tiny_roberta_nli_dir), device="cpu")
    premises = ["There was no tree.", "Some dogs bark."]
    hypotheses = ["There was no cherry tree.", "Some poodles bark."]
    spans = [
        [models.SpanRequest("tree", 0), models.SpanRequest("cherry tree", 1)],
        [models.SpanRequest("dogs", 0), models.SpanRequest("poodles", 1)],
    ]
    feats = model.features(premises, hypotheses, layer=-2, spans=spans)
    assert feats.pooled.shape == (2, 32) and feats.spans.shape == (2, 2, 32)
    assert feats.probs.shape == (2, 3)
    np.testing.assert_allclose(feats.probs.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(feats.probs, model.classify(premises, hypotheses), rtol=1e-5)
    lo = feats.log_odds("ENTAILMENT")
    np.testing.assert_allclose(lo, np.log(feats.probs[:, 2]) - np.log1p(-feats.probs[:, 2]), atol=1e-5)
    assert not np.allclose(feats.spans[0, 0], feats.spans[0, 1])


def test_classification_scores_by_label_name(tiny_roberta_nli_dir):
    model = models.load(str(tiny_roberta_nli_dir), device="cpu")
    assert model.labels == ["CONTRADICTION", "NEUTRAL", "ENTAILMENT"]
    score = model.score(["a tree"], "entailment", ["a cherry tree"])
    assert score.shape == (1,) and 0 < score[0] < 1
    with pytest.raises(KeyError, match="POSITIVE"):
        model.score(["a"], "POSITIVE", ["b"])


def test_encoder_without_head_explains_how_to_get_one(tiny_bert_dir):
    with pytest.raises(NotImplementedError, match="classifier"):
        models.load(str(tiny_bert_dir), device="cpu").classify(["a"])


def test_minilm_is_the_real_packaged_model_and_matches_sentence_transformers():
    model = models.load("minilm", device="cpu")
    texts = ["A warm, funny film.", "There was no cherry tree in the garden, only rain."]
    ours = model.embed(texts)
    theirs = model.st.encode(texts)
    assert ours.shape == (2, 384)
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


def test_minilm_static_is_the_mean_of_input_word_pieces():
    static = models.load("minilm-static")
    full = models.load("minilm", device="cpu")
    ids = full.tokenizer("skilful writer", add_special_tokens=False)["input_ids"]
    expected = full.backbone.embeddings.word_embeddings.weight[ids].mean(0).detach().numpy()
    np.testing.assert_allclose(static.embed(["skilful writer"])[0], expected, atol=1e-6)


@pytest.mark.parametrize("header", [True, False], ids=["word2vec-text", "glove-text"])
def test_gensim_vectors_from_a_file_path(tmp_path, header):
    lines = ["red 1 0 0", "dog 0 1 0", "big 0 0 1"]
    path = tmp_path / ("vectors.txt")
    path.write_text(("3 3\n" if header else "") + "\n".join(lines) + "\n")
    model = models.load(str(path))
    out = model.embed(["red dog", "red unicorn", "pink unicorn"])
    np.testing.assert_allclose(out[0], [0.5, 0.5, 0.0])
    np.testing.assert_allclose(out[1], [1.0, 0.0, 0.0])  # the mean of the known words
    assert np.isnan(out[2]).all()  # no known word: no vector
    assert model.missing_words(["red unicorn", "big dog"]) == {"red unicorn": ["unicorn"]}
    np.testing.assert_array_equal(
        model.token_counts(["red dog", "red unicorn", "pink unicorn"]), [[2, 2], [1, 2], [0, 2]]
    )


def test_auto_device_is_cpu_without_a_gpu_and_cuda_is_refused():
    import torch

    from mtlib.utils.batching import resolve_device

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert resolve_device("auto") in ("cpu", "mps")
    with pytest.raises(ValueError, match="CUDA"):
        resolve_device("cuda")


@pytest.mark.gpu
def test_gpu_path_matches_cpu():
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    texts = SENTENCES
    cpu = models.build(models.resolve("minilm"), device="cpu", use_cache=False).embed(texts)
    gpu = models.build(models.resolve("minilm"), device="cuda", use_cache=False).embed(texts)
    np.testing.assert_allclose(cpu, gpu, atol=2e-2)


def test_no_warning_storm_on_load(tiny_bert_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        models.build(models.resolve(str(tiny_bert_dir)), device="cpu", use_cache=False)


def test_an_interrupted_run_keeps_every_finished_chunk(tmp_path):
    cache = ArrayCache(("interrupt",), root=tmp_path)
    seen = []

    def compute(items):
        if len(seen) >= 10:
            raise KeyboardInterrupt
        seen.extend(items)
        return np.ones((len(items), 2))

    with pytest.raises(KeyboardInterrupt):
        cached_rows(cache, [f"t{i}" for i in range(25)], compute, chunk_size=5)
    assert len(seen) == 10
    seen.clear()
    again = ArrayCache(("interrupt",), root=tmp_path)
    out = cached_rows(
        again,
        [f"t{i}" for i in range(25)],
        lambda items: (seen.extend(items), np.ones((len(items), 2)))[1],
        chunk_size=5,
    )
    assert out.shape == (25, 2) and sorted(seen) == sorted(f"t{i}" for i in range(10, 25))


# ---------------------------------------------------------------------------
# Cache write failures name the folder and the remedy; static vectors' OOV rule
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("code", "why"), [(errno.ENOSPC, "no space left"), (errno.EFBIG, "file too large")])
def test_a_full_disk_names_the_cache_folder_and_mtlib_cache(tmp_path, monkeypatch, code, why):
    from mtlib.utils import cache as cache_module

    def full(fd):
        raise OSError(code, os.strerror(code))

    cache = ArrayCache(("unit", "full"), root=tmp_path)
    monkeypatch.setattr(cache_module.os, "fsync", full)
    with pytest.raises(OSError, match=why) as err:
        cache.put_many([b"k" * 16], np.ones((1, 2), dtype=np.float32))
    msg = str(err.value)
    assert err.value.errno == code and f"cache folder {tmp_path}" in msg and "MTLIB_CACHE" in msg
    assert not list(tmp_path.rglob(".tmp-*"))  # the partial file is removed


def test_an_unwritable_cache_root_is_a_permission_error_naming_the_folder(tmp_path, monkeypatch):
    from pathlib import Path

    from mtlib.utils.cache import cache_root

    root = tmp_path / "locked" / "cache"
    monkeypatch.setenv("MTLIB_CACHE", str(root))

    def denied(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", denied)
    with pytest.raises(PermissionError, match="MTLIB_CACHE") as err:
        cache_root()
    assert f"cache folder {root}" in str(err.value)


def test_a_failed_write_outside_the_cache_keeps_its_own_message(tmp_path, monkeypatch):
    from mtlib.utils import cache as cache_module

    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "cache"))

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_module.os, "fsync", full)
    with pytest.raises(OSError) as err:
        cache_module.atomic_write_bytes(tmp_path / "out" / "metrics.json", b"{}")
    assert "MTLIB_CACHE" not in str(err.value) and err.value.strerror == "No space left on device"


def test_static_vectors_text_with_no_known_token_is_skipped_and_counted():
    from mtlib.models.inference.oov import count_skipped, known_rows, pool_known_tokens

    vocab = {"red": 0, "car": 1}
    vectors = np.array([[1.0, 0.0], [0.0, 3.0]], dtype=np.float32)
    texts = ["red car", "red zorg", "zorg blorf", ""]
    out = pool_known_tokens([[vocab.get(w) for w in t.split()] for t in texts], vectors)
    assert out.dtype == np.float32 and out.shape == (4, 2)
    np.testing.assert_array_equal(out[:2], [[0.5, 1.5], [1.0, 0.0]])  # the mean of the known tokens
    assert np.isnan(out[2:]).all()
    np.testing.assert_array_equal(known_rows(out), [True, True, False, False])
    assert count_skipped(out) == 2


def test_weight_digests_are_memoised_in_the_cache_folder_given(tmp_path):
    from mtlib.models.weights.identity import file_digest

    weights = tmp_path / "w.bin"
    weights.write_bytes(b"weights")
    digest = file_digest(weights, tmp_path / "run-cache")
    memo = json.loads((tmp_path / "run-cache" / "weights-hashes.json").read_text())
    assert list(memo.values()) == [digest] and digest == hashlib.sha256(b"weights").hexdigest()


def test_a_load_with_a_context_memoises_weight_digests_in_its_folder_only(tmp_path, monkeypatch):
    from mtlib.utils.context import RunContext

    default, run = tmp_path / "default-cache", tmp_path / "run-cache"
    monkeypatch.setenv("MTLIB_CACHE", str(default))
    path = tmp_path / "vectors.txt"
    path.write_text("3 3\nred 1 0 0\ndog 0 1 0\nbig 0 0 1\n")
    model = models.load(str(path), context=RunContext(cache_dir=run))
    model.embed(["red dog"])
    assert not default.exists() or not any(default.rglob("*"))  # nothing under the default folder
    memo = json.loads((run / "weights-hashes.json").read_text())
    assert list(memo.values()) == [hashlib.sha256(path.read_bytes()).hexdigest()]
