"""Jobs and executors: one notebook run as a value, and how it is executed and stopped.

Intuition: a :class:`NotebookJob` carries everything needed to execute one
notebook once (its parameters, output path, environment, timeout), so any
executor can run it: :class:`SequentialExecutor` here, one after the other, or
:class:`mtrun.dask_executor.DaskExecutor` on a cluster; both only call
:func:`execute_job`, which starts papermill in its own process group and
returns a :class:`JobResult`. The process control lives here too: the signals
that stop the runner (:class:`signals_raise`, :class:`Interrupted`), stopping a
papermill process and its kernel (:func:`stop_process_tree`) and saying why
one failed (:func:`exit_reason`).
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import psutil
import yaml

from mtlib.run.layout import MetricsError, RunLayout, read_json_object, read_metrics
from mtlib.utils.cache import atomic_write_bytes
from mtrun._startup import KERNEL_ENDED
from mtrun.export import export_html
from mtrun.manifests import complete_manifest
from mtrun.notebooks import KERNEL_NAME, write_kernelspec
from mtrun.threads import ThreadPlan, plan_threads

__all__ = [
    "JOBS_ENV",
    "KERNEL_DIED",
    "KERNEL_START_ERRORS",
    "KERNEL_START_TRIES",
    "STARTED_FILE",
    "attempt_layout",
    "final_layout",
    "started_at",
    "Executor",
    "Interrupted",
    "JobResult",
    "NotebookJob",
    "SequentialExecutor",
    "execute_job",
    "exit_reason",
    "job_threads",
    "kernel_did_not_start",
    "read_metrics_noting",
    "signals_raise",
    "stop_process_tree",
    "write_params",
]

#: File in a job's attempt folder holding when it started (``time.time()``), for an interrupted job's seconds.
STARTED_FILE = ".started"
#: How many notebook runs share this machine at once (set for a local Dask cluster's jobs); threads are split.
JOBS_ENV = "MTLIB_JOBS"
#: How many times a notebook is started when its kernel dies before running any cell.
KERNEL_START_TRIES = 3
#: Papermill's errors for a kernel that died or did not answer before its first cell (nothing ran: safe to retry).
KERNEL_START_ERRORS = ("Kernel died before replying to kernel_info", "Kernel didn't respond in")


@dataclass(frozen=True)
class NotebookJob:
    """Everything needed to execute one notebook once.

    Attributes:
        notebook: Input notebook path.
        output: Executed notebook path.
        parameters: Values injected into the ``parameters`` cell.
        cwd: Working directory of the kernel.
        env: Extra environment variables for the kernel.
        timeout: Seconds before the notebook is stopped (``None``: no limit).
        problems: Why its parameters are refused (:mod:`mtlib.run.params`); such a job is not run.
        html: Export the executed notebook as HTML (a Dask fan-out job, whose outputs are scratch, does not).
        script: Run the code cells as a plain Python script (:mod:`mtrun.script`: no kernel, no papermill,
            no executed notebook); for machines without Jupyter.
    """

    notebook: Path
    output: Path
    parameters: dict[str, Any]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None
    problems: tuple[str, ...] = ()
    html: bool = True
    script: bool = False

    @property
    def stem(self) -> str:
        return self.notebook.stem


@dataclass
class JobResult:
    """Outcome of a :class:`NotebookJob`."""

    stem: str
    status: str  # "ok", "failed", "interrupted" (stopped by a signal to the runner) or "not run"
    seconds: float
    error: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    html: Path | None = None  # the self-contained HTML of the executed notebook
    html_error: str = ""
    attempt: Path | None = None  # the run folder of a failed attempt (the last good outputs were kept)


class Executor(Protocol):
    """Runs jobs and yields their results (in any order)."""

    def map(self, jobs: Sequence[NotebookJob]) -> Iterable[JobResult]: ...


def attempt_layout(job: NotebookJob) -> RunLayout | None:
    """Where a job's new outputs are written before they replace the previous ones (``None``: written in place).

    A job whose notebook takes ``out_dir`` and whose output is
    ``<root>/papermill_runs/<profile>/<stem>/<stem>.ipynb`` runs with ``out_dir``
    set to ``papermill_runs/<profile>/.<stem>.attempt``; :func:`execute_job`
    swaps that attempt's folders in only when the notebook succeeds, so a
    failure, an interruption or a refused parameter never removes the outputs
    of the last good run. A failed attempt stays there for inspection.
    """
    if "out_dir" not in job.parameters or len(job.output.parents) < 4:
        return None
    run_dir = job.output.parent
    if (job.output.name, run_dir.name, run_dir.parent.parent.name) != (f"{job.stem}.ipynb", job.stem, "papermill_runs"):
        return None
    return RunLayout(run_dir.parent / f".{job.stem}.attempt", run_dir.parent.name, job.stem)


def final_layout(job: NotebookJob) -> RunLayout:
    """The layout of a job's published outputs (those of the last good run)."""
    return RunLayout(job.output.parents[3], job.output.parents[1].name, job.stem)


