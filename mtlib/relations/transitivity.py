"""Three-way transitivity (§6, Eq. 6): ``v(x12) and v(x23) => v(x13)`` over every ordered triple.

The sources and the follow-up are entries of one Boolean prediction matrix;
triples are counted exactly by matrix products
(:func:`~mtlib.relations.counting.count_transitivity_violations`), or sampled
as the paper did.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mtlib.relations import bootstrap, notation
from mtlib.relations.base import Relation
from mtlib.relations.counting import count_transitivity_violations
from mtlib.relations.errors import MtlibInputError, refuse
from mtlib.relations.result import RelationResult, interval_from_boot, per_item_frame
from mtlib.relations.scorers import check_outputs

__all__ = ["ThreeWayTransitivity"]


class ThreeWayTransitivity(Relation):
    """Three-way transitivity (§6): ``v(x12) and v(x23) => v(x13)`` over every ordered triple.

    ``src`` is the Boolean prediction v on every ordered pair of the n inputs,
    shape ``(n, n)``: the sources v(x12), v(x23) and the follow-up v(x13) are
    entries of the same matrix, so there is no separate ``flw``.

    Args:
        name: Relation name, e.g. ``"synonymy"``.

    ``evaluate(words, scorer)`` calls ``scorer(pairs)`` once on every ordered
    pair ``(a, b)`` of distinct inputs, expecting a bool (or 0/1) array.
    """

    family = "three-way transitivity"
    min_inputs = (3, "no triples to check: need at least 3 items")

    def check(
        self,
        src: np.ndarray,
        flw: np.ndarray | None = None,
        *,
        per_item: Sequence[Any] | None = None,
        n_boot: int = 200,
        seed: int = 0,
        sample: int | None = None,
        device: str | None = None,
    ) -> RelationResult:
        """Count violated triples of the Boolean prediction matrix.

        Args:
            src: ``src[i, j]`` = v(x_i, x_j), shape ``(n, n)`` bool; the
                diagonal is ignored.
            flw: Must be ``None`` or the same matrix (see the class docstring).
            per_item: Labels of the n inputs (e.g. words).
            n_boot: Bootstrap replicates resampling items (0 skips it).
            sample: Count a random sample of this many triples instead (the
                paper's procedure); the interval is then Wilson over the kept cases.
            device: Where the exact count and the bootstrap run: None for
                numpy on the host, or a torch device string (the same numbers;
                the replicates are drawn by the same seeded generator).
        """
        if flw is not None and not np.array_equal(np.asarray(flw), np.asarray(src)):
            raise ValueError(
                "three-way transitivity reads v(x13) from the same matrix as v(x12), v(x23): "
                "pass the prediction matrix as src only"
            )
        try:
            adj = None if src is None or isinstance(src, (str, bytes)) else np.asarray(src)
        except ValueError:  # ragged rows
            adj = None
        if adj is None or adj.ndim != 2 or adj.shape[0] != adj.shape[1]:
            raise refuse("ThreeWayTransitivity.check", "src", "a square (n, n) boolean matrix", src)
        least, why = self.min_inputs
        if adj.shape[0] < least:  # no triple: refused, never a NaN rate
            raise MtlibInputError(
                f"ThreeWayTransitivity.check: {why}: src must be an (n, n) matrix with n >= {least}, "
                f"got shape {adj.shape}",
                argument="src",
                expected=f"an (n, n) boolean matrix with n >= {least}",
            )
        start = time.perf_counter()
        res = count_transitivity_violations(adj, per_item=True, sample=sample, seed=seed, device=device)
        seconds = time.perf_counter() - start
        boot = None
        if sample is not None:
            low, high = bootstrap.wilson_interval(res.violations, res.cases)
            method = f"Wilson over {res.cases:,} sampled cases"
        elif n_boot:
            boot = bootstrap.bootstrap_transitivity_rates(adj, n_boot=n_boot, seed=seed, device=device)
            low, high = interval_from_boot(boot)
            method = f"bootstrap over items (B={n_boot})"
        else:
            low, high, method = np.nan, np.nan, "none"
        assert res.per_item is not None and res.per_item_cases is not None  # counted with per_item=True
        frame = per_item_frame(res.per_item, res.per_item_cases, per_item, res.n)
        n = res.n
        out = RelationResult(
            relation=self.name,
            cases=res.cases,
            violations=res.violations,
            ci_low=low,
            ci_high=high,
            ci_method=method,
            per_item=frame,
            extra={
                "n_items": n,
                "triples": n * (n - 1) * (n - 2),
                "sampled": res.sampled,
                "n_sampled": res.n_sampled,
                "count_seconds": seconds,
            },
            description=self.description,
        )
        out.details.update(
            case_type="triples",
            boot=boot,
            adj=np.asarray(adj, dtype=bool),
            family=self.family,
            labels=None if per_item is None else list(per_item),
        )
        return out

    def evaluate(
        self,
        inputs: Sequence[str],
        scorer: Callable[[list[tuple[str, str]]], np.ndarray],
        *,
        n_boot: int = 200,
        seed: int = 0,
        per_item: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> RelationResult:
        """Predict v on every ordered pair of distinct inputs (one scorer call) and check."""
        inputs = self._enough_inputs(inputs)
        n = len(inputs)
        i, j = np.nonzero(~np.eye(n, dtype=bool))
        if not callable(scorer):
            raise refuse(f"{type(self).__name__}.evaluate", "scorer", "a function pairs -> bool (n_pairs,)", scorer)
        pairs = [(inputs[a], inputs[b]) for a, b in zip(i, j)]
        v = check_outputs(scorer(pairs), pairs, f"{type(self).__name__}.evaluate", ndim=(1,))
        adj = np.zeros((n, n), dtype=bool)
        adj[i, j] = v.astype(bool)
        res = self.check(adj, per_item=per_item if per_item is not None else inputs, n_boot=n_boot, seed=seed, **kwargs)
        res.extra["skipped"] = 0
        res.details["src_text"] = inputs
        return res

    def structure(self) -> notation.Diagram:
        return notation.three_way_transitivity(title=self.name)
