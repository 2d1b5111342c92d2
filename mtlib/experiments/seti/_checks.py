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
from typing import Any

from mtlib.relations.errors import MtlibInputError, refuse
from mtlib.utils.batching import resolve_device

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
    mtlib.utils.inputs.MtlibInputError: build: template 'Someone {verb} that' has no {s} placeholder; \
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