def started_at(job: NotebookJob) -> float | None:
    """When :func:`execute_job` started this job's current attempt (``time.time()``), if it did."""
    attempt = attempt_layout(job)
    try:
        return float(((attempt.root if attempt else job.output.parent) / STARTED_FILE).read_text())
    except (OSError, ValueError):
        return None


def execute_job(job: NotebookJob) -> JobResult:
    """Execute one notebook, writing its outputs beside the previous ones and swapping them in on success.

    See :func:`attempt_layout`: a notebook that fails or is interrupted leaves
    the last good outputs in place (the attempt stays in
    ``papermill_runs/<profile>/.<stem>.attempt``, named in
    :attr:`JobResult.attempt`).
    """
    attempt = attempt_layout(job)
    if attempt is None:  # a notebook without out_dir: its outputs are replaced in place
        if len(job.output.parents) >= 4:
            for folder in final_layout(job).output_dirs():
                _empty(folder)
        _mark_start(job.output.parent)
        return _execute(job)
    shutil.rmtree(attempt.root, ignore_errors=True)
    _mark_start(attempt.root)
    staged = replace(job, parameters={**job.parameters, "out_dir": str(attempt.root)}, output=attempt.notebook_path)
    result = _execute(staged)
    if result.status != "ok":
        return replace(result, attempt=attempt.run_dir)
    final = final_layout(job)
    trash = attempt.root / ".previous"
    trash.mkdir(parents=True, exist_ok=True)
    for i, (old, new) in enumerate(zip(final.output_dirs(), attempt.output_dirs())):
        if old.exists():
            os.replace(old, trash / str(i))
        if new.exists():
            old.parent.mkdir(parents=True, exist_ok=True)
            os.replace(new, old)
    shutil.rmtree(attempt.root, ignore_errors=True)
    write_params(job)  # the runner's values (the real out_dir) over the attempt's
    return replace(result, html=final.html_path if result.html else None)


def _mark_start(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / STARTED_FILE).write_text(repr(time.time()))


def _empty(folder: Path) -> None:
    if folder.is_dir():
        for f in sorted(folder.rglob("*"), reverse=True):
            f.unlink() if f.is_file() or f.is_symlink() else f.rmdir()


