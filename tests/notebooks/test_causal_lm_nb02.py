"""Notebook 02 with a causal LM among its models: its rows stand beside the encoder's (issue 59, item 4).

A tiny Llama folder made here (``tests/unit/models/tiny_lm.py``: random weights, a word-level tokenizer) is
given to notebook 02 with ``-p models=[minilm,<folder>]`` and the copy runs as a plain script in the smoke
profile. Its predictions mean nothing; what is checked is that every step runs for it as for MiniLM: the probe
on its hidden states, s_ent from its prompt, the relation over the same test contexts, each accuracy recorded
beside its majority baseline, Tables 3-4 saved under its row, and the primary row's pinned values untouched.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from mtlib.run.layout import RunLayout
from mtlib.utils import model_slug
from tests.smoke_runs import ROOT, smoke_env
from tests.unit.models.tiny_lm import make_tiny_lm
from tests.warm import run_python

pytest.importorskip("transformers")

NOTEBOOK = ROOT / "notebooks" / "02_nli_probe_compositionality.ipynb"


@pytest.mark.notebook
@pytest.mark.slow
def test_02_gives_a_causal_lm_its_rows_beside_the_encoder(tmp_path):
    folder = make_tiny_lm(tmp_path / "tiny-lm")
    out = tmp_path / "out"
    cmd = ["-m", "mtrun.script", str(NOTEBOOK), "--profile", "smoke", "--out-dir", str(out),
           "-p", f"models=[minilm,{folder}]", "--quiet", "--cwd", str(ROOT / "notebooks")]  # fmt: skip
    done = run_python(cmd, env=smoke_env())
    assert done.returncode == 0, done.stderr[-3000:]
    layout = RunLayout(out, "smoke", NOTEBOOK.stem)
    metrics = json.loads(layout.metrics_path.read_text())
    lm = model_slug(str(folder))
    assert lm != str(folder) and str(tmp_path) not in lm  # its row is named without the machine's path
    for row in ("minilm", lm):
        key = f"models/{row}/"
        for name in ("probe_accuracy", "nli_accuracy"):
            assert 0.0 <= metrics[key + name] <= 1.0
            assert 0.5 <= metrics[key + name + "_majority_baseline"] <= 1.0  # the baseline stands beside it
            assert metrics[key + name + "_n"] == metrics["nli_accuracy_n"]  # the same test inputs
        # the pairs of the same test contexts, less the ties (the tiny LM's tokenizer reads most words as <unk>)
        assert 0 < metrics[key + "n_cases"] <= metrics["n_cases"]
        for side in ("up", "down", "overall"):
            assert 0.0 <= metrics[f"{key}violation_rate/{side}"] <= 1.0
    assert metrics[f"models/{lm}/nli_head_n_train"] > 0  # its prompt was calibrated on training inputs
    assert metrics["probe_accuracy"] == metrics["models/minilm/probe_accuracy"]  # MiniLM stays the primary row
    assert metrics["nli_accuracy"] == pytest.approx(0.7026239067055393)  # the unedited smoke run's
    tables = layout.metrics_path.parent / "tables"
    side_by_side = pd.read_csv(tables / "model_rows.csv", index_col=0)
    assert list(side_by_side.index) == ["minilm", lm]
    assert side_by_side.loc[lm, "s_ent from"] == "prompt" and side_by_side.loc["minilm", "s_ent from"] == "head"
    assert side_by_side.loc[lm, "nli_accuracy"] == pytest.approx(metrics[f"models/{lm}/nli_accuracy"])
    for table in ("table3_contexts", "table4_insertions"):
        assert len(pd.read_csv(tables / f"{table}__{lm}.csv")) == len(pd.read_csv(tables / f"{table}.csv"))
