"""The papermill runner: ``python -m mtlib.run [--profile quick|my.yaml] [--only 01,04] [-p 02.layer=-3]``.

It finds ``notebooks/[0-9][0-9]_*.ipynb`` (``00_template`` excluded), gives
each the parameters of the chosen profile (a name from
``notebooks/profiles/<name>.yaml``, or the path of a user's own YAML file; ``-p
NN.key=value`` overrides one value, parsed as YAML), checks the parameters
against their types and rules (:mod:`mtlib.run.params`, ``notebooks/parameters.yaml``)
and that the input files they name exist (a bad value or a missing file fails
that notebook before it runs, with the message; the others run),
executes it in its own papermill process (a failure or a crash cannot take
the others down), prints a summary table, writes
``papermill_runs/<profile>/REPORT.md`` linking every figure, table and metric
that exists, and exits non-zero if any notebook failed.

Profiles: a YAML error, a ``notebooks:`` that is not a mapping or a notebook
key that matches no notebook stops the run with the file and line. Notebook
keys are read as written, so ``01:`` unquoted works (YAML alone would make it
the integer 1); a one-digit key ``1:`` is read as ``"01"`` with a note. A name
in a notebook's block that it does not declare is an error with the closest
name suggested; a string given for a list parameter (``-p 01.models=minilm``)
is wrapped into a list with a note.

Faults: papermill (and so its kernel) runs in its own process group. On
SIGTERM or SIGINT the runner stops the running notebook's papermill and
kernel, writes ``REPORT.md`` (finished notebooks, the ``interrupted`` one with
what it recorded, the ``not run`` ones) and exits with 128 + the signal (143,
130). A papermill killed by a signal is reported as such (``killed by
SIGKILL``). ``params.json`` of each run holds the parameters passed, merged
with what the notebook's ``Run`` wrote.

The executor is one small interface (:class:`Executor`): sequential by
default; ``--executor dask`` (``--workers N`` for a LocalCluster or
``--scheduler ADDRESS``, ``--fan-out models[,seeds]``, ``--retries``) maps
:func:`execute_job` over the jobs on Dask (:mod:`mtlib.run.dask_executor`), since a
job carries everything it needs and the runner keeps no global state.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

from mtlib.run import params as nbparams
from mtlib.utils.cache import atomic_write_bytes
from mtlib.run.notebooks import KERNEL_NAME, write_kernelspec
from mtlib.run.results import RunLayout, project_root, read_figures, read_metrics

#: Profiles that never need the network: the runner sets HF_HUB_OFFLINE=1 for them.
OFFLINE_PROFILES = ("smoke", "quick", "real")
#: Parameters that name input files or folders (besides any ``*_path`` / ``*_dir`` other than ``out_dir``).
INPUT_LISTS = ("word_lists",)


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
    """

    notebook: Path
    output: Path
    parameters: dict[str, Any]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None
    problems: tuple[str, ...] = ()
    html: bool = True

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


class Executor(Protocol):
    """Runs jobs and yields their results (in any order)."""

    def map(self, jobs: Sequence[NotebookJob]) -> Iterable[JobResult]: ...


