"""Inputs from templates: every combination of slot fillers, or a seeded sample of them.

A template is a sentence with named slots, ``"The {adj} film was {verb}."``;
each slot gets a list of fillers, and :func:`template` writes out every
combination (the Cartesian product, in the order the slots are given) or a
seeded sample of ``n`` of them, one row per sentence with a ``text`` column
and one column per slot (so a test can read, say, the adjective behind each
failing sentence). Fillers can come from the word lists the papers use, by
name: :func:`lexicon` (``LEXICONS`` lists the names; the Montague lists read
the repository's ``data/`` folder, so an installed wheel has ``names`` and
``manino-table1`` only).

A template can carry labels (``label=``): a constant, a table from one
slot's fillers to labels (``{"adj": {"great": "positive", "awful":
"negative"}}``), one label per row, or a function of the fillers
(``lambda adj, **_: ...``); the frame then has a ``label`` column, which an
``MFT()`` without a label of its own reads, so an MFT needs no hand-built
list of expected labels.

The product of the fillers is refused above :data:`MAX_ROWS` rows (the
message gives the number; three slots of 1,000 fillers make 10^9 rows and
many GB): pass ``sample=n`` to draw n rows, which never writes out the
product (the rows are drawn as indices into it), or raise ``max_rows``.

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
import math
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data.adjectives import load_words
from mtlib.data.papers import MANINO_TABLE1
from mtlib.relations import transformations
from mtlib.relations.errors import MtlibInputError, refuse

__all__ = ["LEXICONS", "MAX_ROWS", "Template", "lexicon", "template"]

#: Most rows a template writes out without ``sample=`` (or a larger ``max_rows``).
MAX_ROWS = 1_000_000


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
        raise MtlibInputError(f"no lexicon {name!r}; known: {sorted(LEXICONS)}", argument="name")
    try:
        return list(LEXICONS[name][1]())
    except FileNotFoundError as err:  # the installed wheel carries the code, not the repository's data/ folder
        raise FileNotFoundError(
            f"lexicon {name!r} reads the repository's data/ folder, which an installed wheel does not carry "
            f"({err}): run from a clone of the repository, or give the words as a list"
        ) from err


def _slots(pattern: str) -> list[str]:
    try:
        names = [f for _, f, _, _ in string.Formatter().parse(pattern) if f is not None]
    except ValueError as err:  # an unbalanced brace
        raise MtlibInputError(f"template {pattern!r}: {err} (write a literal brace as {{{{ or }}}})") from err
    bad = [f for f in names if not f.isidentifier()]
    if bad:
        raise MtlibInputError(f"template slots must be plain names like {{adj}}, got {bad} in {pattern!r}")
    return list(dict.fromkeys(names))


def _check_int(value: Any, argument: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise refuse("template", argument, f"an integer >= {least}", value)
    return int(value)


@dataclass(frozen=True)
class Template:
    """A template and its fillers: a generator a suite can save (pattern, fillers, sample, seed, label).

    Args:
        pattern: Text with named slots, ``"The {adj} film was {verb}."``.
        fillers: Slot name -> its fillers (a non-empty list of strings, or a lexicon name).
        sample: Keep a seeded sample of this many combinations (``None``: all).
        seed: Seeds the sample.
        label: ``None``; a constant; ``{slot: {filler: label}}``; one label per row; or a
            function called with the row's fillers as keywords (see the module docstring).
        max_rows: Most rows written out without ``sample`` (default :data:`MAX_ROWS`).

    Raises:
        MtlibInputError: when built: a pattern that is not a text, fillers that are not lists of
            texts, a sample or seed that is not a non-negative integer.
    """

    pattern: str
    fillers: dict[str, Any] = field(default_factory=dict)
    sample: int | None = None
    seed: int = 0
    label: Any = None
    max_rows: int = MAX_ROWS

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, str):
            raise refuse("template", "pattern", "a text with named slots (str)", self.pattern)
        if not isinstance(self.fillers, Mapping):
            raise refuse("template", "fillers", "a mapping slot -> list of fillers", self.fillers)
        for slot, value in self.fillers.items():
            if isinstance(value, str):
                continue  # a lexicon name, looked up when written out
            if isinstance(value, (bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray, pd.Series)):
                raise refuse("template", slot, "a list of texts or a lexicon name", value)
            if not len(value):
                raise refuse("template", slot, "a non-empty list of texts", value)
            bad = next((v for v in value if not isinstance(v, str)), None)
            if bad is not None or any(not isinstance(v, str) for v in value):
                raise refuse("template", f"{slot} filler", "a text (str)", bad)
        if self.sample is not None:
            _check_int(self.sample, "sample", 0)
        _check_int(self.seed, "seed", 0)
        _check_int(self.max_rows, "max_rows", 1)

    def words(self, slot: str) -> list[str]:
        """The fillers of one slot (a lexicon name is looked up)."""
        value = self.fillers[slot]
        return lexicon(value) if isinstance(value, str) else list(value)

    def size(self) -> int:
        """Rows :meth:`frame` writes: the sample, or the product of the fillers (computed, not written out).

        Raises:
            MtlibInputError: a slot without fillers, a filler for no slot, fillers that make a blank text.
        """
        slots = self._checked_slots()
        lists = [self.words(s) for s in slots]
        self._check_not_blank(slots, lists)
        total = math.prod(len(w) for w in lists)
        return total if self.sample is None else self.sample

    def _check_not_blank(self, slots: list[str], lists: list[list[str]]) -> None:
        """Refuse fillers that make an empty or whitespace-only text (checked without writing the rows out)."""
        literal = "".join(text for text, *_ in string.Formatter().parse(self.pattern))
        if literal.strip():
            return  # every row holds the pattern's own words
        blanks = [[w for w in words if not w.strip()] for words in lists]
        if all(blanks):
            made = ", ".join(f"{slot}={b[0]!r}" for slot, b in zip(slots, blanks)) or "no filler"
            raise MtlibInputError(
                f"template {self.pattern!r}: {made} makes a blank text (empty or whitespace only), which tests "
                f"nothing; drop the blank fillers",
                argument="fillers",
                expected="fillers that make non-blank texts",
            )

    def _checked_slots(self) -> list[str]:
        slots = _slots(self.pattern)
        missing = [s for s in slots if s not in self.fillers]
        extra = [s for s in self.fillers if s not in slots]
        if missing:
            example = ", ".join(f"{slot}=[...]" for slot in missing)
            raise MtlibInputError(
                f"template {self.pattern!r}: slot(s) {missing} have no fillers (fillers given for "
                f"{sorted(self.fillers)}); expected one list of fillers per slot, as keywords: "
                f"template({self.pattern!r}, ..., {example}), each a non-empty list of texts or a lexicon name "
                f"({', '.join(sorted(LEXICONS))})",
                argument="fillers",
                expected=f"fillers for every slot of the pattern: {slots}",
            )
        if extra:
            raise MtlibInputError(
                f"template {self.pattern!r}: fillers for {extra}, which the pattern has no slot for (its slots: "
                f"{slots}); expected a {{name}} in the pattern for each filler list, or drop the list",
                argument="fillers",
                expected=f"fillers only for the pattern's slots: {slots}",
            )
        return slots

    def _combos(self, slots: list[str], lists: list[list[str]]) -> Sequence[tuple[str, ...]]:
        """Every combination in product order, or a seeded sample of them drawn as indices (never all written)."""
        sizes = [len(w) for w in lists]
        total = math.prod(sizes)
        shape = " x ".join(f"{n:,}" for n in sizes) or "1"
        if self.sample is None:
            if total > self.max_rows:
                raise MtlibInputError(
                    f"template {self.pattern!r} makes {total:,} rows ({shape} fillers), more than max_rows="
                    f"{self.max_rows:,}: pass sample=n to draw n of them (the product is never written out), "
                    f"or a larger max_rows",
                    argument="sample",
                )
            return list(itertools.product(*lists))
        if self.sample > total:
            raise MtlibInputError(f"sample={self.sample:,}, but the template has {total:,} combinations ({shape})")
        if self.sample > self.max_rows:
            raise MtlibInputError(f"sample={self.sample:,} is more than max_rows={self.max_rows:,}", argument="sample")
        if total >= 2**63:
            raise MtlibInputError(f"template {self.pattern!r} has {total:,} combinations: too many to sample from")
        picks = np.sort(np.random.default_rng(self.seed).choice(total, size=self.sample, replace=False))
        return [tuple(w[i] for w, i in zip(lists, np.unravel_index(p, sizes))) for p in picks]

    def frame(self) -> pd.DataFrame:
        """One row per sentence: ``text``, one column per slot and ``label`` if labelled, shape ``(n, 1 + slots)``.

        Raises:
            MtlibInputError: a slot without fillers, a filler for no slot, fillers that make a blank text,
                a product above ``max_rows`` without ``sample``, a sample larger than the combinations, a
                label that does not fit.
        """
        slots = self._checked_slots()
        lists = [self.words(s) for s in slots]
        self._check_not_blank(slots, lists)
        combos = self._combos(slots, lists)
        rows = [{"text": self.pattern.format(**dict(zip(slots, c))), **dict(zip(slots, c))} for c in combos]
        frame = pd.DataFrame(rows, columns=["text", *slots])
        if self.label is not None:
            frame["label"] = _labels(self.label, frame, slots)
        return frame

    def to_json(self) -> dict[str, Any]:
        """The template as plain JSON values (a function label is saved as the labels it gave)."""
        fillers = {k: (v if isinstance(v, str) else [str(x) for x in v]) for k, v in self.fillers.items()}
        out: dict[str, Any] = {"pattern": self.pattern, "fillers": fillers, "sample": self.sample, "seed": self.seed}
        if self.label is not None:
            out["label"] = _label_to_json(self)
        if self.max_rows != MAX_ROWS:
            out["max_rows"] = self.max_rows
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Template:
        """The template :meth:`to_json` wrote."""
        label = data.get("label")
        if isinstance(label, dict):
            form = next((k for k in ("constant", "rows", "by_slot") if k in label), None)
            if form is None:
                raise MtlibInputError(f"template label: expected constant, rows or by_slot, got {sorted(label)}")
            label = label[form]
        return cls(
            data["pattern"],
            dict(data["fillers"]),
            data.get("sample"),
            data.get("seed", 0),
            label,
            data.get("max_rows", MAX_ROWS),
        )


def _labels(label: Any, frame: pd.DataFrame, slots: list[str]) -> list[Any]:
    """One label per row of ``frame`` from a constant, a per-row list, a slot's table or a function."""
    n = len(frame)
    if callable(label):
        return [label(**{s: row[s] for s in slots}) for _, row in frame.iterrows()]
    if isinstance(label, Mapping):
        if len(label) != 1 or next(iter(label)) not in slots or not isinstance(next(iter(label.values())), Mapping):
            raise refuse("template", "label", f"a table {{slot: {{filler: label}}}} for one of {slots}", label)
        slot, table = next(iter(label.items()))
        missing = sorted(set(frame[slot]) - set(table))
        if missing:
            raise MtlibInputError(
                f"template: label table for {slot!r} has no label for {missing[:5]}", argument="label"
            )
        return [table[w] for w in frame[slot]]
    if isinstance(label, (list, tuple, np.ndarray, pd.Series)):
        if len(label) != n:
            raise MtlibInputError(f"template: {len(label)} labels for {n} rows", argument="label")
        return list(label)
    return [label] * n


