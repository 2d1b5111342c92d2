"""mtrun: the notebook runner and course-book builder that stand beside mtlib (as d2lbook beside d2l).

``python -m mtrun [--profile quick] [--only 04] [-p 01.n_sources=2]`` runs the
notebooks through papermill (:mod:`~mtrun.cli`); a notebook records its
outputs through :class:`mtlib.run.results.Run`, which writes where
:class:`mtlib.run.layout.RunLayout` says. ``python -m mtrun.expected`` checks a
run against the pinned values, ``python -m mtrun.notebooks`` checks and fixes
the notebook files, ``python -m mtrun.export`` writes HTML of executed
notebooks, ``python -m mtrun.diff RUN_A RUN_B`` says why two runs differ (from
their ``manifest.json``), ``python -m mtrun.script NOTEBOOK`` runs a notebook as
a plain script, and ``python -m mtrun.book`` builds the course book (a static
site) from a run.

mtrun imports mtlib (the parameter check, the layout, the manifest); mtlib never
imports mtrun, and mtlib's wheel does not carry it (``tools/mtrun/pyproject.toml``
is its own distribution; ``make install`` installs both into one ``.venv``).

Modules, lowest first: ``yamlfile`` (profiles as YAML), ``threads`` (a job's
threads), ``notebooks`` and ``export`` (notebook files, HTML), ``manifests``
(the runner's part of a run's manifests), ``profiles``, ``jobs``, ``report``,
``fanout``, ``dask_executor``, ``expected``, ``diff``, ``script``, ``cli``, and
the book (``book_notebooks``, ``book_pages``, ``book_guides``, ``book_sphinx``,
``book``). This face imports none of them eagerly: a name is imported from its
module on first use.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
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
