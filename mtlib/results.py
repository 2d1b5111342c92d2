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
from typing import Any

import numpy as np

from mtlib.cache import atomic_write_bytes

OUT_ENV = "MTLIB_OUT"
#: File name of the figures index in a run folder.
FIGURES_INDEX = "figures.json"


def project_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` holding ``notebooks/`` and ``mtlib/``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "notebooks").is_dir() and (folder / "mtlib").is_dir():
            return folder
    return here


def output_root(out_dir: str | os.PathLike | None = None) -> Path:
    """Resolve the output root (see the module docstring)."""
    if out_dir:
        return Path(out_dir).expanduser().resolve()
    if os.environ.get(OUT_ENV):
        return Path(os.environ[OUT_ENV]).expanduser().resolve()
    return project_root()


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

    Args:
        stem: The notebook's file name without ``.ipynb``.
        profile: ``"smoke"``, ``"quick"`` or ``"paper"`` (any name works).
        out_dir: Output root override (the notebooks' ``out_dir`` parameter).
        params: The notebook's parameters, saved in ``params.json``.

    Example:
        >>> run = Run("00_template", profile="smoke", out_dir=tmp)  # doctest: +SKIP
        >>> run.record("accuracy", 0.91)                             # doctest: +SKIP
        >>> run.save_figure(fig, "accuracy")                         # doctest: +SKIP
    """

    def __init__(self, stem: str, profile: str = "quick", out_dir: str | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        self.stem, self.profile = stem, profile
        root = output_root(out_dir)
        self.figures_dir = root / "figures" / profile / stem
        self.run_dir = root / "papermill_runs" / profile / stem
        self.tables_dir = self.run_dir / "tables"
        self.metrics_path = self.run_dir / "metrics.json"
        self.figures_path = self.run_dir / FIGURES_INDEX
        self.figures_dir.mkdir(parents=True, exist_ok=True)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        # a run starts from empty metrics: metrics.json describes this execution only
        self.metrics: dict[str, Any] = {}
        self.headline: list[str] = []
        # figures index of this execution: name -> {"alt", "png", "pdf"} (paths relative to the output root)
        self.figures: dict[str, dict[str, str]] = {}
        self.root = root
        self.figures_path.unlink(missing_ok=True)
        if params is not None:
            atomic_write_bytes(self.run_dir / "params.json",
                               json.dumps(_jsonable(dict(params)), indent=2).encode())

    def __repr__(self) -> str:
        return f"Run({self.stem!r}, profile={self.profile!r}, run_dir='{self.run_dir}')"

    def record(self, key: str | Mapping[str, Any], value: Any = None, *, headline: bool = False) -> None:
        """Record one metric (``record("accuracy", 0.9)``) or several (``record({...})``).

        Keys are flat strings such as ``"violation_rate/overall"``; values are
        numbers, strings, or small lists/dicts/DataFrames. ``headline=True``
        puts the keys in the runner's summary table.
        """
        items = dict(key) if isinstance(key, Mapping) else {key: value}
        for k, v in items.items():
            self.metrics[str(k)] = _jsonable(v)
            if headline and str(k) not in self.headline:
                self.headline.append(str(k))
        self.metrics["_headline"] = self.headline
        atomic_write_bytes(self.metrics_path, json.dumps(self.metrics, indent=2, sort_keys=True).encode())

    def save_figure(self, fig: Any, name: str, alt: str | None = None, *, dpi: int = 150,
                    show: bool = True) -> list[Path]:
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
                (:func:`mtlib.plots.describe_figure`).
            dpi: Resolution of the PNG.
            show: Display the PNG in the notebook (ignored outside a kernel).

        Returns:
            The two paths written.
        """
        from mtlib.plots import describe_figure

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


def read_figures(run_dir: str | os.PathLike) -> dict[str, dict[str, str]]:
    """Load a run folder's figures index (empty dict when missing or unreadable)."""
    try:
        data = json.loads((Path(run_dir) / FIGURES_INDEX).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_metrics(path: str | os.PathLike) -> dict[str, Any]:
    """Load a ``metrics.json`` (empty dict when missing or unreadable)."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
