"""Where the project lives: the folder holding ``notebooks/`` and ``mtlib/``.

Every default path (bundled data, outputs, profiles) is spelled relative to
:func:`project_root`, so a notebook, the runner and the tests agree on it
whatever their working folder.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["project_root"]


def project_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` holding ``notebooks/`` and ``mtlib/``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "notebooks").is_dir() and (folder / "mtlib").is_dir():
            return folder
    return here
