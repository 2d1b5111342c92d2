"""Pairwise relations: systematicity (§4, Eq. 4) and compositionality (§5, Eq. 5).

A case is an unordered pair of inputs whose source scores differ: the order of
the sources (or of a probe score on hidden states) must be kept, or reversed,
by the follow-ups (or the output score). Pairs are counted exactly by sorting
(:func:`~mtlib.relations.counting.count_order_violations`), never enumerated;
the interval resamples source items, with every replicate counted exactly
(a quadratic form for small segments, a weighted recount for large ones).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations import bootstrap, notation
from mtlib.relations.base import Relation, applied_masks, as_scorer, unique_outputs
from mtlib.relations.counting import EXPECTED_DIRECTIONS, count_order_violations
from mtlib.relations.errors import MtlibInputError, check_scores, refuse
from mtlib.relations.replicates import ReplicateCounts, order_replicates
from mtlib.relations.result import RelationResult, interval_from_boot, per_item_frame
from mtlib.relations.transformations.base import NotApplicable, apply

__all__ = ["PairwiseCompositionality", "PairwiseSystematicity"]


def _order_segments_boot(
    segments: list[dict[str, Any]], n: int, n_boot: int, seed: int, device: str | None = None
) -> tuple[np.ndarray | None, list[np.ndarray | None]]:
    """Bootstrap replicates of a pooled pairwise rate: one item-weight vector per replicate for every segment.

    Each replicate's counts are exact: every segment's replicates are counted
    together (:func:`~mtlib.relations.replicates.order_replicates`), on
    ``device`` when given (None: numpy on the host).

    Returns:
        ``(pooled (n_boot,), [per segment (n_boot,)])`` rates from the same
        resamples; ``(None, [None, ...])`` when ``n_boot`` is 0.
    """
    if not n_boot or not segments:
        return None, [None] * len(segments)
    pooled, parts = [], []
    for weights in bootstrap.weight_blocks(n, n_boot, seed, where="PairwiseSystematicity.check"):
        counts = [
            order_replicates(s["src"], s["flw"], weights[:, s["wkey"]], expected=s["expected"], device=device)
            for s in segments
        ]
        v, c = (np.sum([getattr(r, k) for r in counts], axis=0) for k in ("violations", "cases"))
        pooled.append(ReplicateCounts(v, c).rates)
        parts.append([c.rates for c in counts])
    return np.concatenate(pooled), [np.concatenate(p) for p in zip(*parts)]


class PairwiseSystematicity(Relation):
    """Pairwise systematicity (§4): ``s(y1) > s(y2) => s(y1') > s(y2')`` over every pair of sources.

    A case is an unordered pair of sources whose scores differ; it is violated
    unless the follow-ups are ordered strictly the same way (``expected="same"``)
    or strictly reversed (``"opposite"``). Counted exactly over all
    ``n (n - 1) / 2`` pairs.

    Args:
        name: Relation name.
        transform: The transformation T (e.g. a :class:`Concatenation`), or several.
        expected: ``"same"`` or ``"opposite"``; by default the transformation's
            own ``expected`` (``"opposite"`` for :class:`~mtlib.relations.transformations.Negation`).
    """

    family = "pairwise systematicity"
    min_inputs = (2, "no pairs to compare: need at least 2 texts with different scores")

    def __init__(self, name: str, transform: Any = None, *, expected: str | None = None, description: str = "") -> None:
        super().__init__(name, transform, description=description)
        self._explicit = expected is not None
        if expected is None:
            expected = self.transform.expected if self.transform is not None else "same"
        if expected not in EXPECTED_DIRECTIONS:
            raise ValueError(f"expected must be one of {list(EXPECTED_DIRECTIONS)}, got {expected!r}")
        self.expected = expected

    @property
    def rule(self) -> str:
        """Sources with equal scores make no case; a tie of the follow-ups is a violation (a strict order)."""
        return "tied sources are no case; tied follow-ups fail"

    def _expected_of(self, name: str) -> str:
        """The direction for one transformation: the one given, else the transformation's own."""
        t = next((t for t in self.transforms if t.name == name), None)
        return self.expected if self._explicit or t is None else t.expected

    def check(
        self,
        src: np.ndarray,
        flw: np.ndarray,
        *,
        per_item: pd.DataFrame | Sequence[Any] | None = None,
        n_boot: int = 1000,
        seed: int = 0,
        device: str | None = None,
    ) -> RelationResult:
        """Count violated pairs exactly, with per-item counts and a bootstrap over sources.

        Args:
            src: Scores of the sources, shape ``(n,)``.
            flw: Scores of their follow-ups, shape ``(n,)``.
            per_item: Labels or a DataFrame describing each source.
            n_boot: Bootstrap replicates (0 skips the interval).
            seed: Seeds the bootstrap.
            device: Where the counts and the bootstrap run: None for numpy on
                the host, or a torch device string (the same numbers).
        """
        return self.check_many(
            src,
            {self.transform.name if self.transform else "T": flw},
            per_item=per_item,
            n_boot=n_boot,
            seed=seed,
            device=device,
            _single=True,
        )

    def check_many(
        self,
        src: np.ndarray,
        flws: Mapping[str, np.ndarray],
        *,
        per_item: pd.DataFrame | Sequence[Any] | None = None,
        applied: Mapping[str, np.ndarray] | None = None,
        n_boot: int = 1000,
        seed: int = 0,
        items: Any = None,
        device: str | None = None,
        _single: bool = False,
        **unexpected: Any,
    ) -> RelationResult:
        """The relation under several transformations of the same sources (what :meth:`evaluate` calls).

        Args:
            src: Source scores ``(n,)``.
            flws: Follow-up scores per transformation id, each ``(n,)``.
            per_item: Labels or a DataFrame describing each source.
            applied: Per transformation id, a bool mask ``(n,)`` of the sources
                it applied to (the others are left out of its pairs).
            n_boot: Bootstrap replicates (one item-weight vector per replicate
                for all transformations); 0 skips the interval.
            device: Where the counts and the bootstrap run: None for numpy on
                the host, or a torch device string (the same numbers).

        Returns:
            Pooled counts over all transformations; ``groups`` has one row per
            transformation (with its own bootstrap interval); ``per_item``
            sums each source's violated and total cases over transformations.
            One transformation applied to every source (``applied`` all True)
            is checked as :meth:`check` would: no ``groups``.
        """
        if unexpected:
            raise TypeError(f"{type(self).__name__}.check_many got unexpected arguments {sorted(unexpected)}")
        _single = _single or (applied is not None and len(flws) == 1 and all(np.all(m) for m in applied.values()))
        if items is not None:
            warnings.warn("check_many(items=...) is renamed per_item=...", DeprecationWarning, stacklevel=2)
            per_item = items
        src = check_scores(src, f"{type(self).__name__}.check", "src")
        n = len(src)
        flws, applied = _checked_follow_ups(flws, applied, n, f"{type(self).__name__}.check")
        start = time.perf_counter()
        expected = {name: self.expected if _single else self._expected_of(name) for name in flws}
        masks = applied_masks(flws, applied, n)
        segments, rows, per_v, per_c, ties_src, ties_flw = _count_segments(src, flws, masks, expected, device)
        seconds = time.perf_counter() - start
        cases, violations = int(sum(r["cases"] for r in rows)), int(sum(r["violations"] for r in rows))
        boot, parts = _order_segments_boot(segments, n, n_boot, seed, device)
        low, high = interval_from_boot(boot)
        groups = None
        if not _single:
            for row, part in zip(rows, parts):
                row["ci_low"], row["ci_high"] = interval_from_boot(part)
            groups = pd.DataFrame(rows).set_index("transformation")
        m_pairs = sum(len(s["idx"]) * (len(s["idx"]) - 1) // 2 for s in segments)
        extra = {"ties_src": ties_src, "ties_flw": ties_flw, "n_items": n, "pairs": m_pairs, "count_seconds": seconds}
        if not _single:
            extra["transformations"] = len(flws)
        res = RelationResult(
            relation=self.name,
            cases=cases,
            violations=violations,
            ci_low=low,
            ci_high=high,
            ci_method=f"bootstrap over sources (B={n_boot})" if n_boot else "none",
            per_item=per_item_frame(per_v, per_c, per_item, n),
            groups=groups,
            extra=extra,
            description=self.description,
        )
        res.details.update(case_type="pairs", boot=boot, segments=segments, family=self.family)
        return res

    def structure(self) -> notation.Diagram:
        return notation.pairwise_systematicity(
            prop=r"$s(\mathbf{y}_1) > s(\mathbf{y}_2) \Rightarrow$ "
            + (
                r"$s(\mathbf{y}'_1) > s(\mathbf{y}'_2)$"
                if self.expected == "same"
                else r"$s(\mathbf{y}'_1) < s(\mathbf{y}'_2)$"
            ),
            title=self.name,
        )


class PairwiseCompositionality(Relation):
    """Pairwise compositionality (§5): a probe's order on hidden states must show in the output.

    Inputs come in groups (e.g. one NLI context with every insertion pair);
    inside each group every pair of inputs is a case: if the probe score
    (``src``) orders them (``P_hid``), the output score (``flw``) must order
    them the same way (``"same"``) or the opposite way (``"opposite"``), the
    direction set per group (e.g. by the context's monotonicity).

    Args:
        name: Relation name.
        hidden: Name of the hidden-layer score (for the diagram), e.g. ``"s_hyp"``.
        output: Name of the output score, e.g. ``"s_ent"``.

    ``evaluate(inputs, scorer, groups=..., direction=...)`` takes a scorer
    returning both scores, shape ``(n, 2)`` (probe score, output score).
    """

    family = "pairwise compositionality"
    min_inputs = (2, "no pairs to compare: need at least 2 texts with different scores")

    def __init__(
        self,
        name: str,
        transform: Any = None,
        *,
        hidden: str = "s_{hid}",
        output: str = "s_{out}",
        description: str = "",
    ) -> None:
        super().__init__(name, transform, description=description)
        self.hidden, self.output = hidden, output

    def check(
        self,
        src: np.ndarray,
        flw: np.ndarray,
        groups: Sequence[Any],
        direction: Mapping[Any, str],
        *,
        per_item: Sequence[Any] | None = None,
        group_info: pd.DataFrame | None = None,
        item_info: pd.DataFrame | None = None,
        n_boot: int = 200,
        seed: int = 0,
        device: str | None = None,
    ) -> RelationResult:
        """Count violated pairs inside every group exactly.

        Args:
            src: Probe scores on the hidden representations, shape ``(n,)``.
            flw: Output scores, shape ``(n,)``.
            groups: Group of each input (pairs are formed inside a group).
            direction: ``"same"`` or ``"opposite"`` per group value.
            per_item: Item of each input (e.g. the insertion pair); per-item
                results are pooled over groups by this label.
            group_info, item_info: Extra columns joined onto the group and
                item tables (indexed by group / item value).
            n_boot: Bootstrap replicates resampling items (the same weights in
                every group); 0 skips the interval.
            device: Where the counts and the bootstrap run: None for numpy on
                the host, or a torch device string (the same numbers).

        Returns:
            Pooled result; ``groups`` has per-group counts and rates,
            ``per_item`` per-item counts pooled over groups.
        """
        where = "PairwiseCompositionality.check"
        hid, out = check_scores(src, where, "src"), check_scores(flw, where, "flw")
        for name, value in (("groups", groups), ("per_item", per_item)):
            if (value is not None or name == "groups") and (
                isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__")
            ):
                raise refuse(where, name, "a list with one entry per input", value)
        if not isinstance(direction, Mapping):
            raise refuse(where, "direction", "a mapping group -> 'same' or 'opposite'", direction)
        group_of = np.asarray(groups)
        item_labels = np.asarray(per_item) if per_item is not None else np.arange(len(hid))
        if not (len(hid) == len(out) == len(group_of) == len(item_labels)):
            raise MtlibInputError("src, flw, groups and per_item must have the same length", argument="flw")
        missing = sorted({str(g) for g in np.unique(group_of)} - {str(g) for g in direction})
        if missing:
            given = sorted(str(g) for g in direction)
            raise MtlibInputError(
                f"{where}: direction has no entry for group(s) {missing[:5]}{' ...' if len(missing) > 5 else ''} "
                f"(it gives {given[:5]}{' ...' if len(given) > 5 else ''}); expected direction={{group: 'same' or "
                f"'opposite'}} with every value of groups, e.g. direction={{{missing[0]!r}: 'same'}}",
                argument="direction",
                expected="a mapping with every group -> 'same' or 'opposite'",
            )
        dir_of = {str(k): v for k, v in direction.items()}
        bad = {g: v for g, v in dir_of.items() if v not in ("same", "opposite")}
        if bad:
            raise MtlibInputError(
                f"{where}: direction gives {bad}; expected 'same' (the outputs keep the order of the probe scores) or "
                "'opposite' (they reverse it) for each group",
                argument="direction",
                expected="'same' or 'opposite' per group",
            )
        start = time.perf_counter()
        item_codes, item_values = pd.factorize(pd.Series(item_labels))
        rows, v_item, c_item, segments = _count_in_groups(hid, out, group_of, dir_of, item_codes, device)
        seconds = time.perf_counter() - start
        group_frame = pd.DataFrame(
            rows, columns=["group", "expected", "n_items", "cases", "violations", "rate", "ties_src"]
        ).set_index("group")
        if group_info is not None:
            group_frame = group_frame.join(group_info, how="left")
        cases, violations = int(group_frame["cases"].sum()), int(group_frame["violations"].sum())
        boot, _ = _order_segments_boot(segments, len(item_values), n_boot, seed, device)
        low, high = interval_from_boot(boot)
        pooled = pd.DataFrame({"item": item_labels, "violations": v_item, "cases": c_item})
        frame = pooled.groupby("item", sort=False)[["violations", "cases"]].sum()
        frame["rate"] = frame["violations"] / frame["cases"].where(frame["cases"] > 0)
        if item_info is not None:
            frame = frame.join(item_info, how="left")
        res = RelationResult(
            relation=self.name,
            cases=cases,
            violations=violations,
            ci_low=low,
            ci_high=high,
            ci_method=f"bootstrap over items (B={n_boot})" if n_boot else "none",
            per_item=frame,
            groups=group_frame,
            extra={"n_inputs": len(hid), "n_groups": len(group_frame), "count_seconds": seconds},
            description=self.description,
        )
        res.details.update(case_type="pairs", boot=boot, segments=segments, family=self.family, labels=item_labels)
        return res

    def evaluate(
        self,
        inputs: Sequence[str],
        scorer: Any,
        *,
        n_boot: int = 200,
        seed: int = 0,
        per_item: Sequence[Any] | None = None,
        groups: Sequence[Any] | None = None,
        direction: Mapping[Any, str] | None = None,
        **kwargs: Any,
    ) -> RelationResult:
        """Score every unique input once (``scorer(texts) -> (n, 2)``: probe score, output score) and check.

        Without a transformation the inputs themselves are the cases; with
        one, the follow-ups are scored instead of the inputs.
        """
        if groups is None or direction is None:
            raise MtlibInputError(
                "PairwiseCompositionality.evaluate: give groups= (one group per input) and direction= "
                "({group: 'same' or 'opposite'}, one entry per group); got "
                f"groups={'None' if groups is None else 'given'}, direction={direction!r}",
                argument="groups" if groups is None else "direction",
                expected="groups and a direction per group",
            )
        inputs = self._enough_inputs(inputs)
        texts = inputs
        transform = self.transform
        if transform is not None:
            follow, applied = apply(transform, inputs)
            if not applied.all():
                raise NotApplicable(f"{transform.name} does not apply to {int((~applied).sum())} inputs")
            texts = [f for f in follow if f is not None]  # every one applied
        scores = unique_outputs(texts, as_scorer(scorer), f"{type(self).__name__}.evaluate")
        if scores.ndim != 2 or scores.shape[1] != 2:
            raise ValueError(f"the scorer must return (n, 2) (probe score, output score), got {scores.shape}")
        res = self.check(
            scores[:, 0], scores[:, 1], groups, direction, per_item=per_item, n_boot=n_boot, seed=seed, **kwargs
        )
        res.extra["skipped"] = 0
        res.details["src_text"] = list(texts)
        res.details["flw_text"] = None
        return res

    def structure(self) -> notation.Diagram:
        return notation.pairwise_compositionality(
            prop=rf"${self.hidden}(\mathbf{{z}}_1) > {self.hidden}(\mathbf{{z}}_2) \Rightarrow "
            rf"{self.output}(\mathbf{{y}}_1) \gtrless {self.output}(\mathbf{{y}}_2)$",
            title=self.name,
        )


def _count_in_groups(
    hid: np.ndarray,
    out: np.ndarray,
    group_of: np.ndarray,
    dir_of: Mapping[str, str],
    item_codes: np.ndarray,
    device: str | None,
) -> tuple[list[dict[str, Any]], np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """Exact counts inside every group: ``(group rows, per-input violations (n,), cases (n,), segments)``."""
    order = np.argsort(group_of, kind="stable")
    bounds = (
        np.flatnonzero(np.r_[True, group_of[order][1:] != group_of[order][:-1], True])
        if len(group_of)
        else np.zeros(1, int)
    )
    rows: list[dict[str, Any]] = []
    segments: list[dict[str, Any]] = []
    v_item, c_item = np.zeros(len(hid), np.int64), np.zeros(len(hid), np.int64)
    for a, b in zip(bounds[:-1], bounds[1:]):
        idx = order[a:b]
        g = group_of[idx[0]]
        cnt = count_order_violations(hid[idx], out[idx], expected=dir_of[str(g)], per_item=True, device=device)
        assert cnt.per_item is not None and cnt.per_item_cases is not None  # counted with per_item=True
        v_item[idx], c_item[idx] = cnt.per_item, cnt.per_item_cases
        rows.append(
            {
                "group": g,
                "expected": dir_of[str(g)],
                "n_items": len(idx),
                "cases": cnt.cases,
                "violations": cnt.violations,
                "rate": cnt.rate,
                "ties_src": cnt.ties_src,
            }
        )
        segments.append(
            {
                "group": g,
                "idx": idx,
                "wkey": item_codes[idx],
                "src": hid[idx],
                "flw": out[idx],
                "expected": dir_of[str(g)],
            }
        )
    return rows, v_item, c_item, segments


def _count_segments(
    src: np.ndarray,
    flws: Mapping[str, np.ndarray],
    masks: Mapping[str, np.ndarray],
    expected: Mapping[str, str],
    device: str | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], np.ndarray, np.ndarray, int, int]:
    """Exact counts per transformation on the sources it applied to (``masks``, one bool ``(n,)`` each).

    Returns:
        ``(segments, rows, per-source violations (n,), per-source cases (n,), ties_src, ties_flw)``: a segment
        per transformation for the bootstrap, a table row per transformation, the per-source sums.
    """
    n = len(src)
    segments: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    per_v, per_c = np.zeros(n, np.int64), np.zeros(n, np.int64)
    ties_src = ties_flw = 0
    for name, f in flws.items():
        idx = np.flatnonzero(masks[name])
        exp = expected[name]
        s, flw = src[idx], np.asarray(f, float)[idx]
        segments.append({"group": name, "idx": idx, "wkey": idx, "src": s, "flw": flw, "expected": exp})
        cnt = count_order_violations(s, flw, expected=exp, per_item=True, device=device)
        assert cnt.per_item is not None and cnt.per_item_cases is not None  # counted with per_item=True
        per_v[idx] += cnt.per_item
        per_c[idx] += cnt.per_item_cases
        ties_src, ties_flw = ties_src + cnt.ties_src, ties_flw + cnt.ties_flw
        rows.append(
            {
                "transformation": name,
                "expected": exp,
                "cases": cnt.cases,
                "violations": cnt.violations,
                "rate": cnt.rate,
                "ties_flw": cnt.ties_flw,
                "skipped": int(n - len(idx)),
            }
        )
    return segments, rows, per_v, per_c, ties_src, ties_flw


def _checked_follow_ups(
    flws: Any, applied: Any, n: int, where: str
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
    """Follow-up scores ``(n,)`` per transformation and bool masks ``(n,)``, or :class:`MtlibInputError`.

    Finiteness is left to the count, which sees only the sources a transformation applied to.
    """
    if not isinstance(flws, Mapping):
        raise refuse(where, "flws", "a mapping transformation -> follow-up scores", flws)
    if applied is not None and not isinstance(applied, Mapping):
        raise refuse(where, "applied", "a mapping transformation -> bool mask", applied)
    out: dict[str, np.ndarray] = {}
    masks: dict[str, np.ndarray] | None = None if applied is None else {}
    for name, f in flws.items():
        arr = None if f is None or isinstance(f, (str, bytes)) else np.asarray(f)
        if arr is None or arr.shape != (n,) or arr.dtype.kind not in "biuf":
            raise refuse(where, "flw" if len(flws) == 1 else f"flws[{name!r}]", f"{n} scores, one per source", f)
        out[name] = arr.astype(float)
    for name, m in (applied or {}).items():
        arr = None if m is None or isinstance(m, (str, bytes)) else np.asarray(m)
        if arr is None or arr.shape != (n,) or arr.dtype.kind not in "biu":
            raise refuse(where, f"applied[{name!r}]", f"a bool mask of {n} sources", m)
        assert masks is not None
        masks[name] = arr.astype(bool)
    return out, masks
