"""The template package (notebook 00_template): the whole pattern of a notebook's package, smallest."""

from __future__ import annotations

import pytest

from mtlib.experiments import spec_for, template
from mtlib.run import results
from mtlib.utils.rules import ParameterError


def test_spec_is_the_notebooks_one_declaration():
    assert spec_for("00_template") is template.Spec
    assert template.Spec().n_examples == 4 and template.load(template.Spec(n_examples=2)) == [
        "A warm, funny film.",
        "The plot is thin, but the acting is superb.",
    ]
    assert template.Spec.cell().splitlines()[-2].startswith("n_examples: int = 4  # ")


@pytest.mark.parametrize(
    "values,match",
    [
        (dict(models=[]), "at least one entry"),
        (dict(n_examples=0), ">= 1"),
        (dict(n_examples=5), "more than the 4 sentences"),
        (dict(sentences=["a", 1]), "a string"),
    ],
)
def test_spec_refuses_bad_values(values, match):
    with pytest.raises(ParameterError, match=match):
        template.Spec.from_values(values)


def test_run_gives_the_keys_the_notebook_records(tmp_path):
    spec = template.Spec(models=["minilm-static", "minilm"], n_examples=3, device="cpu", out_dir=str(tmp_path))
    outcome = template.run(spec)
    assert list(outcome.reports) == ["minilm-static", "minilm"] and outcome.data == template.load(spec)
    assert outcome.report.similarities.shape == (3, 3)
    m = outcome.metrics()
    assert set(m) == {"n_examples", "mean_similarity", "models/minilm-static/mean_similarity",
                      "models/minilm/mean_similarity"}  # fmt: skip
    assert m["n_examples"] == 3 and m["mean_similarity"] == m["models/minilm-static/mean_similarity"]
    assert -1 <= m["models/minilm/mean_similarity"] <= 1
    run = results.Run.from_spec(spec)
    run.record_outcome(outcome)
    assert {k: v for k, v in run.metrics.items() if k not in results.RUN_KEYS and not k.startswith("timing/")} == m
    assert run.headline == ["mean_similarity"]
