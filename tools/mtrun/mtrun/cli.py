"""The papermill runner: ``python -m mtrun [--profile quick|my.yaml] [--only 01,04] [-p 02.layer=-3]``.

It finds ``notebooks/[0-9][0-9]_*.ipynb`` (``00_template`` excluded), gives
each the parameters of the chosen profile (a name from
``notebooks/profiles/<name>.yaml``, or the path of a user's own YAML file; ``-p
NN.key=value`` overrides one value, parsed as YAML), checks the parameters
against their declarations (each experiment's spec, :mod:`mtlib.run.params`)
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

Outputs: a notebook writes beside its previous outputs (``papermill_runs/<profile>/.<stem>.attempt``)
and they replace the old ones only when it succeeds (:func:`~mtrun.jobs.execute_job`): a refused
parameter, a failure or an interruption never removes the last good run's files. ``REPORT.md`` merges:
the rows of notebooks not run this time stay, marked with the date of their run. Names used in paths
(the profile, notebook stems) must be single safe folder names.

Faults: papermill (and so its kernel) runs in its own process group. On
SIGTERM, SIGINT or SIGHUP the runner stops the running notebook's papermill and
kernel, writes ``REPORT.md`` (finished notebooks, the ``interrupted`` one with
what it recorded, the ``not run`` ones) and exits with 128 + the signal (143,
130). A papermill killed by a signal is reported as such (``killed by
SIGKILL``). ``params.json`` of each run holds the parameters passed, merged
with what the notebook's ``Run`` wrote.

The pieces: :mod:`mtrun.profiles` (profiles, overrides, the parameter
check), :mod:`mtrun.jobs` (jobs, executors, process control),
:mod:`mtrun.report` (summary and ``REPORT.md``); this module parses the
command line and puts them together. The executor is one small interface
(:class:`~mtrun.jobs.Executor`): sequential by default; ``--executor dask`` (``--workers N`` for a LocalCluster or
``--scheduler ADDRESS``, ``--fan-out models[,seeds]``, ``--retries``) maps
:func:`~mtrun.jobs.execute_job` over the jobs on Dask (:mod:`mtrun.dask_executor`), since a
job carries everything it needs and the runner keeps no global state.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from mtlib.data.errors import data_dir
from mtlib.models.inference.backends import BACKEND_ENV, BACKENDS
from mtlib.models.inference.numerics import PRECISION_ENV, PRECISIONS
from mtlib.run.layout import RunLayout
from mtlib.utils.paths import project_root
from mtlib.utils.threads import THREADS_ENV
from mtrun.dask_executor import CONNECT_TIMEOUT, DaskExecutor
from mtrun.jobs import (
    JOBS_ENV,
    Executor,
    Interrupted,
    JobResult,
    NotebookJob,
    SequentialExecutor,
    attempt_layout,
    read_metrics_noting,
    signals_raise,
    started_at,
    write_params,
)
from mtrun.profiles import (
    apply_overrides,
    builtin_profiles,
    check_parameters,
    check_profile_keys,
    discover,
    load_profile,
    missing_inputs,
    notebook_parameters,
    profile_name,
)
from mtrun.report import summary_table, write_report
from mtrun.threads import parse_threads

__all__ = [
    "DEFAULT_WORKERS",
    "OFFLINE_PROFILES",
    "add_executor_arguments",
    "build_jobs",
    "main",
    "make_parser",
    "make_executor",
    "output_folder",
    "preflight",
    "run_jobs",
]

#: Profiles that never need the network: the runner sets HF_HUB_OFFLINE=1 for them.
OFFLINE_PROFILES = ("smoke", "quick", "real")
#: Worker processes of the local Dask cluster when ``--workers`` is not given.
DEFAULT_WORKERS = 2


def build_jobs(
    profile: str,
    only: Sequence[str] | None = None,
    device: str | None = None,
    root: Path | None = None,
    timeout: float | None = None,
    out_dir: Path | None = None,
    overrides: Sequence[str] = (),
    threads: int | None = None,
    backend: str | None = None,
    precision: str | None = None,
    script: bool = False,
) -> list[NotebookJob]:
    """One job per discovered notebook (filtered by ``only`` prefixes or stems).

    ``profile`` is a built-in name or a YAML path (outputs are filed under its
    stem); ``overrides`` are ``NN.key=value`` strings (:func:`apply_overrides`).
    Outputs go under ``out_dir`` (default: the project ``root``). ``threads``
    fixes every kernel's threads (``MTLIB_THREADS``); ``None`` lets each job
    take the cores free as it starts (:func:`mtrun.jobs.job_threads`). ``backend``
    (``torch``, ``onnx``) becomes the kernels' ``$MTLIB_BACKEND``, the default of
    ``mtlib.models.load`` (a notebook's own ``backend`` parameter, when not ``auto``, wins);
    ``precision`` (``fp32``, ``tf32``, ``bf16``, ``fp16``) likewise becomes their ``$MTLIB_PRECISION``.
    ``script`` runs each notebook's cells as a plain script (:mod:`mtrun.script`), without Jupyter.
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
    profile = profile_name(profile)
    env = {"HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1")} if profile in OFFLINE_PROFILES else {}
    env["MPLBACKEND"] = "Agg"
    if backend:
        env[BACKEND_ENV] = backend
    if precision:
        env[PRECISION_ENV] = precision
    # no browser renders widgets in a headless run: text progress bars end on their final line
    env.setdefault("MTLIB_PROGRESS", os.environ.get("MTLIB_PROGRESS", "text"))
    # third-party bars (transformers' "Loading weights") are tqdm.auto widgets that would stay at "0%"
    env.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS", "1"))
    if threads is not None:
        env[THREADS_ENV] = str(threads)
    jobs = []
    for nb in notebooks:
        params, problems = check_parameters(nb, data, notebook_parameters(nb, data, profile, device, out_dir))
        output = RunLayout(out_dir, profile, nb.stem).notebook_path
        # checked here for an early error; the kernel checks the values it receives again (cheap, idempotent)
        jobs.append(NotebookJob(nb, output, params, nb_dir, dict(env), timeout, tuple(problems), script=script))
    return jobs


