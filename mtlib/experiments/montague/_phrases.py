"""Phrases of the regular language ``(adj)+ noun``: their texts, their splits, and adjective types in order.

Every test of notebook 04 reads the same :class:`PhraseSet` (built once by
:func:`build_phrases`): AN and AAN phrases as frames of terms and types, plus
the list of every unique text to embed (words, phrases, adjective pairs and
the sub-phrases of every split). Types keep the paper's order
(:func:`type_order`, :func:`types_in_paper_order`, :func:`type_pair_matrix`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtlib.data.adjectives import ADJECTIVE_TYPES, TYPE_NAMES
from mtlib.utils.faces import renamed


def phrase(*terms: str) -> str:
    """A phrase's text: its terms joined by single spaces (``"red dog"``)."""
    return " ".join(terms)


def splits(terms: Sequence[str]) -> list[tuple[str, str]]:
    """Every split of a phrase into a sub-phrase and its complement.

    Sub-phrases keep the phrase's word order; each unordered split appears
    once, the part holding the first term first.

    Example:
        >>> splits(["wild", "red", "dog"])
        [('wild', 'red dog'), ('wild red', 'dog'), ('wild dog', 'red')]

    Returns:
        ``2**(h-1) - 1`` pairs of texts for a phrase of ``h`` terms.
    """
    return [
        (phrase(*(terms[i] for i in part)), phrase(*(terms[i] for i in rest)))
        for part, rest in split_positions(len(terms))
    ]


def split_positions(h: int) -> list[tuple[list[int], list[int]]]:
    """The term positions of every split of an ``h``-term phrase (see :func:`splits`): ``(part, rest)`` pairs."""
    out = []
    for mask in range(1 << (h - 1)):
        part = [0] + [i for i in range(1, h) if mask >> (i - 1) & 1]
        rest = [i for i in range(h) if i not in part]
        if rest:
            out.append((part, rest))
    return out


def join_terms(terms: np.ndarray, positions: Sequence[int]) -> np.ndarray:
    """The sub-phrase at ``positions`` of every row of ``terms`` ``(n, h)`` (object strings), shape ``(n,)``."""
    out = terms[:, positions[0]]
    for i in positions[1:]:
        out = out + " " + terms[:, i]
    return out


@dataclass
class PhraseSet:
    """The phrases of ``(adj)+ noun`` up to two adjectives, and every text to embed.

    Attributes:
        adjectives: ``word, type`` in list order.
        nouns: The nouns.
        an: One row per AN phrase: ``phrase, adj, noun, type``.
        aan: One row per AAN phrase with two different adjectives:
            ``phrase, adj1, adj2, noun, type1, type2``.
        texts: Every unique text the tests need (words, phrases, sub-phrases).
    """

    adjectives: pd.DataFrame
    nouns: list[str]
    an: pd.DataFrame
    aan: pd.DataFrame
    texts: list[str]

    @property
    def n_phrases(self) -> int:
        """AN plus AAN phrases (61 x 12 + 61 x 60 x 12 = 44,652 for the paper's lists)."""
        return len(self.an) + len(self.aan)

    def counts(self) -> dict[str, int]:
        """Sizes for ``metrics.json``: adjectives, nouns, AN and AAN phrases, unique texts."""
        return {
            "n_adjectives": len(self.adjectives),
            "n_nouns": len(self.nouns),
            "n_phrases_an": len(self.an),
            "n_phrases_aan": len(self.aan),
            "n_texts": len(self.texts),
        }

    def summary(self) -> str:
        """One line: how many words, phrases and texts to embed."""
        return (
            f"{len(self.adjectives)} adjectives, {len(self.nouns)} nouns: {len(self.an)} AN + "
            f"{len(self.aan):,} AAN phrases = {self.n_phrases:,}; {len(self.texts):,} unique texts to embed "
            "per model"
        )

    def adjectives_by_type(self) -> pd.DataFrame:
        """One row per adjective type (in the paper's order): its name and its adjectives."""
        words = self.adjectives.groupby("type", sort=False)["word"].apply(", ".join)
        order = [t for t in ADJECTIVE_TYPES if t in words.index] + [t for t in words.index if t not in ADJECTIVE_TYPES]
        return pd.DataFrame(
            {"name": [TYPE_NAMES.get(t, t) for t in order], "adjectives": words[order].to_list()},
            index=pd.Index(order, name="type"),
        )


def build_phrases(adjectives: pd.DataFrame, nouns: Sequence[str], *, with_aan: bool = True) -> PhraseSet:
    """Generate AN and AAN phrases (an adjective never repeats inside a phrase).

    Args:
        adjectives: ``word, type`` (see :func:`mtlib.data.adjectives.load_lexicon`).
        nouns: Nouns.
        with_aan: Also build the two-adjective phrases.
    """
    type_of = dict(zip(adjectives["word"], adjectives["type"]))
    adjs = list(adjectives["word"])
    an = pd.DataFrame(
        [(phrase(a, n), a, n, type_of[a]) for a in adjs for n in nouns], columns=["phrase", "adj", "noun", "type"]
    )
    rows = (
        [
            (phrase(a1, a2, n), a1, a2, n, type_of[a1], type_of[a2])
            for a1 in adjs
            for a2 in adjs
            if a1 != a2
            for n in nouns
        ]
        if with_aan
        else []
    )
    aan = pd.DataFrame(rows, columns=["phrase", "adj1", "adj2", "noun", "type1", "type2"])
    texts = dict.fromkeys([*adjs, *nouns, *an["phrase"]])
    if with_aan:
        texts.update(dict.fromkeys(aan["phrase"]))
        texts.update(dict.fromkeys(phrase(a1, a2) for a1 in adjs for a2 in adjs if a1 != a2))
    return PhraseSet(adjectives.reset_index(drop=True)[["word", "type"]], list(nouns), an, aan, list(texts))


def types_in_paper_order(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Type columns as categoricals in the paper's order (unknown types after, sorted)."""
    out = {}
    for c in columns:
        codes, present = pd.factorize(frame[c])
        cats = type_order(present)
        out[c] = pd.Categorical.from_codes(pd.Index(cats).get_indexer(present)[codes], categories=cats)
    return pd.DataFrame(out)


typed_columns = renamed(types_in_paper_order, "typed_columns")  # the old name, for one release


def type_order(types: Sequence[str]) -> list[str]:
    """Types in the paper's order, unknown ones after, sorted."""
    present = set(types)
    return [t for t in ADJECTIVE_TYPES if t in present] + sorted(present - set(ADJECTIVE_TYPES))


def type_pair_matrix(scores: pd.DataFrame, order: Sequence[str] = ADJECTIVE_TYPES) -> pd.DataFrame:
    """Pivot a two-level consistency table (:func:`mtlib.relations.consistency_scores`) into a T1 x T2 matrix of E."""
    matrix = scores["E"].unstack()
    rows = [t for t in order if t in matrix.index] + [t for t in matrix.index if t not in order]
    cols = [t for t in order if t in matrix.columns] + [t for t in matrix.columns if t not in order]
    return matrix.reindex(index=rows, columns=cols)
