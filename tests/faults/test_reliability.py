"""The runner's reliability faults: no data loss, a merged and escaped report, safe names, bounded YAML,
a scheduler that is not one, signals, and values that are not numbers.

Each test names the fault of the reliability issue it covers.
"""

from __future__ import annotations

import json
import math
import re
import signal
import socket
import threading
import time
from pathlib import Path

import nbformat
import pytest

import mtrun as runner
from mtlib.run import params, results
from mtlib.run.layout import RunLayout
from mtrun import expected, jobs
from mtrun.dask_executor import connect
from mtrun.report import write_report
from mtrun.yamlfile import MAX_YAML_BYTES

PARAMS = """profile: str = "quick"  # run profile
out_dir: str = ""  # output root
n_boot: int = 10  # a number with a rule | >= 1
"""
QUICK = """from mtlib.run import results
run = results.Run.from_notebook("{stem}", globals())
assert n_boot != 99, "n_boot 99 fails on purpose"
run.record("value", n_boot, headline=True)
"""


def _project(root: Path, stems: tuple[str, ...] = ("01_a", "02_b")) -> Path:
    (root / "mtlib").mkdir(parents=True)
    nb_dir = root / "notebooks"
    (nb_dir / "profiles").mkdir(parents=True)
    for stem in stems:
        cell = nbformat.v4.new_code_cell(PARAMS)
        cell.metadata["tags"] = ["parameters"]
        nb = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_code_cell(QUICK.format(stem=stem))])
        nb.metadata["kernelspec"] = {"name": "mtlib", "display_name": "Python (mtlib)", "language": "python"}
        nbformat.write(nb, nb_dir / f"{stem}.ipynb")
    (nb_dir / "profiles" / "t.yaml").write_text("notebooks: {}\n")
    return root


def _main(root: Path, *args: str) -> int:
    return runner.main(["--profile", "t", "--root", str(root), *args])


# (a) a refused override or a failing run never deletes the last good outputs ------------------------------------
@pytest.mark.slow
def test_refused_or_failed_run_keeps_the_previous_good_outputs(tmp_path):
    root = _project(tmp_path / "p", ("01_a",))
    layout = RunLayout(root, "t", "01_a")
    assert _main(root, "-p", "01.n_boot=5") == 0
    assert json.loads(layout.metrics_path.read_text())["value"] == 5
    good = {p.name: p.read_bytes() for p in layout.run_dir.iterdir() if p.is_file()}

    assert _main(root, "-p", "01.n_bot=10") == 1  # a misspelt name: refused before anything runs
    assert _main(root, "-p", "01.n_boot=0") == 1  # refused by the rule table
    assert {p.name: p.read_bytes() for p in layout.run_dir.iterdir() if p.is_file()} == good

    assert _main(root, "-p", "01.n_boot=99") == 1  # runs and fails
    assert json.loads(layout.metrics_path.read_text())["value"] == 5  # the last good run's outputs
    attempt = layout.profile_dir / ".01_a.attempt"
    assert (attempt / "papermill_runs" / "t" / "01_a" / "01_a.ipynb").exists()  # the failed attempt, to inspect
    assert ".01_a.attempt" in layout.report_path.read_text()

    assert _main(root, "-p", "01.n_boot=6") == 0  # a good run replaces them, and the attempt goes
    assert json.loads(layout.metrics_path.read_text())["value"] == 6
    assert json.loads(layout.params_path.read_text())["out_dir"] == str(root)
    assert not attempt.exists()


# (b) --only keeps the other notebooks' rows in REPORT.md ---------------------------------------------------------
@pytest.mark.slow
def test_report_merges_rows_of_notebooks_not_run_this_time(tmp_path):
    root = _project(tmp_path / "p")
    assert _main(root) == 0
    assert _main(root, "--only", "02", "-p", "02.n_boot=3") == 0
    report = RunLayout(root, "t", "").report_path.read_text()
    rows = [line for line in report.splitlines() if line.startswith("| [")]
    assert len(rows) == 2 and "01_a" in rows[0] and "02_b" in rows[1]
    assert "(run 20" in rows[0] and "(run " not in rows[1]
    assert "value=10" in rows[0] and "value=3" in rows[1]


