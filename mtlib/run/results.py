"""The run contract: where a notebook's figures, tables and metrics go.

Every notebook opens a :class:`Run` and, through it, writes

- figures to ``figures/<profile>/<stem>/<name>.png`` and ``.pdf``;
- tables to ``papermill_runs/<profile>/<stem>/tables/<name>.csv``;
- flat metrics to ``papermill_runs/<profile>/<stem>/metrics.json``, started
  afresh by each run and rewritten atomically after every :meth:`Run.record`,
  so whatever a notebook computed before a failure is kept;
- a figures index ``papermill_runs/<profile>/<stem>/figures.json``: each saved
  figure's files and its short description (alt text), which the HTML export
  and ``REPORT.md`` show with the image.
- a manifest ``papermill_runs/<profile>/<stem>/manifest.json``: the code,
  software, machine, parameters, data files (with digests), models (with
  weights identities) and cache use behind the metrics
  (:mod:`mtlib.run.manifest`), rewritten with ``metrics.json`` and after each
  figure, so it also describes a run stopped by a failure.

All these paths come from :class:`RunLayout`, the one place that spells them.

Metric keys follow one scheme:

- ``models/<model>/<metric>/<group...>``: a value of one model (``<model>``
  is :func:`model_slug` of its name, so a model given by path is safe);
- ``<metric>/<group...>``: the same value for the primary model (the first in
  the notebook's ``models``), e.g. ``violation_rate/T1``;
- ``timing/...``: durations (``timing/models/minilm/count_seconds``), the only
  keys that differ between two runs of the same profile;
- ``_headline``: the keys the runner's summary shows.

:meth:`Run.record_report` writes an experiment report in this scheme.

The output root is the ``out_dir`` parameter when given, else ``$MTLIB_OUT``,
else the project folder (the one holding ``notebooks/`` and ``mtlib/``) found
from the working directory, else the working directory.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mtlib.analysis.plots import describe_figure
from mtlib.experiments.spec import Spec
from mtlib.models.backends import resolve_backend
from mtlib.models.numerics import run_numerics, use_precision
from mtlib.run.layout import FIGURES_INDEX, RunLayout, read_figures, read_metrics
from mtlib.run.manifest import notebook_manifest, rewrite_manifest, start_run
from mtlib.run.params import check_run, kernel_namespace, namespace_values
from mtlib.utils.cache import atomic_write_bytes
from mtlib.utils.keys import TIMING_PREFIX, model_slug, scheme, timing_key
from mtlib.utils.paths import project_root
from mtlib.utils.threads import kernel_threads

__all__ = [
    "FIGURES_INDEX",
    "OUT_ENV",
    "TIMING_PREFIX",
    "Report",
    "Run",
    "RunLayout",
    "model_slug",
    "output_root",
    "project_root",
    "read_figures",
    "read_metrics",
    "timing_key",
]

OUT_ENV = "MTLIB_OUT"


@runtime_checkable
class Report(Protocol):
    """What an experiment function returns (e.g. ``sentiment.systematicity``).

    ``metrics()`` gives flat keys ``<metric>/<group...>`` without a model
    prefix; :meth:`Run.record_report` adds it. ``tables()`` (optional) gives
    named DataFrames to save; ``headline`` (optional) names the keys for the
    runner's summary.
    """

    def metrics(self) -> Mapping[str, Any]: ...


def output_root(out_dir: str | os.PathLike | None = None) -> Path:
    """Resolve the output root (see the module docstring)."""
    if out_dir:
        return Path(out_dir).expanduser().resolve()
    if os.environ.get(OUT_ENV):
        return Path(os.environ[OUT_ENV]).expanduser().resolve()
    return project_root()


def _not_finite(value: Any) -> bool:
    """Whether a scalar metric is NaN or infinite."""
    return isinstance(value, (float, np.floating)) and not math.isfinite(float(value))


def _jsonable(value: Any) -> Any:
    """Numbers, strings, lists and dicts as plain JSON; NaN/inf become None."""
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # a small DataFrame
        return [_jsonable(r) for r in value.to_dict(orient="records")]
    return value


class Run:
    """One execution of one notebook under one profile.

    In a notebook, open it with :meth:`from_notebook`, which reads the
    profile, the output root and every parameter the notebook declares from
    the notebook's own namespace, so the parameters are written once, in the
    ``parameters`` cell::

        run = results.Run.from_notebook("01_pairwise_sentiment_systematicity", globals())

    Args:
        stem: The notebook's file name without ``.ipynb``.
        profile: ``"smoke"``, ``"quick"`` or ``"paper"`` (any name works).
        out_dir: Output root override (the notebooks' ``out_dir`` parameter).
        params: The notebook's parameters, saved in ``params.json`` and
            checked. ``None``: the declared parameters found in the running
            kernel's namespace (none outside a kernel).

    Raises:
        mtlib.run.params.ParameterError: a parameter of the notebook
            ``notebooks/<stem>.ipynb`` breaks its type or its rule in
            ``notebooks/parameters.yaml`` (:func:`mtlib.run.params.check_run`;
            not checked again when the runner has checked it).

    Example:
        >>> import tempfile
        >>> import matplotlib.pyplot as plt
        >>> tmp = tempfile.mkdtemp()
        >>> run = Run("00_template", profile="smoke", out_dir=tmp, params={})
        >>> run.record("accuracy", 0.91)
        >>> fig, ax = plt.subplots()
        >>> _ = ax.bar(["model"], [0.91])
        >>> png = run.save_figure(fig, "accuracy")
        >>> run.metrics["accuracy"], (run.layout.figures_dir / "accuracy.pdf").exists()
        (0.91, True)
    """

    def __init__(
        self,
        stem: str,
        profile: str = "quick",
        out_dir: str | None = None,
        params: Mapping[str, Any] | None = None,
        *,
        checked: bool = False,
    ) -> None:
        if params is None:
            params = namespace_values(stem, kernel_namespace()) or None
        if not checked:
            check_run(stem, params)  # the runner's check, for a run it did not start (JupyterLab)
        self.stem, self.profile = stem, profile
        root = output_root(out_dir)
        self.layout = RunLayout(root, profile, stem)
        self.figures_dir = self.layout.figures_dir
        self.run_dir = self.layout.run_dir
        self.tables_dir = self.layout.tables_dir
        self.metrics_path = self.layout.metrics_path
        self.figures_path = self.layout.figures_index
        self.figures_dir.mkdir(parents=True, exist_ok=True)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        # a run starts from empty metrics: metrics.json describes this execution only
        self.metrics: dict[str, Any] = {}
        # what frozen encoders of this run embed with: the notebook's `backend` parameter, else models.load's default
        self.metrics["backend"] = resolve_backend((params or {}).get("backend"))
        # numerics of this run: a notebook's `precision` parameter (when not auto) is the process default
        use_precision((params or {}).get("precision"))
        self.metrics.update(run_numerics((params or {}).get("device"), (params or {}).get("precision")))
        self.headline: list[str] = []
        # figures index of this execution: name -> {"alt", "png", "pdf"} (paths relative to the output root)
        self.figures: dict[str, dict[str, str]] = {}
        self.root = root
        self.figures_path.unlink(missing_ok=True)
        if params is not None:
            atomic_write_bytes(self.layout.params_path, json.dumps(_jsonable(dict(params)), indent=2).encode())
        # the manifest covers what is read and used from here on (a JupyterLab kernel may hold earlier runs' models)
        self.params: dict[str, Any] = _jsonable(dict(params or {}))
        self._models_before = start_run()
        self._manifest_body = ""
        self.write_manifest()

    @classmethod
    def from_spec(cls, spec: Spec) -> Run:
        """Open the run of an experiment's notebook from its checked spec.

        In a notebook: ``spec = lexical.Spec.from_notebook(globals()); run = results.Run.from_spec(spec)``.
        The spec's values go to ``params.json``; its ``precision`` (when not ``auto``) becomes this
        process's default numerics (``$MTLIB_PRECISION``, :func:`mtlib.models.numerics.use_precision`), so
        every model the notebook loads uses it.
        """
        values = spec.values()
        return cls(spec.notebook, profile=spec.profile, out_dir=spec.out_dir or None, params=values, checked=True)

    @classmethod
    def from_notebook(cls, stem: str, namespace: Mapping[str, Any]) -> Run:
        """Open the run of notebook ``stem`` from its namespace (pass ``globals()``).

        ``profile`` and ``out_dir`` and every parameter the notebook declares
        (the names of its ``parameters`` cell, :func:`mtlib.run.params.declared`)
        are read from ``namespace``; the parameters are checked (unless the
        runner did) and saved in ``params.json``.
        """
        values = namespace_values(stem, namespace)
        return cls(
            stem,
            profile=str(namespace.get("profile") or "quick"),
            out_dir=namespace.get("out_dir") or None,
            params=values or None,
        )

    def __repr__(self) -> str:
        return f"Run({self.stem!r}, profile={self.profile!r}, run_dir='{self.run_dir}')"

    def record(self, key: str | Mapping[str, Any], value: Any = None, *, headline: bool = False) -> None:
        """Record one metric (``record("accuracy", 0.9)``) or several (``record({...})``).

        Keys are flat strings such as ``"violation_rate/overall"``; values are
        numbers, strings, or small lists/dicts/DataFrames. ``headline=True``
        puts the keys in the runner's summary table. A duration (a key with a
        part ending in ``seconds``) is stored under ``timing/``.
        """
        items = dict(key) if isinstance(key, Mapping) else {key: value}
        if headline:  # a headline metric is a claim of the notebook: NaN or inf is a failure, not a number
            bad = [str(k) for k, v in items.items() if _not_finite(v)]
            if bad:
                raise ValueError(
                    f"{self.stem}: headline metric(s) {', '.join(bad)} are NaN or infinite; "
                    "a claimed value must be a number"
                )
        for k, v in items.items():
            k = timing_key(str(k))
            self.metrics[k] = _jsonable(v)
            if headline and k not in self.headline:
                self.headline.append(k)
        self.metrics["_headline"] = self.headline
        # the threads this kernel ran with (mtlib.utils.threads.plan_threads): a condition of the run, like its seconds
        self.metrics.update({f"{TIMING_PREFIX}threads/{k}": v for k, v in kernel_threads().items()})
        atomic_write_bytes(self.metrics_path, json.dumps(self.metrics, indent=2, sort_keys=True).encode())
        self.write_manifest()

    def write_manifest(self) -> Path:
        """(Re)write ``manifest.json``: what this run has read, used and run on so far (:mod:`mtlib.run.manifest`).

        Called after every :meth:`record` and :meth:`save_figure`; the file is rewritten only when
        something other than its date changed.
        """
        manifest = notebook_manifest(self.stem, self.profile, self.params, self.metrics, self._models_before)
        self._manifest_body = rewrite_manifest(self.layout.manifest_path, manifest, self._manifest_body)
        return self.layout.manifest_path

    def record_report(
        self, report: Report | Mapping[str, Any], model: str | None = None, *, primary: bool = True, tables: bool = True
    ) -> dict[str, Any]:
        """Record an experiment report's metrics (and save its tables) in the one key scheme.

        Scheme: ``models/<model>/<metric>/<group...>`` for every model's
        values, and also ``<metric>/<group...>`` for the primary model (the
        first in a notebook's ``models``). ``model`` is made safe with
        :func:`model_slug`. Without ``model`` the keys are recorded as they are.
        Durations go under ``timing/`` (see :meth:`record`).

        Args:
            report: An object with ``metrics()`` (and optionally ``tables()``
                and ``headline``), or a plain mapping of metrics.
            model: The model the report is about.
            primary: Also record the plain keys (and the headline).
            tables: Save ``report.tables()`` as ``<name>`` for the primary
                model and ``<name>__<model>`` for the others.

        Returns:
            The keys and values recorded.
        """
        values = dict(report) if isinstance(report, Mapping) else dict(report.metrics())
        out = scheme(values, model, primary)
        self.record(out)
        plain = model is None or primary
        heads = [] if isinstance(report, Mapping) else list(getattr(report, "headline", ()) or ())
        if heads and plain:
            self.record({k: values[k] for k in heads if k in values}, headline=True)
        if tables and not isinstance(report, Mapping) and hasattr(report, "tables"):
            for name, frame in report.tables().items():
                self.save_table(frame, name if plain else f"{name}__{model_slug(str(model))}")
        return out

    def record_outcome(self, outcome: Any, *, tables: bool = True) -> dict[str, Any]:
        """Record everything an experiment's ``run(spec)`` (or one of its steps) returned.

        ``outcome.entries()`` gives ``(report, model, primary)`` triples
        (:class:`mtlib.experiments.outcome.Outcome`); each is recorded by :meth:`record_report`,
        so the keys are those ``outcome.metrics()`` gives.

        Returns:
            The keys and values recorded.
        """
        out: dict[str, Any] = {}
        for report, model, primary in outcome.entries():
            out.update(self.record_report(report, model=model, primary=primary, tables=tables))
        return out

    def save_figure(
        self, fig: Any, name: str, alt: str | None = None, *, dpi: int = 150, show: bool = True
    ) -> list[Path]:
        """Save a matplotlib figure as ``<name>.png`` and ``<name>.pdf``, with a description.

        The description (alt text) goes into the figures index beside the
        metrics; the HTML export and ``REPORT.md`` show it with the image.
        Inside a Jupyter kernel the saved PNG is displayed with that alt text
        and the figure is closed, so it appears once, where it is saved, in
        JupyterLab and in papermill runs alike.

        Args:
            fig: A matplotlib ``Figure``.
            name: File stem, unique within the notebook.
            alt: One or two sentences: the title and what is plotted. Default:
                derived from the figure's titles, axis labels and plot types
                (:func:`mtlib.analysis.plots.describe_figure`).
            dpi: Resolution of the PNG.
            show: Display the PNG in the notebook (ignored outside a kernel).

        Returns:
            The two paths written.
        """
        paths = []
        for ext in ("png", "pdf"):
            path = self.figures_dir / f"{name}.{ext}"
            tmp = path.with_name(f".tmp-{path.name}")
            fig.savefig(tmp, dpi=dpi, bbox_inches="tight", format=ext)
            os.replace(tmp, path)
            paths.append(path)
        # described after drawing, when categorical tick labels exist
        alt = " ".join((alt or describe_figure(fig) or name.replace("_", " ")).split())
        self.figures[name] = {"alt": alt, **{p.suffix[1:]: p.relative_to(self.root).as_posix() for p in paths}}
        atomic_write_bytes(self.figures_path, json.dumps(self.figures, indent=2, ensure_ascii=False).encode())
        self.write_manifest()
        if show:
            _display_in_kernel(fig, paths[0], alt, dpi)
        return paths

    def save_table(self, df: Any, name: str) -> Path:
        """Save a DataFrame as ``tables/<name>.csv`` (index included)."""
        self.tables_dir.mkdir(parents=True, exist_ok=True)
        path = self.tables_dir / f"{name}.csv"
        atomic_write_bytes(path, df.to_csv().encode())
        return path


def _display_in_kernel(fig: Any, png: Path, alt: str, dpi: int) -> None:
    """Inside a Jupyter kernel, show the saved PNG with its alt text and close the figure."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    data = png.read_bytes()
    width = int.from_bytes(data[16:20], "big")  # PNG IHDR: width in pixels
    # shown at the figure's own size (figure.dpi), not at the saved resolution
    display(Image(data=data, format="png", width=max(1, round(width * fig.dpi / dpi)), alt=alt))
    plt.close(fig)  # the inline backend would show it a second time at the end of the cell