def _execute(job: NotebookJob) -> JobResult:
    """Execute one notebook in a separate papermill process.

    The job's metrics are read back from
    ``papermill_runs/<profile>/<stem>/metrics.json`` next to its output, and
    the executed notebook is exported beside it as self-contained HTML
    (:func:`mtrun.export.export_html`). The kernel is the notebooks' ``mtlib``
    kernel, defined for this run only to use this interpreter
    (:func:`mtrun.notebooks.write_kernelspec`), so nothing has to be registered.

    Papermill runs in its own process group; if this process is interrupted
    (:class:`Interrupted`, ``KeyboardInterrupt``) while it waits, papermill and
    its kernel are stopped (:func:`stop_process_tree`) before the exception
    goes on. ``params.json`` gets the parameters passed (:func:`write_params`), and the notebook's
    ``manifest.json`` the job's status and seconds (:func:`mtrun.manifests.complete_manifest`).
    """
    job.output.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mtrun-") as tmp:
        params_file = Path(tmp) / "parameters.yaml"
        params_file.write_text(yaml.safe_dump(job.parameters))
        # the notebooks name the `mtlib` kernel: a private kernelspec runs it on this interpreter
        kernels = Path(tmp) / "jupyter"
        write_kernelspec(kernels)
        cmd = [
            sys.executable,
            "-m",
            "mtrun._papermill",  # papermill's command line (see mtrun._startup)
            str(job.notebook),
            str(job.output),
            "-f",
            str(params_file),
            "--cwd",
            str(job.cwd),
            "-k",
            KERNEL_NAME,
            "--no-progress-bar",
            "--log-level",
            "WARNING",
        ]
        if job.timeout:
            cmd += ["--execution-timeout", str(int(math.ceil(job.timeout)))]
        if job.script:  # the same cells as a plain script, in the kernel's working directory
            cmd = [sys.executable, "-m", "mtrun.script", str(job.notebook), "--parameters", str(params_file)]
            cmd += ["--quiet", "--cwd", str(job.cwd)]
        jupyter_path = os.pathsep.join(p for p in (str(kernels), os.environ.get("JUPYTER_PATH", "")) if p)
        env = {**os.environ, **job.env, "JUPYTER_PATH": jupyter_path}
        env.update(job_threads(job, env).env())
        for attempt in range(1, KERNEL_START_TRIES + 1):
            status, error, text = _papermill(cmd, job, env)
            if status == "ok" or not kernel_did_not_start(error) or attempt == KERNEL_START_TRIES:
                break
            # no cell ran: the kernel process died while starting (seen once on a loaded 2-core CI machine)
            print(
                f"mtrun: {job.stem}: the kernel did not start ({error}); try {attempt + 1} of "
                f"{KERNEL_START_TRIES}. Papermill's output:\n{text[-1500:]}",
                file=sys.stderr,
                flush=True,
            )
    seconds = time.perf_counter() - start  # the notebook's execution, not its export
    metrics, noted = read_metrics_noting(job.output.parent / "metrics.json", error)
    if noted != error:  # a damaged file is no run that recorded nothing: the job fails, saying where
        status, error = "failed", noted
    write_params(job)
    complete_manifest(
        job.output.parent, job.stem, str(job.parameters.get("profile", "")), job.parameters, status, seconds
    )
    html, html_error = _export_html(job.output) if job.html and not job.script else (None, "")
    return JobResult(job.stem, status, seconds, error, metrics, html, html_error)


def job_threads(job: NotebookJob, env: Mapping[str, str]) -> ThreadPlan:
    """The threads of a job's kernel (:func:`mtrun.threads.plan_threads`), chosen as it starts.

    ``--threads``/``MTLIB_THREADS`` or ``OMP_NUM_THREADS`` in ``env`` win; else
    the cores free now, split among ``MTLIB_JOBS`` jobs sharing the machine
    (the Dask executor's local workers). The plan is printed with the job.
    """
    try:
        jobs = int(env.get(JOBS_ENV, "1"))
    except ValueError:
        jobs = 1
    plan = plan_threads(environ=env, jobs=jobs)
    print(f"  {job.stem}: {plan.threads} thread(s) ({plan.why})", flush=True)
    return plan


def kernel_did_not_start(error: str) -> bool:
    """Whether papermill's error says the kernel died or went silent before any cell ran (safe to retry)."""
    return any(sign in error for sign in KERNEL_START_ERRORS)


