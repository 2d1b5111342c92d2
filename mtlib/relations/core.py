"""Metamorphic relations (Manino et al. 2022): one protocol for every family, exact counting.

A metamorphic relation checks a model without ground truth: it relates the
model's outputs on several related inputs. It is defined by a transformation
T (how follow-up inputs are made from source inputs, :mod:`mtlib.relations.transformations`)
and an output property P. The families:

- :class:`SingleInput` (§3, Eq. 1-3): one source x and its follow-up T(x);
  P is equivalence (same predicted class), similarity (above a threshold) or
  order (the score moves in the expected direction).
- :class:`PairwiseSystematicity` (§4, Eq. 4): two sources and their
  follow-ups; if the model orders the sources by a score, it must order the
  follow-ups the same way (``P_src => P_flw``), over *every* pair of sources.
- :class:`PairwiseCompositionality` (§5, Eq. 5): the order of a probe score on
  hidden states (``src``) must be kept (or reversed, per group) by the output
  score (``flw``).
- :class:`ThreeWayTransitivity` (§6, Eq. 6): ``v(x12) and v(x23) => v(x13)``
  over every ordered triple (``src`` is the matrix of v on every pair).

One protocol, the same argument names everywhere:

- ``relation.check(src, flw, *, per_item=None, n_boot=..., seed=...)`` takes
  the scores of the sources and of the follow-ups (``per_item``: labels or a
  DataFrame describing each source item) and returns a :class:`RelationResult`.
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
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations import bootstrap, notation
from mtlib.relations.counting import (
    EXPECTED_DIRECTIONS,
    OrderCount,
    TransitivityCount,
    count_order_violations,
    count_order_violations_naive,
    count_transitivity_violations,
    count_transitivity_violations_naive,
)
from mtlib.relations.transformations import Concatenation, NotApplicable, Transformation, apply, as_transformation

__all__ = [
    "EXPECTED_DIRECTIONS", "OrderCount", "TransitivityCount", "count_order_violations",
    "count_order_violations_naive", "count_transitivity_violations", "count_transitivity_violations_naive",
    "Concatenation", "NotApplicable", "RelationResult", "Relation", "SingleInput", "PairwiseSystematicity",
    "PairwiseCompositionality", "ThreeWayTransitivity", "unique_outputs", "as_scorer",
]

#: Old keyword names of ``check`` (one release, with a DeprecationWarning).
_PROTOCOL_KEYWORDS = ("per_item", "n_boot", "seed")
_RENAMED = {"y_src": "src", "y_flw": "flw", "hid": "src", "out": "flw", "adj": "src", "items": "per_item"}


def unique_outputs(texts: Sequence[str], fn: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """Call ``fn`` once on the unique texts and return its rows in the order of ``texts``.

    Model adapters already deduplicate and cache; this helper gives the same
    guarantee to any scoring function a user passes in.
    """
    texts = list(texts)
    uniq = list(dict.fromkeys(texts))
    out = np.asarray(fn(uniq))
    if len(out) != len(uniq):
        raise ValueError(f"the scorer returned {len(out)} rows for {len(uniq)} texts")
    where = {t: i for i, t in enumerate(uniq)}
    return out[[where[t] for t in texts]]


def as_scorer(model: Any, needs: str = "score") -> Callable[[list[str]], np.ndarray]:
    """A ``texts -> array`` function from a model, a registry name or a callable.

    Args:
        model: A callable ``texts -> scores``; an object with ``score(texts)``
            (e.g. :class:`mtlib.experiments.sentiment.SentimentScorer`); an
            :class:`mtlib.models.Model` or a registry name (``"vader"``).
        needs: ``"score"`` (shape ``(n,)``: the positive class's probability,
            else the last class), ``"probs"`` (``(n, k)`` class
            probabilities) or ``"embedding"`` (``(n, d)``).
    """
    if isinstance(model, str):
        from mtlib import models as mt_models

        model = mt_models.load(model)
    if hasattr(model, "classify") and hasattr(model, "labels"):
        if needs == "embedding":
            return lambda texts: np.asarray(model.embed(texts))
        if not model.labels:
            raise ValueError(f"{model!r} has no classes; make a classifier with mtlib.models.classifier(...) "
                             f"or pass a scoring function")
        if needs == "probs":
            return lambda texts: np.asarray(model.classify(texts), dtype=float)
        lower = [str(label).lower() for label in model.labels]
        col = lower.index("positive") if "positive" in lower else len(lower) - 1
        return lambda texts: np.asarray(model.classify(texts), dtype=float)[:, col]
    if not callable(model) and callable(getattr(model, "score", None)):
        return model.score
    if callable(model):
        return model
    raise TypeError(f"cannot score texts with {type(model).__name__}: pass a model, a registry name or a function")


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass
class RelationResult:
    """Outcome of checking a relation.

    Attributes:
        relation: Name of the relation.
        cases: Test cases whose premise holds (pairs, triples or inputs).
        violations: Cases whose conclusion fails.
        rate: ``violations / cases`` (``nan`` without cases).
        ci_low, ci_high: 95% interval of the rate.
        ci_method: How the interval was computed.
        per_item: One row per source item: ``violations``, ``cases``, ``rate``
            (and any item columns passed in).
        groups: Breakdown by group (transformation, context...) or ``None``.
        extra: Other counts (``ties_src``, ``n_items``, ``skipped``, ``count_seconds`` ...).
        description: What the relation checks (for gate messages and tables).
        details: What :meth:`examples` needs (scores, texts, bootstrap
            replicates); not part of the metrics.
    """

    relation: str
    cases: int
    violations: int
    rate: float
    ci_low: float
    ci_high: float
    ci_method: str
    per_item: pd.DataFrame
    groups: pd.DataFrame | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    details: dict[str, Any] = field(default_factory=dict, repr=False)

    headline = ("violation_rate",)

    def summary(self) -> dict[str, Any]:
        """Scalars for ``metrics.json``."""
        return {"relation": self.relation, "cases": self.cases, "violations": self.violations, "rate": self.rate,
                "ci_low": self.ci_low, "ci_high": self.ci_high, "ci_method": self.ci_method, **self.extra}

    def metrics(self, prefix: str = "") -> dict[str, Any]:
        """Flat numeric keys for ``Run.record_report``: ``violation_rate``, ``ci_low``, ``ci_high``, ``cases``...

        Groups (e.g. transformations) add ``violation_rate/<group>`` etc.;
        ``prefix`` (if given) is put in front as ``<prefix>/<key>``.
        """
        out: dict[str, Any] = {"violation_rate": self.rate, "ci_low": self.ci_low, "ci_high": self.ci_high,
                               "cases": self.cases, "violations": self.violations}
        out.update({k: v for k, v in self.extra.items()
                    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)})
        if self.groups is not None:
            for g, row in self.groups.iterrows():
                for col, key in (("rate", "violation_rate"), ("ci_low", "ci_low"), ("ci_high", "ci_high"),
                                 ("cases", "cases"), ("violations", "violations")):
                    if col in row.index and pd.notna(row[col]):
                        out[f"{key}/{g}"] = row[col].item() if hasattr(row[col], "item") else row[col]
        return {(f"{prefix}/{k}" if prefix else k): v for k, v in out.items()}

    def tables(self) -> dict[str, pd.DataFrame]:
        """The groups table (if any) and the 20 worst examples, for ``Run.record_report``."""
        out = {} if self.groups is None else {"groups": self.groups}
        ex = self.examples(20)
        if len(ex):
            out["examples"] = ex
        return out

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The interval of the rate at another confidence (same method: bootstrap replicates or Wilson)."""
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {confidence}")
        if abs(confidence - 0.95) < 1e-12:
            return self.ci_low, self.ci_high
        boot = self.details.get("boot")
        if boot is not None:
            return bootstrap.percentile_interval(boot, 1 - confidence)
        if self.ci_method.startswith("Wilson"):
            return bootstrap.wilson_interval(self.violations, self.cases, alpha=1 - confidence)
        return float("nan"), float("nan")

    def gate_bound(self, confidence: float = 0.95) -> float:
        """The upper bound a gate compares with ``max_rate``.

        The larger of the interval's upper end and a Wilson upper bound that
        counts only the source items as independent (``rate`` observed over
        ``len(per_item)`` items). The second guards against a bootstrap that
        collapses: with no violation observed every resample has rate 0, and
        ``[0, 0]`` would let a handful of items pass any gate.
        """
        high = self.interval(confidence)[1]
        units = len(self.per_item)
        if units and self.cases:
            high = max(high, bootstrap.wilson_interval(self.rate * units, units, alpha=1 - confidence)[1])
        return float(high)

    def passes(self, max_rate: float = 0.10, confidence: float = 0.95) -> bool:
        """CI gate: whether the UPPER bound of the rate (:meth:`gate_bound`) is at most ``max_rate``.

        A noisy pass does not pass: the rate must be below ``max_rate`` with
        the given confidence. No cases never passes.

        Raises:
            ValueError: the result has no interval (checked with ``n_boot=0``).
        """
        if self.cases == 0:
            return False
        if not np.isfinite(self.interval(confidence)[1]):
            raise ValueError(f"{self.relation}: no interval to gate on ({self.ci_method}); check with n_boot > 0")
        return bool(self.gate_bound(confidence) <= max_rate)

    def examples(self, k: int = 10) -> pd.DataFrame:
        """The k worst violated cases with their texts and scores, worst first.

        Single-input: violated inputs, by how far the follow-up moved the
        wrong way. Pairwise: for every item its worst violated partner (found
        by sorting, never by enumerating pairs), by how far the follow-up
        order is reversed. Triples: violated triples with the most paths
        ``i -> j -> k`` (most support for the missing ``v(x_i, x_k)``).
        """
        from mtlib.relations import browse

        return browse.examples(self, k)

    def to_html(self, path: str | Path, k: int = 200) -> Path:
        """Write a self-contained, searchable HTML table of the k worst cases (no server, no CDN)."""
        from mtlib.relations import browse

        return browse.write_html(self, path, k)

    def _repr_html_(self) -> str:
        from mtlib.relations import browse

        return browse.summary_html(self, k=10)

    def __repr__(self) -> str:
        return (f"RelationResult({self.relation!r}: {self.violations:,} of {self.cases:,} cases violated, "
                f"rate {self.rate:.4f} [{self.ci_low:.4f}, {self.ci_high:.4f}] ({self.ci_method}))")


