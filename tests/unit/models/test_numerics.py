"""Precision as a declared choice: fp32 by default, bf16/fp16/tf32 on request, cached apart, recorded per run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mtlib import models
from mtlib.models import factory
from mtlib.models.inference.numerics import (
    PRECISION_ENV,
    numerics_parts,
    precision_context,
    resolve_precision,
    run_numerics,
    training_precision,
)
from tests.conftest import ROOT, SENTENCES


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """One cache of this test's own, shared by every precision it builds."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("MTLIB_CACHE", str(folder))
    monkeypatch.delenv(PRECISION_ENV, raising=False)
    monkeypatch.delenv("MTLIB_BACKEND", raising=False)
    factory._MEMO.clear()
    return folder


def _build(folder: Path, precision: str | None = None, **kwargs) -> models.Model:
    return models.build(models.resolve(str(folder)), device="cpu", precision=precision, **kwargs)


def test_the_precision_resolves_from_the_argument_then_the_environment_then_fp32(monkeypatch):
    monkeypatch.delenv(PRECISION_ENV, raising=False)
    assert resolve_precision() == resolve_precision("auto") == "fp32"
    monkeypatch.setenv(PRECISION_ENV, "BF16")
    assert resolve_precision(None) == "bf16" and resolve_precision("fp16") == "fp16"
    monkeypatch.setenv(PRECISION_ENV, "half")
    with pytest.raises(ValueError, match=r"\$MTLIB_PRECISION='half': expected one of fp32, tf32, bf16, fp16"):
        resolve_precision()
    with pytest.raises(ValueError, match="precision=3: expected a string"):
        resolve_precision(3)  # type: ignore[arg-type]


def test_fp32_is_the_default_and_adds_nothing_to_the_cache_keys(tiny_bert_dir, cache):
    model = _build(tiny_bert_dir)
    assert model.precision == "fp32" and model.numerics_parts() == ()
    assert numerics_parts("cpu", "fp32") == ()
    assert numerics_parts("cuda:0", "fp32") == ("device=cuda",)
    assert numerics_parts("mps", "bf16") == ("device=mps", "precision=bf16")
    assert models.load(str(tiny_bert_dir), device="cpu").precision == "fp32"
    assert models.load(str(tiny_bert_dir), device="cpu", precision="bf16").precision == "bf16"
    assert models.load(str(tiny_bert_dir), device="cpu") is not models.load(
        str(tiny_bert_dir), device="cpu", precision="bf16"
    )


@pytest.mark.parametrize("fixture", ["tiny_bert_dir", "tiny_roberta_nli_dir"])
def test_a_bf16_run_and_an_fp32_run_share_a_cache_but_never_serve_each_other(fixture, request, cache):
    folder = request.getfixturevalue(fixture)
    fp32, bf16 = _build(folder, "fp32"), _build(folder, "bf16")
    a, b = fp32.embed(SENTENCES), bf16.embed(SENTENCES)
    assert fp32.calls > 0 and bf16.calls > 0  # the second computed its own rows
    assert not np.array_equal(a, b)  # bf16 autocast moves the vectors
    np.testing.assert_allclose(a, b, atol=0.1)
    # fresh objects read their own rows back, each from its own namespace
    again32, again16 = _build(folder, "fp32"), _build(folder, "bf16")
    np.testing.assert_array_equal(again32.embed(SENTENCES), a)
    np.testing.assert_array_equal(again16.embed(SENTENCES), b)
    assert again32.calls == 0 and again16.calls == 0
    f32, f16 = fp32.features(SENTENCES, layer=-1), bf16.features(SENTENCES, layer=-1)
    assert not np.array_equal(f32.pooled, f16.pooled)
    if fp32.labels:  # a classifier: its logits are keyed likewise
        assert not np.array_equal(fp32.logits(SENTENCES), bf16.logits(SENTENCES))


def test_tf32_is_fp32_arithmetic_on_a_cpu_but_cached_apart(tiny_bert_dir, cache):
    fp32, tf32 = _build(tiny_bert_dir, "fp32"), _build(tiny_bert_dir, "tf32")
    np.testing.assert_array_equal(fp32.embed(SENTENCES), tf32.embed(SENTENCES))
    assert tf32.calls > 0 and tf32.numerics_parts() == ("precision=tf32",)


def test_a_cpu_run_never_inherits_the_rows_of_a_gpu_run(tiny_bert_dir, cache):
    gpu = _build(tiny_bert_dir)
    gpu.device = "cuda:0"  # as if it ran on a GPU: its rows go under the device class
    gpu._embed_batch = lambda rows: np.ones((len(rows), gpu.dim), dtype=np.float32)  # type: ignore[method-assign]
    assert gpu.numerics_parts() == ("device=cuda",)
    np.testing.assert_array_equal(gpu.embed(SENTENCES[:3]), 1.0)
    cpu = _build(tiny_bert_dir)
    out = cpu.embed(SENTENCES[:3])
    assert cpu.calls > 0 and not np.allclose(out, 1.0)


