"""Transformations T that make follow-up inputs: named, seeded, deterministic.

A metamorphic relation needs a transformation T from a source input x to a
follow-up x' = T(x). Each transformation here is a callable ``str -> str``
with a short ``name`` (for metric keys and tables), a one-line
``description`` (for tables and diagrams) and the relation it is expected to
keep: ``expected="same"`` (the score order or class is kept, e.g. a typo)
or ``"opposite"`` (it is reversed, e.g. negation).

A transformation that does not apply to an input (no auxiliary to negate, no
name to swap) raises :class:`NotApplicable`; the relation then skips the input
and counts it (``RelationResult.extra["skipped"]``), so an input is never
passed through unchanged without anyone knowing. Randomised transformations
(typos, swaps) draw from a generator seeded by ``(seed, text)``, so a text
gets the same follow-up whatever batch it comes in. ``t1 >> t2`` applies t1,
then t2.

Example::

    from mtlib.relations import transformations as T
    ts = [*T.manino_table1(), T.Typos("swap", seed=0), T.Negation()]
    ts[-1]("The film was good.")   # 'The film was not good.'
"""

from __future__ import annotations

import functools
import re
import string
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtlib.data.papers import MANINO_TABLE1
from mtlib.relations.errors import check_text, check_texts, refuse

__all__ = [
    "NotApplicable",
    "Transformation",
    "Composed",
    "Concatenation",
    "Typos",
    "Contractions",
    "NameSwap",
    "NumberSwap",
    "Negation",
    "Punctuation",
    "Casing",
    "Synonyms",
    "FunctionTransformation",
    "as_transformation",
    "apply",
    "manino_table1",
    "robustness_suite",
    "POSITIONS",
    "CONTRACTIONS",
    "NAMES",
]

POSITIONS = ("start", "end")

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
_AUXILIARIES = ("is", "are", "was", "were", "can", "will", "do", "does", "did")


class NotApplicable(ValueError):
    """The transformation does not apply to this input; the relation skips it and counts it."""


def _rng(seed: int, text: str) -> np.random.Generator:
    """A generator that depends only on the seed and the text (not on batch order)."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(text.encode("utf-8"))])


def _choice(value: str, allowed: tuple[str, ...], what: str) -> None:
    """Raise a ValueError naming the allowed values when ``value`` is not one of them."""
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; use one of {list(allowed)}")


def _text_checked(call: Callable[[Any, str], str]) -> Callable[[Any, str], str]:
    """Wrap a transformation's ``__call__``: the input must be a ``str``."""

    @functools.wraps(call)
    def checked(self: Any, x: str) -> str:
        return call(self, check_text(x, f"{type(self).__name__}", "x"))

    checked._checks_text = True  # type: ignore[attr-defined]
    return checked


def _match_case(word: str, like: str) -> str:
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

    name: str = "T"
    description: str = ""
    expected: str = "same"

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

    @property
    def name(self) -> str:  # type: ignore[override]
        return ">>".join(p.name for p in self.parts)

    @property
    def description(self) -> str:  # type: ignore[override]
        return "; then ".join(p.description for p in self.parts)

    @property
    def expected(self) -> str:  # type: ignore[override]
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
        if not self.name:
            object.__setattr__(self, "name", getattr(self.fn, "__name__", "T"))
        if not self.description:
            object.__setattr__(self, "description", f"apply {self.name}")

    def __call__(self, x: str) -> str:
        return self.fn(x)


def as_transformation(t: Callable[[str], str]) -> Transformation:
    """A :class:`Transformation` as is; any other callable wrapped in :class:`FunctionTransformation`."""
    if isinstance(t, Transformation):
        return t
    if not callable(t):
        raise refuse("as_transformation", "transform", "a callable str -> str", t)
    return FunctionTransformation(t)