# (c) names used in paths are single safe components --------------------------------------------------------------
@pytest.mark.parametrize("stem", ["..", ".", "a b", "../x"])
def test_names_used_in_paths_must_be_safe_components(tmp_path, stem):
    with pytest.raises(ValueError, match="cannot name a folder"):
        RunLayout(tmp_path, stem, "01_a")
    with pytest.raises(ValueError, match="cannot name a folder"):
        RunLayout(tmp_path, "t", stem)


def test_a_profile_file_named_dot_dot_yaml_is_refused(tmp_path):
    root = _project(tmp_path / "p", ("01_a",))
    bad = tmp_path / "...yaml"
    bad.write_text("notebooks: {}\n")
    with pytest.raises(SystemExit, match=r"profile name '\.\.' cannot name a folder"):
        runner.build_jobs(str(bad), root=root)
    assert results.model_slug("../../etc") != "../../etc" and "/" not in results.model_slug("../../etc")


# (d) REPORT.md escapes every value -------------------------------------------------------------------------------
def test_report_escapes_html_and_markdown_from_data_and_command_line(tmp_path):
    evil = "<img src=x onerror=alert(1)> [click](http://evil) `tick` a|b"
    res = [
        jobs.JobResult("01_a", "failed", 1.0, error=evil),
        jobs.JobResult("02_b", "ok", 1.0, metrics={f"k{evil}": 1.0, "_headline": [f"k{evil}"]}),
    ]
    text = write_report(res, "t", tmp_path).read_text()
    assert "<img" not in text and "`tick`" not in text
    assert re.search(r"(?<!\\)\]\(http://evil", text) is None  # no link: its brackets are escaped
    assert "&lt;img src=x onerror=alert(1)>" in text and "a\\|b" in text


# (e) a scheduler address that is not a Dask scheduler fails within the timeout -----------------------------------
def test_a_tcp_server_that_is_not_a_dask_scheduler_fails_within_the_timeout():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    port = server.getsockname()[1]
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:  # accepts and says nothing, like a wrong service
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        start = time.monotonic()
        with pytest.raises(SystemExit, match=rf"reached 127\.0\.0\.1:{port}.*expected a Dask scheduler"):
            connect(f"tcp://127.0.0.1:{port}", timeout=2.0)
        assert time.monotonic() - start < 15
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        server.close()
    with pytest.raises(SystemExit, match=rf"cannot reach 127\.0\.0\.1:{port}, nothing answers"):
        connect(f"tcp://127.0.0.1:{port}", timeout=2.0)  # now closed: nothing listens


# (f) out_dir overrides, duplicate keys, the elapsed time of an interrupted notebook ------------------------------
def test_an_out_dir_override_is_refused(tmp_path):
    root = _project(tmp_path / "p", ("01_a",))
    with pytest.raises(SystemExit, match="out_dir is set by the runner; use --out-dir"):
        runner.build_jobs("t", root=root, overrides=["01.out_dir=/tmp/elsewhere"])


def test_a_duplicate_key_in_a_profile_names_file_and_line(tmp_path):
    root = _project(tmp_path / "p", ("01_a",))
    path = tmp_path / "dup.yaml"
    path.write_text("notebooks:\n  '01':\n    n_boot: 3\n    n_boot: 4\n")
    with pytest.raises(SystemExit, match=r"dup\.yaml:4: key 'n_boot' is given twice \(first at line 3\)"):
        runner.build_jobs(str(path), root=root)


class _InterruptedAfterStart:
    def map(self, todo):
        attempt = jobs.attempt_layout(todo[0])
        assert attempt is not None
        attempt.root.mkdir(parents=True)
        (attempt.root / jobs.STARTED_FILE).write_text(repr(time.time()))  # as execute_job marks it
        time.sleep(1.5)
        raise KeyboardInterrupt


