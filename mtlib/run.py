"""The papermill runner: ``python -m mtlib.run [--profile quick|my.yaml] [--only 01,04] [-p 02.layer=-3]``.

It finds ``notebooks/[0-9][0-9]_*.ipynb`` (``00_template`` excluded), gives
each the parameters of the chosen profile (a name from
``notebooks/profiles/<name>.yaml``, or the path of a user's own YAML file; ``-p
NN.key=value`` overrides one value, parsed as YAML), checks that the input
files the parameters name exist (a missing one fails that notebook before it
runs, naming the file),
executes it in its own papermill process (a failure or a crash cannot take
the others down), prints a summary table, writes
``papermill_runs/<profile>/REPORT.md`` linking every figure, table and metric,
and exits non-zero if any notebook failed.

The executor is one small interface (:class:`Executor`): sequential by
default; ``--executor dask`` (``--workers N`` for a LocalCluster or
``--scheduler ADDRESS``, ``--fan-out models[,seeds]``, ``--retries``) maps
:func:`execute_job` over the jobs on Dask (:mod:`mtlib.dask_executor`), since a
job carries everything it needs and the runner keeps no global state.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

from mtlib.notebooks import KERNEL_NAME, write_kernelspec
from mtlib.results import RunLayout, project_root, read_figures, read_metrics

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
        html: Export the executed notebook as HTML (a Dask fan-out job, whose outputs are scratch, does not).
    """

    notebook: Path
    output: Path
    parameters: dict[str, Any]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None
    html: bool = True

    @property
    def stem(self) -> str:
        return self.notebook.stem


@dataclass
class JobResult:
    """Outcome of a :class:`NotebookJob`."""

    stem: str
    status: str  # "ok" or "failed"
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
    (:func:`mtlib.export.export_html`). The kernel is the notebooks' ``mtlib``
    kernel, defined for this run only to use this interpreter
    (:func:`mtlib.notebooks.write_kernelspec`), so nothing has to be registered.
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
            cmd += ["--execution-timeout", str(int(job.timeout))]
        jupyter_path = os.pathsep.join(p for p in (str(kernels), os.environ.get("JUPYTER_PATH", "")) if p)
        env = {**os.environ, **job.env, "JUPYTER_PATH": jupyter_path}
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, preexec_fn=_die_with_parent())
            status = "ok" if proc.returncode == 0 else "failed"
            error = "" if status == "ok" else _last_error(proc.stderr + proc.stdout)
        except OSError as err:
            status, error = "failed", str(err)
    seconds = time.perf_counter() - start  # the notebook's execution, not its export
    html, html_error = _export_html(job.output) if job.html else (None, "")
    return JobResult(job.stem, status, seconds, error, read_metrics(job.output.parent / "metrics.json"),
                     html, html_error)


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
    from mtlib.export import export_html

    try:
        return export_html(executed, executed.with_suffix(".html")), ""
    except Exception as err:  # a report that cannot be drawn must not hide the run's own outcome
        return None, f"HTML export failed: {type(err).__name__}: {err}"[:300]


