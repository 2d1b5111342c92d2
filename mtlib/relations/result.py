"""The outcome of a relation and its failing cases, browsable.

A :class:`RelationResult` carries the violation rate, its interval, the cases
and violations, per-item counts and what :meth:`RelationResult.examples`
needs to find the worst violated cases. Finding them never enumerates pairs or
triples in Python:

- single-input: violated inputs, by how far the follow-up moved the wrong
  way (the property's margin);
- pairwise (systematicity and compositionality): for every item i, its worst
  violated partner j among the items with a strictly lower source score, by
  a running maximum over the items sorted by source score (O(n log n) per
  group); the margin is how far the follow-up order is reversed
  (``flw_j - flw_i`` for ``expected="same"``; 0 for a follow-up tie);
- triples: the violated triples (i, j, k) whose missing ``v(x_i, x_k)`` has
  the most paths ``i -> j -> k`` (one matrix product).

:func:`write_html` writes them as one self-contained HTML file with an inline
filter box (no server, no CDN); :func:`summary_html` is the notebook view.
The builders here (:func:`per_item_frame`, :func:`single_result`...) are shared
by every relation family.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations import bootstrap
from mtlib.relations.errors import MtlibInputError, check_count, check_open_unit, check_rate, refuse
from mtlib.relations.exactness import violation_rate
from mtlib.relations.replicates import weighted_sums
from mtlib.utils.inputs import check_output_file

__all__ = ["RelationResult"]


@dataclass(kw_only=True)
class RelationResult:
    """Outcome of checking a relation, built by keyword; the rate is derived, never passed.

    Every relation family builds its result here with the counts it made,
    and :meth:`__post_init__` derives ``rate`` from them, so no caller
    computes ``violations / cases`` (or its nan for no cases) itself.

    Attributes:
        relation: Name of the relation.
        cases: Test cases whose premise holds (pairs, triples or inputs).
        violations: Cases whose conclusion fails.
        rate: ``violations / cases`` (``nan`` without cases), derived.
        ci_low, ci_high: 95% interval of the rate.
        ci_method: How the interval was computed.
        per_item: One row per source item: ``violations``, ``cases``, ``rate``
            (and any item columns passed in).
        groups: Breakdown by group (transformation, context...) or ``None``.
        extra: Other counts (``ties_src``, ``n_items``, ``skipped``, ``count_seconds`` ...).
        description: What the relation checks (for gate messages and tables).
        details: What :meth:`examples` needs (scores, texts, bootstrap
            replicates, and ``case_type``: what one case is, ``"single"`` (an input and its follow-up),
            ``"pairs"``, ``"triples"`` or ``"items"``); not part of the metrics.
    """

    relation: str
    cases: int
    violations: int
    rate: float = field(init=False)
    ci_low: float
    ci_high: float
    ci_method: str
    per_item: pd.DataFrame
    groups: pd.DataFrame | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    details: dict[str, Any] = field(default_factory=dict, repr=False)

    headline = ("violation_rate",)

    def __post_init__(self) -> None:
        self.cases, self.violations = int(self.cases), int(self.violations)
        self.rate = violation_rate(self.violations, self.cases)

    @property
    def no_cases(self) -> str:
        """Why nothing was counted, in one sentence (``""`` when there are cases): the rate is then undefined.

        A result without cases never passes a gate; its repr, the gate's
        message and a suite's summary give this sentence instead of a bare NaN.
        """
        if self.cases:
            return ""
        case_type, n = self.details.get("case_type"), len(self.per_item)
        skipped = int(self.extra.get("skipped", 0) or 0)
        if case_type == "pairs":
            why = f"no pairs to compare: need at least 2 texts with different scores ({n} item(s)"
            return why + (f", {skipped} (input, transformation) pair(s) skipped)" if skipped else ")")
        if case_type == "triples":
            return f"no triples to check: need at least 3 items and a premise v(x1, x2), v(x2, x3) ({n} item(s))"
        if skipped:
            return f"no case: the transformation applied to none of the {n} input(s) ({skipped} skipped)"
        return f"no case to count ({n} item(s))"

    def summary(self) -> dict[str, Any]:
        """Scalars for ``metrics.json``."""
        return {
            "relation": self.relation,
            "cases": self.cases,
            "violations": self.violations,
            "rate": self.rate,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "ci_method": self.ci_method,
            **self.extra,
        }

    def metrics(self, prefix: str = "") -> dict[str, Any]:
        """Flat numeric keys for ``Run.record_report``: ``violation_rate``, ``ci_low``, ``ci_high``, ``cases``...

        Groups (e.g. transformations) add ``violation_rate/<group>`` etc.;
        ``prefix`` (if given) is put in front as ``<prefix>/<key>``.
        """
        out: dict[str, Any] = {
            "violation_rate": self.rate,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "cases": self.cases,
            "violations": self.violations,
        }
        out.update(
            {
                k: v
                for k, v in self.extra.items()
                if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            }
        )
        if self.groups is not None:
            for g, row in self.groups.iterrows():
                for col, key in (
                    ("rate", "violation_rate"),
                    ("ci_low", "ci_low"),
                    ("ci_high", "ci_high"),
                    ("cases", "cases"),
                    ("violations", "violations"),
                ):
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
        confidence = check_open_unit(confidence, "RelationResult.interval", "confidence")
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
            MtlibInputError: ``max_rate`` is not a number in [0, 1] or
                ``confidence`` not one in (0, 1).
            ValueError: the result has no interval (checked with ``n_boot=0``).
        """
        max_rate = check_rate(max_rate, "RelationResult.passes", "max_rate")
        confidence = check_open_unit(confidence, "RelationResult.passes", "confidence")
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
        return examples(self, check_count(k, "RelationResult.examples", "k"))

    def to_html(self, path: str | Path, k: int = 200) -> Path:
        """Write a self-contained, searchable HTML table of the k worst cases (no server, no CDN)."""
        target = check_output_file(path, "RelationResult.to_html", suffix=".html")
        return write_html(self, target, check_count(k, "RelationResult.to_html", "k"))

    def _repr_html_(self) -> str:
        return summary_html(self, k=10)

    def __repr__(self) -> str:
        if not self.cases:
            return f"RelationResult({self.relation!r}: no cases, rate undefined: {self.no_cases})"
        return (
            f"RelationResult({self.relation!r}: {self.violations:,} of {self.cases:,} cases violated, "
            f"rate {self.rate:.4f} [{self.ci_low:.4f}, {self.ci_high:.4f}] ({self.ci_method}))"
        )


