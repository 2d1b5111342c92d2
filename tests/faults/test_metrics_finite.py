"""No NaN reported as a result: every number a notebook records is finite, or declared skipped with its reason.

The rule (:mod:`mtlib.run.results`): ``Run.record`` refuses a NaN or infinite
value (alone, or inside a list, a dict, a table) unless its key was declared
skipped (``Run.skip(key, reason)``, or a report's ``skipped()``); a skipped key
is not written and ``_skipped`` in ``metrics.json`` names it with the reason; a
headline key that is skipped or not finite fails the notebook with the key.

``test_smoke_metrics_hold_only_finite_numbers`` reads the smoke runs the suite
makes once per session (``tests/smoke_runs.py``, shared with
``tests/notebooks/test_notebooks.py``): it adds no notebook run of its own.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from mtlib.run import results
from mtlib.run.layout import RunLayout

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = [nb for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) if nb.stem != "00_template"]


def undeclared_non_finite(metrics: dict[str, Any]) -> list[str]:
    """Keys of ``metrics`` (a parsed ``metrics.json``) holding a NaN, an infinity or a ``null`` (how NaN was
    written before the rule), anywhere inside the value, that ``_skipped`` does not declare."""
    skipped = metrics.get(results.SKIPPED_KEY, {})
    bad: list[str] = []

    def walk(key: str, where: str, value: Any) -> None:
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            bad.append(key + where)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(key, f"{where}[{k!r}]", v)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(key, f"{where}[{i}]", v)

    for key, value in metrics.items():
        if key != results.SKIPPED_KEY and key not in skipped:
            walk(key, "", value)
    return bad


@pytest.mark.notebook
@pytest.mark.xdist_group("smoke")
@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
def test_smoke_metrics_hold_only_finite_numbers(path, smoke_runs):
    """Every notebook's smoke ``metrics.json``: no NaN, infinity or null that ``_skipped`` does not declare."""
    smoke = smoke_runs.get(path.stem[:2])
    assert smoke.returncode == 0, smoke.log[-3000:]
    metrics_path = RunLayout(smoke.out_dir, "smoke", path.stem).metrics_path  # 00: the tour, not the template
    metrics = json.loads(metrics_path.read_text())  # the json module reads NaN and Infinity literals too
    bad = undeclared_non_finite(metrics)
    assert not bad, f"{path.stem}: NaN, infinite or null values not declared skipped: {bad[:20]}"
    for key, why in metrics.get(results.SKIPPED_KEY, {}).items():
        assert key not in metrics and isinstance(why, str) and why.strip(), (key, why)


def test_the_check_finds_nan_null_and_infinity_inside_values():
    metrics = {
        "a": 1.0,
        "b": None,
        "c": [1.0, float("inf")],
        "d": {"e": float("nan")},
        "f": None,
        "_skipped": {"f": "n_boot=0: no bootstrap intervals"},
    }
    assert undeclared_non_finite(metrics) == ["b", "c[1]", "d['e']"]


# -------------------------------------------------------------------------------- the rule itself


def _run(tmp_path: Path) -> results.Run:
    return results.Run("not_a_notebook", profile="t", out_dir=str(tmp_path), params={})


def _written(run: results.Run) -> dict[str, Any]:
    return json.loads(run.metrics_path.read_text())


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, -math.inf, np.float32("nan"), [0.5, math.nan], {"E": math.inf}, np.array([1.0, np.nan])],
    ids=["nan", "inf", "-inf", "float32-nan", "in-list", "in-dict", "in-array"],
)
def test_a_non_finite_value_not_declared_skipped_is_refused_with_its_key(tmp_path, value):
    run = _run(tmp_path)
    run.record("kept", 0.5)
    with pytest.raises(results.NonFiniteMetricError, match=r"'rate/overall' is .*declared skipped") as err:
        run.record("rate/overall", value)
    assert err.value.key == "rate/overall"
    assert "rate/overall" not in _written(run) and _written(run)["kept"] == 0.5  # nothing lost, nothing half-written


