"""A suite run as one self-contained HTML page: the summary, then each test and each transformation.

Every value on the page goes through :func:`html.escape` (texts under test
are data, never markup), and long texts wrap inside their cells. No server,
no CDN: the page opens from disk.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mtlib.suite.outcome import TestOutcome

__all__ = ["STYLE", "cell", "suite_html", "table_html", "write_html"]

#: The stylesheet of the suite's and the paired comparison's HTML pages.
STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em;max-width:90em}
table{border-collapse:collapse;font-size:13px;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left;
white-space:pre-wrap;overflow-wrap:anywhere;max-width:40em}
th{background:#eee}.pass{color:#060}.fail{color:#a00;font-weight:bold}.meta{color:#444}"""


def cell(value: Any) -> str:
    """One value as escaped text (floats to 4 significant digits, missing as empty)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return html.escape(f"{value:.4g}")
    return html.escape(str(value))


def table_html(frame: pd.DataFrame | None, *, index: bool = True, empty: str = "none") -> str:
    """A DataFrame as an HTML table with every header and value escaped."""
    if frame is None or frame.empty:
        return f'<p class="meta">{html.escape(empty)}</p>'
    head = ([cell(frame.index.name or "")] if index else []) + [cell(c) for c in frame.columns]
    rows = []
    for key, row in frame.iterrows():
        cells = ([cell(key)] if index else []) + [cell(v) for v in row.tolist()]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (
        "<table><thead><tr>"
        + "".join(f"<th>{h}</th>" for h in head)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _verdict(passed: bool) -> str:
    return '<span class="pass">pass</span>' if passed else '<span class="fail">FAIL</span>'


def _test_section(t: TestOutcome) -> str:
    headline = (
        f"rate {t.rate:.4f}, 95% interval [{t.ci_low:.4f}, {t.ci_high:.4f}] ({t.ci_method}); "
        f"gate bound {t.gate_bound:.4f} vs threshold {t.threshold:.4f}; "
        f"{t.violations:,} of {t.cases:,} cases over {t.n_items:,} items; {t.skipped:,} skipped"
    )
    return (
        f"<h2>{cell(t.name)}: {_verdict(t.passed)}</h2>"
        f'<p class="meta">{cell(t.description)}</p><p class="meta">{cell(headline)}</p>'
        f"<h3>Per transformation</h3>{table_html(t.groups, empty='one transformation (or none)')}"
        f"<h3>Worst examples</h3>{table_html(t.examples, index=False, empty='no violated case')}"
    )


def suite_html(title: str, model: str, tests: Sequence[TestOutcome], summary: pd.DataFrame) -> str:
    """The whole page."""
    failing = [t.name for t in tests if not t.passed]
    status = "every test passes" if not failing else f"{len(failing)} of {len(tests)} tests fail"
    body = "".join(_test_section(t) for t in tests)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{cell(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{cell(title)} on {cell(model)}</h1>"
        f"<p>{cell(status)}</p>{table_html(summary)}{body}</body></html>\n"
    )


def write_html(path: str | Path, title: str, model: str, tests: Sequence[TestOutcome], summary: pd.DataFrame) -> Path:
    """Write :func:`suite_html` to ``path`` (folders made); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(suite_html(title, model, tests, summary), encoding="utf-8")
    return path
