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

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "params": ["check_run"],
        "layout": ["RunLayout", "read_metrics"],
        "manifest": ["notebook_manifest", "read_manifest"],
        "results": ["Run"],
        "profiles": [
            "INPUT_LISTS",
            "apply_overrides",
            "builtin_profiles",
            "check_parameters",
            "check_profile_keys",
            "discover",
            "load_profile",
            "missing_inputs",
            "notebook_parameters",
            "profile_name",
            "profile_path",
        ],
        "jobs": [
            "Executor",
            "Interrupted",
            "JobResult",
            "NotebookJob",
            "SequentialExecutor",
            "execute_job",
            "exit_reason",
            "signals_raise",
            "stop_process_tree",
            "write_params",
        ],
        "report": ["summary_table", "write_report"],
        "diff": ["diff_runs"],
        "book": ["build_book"],
        "cli": [
            "OFFLINE_PROFILES",
            "add_executor_arguments",
            "build_jobs",
            "main",
            "make_executor",
            "output_folder",
            "preflight",
            "run_jobs",
        ],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
