"""What a replaceable notebook cell must return, checked where the cell is defined.

Intuition: a notebook's method is a chain of small functions a researcher may
rewrite (a head's ``score``, a distance, a composition, a scorer). The next
cells rely on what each one returns: a distance of one number per sentence, a
probability in [0, 1] where above the decision threshold means yes. A rewrite
that returns a margin, a matrix of the wrong shape or a NaN would otherwise
fail many cells later with a message about something else, or not fail at all.
:func:`check_output` checks one returned value against its contract and
refuses a wrong one with :class:`ContractError`, naming the function and what
was expected; the notebook calls it on a small probe in the cell that defines
the function.

Example:
    >>> check_output([0.2, 0.9], "score", shape=(2,), low=0.0, high=1.0).tolist()
    [0.2, 0.9]
    >>> check_output([0.2, 1.4], "score", low=0.0, high=1.0)
    Traceback (most recent call last):
    ...
    mtlib.utils.contracts.ContractError: score must return finite values in [0.0, 1.0]; got a value 1.4 at index (1,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtlib.utils.inputs import MtlibInputError

__all__ = ["ContractError", "check_distinct", "check_output"]


class ContractError(MtlibInputError):
    """A replaceable function returned something its callers cannot use (wrong shape, NaN, out of range)."""


def _as_array(value: Any) -> np.ndarray:
    """``value`` as a numpy array; a torch tensor is detached and moved to the CPU first (torch not imported)."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


def check_output(
    value: Any,
    function: str,
    *,
    shape: tuple[int | None, ...] | None = None,
    low: float | None = None,
    high: float | None = None,
) -> np.ndarray:
    """``value`` as an array if it has ``shape`` and finite numbers within ``[low, high]``; else ContractError.

    Args:
        value: What the function returned (a list, a numpy array or a torch tensor).
        function: The function's name as the notebook spells it (``"distance"``, ``"head.score"``).
        shape: The expected shape; ``None`` in a position accepts any length there, ``shape=None`` any shape.
        low, high: The allowed range (inclusive); ``None`` leaves that side open.

    Returns:
        The value as a numpy array (float).

    Raises:
        ContractError: naming ``function``, the expected shape and range, and the first offending value.
    """
    bounds = (
        f" in [{low}, {high}]"
        if low is not None and high is not None
        else (f" >= {low}" if low is not None else f" <= {high}" if high is not None else "")
    )
    expected = f"finite values{bounds}" + (f" of shape {tuple(shape)}" if shape is not None else "")
    try:
        array = _as_array(value).astype(float)
    except (TypeError, ValueError):
        raise ContractError(
            f"{function} must return {expected}; got {type(value).__name__}", expected=expected
        ) from None
    if shape is not None and (
        array.ndim != len(shape) or any(want is not None and got != want for got, want in zip(array.shape, shape))
    ):
        raise ContractError(f"{function} must return {expected}; got shape {array.shape}", expected=expected)
    bad = ~np.isfinite(array)
    if low is not None:
        bad |= array < low
    if high is not None:
        bad |= array > high
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ContractError(
            f"{function} must return {expected}; got a value {array[where]:g} at index {where}", expected=expected
        )
    return array


def check_distinct(values: Any, name: str) -> list[Any]:
    """``values`` as a list if no entry is listed twice; else ContractError naming ``name`` and the entry.

    A model or encoder listed twice in a notebook's cell would be trained, counted and plotted twice (or
    overwrite its own results) without a word.

    Example:
        >>> check_distinct(["minilm", "glove-50d"], "encoders")
        ['minilm', 'glove-50d']
        >>> check_distinct(["minilm", "glove-50d", "glove-50d"], "encoders")
        Traceback (most recent call last):
        ...
        mtlib.utils.contracts.ContractError: encoders lists 'glove-50d' twice (entries [1] and [2]): list each once
    """
    values = list(values)
    seen: dict[Any, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            raise ContractError(
                f"{name} lists {value!r} twice (entries [{seen[value]}] and [{i}]): list each once",
                argument=name,
                expected="distinct entries",
            )
        seen[value] = i
    return values