def _papermill(cmd: list[str], job: NotebookJob, env: dict[str, str]) -> tuple[str, str, str]:
    """Run one papermill process; returns ``(status, error, output)``, stopping it whole when interrupted."""
    text = ""
    try:
        # own process group: a signal meant for the runner does not hit papermill, and we can stop it whole
        proc = subprocess.Popen(
            cmd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=_die_with_parent(),
        )
    except OSError as err:
        status, error = "failed", str(err)
    else:
        try:
            out, err_text = proc.communicate()
        except BaseException:
            # a second Ctrl-C must not cut the clean-up short: hold the signals until the children are gone
            held = signal.pthread_sigmask(signal.SIG_BLOCK, signals_raise.SIGNALS)
            try:
                stop_process_tree(proc)
                write_params(job)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
            raise
        text = err_text + out
        status = "ok" if proc.returncode == 0 else "failed"
        error = "" if status == "ok" else exit_reason(proc.returncode, text, job.output)
    return status, error, text


class Interrupted(Exception):
    """The runner received SIGTERM, SIGINT or SIGHUP (raised by :func:`signals_raise`)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


class signals_raise:
    """Context manager: SIGTERM, SIGINT and SIGHUP raise :class:`Interrupted` in the main thread.

    So a ``kill`` or Ctrl-C unwinds through :func:`execute_job` (which stops
    its papermill process group and kernel) up to :func:`main`, which writes
    ``REPORT.md`` and exits with ``128 + signal``. Outside the main thread it
    does nothing.
    """

    SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)  # a closed terminal stops the run like a kill

    def __enter__(self) -> signals_raise:
        self.old: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self.old[sig] = signal.signal(sig, self._raise)
        return self

    @staticmethod
    def _raise(signum: int, frame: Any) -> None:
        raise Interrupted(signum)

    def __exit__(self, *exc: Any) -> None:
        for sig, handler in self.old.items():
            signal.signal(sig, handler)


def stop_process_tree(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """Stop a child started with ``start_new_session=True`` and everything it started.

    SIGTERM goes to the child's process group and to every descendant (the
    Jupyter kernel runs in a session of its own), then SIGKILL to whatever is
    still alive after ``grace`` seconds.
    """
    try:
        family = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        family = []
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for p in family:
            try:
                p.send_signal(sig)
            except psutil.NoSuchProcess:
                pass
        _, alive = psutil.wait_procs(family, timeout=grace)
        if not alive:
            break
    try:
        proc.communicate(timeout=grace)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


#: Papermill's words for a kernel that died while a cell ran (killed by a signal, or crashed).
KERNEL_DIED = ("DeadKernelError", "Kernel died")


def exit_reason(returncode: int, text: str, executed: Path | None = None) -> str:
    """Why papermill failed, and what happened to the notebook.

    The signal that killed papermill (the notebook stopped there), a kernel that died
    (killed by a signal such as the out-of-memory killer's SIGKILL, or crashed), else papermill's last
    error line, else its exit code. ``executed`` (the executed notebook) names the cell that was
    running, when papermill marked one.

    Example:
        >>> print(exit_reason(-15, "").replace(": ", ":\\n"))
        papermill was killed by SIGTERM (exit status -15):
        the notebook stopped, its remaining cells did not run
        >>> exit_reason(138, "mtrun: the notebook's kernel ended: killed by SIGTERM (exit status -15)\\n"
        ...             "DeadKernelError: Kernel died")[:68]
        "the notebook's kernel was killed by SIGTERM (exit status -15): the n"
    """
    cell = _running_cell(executed)
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return (
            f"papermill was killed by {name} (exit status {returncode}): the notebook stopped{cell}, "
            "its remaining cells did not run"
        )
    ended = [line[len(KERNEL_ENDED) :].strip() for line in text.splitlines() if line.startswith(KERNEL_ENDED)]
    if ended and any(sign in text for sign in KERNEL_DIED) and not kernel_did_not_start(text):
        how = ended[-1].replace("killed by", "was killed by", 1) if ended[-1].startswith("killed") else ended[-1]
        return f"the notebook's kernel {how}{cell}: the notebook stopped there, its remaining cells did not run" + (
            " (SIGKILL: often the out-of-memory killer)" if "SIGKILL" in how else ""
        )
    if any(sign in text for sign in KERNEL_DIED) and not kernel_did_not_start(text):  # that one is retried
        return (
            f"the notebook's kernel died{cell} (killed by a signal, e.g. SIGKILL from the out-of-memory killer, "
            "or crashed): the notebook stopped there, its remaining cells did not run"
        )
    line = _last_error(text, default="")
    return line or f"papermill exited with code {returncode} and no error message"


def _running_cell(executed: Path | None) -> str:
    """`` in cell N (`first line`)`` for the cell papermill marked running in ``executed``, else ``""``."""
    try:
        cells = json.loads(executed.read_text(encoding="utf-8"))["cells"] if executed else []
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    for number, cell in enumerate(cells, start=1):
        if isinstance(cell, dict) and cell.get("metadata", {}).get("papermill", {}).get("status") == "running":
            source = cell.get("source", "")
            first = ("".join(source) if isinstance(source, list) else str(source)).strip().splitlines()
            return f" in cell {number}" + (f" (`{first[0][:60]}`)" if first else "")
    return ""


def write_params(job: NotebookJob) -> Path | None:
    """Write the parameters the runner passed into the run's ``params.json``.

    Merged with what the notebook's :class:`mtlib.run.results.Run` wrote there
    (one file): the runner's values win. Returns the path (``None`` when the
    run folder cannot be written).
    """
    path = job.output.parent / "params.json"
    merged = {**read_json_object(path), **job.parameters}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, json.dumps(merged, indent=2, sort_keys=True, default=str).encode())
    except OSError:
        return None
    return path


def _die_with_parent() -> Any:
    """On Linux, a ``preexec_fn`` that makes the papermill process die with the process that started it
    (a Dask worker killed or shut down mid-job leaves no notebook running on); elsewhere ``None``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved here, not in the forked child
    except (OSError, AttributeError):
        return None
    return lambda: prctl(1, int(signal.SIGKILL))  # 1 = PR_SET_PDEATHSIG


