"""Changes of surface form that should not change a text's meaning: typos, punctuation, letter case."""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass

from mtlib.relations.transformations.base import NotApplicable, Transformation, check_choice, check_int, rng_for
from mtlib.relations.transformations.scripts import (
    is_unspaced,
    letter_clusters,
    script_label,
    script_name,
    unspaced_script,
)
from mtlib.utils.faces import renamed_attribute, renamed_keywords
from mtlib.utils.inputs import check_seed

__all__ = ["Casing", "Punctuation", "Typos"]


@renamed_keywords(kind="typo")
@dataclass(frozen=True, init=False)
class Typos(Transformation):
    """Keyboard-free typos: swap two adjacent letters, or delete one, inside words of 4+ letters.

    Scripts: a letter is any Unicode letter (:meth:`str.isalpha`: Latin with ß and umlauts, Cyrillic, Greek,
    Arabic, Hebrew, Devanagari ...) with the combining marks that follow it (an Arabic vowel sign moves with its
    letter), and a word is a run of letters (:func:`~.scripts.letter_clusters`). Scripts without spaces between
    words (Chinese, Japanese, Thai ...; :data:`~.scripts.UNSPACED_SCRIPTS`) have no word rule here: a text with
    no other word of 4+ letters is refused naming its script.

    Args:
        typo: Which typo: ``"swap"``, ``"delete"`` or ``"mixed"`` (each typo picks one).
        n: Typos per input (at distinct positions), an integer >= 1.
        seed: With the text, seeds the choice of positions (an integer).
        kind: Deprecated name of ``typo``, as a keyword and an attribute (a :class:`DeprecationWarning`; goes in
            the next release).

    Raises:
        MtlibInputError: a ``typo`` that is none of these, ``n`` or ``seed`` not an integer in [0, 2**32 - 1],
            ``n < 1``.
        NotApplicable: (on a call) no word of 4+ letters (naming the script when the text is written without
            spaces between words).

    Example:
        >>> Typos("swap", seed=0)("A wonderful film.") != "A wonderful film."
        True
    """

    typo: str = "swap"
    n: int = 1
    seed: int = 0

    def __init__(self, typo: str = "swap", n: int = 1, seed: int = 0) -> None:
        object.__setattr__(self, "typo", typo)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "seed", seed)
        check_choice(self.typo, ("swap", "delete", "mixed"), "Typos", "typo")
        check_int(self.n, "Typos", "n", minimum=1)
        check_seed(self.seed, "Typos")

    kind = renamed_attribute("Typos.kind", "typo")

    @property
    def name(self) -> str:
        return f"typos_{self.typo}{self.n}"

    @property
    def description(self) -> str:
        what = {"swap": "swap two adjacent letters", "delete": "delete a letter", "mixed": "swap or delete letters"}
        return f"{what[self.typo]} ({self.n}x, seed {self.seed})"

    def __call__(self, x: str) -> str:
        # Spots: clusters (a letter and its marks) k and k+1 both inside a word of 4+ letters, k not its first.
        spots = [
            (w[k], w[k + 1])
            for w in letter_clusters(x)
            if len(w) >= 4
            for k in range(1, len(w) - 1)
            if x[slice(*w[k])] != x[slice(*w[k + 1])]
        ]
        if not spots:
            script = unspaced_script(x)
            if script:
                raise NotApplicable(
                    f"Typos: {x[:60]!r} is written in {script}, which has no spaces between words; Typos has no word "
                    "rule for it (it puts typos in words of 4+ letters of scripts that separate words by spaces)"
                )
            raise NotApplicable(f"no word of 4+ letters to put a typo in: {x[:60]!r}")
        rng = rng_for(self.seed, x)
        chosen = sorted(rng.choice(len(spots), size=min(self.n, len(spots)), replace=False).tolist(), reverse=True)
        out = x
        for c in chosen:  # right to left, so the positions on the left stay valid
            (a, b), (_, e) = spots[c]
            typo = self.typo if self.typo != "mixed" else ("swap", "delete")[int(rng.integers(2))]
            out = out[:a] + out[b:e] + out[a:b] + out[e:] if typo == "swap" else out[:a] + out[b:]
        return out


