"""Word-level changes: contractions, first names, numbers, synonyms from a word list the user gives."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mtlib.relations.errors import refuse
from mtlib.relations.transformations.base import (
    NotApplicable,
    Transformation,
    check_choice,
    check_name,
    check_table,
    check_word,
    match_case,
    rng_for,
)
from mtlib.utils.inputs import check_seed

__all__ = ["CONTRACTIONS", "NAMES", "Contractions", "NameSwap", "NumberSwap", "Synonyms"]

#: Expansion -> contraction (lower case). Written here from common English usage.
CONTRACTIONS = {
    "is not": "isn't",
    "are not": "aren't",
    "was not": "wasn't",
    "were not": "weren't",
    "do not": "don't",
    "does not": "doesn't",
    "did not": "didn't",
    "cannot": "can't",
    "will not": "won't",
    "would not": "wouldn't",
    "could not": "couldn't",
    "should not": "shouldn't",
    "have not": "haven't",
    "has not": "hasn't",
    "had not": "hadn't",
    "it is": "it's",
    "that is": "that's",
    "there is": "there's",
    "i am": "i'm",
    "you are": "you're",
    "we are": "we're",
    "they are": "they're",
    "i have": "i've",
    "i will": "i'll",
    "let us": "let's",
    "what is": "what's",
}

#: First names swapped by :class:`NameSwap` (a small, mixed list written here).
NAMES = (
    "John",
    "Mary",
    "James",
    "Anna",
    "David",
    "Maria",
    "Michael",
    "Sarah",
    "Ahmed",
    "Mei",
    "Carlos",
    "Priya",
    "Tom",
    "Emma",
    "Kenji",
    "Fatima",
)

_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _alternation(words: Sequence[str]) -> str:
    """A regex alternation of whole words, longest first (so ``"do not"`` wins over ``"do"``)."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


@dataclass(frozen=True)
class Contractions(Transformation):
    """Contract (``"do not"`` -> ``"don't"``) or expand (``"don't"`` -> ``"do not"``) every listed form.

    Args:
        mode: ``"contract"`` or ``"expand"``.
        table: Expansion -> contraction, lower case; defaults to :data:`CONTRACTIONS`.

    Raises:
        MtlibInputError: an unknown mode, an empty table, an empty form in it.
        NotApplicable: (on a call) nothing to contract / expand.

    Example:
        >>> Contractions("contract")("They do not care.")
        "They don't care."
    """

    mode: str = "contract"
    table: Mapping[str, str] = field(default_factory=lambda: dict(CONTRACTIONS))

    def __post_init__(self) -> None:
        check_choice(self.mode, ("contract", "expand"), "Contractions", "mode")
        for long, short in check_table(self.table, "Contractions").items():
            if len(short) != 1:
                raise refuse("Contractions", f"table[{long!r}]", "one contraction (str)", self.table[long])
            check_word(short[0], "Contractions", f"table[{long!r}]")

    @property
    def name(self) -> str:
        return self.mode

    @property
    def description(self) -> str:
        return "contract e.g. 'do not' to \"don't\"" if self.mode == "contract" else "expand e.g. \"don't\" to 'do not'"

    def __call__(self, x: str) -> str:
        pairs = self.table.items() if self.mode == "contract" else ((b, a) for a, b in self.table.items())
        mapping = {a.lower(): b for a, b in pairs}
        pattern = re.compile(r"\b(" + _alternation(list(mapping)) + r")(?![\w'])", re.IGNORECASE)
        out, count = pattern.subn(lambda m: match_case(mapping[m.group(0).lower()], m.group(0)), x)
        if not count:
            raise NotApplicable(f"nothing to {self.mode}: {x[:60]!r}")
        return out