def test_a_nan_table_cell_is_refused_naming_row_and_column(tmp_path):
    frame = pd.DataFrame({"E": [0.5, np.nan]}, index=["S-I", "NS-Pr"])
    with pytest.raises(results.NonFiniteMetricError, match=r"'per_type' is nan at \[1\]\['E'\]"):
        _run(tmp_path).record("per_type", frame)


def test_a_declared_skip_writes_no_key_and_names_the_reason(tmp_path):
    run = _run(tmp_path)
    run.record("ci_low/overall", 0.25)
    run.skip("ci_low/overall", "n_boot=0: no bootstrap intervals")  # a value recorded before is removed
    run.record("ci_low/overall", math.nan)  # declared: left out, no error
    written = _written(run)
    assert "ci_low/overall" not in written
    assert written["_skipped"] == {"ci_low/overall": "n_boot=0: no bootstrap intervals"}
    run.record("ci_low/overall", 0.3)  # computed after all: the value replaces the declaration
    written = _written(run)
    assert written["ci_low/overall"] == 0.3 and "_skipped" not in written
    with pytest.raises(ValueError, match="give the reason"):
        run.skip("other", "  ")


def test_a_headline_key_that_is_skipped_or_not_finite_fails_with_the_key(tmp_path):
    run = _run(tmp_path)
    run.skip("spearman/heldout", "no held-out sentences")
    with pytest.raises(ValueError, match=r"spearman/heldout \(no held-out sentences\) were skipped"):
        run.record("spearman/heldout", math.nan, headline=True)
    with pytest.raises(ValueError, match="pss/linear/FB are NaN or infinite"):
        run.record("pss/linear/FB", math.inf, headline=True)
    run.record("accuracy", 0.9, headline=True)
    with pytest.raises(ValueError, match="headline metric accuracy cannot be skipped"):
        run.skip("accuracy", "not computed")


class _Report:
    """A report with one value not computed, declared by ``skipped()``, and a headline."""

    headline = ["rho/train"]

    def __init__(self, rho_train: float = 0.4) -> None:
        self.rho_train = rho_train

    def metrics(self) -> dict[str, Any]:
        return {"rho/train": self.rho_train, "rho/heldout": math.nan, "n": 12}

    def skipped(self) -> dict[str, str]:
        return {"rho/heldout": "no held-out sentences (heldout_fraction=0)"}


def test_record_report_declares_a_reports_skipped_keys_under_every_prefix(tmp_path):
    run = _run(tmp_path)
    out = run.record_report(_Report(), model="org/model")
    slug = results.model_slug("org/model")
    written = _written(run)
    assert written["_skipped"] == {
        "rho/heldout": "no held-out sentences (heldout_fraction=0)",
        f"models/{slug}/rho/heldout": "no held-out sentences (heldout_fraction=0)",
    }
    assert "rho/heldout" not in written and written["rho/train"] == 0.4 and written["_headline"] == ["rho/train"]
    assert "rho/train" in out
    with pytest.raises(results.NonFiniteMetricError, match="'rho/train' is nan"):  # a claimed key is never skipped
        _run(Path(tempfile.mkdtemp())).record_report(_Report(rho_train=math.nan))


@pytest.mark.parametrize("name", ["../outside", "a/b", "..", "", "c\\d"])
def test_figure_and_table_names_are_one_file_name(tmp_path, name):
    import matplotlib.pyplot as plt

    run = _run(tmp_path / "out")
    fig, _ = plt.subplots()
    with pytest.raises(ValueError, match="one file name"):
        run.save_figure(fig, name, show=False)
    with pytest.raises(ValueError, match="one file name"):
        run.save_table(pd.DataFrame({"a": [1]}), name)
    plt.close(fig)
    assert not (tmp_path / "outside.png").exists() and not (tmp_path / "out" / "outside.csv").exists()
