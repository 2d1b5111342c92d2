"""The run's report: a plain-text summary table, ``papermill_runs/<profile>/REPORT.md`` and ``REPORT.html``.

Intuition: the runner ends with one :class:`~mtrun.jobs.JobResult` per
notebook; :func:`summary_table` prints them (status, seconds, headline
metrics or the error) and :func:`write_report` writes a markdown page that
links, for each notebook, what exists of its outputs (executed notebook, HTML,
metrics, parameters, manifest, figures with their descriptions, tables) as
:class:`~mtlib.run.layout.RunLayout` places them, and says what each run ran
on: its commit, machine, device and precision, read from its ``manifest.json``
(:func:`provenance_line`). It also writes the invocation's own manifest
beside the report (:func:`mtrun.manifests.write_invocation_manifest`). ``REPORT.html`` beside it is
the same run as one browsable, self-contained page (inline CSS, no script, no
network): a table per notebook, figure thumbnails, relative links to every
output; every value from data or the command line goes through
:func:`html.escape`.
"""

from __future__ import annotations

import html
import json
import os
import re
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtlib.run.layout import RunLayout, read_figures, read_json_object
from mtlib.run.manifest import MANIFEST, read_manifest
from mtlib.utils.cache import atomic_write_bytes
from mtrun.jobs import JobResult, read_metrics_noting
from mtrun.manifests import write_invocation_manifest

__all__ = [
    "LEDGER",
    "REPORT_HTML",
    "figures",
    "md",
    "provenance_line",
    "summary_table",
    "write_html_report",
    "write_report",
]


def _headline(metrics: dict[str, Any], limit: int = 4) -> str:
    keys = (
        metrics.get("_headline")
        or [k for k, v in metrics.items() if isinstance(v, (int, float)) and not k.startswith("_")][:limit]
    )
    parts = []
    for k in keys[:limit]:
        v = metrics.get(k)
        parts.append(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}")
    return ", ".join(parts)


def summary_table(results: Sequence[JobResult]) -> str:
    """A plain-text table: notebook, status, seconds, headline metrics."""
    rows = [("notebook", "status", "seconds", "headline metrics / error")]
    for r in results:
        rows.append((r.stem, r.status, f"{r.seconds:.1f}", _headline(r.metrics) if r.status == "ok" else r.error))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(row[j].ljust(widths[j]) for j in range(3)) + "  " + row[3])
        if i == 0:
            lines.append("-" * (sum(widths) + 6 + 30))
    return "\n".join(lines)


def figures(root: Path, profile: str, stem: str) -> list[tuple[str, Path, str]]:
    """(name, png, alt text) of a notebook's figures: the run's figures index in saving order,
    then any other PNG in its figures folder (named after its file)."""
    layout = RunLayout(root, profile, stem)
    fig_dir = layout.figures_dir
    index = read_figures(layout.run_dir)
    found = [
        (name, root / entry["png"], entry.get("alt") or name)
        for name, entry in index.items()
        if isinstance(entry, dict) and "png" in entry and (root / entry["png"]).exists()
    ]
    listed = {png.resolve() for _, png, _ in found}
    found += [(png.stem, png, png.stem) for png in sorted(fig_dir.glob("*.png")) if png.resolve() not in listed]
    return found


#: Characters that mean something in markdown; escaped with a backslash in every value the report shows.
_MD_SPECIAL = re.compile(r"([\\`*\[\]|~])")
#: The report's record of every notebook's last outcome, so a run of some notebooks keeps the others' rows.
LEDGER = "report.json"
#: The browsable report, beside ``REPORT.md``.
REPORT_HTML = "REPORT.html"


def md(text: Any) -> str:
    """A value from a data file or the command line as inert markdown text, on one line.

    ``&`` and ``<`` become entities (no HTML tag, comment or autolink can start: ``<img ...>`` shows
    as text); the characters of markdown syntax that could start a link, an image, code, emphasis or a
    table cell (backslash, backtick, ``*``, ``[``, ``]``, ``|``, ``~``) are backslash-escaped.

    >>> md("<img src=x onerror=alert(1)> [a](http://x) `b` c|d")
    '&lt;img src=x onerror=alert(1)> \\\\[a\\\\](http://x) \\\\`b\\\\` c\\\\|d'
    """
    flat = " ".join(str(text).split()).replace("&", "&amp;").replace("<", "&lt;")
    return _MD_SPECIAL.sub(r"\\\1", flat)


