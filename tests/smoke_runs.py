"""Smoke-profile runs of the notebooks, made once per test session and shared by the tests that read them.

``tests/test_notebooks.py`` checks each run's metrics; ``tests/test_determinism.py``
compares it with a second run of the same notebook made with a fresh cache.
When both sorts of test are collected, the two runs of a notebook are started
together (two processes; the machine has two cores), so determinism costs
about one extra notebook run's worth of CPU but little extra wall time.
:func:`smoke_command` and :func:`smoke_env` build the runner call, here and in
``tests/notebooks/test_kernel_variants.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout  # a dependency of torch

from mtlib.run.layout import RunLayout

ROOT = Path(__file__).resolve().parents[1]
#: This checkout's code for a spawned process's ``PYTHONPATH``: mtlib and the tool beside it (the runner), so a
#: test never depends on what is installed.
CODE_PATH = os.pathsep.join([str(ROOT), str(ROOT / "tools" / "mtrun")])
#: Its sitecustomize logs the data files each process of a smoke run opens (tests/notebooks/test_manifests.py).
AUDIT = ROOT / "tests" / "fixtures" / "audit"
#: Notebooks whose second fresh-cache run is made by tests/test_dask.py (sequential vs Dask fan-out, each with
#: its own fresh cache, compared exactly outside timing/): test_determinism.py does not run them a third time.
PAIRED_IN_TEST_DASK = ("01", "04")
#: Notebooks without a run ``b``: those of :data:`PAIRED_IN_TEST_DASK`, and 00 (the tour), whose second run
#: ``tests/notebooks/test_script_mode.py`` makes as a script and compares with run ``a``. A ``b`` run of 00
#: was made here before and read by no test (about 23 s of a smoke pass).
UNPAIRED = ("00", *PAIRED_IN_TEST_DASK)


def smoke_command(only: str, out: Path, profile: str = "smoke") -> list[str]:
    """``python -m mtrun --profile smoke --only ONLY`` on this checkout, its outputs under ``out``.

    Args:
        only: Notebook numbers, comma-separated (``"01"``, ``"01,04"``).
        out: The runner's ``--out-dir``.
        profile: Another profile to run (``"quick"``).
    """
    return [
        sys.executable,
        "-m",
        "mtrun",
        "--profile",
        profile,
        "--only",
        only,
        "--root",
        str(ROOT),
        "--out-dir",
        str(out),
        "--no-html",  # read by no test (tests/notebooks/test_notebook_files.py checks a run's HTML): 2.5 s a run
    ]


def first_on_path(*paths: str) -> str:
    """``paths`` joined as one ``PYTHONPATH``, each folder once where it first appears (``A:B`` + ``A:C``: ``A:B:C``);
    a process given it imports what the same path with repeats would, and it compares equal to this process's own."""
    return os.pathsep.join(dict.fromkeys(f for p in paths for f in p.split(os.pathsep) if f))


