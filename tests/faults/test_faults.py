"""Runner faults: a signal to the runner, a killed papermill, a failed notebook's report, params.json.

Tiny fixture notebooks (a sleep, a failure) in a throw-away project, so each
case costs one kernel start, not a real notebook.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

import mtrun as runner
from mtrun import jobs as runner_jobs
from tests.smoke_runs import CODE_PATH

ROOT = Path(__file__).resolve().parents[2]

PARAMS = """profile: str = "quick"  # run profile
out_dir: str = ""  # output root
marker: str = ""  # file the notebook writes its kernel and papermill pids to
n_boot: int = 10  # a number with a rule | >= 1
"""
SLEEP = """import os, pathlib, time
from mtlib.run import results
run = results.Run("{stem}", profile=profile, out_dir=out_dir, params=dict(n_boot=n_boot))
run.record("started", 1)
pathlib.Path(marker).write_text(f"{{os.getpid()}} {{os.getppid()}}")
time.sleep(120)
run.record("finished", 1)
"""
QUICK = """from mtlib.run import results
run = results.Run("{stem}", profile=profile, out_dir=out_dir, params=dict(n_boot=n_boot))
run.record("value", n_boot, headline=True)
"""
EARLY_FAIL = """raise RuntimeError("fails before any metric")
"""


def _notebook(path: Path, body: str) -> None:
    params = nbformat.v4.new_code_cell(PARAMS)
    params.metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=[params, nbformat.v4.new_code_cell(body.format(stem=path.stem))])
    nb.metadata["kernelspec"] = {"name": "mtlib", "display_name": "Python (mtlib)", "language": "python"}
    nbformat.write(nb, path)


def _project(root: Path, bodies: dict[str, str], profile: str = "notebooks: {}\n") -> Path:
    (root / "mtlib").mkdir(parents=True)
    nb_dir = root / "notebooks"
    (nb_dir / "profiles").mkdir(parents=True)
    for stem, body in bodies.items():
        _notebook(nb_dir / f"{stem}.ipynb", body)
    (nb_dir / "profiles" / "t.yaml").write_text(profile)
    return root


def _wait_for(path: Path, seconds: float = 120.0) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.2)
    raise AssertionError(f"{path} never appeared")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead too
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


@pytest.mark.slow
def test_sigterm_to_the_runner_stops_children_and_writes_the_report(tmp_path):
    sig = signal.SIGTERM
    root = _project(tmp_path / "p", {"01_sleep": SLEEP, "02_after": QUICK})
    marker = tmp_path / "pids"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([CODE_PATH, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mtrun", "--profile", "t", "--root", str(root), "-p", f"01.marker={marker}"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    kernel, papermill = map(int, _wait_for(marker).split())
    start = time.monotonic()
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, out
    assert time.monotonic() - start < 30
    deadline = time.monotonic() + 10
    while (_alive(kernel) or _alive(papermill)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(kernel) and not _alive(papermill), "the kernel or papermill outlived the runner"
    report = (root / "papermill_runs" / "t" / "REPORT.md").read_text()
    assert "| interrupted |" in report and f"stopped by {sig.name}" in report
    assert "| 02_after | not run |" in report
    # what it recorded is kept, in its attempt folder (a previous good run's outputs would stay in place)
    run_dir = root / "papermill_runs" / "t" / ".01_sleep.attempt" / "papermill_runs" / "t" / "01_sleep"
    assert json.loads((run_dir / "metrics.json").read_text())["started"] == 1
    assert json.loads((run_dir / "params.json").read_text())["marker"] == str(marker)


class _StoppedExecutor:
    """Finishes the first job, then the runner is interrupted (as by Ctrl-C) during the second."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def map(self, jobs):
        yield runner.JobResult(jobs[0].stem, "ok", 1.0)
        jobs[1].output.parent.mkdir(parents=True)
        (jobs[1].output.parent / runner_jobs.STARTED_FILE).write_text(repr(time.time()))  # execute_job started it
        raise self.exc


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), runner.Interrupted(signal.SIGINT)], ids=["ctrl-c", "handler"])
def test_sigint_marks_running_and_pending_notebooks(tmp_path, exc):
    jobs = [
        runner.NotebookJob(Path(f"{i:02d}_x.ipynb"), tmp_path / f"{i:02d}" / f"{i:02d}_x.ipynb", {}, tmp_path)
        for i in (1, 2, 3)
    ]
    results, signum = runner.run_jobs(_StoppedExecutor(exc), jobs)
    assert signum == signal.SIGINT
    assert [(r.stem, r.status) for r in results] == [("01_x", "ok"), ("02_x", "interrupted"), ("03_x", "not run")]
    assert "SIGINT" in results[1].error and "SIGINT" in results[2].error