def _href(path: str) -> str:
    """A relative link target, percent-encoded (spaces, parentheses and quotes cannot end or break it)."""
    return urllib.parse.quote(path.replace(os.sep, "/"), safe="/.-_~")


def provenance_line(manifest: dict[str, Any]) -> str:
    """What a run ran on, in one line: its commit, machine (CPU and torch's kernel set), device and precision.

    >>> line = provenance_line({"code": {"commit": "783afa866ba4ac69", "dirty": True},
    ...     "machine": {"cpu": "AMD EPYC", "torch_cpu_capability": "AVX512", "kernel_env": {},
    ...     "device": "cpu", "precision": None}})
    >>> print(line.replace(", ", ",\\n"))
    commit 783afa866b (uncommitted changes),
    machine AMD EPYC (torch kernels AVX512),
    device cpu,
    precision not recorded
    >>> provenance_line({})
    ''
    """
    if not manifest:
        return ""
    code, machine = manifest.get("code") or {}, manifest.get("machine") or {}
    commit = str(code.get("commit") or "")[:10] or "none (not a git checkout)"
    if code.get("dirty"):
        commit += " (uncommitted changes)"
    kernels = [f"torch kernels {machine['torch_cpu_capability']}"] if machine.get("torch_cpu_capability") else []
    kernels += [f"{k}={v}" for k, v in sorted((machine.get("kernel_env") or {}).items()) if v]
    cpu = str(machine.get("cpu") or "unknown CPU") + (f" ({', '.join(kernels)})" if kernels else "")
    device = machine.get("device")
    device = "/".join(device) if isinstance(device, list) else str(device or "unknown")
    if machine.get("gpu"):
        device += f" ({machine['gpu']}, CUDA {machine.get('cuda')})"
    precision = machine.get("precision")
    precision = "/".join(precision) if isinstance(precision, list) else (precision or "not recorded")
    return f"commit {commit}, machine {cpu}, device {device}, precision {precision}"


def _merge(results: Sequence[JobResult], run_root: Path, root: Path, profile: str) -> list[tuple[JobResult, str]]:
    """This run's results plus the last recorded outcome of every notebook not run this time.

    Returns:
        ``(result, date)`` per notebook in stem order; ``date`` is empty for this run's results.
    """
    ledger_path = run_root / LEDGER
    ledger = read_json_object(ledger_path)
    now = time.strftime("%Y-%m-%d %H:%M")
    for r in results:
        ledger[r.stem] = {
            "status": r.status,
            "seconds": r.seconds,
            "error": r.error,
            "html_error": r.html_error,
            "date": now,
            "attempt": str(r.attempt) if r.attempt else "",
        }
    atomic_write_bytes(ledger_path, json.dumps(ledger, indent=2, sort_keys=True).encode())
    current = {r.stem: r for r in results}
    merged = []
    for stem in sorted(ledger):
        if stem in current:
            merged.append((current[stem], ""))
            continue
        entry = ledger[stem] if isinstance(ledger[stem], dict) else {}
        try:
            layout = RunLayout(root, profile, stem)
        except ValueError:
            continue  # a stem that is not a safe file name: never written by this runner
        metrics, error = read_metrics_noting(layout.metrics_path, str(entry.get("error", "")))
        old = JobResult(
            stem,
            str(entry.get("status", "")),
            float(entry.get("seconds") or 0.0),
            error,
            metrics,
            layout.html_path if layout.html_path.exists() else None,
            str(entry.get("html_error", "")),
            Path(entry["attempt"]) if entry.get("attempt") else None,
        )
        merged.append((old, str(entry.get("date", ""))))
    return merged