def _export_html(executed: Path) -> tuple[Path | None, str]:
    """Write the self-contained HTML beside an executed notebook (also a failed one, up to its error)."""
    if not executed.exists():
        return None, "no executed notebook to export"
    try:
        return export_html(executed, executed.with_suffix(".html")), ""
    except Exception as err:  # a report that cannot be drawn must not hide the run's own outcome
        return None, f"HTML export failed: {type(err).__name__}: {err}"[:300]


def _last_error(text: str, default: str = "unknown error") -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    errs = [ln for ln in lines if "Error" in ln or "Exception" in ln]
    return (errs[-1] if errs else (lines[-1] if lines else default)).strip()[:300]


class SequentialExecutor:
    """Runs jobs one after the other, in order."""

    def map(self, jobs: Sequence[NotebookJob]) -> Iterable[JobResult]:
        for job in jobs:
            yield execute_job(job)


def read_metrics_noting(path: str | os.PathLike, error: str = "") -> tuple[dict[str, Any], str]:
    """:func:`read_metrics` for a job's row: a damaged file is said in the row's ``error``, not raised.

    Returns:
        ``(metrics, error)``: the metrics and ``error`` unchanged, or ``{}`` and ``error`` followed by
        ``its metrics cannot be read: ...`` (never a run shown as one that recorded nothing).
    """
    try:
        return read_metrics(path), error
    except MetricsError as err:
        return {}, (f"{error}; " if error else "") + f"its metrics cannot be read: {err}"
