"""The relation ``near <= far`` over pairs of distances: counted exactly per case, bootstrapped over items.

Intuition: a metamorphic test of an embedding often compares two distances
per case (Carvalho et al. Eq. 3, 5, 7: a phrase should lie closer to its
adjective than to its noun, ...). :class:`DistanceOrder` is a
:class:`mtlib.relations.Relation` whose cases are such pairs; its cases belong
to items (adjectives) that the bootstrap resamples, within strata (their
types). :func:`consistency_scores` turns its grouped result into the share of cases
that hold (Carvalho et al.'s consistency score E) with its interval.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations.base import Relation
from mtlib.relations.bootstrap import bootstrap_weights, percentile_interval
from mtlib.relations.errors import check_count
from mtlib.relations.result import RelationResult
from mtlib.utils.faces import renamed

__all__ = ["DistanceOrder", "consistency_scores"]


def _frame(labels: pd.DataFrame | pd.Series | Sequence[Any] | None, n: int, what: str) -> pd.DataFrame | None:
    if labels is None:
        return None
    frame = labels.to_frame() if isinstance(labels, pd.Series) else pd.DataFrame(labels)
    if frame.shape[1] == 1 and list(frame.columns) == [0]:
        frame.columns = [what]
    if len(frame) != n:
        raise ValueError(f"{len(frame)} {what} labels for {n} cases")
    return frame.reset_index(drop=True)


def _stratified_weights(
    pool: np.ndarray, strata: Mapping[Any, Any] | pd.Series | None, n_boot: int, seed: int
) -> np.ndarray:
    """Bootstrap multiplicities of the items ``(n_boot, len(pool))``, items resampled within their stratum."""
    labels = pd.Series(strata).reindex(pool) if strata is not None else pd.Series(index=pool, dtype=object)
    codes = pd.factorize(labels.fillna("").to_numpy(dtype=object).astype(str))[0]
    weights = np.zeros((n_boot, len(pool)))
    for s in range(codes.max() + 1 if len(codes) else 0):
        idx = np.flatnonzero(codes == s)
        weights[:, idx] = bootstrap_weights(len(idx), n_boot, seed + s)
    return weights


class DistanceOrder(Relation):
    """An order relation over distances: every case must have ``near <= far`` (Carvalho et al. Eq. 3, 5, 7).

    Each Montague test of notebook 04 compares two cosine distances per case, e.g. Eq. 7
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

    def check(
        self,
        near: np.ndarray,
        far: np.ndarray | None = None,
        items: pd.DataFrame | Sequence[Any] | None = None,
        groups: pd.DataFrame | Sequence[Any] | None = None,
        strata: Mapping[Any, Any] | None = None,
        n_boot: int = 1000,
        seed: int = 0,
        *,
        per_item: pd.DataFrame | Sequence[Any] | None = None,
    ) -> RelationResult:
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
            per_item: Another name for ``items`` (the keyword of :meth:`mtlib.relations.Relation.check`).

        Returns:
            A :class:`RelationResult`; ``groups`` has ``violations, cases,
            rate, ci_low, ci_high`` per group, ``per_item`` one row per item tuple;
            ``extra["n_boot"]`` says whether the intervals were computed.

        Raises:
            MtlibInputError: ``n_boot`` is not an integer >= 0.
        """
        n_boot = check_count(n_boot, "DistanceOrder.check", "n_boot")
        if far is None:
            raise TypeError(f"{self.name}: check() needs both distances, near and far")
        if items is None:
            items = per_item
        near, far = np.asarray(near, dtype=float), np.asarray(far, dtype=float)
        if near.ndim != 1 or near.shape != far.shape:
            raise ValueError(f"near {near.shape} and far {far.shape} must be 1-D arrays of one length")
        if np.isnan(near).any() or np.isnan(far).any():
            raise ValueError(
                f"{self.name}: {int(np.isnan(near).sum() + np.isnan(far).sum())} NaN distances "
                "(drop the cases whose texts have no vector before checking)"
            )
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
        return RelationResult(
            relation=self.name,
            cases=cases,
            violations=violations,
            ci_low=float(low[0]),
            ci_high=float(high[0]),
            ci_method=method,
            per_item=per_item,
            groups=table,
            extra={"n_items": len(pool), "count_seconds": seconds, "n_boot": int(n_boot)},
        )


def _item_codes(item_frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """One pool of item labels over all columns, and each case's codes into it, shape ``(n, k)``."""
    per_column = [pd.factorize(item_frame[c]) for c in item_frame.columns]
    pool = pd.unique(np.concatenate([np.asarray(u, dtype=object) for _, u in per_column]))
    where = pd.Index(pool, dtype=object)
    codes = [where.get_indexer(np.asarray(u, dtype=object))[c] for c, u in per_column]
    return np.asarray(pool, dtype=object), np.column_stack(codes).astype(np.int64)


def _per_item(
    columns: Sequence[str],
    group_values: pd.DataFrame | None,
    entries: np.ndarray,
    v_e: np.ndarray,
    c_e: np.ndarray,
    pool: np.ndarray,
) -> pd.DataFrame:
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


def _intervals(
    entry_items: np.ndarray,
    v_e: np.ndarray,
    c_e: np.ndarray,
    member: np.ndarray,
    pool: np.ndarray,
    strata: Mapping[Any, Any] | None,
    n_boot: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of the violation rate of each column of ``member`` (entries x selections)."""
    if not n_boot or not len(entry_items):
        return np.full(member.shape[1], np.nan), np.full(member.shape[1], np.nan)
    weights = _stratified_weights(pool, strata, n_boot, seed)
    w = weights[:, entry_items[:, 0]]
    for j in range(1, entry_items.shape[1]):
        w = w * weights[:, entry_items[:, j]]
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = (w @ (v_e[:, None] * member)) / (w @ (c_e[:, None] * member))  # (n_boot, selections)
    bounds = np.array([percentile_interval(rates[:, j]) for j in range(member.shape[1])])
    return bounds[:, 0], bounds[:, 1]


def consistency_scores(result: RelationResult) -> pd.DataFrame:
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
    return pd.DataFrame(
        {
            "E": k / g["cases"],
            "ci_low": 1.0 - g["ci_high"],
            "ci_high": 1.0 - g["ci_low"],
            "k": k,
            "n": g["cases"].astype(np.int64),
        },
        index=g.index,
    )


consistency = renamed(consistency_scores, "consistency")  # the old name, for one release