def per_item_frame(
    violations: np.ndarray, cases: np.ndarray, items: pd.DataFrame | Sequence[Any] | None, n: int
) -> pd.DataFrame:
    if items is not None and (isinstance(items, (str, bytes)) or not hasattr(items, "__iter__")):
        raise refuse("check", "per_item", "labels (a list) or a DataFrame, one per item", items)
    if items is None:
        frame = pd.DataFrame(index=pd.RangeIndex(n, name="item"))
    elif isinstance(items, pd.DataFrame):
        frame = items.reset_index(drop=True).copy()
    else:
        frame = pd.DataFrame({"item": list(items)})
    if len(frame) != n:
        raise MtlibInputError(f"per_item has {len(frame)} item labels for {n} items", argument="per_item")
    frame["violations"] = np.asarray(violations, dtype=np.int64)
    frame["cases"] = np.asarray(cases, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        frame["rate"] = np.where(frame["cases"] > 0, frame["violations"] / frame["cases"].clip(lower=1), np.nan)
    return frame


def interval_from_boot(boot: np.ndarray | None) -> tuple[float, float]:
    return bootstrap.percentile_interval(boot) if boot is not None else (float("nan"), float("nan"))


def item_ratio_boot(v: np.ndarray, c: np.ndarray, n_boot: int, seed: int) -> np.ndarray | None:
    """Bootstrap of ``sum(v) / sum(c)`` resampling items (for relations given as per-item counts)."""
    if not n_boot:
        return None
    counts = np.stack([v, c], axis=1)
    rates = []
    for w in bootstrap.weight_blocks(len(v), n_boot, seed, where="Relation.check"):
        in_w = weighted_sums(w, counts).astype(float)  # exact integer sums, then one division
        with np.errstate(invalid="ignore", divide="ignore"):
            rates.append(in_w[:, 0] / np.where(in_w[:, 1] > 0, in_w[:, 1], np.nan))
    return np.concatenate(rates)


def single_result(
    name: str,
    violated: np.ndarray,
    per_item: Any,
    src: np.ndarray | None,
    flw: np.ndarray | None,
    margin: np.ndarray | None,
    groups: Sequence[Any] | None,
) -> RelationResult:
    """A result over independent cases (one per item): Wilson interval, per-item flags."""
    n, v = len(violated), int(violated.sum())
    low, high = bootstrap.wilson_interval(v, n)
    frame = per_item_frame(violated.astype(int), np.ones(n, dtype=int), per_item, n)
    group_frame = None
    if groups is not None:
        g = pd.DataFrame({"group": list(groups), "violations": violated.astype(int), "cases": 1})
        group_frame = bootstrap.with_wilson_rates(g.groupby("group")[["violations", "cases"]].sum())
    res = RelationResult(
        relation=name,
        cases=n,
        violations=v,
        ci_low=low,
        ci_high=high,
        ci_method="Wilson (independent cases)",
        per_item=frame,
        groups=group_frame,
    )
    res.details.update(
        case_type="single",
        segments=[{"group": None, "idx": np.arange(n), "src": src, "flw": flw, "violated": violated, "margin": margin}],
    )
    return res


def worst_partners(
    src: np.ndarray, flw: np.ndarray, expected: str = "same"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each item, its worst violated pair partner among items with a strictly lower source score.

    Args:
        src, flw: Shape ``(n,)`` source and follow-up scores.
        expected: ``"same"`` or ``"opposite"``.

    Returns:
        ``(i, j, margin)``: item i (higher source score), its partner j and
        the margin (>= 0: the pair is violated), one row per item that has a
        violated partner.
    """
    src, flw = np.asarray(src, float), np.asarray(flw, float)
    g = flw if expected == "same" else -flw  # violated iff g[j] >= g[i] when src[i] > src[j]
    order = np.argsort(src, kind="stable")
    ss, gs = src[order], g[order]
    n = len(ss)
    if n < 2:
        empty = np.zeros(0, np.int64)
        return empty, empty, np.zeros(0)
    run_max = np.maximum.accumulate(gs)
    run_arg = np.maximum.accumulate(np.where(gs == run_max, np.arange(n), 0))
    lower = np.searchsorted(ss, ss, side="left") - 1  # last position with a strictly smaller source score
    valid = lower >= 0
    pos = np.flatnonzero(valid)
    margin = run_max[lower[pos]] - gs[pos]
    keep = margin >= 0
    pos, margin = pos[keep], margin[keep]
    return order[pos], order[run_arg[lower[pos]]], margin


def _text(texts: Any, i: int) -> Any:
    if texts is None:
        return None
    return texts[int(i)]


def examples(result: RelationResult, k: int = 10) -> pd.DataFrame:
    """The k worst violated cases of a result, worst first (see the module docstring)."""
    d = result.details
    case_type = d.get("case_type")
    src_text = d.get("src_text")
    if src_text is None and "labels" not in d and "text" in result.per_item.columns:
        src_text = result.per_item["text"].tolist()  # check(..., per_item=frame with a text column)
    flw_text = d.get("flw_text") or {}
    labels = d.get("labels")
    if labels is None and "item" in result.per_item.columns:
        labels = result.per_item["item"].tolist()
    segments = d.get("segments", [])
    rows: list[dict[str, Any]] = []
    if case_type == "single":
        rows = _single_rows(segments, labels, src_text, flw_text)
    elif case_type == "pairs":
        rows = _pair_rows(segments, labels, src_text, flw_text, k)
    elif case_type == "triples":
        rows = _triple_rows(d["adj"], labels if labels is not None else src_text, k)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame = frame.sort_values("margin", ascending=False, kind="stable").head(k).reset_index(drop=True)
    return frame.dropna(axis=1, how="all")


def _single_rows(segments: list[dict[str, Any]], labels: Any, src_text: Any, flw_text: Any) -> list[dict[str, Any]]:
    """One row per violated input, with its margin."""
    rows = []
    for s in segments:
        if s.get("violated") is None:
            continue
        ft = flw_text.get(s["group"]) if isinstance(flw_text, dict) else None
        margin = s.get("margin")
        for c in np.flatnonzero(s["violated"]):
            i = int(s["idx"][c])
            src_v = None if s.get("src") is None else s["src"][c]
            flw_v = None if s.get("flw") is None else s["flw"][c]
            rows.append(
                {
                    "group": s["group"],
                    "item": labels[i] if labels is not None else i,
                    "src_text": _text(src_text, i),
                    "flw_text": _text(ft, i),
                    "src": _fmt(src_v),
                    "flw": _fmt(flw_v),
                    "margin": float(margin[c]) if margin is not None else np.nan,
                }
            )
    return rows


def _pair_rows(
    segments: list[dict[str, Any]], labels: Any, src_text: Any, flw_text: Any, k: int
) -> list[dict[str, Any]]:
    """The k worst (item, worst partner) pairs of every segment."""
    rows = []
    for s in segments:
        if len(s["idx"]) < 2:
            continue
        i, j, margin = worst_partners(s["src"], s["flw"], s["expected"])
        top = np.argsort(-margin, kind="stable")[:k]
        ft = flw_text.get(s["group"]) if isinstance(flw_text, dict) else None
        for t in top:
            a, b = int(s["idx"][i[t]]), int(s["idx"][j[t]])
            rows.append(
                {
                    "group": s["group"],
                    "expected": s["expected"],
                    "item_1": labels[a] if labels is not None else a,
                    "item_2": labels[b] if labels is not None else b,
                    "src_text_1": _text(src_text, a),
                    "src_text_2": _text(src_text, b),
                    "flw_text_1": _text(ft, a),
                    "flw_text_2": _text(ft, b),
                    "src_1": s["src"][i[t]],
                    "src_2": s["src"][j[t]],
                    "flw_1": s["flw"][i[t]],
                    "flw_2": s["flw"][j[t]],
                    "margin": float(margin[t]),
                }
            )
    return rows


def _triple_rows(adj: np.ndarray, names: Any, k: int) -> list[dict[str, Any]]:
    """The k violated triples whose missing v(x_i, x_k) has the most paths i -> j -> k."""
    adj = adj.copy()
    np.fill_diagonal(adj, False)
    a = adj.astype(np.float32)
    paths = a @ a
    bad = (paths > 0) & ~adj
    np.fill_diagonal(bad, False)
    ii, kk = np.nonzero(bad)
    support = paths[ii, kk]
    top = np.argsort(-support, kind="stable")[:k]
    rows = []
    for t in top:
        i, kx = int(ii[t]), int(kk[t])
        j = int(np.flatnonzero(adj[i] & adj[:, kx])[0])
        rows.append(
            {
                "x1": _text(names, i) if names is not None else i,
                "x2": _text(names, j) if names is not None else j,
                "x3": _text(names, kx) if names is not None else kx,
                "v12": True,
                "v23": True,
                "v13": False,
                "paths": int(support[t]),
                "margin": float(support[t]),
            }
        )
    return rows


def _fmt(v: Any) -> Any:
    if v is None:
        return None
    arr = np.asarray(v)
    if arr.ndim == 0:
        return float(arr)
    return np.array2string(arr, precision=3, separator=", ", max_line_width=200)


_STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}th{background:#eee;position:sticky;top:0}
td{overflow-wrap:anywhere;max-width:32em}input{font-size:14px;padding:4px;width:30em;margin:.5em 0}.meta{color:#444}"""

#: The notebook view's cell style: long texts wrap instead of making one very wide row.
_CELL_STYLE = "overflow-wrap:anywhere;max-width:32em;vertical-align:top;text-align:left"

_SCRIPT = """function mtFilter(q){q=q.toLowerCase();var rows=document.querySelectorAll('#cases tbody tr');var n=0;
for(var i=0;i<rows.length;i++){var hit=rows[i].textContent.toLowerCase().indexOf(q)>=0;
rows[i].style.display=hit?'':'none';n+=hit;}document.getElementById('shown').textContent=n;}"""

#: Columns of the per-group table, in the order shown.
_GROUP_COLUMNS = ("rate", "ci_low", "ci_high", "cases", "violations")


def _browse_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The worst-case table as shown in HTML: an ``item`` column that only repeats its text column is dropped.

    >>> f = pd.DataFrame({"item_1": ["a b"], "src_text_1": ["a b"], "item_2": [3], "src_text_2": ["c"]})
    >>> list(_browse_frame(f).columns)
    ['src_text_1', 'item_2', 'src_text_2']
    """
    drop = [
        item
        for item, text in (("item", "src_text"), ("item_1", "src_text_1"), ("item_2", "src_text_2"))
        if item in frame.columns
        and text in frame.columns
        and frame[item].astype(str).tolist() == frame[text].astype(str).tolist()
    ]
    return frame.drop(columns=drop)


def _cases_table(frame: pd.DataFrame, table_id: str | None = None) -> str:
    """The worst cases as an HTML table (every value escaped), or a line saying there are none."""
    if not len(frame):
        return "<p>No violated cases.</p>"
    return _browse_frame(frame).to_html(
        index=False, table_id=table_id, border=0, float_format=lambda x: f"{x:.4g}", escape=True
    )


def groups_html(result: RelationResult) -> str:
    """The per-group (per-transformation) table: rate, interval, cases and violations; empty without groups."""
    groups = result.groups
    if groups is None or not len(groups):
        return ""
    table = groups[[c for c in _GROUP_COLUMNS if c in groups.columns]].reset_index()
    if table.columns[0] == "index":
        table = table.rename(columns={"index": "group"})
    return table.to_html(index=False, table_id="groups", border=0, float_format=lambda x: f"{x:.4f}", escape=True)


def _group_name(result: RelationResult) -> str:
    """What the groups are (the groups table's index name, e.g. ``transformation``), else ``group``."""
    name = None if result.groups is None else result.groups.index.name
    return str(name) if name else "group"


def _headline(result: RelationResult) -> str:
    if not result.cases:
        return f"0 cases, rate undefined: {result.no_cases}"
    return (
        f"{result.violations:,} of {result.cases:,} cases violated: rate {result.rate:.4f}, "
        f"95% interval [{result.ci_low:.4f}, {result.ci_high:.4f}] ({result.ci_method})"
    )


def write_html(result: RelationResult, path: str | Path, k: int = 200) -> Path:
    """Write a self-contained HTML page: the per-group table (if any), then the k worst cases with a search box.

    Long texts wrap inside their cells; an ``item`` column that only repeats its text is left out
    (:func:`_browse_frame`); every value is HTML-escaped.

    Returns:
        The path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = examples(result, k)
    skipped = result.extra.get("skipped")
    table = _cases_table(frame, "cases")
    groups = groups_html(result)
    by_group = f"<h2>By {html.escape(_group_name(result))}</h2>\n{groups}\n<h2>Worst cases</h2>\n" if groups else ""
    skipped_text = "" if skipped is None else f"; {html.escape(str(skipped))} inputs skipped"
    title = html.escape(result.relation)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}: failing cases</title>
<style>{_STYLE}</style><script>{_SCRIPT}</script></head>
<body><h1>{title}</h1>
<p class="meta">{html.escape(result.description)}</p>
<p class="meta">{html.escape(_headline(result))}{skipped_text}</p>
{by_group}<p>The {len(frame)} worst violated cases, worst first. Filter:
<input type="search" placeholder="type to filter rows" oninput="mtFilter(this.value)">
(<span id="shown">{len(frame)}</span> shown)</p>
{table}
</body></html>
"""
    path.write_text(page, encoding="utf-8")
    return path


def summary_html(result: RelationResult, k: int = 10) -> str:
    """The notebook view: the headline, the per-group table (if any) and a table of the k worst cases."""
    body = groups_html(result) + _cases_table(examples(result, k))
    body = body.replace("<td>", f'<td style="{_CELL_STYLE}">')
    return (
        f"<div><b>{html.escape(result.relation)}</b>: {html.escape(_headline(result))}"
        f"<br><small>{html.escape(result.description)}</small>{body}</div>"
    )
