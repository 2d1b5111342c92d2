"""The template (notebook 00_template): a spec, a data loader, and the method in the notebook's cells."""

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


def test_the_notebook_records_each_models_similarity(tmp_path, monkeypatch):
    """The template's cells, run as a script (no kernel): one key per model and the primary's plain key."""
    from mtlib.utils.paths import project_root
    from mtrun.script import run_notebook

    nb = project_root() / "notebooks" / "00_template.ipynb"
    monkeypatch.chdir(nb.parent)
    params = dict(models=["minilm-static", "minilm"], n_examples=3, device="cpu", out_dir=str(tmp_path))
    ns = run_notebook(nb, params, quiet=True)
    assert ns["texts"] == template.load(template.Spec(n_examples=3))
    m = {k: v for k, v in ns["run"].metrics.items() if k not in results.RUN_KEYS and not k.startswith("timing/")}
    assert set(m) == {"n_examples", "mean_similarity", "models/minilm-static/mean_similarity",
                      "models/minilm/mean_similarity"}  # fmt: skip
    assert m["n_examples"] == 3 and m["mean_similarity"] == m["models/minilm-static/mean_similarity"]
    assert -1 <= m["models/minilm/mean_similarity"] <= 1 and m["models/minilm/mean_similarity"] != m["mean_similarity"]
    assert ns["run"].headline == ["mean_similarity"]
    assert sorted(p.name for p in (tmp_path / "figures").rglob("*.png")) == [
        "similarity_minilm-static.png",
        "similarity_minilm.png",
    ]
