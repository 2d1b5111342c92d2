"""Single-input relations (Manino et al. 2022, Eq. 1-3): each source x against its follow-up T(x).

The property P is equivalence (the same class wins on both outputs), similarity
(the outputs are closer than a threshold) or order (the score moves in the
expected direction). Cases are independent, so the interval is Wilson; a
paired Wilcoxon test of the score change is reported beside the flip rate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations import bootstrap, notation
from mtlib.relations.base import Relation
from mtlib.relations.errors import MtlibInputError, check_scores
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
        description: str = "",
    ) -> None:
        super().__init__(name, transform, description=description)
        if prop not in self.PROPERTIES:
            raise ValueError(f"unknown property {prop!r}; choose one of {list(self.PROPERTIES)}")
        if prop == "similarity" and threshold is None:
            raise ValueError("the similarity property needs a threshold θ")
        if direction not in ("increase", "decrease"):
            raise ValueError(f"direction must be 'increase' or 'decrease', got {direction!r}")
        self.prop, self.threshold, self.direction = prop, threshold, direction
        self.similarity = similarity
        self.needs = {"equivalence": "probs", "similarity": "embedding", "order": "score"}[prop]

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
            i = ps.argmax(1)

            def gap(y: np.ndarray) -> np.ndarray:
                others = y.copy()
                others[rows, i] = -np.inf
                return y[rows, i] - others.max(1)

            g = np.minimum(gap(ps), gap(pf))
            return g > 0, -g
        if self.prop == "similarity":
            if self.similarity is not None:
                s = np.asarray(self.similarity(src, flw), float)
            else:
                s = 1.0 - cosine_distance_rows(src.reshape(len(src), -1), flw.reshape(len(flw), -1))
            return s > self.threshold, self.threshold - s
        d = (flw - src) if self.direction == "increase" else (src - flw)
        d = d.reshape(len(d), -1)[:, 0] if d.ndim > 1 else d
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
        res.extra.update(_wilcoxon(self._change(src, flw)))
        return res

    def _check_transformations(
        self,
        src: np.ndarray,
        flws: dict[str, np.ndarray],
        masks: dict[str, np.ndarray],
        *,
        per_item: Any,
        n_boot: int,
        seed: int,
        **kwargs: Any,
    ) -> RelationResult:
        """All (input, transformation) cases pooled, with a breakdown and a Wilcoxon test per transformation."""
        n = len(src)
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
            self.name,
            cases,
            violations,
            violations / cases if cases else float("nan"),
            low,
            high,
            "Wilson (independent cases)",
            per_item_frame(v, c, labels, n),
            pd.DataFrame(rows).set_index("transformation"),
            {
                "property": self.prop,
                "n_items": n,
                "transformations": len(flws),
                **_wilcoxon(self._change(s_all, f_all)),
            },
            self.description,
        )
        res.details.update(
            kind="single",
            family=self.family,
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


def _wilcoxon(change: np.ndarray | None) -> dict[str, float]:
    """Paired Wilcoxon signed-rank test of the score change (zero differences dropped)."""
    if change is None:
        return {}
    change = np.asarray(change, float)
    nonzero = change[change != 0]
    out = {"median_change": float(np.median(change)) if len(change) else float("nan"), "changed": int(len(nonzero))}
    if len(nonzero) == 0:  # no case, or no score moved: nothing to test
        out.update(wilcoxon_statistic=float("nan"), wilcoxon_p=1.0 if len(change) else float("nan"))
        return out
    from scipy.stats import wilcoxon

    r = wilcoxon(nonzero)
    out.update(wilcoxon_statistic=float(r.statistic), wilcoxon_p=float(r.pvalue))
    return out
