"""Negation by a simple auxiliary rule: the one transformation that reverses the expected relation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mtlib.relations.transformations.base import EXPECTED, NotApplicable, Transformation, check_choice, check_name
from mtlib.relations.transformations.scripts import script_label, script_name

__all__ = ["Negation"]

_AUXILIARIES = ("is", "are", "was", "were", "can", "will", "do", "does", "did")


@dataclass(frozen=True)
class Negation(Transformation):
    """Negate the first auxiliary: is/are/was/were/will/do/does/did + ``not``, can -> ``cannot``.

    Applies only where the first auxiliary follows its subject (not at the
    start of a sentence, so questions are left out) and is not already negated
    (``n't`` or ``n’t``, ``not``, ``never``).

    Scripts: English only (its auxiliaries). A text in another language has none and is not applicable; one
    with no Latin letter at all is refused naming its script (Cyrillic, Greek, Han, Arabic ...).

    The expected relation is reversed (``expected="opposite"``): a pairwise
    relation expects the follow-ups in the opposite order.

    Raises:
        MtlibInputError: an empty name, an ``expected`` other than ``same``/``opposite``.
        NotApplicable: (on a call) no auxiliary, or it is already negated.

    Example:
        >>> Negation()("The film was good.")
        'The film was not good.'
    """

    name: str = "negation"
    expected: str = "opposite"

    def __post_init__(self) -> None:
        check_name(self.name, "Negation")
        check_choice(self.expected, EXPECTED, "Negation", "expected")

    @property
    def description(self) -> str:
        return "insert 'not' after the first auxiliary (order reversed)"

    def __call__(self, x: str) -> str:
        m = re.search(r"\b(" + "|".join(_AUXILIARIES) + r")(n['’]t)?\b", x, re.IGNORECASE)
        if m is None:
            letters = [c for c in x if c.isalpha()]
            if letters and not any(script_name(c) == "LATIN" for c in letters):
                scripts = " and ".join(sorted({script_label(c) for c in letters}))
                raise NotApplicable(f"Negation is an English rule; {x[:60]!r} is written in {scripts}")
            raise NotApplicable(f"no auxiliary (is/are/was/were/can/will/do/does/did) in {x[:60]!r}")
        if m.group(2) or re.match(r"\s+(not|never)\b", x[m.end() :], re.IGNORECASE):
            raise NotApplicable(f"already negated: {x[:60]!r}")
        before = x[: m.start()].rstrip()
        if not before or before[-1] in ".!?:;":
            raise NotApplicable(f"the auxiliary starts a sentence (a question?), no simple rule: {x[:60]!r}")
        aux = m.group(1)
        new = aux + "not" if aux.lower() == "can" else aux + " not"
        return x[: m.start()] + new + x[m.end() :]
