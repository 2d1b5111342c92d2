"""The error every loader raises on malformed input, the checks of the loaders' arguments, the data folder.

Two sorts of bad input, two errors, both :class:`ValueError`:

- :class:`DataFormatError`: a file's content is not what its format says (``<file>:<line>: expected ...``);
- :class:`DataArgumentError`: an argument of a loader is out of range, of the wrong type, or a name that
  would become more than one path component (``load_lexicon: max_nouns must be an integer >= 0, got int
  -2``). The checks below raise it: :func:`check_count`, :func:`check_choice`, :func:`check_fraction`,
  :func:`path_component`, :func:`check_path`.
"""

from __future__ import annotations

import math
import numbers
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from mtlib.utils.paths import project_root

_T = TypeVar("_T")


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


class DataArgumentError(ValueError):
    """An argument of a data function is out of range, of the wrong type, or an unsafe name.

    The message reads ``<function>: <argument> must be <expected>, got <type> <value>``.

    Attributes:
        argument: The argument's name.
        expected: What was expected.
    """

    def __init__(self, where: str, argument: str, expected: str, found: Any) -> None:
        self.argument, self.expected = argument, expected
        text = repr(found)
        shown = f"{type(found).__name__} {text if len(text) <= 60 else text[:57] + '...'}"
        super().__init__(f"{where}: {argument} must be {expected}, got {shown}")


def check_count(value: Any, where: str, argument: str, minimum: int = 0) -> int:
    """``value`` as an ``int`` if it is a whole number (not a bool) of at least ``minimum``.

    Example:
        >>> check_count(3, "load_lexicon", "max_nouns")
        3
        >>> check_count(-2, "load_lexicon", "max_nouns")
        Traceback (most recent call last):
        ...
        mtlib.data.errors.DataArgumentError: load_lexicon: max_nouns must be an integer >= 0, got int -2
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise DataArgumentError(where, argument, f"an integer >= {minimum}", value)
    return int(value)


def check_choice(value: _T, allowed: Sequence[_T], where: str, argument: str) -> _T:
    """``value`` if it is one of ``allowed``, of the same type: ``True`` or ``1.0`` is not the label ``1``.

    Example:
        >>> check_choice("neg_to_pos", ("neg_to_pos", "pos_to_neg"), "read_tab_pairs", "direction")
        'neg_to_pos'
    """
    for a in allowed:
        same_type = type(value) is type(a) or (
            isinstance(a, numbers.Integral) and isinstance(value, numbers.Integral) and not isinstance(value, bool)
        )
        if same_type and not isinstance(a, bool) == isinstance(value, bool):
            continue
        if same_type and value == a:
            return a
    raise DataArgumentError(where, argument, f"one of {list(allowed)}", value)


def check_fraction(value: Any, where: str, argument: str) -> float:
    """A real number from 0 to 1 (a share of the data); NaN, infinities and bools are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) <= 1:
        raise DataArgumentError(where, argument, "a number in [0, 1]", value)
    return float(value)


def check_finite(value: float, where: str, argument: str) -> float:
    """A finite real number (not NaN, not infinite)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise DataArgumentError(where, argument, "a finite number", value)
    return float(value)


_COMPONENT = re.compile(r"^[^/\\\x00]+$")


def path_component(name: Any, where: str, argument: str) -> str:
    """``name`` if it can become one file-name part inside a folder, never a path out of it.

    A language, a split or a label that is put into a file name must be a non-empty ``str`` without
    ``/``, ``\\`` or NUL that is not ``.`` or ``..``: ``../../etc/passwd`` as a language reads
    nothing outside the data folder.

    Example:
        >>> path_component("english", "load_lexical_relations", "language")
        'english'
        >>> path_component("../secret", "load_lexical_relations", "language")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        mtlib.data.errors.DataArgumentError: load_lexical_relations: language must be a name without ... '../secret'
    """
    if not isinstance(name, str) or not _COMPONENT.match(name) or name.strip() in ("", ".", ".."):
        raise DataArgumentError(where, argument, "a name without '/', '\\' or '..' (one part of a file name)", name)
    return name


def check_path(path: Any, where: str, argument: str = "path") -> str | os.PathLike:
    """``path`` if it is a non-empty ``str`` or ``os.PathLike`` (not ``None``, bytes or a number)."""
    if isinstance(path, os.PathLike):
        return path
    if not isinstance(path, str) or not path.strip():
        raise DataArgumentError(where, argument, "the path of a file (a non-empty str or Path)", path)
    return path


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
        DataArgumentError: ``path`` is not a non-empty ``str`` or ``Path`` (``None``, bytes, ``""``).
        FileNotFoundError: naming both places looked in.
    """
    p = Path(check_path(path, "resolve_data_path")).expanduser()
    if p.exists():
        return p
    q = data_dir() / p
    if q.exists():
        return q
    raise FileNotFoundError(f"{path}: no such file (looked at {p.resolve()} and {q})")


__all__ = ["DataFormatError", "data_dir"]
