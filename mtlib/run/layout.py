"""Where a run's files live, and reading them back: the paths every part of the runner agrees on.

Intuition: the notebooks write (:class:`mtlib.run.results.Run`), the runner
clears, reports and checks (:mod:`mtrun.cli`, :mod:`mtrun.report`,
:mod:`mtrun.expected`); all of them find a notebook's files through
:class:`RunLayout`, the only place that spells the layout. This module is
light (no numpy, no matplotlib), so the runner and ``python -m
mtrun.expected`` do not load what the notebooks need.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtlib.utils.paths import project_root as project_root

# An import "as" itself is a re-export: other modules import that name from here (it is not on the face).
__all__ = ["RunLayout", "read_metrics"]

#: File name of the figures index in a run folder.
FIGURES_INDEX = "figures.json"
_COMPONENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$")


def safe_component(name: str, what: str) -> str:
    """``name`` when it is a safe single path component (a letter or digit first, then letters, digits and
    ``._+-``; not ``..``), else a :class:`ValueError` naming ``what`` it is.

    >>> safe_component("smoke", "profile")
    'smoke'
    >>> safe_component("..", "profile")
    Traceback (most recent call last):
    ...
    ValueError: profile '..' cannot name a folder: use letters, digits and ._+- (a letter or digit first)
    """
    if not _COMPONENT.match(name) or name in (".", ".."):
        raise ValueError(
            f"{what} {name!r} cannot name a folder: use letters, digits and ._+- (a letter or digit first)"
        )
    return name


@dataclass(frozen=True)
class RunLayout:
    """Every output path of one notebook run; the only place that spells the layout.

    ``<root>/figures/<profile>/<stem>/<name>.png|pdf`` and
    ``<root>/papermill_runs/<profile>/<stem>/`` holding the executed notebook,
    its HTML, ``metrics.json``, ``params.json``, ``manifest.json``, ``figures.json`` and
    ``tables/``; ``<root>/papermill_runs/<profile>/REPORT.md`` covers all
    notebooks of the profile.
    """

    root: Path
    profile: str
    stem: str

    def __post_init__(self) -> None:
        safe_component(self.profile, "profile")
        if self.stem:
            safe_component(self.stem, "notebook")

    @property
    def profile_dir(self) -> Path:
        """``papermill_runs/<profile>``: the runs of every notebook and ``REPORT.md``."""
        return Path(self.root) / "papermill_runs" / self.profile

    @property
    def report_path(self) -> Path:
        return self.profile_dir / "REPORT.md"

    @property
    def run_dir(self) -> Path:
        return self.profile_dir / self.stem

    @property
    def figures_dir(self) -> Path:
        return Path(self.root) / "figures" / self.profile / self.stem

    @property
    def tables_dir(self) -> Path:
        return self.run_dir / "tables"

    @property
    def metrics_path(self) -> Path:
        return self.run_dir / "metrics.json"

    @property
    def params_path(self) -> Path:
        return self.run_dir / "params.json"

    @property
    def manifest_path(self) -> Path:
        """What the run was computed from (:mod:`mtlib.run.manifest`)."""
        return self.run_dir / "manifest.json"

    @property
    def figures_index(self) -> Path:
        return self.run_dir / FIGURES_INDEX

    @property
    def notebook_path(self) -> Path:
        """The executed notebook."""
        return self.run_dir / f"{self.stem}.ipynb"

    @property
    def html_path(self) -> Path:
        return self.run_dir / f"{self.stem}.html"

    def output_dirs(self) -> tuple[Path, Path]:
        """The folders a new run of this notebook starts empty."""
        return self.run_dir, self.figures_dir


def read_json_object(path: str | os.PathLike) -> dict[str, Any]:
    """A JSON file's top-level object, or an empty dict when the file is missing, unreadable or not an object.

    For the run's own bookkeeping files (figures index, manifests, the runner's ledger, ``params.json``), which a
    later step rewrites whole; ``metrics.json`` has its own reader, :func:`read_metrics`, which refuses what it
    cannot read.

    Example:
        >>> read_json_object("no/such/file.json")
        {}
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_figures(run_dir: str | os.PathLike) -> dict[str, dict[str, str]]:
    """Load a run folder's figures index (empty dict when missing or unreadable)."""
    return read_json_object(Path(run_dir) / FIGURES_INDEX)


class MetricsError(ValueError):
    """A ``metrics.json`` that is there but cannot be read as metrics; the message names its path and where.

    Attributes:
        path: The file.
    """

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = Path(path)
        super().__init__(f"{self.path}: {problem}")


def read_metrics(path: str | os.PathLike) -> dict[str, Any]:
    """Load a ``metrics.json``: the one reader of that file (runner, report, expected values, diff).

    Returns:
        Its metrics; an empty dict when the file does not exist (the notebook wrote none).

    Raises:
        MetricsError: the file is there but is not UTF-8 JSON holding one object: the message gives the
            path and the place (``not valid JSON at line 3 column 14: Expecting ',' delimiter``), so a damaged
            file is never read as a run that recorded nothing.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise MetricsError(path, f"cannot read it ({err.strerror or err})") from err
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        column = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        raise MetricsError(
            path, f"not UTF-8 at line {line} column {column} (byte 0x{raw[err.start]:02x}); expected a JSON object"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise MetricsError(
            path, f"not valid JSON at line {err.lineno} column {err.colno} ({err.msg}); expected a JSON object"
        ) from None
    if not isinstance(data, dict):
        raise MetricsError(path, f"expected a JSON object of metrics, got {type(data).__name__}")
    return data
