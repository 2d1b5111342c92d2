"""The runner layer: profiles, parameter rules, jobs and executors, the run layout, reports, exports.

``python -m mtlib.run [--profile quick] [--only 04]`` runs the notebooks
(:mod:`~mtlib.run.cli`); a notebook records its outputs through
:class:`mtlib.run.results.Run`, which writes where
:class:`~mtlib.run.results.RunLayout` says. ``python -m mtlib.run.expected``
checks a run against the pinned values, ``python -m mtlib.run.notebooks``
checks and fixes the notebook files, ``python -m mtlib.run.export`` writes
HTML of executed notebooks.
"""

import importlib as _importlib

#: Public names -> the module that defines them; imported on first use, so ``python -m mtlib.run.expected``
#: (or a notebook importing :mod:`mtlib.run.results`) does not load the runner.
_WHERE = {
    "check_run": "params",
    "Run": "results", "RunLayout": "results", "read_metrics": "results",
    "Executor": "cli",
    "INPUT_LISTS": "cli",
    "Interrupted": "cli",
    "JobResult": "cli",
    "NotebookJob": "cli",
    "OFFLINE_PROFILES": "cli",
    "SequentialExecutor": "cli",
    "add_executor_arguments": "cli",
    "apply_overrides": "cli",
    "build_jobs": "cli",
    "builtin_profiles": "cli",
    "check_parameters": "cli",
    "check_profile_keys": "cli",
    "discover": "cli",
    "execute_job": "cli",
    "exit_reason": "cli",
    "load_profile": "cli",
    "main": "cli",
    "make_executor": "cli",
    "missing_inputs": "cli",
    "notebook_parameters": "cli",
    "output_folder": "cli",
    "preflight": "cli",
    "profile_name": "cli",
    "profile_path": "cli",
    "run_jobs": "cli",
    "signals_raise": "cli",
    "stop_process_tree": "cli",
    "summary_table": "cli",
    "write_params": "cli",
    "write_report": "cli",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    """Import the defining module of a public name on first use."""
    if name in _WHERE:
        return getattr(_importlib.import_module(f"mtlib.run.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'mtlib.run' has no attribute {name!r}")
