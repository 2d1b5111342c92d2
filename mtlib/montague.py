"""Montague adjective tests on embedding models (Carvalho et al., Eq. 3-8).

Intuition: read an embedding as a proxy for a denotation (a set). For an
intersective adjective, "red car" is the intersection of red things and cars,
so the phrase should lie closer to each of its words than the words lie to
each other (intersectivity, Eq. 3); phrases sharing an intersective adjective
("Canadian writer", "Canadian surgeon") should be closer than phrases sharing a
non-intersective one (Eq. 5); and a non-subsective adjective ("fake",
"former") should pull the phrase towards itself and away from the noun (Eq. 7).
Each test is a *consistency score*: the mean truth value over phrases of the
regular language ``(adj)+ noun``, grouped by adjective type.

Everything is computed in matrix form: every unique text (words, AN and AAN
phrases, adjective pairs) is embedded once, rows are L2-normalised, and each
test gathers rows by integer index and compares whole arrays; no Python loop
runs over the 44k phrases x 9 comparisons.

The single-phrase test for phrases of more than two terms follows the
published numbers: each ``d(p, t_i)`` is compared with the distance between
every split of the phrase into a sub-phrase and its complement (each embedded
as text), a split counting only when its distance is below 1. With this
reading the MiniLM rows of the paper's Tables 2 and 6 reproduce exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtlib.data.adjectives import ADJECTIVE_TYPES
from mtlib.similarity import normalize_rows

#: Cosine distances at or above this are "unrelated": a split that far apart
#: constrains nothing (the reading that reproduces the published numbers).
MAX_SPLIT_DISTANCE = 1.0


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
    h = len(terms)
    out = []
    for mask in range(1 << (h - 1)):
        part = [0] + [i for i in range(1, h) if mask >> (i - 1) & 1]
        rest = [i for i in range(h) if i not in part]
        if rest:
            out.append((phrase(*(terms[i] for i in part)), phrase(*(terms[i] for i in rest))))
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


def build_phrases(adjectives: pd.DataFrame, nouns: Sequence[str], *, with_aan: bool = True) -> PhraseSet:
    """Generate AN and AAN phrases (an adjective never repeats inside a phrase).

    Args:
        adjectives: ``word, type`` (see :func:`mtlib.data.adjectives.load_lexicon`).
        nouns: Nouns.
        with_aan: Also build the two-adjective phrases.
    """
    type_of = dict(zip(adjectives["word"], adjectives["type"]))
    adjs = list(adjectives["word"])
    an = pd.DataFrame([(phrase(a, n), a, n, type_of[a]) for a in adjs for n in nouns],
                      columns=["phrase", "adj", "noun", "type"])
    rows = [(phrase(a1, a2, n), a1, a2, n, type_of[a1], type_of[a2])
            for a1 in adjs for a2 in adjs if a1 != a2 for n in nouns] if with_aan else []
    aan = pd.DataFrame(rows, columns=["phrase", "adj1", "adj2", "noun", "type1", "type2"])
    texts = dict.fromkeys([*adjs, *nouns, *an["phrase"]])
    if with_aan:
        texts.update(dict.fromkeys(aan["phrase"]))
        texts.update(dict.fromkeys(phrase(a1, a2) for a1 in adjs for a2 in adjs if a1 != a2))
    return PhraseSet(adjectives.reset_index(drop=True)[["word", "type"]], list(nouns), an, aan, list(texts))


class EmbeddingTable:
    """Unit-normalised embeddings of texts, looked up by text.

    Args:
        texts: Unique texts, shape ``(T,)``.
        vectors: Their embeddings, shape ``(T, d)``; rows with NaN (a word
            missing from a static model's vocabulary) are marked invalid.
    """

    def __init__(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.texts = list(texts)
        self.row = {t: i for i, t in enumerate(self.texts)}
        vectors = np.asarray(vectors, dtype=np.float64)
        self.valid = ~np.isnan(vectors).any(axis=1)
        self.unit = normalize_rows(np.nan_to_num(vectors))

    @classmethod
    def from_model(cls, model, texts: Sequence[str]) -> EmbeddingTable:
        """Embed every text once with ``model.embed``."""
        return cls(texts, model.embed(list(texts)))

    def rows(self, texts: Sequence[str] | np.ndarray) -> np.ndarray:
        """Row indices of texts (any shape of array of strings)."""
        arr = np.asarray(texts, dtype=object)
        return np.vectorize(self.row.__getitem__, otypes=[np.int64])(arr) if arr.size else arr.astype(np.int64)

    def distance(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Cosine distance between rows ``a`` and ``b`` (index arrays of one shape)."""
        return 1.0 - np.einsum("...d,...d->...", self.unit[a], self.unit[b])


def _valid(table: EmbeddingTable, *index_arrays: np.ndarray) -> np.ndarray:
    ok = np.ones(len(index_arrays[0]), dtype=bool)
    for idx in index_arrays:
        ok &= table.valid[idx].reshape(len(idx), -1).all(axis=1)
    return ok


def intersectivity(table: EmbeddingTable, phrases: pd.DataFrame, term_columns: Sequence[str],
                   *, max_split_distance: float | None = MAX_SPLIT_DISTANCE) -> pd.DataFrame:
    """Single-phrase intersectivity (Eq. 3): the phrase is closer to each term than its parts are to each other.

    For a phrase p = t_1 .. t_h and every split (S, S^c) of it into a
    sub-phrase and its complement: ``d(p, t_i) <= d(S, S^c)`` for all i. For
    h = 2 the only split is (t_1, t_2), which is Eq. 3 as printed.

    Args:
        table: Embeddings of every text involved.
        phrases: One row per phrase with a ``phrase`` column and the term columns.
        term_columns: Columns holding the terms in order, e.g. ``["adj", "noun"]``.
        max_split_distance: Splits at this distance or more constrain nothing
            (``None``: every split counts).

    Returns:
        ``phrases`` plus ``holds`` (bool), for phrases whose texts all have
        embeddings; the others are dropped (count them with ``len``).
    """
    terms = phrases[list(term_columns)].to_numpy(dtype=object)
    h = terms.shape[1]
    split_texts = np.array([[s for pair in splits(list(row)) for s in pair] for row in terms], dtype=object)
    split_texts = split_texts.reshape(len(terms), -1, 2)
    p_idx = table.rows(phrases["phrase"].to_numpy(dtype=object))
    t_idx = table.rows(terms)
    s_idx = table.rows(split_texts)
    ok = _valid(table, p_idx, t_idx, s_idx)
    d_terms = table.distance(p_idx[:, None], t_idx)  # (n, h)
    d_splits = table.distance(s_idx[..., 0], s_idx[..., 1])  # (n, m)
    binding = d_splits if max_split_distance is None else np.where(d_splits < max_split_distance, d_splits, np.inf)
    holds = d_terms.max(axis=1) <= binding.min(axis=1)
    out = phrases.loc[ok].copy()
    out["holds"] = holds[ok]
    out["n_terms"] = h
    return out


def nonsubsectivity(table: EmbeddingTable, an: pd.DataFrame) -> pd.DataFrame:
    """Non-subsectivity (Eq. 7): ``d(p, a) <= d(p, n)``, the adjective pulls the phrase to itself."""
    p, a, n = (table.rows(an[c].to_numpy(dtype=object)) for c in ("phrase", "adj", "noun"))
    ok = _valid(table, p, a, n)
    out = an.loc[ok].copy()
    out["holds"] = (table.distance(p, a) <= table.distance(p, n))[ok]
    return out


def intersective_pairs(table: EmbeddingTable, phrase_set: PhraseSet) -> pd.DataFrame:
    """Phrase-pair intersectivity (Eq. 5) for every ordered pair of different adjectives.

    Reading implemented (the literal one of §3.4): for adjectives a1 != a2 and
    every unordered pair of different nouns {n1, n2}, the test holds when
    ``d(a1 n1, a1 n2) <= d(a2 n1, a2 n2)``. The score of a type pair (T1, T2)
    pools all a1 of type T1 and a2 of type T2; since distances rarely tie,
    (T, T) is 0.5 and (T1, T2) is about 1 - (T2, T1).

    Returns:
        One row per ordered adjective pair: ``adj1, adj2, type1, type2,
        k`` (noun pairs where the test holds) and ``n`` (noun pairs compared).
    """
    adjs = phrase_set.adjectives
    nouns = phrase_set.nouns
    iu = np.triu_indices(len(nouns), k=1)
    an_rows = table.rows(np.array([[phrase(a, n) for n in nouns] for a in adjs["word"]], dtype=object))
    unit = table.unit[an_rows]  # (A, N, d)
    dist = 1.0 - np.einsum("and,amd->anm", unit, unit)  # (A, N, N)
    pair_d = dist[:, iu[0], iu[1]]  # (A, P)
    valid = table.valid[an_rows]
    pair_ok = valid[:, iu[0]] & valid[:, iu[1]]  # (A, P)
    both = pair_ok[:, None, :] & pair_ok[None, :, :]
    k = ((pair_d[:, None, :] <= pair_d[None, :, :]) & both).sum(-1)  # (A, A)
    n = both.sum(-1)
    words, types = adjs["word"].to_numpy(), adjs["type"].to_numpy()
    a1, a2 = np.nonzero(~np.eye(len(words), dtype=bool))
    return pd.DataFrame({"adj1": words[a1], "adj2": words[a2], "type1": types[a1], "type2": types[a2],
                         "k": k[a1, a2], "n": n[a1, a2]})


def consistency(per_item: pd.DataFrame, by: Sequence[str] | str, *, order: Sequence[str] = ADJECTIVE_TYPES,
                k: str | None = None, n: str | None = None) -> pd.DataFrame:
    """Consistency score E (mean truth value) per group.

    Args:
        per_item: Either one row per phrase with a bool ``holds`` column, or
            pre-counted rows with columns ``k`` (true) and ``n`` (compared).
        by: Grouping column(s), e.g. ``"type"`` or ``["type1", "type2"]``.
        order: Category order of the type columns.

    Returns:
        Indexed by the group: ``E``, ``k``, ``n``.
    """
    by = [by] if isinstance(by, str) else list(by)
    k = k or ("k" if "k" in per_item else None)
    n = n or ("n" if "n" in per_item else None)
    frame = per_item[by].copy()
    frame["k"] = per_item[k] if k else per_item["holds"].astype(int)
    frame["n"] = per_item[n] if n else 1
    for col in by:
        present = [t for t in order if t in set(frame[col])]
        frame[col] = pd.Categorical(frame[col], categories=present + sorted(set(frame[col]) - set(order)))
    out = frame.groupby(by, observed=True)[["k", "n"]].sum()
    out.insert(0, "E", out["k"] / out["n"])
    return out


def type_pair_matrix(scores: pd.DataFrame) -> pd.DataFrame:
    """Pivot a two-level consistency table into a T1 x T2 matrix of E."""
    return scores["E"].unstack()


def truncate(value: float, decimals: int = 4) -> float:
    """Truncate as the paper prints (0.43209 -> 0.4320)."""
    scale = 10**decimals
    return float(np.floor(value * scale + 1e-9) / scale)


def _chi2_stat(k: np.ndarray, n: np.ndarray) -> float:
    """Pearson chi-square statistic of a 2 x G table given true counts k and totals n per group."""
    table = np.vstack([k, n - k]).astype(float)
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.nansum(np.where(expected > 0, (table - expected) ** 2 / expected, 0.0)))


