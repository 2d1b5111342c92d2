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
- ``_headline``: the keys the runner's summary shows;
- ``_skipped``: the keys a run declared skipped, each with why (see below).

:meth:`Run.record_report` is the one way to record a model's values in this scheme (an experiment report, or a
plain mapping of one model's values); :func:`mtlib.utils.keys.model_keys` names the keys it writes.

Every recorded number is finite. A value that was not computed (no bootstrap
intervals with ``n_boot=0``, no held-out correlation without held-out
sentences) is *declared skipped*, with a reason: :meth:`Run.skip`, or a
report's optional ``skipped()`` (``{key: reason}``, read by
:meth:`Run.record_report`). A skipped key is not written; ``_skipped`` names it
and says why. Any other NaN or infinite value, alone or inside a list, a dict
or a table, is a :class:`NonFiniteMetricError` naming the key, and a headline key
that is skipped or not finite fails the notebook with the key named.

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
from mtlib.models.inference.numerics import device_name
from mtlib.run.layout import FIGURES_INDEX as FIGURES_INDEX
from mtlib.run.layout import RunLayout
from mtlib.run.layout import read_figures as read_figures
from mtlib.run.layout import read_metrics as read_metrics
from mtlib.run.manifest import notebook_manifest, rewrite_manifest, start_run
from mtlib.run.params import check_run, kernel_namespace, namespace_values
from mtlib.utils.cache import atomic_write_bytes
from mtlib.utils.choices import AUTO
from mtlib.utils.context import RunContext
from mtlib.utils.keys import TIMING_PREFIX, model_keys, model_slug, skipped_of, timing_key
from mtlib.utils.paths import project_root
from mtlib.utils.threads import kernel_threads

# An import "as" itself is a re-export: other modules import that name from here (it is not on the face).
__all__ = ["Run"]

#: keys a Run records about itself (not an experiment's result): the summary's headline, the
#: frozen-encoder backend and the numerics (device, its name, precision)
RUN_KEYS = ("_headline", "backend", "device", "device_name", "precision", "stats_device")

OUT_ENV = "MTLIB_OUT"
#: Metric key holding the keys a run skipped, each with the reason: ``{"key": "why it was not computed"}``.
SKIPPED_KEY = "_skipped"


@runtime_checkable
class Report(Protocol):
    """What a report object gives to :meth:`Run.record_report` (a plain mapping of metrics works too).

    ``metrics()`` gives flat keys ``<metric>/<group...>`` without a model
    prefix; :meth:`Run.record_report` adds it. ``tables()`` (optional) gives
    named DataFrames to save; ``headline`` (optional) names the keys for the
    runner's summary; ``skipped()`` (optional) gives ``{key: reason}`` for the
    keys it did not compute (NaN in ``metrics()``, or left out of it): they are
    declared skipped, not written (see the module docstring).
    """

    def metrics(self) -> Mapping[str, Any]: ...


class NonFiniteMetricError(ValueError):
    """A metric is NaN or infinite and was not declared skipped (:meth:`Run.skip`).

    Attributes:
        key: The metric key.
        where: Where inside the value (``""`` for a number, ``"[2]"``, ``"['E']"`` inside a list or dict).
    """

    def __init__(self, stem: str, key: str, where: str, value: float) -> None:
        self.key, self.where = key, where
        inside = f" at {where}" if where else ""
        super().__init__(
            f"{stem}: metric {key!r} is {value}{inside}: every recorded number must be finite. A value that was "
            f"not computed is declared skipped with its reason (run.skip({key!r}, 'why'), or the report's "
            "skipped()); it is then left out of metrics.json and named under _skipped"
        )


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


