"""Concatenation: a fixed text added at the start or the end of the input (Manino et al. Table 1)."""

from __future__ import annotations

from dataclasses import dataclass

from mtlib.data.papers import MANINO_TABLE1
from mtlib.relations.errors import refuse
from mtlib.relations.transformations.base import Transformation, check_choice
from mtlib.relations.transformations.scripts import is_unspaced

__all__ = ["POSITIONS", "Concatenation", "manino_table1"]

POSITIONS = ("start", "end")


@dataclass(frozen=True)
class Concatenation(Transformation):
    """T(x): add a fixed text at the start or the end of the input (Manino et al. Table 1).

    Args:
        text: The text to add, e.g. ``"Thank you."`` (not empty, not only blanks).
        position: ``"start"`` or ``"end"``.
        name: Short id for tables and metric keys (defaults to a slug of the text).

    Scripts: any. The two texts are joined by a space, except where both sides of the join are written in a
    script without spaces between words (Chinese, Japanese, Thai; their punctuation such as 。 included), which
    are joined as they are (``谢谢。这部电影很好。``).

    Raises:
        MtlibInputError: an empty or non-text ``text``, an unknown position
            (the message lists ``start``/``end``), a name that is not a text.

    Example:
        >>> Concatenation("Thank you.", "start")("The film was long.")
        'Thank you. The film was long.'
    """

    text: str
    position: str = "end"
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise refuse("Concatenation", "text", "a non-empty text (str)", self.text)
        if not isinstance(self.name, str) or (self.name and not self.name.strip()):
            raise refuse("Concatenation", "name", "a text (str; empty for a name made from the text)", self.name)
        pos = self.position.strip().lower() if isinstance(self.position, str) else self.position
        object.__setattr__(self, "position", check_choice(pos, POSITIONS, "Concatenation", "position"))
        if not self.name.strip():
            slug = "".join(c if c.isalnum() else "_" for c in self.text.lower()).strip("_")
            words = "_".join(w for w in slug.split("_") if w)[:40] or f"{len(self.text)}_marks"
            object.__setattr__(self, "name", f"{pos}:{words}")

    @property
    def description(self) -> str:
        return f"add {self.text!r} at the {self.position}"

    def __call__(self, x: str) -> str:
        first, second = (self.text, x) if self.position == "start" else (x, self.text)
        left, right = first.rstrip()[-1:], second.lstrip()[:1]
        if left and right and _unspaced_side(left) and _unspaced_side(right):
            return first.rstrip() + second.lstrip()
        return f"{first} {second}"


def _unspaced_side(ch: str) -> bool:
    """A letter of a script without spaces, or CJK / full-width punctuation (U+3000-303F, U+FF00-FFEF)."""
    return is_unspaced(ch) or (not ch.isalnum() and ("\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"))


def manino_table1() -> list[Concatenation]:
    """The six concatenations of Manino et al. Table 1 (ids T1..T6).

    Built from :data:`mtlib.data.papers.MANINO_TABLE1`.
    """
    return [Concatenation(text, pos, name=tid) for tid, text, pos, *_ in MANINO_TABLE1]
