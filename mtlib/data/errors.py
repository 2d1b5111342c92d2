"""The error every loader raises on malformed input, and the bundled data folder."""

from __future__ import annotations

import os
from pathlib import Path

from mtlib.utils.paths import project_root


class DataFormatError(ValueError):
    """A data file does not have the expected format.

    The message reads ``<file>:<line>: expected <what>, got <found>``.

    Attributes:
        path: The file.
        line: 1-based line number (0 when the problem is the whole file).
        expected: What the loader expected.
        found: What it found (shortened).
    """

    def __init__(self, path: str | os.PathLike, line: int, expected: str, found: str = "") -> None:
        self.path, self.line, self.expected, self.found = Path(path), line, expected, found
        where = f"{self.path}:{line}" if line else str(self.path)
        shown = found if len(found) <= 120 else found[:117] + "..."
        super().__init__(f"{where}: expected {expected}" + (f", got {shown!r}" if found else ""))


def data_dir() -> Path:
    """The bundled ``data/`` folder (``$MTLIB_DATA`` overrides it)."""
    env = os.environ.get("MTLIB_DATA")
    if env:
        return Path(env).expanduser()
    here = Path(__file__).resolve().parents[2] / "data"
    if here.is_dir():
        return here

    return project_root() / "data"


def resolve_data_path(path: str | os.PathLike) -> Path:
    """An absolute path, or a path relative to the bundled ``data/`` folder.

    Raises:
        FileNotFoundError: naming both places looked in.
    """
    p = Path(path).expanduser()
    if p.exists():
        return p
    q = data_dir() / p
    if q.exists():
        return q
    raise FileNotFoundError(f"{path}: no such file (looked at {p.resolve()} and {q})")


__all__ = ["DataFormatError", "data_dir", "resolve_data_path"]