def first_non_finite(value: Any, where: str = "") -> tuple[str, float] | None:
    """Where the first NaN or infinite number inside ``value`` is, and that number (``None``: all finite).

    Looks inside lists, tuples, dicts, arrays and DataFrames (a small table recorded as a metric).

    Example:
        >>> first_non_finite({"a": [1.0, float("nan")]})
        ("['a'][1]", nan)
        >>> first_non_finite(0.5) is None
        True
    """
    if _not_finite(value):
        return where, float(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            at = tuple(int(i) for i in np.argwhere(~np.isfinite(value))[0])
            return where + "".join(f"[{i}]" for i in at), float(value[at])
        return first_non_finite(value.tolist(), where) if value.dtype.kind == "O" else None
    if isinstance(value, Mapping):
        items: Any = ((f"[{k!r}]", v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"[{i}]", v) for i, v in enumerate(value))
    elif hasattr(value, "to_dict") and hasattr(value, "columns"):  # a small DataFrame
        items = ((f"[{i}]", row) for i, row in enumerate(value.to_dict(orient="records")))
    else:
        return None
    for part, v in items:
        found = first_non_finite(v, where + part)
        if found is not None:
            return found
    return None


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
            ``notebooks/<stem>.ipynb`` breaks its type or the rule its spec declares
            (:func:`mtlib.run.params.check_run`; not checked again when the runner has checked it).

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
        context: RunContext | None = None,
    ) -> None:
        if params is None:
            params = namespace_values(stem, kernel_namespace()) or None
        if not checked:
            check_run(stem, params)  # the runner's check, for a run it did not start (JupyterLab)
        given = params or {}
        # where and in what numerics this run computes: resolved once, here or by the spec, never written back
        self.context = context or RunContext.resolve(
            device=given.get("device", AUTO), precision=given.get("precision", AUTO), backend=given.get("backend", AUTO)
        )
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
        # the run's context: device (and its name), precision, backend, where the statistics count
        record = self.context.record()
        self.metrics.update({k: record[k] for k in ("backend", "device", "precision", "stats_device")})
        self.metrics["device_name"] = device_name(self.context.device)
        self.headline: list[str] = []
        # keys declared not computed in this run, each with its reason (Run.skip)
        self.skipped: dict[str, str] = {}
        # the primary model (a notebook's first): its values also under plain keys, its tables under plain names
        self.primary_model: str | None = None
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
        The spec's values go to ``params.json``; the run records the spec's context
        (:meth:`mtlib.experiments.spec.Spec.context`: device, precision, backend), the same object the
        notebook's cells hand to every model they load. Nothing is written to the
        environment, so a later run in the same kernel starts from its own spec.
        """
        values = spec.values()
        return cls(
            spec.notebook,
            profile=spec.profile,
            out_dir=spec.out_dir or None,
            params=values,
            checked=True,
            context=spec.context(),
        )

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
        part ending in ``seconds``) is stored under ``timing/``. A key declared
        skipped (:meth:`skip`) whose value is NaN is left out; a finite value
        recorded for it later replaces the declaration.

        Raises:
            NonFiniteMetricError: a value is NaN or infinite (or holds one) and its key is not declared skipped.
            ValueError: a headline key was declared skipped: a notebook's claim must be a number.
        """
        items = {timing_key(str(k)): v for k, v in (dict(key) if isinstance(key, Mapping) else {key: value}).items()}
        if headline:  # a headline metric is a claim of the notebook: NaN, inf or skipped is a failure
            skipped = [f"{k} ({self.skipped[k]})" for k in items if k in self.skipped]
            if skipped:
                raise ValueError(
                    f"{self.stem}: headline metric(s) {', '.join(skipped)} were skipped; "
                    "a claimed value must be a number"
                )
            bad = [k for k, v in items.items() if first_non_finite(v) is not None]
            if bad:
                raise ValueError(
                    f"{self.stem}: headline metric(s) {', '.join(bad)} are NaN or infinite; "
                    "a claimed value must be a number"
                )
        kept = {}
        for k, v in items.items():
            found = first_non_finite(v)
            if found is None:
                self.skipped.pop(k, None)
                kept[k] = v
            elif k not in self.skipped:
                raise NonFiniteMetricError(self.stem, k, *found)
        for k, v in kept.items():
            self.metrics[k] = _jsonable(v)
            if headline and k not in self.headline:
                self.headline.append(k)
        self._write()

    def record_exercise(self, values: Mapping[str, Any], reason: str) -> str:
        """Record an exercise's values; one that is NaN or infinite is declared skipped with ``reason``.

        An exercise is teaching material: on data too small for it (an interval over one review, a rate
        without a case) it says so in its cell and the run goes on. Its keys go under ``exercise/``.

        Args:
            values: ``{key: value}``, keys starting with ``exercise/``.
            reason: Why a non-finite value could not be computed on this run's data.

        Returns:
            "" when every value was recorded; else the sentence the cell prints: the keys skipped and why.

        Example:
            >>> import tempfile
            >>> run = Run("00_template", profile="smoke", out_dir=tempfile.mkdtemp(), params={})
            >>> run.record_exercise({"exercise/width": float("nan")}, "one review: no interval")
            "not computed on this run's data (exercise/width): one review: no interval"
            >>> run.metrics["_skipped"]
            {'exercise/width': 'one review: no interval'}
        """
        wrong = [k for k in values if not str(k).startswith("exercise/")]
        if wrong:
            raise ValueError(f"{self.stem}: Run.record_exercise: keys {wrong} do not start with 'exercise/'")
        bad = {k: reason for k, v in values.items() if first_non_finite(v) is not None}
        if bad:
            self.skip(bad)
        self.record(dict(values))  # a skipped key's value is left out
        return f"not computed on this run's data ({', '.join(bad)}): {reason}" if bad else ""

    def skip_exercise(self, keys: str | list[str], reason: str) -> str:
        """Declare an exercise's keys skipped with ``reason`` (it cannot run on this data); the sentence to print.

        Example:
            >>> import tempfile
            >>> run = Run("00_template", profile="smoke", out_dir=tempfile.mkdtemp(), params={})
            >>> run.skip_exercise("exercise/width", "one review")
            "not computed on this run's data (exercise/width): one review"
        """
        names = [keys] if isinstance(keys, str) else list(keys)
        return self.record_exercise(dict.fromkeys(names, math.nan), reason)

    def skip(self, key: str | Mapping[str, str], reason: str = "") -> None:
        """Declare metrics skipped: not computed in this run, for ``reason``.

        A skipped key is left out of ``metrics.json`` (a value recorded before
        is removed) and listed under ``_skipped`` with its reason, so a reader
        (a test, a claim) tells "not computed, and why" from a lost number.

        Args:
            key: One key, or a mapping ``{key: reason}`` (then ``reason`` is not used).
            reason: Why the value was not computed (``"n_boot=0: no bootstrap intervals"``).

        Raises:
            ValueError: no reason given, or a headline key (a claimed value cannot be skipped).

        Example:
            >>> import tempfile
            >>> run = Run("00_template", profile="smoke", out_dir=tempfile.mkdtemp(), params={})
            >>> run.skip("ci_low/overall", "n_boot=0: no bootstrap intervals")
            >>> run.record("ci_low/overall", float("nan"))  # declared: left out, no error
            >>> "ci_low/overall" in run.metrics, run.metrics["_skipped"]
            (False, {'ci_low/overall': 'n_boot=0: no bootstrap intervals'})
        """
        items = dict(key) if isinstance(key, Mapping) else {key: reason}
        for k, why in items.items():
            k = timing_key(str(k))
            if not isinstance(why, str) or not why.strip():
                raise ValueError(f"{self.stem}: Run.skip({k!r}): give the reason the value was not computed")
            if k in self.headline:
                raise ValueError(f"{self.stem}: headline metric {k} cannot be skipped ({why}); a claim is a number")
            self.skipped[k] = why.strip()
            self.metrics.pop(k, None)
        self._write()

    def _write(self) -> None:
        """Rewrite ``metrics.json`` (atomically) with the headline keys, the skipped keys and the threads."""
        self.metrics["_headline"] = self.headline
        if self.skipped:
            self.metrics[SKIPPED_KEY] = dict(sorted(self.skipped.items()))
        else:
            self.metrics.pop(SKIPPED_KEY, None)
        # the threads this kernel ran with (mtrun.threads.plan_threads): a condition of the run, like its seconds
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
        self,
        report: Report | Mapping[str, Any],
        model: str | None = None,
        *,
        primary: bool | None = None,
        tables: bool = True,
        nan_reason: str = "",
        skipped: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Record one model's values (an experiment report's metrics, and its tables) in the one key scheme.

        This is the one way a notebook records per-model values: never ``run.record`` with hand-built
        ``models/<slug>/`` prefixes (nor :func:`~mtlib.utils.keys.model_keys`, the deprecated ``scheme``).

        Scheme: ``models/<model>/<metric>/<group...>`` for every model's
        values, and also ``<metric>/<group...>`` for the primary model (the
        first in a notebook's ``models``). ``model`` is made safe with
        :func:`model_slug`. Without ``model`` the keys are recorded as they are.
        Durations go under ``timing/`` (see :meth:`record`).

        The report's ``skipped()`` keys (optional, ``{key: reason}``) are declared
        skipped (:meth:`skip`) under the same prefixes before its values are
        recorded, so their NaN values are left out; any other NaN is an error.

        Args:
            report: An object with ``metrics()`` (and optionally ``tables()``,
                ``headline`` and ``skipped()``), or a plain mapping of metrics.
            model: The model the report is about.
            primary: Also record the plain keys (and the headline). None: whether ``model`` is
                :attr:`primary_model` (always, when that is not set).
            tables: Save ``report.tables()`` as ``<name>`` for the primary
                model and ``<name>__<model>`` for the others.
            nan_reason: Declare every NaN value skipped with this reason (a value the run could not compute,
                e.g. a rate without a case); "": a NaN the report does not declare is an error.
            skipped: ``{key: reason}`` of values not computed in this run, declared skipped (with the report's own
                ``skipped()``) under the same prefixes; their NaN values are left out.

        Returns:
            The keys and values recorded.

        Raises:
            NonFiniteMetricError: a NaN or infinite value whose key the report does not declare skipped.
            ValueError: a headline key of the report is skipped, NaN or infinite.
        """
        values = dict(report) if isinstance(report, Mapping) else dict(report.metrics())
        primary = self._is_primary(model, primary)
        nans = {k: nan_reason for k, v in values.items() if nan_reason and isinstance(v, float) and math.isnan(v)}
        declared_skipped = skipped_of(report) | nans | {str(k): str(v) for k, v in (skipped or {}).items()}
        out = model_keys(values, model, primary)
        declared = model_keys(declared_skipped, model, primary)
        if declared:
            self.skip(declared)
        self.record(out)  # a declared key's NaN is left out; a finite value replaces the declaration
        plain = model is None or primary
        heads = [] if isinstance(report, Mapping) else list(getattr(report, "headline", ()) or ())
        if heads and plain:
            # a key the report does not have is not claimed by this part (a report type used for several parts)
            self.record(
                {k: values.get(k, math.nan) for k in heads if k in values or k in declared_skipped}, headline=True
            )
        if tables and not isinstance(report, Mapping) and hasattr(report, "tables"):
            for name, frame in report.tables().items():
                self.save_table(frame, name, model=model, primary=plain)
        return out

    def _is_primary(self, model: str | None, primary: bool | None) -> bool:
        if primary is not None:
            return primary
        return model is None or self.primary_model is None or model == self.primary_model

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

        Raises:
            ValueError: ``name`` is not one file-name part: empty, ``.``/``..``, or with ``/``, ``\\``
                or NUL (a model given by path goes through :func:`model_slug` first).
        """
        _file_name(name, "save_figure")
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

    def save_table(self, df: Any, name: str, *, model: str | None = None, primary: bool | None = None) -> Path:
        """Save a DataFrame as ``tables/<name>.csv`` (index included); a table of a model other than the primary
        one (``primary``, as in :meth:`record_report`) as ``tables/<name>__<model>.csv``.

        Raises:
            ValueError: ``name`` is not one file-name part (see :meth:`save_figure`).
        """
        if not self._is_primary(model, primary):
            name = f"{name}__{model_slug(str(model))}"
        _file_name(name, "save_table")
        self.tables_dir.mkdir(parents=True, exist_ok=True)
        path = self.tables_dir / f"{name}.csv"
        atomic_write_bytes(path, df.to_csv().encode())
        return path


def _file_name(name: Any, where: str) -> str:
    """``name`` if it is one safe file-name part of the run's folders, never a path out of them."""
    if not isinstance(name, str) or name.strip() in ("", ".", "..") or any(c in name for c in "/\\\x00"):
        raise ValueError(
            f"Run.{where}: name must be one file name without '/', '\\' or '..' (use model_slug() for a "
            f"model given by path), got {name!r}"
        )
    return name


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