def execute_job(job: NotebookJob) -> JobResult:
    """Execute one notebook in a separate papermill process.

    The job's metrics are read back from
    ``papermill_runs/<profile>/<stem>/metrics.json`` next to its output, and
    the executed notebook is exported beside it as self-contained HTML
    (:func:`mtlib.run.export.export_html`). The kernel is the notebooks' ``mtlib``
    kernel, defined for this run only to use this interpreter
    (:func:`mtlib.run.notebooks.write_kernelspec`), so nothing has to be registered.

    Papermill runs in its own process group; if this process is interrupted
    (:class:`Interrupted`, ``KeyboardInterrupt``) while it waits, papermill and
    its kernel are stopped (:func:`stop_process_tree`) before the exception
    goes on. ``params.json`` gets the parameters passed (:func:`write_params`).
    """
    job.output.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mtlib-run-") as tmp:
        params_file = Path(tmp) / "parameters.yaml"
        params_file.write_text(yaml.safe_dump(job.parameters))
        # the notebooks name the `mtlib` kernel: a private kernelspec runs it on this interpreter
        kernels = Path(tmp) / "jupyter"
        write_kernelspec(kernels)
        cmd = [sys.executable, "-m", "papermill", str(job.notebook), str(job.output), "-f", str(params_file),
               "--cwd", str(job.cwd), "-k", KERNEL_NAME, "--no-progress-bar", "--log-level", "WARNING"]
        if job.timeout:
            cmd += ["--execution-timeout", str(int(math.ceil(job.timeout)))]
        jupyter_path = os.pathsep.join(p for p in (str(kernels), os.environ.get("JUPYTER_PATH", "")) if p)
        env = {**os.environ, **job.env, "JUPYTER_PATH": jupyter_path}
        try:
            # own process group: a signal meant for the runner does not hit papermill, and we can stop it whole
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True, preexec_fn=_die_with_parent())
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
            status = "ok" if proc.returncode == 0 else "failed"
            error = "" if status == "ok" else exit_reason(proc.returncode, err_text + out)
    seconds = time.perf_counter() - start  # the notebook's execution, not its export
    write_params(job)
    html, html_error = _export_html(job.output) if job.html else (None, "")
    return JobResult(job.stem, status, seconds, error, read_metrics(job.output.parent / "metrics.json"),
                     html, html_error)


class Interrupted(Exception):
    """The runner received SIGTERM or SIGINT (raised by :func:`signals_raise`)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


class signals_raise:
    """Context manager: SIGTERM and SIGINT raise :class:`Interrupted` in the main thread.

    So a ``kill`` or Ctrl-C unwinds through :func:`execute_job` (which stops
    its papermill process group and kernel) up to :func:`main`, which writes
    ``REPORT.md`` and exits with ``128 + signal``. Outside the main thread it
    does nothing.
    """

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __enter__(self) -> "signals_raise":
        import threading

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
    import psutil

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


def exit_reason(returncode: int, text: str) -> str:
    """Why papermill failed: the signal that killed it, else its last error line, else its exit code."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"papermill was killed by {name} (exit status {returncode})"
    line = _last_error(text, default="")
    return line or f"papermill exited with code {returncode} and no error message"


def write_params(job: NotebookJob) -> Path | None:
    """Write the parameters the runner passed into the run's ``params.json``.

    Merged with what the notebook's :class:`mtlib.run.results.Run` wrote there
    (one file): the runner's values win. Returns the path (``None`` when the
    run folder cannot be written).
    """
    path = job.output.parent / "params.json"
    try:
        current = json.loads(path.read_text()) if path.exists() else {}
    except (OSError, ValueError):
        current = {}
    merged = {**(current if isinstance(current, dict) else {}), **job.parameters}
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
    import ctypes
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved here, not in the forked child
    except (OSError, AttributeError):
        return None
    return lambda: prctl(1, int(signal.SIGKILL))  # 1 = PR_SET_PDEATHSIG


def _export_html(executed: Path) -> tuple[Path | None, str]:
    """Write the self-contained HTML beside an executed notebook (also a failed one, up to its error)."""
    if not executed.exists():
        return None, "no executed notebook to export"
    from mtlib.run.export import export_html

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


def discover(notebooks_dir: Path) -> list[Path]:
    """Experiment notebooks ``NN_*.ipynb`` in order, without ``00_*`` (the template)."""
    return sorted(p for p in notebooks_dir.glob("[0-9][0-9]_*.ipynb") if not p.name.startswith("00_"))


def builtin_profiles(notebooks_dir: Path) -> list[str]:
    """Names of the profiles shipped in ``notebooks/profiles/*.yaml``."""
    return sorted(p.stem for p in (notebooks_dir / "profiles").glob("*.yaml"))