def _thread_count(text: str) -> int:
    """``--threads`` values: a positive whole number."""
    try:
        return parse_threads(text, "--threads")
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _positive_seconds(text: str) -> float:
    """``--timeout`` values: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds (leave --timeout out for no limit), got {text}"
        )
    return value


def output_folder(path: str | None, root: Path) -> Path:
    """The ``--out-dir`` folder (``None``: the project folder ``root``), created if needed.

    Raises:
        SystemExit: it is given empty (``--out-dir ''`` is not the project folder: leave the option out
            for that), it is inside the project's ``data/`` folder or ``$MTLIB_DATA`` (outputs never mix
            with inputs), it (or a parent) is a file, or it cannot be created or written.
    """
    if path is not None and not str(path).strip():
        raise SystemExit(
            "--out-dir '': expected a folder for figures/ and papermill_runs/ "
            "(leave --out-dir out to write into the project folder)"
        )
    out = Path(path).expanduser().resolve() if path is not None else root
    for data in {(root / "data").resolve(), data_dir().expanduser().resolve()}:
        if out == data or out.is_relative_to(data):
            raise SystemExit(
                f"--out-dir {out}: inside the data folder {data}; outputs never go among the input data "
                "(give another folder)"
            )
    for p in (out, *out.parents):
        if p.exists() and not p.is_dir():
            raise SystemExit(f"--out-dir {out}: {p} is a file, not a folder; give a folder (it is created if missing)")
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
            attempt = attempt_layout(job)  # the refused values, beside (never over) the last good run's
            write_params(replace(job, output=attempt.notebook_path) if attempt else job)
            continue
        lines = missing_inputs(job.parameters, root, job.cwd)
        if lines:
            failed.append(
                JobResult(job.stem, "failed", 0.0, "missing input: " + "; ".join(lines) + " (see data/README.md)")
            )
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
    begun = time.time()
    with signals_raise():
        try:
            for res in executor.map(jobs):
                print(
                    f"  {res.stem}: {res.status} in {res.seconds:.1f} s" + (f" ({res.error})" if res.error else ""),
                    flush=True,
                )
                results.append(res)
        except (Interrupted, KeyboardInterrupt) as err:
            signum = err.signum if isinstance(err, Interrupted) else signal.SIGINT
    if signum is not None:
        name = signal.Signals(signum).name
        done = {r.stem for r in results}
        for job in jobs:
            if job.stem in done:
                continue
            start = started_at(job)
            started = start is not None and start >= begun - 1.0
            attempt = attempt_layout(job)
            run_dir = attempt.run_dir if attempt else job.output.parent
            error = f"stopped by {name} to the runner" if started else f"not started: the runner received {name}"
            metrics, error = read_metrics_noting(run_dir / "metrics.json", error) if started else ({}, error)
            results.append(
                JobResult(
                    job.stem,
                    "interrupted" if started else "not run",
                    max(0.0, time.time() - start) if started and start is not None else 0.0,
                    error,
                    metrics,
                    attempt=run_dir if started and attempt else None,
                )
            )
        print(f"\nmtrun: received {name}; notebooks stopped, report written", flush=True)
    return results, signum


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """The executor flags: sequential (default) or Dask, with fan-out, retries and a scheduler address."""
    group = parser.add_argument_group("executor (see mtrun.dask_executor)")
    group.add_argument(
        "--executor",
        choices=("sequential", "dask"),
        default="sequential",
        help="sequential (default): one notebook after the other here; dask: jobs on a Dask cluster",
    )
    group.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"dask: worker processes of the LocalCluster started here (default {DEFAULT_WORKERS})",
    )
    group.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="dask: an existing scheduler, e.g. tcp://host:8786, instead of a LocalCluster",
    )
    group.add_argument(
        "--fan-out",
        default="",
        metavar="models[,seeds]",
        help="dask: one job per model (and/or seed) to fill the shared $MTLIB_CACHE, then one "
        "gather job per notebook with every model that writes the outputs",
    )
    group.add_argument("--retries", type=int, default=None, help="dask: extra attempts of a failed job (default 1)")
    group.add_argument(
        "--connect-timeout",
        type=_positive_seconds,
        default=None,
        metavar="SECONDS",
        help=f"dask: seconds to wait for --scheduler to answer as a Dask scheduler (default {CONNECT_TIMEOUT:.0f})",
    )


def make_executor(args: argparse.Namespace) -> Executor:
    """The executor the command line asks for.

    Every Dask flag (``--workers``, ``--scheduler``, ``--fan-out``, ``--retries``, ``--connect-timeout``)
    without ``--executor dask`` is refused, never ignored; so is ``--connect-timeout`` without
    ``--scheduler`` (:func:`main` also refuses ``--workers`` with ``--scheduler``).
    """
    flags = {
        "--workers": getattr(args, "workers", None) is not None,
        "--scheduler": bool(args.scheduler),
        "--fan-out": bool(args.fan_out),
        "--retries": getattr(args, "retries", None) is not None,
        "--connect-timeout": getattr(args, "connect_timeout", None) is not None,
    }
    if args.executor == "sequential":
        given = [f for f, on in flags.items() if on]
        if given:
            raise SystemExit(
                f"{', '.join(given)} given without --executor dask: Dask options need --executor dask "
                "(the sequential executor runs one notebook after the other here)"
            )
        return SequentialExecutor()
    if flags["--connect-timeout"] and not flags["--scheduler"]:
        raise SystemExit("--connect-timeout applies to --scheduler ADDRESS; without it a LocalCluster is started here")
    axes = [a.strip() for a in args.fan_out.split(",") if a.strip()]
    return DaskExecutor(
        workers=DEFAULT_WORKERS if args.workers is None else args.workers,
        scheduler=args.scheduler,
        fan_out=axes,
        retries=1 if getattr(args, "retries", None) is None else args.retries,
        connect_timeout=getattr(args, "connect_timeout", None) or CONNECT_TIMEOUT,
    )


def make_parser() -> argparse.ArgumentParser:
    """The runner's command line (every option but the executor's, which :func:`add_executor_arguments` adds)."""
    parser = argparse.ArgumentParser(prog="python -m mtrun", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--profile",
        default="quick",
        metavar="NAME|PATH.yaml",
        help="a built-in profile (notebooks/profiles/*.yaml: "
        f"{', '.join(builtin_profiles(project_root() / 'notebooks'))}) or the path of your own "
        "YAML file (default: quick)",
    )
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NN.key=value",
        help="override one parameter of notebook NN (value parsed as YAML), e.g. -p 02.layer=-3 "
        "or -p 03.languages=[english]; key=value sets it for every notebook; repeatable",
    )
    parser.add_argument("--only", default="", help="comma-separated notebook numbers or stems, e.g. 01,04")
    parser.add_argument("--device", default=None, help="override the device parameter (auto, cpu, cuda, mps)")
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default=None,
        help="what frozen encoders run on: torch, or onnx (exported once into the cache, fp32); sets "
        f"${BACKEND_ENV} for the notebooks (default: ${BACKEND_ENV} if set, else torch)",
    )
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        default=None,
        help="what the models' forward passes run in: fp32 (IEEE, TF32 off), tf32 (TF32 products on CUDA), "
        f"bf16 or fp16 (autocast); sets ${PRECISION_ENV} for the notebooks (default: ${PRECISION_ENV} if "
        "set, else fp32, on every device); cached outputs are keyed by it",
    )
    parser.add_argument("--list", action="store_true", help="list the notebooks and their parameters, run nothing")
    parser.add_argument(
        "--as-script",
        action="store_true",
        help="run each notebook's code cells as a plain Python script (no Jupyter, kernel or papermill; no "
        "executed notebook): for a machine without Jupyter",
    )
    parser.add_argument(
        "--no-html",
        action="store_true",
        help="write no self-contained HTML beside each executed notebook (its export takes about 2.5 s of CPU a "
        "notebook; the executed .ipynb, metrics, tables, figures and REPORT are written as ever)",
    )
    parser.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=None,
        help="seconds per notebook cell before it is stopped (default: no limit)",
    )
    parser.add_argument(
        "--threads",
        type=_thread_count,
        default=None,
        help="torch/BLAS threads of every notebook (default: the cores free as each starts, per job; "
        f"{THREADS_ENV} sets it too)",
    )
    parser.add_argument("--root", default=None, help="project folder (default: found from the working directory)")
    parser.add_argument("--out-dir", default=None, help="where figures/ and papermill_runs/ go (default: the project)")
    add_executor_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (``128 + signal`` when interrupted)."""
    args = make_parser().parse_args(argv)
    if args.workers is not None and args.scheduler:
        raise SystemExit(
            "--workers sets the workers of the LocalCluster started here; with --scheduler the existing "
            "cluster's own workers run the jobs: leave --workers out"
        )
    root = Path(args.root).resolve() if args.root else project_root()
    out = output_folder(args.out_dir, root)
    jobs = build_jobs(
        args.profile,
        args.only.split(",") if args.only else None,
        args.device,
        root,
        args.timeout,
        out,
        args.param,
        args.threads,
        args.backend,
        args.precision,
        args.as_script,
    )
    if args.no_html:
        jobs = [replace(j, html=False) for j in jobs]
    profile = profile_name(args.profile)
    executor = make_executor(args)  # bad executor flags fail here, before any output is cleared
    if args.executor == "dask" and not args.scheduler:  # the local workers share this machine's cores
        workers = DEFAULT_WORKERS if args.workers is None else args.workers
        jobs = [replace(j, env={**j.env, JOBS_ENV: str(workers)}) for j in jobs]
    if args.list:
        for job in jobs:
            print(f"{job.stem}: {json.dumps(job.parameters, sort_keys=True)}")
            for line in job.problems:
                print(f"  bad parameter: {line}")
            for line in missing_inputs(job.parameters, root, job.cwd):
                print(f"  missing input: {line}")
        return 1 if any(job.problems for job in jobs) else 0
    print(f"mtrun: {len(jobs)} notebook(s), profile {profile}")
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
    print(f"\nreport: {report} (and {report.with_suffix('.html').name} beside it, to open in a browser)")
    if signum is not None:
        return 128 + int(signum)
    return 0 if all(r.status == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
