"""Notebooks 03, 05 and 07 accept a causal LM's name where they take a model (issue 59): its rows stand beside the
others, each accuracy beside its majority baseline.

Each test runs a notebook in the smoke profile with a tiny causal LM (a 2-layer Llama built here,
``tests/unit/models/tiny_lm.py``: random weights, so its accuracy means nothing, but every code path runs as with
``smollm2-135m``) added by a ``-p`` override, as a researcher adds ``smollm2-135m``. It checks that the LM's rows
appear beside the encoders' with an accuracy and the majority baseline recorded, that what cannot apply to an LM is
skipped with its reason, and that the encoders' smoke values are those pinned for the unedited run. (Notebook 02's
test is ``test_causal_lm_nb02.py``.)
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mtlib.run.layout import RunLayout
from mtlib.utils import model_slug
from tests.smoke_runs import ROOT, smoke_env
from tests.unit.models.tiny_lm import make_tiny_lm
from tests.warm import run_python

pytest.importorskip("transformers")
pytestmark = [pytest.mark.notebook, pytest.mark.slow, pytest.mark.xdist_group("causal_lm")]


@pytest.fixture(scope="module")
def lm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_lm(tmp_path_factory.mktemp("tiny-lm"))


def run_with(tmp_path: Path, stem: str, *overrides: str) -> tuple[dict[str, Any], RunLayout, str]:
    """Notebook ``stem`` run on a copy in the smoke profile with ``-p`` ``overrides``: metrics, layout, stdout."""
    notebook = ROOT / "notebooks" / f"{stem}.ipynb"
    copy = tmp_path / notebook.name
    copy.write_text(notebook.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    params = [arg for p in overrides for arg in ("-p", p)]
    cmd = ["-m", "mtrun.script", str(copy), "--profile", "smoke", *params, "--out-dir", str(out)]
    done = run_python([*cmd, "--cwd", str(ROOT / "notebooks")], env=smoke_env())
    assert done.returncode == 0, done.stderr[-3000:]
    layout = RunLayout(out, "smoke", stem)
    return json.loads(layout.metrics_path.read_text()), layout, done.stdout


def test_05_gives_the_lm_s_row_in_table1_beside_the_encoders_heads(tmp_path, lm_dir):
    metrics, layout, stdout = run_with(tmp_path, "05_polarity_sensitivity", f"encoders=[minilm-static,{lm_dir}]")
    lm = f"models/{model_slug(str(lm_dir))}"
    table1 = pd.read_csv(layout.tables_dir / "table1_pss.csv", index_col="condition")
    row = table1.loc[f"{lm_dir}/prompt/prompt"]  # the LM's one row, by its name
    assert row["mode"] == "prompt" and row["final_layers"] == "prompt"
    assert 0.0 <= row["accuracy"] <= 1.0 and 0.0 <= row["pss"] <= 1.0
    assert row["majority_baseline"] == table1.loc["minilm-static/linear/FB", "majority_baseline"]  # the same test set
    assert {"minilm-static/linear/FB", "minilm-static/mlp/FB", "minilm-static/linear/FT", "vader/native/native"} <= set(
        table1.index
    )
    assert metrics[f"{lm}/accuracy/prompt"] == pytest.approx(row["accuracy"])
    assert metrics[f"{lm}/majority_baseline/prompt"] == pytest.approx(row["majority_baseline"])
    assert 0.0 <= metrics[f"{lm}/pss/prompt"] <= 1.0
    # no head on sentence embeddings the LM does not give: skipped, with the reason
    for head in ("linear", "mlp"):
        assert "no sentence embeddings" in metrics["_skipped"][f"{lm}/pss/{head}/FB"]
        assert f"{lm}/pss/{head}/FB" not in metrics
    assert "a causal LM; no FB or FT row" in stdout
    assert f"Causal LM by prompt, {lm_dir}/prompt/prompt: PSS {row['pss']:.3f}" in stdout  # "What this run shows"
    # the encoders' values are the unedited smoke run's (pinned in expected.yaml)
    assert metrics["pss/linear/FB"] == pytest.approx(0.45) and metrics["pss/linear/FT"] == pytest.approx(0.2375)


def test_07_gives_the_lm_s_rows_by_nli_prompt_beside_the_heads(tmp_path, lm_dir):
    metrics, layout, stdout = run_with(
        tmp_path, "07_seti", f"head_models=[minilm-static,{lm_dir}]", f"fewshot_models=[minilm-static,{lm_dir}]"
    )
    lm = f"models/{model_slug(str(lm_dir))}"
    scores = pd.read_csv(layout.tables_dir / "accuracy_per_run.csv")
    mine, heads = scores[scores["model"] == str(lm_dir)], scores[scores["model"] == "minilm-static"]
    assert len(mine) == len(heads) > 0 and set(mine["how"]) == {"prompt-nli"}
    keys = ["task", "setup", "config", "seed"]
    paired = mine.merge(heads, on=keys, suffixes=("_lm", "_head"))
    assert len(paired) == len(mine), "the LM runs on every dataset the heads run on"
    assert (paired["baseline_lm"] == paired["baseline_head"]).all(), "the same test sets, the same baselines"
    assert mine["accuracy"].between(0.0, 1.0).all()
    for group in ("task1/trivial/cg", "task2/non-trivial/id"):
        assert 0.0 <= metrics[f"{lm}/accuracy/{group}"] <= 1.0
        assert 0.0 <= metrics[f"{lm}/baseline/{group}"] <= 1.0
    # the few-shot study trains a head on D_few: skipped for the LM, with the reason; the head's curve is there
    assert "causal LM" in metrics["_skipped"][f"{lm}/fewshot/task1/0"]
    assert "models/minilm-static/fewshot/task1/0" in metrics
    assert "no few-shot study" in stdout


NB03 = "03_cogalex_transitivity"


def test_03_gives_a_causal_lm_s_rows_beside_the_encoder_s(tmp_path, lm_dir):
    lm = str(lm_dir)
    out = tmp_path / "out"
    cmd = ["-m", "mtrun", "--profile", "smoke", "--only", "03", "--root", str(ROOT)]
    overrides = ["-p", f"03.models=[minilm,{lm}]", "-p", "03.n_boot=5"]
    done = run_python([*cmd, "--out-dir", str(out), *overrides], env=smoke_env(tmp_path / "cache"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    layout = RunLayout(out, "smoke", NB03)
    metrics = json.loads(layout.metrics_path.read_text())
    # a causal LM among the models cuts every model's vocabulary to lm_vocabulary words (the smoke profile's 60 to 40)
    assert metrics["vocabulary/english"] == 40
    for model in ("minilm", lm):
        row = f"models/{model_slug(model)}/"
        assert metrics[f"{row}vocabulary/english"] == 40
        for rel in ("syn", "hyp"):
            accuracy = metrics[f"{row}accuracy/english/{rel}"]
            baseline = metrics[f"{row}accuracy/english/{rel}_majority_baseline"]
            assert 0.0 <= accuracy <= 1.0 and 0.5 <= baseline <= 1.0
            assert metrics[f"{row}accuracy/english/{rel}_n"] > 0
            assert metrics[f"{row}triples/english/{rel}"] == 40 * 39 * 38  # counted on the same words as the encoder
            rate = f"{row}violation_rate/english/{rel}"  # a rate, or skipped with its reason (no case)
            assert rate in metrics or metrics["_skipped"][rate] == "no case"
        # the matrix: 2 relations x n(n-1) prompts for the LM, timed
        assert metrics[f"timing/{row}predict_seconds/english"] > 0
    rates = pd.read_csv(layout.tables_dir / "violation_rate_by_model.csv", index_col=[0, 1])
    assert list(rates.columns) == ["minilm", lm]  # the LM's column beside the encoder's
    executed = json.loads(layout.notebook_path.read_text(encoding="utf-8"))
    printed = "".join(
        "".join(o.get("text", "")) for c in executed["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
    )
    assert "ms per prompt" in printed  # the LM's cost per prompt, measured by this run
    assert not math.isnan(metrics[f"models/{model_slug(lm)}/accuracy/english/syn"])
