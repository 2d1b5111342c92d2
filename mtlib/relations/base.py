"""The relation protocol (Manino et al. 2022): one base class for every family, scorers from models.

A metamorphic relation checks a model without ground truth: it relates the
model's outputs on several related inputs. It is defined by a transformation
T (how follow-up inputs are made from source inputs, :mod:`mtlib.relations.transformations`)
and an output property P. The families:

- :class:`~mtlib.relations.single.SingleInput` (§3, Eq. 1-3): one source x and its follow-up T(x);
  P is equivalence (same predicted class), similarity (above a threshold) or
  order (the score moves in the expected direction).
- :class:`~mtlib.relations.pairwise.PairwiseSystematicity` (§4, Eq. 4): two sources and their
  follow-ups; if the model orders the sources by a score, it must order the
  follow-ups the same way (``P_src => P_flw``), over *every* pair of sources.
- :class:`~mtlib.relations.pairwise.PairwiseCompositionality` (§5, Eq. 5): the order of a probe score on
  hidden states (``src``) must be kept (or reversed, per group) by the output
  score (``flw``).
- :class:`~mtlib.relations.transitivity.ThreeWayTransitivity` (§6, Eq. 6): ``v(x12) and v(x23) => v(x13)``
  over every ordered triple (``src`` is the matrix of v on every pair).

One protocol, the same argument names everywhere:

- ``relation.check(src, flw, *, per_item=None, n_boot=..., seed=...)`` takes
  the scores of the sources and of the follow-ups (``per_item``: labels or a
  DataFrame describing each source item) and returns a
  :class:`~mtlib.relations.result.RelationResult`.
- ``relation.evaluate(inputs, scorer, *, n_boot=..., seed=...)`` builds the
  follow-ups with the relation's transformation(s), calls the scorer once per
  unique text, skips (and counts) inputs a transformation does not apply to,
  and checks.
- A :class:`RelationResult` has the rate, its interval, the cases, the
  violations, per-item counts, ``metrics()`` (a report for
  ``Run.record_report``), ``passes(max_rate)`` (a CI gate on the upper end of
  the interval), ``examples(k)`` (the k worst violated cases with their texts
  and scores) and ``to_html(path)``.

Counting is exact: pairs by sorting in O(n log n), triples by matrix products
(:mod:`mtlib.relations.counting`). Every relation draws itself in the paper's notation
with :meth:`Relation.diagram`.

Writing a new relation: subclass :class:`Relation` and implement ``check``
only. It may return one violation flag per independent case (a bool array;
Wilson interval) or per-item ``(violations, cases)`` arrays (bootstrap over
items); :class:`Relation` turns either into a :class:`RelationResult` and
gives ``evaluate`` and a diagram::

    class Louder(Relation):
        def check(self, src, flw, **kw):
            return np.asarray(flw) < np.asarray(src)      # violated where the score drops

    Louder("exclamation", T.Punctuation("exclaim")).evaluate(texts, scorer)
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations import bootstrap, notation
from mtlib.relations.errors import MtlibInputError, check_texts
from mtlib.relations.result import RelationResult, interval_from_boot, item_ratio_boot, per_item_frame, single_result
from mtlib.relations.scorers import as_scorer, unique_outputs
from mtlib.relations.transformations.base import Transformation, apply, as_transformation

__all__ = ["Relation"]

#: Old keyword names of ``check`` (one release, with a DeprecationWarning).
_PROTOCOL_KEYWORDS = ("per_item", "n_boot", "seed")
_RENAMED = {"y_src": "src", "y_flw": "flw", "hid": "src", "out": "flw", "adj": "src", "items": "per_item"}


def _protocol(check: Callable[..., Any]) -> Callable[..., RelationResult]:
    """Wrap a family's ``check``: old keyword names still work (warned); any output becomes a RelationResult."""

    params = inspect.signature(check).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())

    @functools.wraps(check)
    def wrapper(self: Relation, *args: Any, **kwargs: Any) -> RelationResult:
        where = f"{type(self).__name__}.check"
        checked = bootstrap.check_resampling(kwargs.get("n_boot", 0), kwargs.get("seed", 0), where, skip=True)
        kwargs.update((k, v) for k, v in zip(("n_boot", "seed"), checked) if k in kwargs)
        for old, new in _RENAMED.items():
            if old in kwargs:
                warnings.warn(
                    f"{type(self).__name__}.check({old}=...) is renamed {new}=...; the old name goes "
                    f"in the next release",
                    DeprecationWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
        # a user's check(src, flw) need not take the protocol's keywords: the base class handles them
        passed = {k: v for k, v in kwargs.items() if takes_any or k in params or k not in _PROTOCOL_KEYWORDS}
        out = check(self, *args, **passed)
        if not isinstance(out, RelationResult):
            out = self._as_result(
                out,
                per_item=kwargs.get("per_item"),
                n_boot=kwargs.get("n_boot", 1000),
                seed=kwargs.get("seed", 0),
                args=args,
            )
        if not out.description:
            out.description = self.description
        out.details.setdefault("family", self.family)
        if self.rule:
            out.details.setdefault("rule", self.rule)
        return out

    wrapper._protocol = True  # type: ignore[attr-defined]
    return wrapper


# ---------------------------------------------------------------------------
# The protocol
# ---------------------------------------------------------------------------


class Relation:
    """Base class of every relation: name, transformation(s), ``evaluate``, intervals, diagram.

    Args:
        name: Relation name (tables, metric keys, diagrams).
        transform: A transformation, or several (their follow-ups are pooled
            and broken down by transformation). Any ``str -> str`` works;
            :mod:`mtlib.relations.transformations` has named ones.
        description: What the relation checks; by default built from the
            family and the transformations' descriptions.

    Subclasses implement ``check(src, flw, *, per_item=None, n_boot=1000,
    seed=0)``; see the module docstring for what it may return.
    """

    family = "relation"
    #: What ``evaluate``'s scorer must return: "score" (n,), "probs" (n, k) or "embedding" (n, d).
    needs = "score"

    def __init__(
        self,
        name: str,
        transform: Callable[[str], str] | Sequence[Callable[[str], str]] | None = None,
        *,
        description: str = "",
    ) -> None:
        self.name = name
        if transform is None:
            self.transforms: list[Transformation] = []
        elif callable(transform):
            self.transforms = [as_transformation(transform)]
        else:
            self.transforms = [as_transformation(t) for t in transform]
        names = [t.name for t in self.transforms]
        if len(set(names)) != len(names):
            raise ValueError(f"transformations need distinct names, got {names}")
        self._description = description

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        check = cls.__dict__.get("check")
        if check is not None and not getattr(check, "_protocol", False):
            cls.check = _protocol(check)  # type: ignore[method-assign]

    @property
    def rule(self) -> str:
        """Which reading of the property counts (ties, tolerance), in words; ``""`` when there is one reading."""
        return ""

    @property
    def transform(self) -> Transformation | None:
        """The transformation (the first one if there are several)."""
        return self.transforms[0] if self.transforms else None

    @property
    def description(self) -> str:
        """One line: the family and what the transformations do."""
        if self._description:
            return self._description
        what = "; ".join(t.description for t in self.transforms)
        return f"{self.family} '{self.name}'" + (f" under T = {what}" if what else "")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def check(self, *args: Any, **kwargs: Any) -> RelationResult:
        """Count violations from the scores of the sources (``src``) and the follow-ups (``flw``).

        Every family implements ``check(src, flw, *, per_item=None, n_boot=1000, seed=0)``, some with
        more arguments (the groups of :class:`~mtlib.relations.pairwise.PairwiseCompositionality`).
        """
        raise NotImplementedError(f"{type(self).__name__} must implement check(src, flw, ...)")

    # -- results from what a user's check returns ---------------------------------------------------

    def _as_result(self, out: Any, *, per_item: Any, n_boot: int, seed: int, args: tuple) -> RelationResult:
        if isinstance(out, tuple) and len(out) == 2:
            v, c = np.asarray(out[0], np.int64), np.asarray(out[1], np.int64)
            if v.shape != c.shape or v.ndim != 1:
                raise ValueError(
                    f"{type(self).__name__}.check returned per-item arrays of shapes {v.shape}, "
                    f"{c.shape}; expected (violations (n,), cases (n,))"
                )
            boot = item_ratio_boot(v, c, n_boot, seed)
            low, high = interval_from_boot(boot)
            cases, violations = int(c.sum()), int(v.sum())
            res = RelationResult(
                relation=self.name,
                cases=cases,
                violations=violations,
                ci_low=low,
                ci_high=high,
                ci_method=f"bootstrap over items (B={n_boot}, per-item ratio)" if n_boot else "none",
                per_item=per_item_frame(v, c, per_item, len(v)),
                extra={"n_items": len(v)},
            )
            res.details.update(boot=boot, case_type="items")
            return res
        violated = np.asarray(out)
        if violated.dtype != bool or violated.ndim != 1:
            raise TypeError(
                f"{type(self).__name__}.check must return a RelationResult, a bool array of violation "
                f"flags (n,) or per-item (violations, cases); got {type(out).__name__} "
                f"{getattr(violated, 'shape', '')}"
            )
        src = np.asarray(args[0]) if args else None
        flw = np.asarray(args[1]) if len(args) > 1 else None
        return single_result(self.name, violated, per_item, src, flw, None, None)

    # -- evaluate ------------------------------------------------------------------------------------

    #: Fewest source inputs ``evaluate`` can count a case on, and why (pairwise: 2; transitivity: 3).
    min_inputs: tuple[int, str] = (1, "no input to transform")

    def _enough_inputs(self, inputs: Any) -> list[str]:
        """``inputs`` as a list of texts, refused when too few to make one case (never a NaN rate)."""
        where = f"{type(self).__name__}.evaluate"
        texts = check_texts(inputs, where)
        least, why = self.min_inputs
        if len(texts) < least:
            raise MtlibInputError(
                f"{where}: {why}: inputs must hold at least {least} text{'s' if least > 1 else ''}, got {len(texts)}",
                argument="inputs",
                expected=f"at least {least} texts",
            )
        return texts

    def _follow_ups(
        self, inputs: Sequence[str], scorer: Any
    ) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray], dict[str, list]]:
        """Scores of the sources and of every applicable follow-up, one scorer call per unique text."""
        if not self.transforms:
            raise ValueError(f"{self!r} has no transformation; pass follow-up scores to check() instead")
        where = f"{type(self).__name__}.evaluate"
        fn = as_scorer(scorer, self.needs)
        inputs = check_texts(inputs, where)
        made = {t.name: apply(t, inputs) for t in self.transforms}
        texts = inputs + [f for follow, _ in made.values() for f in follow if f is not None]
        scores = unique_outputs(texts, fn, where)
        n, pos = len(inputs), len(inputs)
        src, flws, masks, flw_text = scores[:n], {}, {}, {}
        for name, (follow, applied) in made.items():
            m = int(applied.sum())
            block = scores[pos : pos + m]
            pos += m
            full = np.full((n, *block.shape[1:]), np.nan)
            full[applied] = block
            flws[name], masks[name], flw_text[name] = full, applied, follow
        return src, flws, masks, flw_text

    def evaluate(
        self,
        inputs: Sequence[str],
        scorer: Any,
        *,
        n_boot: int = 1000,
        seed: int = 0,
        per_item: pd.DataFrame | Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> RelationResult:
        """Make follow-ups with the transformation(s), score every unique text once, check.

        Args:
            inputs: Source texts.
            scorer: A model, a registry name, or ``texts -> scores`` (see :func:`as_scorer`).
            n_boot: Bootstrap replicates for the interval (0 skips it).
            seed: Seeds the bootstrap.
            per_item: Labels or a DataFrame describing each input (default: the texts).
            **kwargs: Passed on to ``check``.

        Returns:
            The result; ``extra["skipped"]`` counts (input, transformation)
            pairs a transformation did not apply to; ``examples()`` shows texts.
        """
        inputs = self._enough_inputs(inputs)
        n_boot, seed = bootstrap.check_resampling(n_boot, seed, "evaluate", skip=True)
        src, flws, masks, flw_text = self._follow_ups(inputs, scorer)
        labels = per_item if per_item is not None else inputs
        res = self.check_many(src, flws, applied=masks, per_item=labels, n_boot=n_boot, seed=seed, **kwargs)
        res.extra["skipped"] = int(sum((~m).sum() for m in masks.values()))
        res.details.setdefault("rule", self.rule)
        res.details["src_text"] = inputs
        res.details["flw_text"] = flw_text
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
        """The relation under several transformations of the same sources: the one check :meth:`evaluate` calls.

        Here the generic pooling (a family with its own exact pooling overrides it): each transformation is
        checked on the sources it applied to, the per-item counts are added, and the interval is Wilson
        when every part's cases are independent, else a bootstrap of the per-item ratio.

        Args:
            src: Source scores ``(n, ...)``.
            flws: Follow-up scores per transformation name, each shaped like ``src``.
            applied: Per transformation, a bool mask ``(n,)`` of the sources it applied to (None: all).
            per_item: Labels or a DataFrame describing each source.
            n_boot: Bootstrap replicates (0 skips the interval).
            seed: Seeds the bootstrap.
            **kwargs: Passed on to :meth:`check`.
        """
        n = len(src)
        masks = applied_masks(flws, applied, n)
        labels = per_item if isinstance(per_item, pd.DataFrame) else (None if per_item is None else list(per_item))
        parts = {}
        for name, flw in flws.items():
            m = masks[name]
            sub = (
                None
                if labels is None
                else (labels[m] if isinstance(labels, pd.DataFrame) else [lab for lab, keep in zip(labels, m) if keep])
            )
            parts[name] = (m, self.check(src[m], flw[m], per_item=sub, n_boot=n_boot, seed=seed, **kwargs))
        if len(parts) == 1 and next(iter(parts.values()))[0].all():
            res = next(iter(parts.values()))[1]
            res.details.setdefault("segments", [])
            for s in res.details["segments"]:
                s["group"] = next(iter(parts))
            return res
        v, c = np.zeros(n, np.int64), np.zeros(n, np.int64)
        rows, segments, independent = [], [], True
        for name, (m, r) in parts.items():
            v[m] += r.per_item["violations"].to_numpy()
            c[m] += r.per_item["cases"].to_numpy()
            rows.append(
                {
                    "transformation": name,
                    "cases": r.cases,
                    "violations": r.violations,
                    "rate": r.rate,
                    "ci_low": r.ci_low,
                    "ci_high": r.ci_high,
                    "skipped": int((~m).sum()),
                }
            )
            independent &= r.ci_method.startswith("Wilson")
            idx = np.flatnonzero(m)
            for s in r.details.get("segments", []):
                segments.append({**s, "group": name, "idx": idx[s["idx"]]})
        cases, violations = int(c.sum()), int(v.sum())
        if independent:
            low, high = bootstrap.wilson_interval(violations, cases)
            boot, method = None, "Wilson (independent cases)"
        else:
            boot = item_ratio_boot(v, c, n_boot, seed)
            low, high = interval_from_boot(boot)
            method = f"bootstrap over items (B={n_boot}, per-item ratio)" if n_boot else "none"
        res = RelationResult(
            relation=self.name,
            cases=cases,
            violations=violations,
            ci_low=low,
            ci_high=high,
            ci_method=method,
            per_item=per_item_frame(v, c, labels, n),
            groups=pd.DataFrame(rows).set_index("transformation"),
            extra={"n_items": n, "transformations": len(parts)},
            description=self.description,
        )
        res.details.update(
            boot=boot,
            segments=segments,
            case_type=next(iter(parts.values()))[1].details.get("case_type"),
            family=self.family,
        )
        return res

    # -- diagrams ------------------------------------------------------------------------------------

    def structure(self) -> notation.Diagram:
        """The relation's structure in the paper's graphical notation (single-input by default)."""
        return notation.single_input(prop=rf"$P$: {notation_safe(self.name)}", title=self.name)

    def diagram(self):
        """A matplotlib figure of :meth:`structure` (save it with ``Run.save_figure``)."""
        return self.structure().draw()


def applied_masks(flws: Mapping[str, Any], applied: Mapping[str, Any] | None, n: int) -> dict[str, np.ndarray]:
    """Per transformation, the bool mask ``(n,)`` of the sources it applied to (all, where ``applied`` is silent)."""
    given = applied or {}
    return {k: np.asarray(given[k], bool) if k in given else np.ones(n, bool) for k in flws}


def notation_safe(text: str) -> str:
    """Text for a mathtext label: dollar signs escaped."""
    return text.replace("$", r"\$")