def type_difference_test(per_adjective: pd.DataFrame, *, unit: Sequence[str], types: pd.Series, permutations: int = 2000, seed: int = 0) -> dict[str, float | str]:
    """Do consistency scores differ between adjective types?

    Two tests, both named in the output:

    - Pearson chi-square test of independence on the 2 x G table of
      (holds, fails) counts per group, treating phrases as independent
      (they are not: phrases share adjectives, so its p-value is optimistic);
    - an adjective-label permutation test: the same chi-square statistic,
      its null distribution from shuffling the type labels among adjectives
      (type sizes kept), which respects the clustering of phrases by adjective.

    Args:
        per_adjective: Counts per unit, columns ``unit`` (adjective word, or
            two columns for adjective pairs), ``k`` and ``n``.
        unit: Adjective-word columns, e.g. ``["adj"]`` or ``["adj1", "adj2"]``;
            groups are the types of these adjectives (a type pair for two).
        types: Adjective type indexed by adjective word.
        permutations: Number of label shuffles.
        seed: Seeds the shuffles.

    Returns:
        ``{"chi2": ..., "dof": ..., "p_chi2": ..., "p_permutation": ...,
        "method": "..."}``.
    """
    from scipy import stats as sstats

    words = types.index.to_numpy()
    word_id = {w: i for i, w in enumerate(words)}
    label = pd.Categorical(types.to_numpy()).codes
    n_types = label.max() + 1
    units = np.stack([per_adjective[c].map(word_id).to_numpy() for c in unit], axis=1)
    k, n = per_adjective["k"].to_numpy(float), per_adjective["n"].to_numpy(float)

    def stat(lab: np.ndarray) -> tuple[float, int]:
        g = np.zeros(len(units), dtype=np.int64)
        for col in range(units.shape[1]):
            g = g * n_types + lab[units[:, col]]
        size = n_types ** units.shape[1]
        kk = np.bincount(g, weights=k, minlength=size)
        nn = np.bincount(g, weights=n, minlength=size)
        keep = nn > 0
        return _chi2_stat(kk[keep], nn[keep]), int(keep.sum())

    from mtlib.stats import permutation_test

    observed, n_groups = stat(label)
    _, p_permutation = permutation_test(lambda lab: stat(lab)[0], label, permutations=permutations, seed=seed)
    dof = max(1, n_groups - 1)
    return {"chi2": observed, "dof": dof, "p_chi2": float(sstats.chi2.sf(observed, dof)),
            "p_permutation": p_permutation,
            "method": f"chi-square of independence; adjective-label permutation test (B={permutations})"}