def _per_item_frame(violations: np.ndarray, cases: np.ndarray, items: pd.DataFrame | Sequence[Any] | None,
                    n: int) -> pd.DataFrame:
    if items is None:
        frame = pd.DataFrame(index=pd.RangeIndex(n, name="item"))
    elif isinstance(items, pd.DataFrame):
        frame = items.reset_index(drop=True).copy()
    else:
        frame = pd.DataFrame({"item": list(items)})
    if len(frame) != n:
        raise ValueError(f"{len(frame)} item labels for {n} items")
    frame["violations"] = np.asarray(violations, dtype=np.int64)
    frame["cases"] = np.asarray(cases, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        frame["rate"] = np.where(frame["cases"] > 0, frame["violations"] / frame["cases"].clip(lower=1), np.nan)
    return frame


def _interval_from_boot(boot: np.ndarray | None) -> tuple[float, float]:
    return bootstrap.percentile_interval(boot) if boot is not None else (float("nan"), float("nan"))


def _item_ratio_boot(v: np.ndarray, c: np.ndarray, n_boot: int, seed: int) -> np.ndarray | None:
    """Bootstrap of ``sum(v) / sum(c)`` resampling items (for relations given as per-item counts)."""
    if not n_boot:
        return None
    v, c = np.asarray(v, float), np.asarray(c, float)
    w = bootstrap.bootstrap_weights(len(v), n_boot, seed).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ v) / np.where(w @ c > 0, w @ c, np.nan)