def test_an_interrupted_notebook_shows_its_real_elapsed_time(tmp_path):
    job = jobs.NotebookJob(
        Path("01_a.ipynb"), RunLayout(tmp_path, "t", "01_a").notebook_path, {"out_dir": str(tmp_path)}, tmp_path
    )
    res, signum = runner.run_jobs(_InterruptedAfterStart(), [job])
    assert signum == signal.SIGINT and res[0].status == "interrupted" and res[0].seconds >= 1.4


# (g) SIGHUP stops the run like SIGTERM ---------------------------------------------------------------------------
def test_sighup_is_treated_as_sigterm():
    with pytest.raises(jobs.Interrupted) as err, jobs.signals_raise():
        signal.raise_signal(signal.SIGHUP)
    assert err.value.signum == signal.SIGHUP


# (h) YAML alias bombs ----------------------------------------------------------------------------------------------
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8)
)


def test_an_alias_bomb_in_a_profile_is_refused(tmp_path):
    root = _project(tmp_path / "p", ("01_a",))
    path = tmp_path / "bomb.yaml"
    path.write_text("defaults:\n  " + BOMB.replace("\n", "\n  ").rstrip() + "\nnotebooks: {}\n")
    start = time.monotonic()
    with pytest.raises(SystemExit, match="aliases"):
        runner.build_jobs(str(path), root=root)
    assert time.monotonic() - start < 10


def test_an_alias_bomb_in_a_command_line_value_is_refused(tmp_path):
    root = _project(tmp_path / "p", ("01_a",))
    flow = "{" + BOMB.strip().replace("\n", ", ") + "}"
    with pytest.raises(SystemExit, match="aliases"):
        runner.build_jobs("t", root=root, overrides=[f"01.n_boot={flow}"])
    with pytest.raises(SystemExit, match="characters"):
        runner.build_jobs("t", root=root, overrides=["01.n_boot=" + "1" * (MAX_YAML_BYTES + 1)])


# (i) python -m mtrun.expected fails when it checks nothing ----------------------------------------------------
@pytest.mark.parametrize("args", [["--profile", "smok"], ["--profile", "smoke", "--only", "99"]])
def test_expected_checking_nothing_exits_non_zero(tmp_path, args, capsys):
    assert expected.main([*args, "--out-dir", str(tmp_path)]) == 2  # 2: nothing checked (1 is a mismatch)
    assert "checked nothing" in capsys.readouterr().err


# (j) NaN for a claimed metric fails with the key -------------------------------------------------------------------
def test_nan_for_a_headline_metric_fails_with_its_key(tmp_path):
    run = results.Run("not_a_notebook", profile="t", out_dir=str(tmp_path))
    with pytest.raises(results.NonFiniteMetricError, match="'plain' is nan"):  # not claimed: refused too (issue 36)
        run.record("plain", math.nan)
    run.skip("plain", "not computed in this test")  # declared skipped: left out
    run.record("plain", math.nan)
    with pytest.raises(ValueError, match="pss/linear/FB"):
        run.record("pss/linear/FB", math.nan, headline=True)


# values that pass a comparison arithmetically but give NaN metrics: refused before the notebook runs ----------
@pytest.mark.parametrize(
    ("stem", "name", "value"),
    [
        ("06_tree_reconstruction_error", "lr", float("inf")),
        ("04_montague_adjectives", "n_boot", -1),
        ("06_tree_reconstruction_error", "init_scale", float("nan")),
    ],
)
def test_non_finite_or_negative_values_are_refused_by_the_rule_table(stem, name, value):
    notebook = Path(__file__).resolve().parents[2] / "notebooks" / f"{stem}.ipynb"
    _, problems, _ = params.check(notebook, {name: value})
    assert problems and name in problems[0]
