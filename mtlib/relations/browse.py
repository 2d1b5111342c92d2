"""Failing cases of a relation, browsable: the k worst examples, a searchable HTML page, a notebook view.

:func:`examples` finds the worst violated cases of a
:class:`~mtlib.relations.RelationResult` without enumerating pairs or
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
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from mtlib.relations import RelationResult

__all__ = ["examples", "write_html", "summary_html", "worst_partners"]


def worst_partners(src: np.ndarray, flw: np.ndarray, expected: str = "same") -> tuple[np.ndarray, np.ndarray,
                                                                                        np.ndarray]:
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
    kind = d.get("kind")
    src_text = d.get("src_text")
    if src_text is None and "labels" not in d and "text" in result.per_item.columns:
        src_text = result.per_item["text"].tolist()  # check(..., per_item=frame with a text column)
    flw_text = d.get("flw_text") or {}
    labels = d.get("labels")
    if labels is None and "item" in result.per_item.columns:
        labels = result.per_item["item"].tolist()
    segments = d.get("segments", [])
    rows: list[dict[str, Any]] = []
    if kind == "single":
        for s in segments:
            if s.get("violated") is None:
                continue
            ft = flw_text.get(s["group"]) if isinstance(flw_text, dict) else None
            margin = s.get("margin")
            for c in np.flatnonzero(s["violated"]):
                i = int(s["idx"][c])
                src_v = None if s.get("src") is None else s["src"][c]
                flw_v = None if s.get("flw") is None else s["flw"][c]
                rows.append({"group": s["group"], "item": labels[i] if labels is not None else i,
                             "src_text": _text(src_text, i),
                             "flw_text": _text(ft, i), "src": _fmt(src_v), "flw": _fmt(flw_v),
                             "margin": float(margin[c]) if margin is not None else np.nan})
    elif kind == "pairs":
        for s in segments:
            if len(s["idx"]) < 2:
                continue
            i, j, margin = worst_partners(s["src"], s["flw"], s["expected"])
            top = np.argsort(-margin, kind="stable")[:k]
            ft = flw_text.get(s["group"]) if isinstance(flw_text, dict) else None
            for t in top:
                a, b = int(s["idx"][i[t]]), int(s["idx"][j[t]])
                rows.append({"group": s["group"], "expected": s["expected"],
                             "item_1": labels[a] if labels is not None else a,
                             "item_2": labels[b] if labels is not None else b,
                             "src_text_1": _text(src_text, a), "src_text_2": _text(src_text, b),
                             "flw_text_1": _text(ft, a), "flw_text_2": _text(ft, b),
                             "src_1": s["src"][i[t]], "src_2": s["src"][j[t]],
                             "flw_1": s["flw"][i[t]], "flw_2": s["flw"][j[t]], "margin": float(margin[t])})
    elif kind == "triples":
        adj = d["adj"].copy()
        np.fill_diagonal(adj, False)
        a = adj.astype(np.float32)
        paths = a @ a
        bad = (paths > 0) & ~adj
        np.fill_diagonal(bad, False)
        ii, kk = np.nonzero(bad)
        support = paths[ii, kk]
        top = np.argsort(-support, kind="stable")[:k]
        names = labels if labels is not None else src_text
        for t in top:
            i, kx = int(ii[t]), int(kk[t])
            j = int(np.flatnonzero(adj[i] & adj[:, kx])[0])
            rows.append({"x1": _text(names, i) if names is not None else i,
                         "x2": _text(names, j) if names is not None else j,
                         "x3": _text(names, kx) if names is not None else kx,
                         "v12": True, "v23": True, "v13": False, "paths": int(support[t]), "margin": float(support[t])})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame = frame.sort_values("margin", ascending=False, kind="stable").head(k).reset_index(drop=True)
    return frame.dropna(axis=1, how="all")


def _fmt(v: Any) -> Any:
    if v is None:
        return None
    arr = np.asarray(v)
    if arr.ndim == 0:
        return float(arr)
    return np.array2string(arr, precision=3, separator=", ", max_line_width=200)


_STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}th{background:#eee;position:sticky;top:0}
input{font-size:14px;padding:4px;width:30em;margin:.5em 0}.meta{color:#444}"""

_SCRIPT = """function mtFilter(q){q=q.toLowerCase();var rows=document.querySelectorAll('#cases tbody tr');var n=0;
for(var i=0;i<rows.length;i++){var hit=rows[i].textContent.toLowerCase().indexOf(q)>=0;
rows[i].style.display=hit?'':'none';n+=hit;}document.getElementById('shown').textContent=n;}"""


def _headline(result: RelationResult) -> str:
    return (f"{result.violations:,} of {result.cases:,} cases violated: rate {result.rate:.4f}, "
            f"95% interval [{result.ci_low:.4f}, {result.ci_high:.4f}] ({result.ci_method})")


def write_html(result: RelationResult, path: str | Path, k: int = 200) -> Path:
    """Write the k worst cases as a self-contained HTML page with a search box.

    Returns:
        The path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = examples(result, k)
    table = frame.to_html(index=False, table_id="cases", border=0, float_format=lambda x: f"{x:.4g}") \
        if len(frame) else "<p>No violated cases.</p>"
    title = html.escape(result.relation)
    skipped = result.extra.get("skipped")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}: failing cases</title>
<style>{_STYLE}</style><script>{_SCRIPT}</script></head>
<body><h1>{title}</h1>
<p class="meta">{html.escape(result.description)}</p>
<p class="meta">{html.escape(_headline(result))}{'' if skipped is None else f'; {skipped} inputs skipped'}</p>
<p>The {len(frame)} worst violated cases, worst first. Filter:
<input type="search" placeholder="type to filter rows" oninput="mtFilter(this.value)">
(<span id="shown">{len(frame)}</span> shown)</p>
{table}
</body></html>
"""
    path.write_text(page, encoding="utf-8")
    return path


def summary_html(result: RelationResult, k: int = 10) -> str:
    """The notebook view: the headline and a table of the k worst cases."""
    frame = examples(result, k)
    body = frame.to_html(index=False, border=0, float_format=lambda x: f"{x:.4g}") if len(frame) else \
        "<p>No violated cases.</p>"
    return (f"<div><b>{html.escape(result.relation)}</b>: {html.escape(_headline(result))}"
            f"<br><small>{html.escape(result.description)}</small>{body}</div>")