def apply(t: Callable[[str], str], texts: Sequence[str]) -> tuple[list[str | None], np.ndarray]:
    """Follow-ups of every text and which ones the transformation applied to.

    Returns:
        ``(follow_ups, applied)``: a list with ``None`` where ``t`` raised
        :class:`NotApplicable`, and a bool array ``(n,)``.
    """
    out: list[str | None] = []
    for x in check_texts(texts, "apply", "texts"):
        try:
            out.append(t(x))
        except NotApplicable:
            out.append(None)
    return out, np.array([o is not None for o in out], dtype=bool)


@dataclass(frozen=True)
class Concatenation(Transformation):
    """T(x): add a fixed text at the start or the end of the input (Manino et al. Table 1).

    Args:
        text: The text to add, e.g. ``"Thank you."``.
        position: ``"start"`` or ``"end"``.
        name: Short id for tables and metric keys (defaults to a slug of the text).

    Raises:
        ValueError: an unknown position (the message lists ``start``/``end``).
    """

    text: str
    position: str = "end"
    name: str = ""

    def __post_init__(self) -> None:
        check_text(self.text, "Concatenation", "text")
        pos = str(self.position).strip().lower()
        if pos not in POSITIONS:
            raise ValueError(f"unknown position {self.position!r} for {self.text!r}; use one of {list(POSITIONS)}")
        object.__setattr__(self, "position", pos)
        if not self.name:
            slug = "".join(c if c.isalnum() else "_" for c in self.text.lower()).strip("_")
            object.__setattr__(self, "name", f"{pos}:{'_'.join(w for w in slug.split('_') if w)[:40]}")

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"add {self.text!r} at the {self.position}"

    def __call__(self, x: str) -> str:
        return f"{self.text} {x}" if self.position == "start" else f"{x} {self.text}"


@dataclass(frozen=True)
class Typos(Transformation):
    """Keyboard-free typos: swap two adjacent letters, or delete one, inside words of 4+ letters.

    Args:
        kind: ``"swap"``, ``"delete"`` or ``"mixed"`` (each typo picks one).
        n: Typos per input (at distinct positions).
        seed: With the text, seeds the choice of positions.

    Raises:
        NotApplicable: no word of 4+ letters.
    """

    kind: str = "swap"
    n: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        _choice(self.kind, ("swap", "delete", "mixed"), "typo kind")
        if self.n < 1:
            raise ValueError(f"n must be at least 1, got {self.n}")

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"typos_{self.kind}{self.n}"

    @property
    def description(self) -> str:  # type: ignore[override]
        what = {"swap": "swap two adjacent letters", "delete": "delete a letter", "mixed": "swap or delete letters"}
        return f"{what[self.kind]} ({self.n}x, seed {self.seed})"

    def __call__(self, x: str) -> str:
        # Positions p with x[p] and x[p+1] both inside a word of 4+ letters, not its first letter.
        spots = [
            p for m in re.finditer(r"[A-Za-z]{4,}", x) for p in range(m.start() + 1, m.end() - 1) if x[p] != x[p + 1]
        ]
        if not spots:
            raise NotApplicable(f"no word of 4+ letters to put a typo in: {x[:60]!r}")
        rng = _rng(self.seed, x)
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
class Contractions(Transformation):
    """Contract (``"do not"`` -> ``"don't"``) or expand (``"don't"`` -> ``"do not"``) every listed form.

    Args:
        mode: ``"contract"`` or ``"expand"``.
        table: Expansion -> contraction, lower case; defaults to :data:`CONTRACTIONS`.

    Raises:
        NotApplicable: nothing to contract / expand.
    """

    mode: str = "contract"
    table: Mapping[str, str] = field(default_factory=lambda: dict(CONTRACTIONS))

    def __post_init__(self) -> None:
        _choice(self.mode, ("contract", "expand"), "mode")

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.mode

    @property
    def description(self) -> str:  # type: ignore[override]
        return "contract e.g. 'do not' to \"don't\"" if self.mode == "contract" else "expand e.g. \"don't\" to 'do not'"

    def __call__(self, x: str) -> str:
        pairs = self.table.items() if self.mode == "contract" else ((b, a) for a, b in self.table.items())
        mapping = {a.lower(): b for a, b in pairs}
        pattern = re.compile(
            r"\b(" + "|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)) + r")(?![\w'])",
            re.IGNORECASE,
        )
        out, count = pattern.subn(lambda m: _match_case(mapping[m.group(0).lower()], m.group(0)), x)
        if not count:
            raise NotApplicable(f"nothing to {self.mode}: {x[:60]!r}")
        return out


@dataclass(frozen=True)
class NameSwap(Transformation):
    """Replace every listed first name by another one from the list (seeded per input).

    Args:
        names: The names that are recognised and drawn from; defaults to :data:`NAMES`.
        seed: With the text, seeds the replacement.

    Raises:
        NotApplicable: no listed name in the input.
    """

    names: tuple[str, ...] = NAMES
    seed: int = 0
    name: str = "name_swap"

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"swap first names ({len(self.names)} listed, seed {self.seed})"

    def __call__(self, x: str) -> str:
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, self.names)) + r")\b")
        found = sorted(set(pattern.findall(x)))
        if not found:
            raise NotApplicable(f"no listed name in {x[:60]!r}")
        rng = _rng(self.seed, x)
        swap = {}
        for f in found:
            others = [n for n in self.names if n != f]
            swap[f] = others[int(rng.integers(len(others)))]
        return pattern.sub(lambda m: swap[m.group(0)], x)