def test_signals_raise_turns_sigterm_into_an_exception():
    with pytest.raises(runner.Interrupted) as err, runner.signals_raise():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert err.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the old handler is back


@pytest.mark.slow
def test_killed_papermill_failed_notebook_params_and_refused_parameters(tmp_path):
    """One runner call: SIGKILL to papermill, a notebook failing before any metric, one that runs, one refused."""
    root = _project(
        tmp_path / "p",
        {"01_sleep": SLEEP, "02_fail": EARLY_FAIL, "03_ok": QUICK, "04_bad": QUICK},
        profile="notebooks:\n  '03':\n    n_boot: 3\n",
    )
    marker = tmp_path / "pids"

    def kill_papermill():
        _, papermill = map(int, _wait_for(marker).split())
        os.kill(papermill, signal.SIGKILL)

    killer = threading.Thread(target=kill_papermill, daemon=True)
    killer.start()
    status = runner.main(["--profile", "t", "--root", str(root), "-p", f"01.marker={marker}", "-p", "04.n_boot=0"])
    killer.join(5)
    assert status == 1
    runs = root / "papermill_runs" / "t"
    report = (runs / "REPORT.md").read_text()
    sections = dict(part.split("\n", 1) for part in report.split("\n## ")[1:])
    # a killed papermill: the signal, not the kernel's last words
    assert "papermill was killed by SIGKILL" in sections["01_sleep"]
    assert "Parent appears to have exited" not in report
    # a notebook that failed before recording anything: no link to a metrics.json that does not exist
    assert not (runs / "02_fail" / "metrics.json").exists() and "metrics.json" not in sections["02_fail"]
    assert "fails before any metric" in sections["02_fail"] and "[02_fail.ipynb]" in sections["02_fail"]
    failed_attempt = runs / ".02_fail.attempt" / "papermill_runs" / "t" / "02_fail"  # beside, never over, good outputs
    # the next notebook still ran; params.json: the runner's values merged with what Run wrote (one file)
    assert "[metrics.json](03_ok/metrics.json)" in sections["03_ok"]
    params = json.loads((runs / "03_ok" / "params.json").read_text())
    assert params["n_boot"] == 3 and params["profile"] == "t" and params["out_dir"] == str(root)
    assert json.loads((failed_attempt / "params.json").read_text())["profile"] == "t"
    # a refused parameter: not run, the message in the report, no executed notebook
    assert "04.n_boot = 0: expected >= 1" in sections["04_bad"] and "[04_bad.ipynb]" not in sections["04_bad"]


def test_exit_reason_names_the_signal_or_the_exit_code():
    stopped = "the notebook stopped, its remaining cells did not run"
    assert (
        runner.exit_reason(-9, "[IPKernelApp] WARNING | Parent appears to have exited, shutting down.")
        == f"papermill was killed by SIGKILL (exit status -9): {stopped}"
    )
    assert runner.exit_reason(-15, "") == f"papermill was killed by SIGTERM (exit status -15): {stopped}"
    assert runner.exit_reason(3, "") == "papermill exited with code 3 and no error message"
    assert runner.exit_reason(1, "x\nValueError: bad\n") == "ValueError: bad"


