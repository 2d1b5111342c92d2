"""Issue 49's classes of hostile input for ``benchmarks/hostile.py`` (family ``round-five``).

The statistics' own arguments (replicate counts, matrix values, exactness past 2**53, permutation tests, a
device without CUDA, memory whatever ``n_boot`` is), the suite command's faults (one exit code per fault
whatever wraps the model, a cancelled run's JUnit, the refused command line's reason, seeds, the gate in
``--help``) and the runner's raw tracebacks (``expected.yaml`` that is not UTF-8 or is a folder, a profile
nested thousands of levels deep, a folder where a cache shard belongs, NumberSwap on huge numbers, a papermill
killed by SIGKILL). Imported by ``hostile.py`` after ``_hostile_cases``, whose helpers and registry it uses;
only names that existed before issue 49 are called, so the "before" column runs the same cases.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import numpy as np
from _hostile_cases import (
    REVIEWS,
    Outcome,
    _cli,
    _junit_case,
    _killed_run,
    _names,
    _relations,
    case,
    either,
    main_of_runner,
    project,
    worded,
    write,
)

FAMILY = "round-five"
SRC, FLW = np.arange(40.0), np.r_[np.arange(20.0), np.arange(20.0)[::-1]]


def _stats() -> Any:
    from mtlib.analysis import stats

    return stats


# -- the statistics' own arguments -----------------------------------------------------------------------------------

for _n in (0, -5, 2.5):

    @case(FAMILY, f"bootstrap_order_rate_n_boot_{_n}", "clear", "suite")
    def _n_boot(tmp: Path, n: Any = _n) -> Outcome:
        return worded(lambda: _stats().bootstrap_order_rate(SRC, FLW, n_boot=n), "n_boot")

    @case(FAMILY, f"cluster_permutation_test_permutations_{_n}", "clear", "suite")
    def _perms(tmp: Path, n: Any = _n) -> Outcome:
        return worded(
            lambda: _stats().cluster_permutation_test([1, 2], [4, 4], ["a", "b"], permutations=n), "permutations"
        )


@case(FAMILY, "cluster_permutation_test_violations_over_cases", "clear", "suite")
def _over(tmp: Path) -> Outcome:
    return worded(
        lambda: _stats().cluster_permutation_test([9, 2, 1], [4, 4, 4], ["a", "b", "a"], permutations=50), "violations"
    )


for _what, _value in (("nan", np.nan), ("two", 2.0)):

    @case(FAMILY, f"bootstrap_transitivity_matrix_holds_{_what}", "clear", "suite")
    def _adj(tmp: Path, value: float = _value) -> Outcome:
        adj = np.ones((6, 6))
        adj[1, 2] = value
        return worded(lambda: _stats().bootstrap_transitivity_rates(adj, n_boot=5).tolist(), "adj")


@case(FAMILY, "order_count_past_2_53_is_exact", "works", "suite")
def _exact(tmp: Path) -> Outcome:
    from mtlib.relations.replicates import order_replicates

    w = np.array([[2**27 + 1, 2**27 + 3, 5]])
    got = lambda: int(order_replicates([0.0, 1.0, 2.0], [1.0, 0.0, 2.0], w).violations[0])  # noqa: E731
    return either(got, lambda v: v == (2**27 + 1) * (2**27 + 3), "2**")


@case(FAMILY, "order_count_past_int64_is_refused", "clear", "suite")
def _wrap(tmp: Path) -> Outcome:
    from mtlib.relations.replicates import order_replicates

    return worded(lambda: order_replicates([0.0, 1.0], [1.0, 0.0], [[2**31, 2**31]]).violations.tolist(), "2**63")


@case(FAMILY, "counting_on_cuda_without_cuda", "clear", "suite")
def _cuda(tmp: Path) -> Outcome:
    import torch

    from mtlib.relations.replicates import order_replicates

    if torch.cuda.is_available():
        return "works", "this machine has CUDA"
    return worded(lambda: order_replicates(SRC, FLW, np.ones((2, 40), int), device="cuda").violations, "CUDA")


@case(FAMILY, "bootstrap_memory_bounded_whatever_n_boot", "works", "suite")
def _memory(tmp: Path) -> Outcome:
    """Peak numpy memory of 240,000 replicates over that of 80,000 (100 items): ~1 in 64 MB blocks, ~3 at once."""
    import tracemalloc

    src, flw = np.arange(100.0), np.r_[np.arange(50.0), np.arange(50.0)[::-1]]
    peaks = []
    for n_boot in (80_000, 240_000):
        tracemalloc.start()
        _stats().bootstrap_order_rate(src, flw, n_boot=n_boot)
        peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
        tracemalloc.stop()
    detail = f"peak {peaks[0]:.0f} MB for 80,000 replicates, {peaks[1]:.0f} MB for 240,000"
    return ("works", detail) if peaks[1] < 1.5 * peaks[0] else ("hang", detail)


# -- the suite command -------------------------------------------------------------------------------------------------

MODELS = """
import os, signal, time
import numpy as np