def _last_error(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    errs = [ln for ln in lines if "Error" in ln or "Exception" in ln]
    return (errs[-1] if errs else (lines[-1] if lines else "unknown error")).strip()[:300]


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
    """
    path = profile_path(notebooks_dir, profile)
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: expected a mapping with 'defaults' and 'notebooks'")
    return data


def apply_overrides(profile_data: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """A copy of the profile with ``NN.key=value`` overrides; ``value`` is parsed as YAML.

    ``02.layer=-3`` sets notebook 02's ``layer`` to the integer -3;
    ``03.languages=[english]`` a list; ``*.seed=1`` (or ``seed=1``) every notebook's default.

    Raises:
        SystemExit: an override without ``=``.
    """
    data = {"defaults": dict(profile_data.get("defaults") or {}),
            "notebooks": {str(k): dict(v or {}) for k, v in (profile_data.get("notebooks") or {}).items()}}
    for item in overrides:
        target, sep, raw = item.partition("=")
        if not sep or not target.strip():
            raise SystemExit(f"-p {item!r}: expected NN.key=value (e.g. 02.layer=-3) or key=value")
        scope, dot, key = target.strip().rpartition(".")
        value = yaml.safe_load(raw) if raw.strip() else ""
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
    unknown = sorted(set(merged) - declared - {"profile", "out_dir", "device"})
    if unknown:
        print(f"  note: {notebook.name} does not declare {', '.join(unknown)}; not passed")
    return {k: v for k, v in merged.items() if k in declared}


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
    profile = profile_name(profile)
    env = {"HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1")} if profile in OFFLINE_PROFILES else {}
    env["MPLBACKEND"] = "Agg"
    # no browser renders widgets in a headless run: text progress bars end on their final line
    env.setdefault("MTLIB_PROGRESS", os.environ.get("MTLIB_PROGRESS", "text"))
    # third-party bars (transformers' "Loading weights") are tqdm.auto widgets that would stay at "0%"
    env.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS", "1"))
    jobs = []
    for nb in notebooks:
        params = notebook_parameters(nb, data, profile, device, out_dir)
        output = RunLayout(out_dir, profile, nb.stem).notebook_path
        jobs.append(NotebookJob(nb, output, params, nb_dir, env, timeout))
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
        out.append(f"| [{r.stem}]({r.stem}/{r.stem}.ipynb){html} | {r.status} | {r.seconds:.1f} | "
                   f"{_headline(r.metrics) if r.status == 'ok' else r.error.replace('|', '/')} |")
    for r in results:
        html = (f"Report: [{r.html.name}]({r.stem}/{r.html.name}) (one self-contained file, opens offline). "
                if r.html else "")
        out += ["", f"## {r.stem}", "", f"Status: **{r.status}** ({r.seconds:.1f} s). {html}"
                f"Executed notebook: [{r.stem}.ipynb]({r.stem}/{r.stem}.ipynb). "
                f"Metrics: [metrics.json]({r.stem}/metrics.json)."]
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


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """The executor flags: sequential (default) or Dask, with fan-out, retries and a scheduler address."""
    group = parser.add_argument_group("executor (see mtlib.dask_executor)")
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
    from mtlib.dask_executor import DaskExecutor

    axes = [a.strip() for a in args.fan_out.split(",") if a.strip()]
    return DaskExecutor(workers=args.workers, scheduler=args.scheduler, fan_out=axes, retries=args.retries)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
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
    parser.add_argument("--timeout", type=float, default=None, help="seconds per notebook cell before it is stopped")
    parser.add_argument("--root", default=None, help="project folder (default: found from the working directory)")
    parser.add_argument("--out-dir", default=None, help="where figures/ and papermill_runs/ go (default: the project)")
    add_executor_arguments(parser)
    args = parser.parse_args(argv)
    root = Path(args.root).resolve() if args.root else project_root()
    out = Path(args.out_dir).resolve() if args.out_dir else root
    jobs = build_jobs(args.profile, args.only.split(",") if args.only else None, args.device, root, args.timeout, out,
                      args.param)
    profile = profile_name(args.profile)
    executor = make_executor(args)  # bad executor flags fail here, before any output is cleared
    if args.list:
        for job in jobs:
            print(f"{job.stem}: {json.dumps(job.parameters, sort_keys=True)}")
            for line in missing_inputs(job.parameters, root, job.cwd):
                print(f"  missing input: {line}")
        return 0
    results = []
    for job in jobs:
        _clear_outputs(job, out, profile)
    print(f"mtlib.run: {len(jobs)} notebook(s), profile {profile}")
    missing = {job.stem: missing_inputs(job.parameters, root, job.cwd) for job in jobs}
    for stem, lines in missing.items():
        if lines:
            res = JobResult(stem, "failed", 0.0, "missing input: " + "; ".join(lines) + " (see data/README.md)")
            print(f"  {stem}: not run, missing input:\n    " + "\n    ".join(lines), flush=True)
            results.append(res)
    for res in executor.map([job for job in jobs if not missing[job.stem]]):
        print(f"  {res.stem}: {res.status} in {res.seconds:.1f} s" + (f" ({res.error})" if res.error else ""),
              flush=True)
        results.append(res)
    print()
    print(summary_table(results))
    order = {job.stem: i for i, job in enumerate(jobs)}
    results.sort(key=lambda r: order[r.stem])
    report = write_report(results, profile, out)
    for r in results:
        if r.html_error:
            print(f"  {r.stem}: {r.html_error}")
    print(f"\nreport: {report}")
    return 0 if all(r.status == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
