"""The session's smoke runs are shared by both pytest workers (``tests/smoke_runs.py``): made once, read by the other.

No notebook runs here: the runner call is replaced by a short process, and a second :class:`SmokeRuns` on the same
folder stands for the other worker.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.smoke_runs import SmokeRun, SmokeRuns


def _fake_runner(made: list[tuple[str, str]]):
    def start(self, number, which):
        made.append((number, which))
        out = self.base / which / number
        cmd = [sys.executable, "-c", f"print('ran {which} {number}')"]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True), out

    return start


def test_a_run_made_by_one_worker_is_read_by_the_other_not_made_again(tmp_path, monkeypatch):
    made: list[tuple[str, str]] = []
    monkeypatch.setattr(SmokeRuns, "_start", _fake_runner(made))
    first, second = SmokeRuns(tmp_path, pairs=True), SmokeRuns(tmp_path, pairs=True)
    run = first.get("02")
    assert (run.returncode, run.log.strip()) == (0, "ran a 02")
    assert made == [("02", "a"), ("02", "b")]  # paired: b started beside a
    assert second.get("02", "b") == first.get("02", "b")
    assert second.get("02") == run and made == [("02", "a"), ("02", "b")]  # read from the records
    assert json.loads((tmp_path / "a-02.json").read_text())["out_dir"] == str(tmp_path / "a" / "02")


def test_get_all_makes_first_from_the_last_what_the_other_worker_is_not_making(tmp_path, monkeypatch):
    made: list[tuple[str, str]] = []
    monkeypatch.setattr(SmokeRuns, "_start", _fake_runner(made))
    record = SmokeRun("02", tmp_path / "a" / "02", 0, "made elsewhere")
    holder = (  # the other worker: holds 02's lock until its record is written
        "import json, sys, time\nfrom filelock import FileLock\n"
        f"lock = FileLock({str(tmp_path / '02.lock')!r}); lock.acquire(); print('held', flush=True)\n"
        "sys.stdin.readline(); time.sleep(0.5)\n"
        f"open({str(tmp_path / 'a-02.json')!r}, 'w').write(json.dumps("
        f"{{'out_dir': {str(record.out_dir)!r}, 'returncode': 0, 'log': 'made elsewhere'}}))\n"
        "lock.release()\n"
    )
    other = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"
        runs = SmokeRuns(tmp_path)
        monkeypatch.setattr(SmokeRuns, "_make", _releasing(SmokeRuns._make, other))
        got = runs.get_all(["02", "03", "04"])
    finally:
        if other.poll() is None:
            other.kill()
    assert made == [("04", "a"), ("03", "a")]  # from the last; 02 skipped while locked, then read from its record
    assert got["02"] == record and sorted(got) == ["02", "03", "04"]


def _releasing(make, other: subprocess.Popen):
    """``SmokeRuns._make`` that lets the other worker finish 02 once this one has made 03 (the last free one)."""

    def wrapped(self, number, which):
        make(self, number, which)
        if number == "03":
            assert other.stdin is not None
            other.stdin.write("go\n")
            other.stdin.flush()

    return wrapped


@pytest.mark.parametrize("numbers", [["00"], ["00", "00"]])
def test_get_all_of_one_notebook_waits_for_it(tmp_path, monkeypatch, numbers):
    made: list[tuple[str, str]] = []
    monkeypatch.setattr(SmokeRuns, "_start", _fake_runner(made))
    assert SmokeRuns(tmp_path).get_all(numbers)["00"].log.strip() == "ran a 00"
    assert made == [("00", "a")]


@pytest.mark.xdist_group("smoke")  # a reader of the smoke_runs fixture (it makes no run here)
def test_run_b_is_made_only_when_the_determinism_comparison_is_selected(request, smoke_runs):
    """``make test`` selects test_determinism.py's fast tests but not its comparison: no run ``b`` (a second
    smoke pass, about 100 s of CPU) may be made there."""
    compared = any(i.name.startswith("test_two_smoke_runs_with_fresh_caches_agree") for i in request.session.items)
    assert smoke_runs.pairs is compared