def profile_path(notebooks_dir: Path, profile: str) -> Path:
    """The YAML file of a profile: a built-in name, or a path to a user's file."""
    if profile.endswith((".yaml", ".yml")) or os.sep in profile or "/" in profile:
        path = Path(profile).expanduser()
        if not path.is_file():
            raise SystemExit(f"no profile file {path.resolve()}; built-in profiles: "
                             f"{', '.join(builtin_profiles(notebooks_dir)) or 'none'}")
        return path
    path = notebooks_dir / "profiles" / f"{profile}.yaml"
    if not path.exists():
        found = builtin_profiles(notebooks_dir)
        raise SystemExit(f"no profile {profile!r} at {path}; profiles found: {', '.join(found) or 'none'} "
                         "(or give the path of a .yaml file)")
    return path


def profile_name(profile: str) -> str:
    """The name outputs are filed under: the built-in name, or a profile file's stem."""
    is_file = profile.endswith((".yaml", ".yml")) or os.sep in profile or "/" in profile
    return Path(profile).stem if is_file else profile


def load_profile(notebooks_dir: Path, profile: str) -> dict[str, Any]:
    """Read a profile: ``{"defaults": {...}, "notebooks": {"01": {...}}}``.

    Args:
        notebooks_dir: The ``notebooks/`` folder (built-in profiles live in its ``profiles/``).
        profile: A built-in name (``quick``) or the path of a YAML file.

    Notebook keys are read as written (``01:`` unquoted stays ``"01"``, not
    the integer 1); a one-digit key (``1:``) is zero-padded to ``"01"`` with a note.

    Raises:
        SystemExit: invalid YAML or a malformed profile, naming the file and line.
    """
    path = profile_path(notebooks_dir, profile)
    try:
        data, lines = nbparams.read_yaml(path, raw_keys_under=("notebooks",))
    except nbparams.ConfigError as err:
        raise SystemExit(f"profile {err}") from None
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise SystemExit(f"{path}:1: a profile is a mapping with 'defaults' and 'notebooks', "
                         f"not a {type(data).__name__}")
    unknown = [k for k in data if k not in ("defaults", "notebooks")]
    if unknown:
        raise SystemExit(f"{path}:{lines.get((str(unknown[0]),), 1)}: unknown top-level key(s) "
                         f"{', '.join(map(repr, unknown))}; a profile has 'defaults' (every notebook) and "
                         "'notebooks' (one block per notebook number, e.g. \"01\":)")
    for section in ("defaults", "notebooks"):
        if data.get(section) is not None and not isinstance(data[section], dict):
            raise SystemExit(f"{path}:{lines.get((section,), 1)}: '{section}' must be a mapping "
                             f"({'parameter: value' if section == 'defaults' else 'notebook number: {parameter: value}'}"
                             f"), not a {type(data[section]).__name__}")
    notebooks: dict[str, Any] = {}
    for key, block in (data.get("notebooks") or {}).items():
        line = lines.get(("notebooks", str(key)), 1)
        name = str(key)
        if name.isdigit() and len(name) == 1:
            print(f"  note: {path}:{line}: notebook key {name} read as \"0{name}\"", file=sys.stderr)
            name = "0" + name
        if block is not None and not isinstance(block, dict):
            raise SystemExit(f"{path}:{line}: notebooks.{key} must be a mapping of parameter: value, "
                             f"not a {type(block).__name__}")
        if name in notebooks:
            raise SystemExit(f"{path}:{line}: notebook {name} is given twice")
        notebooks[name] = block or {}
    return {"defaults": data.get("defaults") or {}, "notebooks": notebooks, "_lines": lines, "_path": str(path)}