@dataclass(frozen=True)
class NameSwap(Transformation):
    """Replace every listed first name by another one from the list (seeded per input).

    Args:
        names: The names that are recognised and drawn from (at least two
            distinct non-empty words); defaults to :data:`NAMES`.
        seed: With the text, seeds the replacement (an integer).
        name: Short id.

    Raises:
        MtlibInputError: fewer than two names, an empty or non-text name, a seed not in [0, 2**32 - 1].
        NotApplicable: (on a call) no listed name in the input.

    Example:
        >>> NameSwap(("Anna", "Tom"))("Anna liked it.")
        'Tom liked it.'
    """

    names: tuple[str, ...] = NAMES
    seed: int = 0
    name: str = "name_swap"

    def __post_init__(self) -> None:
        names = self.names
        if isinstance(names, (str, bytes, Mapping)) or not isinstance(names, Sequence):
            raise refuse("NameSwap", "names", "a list of at least two first names", names)
        for i, n in enumerate(names):
            check_word(n, "NameSwap", f"names[{i}]")
        if len(set(names)) < 2:
            raise refuse("NameSwap", "names", "a list of at least two distinct first names", names)
        object.__setattr__(self, "names", tuple(names))
        check_seed(self.seed, "NameSwap")
        check_name(self.name, "NameSwap")

    @property
    def description(self) -> str:
        return f"swap first names ({len(self.names)} listed, seed {self.seed})"

    def __call__(self, x: str) -> str:
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, self.names)) + r")\b")
        found = sorted(set(pattern.findall(x)))
        if not found:
            raise NotApplicable(f"no listed name in {x[:60]!r}")
        rng = rng_for(self.seed, x)
        swap = {}
        for f in found:
            others = [n for n in self.names if n != f]
            swap[f] = others[int(rng.integers(len(others)))]
        return pattern.sub(lambda m: swap[m.group(0)], x)


@dataclass(frozen=True)
class NumberSwap(Transformation):
    """Replace every number (digits, or the words one..ten) by a different one (seeded per input).

    Raises:
        MtlibInputError: a seed outside [0, 2**32 - 1] or not an integer, an empty name.
        NotApplicable: (on a call) no number in the input.

    Example:
        >>> NumberSwap()("I saw it 2 times.") != "I saw it 2 times."
        True
    """

    seed: int = 0
    name: str = "number_swap"

    def __post_init__(self) -> None:
        check_seed(self.seed, "NumberSwap")
        check_name(self.name, "NumberSwap")

    @property
    def description(self) -> str:
        return f"change numbers (digits and one..ten, seed {self.seed})"

    def __call__(self, x: str) -> str:
        pattern = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
        if not pattern.search(x):
            raise NotApplicable(f"no number in {x[:60]!r}")
        rng = rng_for(self.seed, x)

        def repl(m: re.Match) -> str:
            tok = m.group(0)
            if tok.isdigit() and len(tok) > 18:  # past int64 (and Python's int-from-text limit): a new first digit
                digits = [d for d in "123456789" if d != tok[0]]
                return digits[int(rng.integers(len(digits)))] + tok[1:]
            if tok.isdigit():
                v = int(tok)
                new = v + int(rng.integers(1, max(10, v // 2 + 2)))
                return str(new)
            words = [w for w in _NUMBER_WORDS if w != tok.lower()]
            return match_case(words[int(rng.integers(len(words)))], tok)

        return pattern.sub(repl, x)


@dataclass(frozen=True)
class Synonyms(Transformation):
    """Replace words by synonyms from a word list the user gives (seeded choice among several).

    Args:
        table: ``{word: synonym}`` or ``{word: [synonyms...]}`` (matched as
            whole words, case-insensitive; the case of the first letter is kept).
            Keys are non-empty words; every entry has at least one synonym.
        seed: With the text, seeds the choice among several synonyms.
        name: Short id.

    Raises:
        MtlibInputError: an empty table, an empty key, an entry that is not a text or a list of texts.
        NotApplicable: (on a call) no listed word in the input.

    Example:
        >>> Synonyms({"film": "movie"})("A good film.")
        'A good movie.'
    """

    table: Mapping[str, str | Sequence[str]] = field(default_factory=dict)
    seed: int = 0
    name: str = "synonyms"

    def __post_init__(self) -> None:
        check_table(self.table, "Synonyms")
        check_seed(self.seed, "Synonyms")
        check_name(self.name, "Synonyms")

    @property
    def description(self) -> str:
        return f"replace words by synonyms ({len(self.table)} listed)"

    def __call__(self, x: str) -> str:
        table = check_table(self.table, "Synonyms")
        pattern = re.compile(r"\b(" + _alternation(list(table)) + r")\b", re.IGNORECASE)
        if not pattern.search(x):
            raise NotApplicable(f"no listed word in {x[:60]!r}")
        rng = rng_for(self.seed, x)

        def repl(m: re.Match) -> str:
            options = table[m.group(0).lower()]
            return match_case(options[int(rng.integers(len(options)))], m.group(0))

        return pattern.sub(repl, x)
