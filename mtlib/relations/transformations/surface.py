"""Changes of surface form that should not change a text's meaning: typos, punctuation, letter case."""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from mtlib.relations.transformations.base import NotApplicable, Transformation, check_choice, check_int, rng_for
from mtlib.utils.inputs import check_seed

__all__ = ["Casing", "Punctuation", "Typos"]


@dataclass(frozen=True)
class Typos(Transformation):
    """Keyboard-free typos: swap two adjacent letters, or delete one, inside words of 4+ letters.

    Args:
        kind: ``"swap"``, ``"delete"`` or ``"mixed"`` (each typo picks one).
        n: Typos per input (at distinct positions), an integer >= 1.
        seed: With the text, seeds the choice of positions (an integer).

    Raises:
        MtlibInputError: a kind that is none of these, ``n`` or ``seed`` not an integer in [0, 2**32 - 1], ``n < 1``.
        NotApplicable: (on a call) no word of 4+ letters.

    Example:
        >>> Typos("swap", seed=0)("A wonderful film.") != "A wonderful film."
        True
    """

    kind: str = "swap"
    n: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        check_choice(self.kind, ("swap", "delete", "mixed"), "Typos", "kind")
        check_int(self.n, "Typos", "n", minimum=1)
        check_seed(self.seed, "Typos")

    @property
    def name(self) -> str:
        return f"typos_{self.kind}{self.n}"

    @property
    def description(self) -> str:
        what = {"swap": "swap two adjacent letters", "delete": "delete a letter", "mixed": "swap or delete letters"}
        return f"{what[self.kind]} ({self.n}x, seed {self.seed})"

    def __call__(self, x: str) -> str:
        # Positions p with x[p] and x[p+1] both inside a word of 4+ letters, not its first letter.
        spots = [
            p for m in re.finditer(r"[A-Za-z]{4,}", x) for p in range(m.start() + 1, m.end() - 1) if x[p] != x[p + 1]
        ]
        if not spots:
            raise NotApplicable(f"no word of 4+ letters to put a typo in: {x[:60]!r}")
        rng = rng_for(self.seed, x)
        chosen = sorted(rng.choice(len(spots), size=min(self.n, len(spots)), replace=False).tolist(), reverse=True)
        chars = list(x)
        for c in chosen:
            p = spots[c]
            kind = self.kind if self.kind != "mixed" else ("swap", "delete")[int(rng.integers(2))]
            if kind == "swap":
                chars[p], chars[p + 1] = chars[p + 1], chars[p]
            else:
                del chars[p]
        return "".join(chars)


@dataclass(frozen=True)
class Punctuation(Transformation):
    """Change punctuation.

    Args:
        mode: ``"strip"`` removes every punctuation mark (not applicable
            without one, nor to a text that is only punctuation: the follow-up
            would be empty); ``"exclaim"`` ends the text with ``"!"`` instead of
            its final ``.``/``?``/none (not applicable if it already ends with
            ``"!"``, or to a blank text).

    Example:
        >>> Punctuation("strip")("Great, isn't it?")
        "Great isn't it"
    """

    mode: str = "strip"

    def __post_init__(self) -> None:
        check_choice(self.mode, ("strip", "exclaim"), "Punctuation", "mode")

    @property
    def name(self) -> str:
        return f"punct_{self.mode}"

    @property
    def description(self) -> str:
        return "remove punctuation" if self.mode == "strip" else "end with '!'"

    def __call__(self, x: str) -> str:
        if self.mode == "strip":
            out = re.sub(r"\s+", " ", "".join(c for c in x if c not in string.punctuation or c == "'")).strip()
            if out == x:
                raise NotApplicable(f"no punctuation in {x[:60]!r}")
            if not out.strip("' "):
                raise NotApplicable(f"only punctuation: stripping it would leave no text: {x[:60]!r}")
            return out
        body = x.rstrip()
        if not body:
            raise NotApplicable("a blank text: nothing to end with '!'")
        if body.endswith("!"):
            raise NotApplicable(f"already ends with '!': {x[:60]!r}")
        return (body[:-1] if body[-1:] in ".?" else body) + "!"


@dataclass(frozen=True)
class Casing(Transformation):
    """Change letter case: ``"lower"``, ``"upper"`` or ``"title"`` (not applicable if nothing changes).

    Example:
        >>> Casing("upper")("Great film")
        'GREAT FILM'
    """

    mode: str = "lower"

    def __post_init__(self) -> None:
        check_choice(self.mode, ("lower", "upper", "title"), "Casing", "mode")

    @property
    def name(self) -> str:
        return f"case_{self.mode}"

    @property
    def description(self) -> str:
        return f"{self.mode} case"

    def __call__(self, x: str) -> str:
        out: str = getattr(x, self.mode)()
        if out == x:
            raise NotApplicable(f"already {self.mode} case: {x[:60]!r}")
        return out
