"""One test's outcome in a suite run: the row of the summary, plus what a report and a comparison need.

A :class:`TestOutcome` keeps the numbers of a
:class:`~mtlib.relations.RelationResult` (rate, interval, gate bound,
threshold, pass/fail, counts), its per-transformation table, its worst
examples and its per-item counts (which :func:`mtlib.suite.compare` pairs
across models), all in plain values, so it saves to JSON and loads back
identical. The live result object stays in ``result`` for the run that made it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations.result import RelationResult

__all__ = ["TestOutcome"]

#: Summary columns, in order.
COLUMNS = (
    "family",
    "rule",
    "rate",
    "ci_low",
    "ci_high",
    "gate_bound",
    "threshold",
    "passed",
    "n_items",
    "cases",
    "violations",
    "skipped",
    "worst",
    "note",
    "warning",
)

#: Text columns of an examples table, in the order the summary's ``worst`` shows them.
_TEXT_COLUMNS = ("src_text", "flw_text", "src_text_1", "flw_text_1", "src_text_2", "flw_text_2", "x1", "x2", "x3")


def inputs_digest(texts: Sequence[str]) -> str:
    """A short digest of the source texts (tells whether two results were computed on the same inputs)."""
    return hashlib.sha256(json.dumps([str(t) for t in texts]).encode("utf-8")).hexdigest()[:16]


def plain(value: Any) -> Any:
    """Plain JSON values: numpy scalars and arrays unwrapped, NaN and infinities as ``None``."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def frame_to_json(frame: pd.DataFrame | None) -> dict[str, Any] | None:
    """A DataFrame as ``{index, index_name, columns, dtypes, data}`` in plain values."""
    if frame is None:
        return None
    ranged = isinstance(frame.index, pd.RangeIndex) and frame.index.equals(pd.RangeIndex(len(frame)))
    return {
        "index": None if ranged else plain(list(frame.index)),
        "index_name": frame.index.name,
        "columns": [str(c) for c in frame],
        "dtypes": [str(t) for t in frame.dtypes],
        "data": plain(frame.to_numpy(dtype=object).tolist()),
    }


def frame_from_json(data: dict[str, Any] | None) -> pd.DataFrame | None:
    """The DataFrame :func:`frame_to_json` wrote (column types restored)."""
    if data is None:
        return None
    index = (
        pd.RangeIndex(len(data["data"]), name=data["index_name"])
        if data["index"] is None
        else pd.Index(data["index"], name=data["index_name"])
    )
    if not data["columns"]:
        return pd.DataFrame(index=index)
    frame = pd.DataFrame(data["data"], columns=data["columns"], index=index)
    for col, dtype in zip(data["columns"], data["dtypes"]):
        frame[col] = frame[col].astype(dtype) if dtype != "object" else frame[col].astype(object)
    return frame


def _float(value: Any) -> float:
    return float("nan") if value is None else float(value)