def write_report(results: Sequence[JobResult], profile: str, root: Path) -> Path:
    """Write ``papermill_runs/<profile>/REPORT.md`` linking figures, tables and metrics.

    Notebooks not run this time keep their rows (their last outcome, recorded
    in ``report.json`` beside the report), marked with the date of that run.
    Every value shown is escaped (:func:`md`); every link is percent-encoded.
    The same rows are written as ``REPORT.html`` (:func:`write_html_report`).

    Returns:
        The path of ``REPORT.md``.
    """
    run_root = RunLayout(root, profile, "").profile_dir
    run_root.mkdir(parents=True, exist_ok=True)
    merged = _merge(results, run_root, root, profile)
    write_invocation_manifest(profile, [(r.stem, r.status, r.seconds) for r in results], run_root)
    out = [
        f"# mtlib report: profile {md(profile)}",
        "",
        f"Generated by python -m mtrun --profile {md(profile)} on {time.strftime('%Y-%m-%d %H:%M')}; "
        f"what this invocation ran on: [{MANIFEST}]({_href(MANIFEST)}).",
        "",
        "| notebook | status | seconds | headline |",
        "| --- | --- | --- | --- |",
    ]
    for r, date in merged:
        html_link = f" ([HTML]({_href(f'{r.stem}/{r.html.name}')}))" if r.html else ""
        layout = RunLayout(root, profile, r.stem)
        name = f"[{md(r.stem)}]({_href(f'{r.stem}/{r.stem}.ipynb')})" if layout.notebook_path.exists() else md(r.stem)
        status = md(r.status) + (f" (run {md(date)})" if date else "")
        out.append(
            f"| {name}{html_link} | {status} | {r.seconds:.1f} | "
            f"{md(_headline(r.metrics)) if r.status == 'ok' else md(r.error)} |"
        )
    for r, date in merged:
        out += _section(r, date, root, profile, run_root)
    path = RunLayout(root, profile, "").report_path
    atomic_write_bytes(path, ("\n".join(out) + "\n").encode())
    write_html_report(merged, profile, root)
    return path


def _section(r: JobResult, date: str, root: Path, profile: str, run_root: Path) -> list[str]:
    """One notebook's section of the report: status, links, error, figures, tables, metrics."""
    layout = RunLayout(root, profile, r.stem)
    html_link = (
        f"Report: [{md(r.html.name)}]({_href(f'{r.stem}/{r.html.name}')}) (one self-contained file, opens offline)."
        if r.html
        else ""
    )
    # link only what exists: a notebook stopped early may have no metrics, one refused no executed notebook
    links = [
        f"{what}: [{md(path.name)}]({_href(f'{r.stem}/{path.name}')})."
        for what, path in (
            ("Executed notebook", layout.notebook_path),
            ("Metrics", layout.metrics_path),
            ("Parameters", layout.params_path),
            ("Manifest", layout.manifest_path),
        )
        if path.exists()
    ]
    when = f", run {md(date)}" if date else ""
    out = [
        "",
        f"## {md(r.stem)}",
        "",
        " ".join(
            [f"Status: **{md(r.status)}** ({r.seconds:.1f} s{when}).", *([html_link] if html_link else []), *links]
        ),
    ]
    ran_on = provenance_line(read_manifest(layout.manifest_path))
    if ran_on:
        out += ["", f"Ran on: {md(ran_on)}."]
    if r.attempt is not None:
        attempt_links = [
            f"[{md(path.name)}]({_href(os.path.relpath(path, run_root))})"
            for path in (r.attempt / f"{r.stem}.ipynb", r.attempt / "params.json")
            if path.exists()
        ]
        out += [
            "",
            "The outputs linked here are those of the last good run (kept); this attempt: "
            + (", ".join(attempt_links) or md(os.path.relpath(r.attempt, run_root)))
            + ".",
        ]
    if r.error:
        out += ["", f"Error: {md(r.error)}"]
    if r.html_error:
        out += ["", f"HTML: {md(r.html_error)}"]
    for name, png, alt in figures(root, profile, r.stem):
        pdf = os.path.relpath(png.with_suffix(".pdf"), run_root)
        out += [
            "",
            f"### {md(name)}",
            "",
            f"![{md(alt)}]({_href(os.path.relpath(png, run_root))}) ([PDF]({_href(pdf)}))",
            "",
            f"*{md(alt)}*",
        ]
    tables = sorted((run_root / r.stem / "tables").glob("*.csv"))
    if tables:
        out += ["", "Tables: " + ", ".join(f"[{md(t.stem)}]({_href(f'{r.stem}/tables/{t.name}')})" for t in tables)]
    scalars = {k: v for k, v in r.metrics.items() if isinstance(v, (int, float)) and not k.startswith("_")}
    if scalars:
        out += ["", "| metric | value |", "| --- | --- |"]
        out += [
            f"| {md(k)} | {v:.6g} |" if isinstance(v, float) else f"| {md(k)} | {md(v)} |"
            for k, v in sorted(scalars.items())
        ]
    return out


