"""Concatenation: a fixed text added at the start or the end of the input (Manino et al. Table 1)."""

from __future__ import annotations

from dataclasses import dataclass

from mtlib.data.papers import MANINO_TABLE1
from mtlib.relations.errors import refuse
from mtlib.relations.transformations.base import Transformation, check_choice

__all__ = ["POSITIONS", "Concatenation", "manino_table1"]

POSITIONS = ("start", "end")


@dataclass(frozen=True)
class Concatenation(Transformation):
    """T(x): add a fixed text at the start or the end of the input (Manino et al. Table 1).

    Args:
        text: The text to add, e.g. ``"Thank you."`` (not empty, not only blanks).
        position: ``"start"`` or ``"end"``.
        name: Short id for tables and metric keys (defaults to a slug of the text).

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
        return f"{self.text} {x}" if self.position == "start" else f"{x} {self.text}"


def manino_table1() -> list[Concatenation]:
    """The six concatenations of Manino et al. Table 1 (ids T1..T6).

    Built from :data:`mtlib.data.papers.MANINO_TABLE1`.
    """
    return [Concatenation(text, pos, name=tid) for tid, text, pos, *_ in MANINO_TABLE1]
