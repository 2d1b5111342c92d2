"""The transformation protocol: a named, described ``str -> str`` with the relation it keeps.

Every transformation is a :class:`Transformation`: a callable ``str -> str``
with a short ``name`` (metric keys, tables), a one-line ``description``
(tables, diagrams) and ``expected``, the relation it keeps (``"same"``: the
order or class is kept; ``"opposite"``: it is reversed). The three are
read-only properties here; a subclass gives them as dataclass fields or as
properties of its own. One that does not apply to an input raises
:class:`NotApplicable` (the relation skips and counts the input).

Arguments are checked when a transformation is built (a wrong type or an
empty text, name or key is a :class:`~mtlib.relations.errors.MtlibInputError`
naming the argument), and every call checks that its input is a ``str``.
"""

from __future__ import annotations

import functools
import numbers
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtlib.relations.errors import MtlibInputError, check_text, check_texts, refuse

__all__ = ["Composed", "FunctionTransformation", "NotApplicable", "Transformation", "apply", "as_transformation"]

#: The relations a transformation may keep.
EXPECTED = ("same", "opposite")


class NotApplicable(ValueError):
    """The transformation does not apply to this input; the relation skips it and counts it."""


def rng_for(seed: int, text: str) -> np.random.Generator:
    """A generator that depends only on the seed and the text (not on batch order)."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(text.encode("utf-8"))])


def check_choice(value: Any, allowed: Sequence[str], where: str, argument: str) -> str:
    """``value`` if it is one of ``allowed``; else :class:`MtlibInputError` listing them."""
    if not isinstance(value, str) or value not in allowed:
        raise refuse(where, argument, f"one of {list(allowed)}", value)
    return value


def check_int(value: Any, where: str, argument: str, minimum: int | None = None) -> int:
    """An integer (not a bool, not a float), at least ``minimum`` when given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or (minimum is not None and value < minimum):
        raise refuse(where, argument, "an integer" + (f" >= {minimum}" if minimum is not None else ""), value)
    return int(value)


def check_name(value: Any, where: str, argument: str = "name") -> str:
    """A non-empty text without surrounding blanks: a name for tables and metric keys."""
    if not isinstance(value, str) or not value.strip():
        raise refuse(where, argument, "a non-empty text (str)", value)
    return value


def check_word(value: Any, where: str, argument: str) -> str:
    """A non-empty text with a letter or digit in it (an empty pattern would match between every character)."""
    if not isinstance(value, str) or not any(c.isalnum() for c in value):
        raise refuse(where, argument, "a non-empty word (str with a letter or digit)", value)
    return value


def _text_checked(call: Callable[[Any, str], str]) -> Callable[[Any, str], str]:
    """Wrap a transformation's ``__call__``: the input must be a ``str``, and so must the output."""

    @functools.wraps(call)
    def checked(self: Any, x: str) -> str:
        where = type(self).__name__
        out = call(self, check_text(x, where, "x"))
        if not isinstance(out, str):
            raise MtlibInputError(
                f"{where} {self.name!r} returned {type(out).__name__} {out!r:.60}; a transformation returns a text "
                f"(str), or raises NotApplicable where it does not apply",
                argument="transform",
            )
        return out

    checked._checks_text = True  # type: ignore[attr-defined]
    return checked


def match_case(word: str, like: str) -> str:
    """``word`` in the case of ``like``: all capitals, a capital first letter, or as is."""
    if like.isupper() and len(like) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


class Transformation:
    """Base class: ``name``, ``description``, ``expected`` and ``t1 >> t2``.

    Subclasses implement ``__call__(x) -> str`` and raise
    :class:`NotApplicable` where they do not apply. Calling any of them with
    something other than a ``str`` (``None``, a number, bytes) raises
    :class:`~mtlib.relations.errors.MtlibInputError` instead of transforming ``str(x)``.
    """

    @property
    def name(self) -> str:
        """Short id for tables and metric keys."""
        return "T"

    @property
    def description(self) -> str:
        """One line: what the transformation does."""
        return ""

    @property
    def expected(self) -> str:
        """The relation it keeps: ``"same"`` or ``"opposite"``."""
        return "same"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        call = cls.__dict__.get("__call__")
        if call is not None and not getattr(call, "_checks_text", False):
            cls.__call__ = _text_checked(call)  # type: ignore[method-assign, assignment]

    def __call__(self, x: str) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def __rshift__(self, other: Callable[[str], str]) -> Composed:
        return Composed((self, as_transformation(other)))

    def __rrshift__(self, other: Callable[[str], str]) -> Composed:
        return Composed((as_transformation(other), self))


