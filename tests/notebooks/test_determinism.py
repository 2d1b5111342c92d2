"""Two smoke runs of every notebook, each with its own fresh cache, record the same metrics.

Only durations may differ, and they all live under ``timing/``
(:data:`mtlib.run.results.TIMING_PREFIX`; ``Run.record`` moves every ``*seconds``
key there). Any other key that differs fails the test, reported by name with
both values: it is either a duration under another name (give it a
``*seconds`` name) or real nondeterminism (seed it).

The first run is the one ``tests/test_notebooks.py`` checks (shared through
the ``smoke_runs`` fixture, ``tests/smoke_runs.py``); the second is started
beside it with a fresh cache, so the pair costs one extra run per notebook.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mtlib.run.results import TIMING_PREFIX
from tests.smoke_runs import UNPAIRED  # 01 and 04: two fresh-cache runs compared in test_dask.py; 00 as a script

ROOT = Path(__file__).resolve().parents[2]
# `make test` runs pytest on two workers: these share the smoke runs of test_notebooks.py on one worker
pytestmark = pytest.mark.xdist_group("smoke")
EXPERIMENTS = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb") if p.stem[:2] not in UNPAIRED)


def metric_differences(a: dict, b: dict) -> list[str]:
    """Keys outside ``timing/`` whose values differ (or exist in one run only), with both values."""
    out = []
    for key in sorted(set(a) | set(b)):
        if key.startswith(TIMING_PREFIX):
            continue
        va, vb = a.get(key, "<absent>"), b.get(key, "<absent>")
        same = va == vb or (isinstance(va, float) and isinstance(vb, float) and math.isnan(va) and math.isnan(vb))
        if not same:
            out.append(f"{key}: {json.dumps(va)[:120]} vs {json.dumps(vb)[:120]}")
    return out


def test_metric_differences_skips_only_timing():
    a = {"timing/models/m/count_seconds": 1.0, "rate": 0.5, "n": 3, "x": float("nan")}
    b = {"timing/models/m/count_seconds": 2.0, "rate": 0.5000001, "x": float("nan")}
    assert metric_differences(a, b) == ['n: 3 vs "<absent>"', "rate: 0.5 vs 0.5000001"]


@pytest.mark.notebook
@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
@pytest.mark.slow
def test_two_smoke_runs_with_fresh_caches_agree(path, smoke_runs):
    number = path.stem[:2]
    a, b = smoke_runs.get(number, "a"), smoke_runs.get(number, "b")
    if a.returncode or b.returncode:
        pytest.fail(
            f"{path.stem}: smoke run failed (a: {a.returncode}, b: {b.returncode}):\n"
            f"{(a.log if a.returncode else b.log)[-2000:]}"
        )
    ma = json.loads((a.run_dir / "metrics.json").read_text())
    mb = json.loads((b.run_dir / "metrics.json").read_text())
    diff = metric_differences(ma, mb)
    assert not diff, f"{path.stem}: {len(diff)} non-timing metric(s) differ between two runs:\n" + "\n".join(diff)
    assert len([k for k in ma if not k.startswith(TIMING_PREFIX)]) > 3  # something real was compared


def test_run_b_is_made_only_for_the_notebooks_compared_here(tmp_path, monkeypatch):
    """A paired session starts run ``b`` beside ``a`` for 02, 03, ... only; 00, 01 and 04 get run ``a`` alone."""
    from tests.smoke_runs import SmokeRun, SmokeRuns

    started: list[tuple[str, tuple[str, ...]]] = []

    def fake_run(self, number, which):
        started.append((number, which))
        for w in which:
            self.done[number, w] = SmokeRun(number, tmp_path, 0, "")

    monkeypatch.setattr(SmokeRuns, "_run", fake_run)
    runs = SmokeRuns(tmp_path, pairs=True)
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        if path.stem != "00_template":
            runs.get(path.stem[:2])
    compared = {p.stem[:2] for p in EXPERIMENTS}
    assert {n for n, which in started if which == ("a", "b")} == compared
    assert {n for n, which in started if which == ("a",)} == {"00", "01", "04"}
    assert compared and not compared & {"00", "01", "04"}