def one_nan(texts):
    return [float("nan")] + [0.7] * (len(texts) - 1)


def one_none(texts):
    return [None] + [0.7] * (len(texts) - 1)


def logit(texts):
    return [3.2] * len(texts)


class Proba:
    classes_ = np.array(["negative", "positive"])

    def __init__(self, kind):
        self.kind = kind

    def predict_proba(self, texts):
        p = np.tile(np.array([0.3, 0.7], dtype=object), (len(texts), 1))
        p[0] = {"nan": [np.nan, 0.5], "none": [None, None], "rows": p[0]}[self.kind]
        return p[:-1] if self.kind == "rows" else p


p_nan, p_none, p_rows = Proba("nan"), Proba("none"), Proba("rows")


def cancel(texts, signum=signal.SIGTERM):
    os.kill(os.getpid(), signum)
    time.sleep(10)


def interrupt(texts):
    cancel(texts, signal.SIGINT)
"""


def _suite_file(tmp: Path, labels: Any = None) -> Path:
    import warnings

    from mtlib.suite import MFT, Suite

    suite = Suite("s", labels=labels)
    _, T = _relations()
    from mtlib.relations import SingleInput

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        suite.add("names", SingleInput("names", "equivalence", T.NameSwap()), REVIEWS, threshold=0.5)
        suite.add("praise", MFT("positive"), REVIEWS, threshold=0.5)
    write(tmp / "models.py", MODELS)
    return suite.save(tmp / "suite.json")


def _exit_2(tmp: Path, model: str, labels: Any, *words: str) -> Outcome:
    suite = _suite_file(tmp, labels)
    code, text = _cli(["run", str(suite), "--model", f"{tmp / 'models.py'}:{model}"])
    detail = f"exit {code}: {text.strip()[-220:]}"
    if code == 0:
        return "silent", detail
    ok = code == 2 and "Traceback" not in text and _names(text, ["names", *words])
    return ("clear" if ok else "unclear"), detail


for _model, _labels, _words in (
    ("one_nan", ["negative", "positive"], ("NaN",)),
    ("one_none", None, ("None",)),
    ("p_nan", None, ("non-finite",)),
    ("p_none", None, ("non-finite",)),
    ("p_rows", None, ("Proba", "shape")),
):

    @case(FAMILY, f"cli_{_model}{'_with_labels' if _labels else ''}_exits_2", "clear", "suite")
    def _bad_output(tmp: Path, model: str = _model, labels: Any = _labels, words: tuple = _words) -> Outcome:
        return _exit_2(tmp, model, labels, *words)


@case(FAMILY, "cli_none_is_not_hinted_as_label_names", "clear", "suite")
def _none_hint(tmp: Path) -> Outcome:
    outcome, detail = _exit_2(tmp, "one_none", None, "None")
    return ("unclear", detail) if "label names" in detail else (outcome, detail)


@case(FAMILY, "cli_score_logit_with_labels_names_file_and_line", "clear", "suite")
def _logit_line(tmp: Path) -> Outcome:
    suite = _suite_file(tmp, ["negative", "positive"])
    texts = tmp / "texts.csv"
    _cli(["texts", str(suite), "-o", str(texts)])
    lines = texts.read_text().splitlines()
    write(
        tmp / "pred.csv", "text,score\n" + "".join(f"{t},{3.2 if i == 2 else 0.6}\n" for i, t in enumerate(lines[1:]))
    )
    code, text = _cli(["score", str(suite), str(tmp / "pred.csv")])
    detail = f"exit {code}: {text.strip()[-220:]}"
    return ("clear" if code == 2 and _names(text, ["pred.csv", "line 4"]) else "unclear"), detail


for _model, _name in (("cancel", "SIGTERM"), ("interrupt", "SIGINT")):

    @case(FAMILY, f"cli_{_name.lower()}_writes_junit_with_the_reason", "clear", "suite")
    def _cancelled(tmp: Path, model: str = _model, name: str = _name) -> Outcome:
        suite = _suite_file(tmp)
        try:
            code, text = _cli(
                ["run", str(suite), "--model", f"{tmp / 'models.py'}:{model}", "--junit", str(tmp / "o.xml")]
            )
        except KeyboardInterrupt:
            code, _text = 130, "KeyboardInterrupt raised"
        junit = _junit_case(tmp / "o.xml")
        detail = f"exit {code}; {junit[:200] or 'no JUnit file'}"
        return ("clear" if name in junit else "unclear"), detail


@case(FAMILY, "cli_refused_command_line_junit_gives_the_reason", "clear", "suite")
def _usage(tmp: Path) -> Outcome:
    suite = _suite_file(tmp)
    code, _ = _cli(["run", str(suite), "--model", "x", "--timeout", "-4", "--junit", str(tmp / "o.xml")])
    junit = _junit_case(tmp / "o.xml")
    reason = "seconds > 0" in junit  # argparse's reason, not only the command line echoed
    return ("clear" if reason else "unclear"), f"exit {code}; {junit[:220] or 'no JUnit file'}"


@case(FAMILY, "cli_help_says_how_the_gate_reads_the_interval", "works", "suite")
def _help_gate(tmp: Path) -> Outcome:
    _, text = _cli(["run", "--help"])
    flat = " ".join(text.split())
    return ("works", "said") if "interval" in flat and "threshold" in flat else ("unclear", flat[-200:])


for _tname, _make in (
    ("typos", lambda T: T.Typos("swap", seed=-1)),
    ("name_swap", lambda T: T.NameSwap(seed=-1)),
    ("number_swap", lambda T: T.NumberSwap(seed=-1)),
):

    @case(FAMILY, f"negative_seed_{_tname}", "clear", "suite")
    def _seed(tmp: Path, make: Any = _make) -> Outcome:
        _, T = _relations()
        return worded(lambda: make(T)("John paid 3 dollars for a good film."), "seed")


@case(FAMILY, "negative_seed_in_a_suite_file_transformation", "clear", "suite")
def _seed_file(tmp: Path) -> Outcome:
    from mtlib.suite import Suite

    path = _suite_file(tmp)
    data = json.loads(path.read_text())
    data["tests"][0]["relation"]["transforms"][0]["params"]["seed"] = -3  # the NameSwap of test "names"
    path.write_text(json.dumps(data))
    return worded(lambda: Suite.load(path).tests[0].relation.transforms[0].seed, "seed")


for _digits in (20, 5000):

    @case(FAMILY, f"number_swap_on_a_{_digits}_digit_number", "works", "suite")
    def _huge(tmp: Path, digits: int = _digits) -> Outcome:
        _, T = _relations()
        text = f"It cost {'7' * digits} coins."
        return either(lambda: T.NumberSwap()(text), lambda out: out != text and "coins" in out, "number")


# -- the runner ----------------------------------------------------------------------------------------------------


def _check_pins(tmp: Path, pins: Path) -> Any:
    from mtrun import expected

    (tmp / "p" / "notebooks").mkdir(parents=True, exist_ok=True)
    return expected.check_runs("t", tmp / "p", path=pins, notebooks_dir=tmp / "p" / "notebooks")


@case(FAMILY, "expected_yaml_not_utf8")
def _pins_latin1(tmp: Path) -> Outcome:
    pins = write(tmp / "expected.yaml", '"01":\n  t:\n    exact:\n      caf\xe9: {value: 1}\n'.encode("latin-1"))
    return worded(lambda: _check_pins(tmp, pins), "expected.yaml")


@case(FAMILY, "expected_yaml_is_a_folder")
def _pins_folder(tmp: Path) -> Outcome:
    (tmp / "expected.yaml").mkdir()
    return worded(lambda: _check_pins(tmp, tmp / "expected.yaml"), "expected.yaml")


@case(FAMILY, "profile_nested_5000_levels")
def _deep_profile(tmp: Path) -> Outcome:
    root = project(tmp / "p")
    write(tmp / "deep.yaml", "notebooks:\n  '01':\n    n_boot: " + "[" * 5000 + "]" * 5000 + "\n")
    return worded(
        lambda: main_of_runner(["--profile", str(tmp / "deep.yaml"), "--root", str(root), "--list"]), "deep.yaml"
    )


@case(FAMILY, "cache_shard_is_a_folder", "either")
def _shard_folder(tmp: Path) -> Outcome:
    from _hostile_cases import hashed

    from mtlib.utils.cache import ArrayCache, cached_rows

    cache = ArrayCache(("hostile", "folder"), root=tmp / "cache")
    texts = [f"sentence {i}" for i in range(20)]
    first = cached_rows(cache, texts, hashed)
    shard = next(cache.folder.glob("shard-*.npz"))
    shard.unlink()
    shard.mkdir()
    again = lambda: cached_rows(ArrayCache(("hostile", "folder"), root=tmp / "cache"), texts, hashed)  # noqa: E731
    return either(again, lambda rows: np.array_equal(rows, first), "shard")


@case(FAMILY, "signal_papermill_sigkill")
def _papermill_kill(tmp: Path) -> Outcome:
    status, error = _killed_run(tmp, "papermill", signal.SIGKILL)
    if status == 0:
        return "silent", "exit status 0 after the kill"
    return ("clear" if "SIGKILL" in error or "signal" in error.lower() else "unclear"), error[:240]


@case(FAMILY, "dask_scheduler_echoes")
def _dask_echo(tmp: Path) -> Outcome:
    """A server echoing what it reads passes Dask's handshake; the refusal must come alone, no late traceback."""
    import socket
    import subprocess
    import sys
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)

    def echo(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(4096):
                conn.sendall(data)

    def serve() -> None:
        while True:
            threading.Thread(target=echo, args=(server.accept()[0],), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    code = f"from mtrun.dask_executor import connect; connect({address!r}, timeout=3.0)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=50)
    said = " ".join(proc.stderr.split())
    if proc.returncode == 0:
        return "silent", "connected"
    clear = "Dask scheduler" in said and address in said and "Traceback" not in said and "Exception ignored" not in said
    return ("clear" if clear else "unclear"), f"exit {proc.returncode}: {said[-240:]}"
