"""The error every public entry of the relations raises on a wrong argument, and the checks that raise it.

One validation layer at the public entry (``check``, ``evaluate``,
transformations, the gate) turns a wrong type or value into
:class:`MtlibInputError`, naming the argument and what was expected, instead
of a bare ``TypeError`` or ``IndexError`` from deep inside numpy or pandas, or
a silent ``str(x)`` of ``None``. It is a :class:`ValueError`, so code that
caught ``ValueError`` still does. The checks below return the argument in the
form the code uses (a list of texts, a float array, an int).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.utils.inputs import MtlibInputError, refuse
from mtlib.utils.inputs import check_text as check_text
from mtlib.utils.inputs import check_texts as check_texts

# An import "as" itself is a re-export: other modules import that name from here (it is not on the face).
__all__ = ["MtlibInputError"]


def check_scores(value: Any, where: str, argument: str, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """``value`` as a float array of ``ndim`` dimensions and finite real numbers."""
    expected = f"a {' or '.join(f'{d}-D' for d in ndim)} array of finite numbers"
    if value is None or isinstance(value, (str, bytes, dict)):
        raise refuse(where, argument, expected, value)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged nested lists
        raise refuse(where, argument, expected, value) from None
    if arr.ndim not in ndim or arr.dtype.kind not in "biuf":
        raise refuse(where, argument, expected + f" (shape {arr.shape}, dtype {arr.dtype})", value)
    arr = arr.astype(float)
    if not np.isfinite(arr).all():
        first = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise refuse(where, argument, expected + f"; [{', '.join(map(str, first))}] is not", arr[first])
    return arr


def check_rate(value: Any, where: str, argument: str) -> float:
    """A real number in ``[0, 1]`` (a rate); bools, NaN and values outside are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) <= 1:
        raise refuse(where, argument, "a number in [0, 1]", value)
    return float(value)


def check_open_unit(value: Any, where: str, argument: str) -> float:
    """A real number strictly between 0 and 1 (a confidence)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        raise refuse(where, argument, "a number in (0, 1)", value)
    return float(value)


def check_count(value: Any, where: str, argument: str, minimum: int = 0) -> int:
    """An integer (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise refuse(where, argument, f"an integer >= {minimum}", value)
    return int(value)


def check_frame(frame: Any, where: str, argument: str, columns: Sequence[str] = ()) -> pd.DataFrame:
    """``frame`` if it is a DataFrame holding ``columns``.

    >>> check_frame(pd.DataFrame({"a": [1]}), "f", "pool", ["a"]).shape
    (1, 1)
    """
    expected = "a DataFrame" + (f" with columns {list(columns)}" if columns else "")
    if not isinstance(frame, pd.DataFrame):
        raise refuse(where, argument, expected, frame)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise MtlibInputError(
            f"{where}: {argument} lacks column(s) {missing}; expected {expected}, got columns {list(frame.columns)}",
            argument=argument,
            expected=expected,
        )
    return frame


def check_seeds(seeds: Any, where: str, argument: str = "seeds") -> list[int]:
    """A non-empty list of integer seeds (a list, tuple or array; not a bare number or string).

    >>> check_seeds((0, 1), "build_seeds")
    [0, 1]
    """
    expected = "a non-empty list of integers"
    if isinstance(seeds, (str, bytes, dict)) or not isinstance(seeds, (Sequence, np.ndarray, pd.Series)):
        raise refuse(where, argument, expected, seeds)
    out = list(seeds)
    if not out:
        raise refuse(where, argument, expected, seeds)
    for i, s in enumerate(out):
        check_count(s, where, f"{argument}[{i}]")
    return [int(s) for s in out]