def per_adjective_counts(per_phrase: pd.DataFrame, unit: Sequence[str]) -> pd.DataFrame:
    """Sum ``holds`` per adjective (or adjective pair): columns ``unit``, ``k``, ``n``."""
    grouped = per_phrase.groupby(list(unit), sort=False)["holds"].agg(["sum", "count"]).reset_index()
    return grouped.rename(columns={"sum": "k", "count": "n"})


# Published values (Carvalho et al., Tables 6, 7, 8; 4 decimals, truncated), rows by registry name.
_T = ADJECTIVE_TYPES
_T6_COLUMNS = [(a, b) for b in _T for a in _T]  # (first adjective, second adjective), as printed
_T7_COLUMNS = [(a, b) for i, a in enumerate(_T) for b in _T[i:]]
PAPER_TABLE6 = {
    "sbert": [0.7939, 0.7348, 0.7741, 0.8495, 0.7651, 0.7525, 0.5694, 0.7494, 0.8253, 0.7175, 0.7875, 0.7247,
              0.6635, 0.7605, 0.7860, 0.8463, 0.8244, 0.7497, 0.8021, 0.8015, 0.7752, 0.6898, 0.7880, 0.8412, 0.8194],
    "distilroberta": [0.9810, 0.9633, 0.9576, 0.9751, 0.9823, 0.9507, 0.9305, 0.8868, 0.8918, 0.9537, 0.9430,
                      0.9002, 0.8520, 0.8992, 0.9372, 0.9816, 0.9573, 0.9309, 0.9523, 0.9841, 0.9949, 0.9953,
                      0.9845, 0.9920, 1.0],
    "t5": [0.9962, 0.9898, 0.9935, 0.9978, 1.0, 0.9734, 0.9694, 0.9454, 0.9375, 0.9722, 0.9946, 0.9742, 0.9392,
           0.9600, 0.9825, 0.9972, 0.9751, 0.9594, 0.9317, 0.9861, 0.9949, 0.9953, 0.9835, 0.9900, 1.0],
    "dpr": [0.8249, 0.8169, 0.7730, 0.8441, 0.8358, 0.8257, 0.8000, 0.7232, 0.8055, 0.9074, 0.7567, 0.7011,
            0.6255, 0.7352, 0.8034, 0.8814, 0.8660, 0.7768, 0.8942, 0.8769, 0.8560, 0.8935, 0.7993, 0.8234, 0.875],
    "labse": [0.9204, 0.9343, 0.9534, 0.9139, 0.9671, 0.9431, 0.9555, 0.9295, 0.9394, 0.9814, 0.9584, 0.9274,
              0.8360, 0.8858, 0.9588, 0.8874, 0.9176, 0.8536, 0.6483, 0.9166, 0.9848, 0.9861, 0.9701, 0.9523, 1.0],
    "minilm": [0.9803, 0.9444, 0.9764, 0.9924, 0.9722, 0.9217, 0.8805, 0.9022, 0.9037, 0.9398, 0.9725, 0.9130,
               0.9102, 0.9433, 0.9393, 0.9880, 0.9196, 0.9488, 0.9565, 0.9464, 0.9747, 0.9675, 0.9619, 0.9742,
               0.8888],
    "glove": [1.0, 1.0, 1.0, 0.9393, 1.0, 1.0, 1.0, 1.0, 0.9414, 1.0, 1.0, 1.0, 0.9992, 0.9442, 1.0, 0.9393,
              0.9414, 0.9442, 0.8873, 0.9345, 1.0, 1.0, 1.0, 0.9345, 1.0],
    "word2vec": [0.9969, 1.0, 0.9691, 0.9404, 1.0, 1.0, 1.0, 0.9686, 0.9394, 1.0, 0.9691, 0.9404, 0.9394,
                 0.9122, 0.9691, 0.9404, 0.9394, 0.9122, 0.8736, 0.9404, 1.0, 1.0, 0.9691, 0.9404, 1.0],
}
PAPER_TABLE7 = {
    "sbert": [0.5, 0.7561, 0.7549, 0.7883, 0.6382, 0.5, 0.5686, 0.5704, 0.3213, 0.5, 0.4899, 0.3045, 0.5, 0.2805, 0.5],
    "distilroberta": [0.5, 0.7594, 0.7006, 0.5545, 0.7700, 0.5, 0.4463, 0.3109, 0.4872, 0.5, 0.3577, 0.5372, 0.5,
                      0.6966, 0.5],
    "t5": [0.5, 0.6641, 0.6300, 0.5409, 0.7550, 0.5, 0.4454, 0.3849, 0.5333, 0.5, 0.4113, 0.6131, 0.5, 0.7212, 0.5],
    "dpr": [0.5, 0.3728, 0.3944, 0.4504, 0.6454, 0.5, 0.5078, 0.5705, 0.7304, 0.5, 0.5627, 0.7100, 0.5, 0.6635, 0.5],
    "labse": [0.5, 0.4252, 0.3386, 0.5268, 0.3316, 0.5, 0.4155, 0.6216, 0.3877, 0.5, 0.6838, 0.5209, 0.5, 0.2902,
              0.5],
    "minilm": [0.5, 0.7048, 0.7275, 0.5197, 0.8909, 0.5, 0.4987, 0.3521, 0.6598, 0.5, 0.3227, 0.6686, 0.5, 0.8222,
               0.5],
    "glove": [0.5, 0.6565, 0.6940, 0.7022, 0.4684, 0.5, 0.5428, 0.5552, 0.3215, 0.5, 0.5087, 0.2626, 0.5, 0.2558,
              0.5],
    "word2vec": [0.5, 0.7536, 0.6518, 0.4879, 0.9982, 0.5, 0.4289, 0.2953, 0.8103, 0.5, 0.3817, 0.8503, 0.5, 0.8642,
                 0.5],
}
PAPER_TABLE8 = {
    "sbert": [0.8030, 0.5000, 0.4907, 0.5833, 0.7777], "distilroberta": [0.7424, 0.5000, 0.5432, 0.7380, 0.3333],
    "t5": [0.6818, 0.5416, 0.5864, 0.6547, 0.4166], "dpr": [0.4772, 0.3750, 0.4907, 0.5595, 0.3611],
    "labse": [0.3560, 0.3055, 0.5123, 0.3273, 0.1944], "minilm": [0.6136, 0.4861, 0.4320, 0.6785, 0.1111],
    "glove": [0.6060, 0.2222, 0.2191, 0.3214, 0.2777], "word2vec": [0.5530, 0.2083, 0.3364, 0.4940, 0.0],
}
PAPER_TABLE1 = {  # 2 decimals, as printed
    "sbert": [0.95, 0.97, 0.99, 1.0, 0.97], "distilroberta": [1.0] * 5, "t5": [1.0] * 5,
    "dpr": [1.0, 1.0, 0.98, 1.0, 1.0], "labse": [1.0] * 5, "minilm": [1.0] * 5, "glove": [1.0] * 5,
    "word2vec": [1.0] * 5,
}


