"""The three Montague tests: the two distances of every case (Carvalho et al., Eq. 3, 5, 7).

Each function gathers rows of an :class:`~mtlib.experiments.montague._embeddings.EmbeddingTable`
by index and returns one row per case with ``near`` and ``far`` distances,
the adjectives (the bootstrap's items) and their types (the breakdown).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mtlib.data.adjectives import ADJECTIVE_TYPES
from mtlib.experiments.montague._embeddings import EmbeddingTable
from mtlib.experiments.montague._phrases import PhraseSet, _join, _type_order, phrase, split_positions

#: Cosine distances at or above this are "unrelated": a split that far apart
#: constrains nothing (the reading that reproduces the published numbers).
MAX_SPLIT_DISTANCE = 1.0


def _valid(table: EmbeddingTable, *index_arrays: np.ndarray) -> np.ndarray:
    ok = np.ones(len(index_arrays[0]), dtype=bool)
    for idx in index_arrays:
        ok &= table.valid[idx].reshape(len(idx), -1).all(axis=1)
    return ok


def intersectivity(
    table: EmbeddingTable,
    phrases: pd.DataFrame,
    term_columns: Sequence[str],
    *,
    max_split_distance: float | None = MAX_SPLIT_DISTANCE,
) -> pd.DataFrame:
    """Single-phrase intersectivity (Eq. 3): the phrase is closer to each term than its parts are to each other.

    For a phrase p = t_1 .. t_h and every split (S, S^c) of it into a
    sub-phrase and its complement: ``d(p, t_i) <= d(S, S^c)`` for all i, i.e.
    ``near = max_i d(p, t_i) <= far = min d(S, S^c)``. For h = 2 the only
    split is (t_1, t_2), which is Eq. 3 as printed.

    Args:
        table: Embeddings of every text involved.
        phrases: One row per phrase with a ``phrase`` column and the term columns.
        term_columns: Columns holding the terms in order, e.g. ``["adj", "noun"]``.
        max_split_distance: Splits at this distance or more constrain nothing
            (``None``: every split counts); with no split left, ``far`` is inf.

    Returns:
        ``phrases`` plus ``near`` and ``far``, for phrases whose texts all
        have embeddings; the others are dropped (count them with ``len``).
    """
    terms = phrases[list(term_columns)].to_numpy(dtype=object)
    p_idx = table.rows(phrases["phrase"].to_numpy(dtype=object))
    t_idx = table.rows(terms)
    s_idx = np.stack(
        [
            np.stack([table.rows(_join(terms, part)), table.rows(_join(terms, rest))], axis=-1)
            for part, rest in split_positions(terms.shape[1])
        ],
        axis=1,
    )  # (n, splits, 2)
    ok = _valid(table, p_idx, t_idx, s_idx)
    d_terms = table.distance(p_idx[:, None], t_idx)  # (n, h)
    d_splits = table.distance(s_idx[..., 0], s_idx[..., 1])  # (n, m)
    binding = d_splits if max_split_distance is None else np.where(d_splits < max_split_distance, d_splits, np.inf)
    out = phrases.loc[ok].copy()
    out["near"] = d_terms.max(axis=1)[ok]
    out["far"] = binding.min(axis=1)[ok]
    return out


def nonsubsectivity(table: EmbeddingTable, an: pd.DataFrame) -> pd.DataFrame:
    """Non-subsectivity (Eq. 7): ``near = d(p, a) <= far = d(p, n)``, the adjective pulls the phrase to itself.

    Returns:
        ``an`` plus ``near`` and ``far`` for phrases with embeddings.
    """
    p, a, n = (table.rows(an[c].to_numpy(dtype=object)) for c in ("phrase", "adj", "noun"))
    ok = _valid(table, p, a, n)
    out = an.loc[ok].copy()
    out["near"] = table.distance(p, a)[ok]
    out["far"] = table.distance(p, n)[ok]
    return out


def intersective_pairs(table: EmbeddingTable, phrase_set: PhraseSet) -> pd.DataFrame:
    """Phrase-pair intersectivity (Eq. 5): one case per ordered adjective pair and unordered noun pair.

    Reading implemented (the literal one of §3.4): for adjectives a1 != a2 and
    every unordered pair of different nouns {n1, n2}, ``near = d(a1 n1, a1 n2)``
    and ``far = d(a2 n1, a2 n2)``. The score of a type pair (T1, T2) pools all
    a1 of type T1 and a2 of type T2; since distances rarely tie, (T, T) is 0.5
    and (T1, T2) is about 1 - (T2, T1).

    Returns:
        One row per case with both phrases of both adjectives embedded:
        ``adj1, adj2, type1, type2, noun1, noun2, near, far``.
    """
    adjs = phrase_set.adjectives
    nouns = np.asarray(phrase_set.nouns, dtype=object)
    iu = np.triu_indices(len(nouns), k=1)
    an_rows = table.rows(np.array([[phrase(a, n) for n in nouns] for a in adjs["word"]], dtype=object))
    unit = table.unit[an_rows]  # (A, N, d)
    dist = 1.0 - np.einsum("and,amd->anm", unit, unit)  # (A, N, N)
    pair_d = dist[:, iu[0], iu[1]]  # (A, P)
    # a phrase counts only when its words have vectors too: a static model gives "red car" the vector of
    # "car" when it does not know "red" (the mean of the known words), which is not the phrase
    adj_ok, noun_ok = table.valid[table.rows(adjs["word"].to_numpy(dtype=object))], table.valid[table.rows(nouns)]
    valid = table.valid[an_rows] & adj_ok[:, None] & noun_ok[None, :]
    pair_ok = valid[:, iu[0]] & valid[:, iu[1]]  # (A, P)
    a1, a2 = np.nonzero(~np.eye(len(adjs), dtype=bool))
    ok = pair_ok[a1] & pair_ok[a2]  # (A(A-1), P)
    i, p = np.nonzero(ok)
    # labels as categoricals built from codes: 61 x 60 x 66 cases, no per-case string work
    words = pd.Index(adjs["word"].to_numpy(dtype=object), dtype=object)
    type_cats = _type_order(adjs["type"])
    type_code = pd.Index(type_cats).get_indexer(adjs["type"].to_numpy(dtype=object))
    noun_cats = pd.Index(nouns, dtype=object)
    return pd.DataFrame(
        {
            "adj1": pd.Categorical.from_codes(a1[i], categories=words),
            "adj2": pd.Categorical.from_codes(a2[i], categories=words),
            "type1": pd.Categorical.from_codes(type_code[a1[i]], categories=type_cats),
            "type2": pd.Categorical.from_codes(type_code[a2[i]], categories=type_cats),
            "noun1": pd.Categorical.from_codes(iu[0][p], categories=noun_cats),
            "noun2": pd.Categorical.from_codes(iu[1][p], categories=noun_cats),
            "near": pair_d[a1[i], p],
            "far": pair_d[a2[i], p],
        }
    )


def type_pair_matrix(scores: pd.DataFrame, order: Sequence[str] = ADJECTIVE_TYPES) -> pd.DataFrame:
    """Pivot a two-level consistency table (:func:`consistency`) into a T1 x T2 matrix of E."""
    matrix = scores["E"].unstack()
    rows = [t for t in order if t in matrix.index] + [t for t in matrix.index if t not in order]
    cols = [t for t in order if t in matrix.columns] + [t for t in matrix.columns if t not in order]
    return matrix.reindex(index=rows, columns=cols)