def _protocol(check: Callable[..., Any]) -> Callable[..., RelationResult]:
    """Wrap a family's ``check``: old keyword names still work (warned); any output becomes a RelationResult."""

    params = inspect.signature(check).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())

    @functools.wraps(check)
    def wrapper(self: Relation, *args: Any, **kwargs: Any) -> RelationResult:
        for old, new in _RENAMED.items():
            if old in kwargs:
                warnings.warn(f"{type(self).__name__}.check({old}=...) is renamed {new}=...; the old name goes "
                              f"in the next release", DeprecationWarning, stacklevel=2)
                kwargs[new] = kwargs.pop(old)
        # a user's check(src, flw) need not take the protocol's keywords: the base class handles them
        passed = {k: v for k, v in kwargs.items() if takes_any or k in params or k not in _PROTOCOL_KEYWORDS}
        out = check(self, *args, **passed)
        if not isinstance(out, RelationResult):
            out = self._as_result(out, per_item=kwargs.get("per_item"), n_boot=kwargs.get("n_boot", 1000),
                                  seed=kwargs.get("seed", 0), args=args)
        if not out.description:
            out.description = self.description
        out.details.setdefault("family", self.family)
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

    def __init__(self, name: str, transform: Callable[[str], str] | Sequence[Callable[[str], str]] | None = None,
                 *, description: str = "") -> None:
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

    def check(self, src: Any, flw: Any = None, *, per_item: Any = None, n_boot: int = 1000,
              seed: int = 0) -> RelationResult:
        """Count violations from the scores of the sources (``src``) and the follow-ups (``flw``)."""
        raise NotImplementedError(f"{type(self).__name__} must implement check(src, flw, ...)")

    # -- results from what a user's check returns ---------------------------------------------------

    def _as_result(self, out: Any, *, per_item: Any, n_boot: int, seed: int, args: tuple) -> RelationResult:
        if isinstance(out, tuple) and len(out) == 2:
            v, c = np.asarray(out[0], np.int64), np.asarray(out[1], np.int64)
            if v.shape != c.shape or v.ndim != 1:
                raise ValueError(f"{type(self).__name__}.check returned per-item arrays of shapes {v.shape}, "
                                 f"{c.shape}; expected (violations (n,), cases (n,))")
            boot = _item_ratio_boot(v, c, n_boot, seed)
            low, high = _interval_from_boot(boot)
            cases, violations = int(c.sum()), int(v.sum())
            res = RelationResult(self.name, cases, violations, violations / cases if cases else float("nan"), low,
                                 high, f"bootstrap over items (B={n_boot}, per-item ratio)" if n_boot else "none",
                                 _per_item_frame(v, c, per_item, len(v)), None, {"n_items": len(v)})
            res.details.update(boot=boot, kind="items")
            return res
        violated = np.asarray(out)
        if violated.dtype != bool or violated.ndim != 1:
            raise TypeError(f"{type(self).__name__}.check must return a RelationResult, a bool array of violation "
                            f"flags (n,) or per-item (violations, cases); got {type(out).__name__} "
                            f"{getattr(violated, 'shape', '')}")
        src = np.asarray(args[0]) if args else None
        flw = np.asarray(args[1]) if len(args) > 1 else None
        return _single_result(self.name, violated, per_item, src, flw, None, None)

    # -- evaluate ------------------------------------------------------------------------------------

    def _follow_ups(self, inputs: Sequence[str], scorer: Any
                    ) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray], dict[str, list]]:
        """Scores of the sources and of every applicable follow-up, one scorer call per unique text."""
        if not self.transforms:
            raise ValueError(f"{self!r} has no transformation; pass follow-up scores to check() instead")
        fn = as_scorer(scorer, self.needs)
        inputs = [str(x) for x in inputs]
        made = {t.name: apply(t, inputs) for t in self.transforms}
        texts = inputs + [f for follow, _ in made.values() for f in follow if f is not None]
        scores = unique_outputs(texts, fn)
        n, pos = len(inputs), len(inputs)
        src, flws, masks, flw_text = scores[:n], {}, {}, {}
        for name, (follow, applied) in made.items():
            m = int(applied.sum())
            block = scores[pos:pos + m]
            pos += m
            full = np.full((n, *block.shape[1:]), np.nan)
            full[applied] = block
            flws[name], masks[name], flw_text[name] = full, applied, follow
        return src, flws, masks, flw_text

    def evaluate(self, inputs: Sequence[str], scorer: Any, *, n_boot: int = 1000, seed: int = 0,
                 per_item: pd.DataFrame | Sequence[Any] | None = None, **kwargs: Any) -> RelationResult:
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
        inputs = list(inputs)
        src, flws, masks, flw_text = self._follow_ups(inputs, scorer)
        labels = per_item if per_item is not None else inputs
        res = self._check_transformations(src, flws, masks, per_item=labels, n_boot=n_boot, seed=seed, **kwargs)
        res.extra["skipped"] = int(sum((~m).sum() for m in masks.values()))
        res.details["src_text"] = inputs
        res.details["flw_text"] = flw_text
        return res

    def _check_transformations(self, src: np.ndarray, flws: dict[str, np.ndarray], masks: dict[str, np.ndarray],
                               *, per_item: Any, n_boot: int, seed: int, **kwargs: Any) -> RelationResult:
        """Generic pooling: check each transformation on its applicable items, add per-item counts."""
        n = len(src)
        labels = per_item if isinstance(per_item, pd.DataFrame) else (None if per_item is None else list(per_item))
        parts = {}
        for name, flw in flws.items():
            m = masks[name]
            sub = None if labels is None else (labels[m] if isinstance(labels, pd.DataFrame)
                                               else [lab for lab, keep in zip(labels, m) if keep])
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
            rows.append({"transformation": name, "cases": r.cases, "violations": r.violations, "rate": r.rate,
                         "ci_low": r.ci_low, "ci_high": r.ci_high, "skipped": int((~m).sum())})
            independent &= r.ci_method.startswith("Wilson")
            idx = np.flatnonzero(m)
            for s in r.details.get("segments", []):
                segments.append({**s, "group": name, "idx": idx[s["idx"]]})
        cases, violations = int(c.sum()), int(v.sum())
        if independent:
            low, high = bootstrap.wilson_interval(violations, cases)
            boot, method = None, "Wilson (independent cases)"
        else:
            boot = _item_ratio_boot(v, c, n_boot, seed)
            low, high = _interval_from_boot(boot)
            method = f"bootstrap over items (B={n_boot}, per-item ratio)" if n_boot else "none"
        res = RelationResult(self.name, cases, violations, violations / cases if cases else float("nan"), low, high,
                             method, _per_item_frame(v, c, labels, n),
                             pd.DataFrame(rows).set_index("transformation"),
                             {"n_items": n, "transformations": len(parts)}, self.description)
        res.details.update(boot=boot, segments=segments, kind=next(iter(parts.values()))[1].details.get("kind"),
                           family=self.family)
        return res

    # -- diagrams ------------------------------------------------------------------------------------

    def structure(self) -> notation.Diagram:
        """The relation's structure in the paper's graphical notation (single-input by default)."""
        return notation.single_input(prop=rf"$P$: {notation_safe(self.name)}", title=self.name)

    def diagram(self):
        """A matplotlib figure of :meth:`structure` (save it with ``Run.save_figure``)."""
        return self.structure().draw()


