"""Montague adjective tests on embedding models (Carvalho et al., Eq. 3-8).

Intuition: read an embedding as a proxy for a denotation (a set). For an
intersective adjective, "red car" is the intersection of red things and cars,
so the phrase should lie closer to each of its words than the words lie to
each other (intersectivity, Eq. 3); phrases sharing an intersective adjective
("Canadian writer", "Canadian surgeon") should be closer than phrases sharing a
non-intersective one (Eq. 5); and a non-subsective adjective ("fake",
"former") should pull the phrase towards itself and away from the noun (Eq. 7).
Each test is an order relation between two cosine distances per case
(:class:`DistanceOrder`, a :class:`mtlib.relations.Relation`): ``near <= far``.
Its *consistency score* E is the share of cases where it holds (1 - the
violation rate), over phrases of the regular language ``(adj)+ noun``, grouped
by adjective type, with per-adjective counts and a bootstrap interval over
adjectives like every other relation of the project.

Everything is computed in matrix form: every unique text (words, AN and AAN
phrases, adjective pairs) is embedded once, rows are L2-normalised, and each
test gathers rows by integer index and compares whole arrays; no Python loop
runs over the 44k phrases x 9 comparisons.

The single-phrase test for phrases of more than two terms follows the
published numbers: each ``d(p, t_i)`` is compared with the distance between
every split of the phrase into a sub-phrase and its complement (each embedded
as text), a split counting only when its distance is below 1. With this
reading the MiniLM rows of the paper's Tables 2 and 6 reproduce exactly.

Entry point: :func:`run_tests` (one model, every test) -> :class:`MontagueReport`
(``metrics()``, ``tables()``, ``headline``), recorded with ``Run.record_report``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mtlib.data import papers
from mtlib.analysis import stats
from mtlib.data.adjectives import ADJECTIVE_TYPES, TYPE_NAMES
from mtlib.relations import Relation, RelationResult
from mtlib.utils.similarity import normalize_rows

#: Rows per chunk of :meth:`EmbeddingTable.distance` (a few MB of gathered vectors at a time).
DISTANCE_CHUNK = 4096
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
    return [(phrase(*(terms[i] for i in part)), phrase(*(terms[i] for i in rest)))
            for part, rest in split_positions(len(terms))]


def split_positions(h: int) -> list[tuple[list[int], list[int]]]:
    """The term positions of every split of an ``h``-term phrase (see :func:`splits`): ``(part, rest)`` pairs."""
    out = []
    for mask in range(1 << (h - 1)):
        part = [0] + [i for i in range(1, h) if mask >> (i - 1) & 1]
        rest = [i for i in range(h) if i not in part]
        if rest:
            out.append((part, rest))
    return out


def _join(terms: np.ndarray, positions: Sequence[int]) -> np.ndarray:
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
        return {"n_adjectives": len(self.adjectives), "n_nouns": len(self.nouns), "n_phrases_an": len(self.an),
                "n_phrases_aan": len(self.aan), "n_texts": len(self.texts)}

    def summary(self) -> str:
        """One line: how many words, phrases and texts to embed."""
        return (f"{len(self.adjectives)} adjectives, {len(self.nouns)} nouns: {len(self.an)} AN + "
                f"{len(self.aan):,} AAN phrases = {self.n_phrases:,}; {len(self.texts):,} unique texts to embed "
                "per model")

    def adjectives_by_type(self) -> pd.DataFrame:
        """One row per adjective type (in the paper's order): its name and its adjectives."""
        words = self.adjectives.groupby("type", sort=False)["word"].apply(", ".join)
        order = [t for t in ADJECTIVE_TYPES if t in words.index] + [t for t in words.index if t not in ADJECTIVE_TYPES]
        return pd.DataFrame({"name": [TYPE_NAMES.get(t, t) for t in order], "adjectives": words[order].to_list()},
                            index=pd.Index(order, name="type"))


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
        self._index = pd.Index(np.asarray(self.texts, dtype=object), dtype=object)
        if not self._index.is_unique:
            raise ValueError("EmbeddingTable texts must be unique")
        vectors = np.asarray(vectors, dtype=np.float64)
        self.valid = ~np.isnan(vectors).any(axis=1)
        self.unit = normalize_rows(np.nan_to_num(vectors))

    @classmethod
    def from_model(cls, model, texts: Sequence[str]) -> EmbeddingTable:
        """Embed every text once with ``model.embed``."""
        return cls(texts, model.embed(list(texts)))

    def rows(self, texts: Sequence[str] | np.ndarray) -> np.ndarray:
        """Row indices of texts (any shape of array of strings).

        Raises:
            KeyError: a text that was not embedded (the first few are named).
        """
        arr = np.asarray(texts, dtype=object)
        if not arr.size:
            return arr.astype(np.int64)
        idx = self._index.get_indexer(arr.ravel()).astype(np.int64)
        if (idx < 0).any():
            raise KeyError(f"texts not embedded: {list(arr.ravel()[idx < 0][:5])}")
        return idx.reshape(arr.shape)

    def distance(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Cosine distance between rows ``a`` and ``b`` (index arrays broadcast to one shape).

        Computed in chunks of rows, so no ``(n, d)`` copy of the gathered
        vectors is ever made for the 44k phrases (memory bandwidth, not
        arithmetic, is what this costs).
        """
        a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
        flat_a, flat_b = a.ravel(), b.ravel()
        out = np.empty(flat_a.shape, dtype=np.float64)
        for start in range(0, len(flat_a), DISTANCE_CHUNK):
            sl = slice(start, start + DISTANCE_CHUNK)
            out[sl] = 1.0 - np.einsum("nd,nd->n", self.unit[flat_a[sl]], self.unit[flat_b[sl]])
        return out.reshape(a.shape)


# ---------------------------------------------------------------------------
# The relation: near <= far, counted exactly, bootstrapped over adjectives
# ---------------------------------------------------------------------------


def _label(value: Any) -> str:
    """A group label for metric keys: ``"S-I"`` or ``"S-I,S-NI"`` for a tuple."""
    return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _frame(labels: pd.DataFrame | pd.Series | Sequence[Any] | None, n: int, what: str) -> pd.DataFrame | None:
    if labels is None:
        return None
    frame = labels.to_frame() if isinstance(labels, pd.Series) else pd.DataFrame(labels)
    if frame.shape[1] == 1 and list(frame.columns) == [0]:
        frame.columns = [what]
    if len(frame) != n:
        raise ValueError(f"{len(frame)} {what} labels for {n} cases")
    return frame.reset_index(drop=True)


def _stratified_weights(pool: np.ndarray, strata: Mapping[Any, Any] | pd.Series | None, n_boot: int,
                        seed: int) -> np.ndarray:
    """Bootstrap multiplicities of the items ``(n_boot, len(pool))``, items resampled within their stratum."""
    labels = (pd.Series(strata).reindex(pool) if strata is not None else pd.Series(index=pool, dtype=object))
    codes = pd.factorize(labels.fillna("").to_numpy(dtype=object).astype(str))[0]
    weights = np.zeros((n_boot, len(pool)))
    for s in range(codes.max() + 1 if len(codes) else 0):
        idx = np.flatnonzero(codes == s)
        weights[:, idx] = stats.bootstrap_weights(len(idx), n_boot, seed + s)
    return weights


class DistanceOrder(Relation):
    """An order relation over distances: every case must have ``near <= far`` (Carvalho et al. Eq. 3, 5, 7).

    Each Montague test compares two cosine distances per case, e.g. Eq. 7
    ``d(p, a) <= d(p, n)``: the case holds when ``near <= far`` (ties hold,
    as the paper's ``<=``) and is violated otherwise. The consistency score E
    of the paper is ``1 - rate`` (computed exactly as ``holds / cases``).

    Cases belong to *items* (the adjective of an AN phrase, both adjectives
    of an AAN phrase): ``per_item`` counts per item tuple, and the 95%
    interval resamples items (within their stratum, e.g. the adjective's
    type, so every type keeps its size), a case weighted by the product of
    its items' multiplicities. Phrases sharing an adjective are not
    independent; this interval respects that.
    """

    family = "distance order"

    def check(self, near: np.ndarray, far: np.ndarray, items: pd.DataFrame | Sequence[Any] | None = None,
              groups: pd.DataFrame | Sequence[Any] | None = None, strata: Mapping[Any, Any] | None = None,
              n_boot: int = 1000, seed: int = 0) -> RelationResult:
        """Count cases with ``near > far``, per item and per group, with bootstrap intervals over items.

        Args:
            near, far: The two distances of each case, shape ``(n,)``.
            items: Item labels of each case, ``(n,)`` or a DataFrame ``(n, k)``
                (e.g. columns ``adj1, adj2``: labels of all columns share one
                pool of items); ``None``: each case is its own item.
            groups: Group labels of each case (e.g. ``type`` or ``type1, type2``,
                categorical columns keep their category order); ``None``: no breakdown.
            strata: Stratum of each item label (e.g. adjective -> type); items
                are resampled within strata.
            n_boot: Bootstrap replicates (0 skips the intervals).
            seed: Seeds the bootstrap.

        Returns:
            A :class:`RelationResult`; ``groups`` has ``violations, cases,
            rate, ci_low, ci_high`` per group, ``per_item`` one row per item tuple.
        """
        near, far = np.asarray(near, dtype=float), np.asarray(far, dtype=float)
        if near.ndim != 1 or near.shape != far.shape:
            raise ValueError(f"near {near.shape} and far {far.shape} must be 1-D arrays of one length")
        if np.isnan(near).any() or np.isnan(far).any():
            raise ValueError(f"{self.name}: {int(np.isnan(near).sum() + np.isnan(far).sum())} NaN distances "
                             "(drop the cases whose texts have no vector before checking)")
        n = len(near)
        start = time.perf_counter()
        bad = near > far
        item_frame = _frame(items, n, "item")
        if item_frame is None:
            item_frame = pd.DataFrame({"item": np.arange(n)})
        group_frame = _frame(groups, n, "group")
        if group_frame is None:
            gcode, group_values = np.zeros(n, dtype=np.int64), None
        else:
            gcode = group_frame.groupby(list(group_frame.columns), sort=True, observed=True).ngroup().to_numpy()
            first = pd.Series(np.arange(n)).groupby(gcode).first().to_numpy()
            group_values = group_frame.iloc[first].reset_index(drop=True)
        pool, codes = _item_codes(item_frame)
        # one entry per (item tuple, group): the unit the bootstrap reweights; keys in mixed radix
        radix = [len(pool)] * codes.shape[1] + [int(gcode.max()) + 1 if n else 1]
        keys, inverse = np.unique(np.ravel_multi_index((*codes.T, gcode), radix), return_inverse=True)
        entries = np.column_stack(np.unravel_index(keys, radix)) if n else np.zeros((0, len(radix)), np.int64)
        v_e = np.bincount(inverse, weights=bad, minlength=len(entries))
        c_e = np.bincount(inverse, minlength=len(entries)).astype(float)
        per_item = _per_item(item_frame.columns, group_values, entries, v_e, c_e, pool)
        seconds = time.perf_counter() - start
        n_groups = 0 if group_values is None else len(group_values)
        # column 0: every entry (overall); column 1 + g: the entries of group g
        member = np.zeros((len(entries), 1 + n_groups))
        member[:, 0] = 1.0
        if n_groups:
            member[np.arange(len(entries)), 1 + entries[:, -1]] = 1.0
        low, high = _intervals(entries[:, :-1], v_e, c_e, member, pool, strata, n_boot, seed)
        table = None
        if group_values is not None:
            table = group_values.copy()
            table["violations"] = (v_e @ member[:, 1:]).round().astype(np.int64)
            table["cases"] = (c_e @ member[:, 1:]).round().astype(np.int64)
            table["rate"] = table["violations"] / table["cases"]
            table["ci_low"], table["ci_high"] = low[1:], high[1:]
            table = table.set_index(list(group_values.columns))
        violations, cases = int(bad.sum()), n
        method = f"bootstrap over items (B={n_boot}{', within strata' if strata is not None else ''})"
        return RelationResult(self.name, cases, violations, violations / cases if cases else float("nan"),
                              float(low[0]), float(high[0]), method, per_item, table,
                              {"n_items": len(pool), "count_seconds": seconds})


def _item_codes(item_frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """One pool of item labels over all columns, and each case's codes into it, shape ``(n, k)``."""
    per_column = [pd.factorize(item_frame[c]) for c in item_frame.columns]
    pool = pd.unique(np.concatenate([np.asarray(u, dtype=object) for _, u in per_column]))
    where = pd.Index(pool, dtype=object)
    codes = [where.get_indexer(np.asarray(u, dtype=object))[c] for c, u in per_column]
    return np.asarray(pool, dtype=object), np.column_stack(codes).astype(np.int64)


def _per_item(columns: Sequence[str], group_values: pd.DataFrame | None, entries: np.ndarray, v_e: np.ndarray,
              c_e: np.ndarray, pool: np.ndarray) -> pd.DataFrame:
    """Counts per item tuple (with its group when each tuple lies in one group)."""
    units, unit_of_entry = np.unique(entries[:, :-1], axis=0, return_inverse=True)
    unit_of_entry = unit_of_entry.ravel()
    frame = pd.DataFrame({c: pool[units[:, j]] for j, c in enumerate(columns)})
    if group_values is not None and len(units) == len(entries):
        for c in group_values.columns:
            frame[c] = group_values[c].to_numpy()[entries[:, -1]]
    frame["violations"] = np.bincount(unit_of_entry, weights=v_e, minlength=len(units)).astype(np.int64)
    frame["cases"] = np.bincount(unit_of_entry, weights=c_e, minlength=len(units)).astype(np.int64)
    frame["rate"] = frame["violations"] / frame["cases"]
    return frame


def _intervals(entry_items: np.ndarray, v_e: np.ndarray, c_e: np.ndarray, member: np.ndarray, pool: np.ndarray,
               strata: Mapping[Any, Any] | None, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of the violation rate of each column of ``member`` (entries x selections)."""
    if not n_boot or not len(entry_items):
        return np.full(member.shape[1], np.nan), np.full(member.shape[1], np.nan)
    weights = _stratified_weights(pool, strata, n_boot, seed)
    w = weights[:, entry_items[:, 0]]
    for j in range(1, entry_items.shape[1]):
        w = w * weights[:, entry_items[:, j]]
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = (w @ (v_e[:, None] * member)) / (w @ (c_e[:, None] * member))  # (n_boot, selections)
    bounds = np.array([stats.percentile_interval(rates[:, j]) for j in range(member.shape[1])])
    return bounds[:, 0], bounds[:, 1]


#: Eq. 3: the phrase is closer to each of its terms than any split of it is to its complement.
INTERSECTIVITY = DistanceOrder("intersectivity (Eq. 3)")
#: Eq. 5: ``d(a1 n1, a1 n2) <= d(a2 n1, a2 n2)``.
PAIR_INTERSECTIVITY = DistanceOrder("phrase-pair intersectivity (Eq. 5)")
#: Eq. 7: ``d(p, a) <= d(p, n)``.
NONSUBSECTIVITY = DistanceOrder("non-subsectivity (Eq. 7)")


def consistency(result: RelationResult) -> pd.DataFrame:
    """The paper's consistency score E per group, from a :class:`DistanceOrder` result with groups.

    Returns:
        Indexed like ``result.groups``: ``E`` (holds / cases, exact),
        ``ci_low``, ``ci_high`` (the interval of E: one minus the violation
        rate's), ``k`` (cases that hold) and ``n`` (cases).
    """
    g = result.groups
    if g is None:
        raise ValueError(f"{result.relation}: no groups to score (check() was called without groups)")
    k = (g["cases"] - g["violations"]).astype(np.int64)
    return pd.DataFrame({"E": k / g["cases"], "ci_low": 1.0 - g["ci_high"], "ci_high": 1.0 - g["ci_low"], "k": k,
                         "n": g["cases"].astype(np.int64)}, index=g.index)


# ---------------------------------------------------------------------------
# The three tests: the two distances of every case
# ---------------------------------------------------------------------------


def _valid(table: EmbeddingTable, *index_arrays: np.ndarray) -> np.ndarray:
    ok = np.ones(len(index_arrays[0]), dtype=bool)
    for idx in index_arrays:
        ok &= table.valid[idx].reshape(len(idx), -1).all(axis=1)
    return ok


def intersectivity(table: EmbeddingTable, phrases: pd.DataFrame, term_columns: Sequence[str],
                   *, max_split_distance: float | None = MAX_SPLIT_DISTANCE) -> pd.DataFrame:
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
    s_idx = np.stack([np.stack([table.rows(_join(terms, part)), table.rows(_join(terms, rest))], axis=-1)
                      for part, rest in split_positions(terms.shape[1])], axis=1)  # (n, splits, 2)
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
    valid = table.valid[an_rows]
    pair_ok = valid[:, iu[0]] & valid[:, iu[1]]  # (A, P)
    a1, a2 = np.nonzero(~np.eye(len(adjs), dtype=bool))
    ok = pair_ok[a1] & pair_ok[a2]  # (A(A-1), P)
    i, p = np.nonzero(ok)
    # labels as categoricals built from codes: 61 x 60 x 66 cases, no per-case string work
    words = pd.Index(adjs["word"].to_numpy(dtype=object), dtype=object)
    type_cats = _type_order(adjs["type"])
    type_code = pd.Index(type_cats).get_indexer(adjs["type"].to_numpy(dtype=object))
    noun_cats = pd.Index(nouns, dtype=object)
    return pd.DataFrame({
        "adj1": pd.Categorical.from_codes(a1[i], categories=words),
        "adj2": pd.Categorical.from_codes(a2[i], categories=words),
        "type1": pd.Categorical.from_codes(type_code[a1[i]], categories=type_cats),
        "type2": pd.Categorical.from_codes(type_code[a2[i]], categories=type_cats),
        "noun1": pd.Categorical.from_codes(iu[0][p], categories=noun_cats),
        "noun2": pd.Categorical.from_codes(iu[1][p], categories=noun_cats),
        "near": pair_d[a1[i], p], "far": pair_d[a2[i], p]})


def type_pair_matrix(scores: pd.DataFrame, order: Sequence[str] = ADJECTIVE_TYPES) -> pd.DataFrame:
    """Pivot a two-level consistency table (:func:`consistency`) into a T1 x T2 matrix of E."""
    matrix = scores["E"].unstack()
    rows = [t for t in order if t in matrix.index] + [t for t in matrix.index if t not in order]
    cols = [t for t in order if t in matrix.columns] + [t for t in matrix.columns if t not in order]
    return matrix.reindex(index=rows, columns=cols)


# ---------------------------------------------------------------------------
# Do adjective types differ? (beyond the paper)
# ---------------------------------------------------------------------------


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


def type_difference_test(per_adjective: pd.DataFrame, *, unit: Sequence[str], types: pd.Series,
                         permutations: int = 2000, seed: int = 0) -> dict[str, float | str]:
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

    observed, n_groups = stat(label)
    _, p_permutation = stats.permutation_test(lambda lab: stat(lab)[0], label, permutations=permutations, seed=seed)
    dof = max(1, n_groups - 1)
    return {"chi2": observed, "dof": dof, "p_chi2": float(sstats.chi2.sf(observed, dof)),
            "p_permutation": p_permutation,
            "method": f"chi-square of independence; adjective-label permutation test (B={permutations})"}


# ---------------------------------------------------------------------------
# Paper values (mtlib.data.papers) and the comparison with them
# ---------------------------------------------------------------------------

_PAPER_TABLES = {1: papers.CARVALHO_TABLE1, 6: papers.CARVALHO_TABLE6, 7: papers.CARVALHO_TABLE7,
                 8: papers.CARVALHO_TABLE8}
#: Models of this project shown beside a different model of the paper (never compared cell by cell):
#: registry name -> (paper row, label of that row).
PAPER_COUNTERPARTS = {"glove-50d": ("glove", "glove 300d (paper, printed)")}


def paper_values(table: int, model: str) -> pd.Series | None:
    """A model's row of the paper's Table 1, 6, 7 or 8, indexed like our results (``None`` if absent).

    Model names are registry names (``minilm``, ``sbert``, ``glove`` ...); the
    ``-hub`` suffix is ignored. Values come from :mod:`mtlib.data.papers`.
    """
    key = str(model).removesuffix("-hub")
    source = _PAPER_TABLES[table]
    if key not in source:
        return None
    if table in (1, 8):
        return pd.Series(source[key], index=pd.Index(list(papers.CARVALHO_TYPES), name="type"))
    columns = papers.CARVALHO_TABLE6_COLUMNS if table == 6 else papers.CARVALHO_TABLE7_COLUMNS
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


# ---------------------------------------------------------------------------
# One model, every test: run_tests -> MontagueReport
# ---------------------------------------------------------------------------


class TestSpec(NamedTuple):
    """How one Montague test is checked and reported.

    Attributes:
        relation: The :class:`DistanceOrder` it checks.
        items: Case columns naming its adjectives (the bootstrap's items).
        groups: Case columns naming their types (the breakdown).
        table: The paper table holding its published values.
    """

    relation: DistanceOrder
    items: tuple[str, ...]
    groups: tuple[str, ...]
    table: int


#: Metric name -> test. Metric keys are ``<name>/<type>`` or ``<name>/<type1>,<type2>``.
TESTS = {
    "intersective_an": TestSpec(INTERSECTIVITY, ("adj",), ("type",), 1),
    "intersective_aan": TestSpec(INTERSECTIVITY, ("adj1", "adj2"), ("type1", "type2"), 6),
    "intersective_pairs": TestSpec(PAIR_INTERSECTIVITY, ("adj1", "adj2"), ("type1", "type2"), 7),
    "nonsubsective": TestSpec(NONSUBSECTIVITY, ("adj",), ("type",), 8),
}


def _typed(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Type columns as categoricals in the paper's order (unknown types after, sorted)."""
    out = {}
    for c in columns:
        codes, present = pd.factorize(frame[c])
        cats = _type_order(present)
        out[c] = pd.Categorical.from_codes(pd.Index(cats).get_indexer(present)[codes], categories=cats)
    return pd.DataFrame(out)


def _type_order(types: Sequence[str]) -> list[str]:
    """Types in the paper's order, unknown ones after, sorted."""
    present = set(types)
    return [t for t in ADJECTIVE_TYPES if t in present] + sorted(present - set(ADJECTIVE_TYPES))


@dataclass
class MontagueReport:
    """The three Montague tests (four tables) of one model on one phrase set.

    Attributes:
        model: The model's name (registry name or path, as given).
        results: Test name (see :data:`TESTS`) -> :class:`RelationResult`
            (``groups`` per type or type pair, ``per_item`` per adjective or
            adjective pair, bootstrap intervals over adjectives within types).
        n_texts: Unique texts embedded.
        excluded_phrases: AN and AAN phrases dropped because a text has no
            vector (a word out of a static model's vocabulary).
        missing_words: Adjectives and nouns without a vector.
        type_tests: One row per test: :func:`type_difference_test` outcome.
        embed_seconds, test_seconds: Time to embed every text; to run the tests.
        cases: Test name -> one row per case (per phrase; per adjective pair and noun pair for
            ``intersective_pairs``) with its ``near`` and ``far`` distances; not saved as tables.
    """

    model: str
    results: dict[str, RelationResult]
    n_texts: int
    excluded_phrases: int
    missing_words: list[str]
    type_tests: pd.DataFrame
    embed_seconds: float
    test_seconds: float
    cases: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @property
    def paper_model(self) -> bool:
        """Whether the paper publishes this model's rows (``minilm`` does)."""
        return paper_values(6, self.model) is not None

    @property
    def headline(self) -> list[str]:
        """Keys for the runner's summary: overall consistency, and the Table 6 match when published."""
        heads = ["intersective_an/overall", "intersective_aan/overall", "nonsubsective/overall"]
        return heads + (["paper_match/table6"] if self.paper_model else [])

    def consistency(self, test: str) -> pd.DataFrame:
        """E with its interval, k and n per type (or type pair) of one test (see :func:`consistency`)."""
        return consistency(self.results[test])

    def matrix(self, test: str) -> pd.DataFrame:
        """A type-pair test as a T1 x T2 matrix of E (rows: first adjective / a1)."""
        return type_pair_matrix(self.consistency(test))

    def per_adjective(self, test: str) -> pd.DataFrame:
        """Per adjective (or adjective pair): ``k`` (holds), ``n``, ``E`` and its type(s)."""
        frame = self.results[test].per_item.copy()
        frame.insert(len(frame.columns) - 3, "k", frame["cases"] - frame["violations"])
        return frame.rename(columns={"cases": "n"}).drop(columns=["violations", "rate"]).assign(
            E=lambda d: d["k"] / d["n"])

    def comparison(self, table: int) -> pd.DataFrame | None:
        """Our scores beside the paper's Table ``table`` (1, 6, 7 or 8), or ``None`` when not published."""
        paper = paper_values(table, self.model)
        if paper is None:
            return None
        test = next(name for name, spec in TESTS.items() if spec.table == table)
        return compare_with_paper(self.consistency(test)["E"], paper, papers.CARVALHO_DECIMALS[table])

    def fidelity(self) -> pd.DataFrame:
        """Per published table: ``model, table, cells, matching, max_abs_gap`` (empty when not published)."""
        rows = []
        for table in (1, 6, 8, 7):
            cmp = self.comparison(table)
            if cmp is not None:
                rows.append({"model": self.model, "table": table, "cells": len(cmp),
                             "matching": int(cmp["match"].sum()), "max_abs_gap": float(cmp["gap"].abs().max())})
        return pd.DataFrame(rows, columns=["model", "table", "cells", "matching", "max_abs_gap"])

    def metrics(self) -> dict[str, Any]:
        """Flat metrics without a model prefix (``Run.record_report`` adds it).

        Per test and group: ``<test>/<group>`` (E), ``<test>_ci_low/<group>``,
        ``<test>_ci_high/<group>``, ``<test>_cases/<group>``; the same with
        group ``overall``; ``paper_match|paper_cells|paper_max_gap/table<N>``
        for a published model; ``type_test_p_permutation|type_test_p_chi2/<test>``;
        ``n_texts``, ``excluded_phrases``, ``missing_words``; ``embed_seconds``, ``test_seconds``.
        """
        out: dict[str, Any] = {}
        for test, result in self.results.items():
            frame = self.consistency(test)
            k = result.cases - result.violations
            overall = pd.DataFrame({"E": [k / result.cases if result.cases else np.nan],
                                    "ci_low": [1.0 - result.ci_high], "ci_high": [1.0 - result.ci_low],
                                    "n": [result.cases]}, index=["overall"])
            for label, row in [*zip(map(_label, frame.index), frame.itertuples()), ("overall", *overall.itertuples())]:
                out[f"{test}/{label}"] = float(row.E)
                out[f"{test}_ci_low/{label}"] = float(row.ci_low)
                out[f"{test}_ci_high/{label}"] = float(row.ci_high)
                out[f"{test}_cases/{label}"] = int(row.n)
        for row in self.fidelity().itertuples():
            out[f"paper_match/table{row.table}"] = int(row.matching)
            out[f"paper_cells/table{row.table}"] = int(row.cells)
            out[f"paper_max_gap/table{row.table}"] = float(row.max_abs_gap)
        for row in self.type_tests.itertuples():
            out[f"type_test_p_permutation/{row.test}"] = float(row.p_permutation)
            out[f"type_test_p_chi2/{row.test}"] = float(row.p_chi2)
        out.update({"n_texts": self.n_texts, "excluded_phrases": self.excluded_phrases,
                    "missing_words": len(self.missing_words), "embed_seconds": self.embed_seconds,
                    "test_seconds": self.test_seconds})
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """Named tables to save: consistency with intervals per test, per-adjective counts, paper comparisons.

        (The type-difference tests are in :attr:`type_tests`; :func:`type_tests_table` stacks them over models.)
        """
        out = {f"consistency_{test}": self.consistency(test).reset_index() for test in self.results}
        out.update({f"per_adjective_{test}": self.per_adjective(test) for test in self.results})
        out["table6_intersective_aan"] = self.matrix("intersective_aan")
        out["table7_intersective_pairs"] = self.matrix("intersective_pairs")
        for table in (1, 6, 7, 8):
            cmp = self.comparison(table)
            if cmp is not None:
                out[f"paper_table{table}"] = cmp.reset_index()
        return out

    def summary(self) -> str:
        """One line: texts embedded, times, exclusions, and the paper match when published."""
        text = (f"{self.model}: embedded {self.n_texts:,} texts in {self.embed_seconds:.1f} s, tests in "
                f"{self.test_seconds:.2f} s, {self.excluded_phrases} phrases excluded")
        if self.missing_words:
            text += f" (words without a vector: {', '.join(self.missing_words[:20])})"
        fid = self.fidelity()
        if len(fid):
            text += "; paper cells matched: " + ", ".join(f"Table {r.table} {r.matching}/{r.cells}"
                                                          for r in fid.itertuples())
        return text


def run_tests(model: Any, phrases: PhraseSet, *, name: str | None = None,
              max_split_distance: float | None = MAX_SPLIT_DISTANCE, n_boot: int = 1000, permutations: int = 2000,
              seed: int = 0) -> MontagueReport:
    """Embed every text once and run the three Montague tests (four tables) on one model.

    Args:
        model: Anything with ``embed(texts) -> (n, d)`` (NaN rows: no vector).
        phrases: From :func:`build_phrases`.
        name: The model's name for the report and the paper lookup (default ``model.name``).
        max_split_distance: See :func:`intersectivity`.
        n_boot: Bootstrap replicates over adjectives (0 skips the intervals).
        permutations: Label shuffles of the type-difference tests (0 skips them).
        seed: Seeds the bootstrap and the permutations.

    Returns:
        A :class:`MontagueReport`.
    """
    name = str(name if name is not None else getattr(model, "name", type(model).__name__))
    start = time.perf_counter()
    table = EmbeddingTable.from_model(model, phrases.texts)
    embed_seconds = time.perf_counter() - start
    start = time.perf_counter()
    cases = {"intersective_an": intersectivity(table, phrases.an, ["adj", "noun"],
                                               max_split_distance=max_split_distance),
             "intersective_aan": intersectivity(table, phrases.aan, ["adj1", "adj2", "noun"],
                                                max_split_distance=max_split_distance),
             "intersective_pairs": intersective_pairs(table, phrases),
             "nonsubsective": nonsubsectivity(table, phrases.an)}
    types = phrases.adjectives.set_index("word")["type"]
    results = {test: spec.relation.check(frame["near"].to_numpy(), frame["far"].to_numpy(),
                                         frame[list(spec.items)], _typed(frame, spec.groups), types, n_boot, seed)
               for test, (frame, spec) in ((t, (cases[t], s)) for t, s in TESTS.items())}
    test_seconds = time.perf_counter() - start
    words = [*phrases.adjectives["word"], *phrases.nouns]
    missing = [w for w, ok in zip(words, table.valid[table.rows(words)]) if not ok]
    type_tests = pd.DataFrame([{"model": name, "test": test, **type_difference_test(
        _unit_counts(results[test], TESTS[test].items), unit=list(TESTS[test].items), types=types,
        permutations=permutations, seed=seed)} for test in TESTS] if permutations else [],
        columns=["model", "test", "chi2", "dof", "p_chi2", "p_permutation", "method"])
    excluded = phrases.n_phrases - len(cases["intersective_an"]) - len(cases["intersective_aan"])
    return MontagueReport(name, results, len(phrases.texts), excluded, missing, type_tests, embed_seconds,
                          test_seconds, cases)


def _unit_counts(result: RelationResult, unit: Sequence[str]) -> pd.DataFrame:
    """Per-item counts as ``unit..., k, n`` (what :func:`type_difference_test` reads)."""
    frame = result.per_item
    return pd.DataFrame({**{c: frame[c] for c in unit}, "k": frame["cases"] - frame["violations"],
                         "n": frame["cases"]})


# ---------------------------------------------------------------------------
# Several models side by side
# ---------------------------------------------------------------------------


def across_models(reports: Mapping[str, MontagueReport], test: str) -> pd.DataFrame:
    """One row per model (E per type of a one-type test), plus the paper's printed row of each model it publishes.

    A model with a different counterpart in the paper (:data:`PAPER_COUNTERPARTS`, e.g. ``glove-50d`` beside
    the paper's GloVe 300d) gets that row, labelled as such, to read beside it; it is not compared.
    """
    table = pd.DataFrame({name: r.consistency(test)["E"] for name, r in reports.items()}).T
    number = TESTS[test].table
    for name in reports:
        key, label = PAPER_COUNTERPARTS.get(name, (name, f"{name} (paper, printed)"))
        paper = paper_values(number, key)
        if paper is not None and label not in table.index:
            table.loc[label] = paper.reindex(table.columns)
    return table.rename_axis(index="model", columns="type")


def long_form(table: pd.DataFrame, value: str = "E") -> pd.DataFrame:
    """A models x types table as rows ``model, type, <value>`` (for grouped bar charts)."""
    return table.rename_axis(index="model", columns="type").stack().rename(value).reset_index()


def fidelity_table(reports: Mapping[str, MontagueReport]) -> pd.DataFrame:
    """Every report's :meth:`MontagueReport.fidelity`, stacked (empty when no model is published)."""
    frames = [r.fidelity() for r in reports.values()]
    return (pd.concat(frames, ignore_index=True) if frames else
            pd.DataFrame(columns=["model", "table", "cells", "matching", "max_abs_gap"]))


def type_tests_table(reports: Mapping[str, MontagueReport]) -> pd.DataFrame:
    """Every report's type-difference tests, stacked."""
    return pd.concat([r.type_tests for r in reports.values()], ignore_index=True)


__all__ = [
    "MAX_SPLIT_DISTANCE", "PAPER_COUNTERPARTS", "TESTS", "DistanceOrder", "INTERSECTIVITY", "PAIR_INTERSECTIVITY",
    "NONSUBSECTIVITY", "MontagueReport", "PhraseSet", "EmbeddingTable", "TestSpec", "across_models",
    "build_phrases", "compare_with_paper", "consistency", "fidelity_table", "intersectivity", "intersective_pairs",
    "long_form", "nonsubsectivity", "paper_values", "phrase", "run_tests", "splits", "truncate",
    "type_difference_test", "type_pair_matrix", "type_tests_table",
]
