"""The error every public entry of the relations raises on a wrong argument.

One validation layer at the public entry (``check``, ``evaluate``,
transformations, the gate) turns a wrong type or value into
:class:`MtlibInputError`, naming the argument and what was expected, instead
of a bare ``TypeError`` or ``IndexError`` from deep inside numpy or pandas.
It is a :class:`ValueError`, so code that caught ``ValueError`` still does.
"""

from __future__ import annotations

__all__ = ["MtlibInputError"]


class MtlibInputError(ValueError):
    """A public mtlib function was given an argument of the wrong type or value.

    The message reads ``<function>: <argument> must be <expected>, got <found>``.

    Attributes:
        argument: The argument's name.
        expected: What the function expected.
    """

    def __init__(self, where: str, argument: str, expected: str, found: object) -> None:
        self.argument, self.expected = argument, expected
        shown = repr(found)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        super().__init__(f"{where}: {argument} must be {expected}, got {type(found).__name__} {shown}")