def test_heads_are_keyed_by_the_numerics_of_their_features_fp32_keys_unchanged(tiny_bert_dir, cache):
    train = (SENTENCES, [i % 2 for i in range(len(SENTENCES))])
    head32 = models.classifier(_build(tiny_bert_dir, "fp32"), train, how="head", heldout_fraction=0)
    head16 = models.classifier(_build(tiny_bert_dir, "bf16"), train, how="head", heldout_fraction=0)
    assert "numerics" not in head32.training.settings  # an fp32 CPU head keeps the key it always had
    assert head16.training.settings["numerics"] == {"features": {"precision": "bf16"}}
    assert head16.training.key != head32.training.key and not head16.training.from_cache


def test_fine_tuning_records_its_numerics_mixed_on_cuda_fp32_on_a_cpu(tiny_bert_dir, cache):
    assert training_precision("cpu") == "fp32" and training_precision("cuda:1") == "bf16-mixed"
    model = _build(tiny_bert_dir)
    assert factory.numerics_key(model, "finetune", "linear", "cpu") == {}
    assert factory.numerics_key(model, "finetune", "linear", "cuda") == {
        "training": {"device": "cuda", "precision": "bf16-mixed"}
    }
    assert factory.numerics_key(_build(tiny_bert_dir, "fp16"), "head", "mlp", "cpu") == {
        "features": {"precision": "fp16"}
    }


def test_the_onnx_backend_is_fp32_only(tiny_bert_dir, cache):
    with pytest.raises(ValueError, match="backend='onnx' runs an fp32 graph; precision='bf16' needs backend='torch'"):
        _build(tiny_bert_dir, "bf16", backend="onnx")


def test_bf16_autocasts_a_matrix_product_and_fp32_does_not():
    import torch

    x = torch.ones((2, 2))
    with precision_context("cpu", "bf16"):
        assert (x @ x).dtype == torch.bfloat16
    with precision_context("cpu", "fp32"):
        assert (x @ x).dtype == torch.float32 and torch.is_inference_mode_enabled()


def test_a_run_records_device_device_name_and_precision(tmp_path, monkeypatch):
    from mtlib.run.results import Run

    monkeypatch.delenv(PRECISION_ENV, raising=False)
    record = run_numerics("cpu", None)
    assert record["device"] == "cpu" and record["precision"] == "fp32" and record["device_name"]
    import torch

    if not torch.cuda.is_available():
        assert run_numerics("cuda:7", "bf16") == {"device": "cuda:7", "device_name": "unavailable", "precision": "bf16"}
    metrics = Run("00_template", profile="smoke", out_dir=str(tmp_path), params={}).metrics
    assert metrics["precision"] == "fp32" and metrics["device_name"] and metrics["device"] in ("cpu", "cuda", "mps")
    monkeypatch.setenv(PRECISION_ENV, "bf16")
    assert Run("00_template", profile="smoke", out_dir=str(tmp_path), params={}).metrics["precision"] == "bf16"


def test_the_runner_passes_precision_to_the_notebooks(monkeypatch, capsys):
    from mtrun import cli

    monkeypatch.delenv(PRECISION_ENV, raising=False)
    jobs = cli.build_jobs("smoke", only=["04"], root=ROOT, precision="bf16")
    assert jobs and all(job.env[PRECISION_ENV] == "bf16" for job in jobs)
    assert PRECISION_ENV not in cli.build_jobs("smoke", only=["04"], root=ROOT)[0].env
    with pytest.raises(SystemExit):
        cli.main(["--profile", "smoke", "--precision", "int8", "--list"])
    assert "invalid choice: 'int8'" in capsys.readouterr().err


def test_a_models_numerics_live_in_its_context_alone(tiny_bert_dir, cache, tmp_path):
    """device, precision and backend read the model's context; a setter changes the context, nothing else."""
    from mtlib.utils.context import RunContext

    run = RunContext.resolve(device="cpu", precision="bf16", cache_dir=tmp_path / "run", environ={})
    bert = _build(tiny_bert_dir, context=run)
    assert (bert.device, bert.precision, bert.backend) == ("cpu", "bf16", "torch")
    assert bert.context == run and bert.cache_dir == tmp_path / "run"
    bert.set_precision("fp32")
    assert bert.precision == bert.context.precision == "fp32" and bert.context.cache_dir == run.cache_dir
    with pytest.raises(ValueError, match="precision='int8'"):
        bert.set_precision("int8")
    lexicon = models.build(models.resolve("vader"), context=run)  # runs no network: no precision, no backend
    assert (lexicon.precision, lexicon.backend, lexicon.cache_dir) == (None, None, tmp_path / "run")
    with pytest.raises(ValueError, match="no network"):
        lexicon.set_precision("bf16")