# -- REPORT.html ----------------------------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;
color:#222;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;
vertical-align:top}
th{background:#f3f3f3}td{overflow-wrap:anywhere;max-width:48em}td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1a7f37;font-weight:bold}.failed,.interrupted{color:#b42318;font-weight:bold}.other{color:#8a6d00}
.meta{color:#555;font-size:.9em}.error{background:#fff4f4;border-left:3px solid #b42318;padding:.4em .8em;
white-space:pre-wrap;overflow-wrap:anywhere}
.figs{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0;max-width:22em}
figure img{max-width:100%;height:auto;border:1px solid #ddd}figcaption{font-size:.85em;color:#444}
"""


def _e(value: Any) -> str:
    """A value from data or the command line as HTML text (attributes included)."""
    return html.escape(str(value), quote=True)


def _a(label: Any, target: str) -> str:
    """A relative link: ``target`` percent-encoded, then escaped; ``label`` escaped."""
    return f'<a href="{_e(_href(target))}">{_e(label)}</a>'


def _status(status: str) -> str:
    css = status if status in ("ok", "failed", "interrupted") else "other"
    return f'<span class="{css}">{_e(status)}</span>'


def _html_row(r: JobResult, date: str, now: str, root: Path, profile: str) -> str:
    """The overview table's row of one notebook."""
    layout = RunLayout(root, profile, r.stem)
    name = f'<a href="#{_e(_href(r.stem))}">{_e(r.stem)}</a>'
    if r.html:
        name += " (" + _a("HTML", f"{r.stem}/{r.html.name}") + ")"
    elif layout.notebook_path.exists():
        name += " (" + _a("ipynb", f"{r.stem}/{layout.notebook_path.name}") + ")"
    what = _headline(r.metrics) if r.status == "ok" else r.error
    return (
        f"<tr><td>{name}</td><td>{_status(r.status)}</td><td class=num>{r.seconds:.1f}</td>"
        f"<td>{_e(date or now)}</td><td>{_e(what)}</td></tr>"
    )


def _html_links(r: JobResult, root: Path, profile: str, run_root: Path) -> list[str]:
    """Links to what exists of a notebook's outputs (and of a failed attempt's)."""
    layout = RunLayout(root, profile, r.stem)
    links = [_a(f"HTML: {r.html.name}", f"{r.stem}/{r.html.name}")] if r.html else []
    links += [
        _a(f"{what}: {path.name}", f"{r.stem}/{path.name}")
        for what, path in (
            ("Executed notebook", layout.notebook_path),
            ("Metrics", layout.metrics_path),
            ("Parameters", layout.params_path),
            ("Manifest", layout.manifest_path),
        )
        if path.exists()
    ]
    links += [
        _a(f"Table: {t.name}", f"{r.stem}/tables/{t.name}")
        for t in sorted((run_root / r.stem / "tables").glob("*.csv"))
    ]
    if r.attempt is not None:
        links += [
            _a(f"This attempt: {path.name}", os.path.relpath(path, run_root))
            for path in (r.attempt / f"{r.stem}.ipynb", r.attempt / "params.json")
            if path.exists()
        ]
    return links


def _html_section(r: JobResult, date: str, now: str, root: Path, profile: str, run_root: Path) -> list[str]:
    """One notebook's section: its table, links, error, figures and metrics."""
    out = [
        f'<section id="{_e(_href(r.stem))}">',
        f"<h2>{_e(r.stem)}</h2>",
        "<table><tr><th>status</th><th>seconds</th><th>run date</th><th>headline metrics</th></tr>",
        f"<tr><td>{_status(r.status)}</td><td class=num>{r.seconds:.1f}</td><td>{_e(date or now)}</td>"
        f"<td>{_e(_headline(r.metrics))}</td></tr></table>",
    ]
    ran_on = provenance_line(read_manifest(RunLayout(root, profile, r.stem).manifest_path))
    if ran_on:
        out.append(f'<p class="meta">Ran on: {_e(ran_on)}.</p>')
    links = _html_links(r, root, profile, run_root)
    if links:
        out.append("<ul>" + "".join(f"<li>{link}</li>" for link in links) + "</ul>")
    if r.attempt is not None:
        out.append('<p class="meta">The outputs linked here are those of the last good run (kept).</p>')
    if r.error:
        out.append(f'<div class="error">Error: {_e(r.error)}</div>')
    if r.html_error:
        out.append(f'<div class="error">HTML: {_e(r.html_error)}</div>')
    figs = figures(root, profile, r.stem)
    if figs:
        out.append('<div class="figs">')
        for name, png, alt in figs:
            src = _e(_href(os.path.relpath(png, run_root)))
            pdf = os.path.relpath(png.with_suffix(".pdf"), run_root)
            out.append(
                f'<figure><a href="{src}"><img src="{src}" alt="{_e(alt)}" loading="lazy"></a>'
                f"<figcaption><b>{_e(name)}</b>: {_e(alt)} ({_a('PDF', pdf)})</figcaption></figure>"
            )
        out.append("</div>")
    scalars = {k: v for k, v in r.metrics.items() if isinstance(v, (int, float)) and not k.startswith("_")}
    if scalars:
        out.append("<details><summary>Metrics</summary><table><tr><th>metric</th><th>value</th></tr>")
        out += [
            f"<tr><td>{_e(k)}</td><td class=num>{_e(f'{v:.6g}' if isinstance(v, float) else v)}</td></tr>"
            for k, v in sorted(scalars.items())
        ]
        out.append("</table></details>")
    out.append("</section>")
    return out


def write_html_report(merged: Sequence[tuple[JobResult, str]], profile: str, root: Path) -> Path:
    """Write ``papermill_runs/<profile>/REPORT.html``: the report as one self-contained, offline page.

    Args:
        merged: ``(result, date)`` per notebook, as :func:`write_report` merges them (``date`` empty: this run).
        profile: The profile name (escaped like every other value).
        root: The project root holding ``papermill_runs/`` and ``figures/``.

    Returns:
        The path written. Links and image sources are relative to it, so the folder can be moved or zipped.
    """
    run_root = RunLayout(root, profile, "").profile_dir
    now = time.strftime("%Y-%m-%d %H:%M")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>mtlib report: profile {_e(profile)}</title><style>{_CSS}</style></head><body>",
        f"<h1>mtlib report: profile {_e(profile)}</h1>",
        f'<p class="meta">Generated by python -m mtrun --profile {_e(profile)} on {_e(now)}. '
        f"{_a('REPORT.md', 'REPORT.md')}; what this invocation ran on: {_a(MANIFEST, MANIFEST)}</p>",
        "<table><tr><th>notebook</th><th>status</th><th>seconds</th><th>run date</th>"
        "<th>headline metrics / error</th></tr>",
        *(_html_row(r, date, now, root, profile) for r, date in merged),
        "</table>",
    ]
    for r, date in merged:
        out += _html_section(r, date, now, root, profile, run_root)
    out.append("</body></html>")
    path = run_root / REPORT_HTML
    atomic_write_bytes(path, ("\n".join(out) + "\n").encode())
    return path
