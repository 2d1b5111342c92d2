"""Letters, words and scripts for the transformations: Unicode letters are letters, whatever the script.

Intuition: a rule written for English (``[A-Za-z]{4,}``, ``\\b`` around a listed word) misreads other scripts:
Russian words have no ASCII letter, and Chinese has no space (nor any ``\\b``) between words, so a listed word
inside a Chinese sentence is never found. The transformations share these helpers instead:

- a *letter* is a character with :meth:`str.isalpha` (Latin with ß and umlauts, Cyrillic, Greek, Arabic,
  Hebrew, Devanagari, Han ...), and a letter's *cluster* is the letter with the combining marks that follow it
  (an Arabic vowel sign, a decomposed umlaut), so a typo never splits a mark from its letter;
- a script *without spaces between words* (:data:`UNSPACED_SCRIPTS`: Han, Hiragana, Katakana, Thai, Lao,
  Khmer, Myanmar) has no honest word rule without a dictionary: a listed word is found there as it is written
  (a substring), and a transformation that needs words of its own (Typos) refuses such text naming the script;
- a listed word of a spaced script is matched whole (no letter or digit of a spaced script on either side).

Example:
    >>> script_name("ж"), script_name("电"), unspaced_script("这部电影很好")
    ('CYRILLIC', 'CJK', 'Han (CJK ideographs)')
    >>> len(find_words(word_pattern(["电影"]), "这部电影很好")), len(find_words(word_pattern(["film"]), "films"))
    (1, 0)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

__all__ = [
    "UNSPACED_SCRIPTS",
    "find_words",
    "is_unspaced",
    "letter_clusters",
    "replace_words",
    "script_label",
    "script_name",
    "unspaced_script",
    "word_pattern",
]

#: Scripts written without spaces between words: the first word of a character's Unicode name -> a name for
#: messages. No transformation here has a dictionary to cut their text into words.
UNSPACED_SCRIPTS = {
    "CJK": "Han (CJK ideographs)",
    "HIRAGANA": "Hiragana (Japanese)",
    "KATAKANA": "Katakana (Japanese)",
    "THAI": "Thai",
    "LAO": "Lao",
    "KHMER": "Khmer",
    "MYANMAR": "Myanmar",
}


def script_name(ch: str) -> str:
    """The first word of the character's Unicode name (``LATIN``, ``CYRILLIC``, ``CJK`` ...); "" when unnamed."""
    try:
        return unicodedata.name(ch).split(" ", 1)[0]
    except ValueError:
        return ""


def script_label(ch: str) -> str:
    """The script of ``ch`` for a message: ``Cyrillic``, ``Arabic``, ``Han (CJK ideographs)`` ...

    Example:
        >>> script_label("ж"), script_label("电")
        ('Cyrillic', 'Han (CJK ideographs)')
    """
    name = script_name(ch)
    return UNSPACED_SCRIPTS.get(name, name.title() or f"U+{ord(ch):04X}")


def is_unspaced(ch: str) -> bool:
    """A letter of a script without spaces between words (:data:`UNSPACED_SCRIPTS`)."""
    return ch.isalpha() and script_name(ch) in UNSPACED_SCRIPTS


def unspaced_script(text: str) -> str | None:
    """The name of the first script without spaces between words that ``text`` is written in; None if none."""
    for ch in text:
        if is_unspaced(ch):
            return UNSPACED_SCRIPTS[script_name(ch)]
    return None


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch).startswith("M")


def letter_clusters(text: str) -> list[list[tuple[int, int]]]:
    """The words of ``text`` as lists of letter clusters ``(start, end)`` (a letter and its combining marks).

    A word is a maximal run of clusters of a spaced script; letters of :data:`UNSPACED_SCRIPTS` end a word
    and are not part of one (they have no word boundaries to find).

    Example:
        >>> [[text[a:b] for a, b in w] for text in ["Straße ok"] for w in letter_clusters(text)]
        [['S', 't', 'r', 'a', 'ß', 'e'], ['o', 'k']]
    """
    words: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isalpha() and not is_unspaced(ch):
            end = i + 1
            while end < len(text) and _is_mark(text[end]):
                end += 1
            current.append((i, end))
            i = end
            continue
        if current:
            words.append(current)
            current = []
        i += 1
    if current:
        words.append(current)
    return words


def _joins(left: str, right: str) -> bool:
    """Two neighbours inside one word of a spaced script (letters, digits or ``_`` of a script with spaces)."""
    return all((c.isalnum() or c == "_") and not is_unspaced(c) for c in (left, right))


def word_pattern(words: Sequence[str], *, ignore_case: bool = False, after: str = "") -> re.Pattern[str]:
    """A regex of ``words`` as one alternation, longest first (so ``"do not"`` wins over ``"do"``).

    It finds the words anywhere; :func:`find_words` keeps the matches that are whole words. ``after`` is a
    lookahead every match must pass (e.g. ``"(?!['’])"``).
    """
    alternation = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(f"(?:{alternation}){after}", re.IGNORECASE if ignore_case else 0)


def find_words(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """The matches of ``pattern`` in ``text`` that are whole words, in any script.

    A match is kept unless a letter or digit of a spaced script touches it across its edge inside one word:
    ``film`` is not found in ``films``, ``Анна`` not in ``Аннушка``, while ``电影`` is found in ``这部电影很好``
    (a script without spaces has no word edge to check) and ``Anna`` in ``我和Anna去``.

    Example:
        >>> [m.group(0) for m in find_words(word_pattern(["Анна", "电影"]), "Аннушка и Анна: 这部电影很好")]
        ['Анна', '电影']
    """
    out = []
    for m in pattern.finditer(text):
        a, b = m.start(), m.end()
        if a == b or (a > 0 and _joins(text[a - 1], text[a])) or (b < len(text) and _joins(text[b - 1], text[b])):
            continue
        out.append(m)
    return out


def replace_words(pattern: re.Pattern[str], text: str, new: Callable[[re.Match[str]], str]) -> tuple[str, int]:
    """``text`` with each whole-word match of ``pattern`` (:func:`find_words`) replaced by ``new(match)``.

    Returns:
        The new text and the number of words replaced.
    """
    found = find_words(pattern, text)
    parts, last = [], 0
    for m in found:
        parts += [text[last : m.start()], new(m)]
        last = m.end()
    return "".join(parts) + text[last:], len(found)
