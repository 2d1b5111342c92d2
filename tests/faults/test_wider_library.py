"""Issue 43, the wider library: a negative seed, a damaged metrics.json, a runaway line, a deep bracketing, a
scheduler answering garbage, a kernel killed by a signal. Each is refused or reported naming the parameter or
the file and place, and what was expected.

Before (main at de6e801): a negative seed reached scikit-learn's or numpy's message (``Seed must be between 0
and 2**32 - 1``, no ``seed``); a metrics.json that is not JSON read as a run without metrics ("missing from
metrics.json" for every pinned key, an empty headline, two runs "agreeing"); a loader read a 50 MB line whole
before any check; a scheduler answering garbage was named through numpy's ``Unable to allocate 6.46 EiB``;
a kernel killed by SIGTERM was "killed by a signal, e.g. SIGKILL".
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtlib.data.errors import DataFormatError
from mtlib.data.sample import subsample
from mtlib.data.sst import load_sst_trees
from mtlib.data.tsv import MAX_LINE_CHARS, text_lines
from mtlib.run.layout import MetricsError, RunLayout, read_metrics
from mtlib.utils.inputs import MtlibInputError, check_seed
from mtrun import diff, expected, jobs
from mtrun.report import write_report


# -- a negative seed is refused by mtlib, naming `seed` -----------------------------------------------------------
@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, "0", True, None])
def test_a_seed_outside_the_rule_is_refused_naming_seed(seed):
    with pytest.raises(MtlibInputError, match=r"subsample: seed must be an integer in \[0, 2\*\*32 - 1\]"):
        subsample(pd.DataFrame({"a": range(10)}), 3, seed=seed)
    from mtlib.models.factory import train_head
    from mtlib.models.training.heads import make_head
    from mtlib.models.training.settings import ClassifierSettings

    X, y = np.random.default_rng(0).normal(size=(20, 3)), np.array([0, 1] * 10)
    for call, where in (
        (lambda: make_head("linear", seed=seed).fit(X, y), "make_head"),
        (lambda: train_head(X, y, seed=seed, use_cache=False), "train_head"),
        (lambda: ClassifierSettings.from_options("mine", {"seed": seed}), r"classifier\('mine'\)"),
    ):
        with pytest.raises(MtlibInputError, match=rf"{where}: seed must be"):
            call()


def test_the_seed_rule_takes_what_numpy_takes():
    assert check_seed(0, "f") == 0 and check_seed(np.int64(2**32 - 1), "f") == 2**32 - 1
    assert len(subsample(pd.DataFrame({"a": range(10)}), 3, seed=np.int32(4))) == 3


# -- one reader of metrics.json: a damaged file is named with its line and column -----------------------------------
def _damaged_run(root: Path, text: str = '{"value": 1,\n "other": }\n') -> RunLayout:
    layout = RunLayout(root, "t", "01_a")
    layout.run_dir.mkdir(parents=True)
    layout.metrics_path.write_text(text)
    return layout


def test_read_metrics_names_the_path_line_and_column(tmp_path):
    layout = _damaged_run(tmp_path)
    with pytest.raises(MetricsError, match=r"metrics.json: not valid JSON at line 2 column 11 \(Expecting value\)"):
        read_metrics(layout.metrics_path)
    assert read_metrics(tmp_path / "missing.json") == {}  # no file: the notebook recorded nothing
    for text, says in (('["a list"]', "expected a JSON object of metrics, got list"), ('{"a":\n\xff}', "")):
        layout.metrics_path.write_bytes(text.encode("latin-1"))
        with pytest.raises(MetricsError, match=says or r"not UTF-8 at line 2 column 1 \(byte 0xff\)"):
            read_metrics(layout.metrics_path)


def test_expected_values_report_a_damaged_metrics_json_once_not_every_key_missing(tmp_path):
    root = tmp_path / "p"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "01_a.ipynb").write_text("{}")
    pins = tmp_path / "expected.yaml"
    pins.write_text('"01":\n  t:\n    exact:\n      value: {value: 1}\n      other: {value: 2}\n')
    layout = _damaged_run(root)
    checked, mismatches = expected.check_runs("t", root, path=pins, notebooks_dir=root / "notebooks")
    assert checked == ["01_a"] and len(mismatches) == 1
    assert f"{layout.metrics_path}: not valid JSON at line 2 column 11" in str(mismatches[0])
    assert "missing from metrics.json" not in str(mismatches[0])


def test_the_report_and_diff_name_a_damaged_metrics_json(tmp_path, capsys):
    layout = _damaged_run(tmp_path / "a")
    ok = jobs.JobResult("01_a", "ok", 1.0)
    write_report([ok], "t", tmp_path / "a")  # its ledger row
    text = write_report([], "t", tmp_path / "a").read_text()  # the row of a notebook not run this time
    assert "its metrics cannot be read" in text and "not valid JSON at line 2 column 11" in text
    good = RunLayout(tmp_path / "b", "t", "01_a")
    good.run_dir.mkdir(parents=True)
    good.metrics_path.write_text('{"value": 1}')
    assert diff.main([str(layout.run_dir), str(good.run_dir)]) == 2
    assert "not valid JSON at line 2 column 11" in capsys.readouterr().out


# -- a runaway line and a deep bracketing are refused at once ---------------------------------------------------------
def test_a_line_longer_than_the_limit_is_refused_before_it_is_read_whole(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("(3 (2 fine) (3 film))\n" + "(3 " + "(2 a) " * (MAX_LINE_CHARS // 6 + 10) + ")\n")
    start = time.perf_counter()
    with pytest.raises(DataFormatError, match=rf"train.txt:2: expected lines of at most {MAX_LINE_CHARS:,} characters"):
        load_sst_trees(path)
    assert time.perf_counter() - start < 5
    path.write_text("x" * MAX_LINE_CHARS + "\n")  # at the limit: read
    assert len(next(iter(text_lines(path)))[1]) == MAX_LINE_CHARS


def test_a_deep_bracketing_is_refused_at_the_depth_limit(tmp_path):
    path = tmp_path / "deep.txt"
    path.write_text("(1 " * 200_000 + "w" + ")" * 200_000 + "\n")  # 800 kB: under the line limit
    start = time.perf_counter()
    with pytest.raises(DataFormatError, match=r"deep.txt:1: .*nested deeper than 300 levels"):
        load_sst_trees(path)
    assert time.perf_counter() - start < 5


# -- a scheduler address that answers garbage is named, with what it sent ----------------------------------------------
def test_a_scheduler_answering_garbage_is_named_with_its_first_bytes():
    from mtrun.dask_executor import connect

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    port = server.getsockname()[1]
    stop = threading.Event()

    def answer() -> None:  # an HTTP server on the wrong port
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn = server.accept()[0]
            except OSError:
                continue
            try:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            except OSError:
                pass
            conn.close()

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        start = time.monotonic()
        with pytest.raises(SystemExit) as err:
            connect(f"tcp://127.0.0.1:{port}", timeout=2.0)
        assert time.monotonic() - start < 15
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()
    message = str(err.value)
    assert f"--scheduler tcp://127.0.0.1:{port}: reached 127.0.0.1:{port}" in message
    assert "did not answer as a Dask scheduler (its first bytes: b'HTTP/1.1 400 Bad Request" in message
    assert "EiB" not in message and "expected a Dask scheduler" in message


# -- a kernel ended by a signal: which one -------------------------------------------------------------------------
def test_exit_reason_names_the_signal_that_ended_the_kernel(tmp_path):
    executed = tmp_path / "01.ipynb"
    cells = [{"cell_type": "code", "source": "time.sleep(60)", "metadata": {"papermill": {"status": "running"}}}]
    executed.write_text(json.dumps({"cells": cells}))
    from mtrun._startup import KERNEL_ENDED, kernel_ending

    for status, words in (
        (-15, "was killed by SIGTERM (exit status -15)"),
        (-9, "was killed by SIGKILL (exit status -9)"),
        (3, "exited with status 3"),
    ):
        text = f"{KERNEL_ENDED}{kernel_ending(status)}\nnbclient.exceptions.DeadKernelError: Kernel died\n"
        reason = jobs.exit_reason(138, text, executed)
        assert reason.startswith(f"the notebook's kernel {words} in cell 1 (`time.sleep(60)`)"), reason
        assert "its remaining cells did not run" in reason
