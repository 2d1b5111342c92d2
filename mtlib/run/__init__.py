"""The runner layer: profiles, parameter rules, jobs and executors, the run layout, reports, exports.

``python -m mtlib.run [--profile quick] [--only 04]`` runs the notebooks
(:mod:`~mtlib.run.cli`); a notebook records its outputs through
:class:`mtlib.run.results.Run`, which writes where
:class:`~mtlib.run.layout.RunLayout` says. ``python -m mtlib.run.expected``
checks a run against the pinned values, ``python -m mtlib.run.notebooks``
checks and fixes the notebook files, ``python -m mtlib.run.export`` writes
HTML of executed notebooks, ``python -m mtlib.run.diff RUN_A RUN_B`` says why
two runs differ (from their ``manifest.json``), ``python -m mtlib.run.book`` builds the
course book (a static site) from a run.

Modules, lowest first: ``params`` (the parameter rules), ``layout`` (paths),
``notebooks`` and ``export`` (notebook files, HTML), ``environment`` and
``manifest`` (what a run was computed from), ``results`` (what a notebook
uses), ``profiles``, ``jobs``, ``report``, ``fanout``, ``dask_executor``,
``expected``, ``diff``, ``cli``, and the book (``book_notebooks``, ``book_pages``,
``book_guides``, ``book_sphinx``, ``book``). This face imports none of them
eagerly: a name is imported from its module on first use, so ``python -m
mtlib.run.expected`` (or a notebook importing :mod:`mtlib.run.results`) does
not load the runner.
"""

import importlib as _importlib
from typing import Any as _Any

#: Public names -> the module that defines them (imported on first use).
_WHERE = {
    # level 0: rules and paths
    "check_run": "params",
    "RunLayout": "layout",
    "read_metrics": "layout",
    # level 1: what a run was computed from, and what a notebook uses
    "notebook_manifest": "manifest",
    "read_manifest": "manifest",
    "Run": "results",
    # level 2: profiles
    "INPUT_LISTS": "profiles",
    "apply_overrides": "profiles",
    "builtin_profiles": "profiles",
    "check_parameters": "profiles",
    "check_profile_keys": "profiles",
    "discover": "profiles",
    "load_profile": "profiles",
    "missing_inputs": "profiles",
    "notebook_parameters": "profiles",
    "profile_name": "profiles",
    "profile_path": "profiles",
    # level 2: jobs and process control
    "Executor": "jobs",
    "Interrupted": "jobs",
    "JobResult": "jobs",
    "NotebookJob": "jobs",
    "SequentialExecutor": "jobs",
    "execute_job": "jobs",
    "exit_reason": "jobs",
    "signals_raise": "jobs",
    "stop_process_tree": "jobs",
    "write_params": "jobs",
    # level 3: the report
    "summary_table": "report",
    "write_report": "report",
    # level 4: why two runs differ
    "diff_runs": "diff",
    # level 4: the course book
    "build_book": "book",
    # level 4: the command line
    "OFFLINE_PROFILES": "cli",
    "add_executor_arguments": "cli",
    "build_jobs": "cli",
    "main": "cli",
    "make_executor": "cli",
    "output_folder": "cli",
    "preflight": "cli",
    "run_jobs": "cli",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> _Any:
    """Import the defining module of a public name on first use."""
    if name in _WHERE:
        return getattr(_importlib.import_module(f"mtlib.run.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'mtlib.run' has no attribute {name!r}")
