"""Smoke-profile runs of the notebooks, made once per test session and shared by the tests that read them.

``tests/test_notebooks.py`` checks each run's metrics; ``tests/test_determinism.py``
compares it with a second run of the same notebook made with a fresh cache.
When both kinds of test are collected, the two runs of a notebook are started
together (two processes; the machine has two cores), so determinism costs
about one extra notebook run's worth of CPU but little extra wall time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from mtlib.run.layout import RunLayout

ROOT = Path(__file__).resolve().parents[1]
#: Notebooks whose second fresh-cache run is made by tests/test_dask.py (sequential vs Dask fan-out, each with
#: its own fresh cache, compared exactly outside timing/): test_determinism.py does not run them a third time.
PAIRED_IN_TEST_DASK = ("01", "04")


@dataclass(frozen=True)
class SmokeRun:
    """One runner call: ``python -m mtlib.run --profile smoke --only NN``."""

    number: str
    out_dir: Path
    returncode: int
    log: str

    @property
    def run_dir(self) -> Path:
        return RunLayout(self.out_dir, "smoke", self.stem).run_dir

    @property
    def stem(self) -> str:
        return next(ROOT.joinpath("notebooks").glob(f"{self.number}_*.ipynb")).stem


class SmokeRuns:
    """Session cache of smoke runs: run ``a`` (the session's ``MTLIB_CACHE``) and run ``b`` (a fresh cache).

    Args:
        base: An empty folder for the outputs and the fresh caches.
        pairs: Start run ``b`` together with run ``a`` (a determinism test is collected).
    """

    def __init__(self, base: Path, pairs: bool = False) -> None:
        self.base, self.pairs = base, pairs
        self.done: dict[tuple[str, str], SmokeRun] = {}

    def _start(self, number: str, which: str) -> tuple[subprocess.Popen, Path]:
        out = self.base / which / number
        env = dict(os.environ)
        if which == "b":
            env["MTLIB_CACHE"] = str(self.base / f"cache-b-{number}")  # fresh: nothing computed before
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        cmd = [
            sys.executable,
            "-m",
            "mtlib.run",
            "--profile",
            "smoke",
            "--only",
            number,
            "--root",
            str(ROOT),
            "--out-dir",
            str(out),
        ]
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True), out

    def _run(self, number: str, which: tuple[str, ...]) -> None:
        started = {w: self._start(number, w) for w in which if (number, w) not in self.done}
        for w, (proc, out) in started.items():
            log, _ = proc.communicate()
            self.done[number, w] = SmokeRun(number, out, proc.returncode, log)

    def get(self, number: str, which: str = "a") -> SmokeRun:
        """The run ``which`` of notebook ``number``, made now if not made yet."""
        if (number, which) not in self.done:
            paired = self.pairs and number not in PAIRED_IN_TEST_DASK
            self._run(number, ("a", "b") if paired else (which,))
        return self.done[number, which]