def _label_to_json(t: Template) -> dict[str, Any]:
    """``{"constant": x}``, ``{"by_slot": {...}}`` or ``{"rows": [...]}`` (a function's labels written out)."""
    if isinstance(t.label, Mapping):
        return {"by_slot": {str(k): dict(v) for k, v in t.label.items()}}
    if callable(t.label) or isinstance(t.label, (list, tuple, np.ndarray, pd.Series)):
        values = t.frame()["label"].tolist()
        return {"rows": [v.item() if isinstance(v, np.generic) else v for v in values]}
    return {"constant": t.label.item() if isinstance(t.label, np.generic) else t.label}


def template(
    pattern: str,
    *,
    sample: int | None = None,
    seed: int = 0,
    label: Any = None,
    max_rows: int = MAX_ROWS,
    **fillers: Sequence[str] | str,
) -> pd.DataFrame:
    """Every combination of the fillers in the pattern (or a seeded sample of ``sample`` of them).

    Args:
        pattern: Text with named slots, ``"The {adj} film was {verb}."``.
        sample: Keep this many combinations, drawn without replacement (kept in product order).
        seed: Seeds the sample.
        label: Labels of the rows (a ``label`` column): a constant, ``{slot: {filler: label}}``,
            one per row, or a function of the fillers (keywords).
        max_rows: Most rows written out without ``sample`` (default :data:`MAX_ROWS`).
        **fillers: One list of fillers per slot, or a lexicon name (see :data:`LEXICONS`).

    Returns:
        DataFrame ``text, <slot>... [, label]``, one row per sentence.

    Example:
        >>> template("{a} {b}", a=["x", "y"], b=["1", "2"], sample=2, seed=0).shape
        (2, 3)
        >>> rows = template("It was {adj}.", adj=["good", "bad"], label={"adj": {"good": "pos", "bad": "neg"}})
        >>> rows["label"].tolist()
        ['pos', 'neg']
    """
    return Template(pattern, dict(fillers), sample, seed, label, max_rows).frame()