@dataclass
class TestOutcome:
    """One test of a suite on one model.

    Attributes:
        name: Test name.
        family: Relation family (``"single-input"``, ``"pairwise systematicity"``, ``"minimum functionality"``...).
        description: What the test checks.
        threshold: Highest violation rate allowed.
        rate, ci_low, ci_high, ci_method: Violation rate and its 95% interval.
        gate_bound: The upper bound the gate compares with ``threshold``.
        passed: Whether the test passes (``gate_bound <= threshold``, and at least one case).
        n_items, cases, violations, skipped: Source items, cases, violated cases, inapplicable (item, T) pairs.
        inputs_digest: Digest of the source texts.
        groups: One row per transformation (cases, violations, rate, interval, skipped), or ``None``.
        examples: The worst violated cases, worst first.
        per_item: ``item, violations, cases`` per source item.
        rule: Which reading counted (ties, tolerance), e.g. ``"strict argmax (a tie fails)"``.
        note: Why nothing was counted when ``cases`` is 0 (then ``rate`` is undefined and the test fails).
        warning: Why a failing test could not pass whatever the model did (too few inputs for its
            threshold: ``"too few inputs: needs at least 73 inputs for the gate at 0.05; has 10"``), or ``""``.
        result: The live :class:`RelationResult` (``None`` after loading).
    """

    __test__ = False  # not a pytest test class

    name: str
    family: str
    description: str
    threshold: float
    rate: float
    ci_low: float
    ci_high: float
    ci_method: str
    gate_bound: float
    passed: bool
    n_items: int
    cases: int
    violations: int
    skipped: int
    inputs_digest: str
    groups: pd.DataFrame | None
    examples: pd.DataFrame
    per_item: pd.DataFrame
    rule: str = ""
    note: str = ""
    warning: str = ""
    result: RelationResult | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_result(
        cls, name: str, result: RelationResult, threshold: float, inputs: Sequence[str], *, k: int = 10
    ) -> TestOutcome:
        """The outcome of one relation result under ``threshold`` (``k`` worst examples kept)."""
        try:
            passed = result.passes(threshold)
        except ValueError:  # no interval: nothing to gate on
            passed = False
        bound = result.gate_bound() if result.cases else float("nan")
        groups = None
        if result.groups is not None:
            keep = [c for c in ("cases", "violations", "rate", "ci_low", "ci_high", "skipped") if c in result.groups]
            groups = result.groups[keep].copy()
            groups.index = groups.index.astype(str)
        n = len(result.per_item)
        items = [str(x) for x in inputs] if n == len(inputs) else [str(i) for i in range(n)]
        per_item = pd.DataFrame(
            {
                "item": items,
                "violations": result.per_item["violations"].to_numpy(np.int64),
                "cases": result.per_item["cases"].to_numpy(np.int64),
            }
        )
        examples = result.examples(k).reset_index(drop=True)
        return cls(
            name=name,
            family=str(result.details.get("family", "relation")),
            description=result.description,
            threshold=float(threshold),
            rate=float(result.rate),
            ci_low=float(result.ci_low),
            ci_high=float(result.ci_high),
            ci_method=result.ci_method,
            gate_bound=float(bound),
            passed=bool(passed),
            n_items=len(result.per_item),
            cases=int(result.cases),
            violations=int(result.violations),
            skipped=int(result.extra.get("skipped", 0)),
            inputs_digest=inputs_digest(inputs),
            groups=groups,
            examples=examples,
            per_item=per_item,
            rule=str(result.details.get("rule", "")),
            note=result.no_cases,
            result=result,
        )

    @property
    def worst(self) -> str:
        """The worst violated case in one line (its texts joined by `` | ``, cut at 120 characters), or ``""``."""
        if self.examples.empty:
            return ""
        first = self.examples.iloc[0]
        texts = [str(first[c]) for c in _TEXT_COLUMNS if c in first.index and pd.notna(first[c])]
        line = " | ".join(texts)
        return line if len(line) <= 120 else line[:119] + "…"

    def row(self) -> dict[str, Any]:
        """The summary row (see ``COLUMNS``)."""
        return {c: getattr(self, c) for c in COLUMNS}

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (the live result is left out)."""
        scalars = {
            c: plain(getattr(self, c))
            for c in (
                "name",
                "family",
                "description",
                "threshold",
                "rate",
                "ci_low",
                "ci_high",
                "ci_method",
                "gate_bound",
                "passed",
                "n_items",
                "cases",
                "violations",
                "skipped",
                "inputs_digest",
                "rule",
                "note",
                "warning",
            )
        }
        return {
            **scalars,
            "groups": frame_to_json(self.groups),
            "examples": frame_to_json(self.examples),
            "per_item": frame_to_json(self.per_item),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestOutcome:
        """The outcome :meth:`to_json` wrote."""
        examples, per_item = frame_from_json(data["examples"]), frame_from_json(data["per_item"])
        assert examples is not None and per_item is not None
        return cls(
            name=data["name"],
            family=data["family"],
            description=data["description"],
            threshold=_float(data["threshold"]),
            rate=_float(data["rate"]),
            ci_low=_float(data["ci_low"]),
            ci_high=_float(data["ci_high"]),
            ci_method=data["ci_method"],
            gate_bound=_float(data["gate_bound"]),
            passed=bool(data["passed"]),
            n_items=int(data["n_items"]),
            cases=int(data["cases"]),
            violations=int(data["violations"]),
            skipped=int(data["skipped"]),
            inputs_digest=data["inputs_digest"],
            groups=frame_from_json(data["groups"]),
            examples=examples,
            per_item=per_item,
            rule=str(data.get("rule") or ""),
            note=str(data.get("note") or ""),
            warning=str(data.get("warning") or ""),
        )