def notation_safe(text: str) -> str:
    """Text for a mathtext label: dollar signs escaped."""
    return text.replace("$", r"\$")


def _single_result(name: str, violated: np.ndarray, per_item: Any, src: np.ndarray | None, flw: np.ndarray | None,
                   margin: np.ndarray | None, groups: Sequence[Any] | None) -> RelationResult:
    """A result over independent cases (one per item): Wilson interval, per-item flags."""
    n, v = len(violated), int(violated.sum())
    low, high = bootstrap.wilson_interval(v, n)
    frame = _per_item_frame(violated.astype(int), np.ones(n, dtype=int), per_item, n)
    group_frame = None
    if groups is not None:
        g = pd.DataFrame({"group": list(groups), "violations": violated.astype(int), "cases": 1})
        group_frame = bootstrap.rate_table(g.groupby("group")[["violations", "cases"]].sum())
    res = RelationResult(name, n, v, v / n if n else float("nan"), low, high, "Wilson (independent cases)", frame,
                         group_frame, {})
    res.details.update(kind="single", segments=[{"group": None, "idx": np.arange(n), "src": src, "flw": flw,
                                                 "violated": violated, "margin": margin}])
    return res


# ---------------------------------------------------------------------------
# Relation families
# ---------------------------------------------------------------------------


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

    def __init__(self, name: str, prop: str, transform: Any = None, *, threshold: float | None = None,
                 direction: str = "increase", similarity: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                 description: str = "") -> None:
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
                from mtlib.utils.similarity import cosine_distance_rows

                s = 1.0 - cosine_distance_rows(src.reshape(len(src), -1), flw.reshape(len(flw), -1))
            return s > self.threshold, self.threshold - s
        d = (flw - src) if self.direction == "increase" else (src - flw)
        d = d.reshape(len(d), -1)[:, 0] if d.ndim > 1 else d
        return d > 0, -d

    def holds(self, src: np.ndarray, flw: np.ndarray) -> np.ndarray:
        """Whether P holds for each case, shape ``(n,)`` bool."""
        src, flw = np.asarray(src, float), np.asarray(flw, float)
        if src.shape != flw.shape:
            raise ValueError(f"source outputs {src.shape} and follow-up outputs {flw.shape} differ in shape")
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

    def check(self, src: np.ndarray, flw: np.ndarray, *, per_item: pd.DataFrame | Sequence[Any] | None = None,
              groups: Sequence[Any] | None = None, n_boot: int = 0, seed: int = 0) -> RelationResult:
        """Count violations over independent cases (Wilson interval) and test the score change.

        Args:
            src: Outputs on the sources, shape ``(n,)`` or ``(n, k)``.
            flw: Outputs on the follow-ups, the same shape.
            per_item: Labels or a DataFrame describing each source.
            groups: Group of each case for a breakdown (e.g. transformation).
            n_boot, seed: Accepted for the common signature (the interval is Wilson).
        """
        src, flw = np.asarray(src, float), np.asarray(flw, float)
        if src.shape != flw.shape:
            raise ValueError(f"source outputs {src.shape} and follow-up outputs {flw.shape} differ in shape")
        ok, margin = self._margin(src, flw)
        res = _single_result(self.name, ~ok, per_item, src, flw, margin, groups)
        res.extra["property"] = self.prop
        res.extra.update(_wilcoxon(self._change(src, flw)))
        return res

    def _check_transformations(self, src: np.ndarray, flws: dict[str, np.ndarray], masks: dict[str, np.ndarray],
                               *, per_item: Any, n_boot: int, seed: int, **kwargs: Any) -> RelationResult:
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
            rows.append({"transformation": k, "cases": int(sel.sum()), "violations": int(violated[sel].sum()),
                         "rate": violated[sel].mean() if sel.any() else np.nan, "ci_low": lo, "ci_high": hi,
                         "skipped": int((~masks[k]).sum()),
                         **{key: val for key, val in _wilcoxon(self._change(s_all[sel], f_all[sel])).items()}})
        labels = per_item if isinstance(per_item, pd.DataFrame) else (None if per_item is None else list(per_item))
        res = RelationResult(self.name, cases, violations, violations / cases if cases else float("nan"), low, high,
                             "Wilson (independent cases)", _per_item_frame(v, c, labels, n),
                             pd.DataFrame(rows).set_index("transformation"),
                             {"property": self.prop, "n_items": n, "transformations": len(flws),
                              **_wilcoxon(self._change(s_all, f_all))}, self.description)
        res.details.update(kind="single", family=self.family, segments=[
            {"group": k, "idx": idx[grp == k], "src": s_all[grp == k], "flw": f_all[grp == k],
             "violated": violated[grp == k], "margin": margin[grp == k]} for k in flws])
        return res

    def structure(self) -> notation.Diagram:
        props = {"equivalence": r"$P_{eq}$", "similarity": r"$P_{sim}: s(\mathbf{y}, \mathbf{y}') > \theta$",
                 "order": r"$P_{ord}: s(\mathbf{y}) < s(\mathbf{y}')$"}
        return notation.single_input(prop=props[self.prop], title=self.name)


