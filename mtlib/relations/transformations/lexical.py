"""Word-level changes: contractions, first names, numbers, synonyms from a word list the user gives."""

from __future__ import annotations

import re
import unicodedata
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
from mtlib.relations.transformations.scripts import find_words, replace_words, word_pattern
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


def _in_script_of(digits: str, like: str) -> str:
    """ASCII ``digits`` written with the digits of ``like``'s script (Arabic-Indic, Devanagari, full-width ...)."""
    zero = ord(like) - unicodedata.digit(like)
    return "".join(chr(zero + int(d)) for d in digits)


@dataclass(frozen=True)
class Contractions(Transformation):
    """Contract (``"do not"`` -> ``"don't"``) or expand (``"don't"`` -> ``"do not"``) every listed form.

    Scripts: the default table is English; a table of your own may be in any script (``{"zu dem": "zum"}``),
    matched as whole words (:func:`~.scripts.find_words`: as written inside a script without spaces) and
    without regard to case. A contraction is also found written with a typographic apostrophe (``don’t``). A text
    with none of the table's forms (any text in another language, for the default table) is not applicable.

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
        mapping = {a.casefold(): b for a, b in pairs}
        mapping |= {a.replace("'", "’"): b for a, b in mapping.items() if "'" in a}  # typographic apostrophe
        forms = sorted(set(mapping) | {a.lower() for a in mapping})
        pattern = word_pattern(forms, ignore_case=True, after="(?!['’])")
        out, count = replace_words(pattern, x, lambda m: match_case(mapping[m.group(0).casefold()], m.group(0)))
        if not count:
            raise NotApplicable(f"nothing to {self.mode}: {x[:60]!r}")
        return out


@dataclass(frozen=True)
class NameSwap(Transformation):
    """Replace every listed first name by another one from the list (seeded per input).

    Scripts: any. The default :data:`NAMES` are written in Latin letters, so a text in another script has none
    of them and is not applicable; give names in the text's script (``("Анна", "Иван")``, ``("张伟", "李娜")``).
    A name is matched as a whole word (``Анна`` is not found in ``Аннушка``), and, in a script without spaces
    between words (Chinese, Japanese, Thai), as written: there is no word edge to check.

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
        pattern = word_pattern(self.names)
        found = sorted({m.group(0) for m in find_words(pattern, x)})
        if not found:
            raise NotApplicable(f"no listed name in {x[:60]!r}")
        rng = rng_for(self.seed, x)
        swap = {}
        for f in found:
            others = [n for n in self.names if n != f]
            swap[f] = others[int(rng.integers(len(others)))]
        return replace_words(pattern, x, lambda m: swap[m.group(0)])[0]


@dataclass(frozen=True)
class NumberSwap(Transformation):
    """Replace every number (digits, or the words one..ten) by a different one (seeded per input).

    Scripts: digits of any script (Unicode decimal digits: ``3``, Arabic-Indic ``٣``, Devanagari ``३``,
    full-width ``３``), the new number written with the same script's digits; a number is a whole run of digits
    not glued to a letter of a spaced script (``mp3`` is no number; ``3次`` in Chinese is). Number words are
    English (one..ten) only: ``три``, ``drei``, ``三``, ``ثلاثة`` are not found, and a text with no digit and
    no English number word is not applicable.

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
        pattern = re.compile(r"\d+|" + word_pattern(_NUMBER_WORDS).pattern, re.IGNORECASE)
        if not find_words(pattern, x):
            raise NotApplicable(f"no number in {x[:60]!r} (digits of any script, or the English words one..ten)")
        rng = rng_for(self.seed, x)

        def repl(m: re.Match) -> str:
            tok = m.group(0)
            if tok.isdecimal() and len(tok) > 18:  # past int64 (and Python's int-from-text limit): a new first digit
                digits = [d for d in "123456789" if d != str(unicodedata.digit(tok[0]))]
                return _in_script_of(digits[int(rng.integers(len(digits)))], tok[0]) + tok[1:]
            if tok.isdecimal():
                v = int(tok)
                new = v + int(rng.integers(1, max(10, v // 2 + 2)))
                return str(new) if tok[0] in "0123456789" else _in_script_of(str(new), tok[0])
            words = [w for w in _NUMBER_WORDS if w != tok.lower()]
            return match_case(words[int(rng.integers(len(words)))], tok)

        return replace_words(pattern, x, repl)[0]


@dataclass(frozen=True)
class Synonyms(Transformation):
    """Replace words by synonyms from a word list the user gives (seeded choice among several).

    Scripts: any. The table's words are matched as whole words without regard to case, by Unicode case
    folding (``Straße`` and ``STRASSE`` find ``straße``; ``ΚΑΛΌΣ`` finds ``καλός``), and, in a script without
    spaces between words (Chinese, Japanese, Thai), as written: ``{"电影": "影片"}`` changes ``这部电影很好``
    (there is no word edge to check, so a listed word is also found inside a longer one).

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
        given = check_table(self.table, "Synonyms")
        table = {k.casefold(): v for k, v in given.items()}
        pattern = word_pattern(sorted(set(given) | set(table)), ignore_case=True)  # "straße" and "strasse"
        if not find_words(pattern, x):
            raise NotApplicable(f"no listed word in {x[:60]!r}")
        rng = rng_for(self.seed, x)

        def repl(m: re.Match) -> str:
            options = table[m.group(0).casefold()]
            return match_case(options[int(rng.integers(len(options)))], m.group(0))

        return replace_words(pattern, x, repl)[0]
