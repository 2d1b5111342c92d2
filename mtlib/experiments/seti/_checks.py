"""Checks at SETI's public entries: a wrong argument fails there, naming it, instead of deep inside pandas or torch.

Intuition: the notebook hands its parameters straight to :func:`~mtlib.experiments.seti.build_seeds`,
:func:`~mtlib.experiments.seti.head_report` and friends. A template without ``{s}`` used to build
premises that never mention the sentence, an unknown device was recorded as the one used, and an
empty seed list gave an empty report. Each check here raises
:class:`~mtlib.relations.MtlibInputError` (a ``ValueError``) naming the function, the argument and
what was expected, and returns the value in the form the code uses.
"""

from __future__ import annotations

import string
from typing import Any

from mtlib.relations.errors import MtlibInputError, refuse

#: The placeholders a premise template must hold (§3.1: ``"Someone {verb} that {s}"``).
TEMPLATE_FIELDS = ("verb", "s")


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
