"""The error a public entry raises on a wrong argument, and the text checks every layer shares.

Intuition: one validation at each public entry (a relation's ``evaluate``, a
suite's ``add``, a model's ``embed`` and ``classify``, a transformation) turns
a wrong type or value into :class:`MtlibInputError`, naming the function, the
argument and what was expected, instead of a bare ``TypeError`` from deep
inside numpy or a silent ``str(None)``. A bare string where a list of texts is
expected is refused (it would otherwise be read character by character). It
lives in ``utils`` so that the models, the relations and the suite share the
one check; :mod:`mtlib.relations.errors` adds the checks of scores, rates and
tables.

Example:
    >>> check_texts(["a film", "a plot"], "f")
    ['a film', 'a plot']
    >>> check_texts("a film", "f")
    Traceback (most recent call last):
    ...
    mtlib.utils.inputs.MtlibInputError: f: inputs must be a list of texts (str), got str 'a film'
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["SEED_RULE", "MtlibInputError", "check_output_file", "check_seed", "check_text", "check_texts", "refuse"]

#: The rule every seed follows, in :mod:`mtlib.utils.rules`' words: the experiment specs declare ``seed`` with
#: ``">= 0"`` and the runner checks it there; a library function a user calls directly (``classifier``,
#: ``subsample``, ...) checks it with :func:`check_seed`. numpy's, pandas' and scikit-learn's generators take
#: integers in [0, 2**32 - 1].
SEED_RULE = "int; >= 0; <= 4294967295"


class MtlibInputError(ValueError):
    """A public mtlib function was given an argument of the wrong type or value.

    The message names the function, the argument and what was expected, e.g.
    ``Relation.evaluate: inputs must be a list of texts (str), got str 'a review'``.

    Attributes:
        argument: The argument's name (``None`` when not known).
        expected: What was expected (``None`` when not known).
    """

    def __init__(self, message: str, *, argument: str | None = None, expected: str | None = None) -> None:
        super().__init__(message)
        self.argument, self.expected = argument, expected


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def refuse(where: str, argument: str, expected: str, found: Any) -> MtlibInputError:
    """The error for ``argument`` of ``where``: ``<where>: <argument> must be <expected>, got <type> <repr>``."""
    return MtlibInputError(
        f"{where}: {argument} must be {expected}, got {_shown(found)}", argument=argument, expected=expected
    )


def check_text(value: Any, where: str, argument: str = "x", *, blank: bool = True) -> str:
    """``value`` if it is a ``str``; else :class:`MtlibInputError` (no ``str(None)``, no bytes).

    ``blank=False`` also refuses an empty or whitespace-only text (an input a test or a model would
    otherwise count, or skip, without a word).
    """
    if not isinstance(value, str):
        raise refuse(where, argument, "a text (str)", value)
    if not blank and not value.strip():
        raise refuse(where, argument, "a non-blank text (an empty or whitespace-only text tests nothing)", value)
    return value


def check_texts(value: Any, where: str, argument: str = "inputs", *, blank: bool = True) -> list[str]:
    """A list of texts from a list, tuple, array or Series of ``str``; a bare string is refused.

    ``blank=False`` also refuses an empty or whitespace-only entry, naming its position.
    """
    if (
        isinstance(value, (str, bytes))
        or value is None
        or not isinstance(value, Iterable)
        or (isinstance(value, np.ndarray) and value.ndim != 1)
    ):
        raise refuse(where, argument, "a list of texts (str)", value)
    texts = list(value)
    for i, x in enumerate(texts):
        check_text(x, where, f"{argument}[{i}]", blank=blank)
    return texts


def check_seed(value: Any, where: str, argument: str = "seed") -> int:
    """``value`` as an ``int`` if it follows :data:`SEED_RULE`; else :class:`MtlibInputError` naming ``argument``.

    A negative seed would otherwise reach numpy's or scikit-learn's own message
    (``random_state must be ...``), which names neither the function nor ``seed``.

    Example:
        >>> check_seed(7, "classifier")
        7
        >>> check_seed(-1, "classifier")
        Traceback (most recent call last):
        ...
        mtlib.utils.inputs.MtlibInputError: classifier: seed must be an integer in [0, 2**32 - 1], got int -1
    """
    plain = int(value) if isinstance(value, np.integer) else value
    if isinstance(plain, bool) or not isinstance(plain, int) or not 0 <= plain <= 2**32 - 1:
        raise refuse(where, argument, "an integer in [0, 2**32 - 1]", value)
    return plain


def check_output_file(value: Any, where: str, argument: str = "path", *, suffix: str = "") -> Path:
    """``value`` as a :class:`~pathlib.Path` a file can be written to, its parent folders made.

    Refused, naming ``argument`` and the path: not a ``str``/``Path``, an existing folder (writing would raise a
    bare ``IsADirectoryError``), or a parent that is a file (a bare ``NotADirectoryError``).

    Args:
        value: The path given.
        where: The public function, for the message.
        argument: Its parameter's name.
        suffix: The file ending the message suggests (e.g. ``".html"``).

    Example:
        >>> import tempfile
        >>> check_output_file(tempfile.gettempdir(), "RelationResult.to_html", suffix=".html")
        Traceback (most recent call last):
        ...
        mtlib.utils.inputs.MtlibInputError: RelationResult.to_html: path ... is a folder; expected a file path ...
    """
    wanted = f"a file path (str or Path){f', e.g. cases{suffix}' if suffix else ''}"
    if not isinstance(value, (str, Path)) or not str(value).strip():
        raise refuse(where, argument, wanted, value)
    path = Path(value)
    if path.is_dir():
        example = f" such as {path / ('cases' + suffix)}" if suffix else " inside it"
        raise MtlibInputError(
            f"{where}: {argument} {str(path)!r} is a folder; expected a file path{example}",
            argument=argument,
            expected=wanted,
        )
    parent = next((p for p in path.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise MtlibInputError(
            f"{where}: {argument} {str(path)!r} cannot be written: {str(parent)!r} is a file, not a folder; "
            "expected a file path whose parent is a folder (or does not exist yet)",
            argument=argument,
            expected=wanted,
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
