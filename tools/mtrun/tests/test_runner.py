"""The papermill runner on tiny fixture notebooks: success, failure, summary, report, exit code."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

import mtrun as runner
from mtlib.run.results import RunLayout

PARAMS = """profile: str = "quick"  # run profile
out_dir: str = ""  # output root
value: int = 1  # a number to record
"""

OK_BODY = """from mtlib.run import results
import matplotlib.pyplot as plt
run = results.Run("01_ok", profile=profile, out_dir=out_dir)
fig, ax = plt.subplots()
ax.plot([0, value])
run.save_figure(fig, "line")
run.record("value", value, headline=True)
"""

FAIL_BODY = """from mtlib.run import results
run = results.Run("02_fail", profile=profile, out_dir=out_dir)
run.record("before_failure", 1)
raise RuntimeError("this notebook fails on purpose")
"""


def _notebook(path: Path, body: str) -> None:
    params = nbformat.v4.new_code_cell(PARAMS)
    params.metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=[params, nbformat.v4.new_code_cell(body)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / "mtlib").mkdir()
    nb_dir = root / "notebooks"
    (nb_dir / "profiles").mkdir(parents=True)
    _notebook(nb_dir / "00_template.ipynb", "raise RuntimeError('the template must not run')")
    _notebook(nb_dir / "01_ok.ipynb", OK_BODY)
    _notebook(nb_dir / "02_fail.ipynb", FAIL_BODY)
    (nb_dir / "profiles" / "smoke.yaml").write_text(
        "defaults:\n  value: 3\n  unused: 9\nnotebooks:\n  '01':\n    value: 7\n"
    )
    return root


def test_discovery_skips_the_template(project):
    found = [p.name for p in runner.discover(project / "notebooks")]
    assert found == ["01_ok.ipynb", "02_fail.ipynb"]


def test_profile_parameters_are_merged_and_filtered(project):
    jobs = runner.build_jobs("smoke", root=project)
    params = {j.stem: j.parameters for j in jobs}
    assert params["01_ok"]["value"] == 7 and params["02_fail"]["value"] == 3
    assert "unused" not in params["01_ok"] and params["01_ok"]["profile"] == "smoke"
    assert jobs[0].env["HF_HUB_OFFLINE"] in ("1", "0") and jobs[0].env["MPLBACKEND"] == "Agg"


@pytest.mark.slow
def test_run_keeps_going_after_a_failure_and_reports(project, capsys):
    status = runner.main(["--profile", "smoke", "--root", str(project)])
    out = capsys.readouterr().out
    assert status == 1
    assert "01_ok" in out and "02_fail" in out and "failed" in out and "value=7" in out
    ok = RunLayout(project, "smoke", "01_ok")
    # a failed run is written beside the last good outputs (none here), in its attempt folder
    fail = RunLayout(ok.profile_dir / ".02_fail.attempt", "smoke", "02_fail")
    ok_dir = ok.run_dir
    assert json.loads((ok_dir / "metrics.json").read_text())["value"] == 7
    assert (ok_dir / "01_ok.ipynb").exists()
    assert (ok.figures_dir / "line.png").exists()
    assert (ok.figures_dir / "line.pdf").exists()
    fail_metrics = json.loads(fail.metrics_path.read_text())
    assert fail_metrics["before_failure"] == 1
    report = ok.report_path.read_text()
    assert "01_ok" in report and "02_fail" in report and "line.png" in report
    assert "this notebook fails on purpose" in report


@pytest.mark.slow
def test_only_selects_notebooks_and_exit_code_is_zero_when_all_pass(project, capsys):
    assert runner.main(["--profile", "smoke", "--root", str(project), "--only", "01"]) == 0
    assert "02_fail" not in capsys.readouterr().out


def test_list_and_bad_arguments(project, capsys):
    assert runner.main(["--profile", "smoke", "--root", str(project), "--list"]) == 0
    assert '"value": 7' in capsys.readouterr().out
    with pytest.raises(SystemExit, match="matches no notebook"):
        runner.main(["--profile", "smoke", "--root", str(project), "--only", "99"])
    with pytest.raises(SystemExit, match="profiles found: smoke"):
        runner.build_jobs("quick", root=project)


@pytest.mark.slow
def test_backend_flag_reaches_the_notebooks_and_their_metrics(project, capsys, monkeypatch):
    from mtlib.models.inference.backends import BACKEND_ENV

    monkeypatch.delenv(BACKEND_ENV, raising=False)
    assert all(job.env[BACKEND_ENV] == "onnx" for job in runner.build_jobs("smoke", root=project, backend="onnx"))
    assert BACKEND_ENV not in runner.build_jobs("smoke", root=project)[0].env
    assert runner.main(["--profile", "smoke", "--root", str(project), "--only", "01", "--backend", "onnx"]) == 0
    assert json.loads(RunLayout(project, "smoke", "01_ok").metrics_path.read_text())["backend"] == "onnx"
    with pytest.raises(SystemExit):
        runner.main(["--profile", "smoke", "--root", str(project), "--backend", "tensorrt"])
    assert "invalid choice: 'tensorrt'" in capsys.readouterr().err


def test_a_notebooks_backend_parameter_wins_over_the_runners_and_is_checked(tmp_path, monkeypatch):
    from mtlib.models.inference.backends import BACKEND_ENV
    from mtlib.run.params import ParameterError
    from mtlib.run.results import Run

    monkeypatch.setenv(BACKEND_ENV, "onnx")
    assert (
        Run("04_montague_adjectives", out_dir=str(tmp_path), params={"backend": "torch"}).metrics["backend"] == "torch"
    )
    assert Run("04_montague_adjectives", out_dir=str(tmp_path), params={"backend": "auto"}).metrics["backend"] == "onnx"
    with pytest.raises(ParameterError, match="backend"):
        Run("04_montague_adjectives", out_dir=str(tmp_path), params={"backend": "tensorrt"})


def test_papermill_process_skips_the_unused_iri_grammar_and_still_validates_notebooks():
    import subprocess
    import sys

    # what the runner starts per notebook, and what that process has loaded once papermill's CLI is imported
    code = (
        "import runpy, sys; sys.argv = ['papermill', '--help']\n"
        "try:\n    runpy.run_module('mtrun._papermill', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "import nbformat\n"
        "nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1')]))\n"
        "print('jsonschema' in sys.modules, sys.modules.get('rfc3987_syntax', 'missing'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "True None"  # jsonschema loaded, the grammar module marked absent
