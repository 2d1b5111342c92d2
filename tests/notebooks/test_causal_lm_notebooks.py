"""A causal LM among a notebook's models (issue 59): its rows stand beside the encoders', each accuracy beside its
majority baseline.

Each test runs a notebook in the smoke profile with a tiny causal LM (a 2-layer Llama made here, random weights:
its answers mean nothing, but every code path runs as with ``smollm2-135m``) added to its models by a ``-p``
override, and checks that the LM's rows are there, beside the encoder's, with the same keys.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pandas as pd
import pytest

from mtlib.run.layout import RunLayout
from mtlib.utils.keys import model_slug
from tests.smoke_runs import ROOT, smoke_env
from tests.unit.models.tiny_lm import make_tiny_lm

pytestmark = [pytest.mark.notebook]

NB03 = "03_cogalex_transitivity"


def test_03_gives_a_causal_lm_s_rows_beside_the_encoder_s(tmp_path):
    lm = str(make_tiny_lm(tmp_path / "tiny-lm"))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "mtrun", "--profile", "smoke", "--only", "03", "--root", str(ROOT)]
    overrides = ["-p", f"03.models=[minilm,{lm}]", "-p", "03.n_boot=5"]
    done = subprocess.run(
        [*cmd, "--out-dir", str(out), *overrides], env=smoke_env(tmp_path / "cache"), capture_output=True, text=True
    )
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