@dataclass(frozen=True)
class NumberSwap(Transformation):
    """Replace every number (digits, or the words one..ten) by a different one (seeded per input).

    Raises:
        NotApplicable: no number in the input.
    """

    seed: int = 0
    name: str = "number_swap"

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"change numbers (digits and one..ten, seed {self.seed})"

    def __call__(self, x: str) -> str:
        pattern = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
        if not pattern.search(x):
            raise NotApplicable(f"no number in {x[:60]!r}")
        rng = _rng(self.seed, x)

        def repl(m: re.Match) -> str:
            tok = m.group(0)
            if tok.isdigit():
                v = int(tok)
                new = v + int(rng.integers(1, max(10, v // 2 + 2)))
                return str(new)
            words = [w for w in _NUMBER_WORDS if w != tok.lower()]
            return _match_case(words[int(rng.integers(len(words)))], tok)

        return pattern.sub(repl, x)


@dataclass(frozen=True)
class Negation(Transformation):
    """Negate the first auxiliary: is/are/was/were/will/do/does/did + ``not``, can -> ``cannot``.

    Applies only where the first auxiliary follows its subject (not at the
    start of a sentence, so questions are left out) and is not already negated.

    The expected relation is reversed (``expected="opposite"``): a pairwise
    relation expects the follow-ups in the opposite order.

    Raises:
        NotApplicable: no auxiliary, or it is already negated.
    """

    name: str = "negation"
    expected: str = "opposite"

    @property
    def description(self) -> str:  # type: ignore[override]
        return "insert 'not' after the first auxiliary (order reversed)"

    def __call__(self, x: str) -> str:
        m = re.search(r"\b(" + "|".join(_AUXILIARIES) + r")(n't)?\b", x, re.IGNORECASE)
        if m is None:
            raise NotApplicable(f"no auxiliary (is/are/was/were/can/will/do/does/did) in {x[:60]!r}")
        if m.group(2) or re.match(r"\s+(not|never)\b", x[m.end() :], re.IGNORECASE):
            raise NotApplicable(f"already negated: {x[:60]!r}")
        before = x[: m.start()].rstrip()
        if not before or before[-1] in ".!?:;":
            raise NotApplicable(f"the auxiliary starts a sentence (a question?), no simple rule: {x[:60]!r}")
        aux = m.group(1)
        new = aux + "not" if aux.lower() == "can" else aux + " not"
        return x[: m.start()] + new + x[m.end() :]


@dataclass(frozen=True)
class Punctuation(Transformation):
    """Change punctuation.

    Args:
        mode: ``"strip"`` removes every punctuation mark (not applicable
            without one); ``"exclaim"`` ends the text with ``"!"`` instead of
            its final ``.``/``?``/none (not applicable if it already ends with ``"!"``).
    """

    mode: str = "strip"

    def __post_init__(self) -> None:
        _choice(self.mode, ("strip", "exclaim"), "mode")

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"punct_{self.mode}"

    @property
    def description(self) -> str:  # type: ignore[override]
        return "remove punctuation" if self.mode == "strip" else "end with '!'"

    def __call__(self, x: str) -> str:
        if self.mode == "strip":
            out = re.sub(r"\s+", " ", "".join(c for c in x if c not in string.punctuation or c == "'")).strip()
            if out == x:
                raise NotApplicable(f"no punctuation in {x[:60]!r}")
            return out
        body = x.rstrip()
        if body.endswith("!"):
            raise NotApplicable(f"already ends with '!': {x[:60]!r}")
        return (body[:-1] if body[-1:] in ".?" else body) + "!"


@dataclass(frozen=True)
class Casing(Transformation):
    """Change letter case: ``"lower"``, ``"upper"`` or ``"title"`` (not applicable if nothing changes)."""

    mode: str = "lower"

    def __post_init__(self) -> None:
        _choice(self.mode, ("lower", "upper", "title"), "mode")

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"case_{self.mode}"

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"{self.mode} case"

    def __call__(self, x: str) -> str:
        out = getattr(x, self.mode)()
        if out == x:
            raise NotApplicable(f"already {self.mode} case: {x[:60]!r}")
        return out


@dataclass(frozen=True)
class Synonyms(Transformation):
    """Replace words by synonyms from a word list the user gives (seeded choice among several).

    Args:
        table: ``{word: synonym}`` or ``{word: [synonyms...]}`` (matched as
            whole words, case-insensitive; the case of the first letter is kept).
        seed: With the text, seeds the choice among several synonyms.
        name: Short id.

    Raises:
        NotApplicable: no listed word in the input.
    """

    table: Mapping[str, str | Sequence[str]] = field(default_factory=dict)
    seed: int = 0
    name: str = "synonyms"

    def __post_init__(self) -> None:
        if not self.table:
            raise ValueError("Synonyms needs a word list: {word: synonym or [synonyms]}")

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"replace words by synonyms ({len(self.table)} listed)"

    def __call__(self, x: str) -> str:
        table = {k.lower(): ([v] if isinstance(v, str) else list(v)) for k, v in self.table.items()}
        pattern = re.compile(
            r"\b(" + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)) + r")\b", re.IGNORECASE
        )
        if not pattern.search(x):
            raise NotApplicable(f"no listed word in {x[:60]!r}")
        rng = _rng(self.seed, x)

        def repl(m: re.Match) -> str:
            options = table[m.group(0).lower()]
            return _match_case(options[int(rng.integers(len(options)))], m.group(0))

        return pattern.sub(repl, x)


def manino_table1() -> list[Concatenation]:
    """The six concatenations of Manino et al. Table 1 (ids T1..T6).

    Built from :data:`mtlib.data.papers.MANINO_TABLE1`.
    """
    return [Concatenation(text, pos, name=tid) for tid, text, pos, *_ in MANINO_TABLE1]


def robustness_suite(seed: int = 0) -> list[Transformation]:
    """Six label-preserving perturbations for invariance gates: typos, contractions, punctuation, casing."""
    return [
        Typos("swap", seed=seed),
        Typos("delete", seed=seed),
        Contractions("contract"),
        Contractions("expand"),
        Punctuation("strip"),
        Casing("lower"),
    ]