def _wilcoxon(change: np.ndarray | None) -> dict[str, float]:
    """Paired Wilcoxon signed-rank test of the score change (zero differences dropped)."""
    if change is None:
        return {}
    change = np.asarray(change, float)
    nonzero = change[change != 0]
    out = {"median_change": float(np.median(change)) if len(change) else float("nan"),
           "changed": int(len(nonzero))}
    if len(nonzero) == 0:  # no case, or no score moved: nothing to test
        out.update(wilcoxon_statistic=float("nan"), wilcoxon_p=1.0 if len(change) else float("nan"))
        return out
    from scipy.stats import wilcoxon

    r = wilcoxon(nonzero)
    out.update(wilcoxon_statistic=float(r.statistic), wilcoxon_p=float(r.pvalue))
    return out


#: Largest segment counted by the dense bootstrap (an m x m float64 matrix of violated cases).
_DENSE_BOOT_MAX = 2500


def _order_segments_boot(segments: list[dict[str, Any]], n: int, n_boot: int, seed: int
                         ) -> tuple[np.ndarray | None, list[np.ndarray | None]]:
    """Bootstrap replicates of a pooled pairwise rate: one item-weight vector per replicate for every segment.

    Each replicate's counts are exact. Segments of at most ``_DENSE_BOOT_MAX``
    items use the quadratic form ``w^T V w / 2`` (``V[i, j]`` = 1 for a
    violated case) for all replicates in one matrix product; larger ones
    recount with :func:`count_order_violations` and integer weights per replicate.

    Returns:
        ``(pooled (n_boot,), [per segment (n_boot,)])`` rates from the same
        resamples; ``(None, [None, ...])`` when ``n_boot`` is 0.
    """
    if not n_boot or not segments:
        return None, [None] * len(segments)
    weights = bootstrap.bootstrap_weights(n, n_boot, seed)
    v_tot, c_tot, parts = np.zeros(n_boot), np.zeros(n_boot), []
    for s in segments:
        w = weights[:, s["wkey"]]
        if len(s["src"]) <= _DENSE_BOOT_MAX:
            v, c = _dense_boot_counts(s, w)
        else:
            v, c = np.zeros(n_boot), np.zeros(n_boot)
            for b in range(n_boot):
                r = count_order_violations(s["src"], s["flw"], expected=s["expected"], weights=w[b])
                v[b], c[b] = r.violations, r.cases
        v_tot += v
        c_tot += c
        parts.append(_ratio(v, c))
    return _ratio(v_tot, c_tot), parts