def paper_values(table: int, model: str) -> pd.Series | None:
    """A model's row of the paper's Table 1, 6, 7 or 8, indexed like our results (``None`` if absent).

    Model names are registry names (``minilm``, ``sbert``, ``glove`` ...); the
    ``-hub`` suffix is ignored.
    """
    key = model.removesuffix("-hub")
    source = {1: PAPER_TABLE1, 6: PAPER_TABLE6, 7: PAPER_TABLE7, 8: PAPER_TABLE8}[table]
    if key not in source:
        return None
    if table in (1, 8):
        return pd.Series(source[key], index=pd.Index(list(_T), name="type"))
    columns = _T6_COLUMNS if table == 6 else _T7_COLUMNS
    return pd.Series(source[key], index=pd.MultiIndex.from_tuples(columns, names=["type1", "type2"]))


def compare_with_paper(ours: pd.Series, paper: pd.Series, decimals: int = 4) -> pd.DataFrame:
    """Side by side: our score, ours truncated like the paper, the paper's, and the gap.

    Returns:
        Indexed like ``paper``: ``ours``, ``ours_printed``, ``paper``, ``gap``
        (ours - paper) and ``match`` (printed values equal).
    """
    frame = pd.DataFrame({"ours": ours.reindex(paper.index), "paper": paper})
    frame.insert(1, "ours_printed", [truncate(v, decimals) if pd.notna(v) else np.nan for v in frame["ours"]])
    frame["gap"] = frame["ours"] - frame["paper"]
    frame["match"] = np.isclose(frame["ours_printed"], frame["paper"], atol=1e-9)
    return frame


__all__ = [
    "MAX_SPLIT_DISTANCE", "PhraseSet", "EmbeddingTable", "build_phrases", "splits", "phrase", "intersectivity",
    "nonsubsectivity", "intersective_pairs", "consistency", "type_pair_matrix", "truncate",
    "type_difference_test", "per_adjective_counts", "paper_values", "compare_with_paper",
]
