"""Inputs from templates: every combination of slot fillers, or a seeded sample of them.

A template is a sentence with named slots, ``"The {adj} film was {verb}."``;
each slot gets a list of fillers, and :func:`template` writes out every
combination (the Cartesian product, in the order the slots are given) or a
seeded sample of ``n`` of them, one row per sentence with a ``text`` column
and one column per slot (so a test can read, say, the adjective behind each
failing sentence). Fillers can come from the word lists the papers use, by
name: :func:`lexicon` (``LEXICONS`` lists the names).

Masked-LM fill-ins (CheckList's ``{mask}``) are not provided: no masked
language model ships with mtlib or is installed offline, and a stand-in that
invents words would not be one. Give the fillers as lists instead.

Example:
    >>> from mtlib.suite import generate
    >>> generate.template("The {adj} film was {verb}.", adj=["good", "bad"], verb=["long"])["text"].tolist()
    ['The good film was long.', 'The bad film was long.']
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data.adjectives import load_words
from mtlib.data.papers import MANINO_TABLE1
from mtlib.relations import transformations

__all__ = ["LEXICONS", "Template", "lexicon", "template"]


def _montague(*classes: str) -> Callable[[], list[str]]:
    def read() -> list[str]:
        words = load_words()
        return words.loc[words["class"].isin(classes), "word"].tolist()

    return read


#: Lexicon name -> (description, reader of its words, in file order).
LEXICONS: dict[str, tuple[str, Callable[[], list[str]]]] = {
    "montague-adjectives": (
        "every adjective of Carvalho et al., Appendix A",
        _montague("S-I", "S-NI", "NS-Pl", "NS-Pr", "A"),
    ),
    "montague-subsective": (
        "subsective adjectives (intersective and non-intersective), Carvalho et al.",
        _montague("S-I", "S-NI"),
    ),
    "montague-intersective": ("subsective intersective adjectives (S-I), Carvalho et al.", _montague("S-I")),
    "montague-non-intersective": ("subsective non-intersective adjectives (S-NI), Carvalho et al.", _montague("S-NI")),
    "montague-non-subsective": (
        "non-subsective adjectives (plain and privative), Carvalho et al.",
        _montague("NS-Pl", "NS-Pr"),
    ),
    "montague-plain": ("plain non-subsective adjectives (NS-Pl), Carvalho et al.", _montague("NS-Pl")),
    "montague-privative": ("privative non-subsective adjectives (NS-Pr), Carvalho et al.", _montague("NS-Pr")),
    "montague-ambiguous": ("ambiguous adjectives (A), Carvalho et al.", _montague("A")),
    "montague-nouns": ("the nouns of Carvalho et al., Appendix A", _montague("noun")),
    "names": (
        "the first names NameSwap recognises (mtlib.relations.transformations.NAMES)",
        lambda: list(transformations.NAMES),
    ),
    "manino-table1": (
        "the six neutral sentences of Manino et al., Table 1",
        lambda: [text for _, text, *_ in MANINO_TABLE1],
    ),
}


def lexicon(name: str) -> list[str]:
    """The words of a named lexicon, in file order (see :data:`LEXICONS`).

    Raises:
        KeyError: an unknown name (the message lists the known ones).

    Example:
        >>> lexicon("names")[:3]
        ['John', 'Mary', 'James']
    """
    if name not in LEXICONS:
        raise KeyError(f"no lexicon {name!r}; known: {sorted(LEXICONS)}")
    return list(LEXICONS[name][1]())


def _slots(pattern: str) -> list[str]:
    names = [f for _, f, _, _ in string.Formatter().parse(pattern) if f is not None]
    bad = [f for f in names if not f.isidentifier()]
    if bad:
        raise ValueError(f"template slots must be plain names like {{adj}}, got {bad} in {pattern!r}")
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class Template:
    """A template and its fillers: a generator a suite can save (pattern, fillers, sample, seed).

    Args:
        pattern: Text with named slots, ``"The {adj} film was {verb}."``.
        fillers: Slot name -> its fillers (a list of strings, or a lexicon name).
        sample: Keep a seeded sample of this many combinations (``None``: all).
        seed: Seeds the sample.
    """

    pattern: str
    fillers: dict[str, Any] = field(default_factory=dict)
    sample: int | None = None
    seed: int = 0

    def words(self, slot: str) -> list[str]:
        """The fillers of one slot (a lexicon name is looked up)."""
        value = self.fillers[slot]
        return lexicon(value) if isinstance(value, str) else [str(v) for v in value]

    def frame(self) -> pd.DataFrame:
        """One row per sentence: ``text`` and one column per slot, shape ``(n, 1 + slots)``.

        Raises:
            ValueError: a slot without fillers, a filler for no slot, or a sample larger than the combinations.
        """
        slots = _slots(self.pattern)
        missing = [s for s in slots if s not in self.fillers]
        extra = [s for s in self.fillers if s not in slots]
        if missing or extra:
            raise ValueError(f"template {self.pattern!r}: slots without fillers {missing}, fillers for no slot {extra}")
        lists = [self.words(s) for s in slots]
        total = int(np.prod([len(w) for w in lists])) if lists else 1
        if self.sample is None:
            combos: Sequence[tuple[str, ...]] = list(itertools.product(*lists))
        else:
            if not 0 <= self.sample <= total:
                raise ValueError(f"sample={self.sample}, but the template has {total} combinations")
            picks = np.sort(np.random.default_rng(self.seed).choice(total, size=self.sample, replace=False))
            combos = [tuple(w[i] for w, i in zip(lists, np.unravel_index(p, [len(w) for w in lists]))) for p in picks]
        rows = [{"text": self.pattern.format(**dict(zip(slots, c))), **dict(zip(slots, c))} for c in combos]
        return pd.DataFrame(rows, columns=["text", *slots])

    def to_json(self) -> dict[str, Any]:
        """The template as plain JSON values."""
        fillers = {k: (v if isinstance(v, str) else [str(x) for x in v]) for k, v in self.fillers.items()}
        return {"pattern": self.pattern, "fillers": fillers, "sample": self.sample, "seed": self.seed}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Template:
        """The template :meth:`to_json` wrote."""
        return cls(data["pattern"], dict(data["fillers"]), data.get("sample"), int(data.get("seed", 0)))


def template(pattern: str, *, sample: int | None = None, seed: int = 0, **fillers: Sequence[str] | str) -> pd.DataFrame:
    """Every combination of the fillers in the pattern (or a seeded sample of ``sample`` of them).

    Args:
        pattern: Text with named slots, ``"The {adj} film was {verb}."``.
        sample: Keep this many combinations, drawn without replacement (kept in product order).
        seed: Seeds the sample.
        **fillers: One list of fillers per slot, or a lexicon name (see :data:`LEXICONS`).

    Returns:
        DataFrame ``text, <slot>...``, one row per sentence.

    Example:
        >>> template("{a} {b}", a=["x", "y"], b=["1", "2"], sample=2, seed=0).shape
        (2, 3)
    """
    return Template(pattern, dict(fillers), sample, seed).frame()
