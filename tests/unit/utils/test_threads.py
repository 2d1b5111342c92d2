"""The thread policy: the user's number wins, else the cores free now, split among the jobs at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mtrun as runner
from mtrun import jobs as runner_jobs
from mtrun.threads import ThreadPlan, parse_threads, plan_threads

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("kwargs", "threads"),
    [
        ({"environ": {}, "cores": 2, "busy": 0.0}, 2),  # idle: two threads win (about 1.4x, issue 29)
        ({"environ": {}, "cores": 2, "busy": 0.6}, 1),  # another process holds most of a core
        ({"environ": {}, "cores": 2, "busy": 2.0}, 1),  # never fewer than one
        ({"environ": {}, "cores": 16, "busy": 0.0, "jobs": 2}, 8),  # two local Dask workers split the cores
        ({"environ": {}, "cores": 16, "busy": 8.2, "jobs": 2}, 4),
        ({"environ": {"OMP_NUM_THREADS": "2"}, "cores": 2, "busy": 2.0}, 2),  # the user's OpenMP setting wins
        ({"environ": {"MTLIB_THREADS": "1", "OMP_NUM_THREADS": "2"}, "cores": 2, "busy": 0.0}, 1),
        ({"requested": 3, "environ": {"MTLIB_THREADS": "1"}, "cores": 2, "busy": 0.0}, 3),  # --threads first
    ],
)
def test_plan_threads_order_and_split(kwargs, threads):
    assert plan_threads(**kwargs).threads == threads


def test_plan_env_sets_every_pool_and_passive_waiting(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    env = ThreadPlan(2, "x").env()
    assert env == {
        "OMP_NUM_THREADS": "2",
        "MKL_NUM_THREADS": "2",
        "OPENBLAS_NUM_THREADS": "2",
        "MTLIB_THREADS": "2",
        "OMP_WAIT_POLICY": "PASSIVE",
    }


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5", ""])
def test_bad_thread_counts_name_their_source(bad):
    with pytest.raises(ValueError, match="MTLIB_THREADS=.*positive whole number"):
        parse_threads(bad, "MTLIB_THREADS")
    with pytest.raises(ValueError, match="MTLIB_THREADS"):
        plan_threads(environ={"MTLIB_THREADS": bad or "x"}, cores=2, busy=0.0)


def test_runner_threads_flag_reaches_every_job_and_is_refused_when_bad():
    jobs = runner.build_jobs("smoke", only=["01"], root=ROOT, threads=1)
    assert jobs and all(j.env["MTLIB_THREADS"] == "1" for j in jobs)
    assert "MTLIB_THREADS" not in runner.build_jobs("smoke", only=["01"], root=ROOT)[0].env
    bad = subprocess.run(
        [sys.executable, "-m", "mtrun", "--profile", "smoke", "--only", "01", "--threads", "0", "--list"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert bad.returncode == 2 and "--threads" in bad.stderr and "positive whole number" in bad.stderr


def test_job_threads_splits_among_local_workers(monkeypatch, capsys):
    job = runner.build_jobs("smoke", only=["01"], root=ROOT)[0]
    monkeypatch.setattr("mtrun.threads.busy_cores", lambda seconds=0.3: 0.0)
    monkeypatch.setattr("mtrun.threads.usable_cores", lambda: 4)
    assert runner_jobs.job_threads(job, {}).threads == 4
    assert runner_jobs.job_threads(job, {runner_jobs.JOBS_ENV: "2"}).threads == 2
    assert "2 thread(s) (4 cores, 0.0 busy, 2 job(s))" in capsys.readouterr().out


def test_busy_cores_counts_what_stays_busy_not_a_blip(monkeypatch):
    import psutil

    from mtrun.threads import busy_cores

    windows = iter([100.0, 5.0, 80.0])  # a command holding both cores ends within the first window
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval=None: next(windows))
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: 2)
    assert busy_cores(0.01) == 0.1  # the least of the three windows: 5% of 2 cores
    steady = iter([52.0, 50.0, 55.0])  # a neighbour holding one core shows in every window
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval=None: next(steady))
    assert busy_cores(0.01) == 1.0