def _ratio(v: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(c > 0, v / np.where(c > 0, c, 1), np.nan)


def _dense_boot_counts(s: dict[str, Any], w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact violated and total cases of one segment for every row of item weights ``w`` (B, m).

    Cases: ``((sum w)^2 - sum over tie groups of (sum w)^2) / 2``. Violations:
    ``w^T V w / 2`` with ``V`` the symmetric 0/1 matrix of violated pairs (its
    products are sums of at most ``sum w`` ones, exact in float32).
    """
    src, flw = s["src"], s["flw"]
    up_s = src[:, None] > src[None, :]
    up_f = flw[:, None] > flw[None, :] if s["expected"] == "same" else flw[:, None] < flw[None, :]
    bad = up_s & ~up_f
    bad |= bad.T
    wf = w.astype(np.float32)
    v = np.einsum("bi,bi->b", (wf @ bad.astype(np.float32)).astype(np.float64), w.astype(np.float64)) / 2
    order = np.argsort(src, kind="stable")
    starts = np.flatnonzero(np.r_[True, src[order][1:] != src[order][:-1]])
    per_tie = np.add.reduceat(w[:, order].astype(np.float64), starts, axis=1)  # weight of each tie group
    tot = w.sum(1).astype(np.float64)
    c = (tot**2 - (per_tie**2).sum(1)) / 2
    return np.round(v), np.round(c)


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

    def __init__(self, name: str, transform: Any = None, *, expected: str | None = None,
                 description: str = "") -> None:
        super().__init__(name, transform, description=description)
        self._explicit = expected is not None
        if expected is None:
            expected = self.transform.expected if self.transform is not None else "same"
        if expected not in EXPECTED_DIRECTIONS:
            raise ValueError(f"expected must be one of {list(EXPECTED_DIRECTIONS)}, got {expected!r}")
        self.expected = expected

    def _expected_of(self, name: str) -> str:
        """The direction for one transformation: the one given, else the transformation's own."""
        t = next((t for t in self.transforms if t.name == name), None)
        return self.expected if self._explicit or t is None else t.expected

    def check(self, src: np.ndarray, flw: np.ndarray, *, per_item: pd.DataFrame | Sequence[Any] | None = None,
              n_boot: int = 1000, seed: int = 0) -> RelationResult:
        """Count violated pairs exactly, with per-item counts and a bootstrap over sources.

        Args:
            src: Scores of the sources, shape ``(n,)``.
            flw: Scores of their follow-ups, shape ``(n,)``.
            per_item: Labels or a DataFrame describing each source.
            n_boot: Bootstrap replicates (0 skips the interval).
            seed: Seeds the bootstrap.
        """
        return self.check_many(src, {self.transform.name if self.transform else "T": flw}, per_item=per_item,
                               n_boot=n_boot, seed=seed, _single=True)

    def check_many(self, src: np.ndarray, flws: Mapping[str, np.ndarray], *,
                   per_item: pd.DataFrame | Sequence[Any] | None = None,
                   applied: Mapping[str, np.ndarray] | None = None,
                   n_boot: int = 1000, seed: int = 0, items: Any = None, _single: bool = False) -> RelationResult:
        """The relation under several transformations of the same sources.

        Args:
            src: Source scores ``(n,)``.
            flws: Follow-up scores per transformation id, each ``(n,)``.
            per_item: Labels or a DataFrame describing each source.
            applied: Per transformation id, a bool mask ``(n,)`` of the sources
                it applied to (the others are left out of its pairs).
            n_boot: Bootstrap replicates (one item-weight vector per replicate
                for all transformations); 0 skips the interval.

        Returns:
            Pooled counts over all transformations; ``groups`` has one row per
            transformation (with its own bootstrap interval); ``per_item``
            sums each source's violated and total cases over transformations.
        """
        if items is not None:
            warnings.warn("check_many(items=...) is renamed per_item=...", DeprecationWarning, stacklevel=2)
            per_item = items
        start = time.perf_counter()
        src = np.asarray(src, float)
        n = len(src)
        segments, rows = [], []
        per_v, per_c = np.zeros(n, np.int64), np.zeros(n, np.int64)
        ties_src = ties_flw = 0
        for name, f in flws.items():
            m = np.ones(n, bool) if applied is None or name not in applied else np.asarray(applied[name], bool)
            idx = np.flatnonzero(m)
            exp = self.expected if _single else self._expected_of(name)
            res = count_order_violations(src[idx], np.asarray(f, float)[idx], expected=exp, per_item=True)
            per_v[idx] += res.per_item
            per_c[idx] += res.per_item_cases
            ties_src, ties_flw = ties_src + res.ties_src, ties_flw + res.ties_flw
            segments.append({"group": name, "idx": idx, "wkey": idx, "src": src[idx],
                             "flw": np.asarray(f, float)[idx], "expected": exp})
            rows.append({"transformation": name, "expected": exp, "cases": res.cases, "violations": res.violations,
                         "rate": res.rate, "ties_flw": res.ties_flw, "skipped": int(n - len(idx))})
        seconds = time.perf_counter() - start
        cases, violations = int(sum(r["cases"] for r in rows)), int(sum(r["violations"] for r in rows))
        boot, parts = _order_segments_boot(segments, n, n_boot, seed)
        low, high = _interval_from_boot(boot)
        groups = None
        if not _single:
            for row, part in zip(rows, parts):
                row["ci_low"], row["ci_high"] = _interval_from_boot(part)
            groups = pd.DataFrame(rows).set_index("transformation")
        m_pairs = sum(len(s["idx"]) * (len(s["idx"]) - 1) // 2 for s in segments)
        extra = {"ties_src": ties_src, "ties_flw": ties_flw, "n_items": n, "pairs": m_pairs, "count_seconds": seconds}
        if not _single:
            extra["transformations"] = len(flws)
        res = RelationResult(self.name, cases, violations, violations / cases if cases else float("nan"), low, high,
                             f"bootstrap over sources (B={n_boot})" if n_boot else "none",
                             _per_item_frame(per_v, per_c, per_item, n), groups, extra, self.description)
        res.details.update(kind="pairs", boot=boot, segments=segments, family=self.family)
        return res

    def _check_transformations(self, src: np.ndarray, flws: dict[str, np.ndarray], masks: dict[str, np.ndarray],
                               *, per_item: Any, n_boot: int, seed: int, **kwargs: Any) -> RelationResult:
        if len(flws) == 1 and next(iter(masks.values())).all():
            name = next(iter(flws))
            return self.check(src, flws[name], per_item=per_item, n_boot=n_boot, seed=seed)
        return self.check_many(src, {k: np.where(masks[k], flws[k], 0.0) for k in flws}, per_item=per_item,
                               applied=masks, n_boot=n_boot, seed=seed)

    def structure(self) -> notation.Diagram:
        return notation.pairwise_systematicity(
            prop=r"$s(\mathbf{y}_1) > s(\mathbf{y}_2) \Rightarrow$ "
                 + (r"$s(\mathbf{y}'_1) > s(\mathbf{y}'_2)$" if self.expected == "same"
                    else r"$s(\mathbf{y}'_1) < s(\mathbf{y}'_2)$"),
            title=self.name)


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

    def __init__(self, name: str, transform: Any = None, *, hidden: str = "s_{hid}", output: str = "s_{out}",
                 description: str = "") -> None:
        super().__init__(name, transform, description=description)
        self.hidden, self.output = hidden, output

    def check(self, src: np.ndarray, flw: np.ndarray, groups: Sequence[Any], direction: Mapping[Any, str], *,
              per_item: Sequence[Any] | None = None, group_info: pd.DataFrame | None = None,
              item_info: pd.DataFrame | None = None, n_boot: int = 200, seed: int = 0) -> RelationResult:
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

        Returns:
            Pooled result; ``groups`` has per-group counts and rates,
            ``per_item`` per-item counts pooled over groups.
        """
        hid, out = np.asarray(src, float), np.asarray(flw, float)
        groups = np.asarray(groups)
        item_labels = np.asarray(per_item) if per_item is not None else np.arange(len(hid))
        if not (len(hid) == len(out) == len(groups) == len(item_labels)):
            raise ValueError("src, flw, groups and per_item must have the same length")
        missing = sorted({str(g) for g in np.unique(groups)} - {str(g) for g in direction})
        if missing:
            raise ValueError(f"no direction given for groups {missing[:5]}")
        dir_of = {str(k): v for k, v in direction.items()}
        start = time.perf_counter()
        order = np.argsort(groups, kind="stable")
        bounds = (np.flatnonzero(np.r_[True, groups[order][1:] != groups[order][:-1], True]) if len(groups)
                  else np.zeros(1, int))
        rows, v_item, c_item = [], np.zeros(len(hid), np.int64), np.zeros(len(hid), np.int64)
        item_codes, item_values = pd.factorize(pd.Series(item_labels))
        segments = []
        for a, b in zip(bounds[:-1], bounds[1:]):
            idx = order[a:b]
            g = groups[idx[0]]
            res = count_order_violations(hid[idx], out[idx], expected=dir_of[str(g)], per_item=True)
            v_item[idx], c_item[idx] = res.per_item, res.per_item_cases
            rows.append({"group": g, "expected": dir_of[str(g)], "n_items": len(idx), "cases": res.cases,
                         "violations": res.violations, "rate": res.rate, "ties_src": res.ties_src})
            segments.append({"group": g, "idx": idx, "wkey": item_codes[idx], "src": hid[idx], "flw": out[idx],
                             "expected": dir_of[str(g)]})
        seconds = time.perf_counter() - start
        group_frame = pd.DataFrame(rows, columns=["group", "expected", "n_items", "cases", "violations", "rate",
                                                  "ties_src"]).set_index("group")
        if group_info is not None:
            group_frame = group_frame.join(group_info, how="left")
        cases, violations = int(group_frame["cases"].sum()), int(group_frame["violations"].sum())
        boot, _ = _order_segments_boot(segments, len(item_values), n_boot, seed)
        low, high = _interval_from_boot(boot)
        pooled = pd.DataFrame({"item": item_labels, "violations": v_item, "cases": c_item})
        frame = pooled.groupby("item", sort=False)[["violations", "cases"]].sum()
        frame["rate"] = frame["violations"] / frame["cases"].where(frame["cases"] > 0)
        if item_info is not None:
            frame = frame.join(item_info, how="left")
        res = RelationResult(self.name, cases, violations, violations / cases if cases else float("nan"), low, high,
                             f"bootstrap over items (B={n_boot})" if n_boot else "none", frame, group_frame,
                             {"n_inputs": len(hid), "n_groups": len(group_frame), "count_seconds": seconds},
                             self.description)
        res.details.update(kind="pairs", boot=boot, segments=segments, family=self.family,
                           labels=item_labels)
        return res

    def evaluate(self, inputs: Sequence[str], scorer: Any, *, n_boot: int = 200, seed: int = 0,
                 per_item: Sequence[Any] | None = None, groups: Sequence[Any] | None = None,
                 direction: Mapping[Any, str] | None = None, **kwargs: Any) -> RelationResult:
        """Score every unique input once (``scorer(texts) -> (n, 2)``: probe score, output score) and check.

        Without a transformation the inputs themselves are the cases; with
        one, the follow-ups are scored instead of the inputs.
        """
        if groups is None or direction is None:
            raise ValueError("PairwiseCompositionality.evaluate needs groups= and direction=")
        inputs = [str(x) for x in inputs]
        texts = inputs
        if self.transforms:
            texts, applied = apply(self.transform, inputs)
            if not applied.all():
                raise NotApplicable(f"{self.transform.name} does not apply to {int((~applied).sum())} inputs")
        scores = unique_outputs(texts, as_scorer(scorer))
        scores = np.asarray(scores, float)
        if scores.ndim != 2 or scores.shape[1] != 2:
            raise ValueError(f"the scorer must return (n, 2) (probe score, output score), got {scores.shape}")
        res = self.check(scores[:, 0], scores[:, 1], groups, direction, per_item=per_item, n_boot=n_boot, seed=seed,
                         **kwargs)
        res.extra["skipped"] = 0
        res.details["src_text"] = list(texts)
        res.details["flw_text"] = None
        return res

    def structure(self) -> notation.Diagram:
        return notation.pairwise_compositionality(
            prop=rf"${self.hidden}(\mathbf{{z}}_1) > {self.hidden}(\mathbf{{z}}_2) \Rightarrow "
                 rf"{self.output}(\mathbf{{y}}_1) \gtrless {self.output}(\mathbf{{y}}_2)$",
            title=self.name)


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

    def check(self, src: np.ndarray, flw: np.ndarray | None = None, *, per_item: Sequence[Any] | None = None,
              n_boot: int = 200, seed: int = 0, sample: int | None = None) -> RelationResult:
        """Count violated triples of the Boolean prediction matrix.

        Args:
            src: ``src[i, j]`` = v(x_i, x_j), shape ``(n, n)`` bool; the
                diagonal is ignored.
            flw: Must be ``None`` or the same matrix (see the class docstring).
            per_item: Labels of the n inputs (e.g. words).
            n_boot: Bootstrap replicates resampling items (0 skips it).
            sample: Count a random sample of this many triples instead (the
                paper's procedure); the interval is then Wilson over the kept cases.
        """
        if flw is not None and not np.array_equal(np.asarray(flw), np.asarray(src)):
            raise ValueError("three-way transitivity reads v(x13) from the same matrix as v(x12), v(x23): "
                             "pass the prediction matrix as src only")
        adj = np.asarray(src)
        start = time.perf_counter()
        res = count_transitivity_violations(adj, per_item=True, sample=sample, seed=seed)
        seconds = time.perf_counter() - start
        boot = None
        if sample is not None:
            low, high = bootstrap.wilson_interval(res.violations, res.cases)
            method = f"Wilson over {res.cases:,} sampled cases"
        elif n_boot:
            boot = bootstrap.bootstrap_transitivity_rates(adj, n_boot=n_boot, seed=seed)
            low, high = _interval_from_boot(boot)
            method = f"bootstrap over items (B={n_boot})"
        else:
            low, high, method = np.nan, np.nan, "none"
        frame = _per_item_frame(res.per_item, res.per_item_cases, per_item, res.n)
        n = res.n
        out = RelationResult(self.name, res.cases, res.violations, res.rate, low, high, method, frame, None,
                             {"n_items": n, "triples": n * (n - 1) * (n - 2), "sampled": res.sampled,
                              "n_sampled": res.n_sampled, "count_seconds": seconds}, self.description)
        out.details.update(kind="triples", boot=boot, adj=np.asarray(adj, dtype=bool), family=self.family,
                           labels=None if per_item is None else list(per_item))
        return out

    def evaluate(self, inputs: Sequence[str], scorer: Callable[[list[tuple[str, str]]], np.ndarray], *,
                 n_boot: int = 200, seed: int = 0, per_item: Sequence[Any] | None = None,
                 **kwargs: Any) -> RelationResult:
        """Predict v on every ordered pair of distinct inputs (one scorer call) and check."""
        inputs = [str(x) for x in inputs]
        n = len(inputs)
        i, j = np.nonzero(~np.eye(n, dtype=bool))
        v = np.asarray(scorer([(inputs[a], inputs[b]) for a, b in zip(i, j)]))
        if v.shape != (len(i),):
            raise ValueError(f"the scorer must return one prediction per pair, shape ({len(i)},), got {v.shape}")
        adj = np.zeros((n, n), dtype=bool)
        adj[i, j] = v.astype(bool)
        res = self.check(adj, per_item=per_item if per_item is not None else inputs, n_boot=n_boot, seed=seed,
                         **kwargs)
        res.extra["skipped"] = 0
        res.details["src_text"] = inputs
        return res

    def structure(self) -> notation.Diagram:
        return notation.three_way_transitivity(title=self.name)