@dataclass(frozen=True)
class Composed(Transformation):
    """Apply ``parts`` left to right; not applicable if any part is not."""

    parts: tuple[Transformation, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.parts, tuple) or not self.parts:
            raise refuse("Composed", "parts", "a non-empty tuple of transformations", self.parts)
        object.__setattr__(self, "parts", tuple(as_transformation(p) for p in self.parts))

    @property
    def name(self) -> str:
        return ">>".join(p.name for p in self.parts)

    @property
    def description(self) -> str:
        return "; then ".join(p.description for p in self.parts)

    @property
    def expected(self) -> str:
        flips = sum(p.expected == "opposite" for p in self.parts)
        return "opposite" if flips % 2 else "same"

    def __call__(self, x: str) -> str:
        for p in self.parts:
            x = p(x)
        return x

    def __rshift__(self, other: Callable[[str], str]) -> Composed:
        return Composed((*self.parts, as_transformation(other)))


@dataclass(frozen=True)
class FunctionTransformation(Transformation):
    """Any ``str -> str`` function as a transformation (it may raise :class:`NotApplicable`)."""

    fn: Callable[[str], str]
    name: str = ""
    description: str = ""
    expected: str = "same"

    def __post_init__(self) -> None:
        if not callable(self.fn):
            raise refuse("FunctionTransformation", "fn", "a callable str -> str", self.fn)
        if not isinstance(self.name, str) or not isinstance(self.description, str):
            bad = "name" if not isinstance(self.name, str) else "description"
            raise refuse("FunctionTransformation", bad, "a text (str)", getattr(self, bad))
        check_choice(self.expected, EXPECTED, "FunctionTransformation", "expected")
        if not self.name.strip():
            object.__setattr__(self, "name", getattr(self.fn, "__name__", "T") or "T")
        if not self.description:
            object.__setattr__(self, "description", f"apply {self.name}")

    def __call__(self, x: str) -> str:
        return self.fn(x)


def as_transformation(t: Callable[[str], str]) -> Transformation:
    """A :class:`Transformation` as is; any other callable wrapped in :class:`FunctionTransformation`."""
    if isinstance(t, Transformation):
        return t
    if not callable(t) or isinstance(t, type):
        raise refuse("as_transformation", "transform", "a callable str -> str", t)
    return FunctionTransformation(t)


def apply(t: Callable[[str], str], texts: Sequence[str]) -> tuple[list[str | None], np.ndarray]:
    """Follow-ups of every text and which ones the transformation applied to.

    Returns:
        ``(follow_ups, applied)``: a list with ``None`` where ``t`` raised
        :class:`NotApplicable`, and a bool array ``(n,)``.
    """
    t = as_transformation(t)
    out: list[str | None] = []
    for x in check_texts(texts, "apply", "texts"):
        try:
            out.append(t(x))
        except NotApplicable:
            out.append(None)
    return out, np.array([o is not None for o in out], dtype=bool)


def check_table(table: Any, where: str, argument: str = "table") -> dict[str, list[str]]:
    """A word table ``{word: replacement or [replacements]}``: non-empty words, non-empty replacement lists."""
    if not isinstance(table, Mapping) or not table:
        raise refuse(where, argument, "a non-empty word list {word: replacement or [replacements]}", table)
    out: dict[str, list[str]] = {}
    for key, value in table.items():
        check_word(key, where, f"{argument} key")
        options = [value] if isinstance(value, str) else value
        if isinstance(options, (bytes, Mapping)) or not isinstance(options, (Sequence, np.ndarray)) or not options:
            raise refuse(where, f"{argument}[{key!r}]", "a text or a non-empty list of texts", value)
        for option in options:
            if not isinstance(option, str) or not option.strip():  # "" would leave a gap where the word was
                raise refuse(where, f"{argument}[{key!r}]", "a non-empty text or a non-empty list of them", value)
        out[key.lower()] = list(options)
    return out