@dataclass(frozen=True)
class Punctuation(Transformation):
    """Change punctuation.

    Scripts: every script. A punctuation mark is an ASCII one (:data:`string.punctuation`, as before) or any
    Unicode punctuation (category P: « » „ “ ¿ ¡, the Greek question mark, Arabic ، ؟ ؛, CJK 。，！？),
    except the apostrophes ``'`` and ``’`` (inside words: ``isn't``). ``"exclaim"`` replaces a final full stop
    or question mark of any of these scripts (``.`` ``?`` ``;`` after Greek, ``؟`` ``。`` ``？`` ``।``) by the
    script's own exclamation mark (full-width ``！`` after ``。``/``？``), and a Spanish ``¿`` opening the last
    question by ``¡``.

    Args:
        mode: ``"strip"`` removes every punctuation mark (not applicable
            without one, nor to a text that is only punctuation: the follow-up
            would be empty); ``"exclaim"`` ends the text with ``"!"`` instead of
            its final ``.``/``?``/none (not applicable if it already ends with
            ``"!"`` or ``"！"``, or to a blank text).

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
            out = re.sub(r"\s+", " ", "".join(c for c in x if not _is_punctuation(c))).strip()
            if out == x:
                raise NotApplicable(f"no punctuation in {x[:60]!r}")
            if not out.strip("'’ "):
                raise NotApplicable(f"only punctuation: stripping it would leave no text: {x[:60]!r}")
            return out
        body = x.rstrip()
        if not body:
            raise NotApplicable("a blank text: nothing to end with '!'")
        if body[-1] in "!！":
            raise NotApplicable(f"already ends with {body[-1]!r}: {x[:60]!r}")
        return _exclaimed(body)


#: Apostrophes: kept by Punctuation("strip") (they sit inside words: isn't, l’été).
_APOSTROPHES = "'’"
#: A final mark Punctuation("exclaim") replaces -> the exclamation mark that replaces it.
_FINAL_MARKS = {".": "!", "?": "!", "؟": "!", "।": "!", "。": "！", "？": "！", "．": "！"}


def _is_punctuation(c: str) -> bool:
    """An ASCII punctuation mark or a Unicode one (category P*), but not an apostrophe."""
    return c not in _APOSTROPHES and (c in string.punctuation or unicodedata.category(c).startswith("P"))


def _exclaimed(body: str) -> str:
    """``body`` (no trailing blank, not ending in an exclamation mark) ending with its script's ``!``."""
    last = body[-1]
    letters = [c for c in body if c.isalpha()]
    if last in (";", "\u037e") and letters and script_name(letters[-1]) == "GREEK":  # the Greek question mark
        return body[:-1] + "!"
    if last not in _FINAL_MARKS:
        return body + ("！" if letters and is_unspaced(letters[-1]) else "!")
    out = body[:-1] + _FINAL_MARKS[last]
    start = max(out.rfind(m, 0, len(out) - 1) for m in ".!?") + 1  # the last sentence
    opening = out.find("¿", start)
    return out[:opening] + "¡" + out[opening + 1 :] if last == "?" and opening >= 0 else out


@dataclass(frozen=True)
class Casing(Transformation):
    """Change letter case: ``"lower"``, ``"upper"`` or ``"title"`` (not applicable if nothing changes).

    Scripts: Python's Unicode case rules (:meth:`str.lower` ...): Latin (``"straße".upper()`` is ``"STRASSE"``,
    the standard German capitals), Cyrillic, Greek (a final sigma lower-cases to ς), Armenian ... Scripts without
    letter case (Chinese, Arabic, Hebrew, Devanagari ...) are refused naming the script. Language-specific rules
    that need a locale (Turkish dotted İ) are not applied.

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
            letters = [c for c in x if c.isalpha()]
            if letters and not any(c.lower() != c.upper() for c in letters):
                scripts = sorted({script_label(c) for c in letters})
                raise NotApplicable(
                    f"Casing: {x[:60]!r} is written in {' and '.join(scripts)}, which has no letter case"
                )
            raise NotApplicable(f"already {self.mode} case: {x[:60]!r}")
        return out