def test_exit_reason_says_what_happened_to_the_notebook(tmp_path):
    """Issue 36: the two signal cases whose message did not say what happened to the notebook."""
    executed = tmp_path / "01_sleep.ipynb"
    cells = [
        {"cell_type": "code", "source": "profile = 't'", "metadata": {"papermill": {"status": "completed"}}},
        {
            "cell_type": "code",
            "source": ["import time\n", "time.sleep(120)"],
            "metadata": {"papermill": {"status": "running"}},
        },
    ]
    executed.write_text(json.dumps({"cells": cells}))
    # papermill killed by a signal: where the notebook stopped, and that the rest did not run
    assert runner.exit_reason(-15, "", executed) == (
        "papermill was killed by SIGTERM (exit status -15): the notebook stopped in cell 2 (`import time`), "
        "its remaining cells did not run"
    )
    # the kernel killed by a signal (the out-of-memory killer's SIGKILL): said so, not a bare "Kernel died"
    reason = runner.exit_reason(1, "Traceback ...\nnbclient.exceptions.DeadKernelError: Kernel died\n", executed)
    assert reason.startswith("the notebook's kernel died in cell 2") and "SIGKILL" in reason
    assert "remaining cells did not run" in reason
    # a kernel that died while starting keeps papermill's words (the runner retries on them)
    start = "RuntimeError: Kernel died before replying to kernel_info"
    assert runner_jobs.kernel_did_not_start(runner.exit_reason(1, start))


DIE_ONCE = """import os, pathlib, sys
marker = pathlib.Path(os.environ["MTLIB_TEST_DIE_ONCE"])
if "ipykernel_launcher" in sys.orig_argv and not marker.exists():
    marker.write_text("died")
    os._exit(1)  # the kernel process dies while starting, before it answers kernel_info
"""


@pytest.mark.slow
def test_a_kernel_that_dies_while_starting_is_started_again(tmp_path, capfd):
    """A kernel that dies before its first cell (seen once on a loaded CI machine) is retried; nothing ran."""
    root = _project(tmp_path / "p", {"01_ok": QUICK})
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(DIE_ONCE)
    marker = tmp_path / "died"
    env = {"PYTHONPATH": os.pathsep.join([str(hook), CODE_PATH]), "MTLIB_TEST_DIE_ONCE": str(marker)}
    job = runner_jobs.NotebookJob(
        notebook=root / "notebooks" / "01_ok.ipynb",
        output=tmp_path / "out" / "01_ok.ipynb",
        parameters={"profile": "t", "out_dir": str(tmp_path / "o"), "n_boot": 2},
        cwd=root / "notebooks",
        env=env,
    )
    result = runner_jobs.execute_job(job)
    assert marker.read_text() == "died"  # the first kernel did die
    assert result.status == "ok", result.error
    assert "the kernel did not start" in capfd.readouterr().err
    assert runner_jobs.kernel_did_not_start("RuntimeError: Kernel died before replying to kernel_info")
    assert not runner_jobs.kernel_did_not_start("ValueError: bad")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
@pytest.mark.slow
def test_a_kernel_killed_by_a_signal_is_reported_as_such(tmp_path, sig):
    """SIGKILL to the kernel (as the out-of-memory killer sends) or SIGTERM: the report says which signal killed
    the kernel and that the notebook stopped, not a bare "DeadKernelError: Kernel died" (issue 43: nor "killed by
    a signal, e.g. SIGKILL" for a SIGTERM); the next notebook still runs."""
    root = _project(tmp_path / "p", {"01_sleep": SLEEP, "02_ok": QUICK})
    marker = tmp_path / "pids"

    def kill_kernel():
        kernel, _ = map(int, _wait_for(marker).split())
        os.kill(kernel, sig)

    killer = threading.Thread(target=kill_kernel, daemon=True)
    killer.start()
    status = runner.main(["--profile", "t", "--root", str(root), "-p", f"01.marker={marker}"])
    killer.join(5)
    assert status == 1
    report = (root / "papermill_runs" / "t" / "REPORT.md").read_text()
    sections = dict(part.split("\n", 1) for part in report.split("\n## ")[1:])
    said = f"the notebook's kernel was killed by {sig.name} (exit status {-sig})"
    assert said in sections["01_sleep"] and "remaining cells did not run" in sections["01_sleep"]
    assert "Status: **ok**" in sections["02_ok"]