def apply_overrides(profile_data: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """A copy of the profile with ``NN.key=value`` overrides; ``value`` is parsed as YAML.

    ``02.layer=-3`` sets notebook 02's ``layer`` to the integer -3;
    ``03.languages=[english]`` a list; ``*.seed=1`` (or ``seed=1``) every notebook's default.

    Raises:
        SystemExit: an override without ``=``.
    """
    data = {**profile_data, "defaults": dict(profile_data.get("defaults") or {}),
            "notebooks": {str(k): dict(v or {}) for k, v in (profile_data.get("notebooks") or {}).items()}}
    for item in overrides:
        target, sep, raw = item.partition("=")
        if not sep or not target.strip():
            raise SystemExit(f"-p {item!r}: expected NN.key=value (e.g. 02.layer=-3) or key=value")
        scope, dot, key = target.strip().rpartition(".")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError as err:
            problem = " ".join(str(getattr(err, "problem", None) or err).split())
            raise SystemExit(f"-p {item!r}: the value is not valid YAML ({problem}); quote it, e.g. "
                             f"-p '{target.strip()}=\"...\"'") from None
        if not dot or scope == "*":
            data["defaults"][key] = value
        else:
            data["notebooks"].setdefault(scope, {})[key] = value
    return data


def missing_inputs(parameters: dict[str, Any], root: Path, cwd: Path) -> list[str]:
    """Input files or folders named by a notebook's parameters that do not exist.

    Parameters ending in ``_path`` or ``_dir`` (except ``out_dir``) and the
    entries of :data:`INPUT_LISTS` are input paths; like the loaders, a path
    is absolute, relative to the notebook's folder, or relative to ``data/``
    (``$MTLIB_DATA``). Empty values mean bundled data.

    Returns:
        One line per missing path: ``key = value (looked at ...)``.
    """
    data = Path(os.environ.get("MTLIB_DATA") or root / "data").expanduser()
    out = []
    for key, value in parameters.items():
        if key in INPUT_LISTS and isinstance(value, list):
            values = [v for v in value if isinstance(v, str) and v]
        elif key.endswith(("_path", "_dir")) and key != "out_dir" and isinstance(value, str) and value:
            values = [value]
        else:
            continue
        for v in values:
            p = Path(v).expanduser()
            places = [p] if p.is_absolute() else [cwd / p, data / p]
            if not any(q.exists() for q in places):
                out.append(f"{key} = {v} (looked at {', '.join(str(q.resolve()) for q in places)})")
    return out


def notebook_parameters(notebook: Path, profile_data: dict[str, Any], profile: str,
                        device: str | None, out_dir: Path) -> dict[str, Any]:
    """The profile's parameters for one notebook, limited to those it declares."""
    import papermill

    declared = set(papermill.inspect_notebook(str(notebook)))
    merged: dict[str, Any] = dict(profile_data.get("defaults") or {})
    per_nb = profile_data.get("notebooks") or {}
    for key in (notebook.stem[:2], notebook.stem):
        merged.update(per_nb.get(key) or {})
    merged.update({"profile": profile, "out_dir": str(out_dir)})
    if device:
        merged["device"] = device
    # defaults meant for other notebooks; an undeclared name in this notebook's own block is an error
    # (check_parameters)
    unknown = sorted(set(profile_data.get("defaults") or {}) - declared - {"profile", "out_dir", "device"})
    if unknown:
        print(f"  note: {notebook.name} does not declare {', '.join(unknown)}; not passed")
    return {k: v for k, v in merged.items() if k in declared}


def check_parameters(notebook: Path, profile_data: dict[str, Any], parameters: dict[str, Any],
                     rules: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Validate one notebook's parameters before it runs (:func:`mtlib.run.params.check`).

    A name in the notebook's own profile block (or ``-p NN.name=...``) that
    the notebook does not declare is a problem (a typo would otherwise leave
    the default in place without a word); a string given for a ``list``
    parameter is wrapped into a one-element list, with a note.

    Returns:
        ``(parameters, problems)``: the values to pass, and one message per
        problem naming the parameter, the value and what is expected.
    """
    where = profile_data.get("_path", "the profile")
    lines = profile_data.get("_lines", {})
    decl = nbparams.declared(notebook)
    problems = []
    for block in (notebook.stem[:2], notebook.stem):
        for name in (profile_data.get("notebooks") or {}).get(block) or {}:
            if name not in decl:
                line = lines.get(("notebooks", block, str(name)))
                origin = f"{where}:{line}" if line else f"-p {block}.{name}"
                close = difflib.get_close_matches(str(name), list(decl), n=1)
                problems.append(f"{block}.{name} ({origin}): {notebook.name} has no parameter {name!r}"
                                + (f"; did you mean {close[0]!r}?" if close else ""))
    try:
        values, found, notes = nbparams.check(notebook, parameters, rules=rules, wrap_strings=True,
                                              strict_names=False, parameters=decl)
    except nbparams.ConfigError as err:
        return parameters, [*problems, str(err)]
    for note in notes:
        print(f"  note: {notebook.stem[:2]}.{note}")
    return values, problems + [f"{notebook.stem[:2]}.{p}" for p in found]


def check_profile_keys(profile_data: dict[str, Any], notebooks: Sequence[Path]) -> None:
    """Refuse notebook keys of a profile (or of ``-p NN.key=...``) that match no notebook.

    Raises:
        SystemExit: naming the keys, their lines and the notebooks there are.
    """
    known = {nb.stem[:2] for nb in notebooks} | {nb.stem for nb in notebooks}
    lines = profile_data.get("_lines", {})
    bad = [k for k in (profile_data.get("notebooks") or {}) if str(k) not in known]
    if bad:
        where = profile_data.get("_path", "the profile")
        named = ", ".join(f"{k!r} ({where}:{lines[('notebooks', k)]})" if ("notebooks", k) in lines
                          else f"{k!r} (-p)" for k in bad)
        raise SystemExit(f"unknown notebook key(s) {named}; the notebooks are "
                         f"{', '.join(sorted(nb.stem for nb in notebooks))} (keys are their two-digit numbers, "
                         "quoted: \"01\":)")


def build_jobs(profile: str, only: Sequence[str] | None = None, device: str | None = None,
               root: Path | None = None, timeout: float | None = None,
               out_dir: Path | None = None, overrides: Sequence[str] = ()) -> list[NotebookJob]:
    """One job per discovered notebook (filtered by ``only`` prefixes or stems).

    ``profile`` is a built-in name or a YAML path (outputs are filed under its
    stem); ``overrides`` are ``NN.key=value`` strings (:func:`apply_overrides`).
    Outputs go under ``out_dir`` (default: the project ``root``).
    """
    root = root or project_root()
    out_dir = out_dir or root
    nb_dir = root / "notebooks"
    notebooks = discover(nb_dir)
    if only:
        wanted = [o.strip() for o in only if o.strip()]
        notebooks = [nb for nb in notebooks if any(nb.stem == w or nb.stem.startswith(w) for w in wanted)]
        if not notebooks:
            raise SystemExit(f"--only {','.join(wanted)} matches no notebook in {nb_dir}")
    data = apply_overrides(load_profile(nb_dir, profile), overrides)
    check_profile_keys(data, discover(nb_dir))
    try:
        rules = nbparams.load_rules(nb_dir)
    except nbparams.ConfigError as err:
        raise SystemExit(str(err)) from None
    profile = profile_name(profile)
    env = {"HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1")} if profile in OFFLINE_PROFILES else {}
    env["MPLBACKEND"] = "Agg"
    # no browser renders widgets in a headless run: text progress bars end on their final line
    env.setdefault("MTLIB_PROGRESS", os.environ.get("MTLIB_PROGRESS", "text"))
    # third-party bars (transformers' "Loading weights") are tqdm.auto widgets that would stay at "0%"
    env.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS", "1"))
    jobs = []
    for nb in notebooks:
        params, problems = check_parameters(nb, data, notebook_parameters(nb, data, profile, device, out_dir), rules)
        output = RunLayout(out_dir, profile, nb.stem).notebook_path
        jobs.append(NotebookJob(nb, output, params, nb_dir, env, timeout, tuple(problems)))
    return jobs


def _clear_outputs(job: NotebookJob, root: Path, profile: str) -> None:
    """Remove one notebook's previous outputs so a failure never shows stale results."""
    for folder in RunLayout(root, profile, job.stem).output_dirs():
        if folder.is_dir():
            for f in sorted(folder.rglob("*"), reverse=True):
                f.unlink() if f.is_file() else f.rmdir()


def _headline(metrics: dict[str, Any], limit: int = 4) -> str:
    keys = metrics.get("_headline") or [k for k, v in metrics.items()
                                        if isinstance(v, (int, float)) and not k.startswith("_")][:limit]
    parts = []
    for k in keys[:limit]:
        v = metrics.get(k)
        parts.append(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}")
    return ", ".join(parts)


def summary_table(results: Sequence[JobResult]) -> str:
    """A plain-text table: notebook, status, seconds, headline metrics."""
    rows = [("notebook", "status", "seconds", "headline metrics / error")]
    for r in results:
        rows.append((r.stem, r.status, f"{r.seconds:.1f}", _headline(r.metrics) if r.status == "ok" else r.error))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(row[j].ljust(widths[j]) for j in range(3)) + "  " + row[3])
        if i == 0:
            lines.append("-" * (sum(widths) + 6 + 30))
    return "\n".join(lines)


def _figures(root: Path, profile: str, stem: str) -> list[tuple[str, Path, str]]:
    """(name, png, alt text) of a notebook's figures: the run's figures index in saving order,
    then any other PNG in its figures folder (named after its file)."""
    layout = RunLayout(root, profile, stem)
    fig_dir = layout.figures_dir
    index = read_figures(layout.run_dir)
    found = [(name, root / entry["png"], entry.get("alt") or name) for name, entry in index.items()
             if isinstance(entry, dict) and "png" in entry and (root / entry["png"]).exists()]
    listed = {png.resolve() for _, png, _ in found}
    found += [(png.stem, png, png.stem) for png in sorted(fig_dir.glob("*.png")) if png.resolve() not in listed]
    return found


def _md_alt(text: str) -> str:
    """Alt text safe inside markdown image brackets and emphasis."""
    return " ".join(text.replace("[", "(").replace("]", ")").replace("*", "\\*").split())


def write_report(results: Sequence[JobResult], profile: str, root: Path) -> Path:
    """Write ``papermill_runs/<profile>/REPORT.md`` linking figures, tables and metrics."""
    run_root = RunLayout(root, profile, "").profile_dir
    run_root.mkdir(parents=True, exist_ok=True)
    out = [f"# mtlib report: profile `{profile}`", "",
           f"Generated by `python -m mtlib.run --profile {profile}` on {time.strftime('%Y-%m-%d %H:%M')}.", "",
           "| notebook | status | seconds | headline |", "| --- | --- | --- | --- |"]
    for r in results:
        html = f" ([HTML]({r.stem}/{r.html.name}))" if r.html else ""
        layout = RunLayout(root, profile, r.stem)
        name = f"[{r.stem}]({r.stem}/{r.stem}.ipynb)" if layout.notebook_path.exists() else r.stem
        out.append(f"| {name}{html} | {r.status} | {r.seconds:.1f} | "
                   f"{_headline(r.metrics) if r.status == 'ok' else r.error.replace('|', '/')} |")
    for r in results:
        layout = RunLayout(root, profile, r.stem)
        html = (f"Report: [{r.html.name}]({r.stem}/{r.html.name}) (one self-contained file, opens offline). "
                if r.html else "")
        # link only what exists: a notebook stopped early may have no metrics, one refused no executed notebook
        links = [f"{what}: [{path.name}]({r.stem}/{path.name})." for what, path in
                 (("Executed notebook", layout.notebook_path), ("Metrics", layout.metrics_path),
                  ("Parameters", layout.params_path)) if path.exists()]
        out += ["", f"## {r.stem}", "", " ".join([f"Status: **{r.status}** ({r.seconds:.1f} s).", *([html.strip()]
                                                  if html else []), *links])]
        if r.error:
            out += ["", f"Error: `{r.error}`"]
        if r.html_error:
            out += ["", f"HTML: `{r.html_error}`"]
        for name, png, alt in _figures(root, profile, r.stem):
            pdf = os.path.relpath(png.with_suffix(".pdf"), run_root)
            out += ["", f"### {name}", "", f"![{_md_alt(alt)}]({os.path.relpath(png, run_root)}) ([PDF]({pdf}))",
                    "", f"*{_md_alt(alt)}*"]
        tables = sorted((run_root / r.stem / "tables").glob("*.csv"))
        if tables:
            out += ["", "Tables: " + ", ".join(f"[{t.stem}]({r.stem}/tables/{t.name})" for t in tables)]
        scalars = {k: v for k, v in r.metrics.items() if isinstance(v, (int, float)) and not k.startswith("_")}
        if scalars:
            out += ["", "| metric | value |", "| --- | --- |"]
            out += [f"| `{k}` | {v:.6g} |" if isinstance(v, float) else f"| `{k}` | {v} |"
                    for k, v in sorted(scalars.items())]
    path = RunLayout(root, profile, "").report_path
    path.write_text("\n".join(out) + "\n")
    return path


def _positive_seconds(text: str) -> float:
    """``--timeout`` values: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds (leave --timeout out for no "
                                         f"limit), got {text}")
    return value


def output_folder(path: str | None, root: Path) -> Path:
    """The ``--out-dir`` folder, created if needed.

    Raises:
        SystemExit: it (or a parent) is a file, or it cannot be created or written.
    """
    out = Path(path).expanduser().resolve() if path else root
    for p in (out, *out.parents):
        if p.exists() and not p.is_dir():
            raise SystemExit(f"--out-dir {out}: {p} is a file, not a folder; give a folder (it is created if "
                             "missing)")
        if p.exists():
            break
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".mtlib-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise SystemExit(f"--out-dir {out}: cannot write there ({err.strerror or err})") from None
    return out


def preflight(jobs: Sequence[NotebookJob], root: Path) -> tuple[list[NotebookJob], list[JobResult]]:
    """Split jobs into those that can run and failed results for the others (not run).

    A job fails here when its parameters are refused (:attr:`NotebookJob.problems`)
    or an input file its parameters name is missing (:func:`missing_inputs`).
    """
    runnable, failed = [], []
    for job in jobs:
        if job.problems:
            failed.append(JobResult(job.stem, "failed", 0.0, "bad parameters: " + "; ".join(job.problems)))
            print(f"  {job.stem}: not run, bad parameters:\n    " + "\n    ".join(job.problems), flush=True)
            write_params(job)
            continue
        lines = missing_inputs(job.parameters, root, job.cwd)
        if lines:
            failed.append(JobResult(job.stem, "failed", 0.0,
                                    "missing input: " + "; ".join(lines) + " (see data/README.md)"))
            print(f"  {job.stem}: not run, missing input:\n    " + "\n    ".join(lines), flush=True)
            continue
        runnable.append(job)
    return runnable, failed


def run_jobs(executor: Executor, jobs: Sequence[NotebookJob]) -> tuple[list[JobResult], int | None]:
    """Run jobs, printing each result; stop cleanly on SIGTERM/SIGINT.

    Returns:
        ``(results, signum)``: one result per job (a job cut short by the
        signal is ``interrupted``, one never started ``not run``) and the
        signal received, or ``None``.
    """
    results: list[JobResult] = []
    signum = None
    with signals_raise():
        try:
            for res in executor.map(jobs):
                print(f"  {res.stem}: {res.status} in {res.seconds:.1f} s" + (f" ({res.error})" if res.error else ""),
                      flush=True)
                results.append(res)
        except (Interrupted, KeyboardInterrupt) as err:
            signum = err.signum if isinstance(err, Interrupted) else signal.SIGINT
    if signum is not None:
        name = signal.Signals(signum).name
        done = {r.stem for r in results}
        for job in jobs:
            if job.stem in done:
                continue
            started = job.output.exists()  # papermill writes the output notebook when it starts
            results.append(JobResult(job.stem, "interrupted" if started else "not run", 0.0,
                                     f"stopped by {name} to the runner" if started
                                     else f"not started: the runner received {name}",
                                     read_metrics(job.output.parent / "metrics.json")))
        print(f"\nmtlib.run: received {name}; notebooks stopped, report written", flush=True)
    return results, signum
def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """The executor flags: sequential (default) or Dask, with fan-out, retries and a scheduler address."""
    group = parser.add_argument_group("executor (see mtlib.run.dask_executor)")
    group.add_argument("--executor", choices=("sequential", "dask"), default="sequential",
                       help="sequential (default): one notebook after the other here; dask: jobs on a Dask cluster")
    group.add_argument("--workers", type=int, default=2,
                       help="dask: worker processes of the LocalCluster started here (default 2)")
    group.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="dask: an existing scheduler, e.g. tcp://host:8786, instead of a LocalCluster")
    group.add_argument("--fan-out", default="", metavar="models[,seeds]",
                       help="dask: one job per model (and/or seed) to fill the shared $MTLIB_CACHE, then one "
                       "gather job per notebook with every model that writes the outputs")
    group.add_argument("--retries", type=int, default=1, help="dask: extra attempts of a failed job (default 1)")


def make_executor(args: argparse.Namespace) -> Executor:
    """The executor the command line asks for; Dask flags without ``--executor dask`` are refused."""
    if args.executor == "sequential":
        given = [f for f, v in (("--scheduler", args.scheduler), ("--fan-out", args.fan_out)) if v]
        if given:
            raise SystemExit(f"{', '.join(given)} need --executor dask")
        return SequentialExecutor()
    from mtlib.run.dask_executor import DaskExecutor

    axes = [a.strip() for a in args.fan_out.split(",") if a.strip()]
    return DaskExecutor(workers=args.workers, scheduler=args.scheduler, fan_out=axes, retries=args.retries)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (``128 + signal`` when interrupted)."""
    parser = argparse.ArgumentParser(prog="python -m mtlib.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="quick", metavar="NAME|PATH.yaml",
                        help="a built-in profile (notebooks/profiles/*.yaml: "
                        f"{', '.join(builtin_profiles(project_root() / 'notebooks'))}) or the path of your own "
                        "YAML file (default: quick)")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="NN.key=value",
                        help="override one parameter of notebook NN (value parsed as YAML), e.g. -p 02.layer=-3 "
                        "or -p 03.languages=[english]; key=value sets it for every notebook; repeatable")
    parser.add_argument("--only", default="", help="comma-separated notebook numbers or stems, e.g. 01,04")
    parser.add_argument("--device", default=None, help="override the device parameter (auto, cpu, cuda, mps)")
    parser.add_argument("--list", action="store_true", help="list the notebooks and their parameters, run nothing")
    parser.add_argument("--timeout", type=_positive_seconds, default=None,
                        help="seconds per notebook cell before it is stopped (default: no limit)")
    parser.add_argument("--root", default=None, help="project folder (default: found from the working directory)")
    parser.add_argument("--out-dir", default=None, help="where figures/ and papermill_runs/ go (default: the project)")
    add_executor_arguments(parser)
    args = parser.parse_args(argv)
    root = Path(args.root).resolve() if args.root else project_root()
    out = output_folder(args.out_dir, root)
    jobs = build_jobs(args.profile, args.only.split(",") if args.only else None, args.device, root, args.timeout, out,
                      args.param)
    profile = profile_name(args.profile)
    executor = make_executor(args)  # bad executor flags fail here, before any output is cleared
    if args.list:
        for job in jobs:
            print(f"{job.stem}: {json.dumps(job.parameters, sort_keys=True)}")
            for line in job.problems:
                print(f"  bad parameter: {line}")
            for line in missing_inputs(job.parameters, root, job.cwd):
                print(f"  missing input: {line}")
        return 1 if any(job.problems for job in jobs) else 0
    for job in jobs:
        _clear_outputs(job, out, profile)
    print(f"mtlib.run: {len(jobs)} notebook(s), profile {profile}")
    runnable, results = preflight(jobs, root)
    ran, signum = run_jobs(executor, runnable)
    results += ran
    print()
    print(summary_table(results))
    order = {job.stem: i for i, job in enumerate(jobs)}
    results.sort(key=lambda r: order[r.stem])
    report = write_report(results, profile, out)
    for r in results:
        if r.html_error:
            print(f"  {r.stem}: {r.html_error}")
    print(f"\nreport: {report}")
    if signum is not None:
        return 128 + int(signum)
    return 0 if all(r.status == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
