"""Checks at SETI's public entries: a wrong argument fails there, naming it, instead of deep inside pandas or torch.

Intuition: the notebook hands its parameters straight to :func:`~mtlib.experiments.seti.build_seeds`,
:func:`~mtlib.experiments.seti.head_report` and friends. A template without ``{s}`` used to build
premises that never mention the sentence, an unknown device was recorded as the one used, and an
empty seed list gave an empty report. Each check here raises
:class:`~mtlib.relations.MtlibInputError` (a ``ValueError``) naming the function, the argument and
what was expected, and returns the value in the form the code uses.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations.errors import MtlibInputError, check_count, refuse
from mtlib.utils.batching import resolve_device

__all__ = [
    "TEMPLATE_FIELDS",
    "DEVICES",
    "check_template",
    "check_seeds",
    "check_frame",
    "check_device",
]

#: The placeholders a premise template must hold (§3.1: ``"Someone {verb} that {s}"``).
TEMPLATE_FIELDS = ("verb", "s")
#: The devices a SETI run can be asked for (``cuda:<n>`` too).
DEVICES = ("auto", "", "cpu", "cuda", "mps")
_CUDA_N = re.compile(r"cuda:\d+")


def check_template(template: Any, where: str) -> str:
    """``template`` if it is a string with exactly the placeholders ``{verb}`` and ``{s}``.

    >>> check_template("Someone {verb} that {s}", "build")
    'Someone {verb} that {s}'
    >>> check_template("Someone {verb} that", "build")
    Traceback (most recent call last):
    ...
    mtlib.relations.errors.MtlibInputError: build: template 'Someone {verb} that' has no {s} placeholder; \
expected a string with {verb} and {s}, e.g. 'Someone {verb} that {s}'
    """
    expected = "a string with {verb} and {s}, e.g. 'Someone {verb} that {s}'"
    if not isinstance(template, str):
        raise refuse(where, "template", expected, template)
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as err:  # an unmatched brace
        raise MtlibInputError(
            f"{where}: template {template!r} is not a format string ({err}); expected {expected}",
            argument="template",
            expected=expected,
        ) from None
    for name in TEMPLATE_FIELDS:
        if name not in fields:
            raise MtlibInputError(
                f"{where}: template {template!r} has no {{{name}}} placeholder; expected {expected}",
                argument="template",
                expected=expected,
            )
    stray = sorted(set(fields) - set(TEMPLATE_FIELDS))
    if stray:
        raise MtlibInputError(
            f"{where}: template {template!r} has placeholder(s) {stray} besides {{verb}} and {{s}}; "
            f"expected {expected}",
            argument="template",
            expected=expected,
        )
    return template


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


def check_device(device: Any, where: str) -> str:
    """The device a run will use: ``"auto"`` (or ``""``) resolved (cuda, then mps, then cpu), an explicit one checked.

    Raises:
        MtlibInputError: not one of :data:`DEVICES` or ``cuda:<n>`` (e.g. ``"tpu"``), or a CUDA / MPS
            device this machine does not have (the message says so).
    """
    expected = "one of 'auto', 'cpu', 'cuda', 'cuda:<n>', 'mps'"
    if not isinstance(device, str):
        raise refuse(where, "device", expected, device)
    if device not in DEVICES and not _CUDA_N.fullmatch(device):
        raise MtlibInputError(
            f"{where}: device {device!r} is not a device mtlib knows; expected {expected}",
            argument="device",
            expected=expected,
        )
    try:
        return resolve_device(device)
    except ValueError as err:
        raise MtlibInputError(f"{where}: {err}", argument="device", expected="an available device") from None
