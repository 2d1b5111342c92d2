"""The ONNX backend of frozen encoding: same vectors as torch, exported once, checksummed, chosen by name or env."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mtlib import models
from mtlib.models.inference.backends import BACKEND_ENV, cosine_gap, export_folder, resolve_backend
from tests.conftest import SENTENCES

TEXTS = [*SENTENCES, "a", "the king " * 30, "tree"]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A cache of this test's own, so an export is never found from another test."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("MTLIB_CACHE", str(folder))
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    return folder


@pytest.fixture(scope="module")
def tiny_st_dir(tiny_bert_dir, tmp_path_factory) -> Path:
    """A sentence-transformers pipeline (tiny BERT, mean pooling, normalisation) saved as a folder."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers import models as st_models

    word = st_models.Transformer(str(tiny_bert_dir))
    width = (getattr(word, "get_embedding_dimension", None) or word.get_word_embedding_dimension)()
    pipeline = SentenceTransformer(modules=[word, st_models.Pooling(width, "mean"), st_models.Normalize()])
    folder = tmp_path_factory.mktemp("tiny-st")
    pipeline.save(str(folder))
    return folder


def _build(folder: Path, backend: str | None = None, use_cache: bool = True) -> models.Model:
    return models.build(models.resolve(str(folder)), device="cpu", use_cache=use_cache, backend=backend)


@pytest.mark.parametrize("fixture", ["tiny_bert_dir", "tiny_st_dir", "tiny_roberta_nli_dir"])
def test_onnx_embeddings_equal_torch_within_1e_5_in_cosine(fixture, request, cache):
    folder = request.getfixturevalue(fixture)
    torch_model, onnx_model = _build(folder, "torch"), _build(folder, "onnx")
    assert onnx_model.backend == "onnx" and torch_model.backend == "torch"
    ours, theirs = onnx_model.embed(TEXTS), torch_model.embed(TEXTS)
    assert ours.shape == theirs.shape and ours.dtype == np.float32
    assert cosine_gap(ours, theirs) <= 1e-5
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    assert onnx_model.onnx.source == "exported" and onnx_model.calls > 0


def test_the_graph_is_exported_once_and_reloaded_from_the_cache(tiny_bert_dir, cache, monkeypatch):
    first = _build(tiny_bert_dir, "onnx")
    expected = first.embed(TEXTS[:3])
    folder = export_folder(first.identity, first.kind)
    record = json.loads((folder / "graph.json").read_text())
    graph = folder / record["files"]["model.onnx"]["file"]
    assert first.onnx.source == "exported" and first.onnx.path == graph and graph.exists()
    assert record["identity"] == first.identity and record["precision"] == "fp32"

    import torch

    def no_export(*args, **kwargs):
        raise AssertionError("exported again")

    monkeypatch.setattr(torch.onnx, "export", no_export)
    second = _build(tiny_bert_dir, "onnx")
    out = second.embed(TEXTS[:6])  # three rows from the embedding cache, three through the reloaded graph
    assert second.onnx.source == "cache" and second.calls > 0
    np.testing.assert_array_equal(out[:3], expected)
    assert cosine_gap(out[3:], _build(tiny_bert_dir, "torch").embed(TEXTS[3:6])) <= 1e-5


def test_an_export_that_disagrees_with_torch_is_refused(tiny_bert_dir, cache, monkeypatch):
    from mtlib.models.inference import backends

    monkeypatch.setattr(backends, "VERIFY_TOL", -1.0)  # no graph can pass: the check itself is what is tested
    model = _build(tiny_bert_dir, "onnx")
    with pytest.raises(RuntimeError, match="differ from torch's.*use backend='torch'"):
        model.embed(["a tree"])
    assert not (cache / "onnx").exists() or not any((cache / "onnx").rglob("graph.json"))


def test_a_damaged_graph_is_reported_and_exported_again(tiny_bert_dir, cache):
    first = _build(tiny_bert_dir, "onnx")
    path = first.onnx.path
    assert path is not None
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    second = _build(tiny_bert_dir, "onnx", use_cache=True)
    with pytest.warns(UserWarning, match="damaged entry"):
        encoder = second.onnx
    assert encoder.source == "exported"
    assert cosine_gap(second.embed(["a tree"]), _build(tiny_bert_dir, "torch").embed(["a tree"])) <= 1e-5


def test_without_the_cache_nothing_is_written(tiny_bert_dir, cache):
    model = _build(tiny_bert_dir, "onnx", use_cache=False)
    model.embed(["a tree"])
    assert model.onnx.source == "exported" and model.onnx.path is None
    assert not (cache / "onnx").exists()


def test_the_embedding_cache_key_includes_the_backend(tiny_bert_dir, cache):
    torch_model = _build(tiny_bert_dir, "torch")
    torch_model.embed(TEXTS)
    onnx_model = _build(tiny_bert_dir, "onnx")
    onnx_model.embed(TEXTS)
    assert onnx_model.calls > 0  # not served the torch rows
    again = _build(tiny_bert_dir, "onnx")
    again.embed(TEXTS)
    assert again.calls == 0  # its own rows, from the cache


def test_load_takes_the_backend_from_the_argument_else_the_environment(tiny_bert_dir, cache, monkeypatch):
    assert models.load(str(tiny_bert_dir), device="cpu").backend == "torch"
    monkeypatch.setenv(BACKEND_ENV, "onnx")
    from_env = models.load(str(tiny_bert_dir), device="cpu")
    assert from_env.backend == "onnx"
    assert models.load(str(tiny_bert_dir), device="cpu", backend="torch").backend == "torch"
    assert models.load(str(tiny_bert_dir), device="cpu", backend="auto") is from_env


def test_a_model_without_a_network_ignores_the_backend(tmp_path, cache):
    path = tmp_path / "vectors.txt"
    path.write_text("red 1 0\ndog 0 1\n")
    model = models.load(str(path), backend="onnx")
    assert model.backend is None and model.backends == ()
    np.testing.assert_allclose(model.embed(["red dog"]), [[0.5, 0.5]])


def test_an_unknown_backend_is_a_clear_error(tiny_bert_dir, cache, monkeypatch):
    with pytest.raises(ValueError, match=r"backend='tensorrt': expected one of torch, onnx"):
        models.load(str(tiny_bert_dir), device="cpu", backend="tensorrt")
    with pytest.raises(ValueError, match="expected a string"):
        resolve_backend(1)  # type: ignore[arg-type]
    monkeypatch.setenv(BACKEND_ENV, "cuda")
    with pytest.raises(ValueError, match=rf"\${BACKEND_ENV}='cuda': expected one of torch, onnx"):
        models.load(str(tiny_bert_dir), device="cpu")


def test_a_head_on_onnx_embeddings_is_cached_apart_from_one_on_torch(tiny_bert_dir, cache):
    texts = [*SENTENCES, *(s.lower() for s in SENTENCES), *(s.upper() for s in SENTENCES)]
    train = (texts, ["pos" if i % 2 else "neg" for i in range(len(texts))])
    on_torch = models.classifier(_build(tiny_bert_dir, "torch"), train, how="head")
    on_onnx = models.classifier(_build(tiny_bert_dir, "onnx"), train, how="head")
    assert on_onnx.training.key != on_torch.training.key and not on_onnx.training.from_cache
    assert on_onnx.training.settings["backend"] == "onnx" and "backend" not in on_torch.training.settings
