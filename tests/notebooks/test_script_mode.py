"""A notebook run as a plain Python script (``--as-script``: no kernel, no papermill) records what papermill does."""

from __future__ import annotations

import json

import pytest

from mtlib.run.layout import RunLayout
from mtlib.run.results import RUN_KEYS
from mtrun.script import code_cells, run_cells
from tests.smoke_runs import ROOT, smoke_command, smoke_env
from tests.warm import run_python


def _comparable(metrics: dict) -> dict:
    return {k: v for k, v in metrics.items() if k not in RUN_KEYS and not k.startswith("timing/")}


@pytest.mark.notebook
@pytest.mark.xdist_group("smoke")  # the session's smoke run of 00, on the worker that holds them (not made twice)
@pytest.mark.slow
def test_the_tour_as_a_script_records_the_papermill_runs_metrics(tmp_path, smoke_runs):
    smoke = smoke_runs.get("00")
    assert smoke.returncode == 0, smoke.log[-3000:]
    done = run_python([*smoke_command("00_tour", tmp_path)[1:], "--as-script"], env=smoke_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ours = RunLayout(tmp_path, "smoke", "00_tour")
    theirs = RunLayout(smoke.out_dir, "smoke", "00_tour")
    mine = json.loads(ours.metrics_path.read_text())
    assert _comparable(mine) == _comparable(json.loads(theirs.metrics_path.read_text()))
    assert sorted(p.name for p in ours.figures_dir.glob("*.png")) == sorted(
        p.name for p in theirs.figures_dir.glob("*.png")
    )
    assert not ours.notebook_path.exists()  # no executed notebook: no kernel ran


def test_cells_run_in_order_with_the_parameters_after_their_cell():
    shown: list = []
    cells = ["n: int = 1  # a parameter", "m = n + 1", "m * 10;", "[m, n]"]
    ns = run_cells(cells, {"n": 5}, parameters_cell=0, show=shown.append)
    assert ns["m"] == 6 and shown == [[6, 5]]  # a cell ending with ";" shows nothing, as in Jupyter


def test_a_failing_cell_is_named_in_the_traceback():
    with pytest.raises(ZeroDivisionError) as err:
        run_cells(["x: int = 1", "y = x / 0"], {}, parameters_cell=0, name="nb.ipynb")
    assert any(entry.path == "nb.ipynb:cell 2" for entry in err.traceback)


def test_every_notebook_has_one_parameters_cell_and_no_jupyter_only_syntax():
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells, index = code_cells(nb)
        assert index == 0, f"{nb.name}: the first code cell must be the parameters cell"
        for i, src in enumerate(cells):
            lines = [ln.lstrip() for ln in src.splitlines()]
            assert not [ln for ln in lines if ln.startswith(("%", "!"))], f"{nb.name} cell {i + 1}: IPython syntax"
            assert "get_ipython" not in src, f"{nb.name} cell {i + 1}: get_ipython needs a kernel"


def test_the_script_command_refuses_an_unknown_parameter(tmp_path):
    nb = ROOT / "notebooks" / "00_tour.ipynb"
    cmd = ["-m", "mtrun.script", str(nb), "--profile", "smoke", "-p", "n_bots=3"]
    done = run_python(cmd, env=smoke_env(), cwd=tmp_path)
    assert done.returncode == 2 and "n_bots" in done.stderr and "n_boot" in done.stderr