def smoke_env(cache: Path | None = None, changes: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a runner call: ``changes`` set, this checkout first on ``PYTHONPATH``.

    Args:
        cache: A fresh ``MTLIB_CACHE`` (None: the session's, inherited).
        changes: Further variables to set (a CPU kernel set, thread counts).
    """
    env = {**os.environ, **(changes or {})}
    if cache is not None:
        env["MTLIB_CACHE"] = str(cache)
    env["PYTHONPATH"] = first_on_path(CODE_PATH, os.environ.get("PYTHONPATH", ""))
    return env


def opened_env(out: Path) -> dict[str, str]:
    """The variables that make :data:`AUDIT`'s hook log, under ``out/opened``, the data files each process reads."""
    return {"MTLIB_TEST_OPENED": str(out / "opened"), "MTLIB_TEST_OPENED_UNDER": str(ROOT / "data") + os.sep}


@dataclass(frozen=True)
class SmokeRun:
    """One runner call: ``python -m mtrun --profile smoke --only NN``."""

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

    Under ``pytest -n 2`` both workers are given the same ``base`` (``tests/conftest.py``): a run is made by the
    first worker that asks for it, under a lock per notebook, and read from its record (``a-NN.json``) by the
    other, so the readers of the smoke runs may be spread over both workers without any run made twice.

    Args:
        base: A folder for the outputs, the fresh caches, the runs' records and their locks (shared by the
            workers of one session).
        pairs: Start run ``b`` together with run ``a`` (a determinism test is collected), for every notebook
            but those of :data:`UNPAIRED`.
    """

    def __init__(self, base: Path, pairs: bool = False) -> None:
        self.base, self.pairs = base, pairs
        self.done: dict[tuple[str, str], SmokeRun] = {}

    def _start(self, number: str, which: str) -> tuple[subprocess.Popen, Path]:
        out = self.base / which / number
        cache = self.base / f"cache-b-{number}" if which == "b" else None  # b: fresh, nothing computed before
        env, cmd = smoke_env(cache, opened_env(out)), smoke_command(number, out)
        env["PYTHONPATH"] = os.pathsep.join([str(AUDIT), env["PYTHONPATH"]])
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True), out

    def _record(self, number: str, which: str) -> Path:
        return self.base / f"{which}-{number}.json"

    def _run(self, number: str, which: tuple[str, ...]) -> None:
        started = {w: self._start(number, w) for w in which if (number, w) not in self.done}
        for w, (proc, out) in started.items():
            log, _ = proc.communicate()
            self.done[number, w] = SmokeRun(number, out, proc.returncode, log)
            record = {"out_dir": str(out), "returncode": proc.returncode, "log": log}
            self._record(number, w).write_text(json.dumps(record), encoding="utf-8")

    def _read_records(self, number: str) -> None:
        """The runs of ``number`` another worker of this session made (their records), into :attr:`done`."""
        for which in ("a", "b"):
            path = self._record(number, which)
            if (number, which) not in self.done and path.exists():
                r = json.loads(path.read_text(encoding="utf-8"))
                self.done[number, which] = SmokeRun(number, Path(r["out_dir"]), r["returncode"], r["log"])

    def _lock(self, number: str, wait: bool = True) -> FileLock:
        self.base.mkdir(parents=True, exist_ok=True)
        return FileLock(str(self.base / f"{number}.lock"), timeout=-1 if wait else 0)

    def _make(self, number: str, which: str) -> None:
        """Under ``number``'s lock: read what another worker made, make run ``which`` if it is not there."""
        self._read_records(number)
        if (number, which) not in self.done:
            paired = self.pairs and number not in UNPAIRED
            self._run(number, ("a", "b") if paired else (which,))

    def get(self, number: str, which: str = "a") -> SmokeRun:
        """The run ``which`` of notebook ``number``, made now if no worker of this session made it yet."""
        if (number, which) not in self.done:
            with self._lock(number):  # the other worker may be making it: wait for it
                self._make(number, which)
        return self.done[number, which]

    def get_all(self, numbers: Sequence[str]) -> dict[str, SmokeRun]:
        """Run ``a`` of every notebook of ``numbers``: first those no other worker is making (made or read here),
        then, waiting, the others; a reader of all the runs (the book) never waits while it could make one.

        It takes them from the last: the other worker's readers ask for the notebooks in order, from the first, so
        the two workers make runs side by side and meet in the middle. Taken in order, each would ask for the run
        the other was making, and the runs would be made one at a time (measured: 8 runs in 190 s, not 100 s)."""
        pending = list(dict.fromkeys(numbers))[::-1]
        while pending:
            number = pending.pop(0)
            if (number, "a") in self.done:
                continue
            try:
                with self._lock(number, wait=not pending):  # the last one left: wait for it
                    self._make(number, "a")
            except Timeout:  # the other worker is making it: come back to it after the others
                pending.append(number)
        return {n: self.done[n, "a"] for n in numbers}
