"""The course book's guide pages: the landing page, a page per paper, the teacher edition's pages.

Intuition: these pages say what a run shows without asserting anything in
advance. A paper's page gathers, per notebook, what was reproduced exactly
(tables with a ``match`` column; values pinned with their published source in
``notebooks/profiles/expected.yaml``), the tables that set the paper's values
beside ours, the notebook's own computed claims, and why the numbers can differ:
the parameters of this run that differ from the ``paper`` profile's (the papers'
models and data). The teacher edition's pages read each lesson's exercises
from the notebook itself (cells tagged ``answer``) and the check each one
calls, count its minutes part by part (:func:`minutes`), and add the notes of
``book/teaching.yaml``. Every value from a run is escaped
(:mod:`mtrun.book_pages`).
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mtrun import expected
from mtrun.book_notebooks import source_text
from mtrun.book_pages import (
    PAPERS,
    Chapter,
    Paper,
    claims_html,
    comparison,
    headline,
    html_table,
    link,
    paper_links,
    parameter_rows,
    read_csv,
    text,
    toctree,
)

__all__ = [
    "PACE",
    "Exercise",
    "exact_lines",
    "exercises",
    "index_page",
    "lesson_page",
    "minutes",
    "paper_page",
    "teachers_page",
]

#: The time model of a lesson (:func:`minutes`): prose words a minute (technical prose studied, about half the
#: 238 a minute of silent non-fiction reading in Brysbaert's 2019 meta-analysis), and minutes per displayed
#: formula, code cell (read it, run it), figure and table
#: shown, and exercise (write an answer, run the check, read the hint).
PACE = {
    "prose words": 130,
    "displayed formulas": 1.0,
    "code cells": 0.5,
    "figures": 1.0,
    "tables": 0.5,
    "exercises": 5.0,
}


def exact_lines(ch: Chapter, profile: str) -> list[str]:
    """What the run reproduces exactly, one escaped sentence each: tables with a ``match`` column, and the
    values ``expected.yaml`` pins with a published source for ``profile``."""
    lines = []
    for path, _ in ch.tables:
        header, rows = read_csv(path)
        if "match" in header:
            i = header.index("match")
            hits = sum(1 for r in rows if len(r) > i and r[i].strip().lower() in ("true", "1"))
            lines.append(f"{text(path.stem)}: {hits} of {len(rows)} cells equal the published value as printed.")
    try:
        pins = {k: e for k, e in expected.expectations(ch.number, profile).items() if e.source}
    except (OSError, ValueError):
        pins = {}
    if pins:
        missed = [k for k, e in pins.items() if not e.matches(ch.metrics.get(k), ch.metrics)]
        sources = sorted({str(e.source) for e in pins.values()})
        lines.append(
            f"notebooks/profiles/expected.yaml pins {len(pins)} published values for the {text(profile)} profile "
            f"({text('; '.join(sources))}): this run reproduces {len(pins) - len(missed)} of them"
            + (f"; not: {text(', '.join(missed[:10]))}." if missed else ".")
        )
    return lines


def _why(ch: Chapter, paper_profile: Mapping[str, Any]) -> str:
    """Why the numbers can differ: this run's parameters beside the paper profile's, and the data it read."""
    manifest = ch.manifest
    params = manifest.get("parameters") or {}
    rows = parameter_rows(params, paper_profile)
    out = []
    if rows:
        out += [
            "Where this run's parameters differ from the paper profile's (the papers' models and data; "
            "python -m mtrun --profile paper runs them, with a GPU and downloads):",
            "",
            html_table(["parameter", "this run", "paper profile"], rows),
            "",
        ]
    elif paper_profile:
        out += ["This run's parameters equal the paper profile's.", ""]
    inputs = [str(i.get("name", "")) for i in manifest.get("inputs") or [] if isinstance(i, dict)]
    if inputs:
        out.append(f"- Data files this run read: {text(', '.join(inputs))}.")
    models = [str(m.get("name", "")) for m in manifest.get("models") or [] if isinstance(m, dict)]
    if models:
        out.append(f"- Models it used: {text(', '.join(dict.fromkeys(models)))}.")
    return "\n".join(out) + "\n"


def paper_page(paper: Paper, chapters: Mapping[str, Chapter], profile: str, paper_profile: Mapping[str, Any]) -> str:
    """The page of one paper: per notebook, what is reproduced exactly, what differs, and why.

    Args:
        paper: The paper.
        chapters: Every chapter by number.
        profile: The profile the book shows.
        paper_profile: The ``paper`` profile's block per notebook number (the papers' parameters).
    """
    out = [f"# {text(paper.citation)}", "", f"*{text(paper.title)}*. {paper_links(paper)}.", ""]
    mine = [chapters[n] for n in paper.notebooks if n in chapters]
    out += [
        "Reproduced by "
        + ", ".join(link(ch.title, f"../{ch.source}") for ch in mine)
        + f". Everything below is read from the {text(profile)} run this book was built from: the notebooks' "
        "tables and the sentences they computed from their results, not text written in advance.",
        "",
    ]
    for ch in mine:
        out += [f"## {text(ch.title)}", "", f"{link('The chapter', f'../{ch.source}')}: {ch.run_line(profile)}.", ""]
        if not ch.executed:
            out += ["Not in this run, so there is nothing to compare yet.", ""]
            continue
        paper_params = paper_profile.get(ch.number) or {}
        differs = bool(parameter_rows(ch.manifest.get("parameters") or {}, paper_params))
        out += ["### Compared cell by cell with the published values", ""]
        out += [f"- {line}" for line in exact_lines(ch, profile)] or [
            "No value of this run is compared with a published one cell by cell"
            + (
                ": its models or data differ from the paper's (below), so it reproduces the method and the "
                "tables, not the numbers."
                if differs
                else "; the tables below set them side by side."
            )
        ]
        out += ["", comparison(ch, heading="###"), "### What the notebook concludes from this run", ""]
        out += [claims_html(ch.claims) if ch.claims else "The notebook states no computed conclusion.", ""]
        out += ["### Why the numbers can differ", "", _why(ch, paper_params)]
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Exercise:
    """One exercise of the tour: its question, the answer shipped in the notebook, what its check does.

    Attributes:
        question: The markdown cell before the answer cell (the notebook's own text).
        answer: The line of the answer cell marked ``# your answer``.
        check: The name of the check function the cell calls (``tour.check_invariance``), or empty.
        checks: That function's one-line summary (its docstring), or empty.
        verdict: What the check printed in this run (escaped when shown), or empty.
    """

    question: str
    answer: str
    check: str
    checks: str
    verdict: str


def exercises(tour: Mapping[str, Any], executed: Mapping[str, Any] | None, answer_tag: str) -> list[Exercise]:
    """A lesson's exercises, read from the committed notebook's cells tagged ``answer_tag`` (the check a cell
    calls, ``<module>.check_<name>``, is looked up in ``mtlib.experiments``).

    Args:
        tour: The committed notebook (no outputs).
        executed: The executed notebook (its answer cells' printed verdicts), or None.
        answer_tag: The tag of an answer cell.
    """

    def src(cell: Mapping[str, Any]) -> str:
        return source_text(cell.get("source", ""))

    ran = {src(c): c for c in (executed or {}).get("cells", [])}
    out, question = [], ""
    for cell in tour.get("cells", []):
        if cell.get("cell_type") == "markdown":
            question = src(cell)
            continue
        if answer_tag not in (cell.get("metadata") or {}).get("tags", []):
            continue
        code = src(cell)
        answer = next((ln for ln in code.splitlines() if "your answer" in ln), code.splitlines()[0] if code else "")
        # a check of mtlib.experiments (tour.check_invariance), not any method named check_* (relation.check_many)
        found = next((m for m in re.finditer(r"\b(\w+)\.(check_\w+)", code) if _summary(*m.groups())), None)
        printed = [
            "".join(o.get("text", "")) for o in ran.get(code, {}).get("outputs", []) if o.get("name") == "stdout"
        ]
        name = ".".join(found.groups()) if found else ""
        out.append(
            Exercise(question, answer, name, _summary(*found.groups()) if found else "", "".join(printed).strip())
        )
    return out


def _summary(module: str, function: str) -> str:
    """The summary (first paragraph, on one line) of the docstring of ``mtlib.experiments.<module>.<function>``
    (empty when not found)."""
    try:
        doc = inspect.getdoc(getattr(importlib.import_module(f"mtlib.experiments.{module}"), function)) or ""
        return " ".join(doc.split("\n\n")[0].split())
    except (ImportError, AttributeError):
        return ""


def minutes(nb: Mapping[str, Any], answer_tag: str) -> list[tuple[str, int, float]]:
    """A lesson's time by part, ``(part, count, minutes)``, at :data:`PACE`: prose words (formulas left out), the
    displayed formulas, the code cells, the figures and tables it shows (outputs of the executed notebook), and
    its exercises (cells tagged ``answer_tag``).

    >>> nb = {"cells": [{"cell_type": "markdown", "source": "Read " * 260 + "$$a$$"},
    ...                 {"cell_type": "code", "source": "", "outputs": [{"data": {"image/png": ""}}]}]}
    >>> [(part, n, round(m, 1)) for part, n, m in minutes(nb, "answer") if n]
    [('prose words', 260, 2.0), ('displayed formulas', 1, 1.0), ('code cells', 1, 0.5), ('figures', 1, 1.0)]
    """
    cells = nb.get("cells", [])
    prose = "\n".join(source_text(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown")
    code = [c for c in cells if c.get("cell_type") == "code"]
    shown = [o.get("data") or {} for c in code for o in c.get("outputs") or []]
    counts = {
        "prose words": len(re.sub(r"(?s)\$\$.*?\$\$", " ", prose).split()),
        "displayed formulas": prose.count("$$") // 2,
        "code cells": len(code),
        "figures": sum("image/png" in d for d in shown),
        "tables": sum("<table" in source_text(d.get("text/html", "")) for d in shown),
        "exercises": sum(answer_tag in (c.get("metadata") or {}).get("tags", []) for c in code),
    }
    return [(part, n, n / PACE[part] if part == "prose words" else n * PACE[part]) for part, n in counts.items()]


def _total(parts: Sequence[tuple[str, int, float]]) -> int:
    return max(1, math.ceil(sum(m for _, _, m in parts)))


_BOLD_LEAD = re.compile(r"^\*\*(Exercise[^*]*?)\.?\*\*\s*")


def _question(markdown: str, default: str) -> tuple[str, str]:
    r"""An exercise's heading and question from the markdown cell before its answer: the paragraphs from the one
    that starts with a bold "Exercise ..." (or every paragraph that is no heading), that bold lead as heading.

    >>> _question("## 5 · Exercises\n\nIntro.\n\n**Exercise 1 (invariance).** Write one.", "Exercise 1")
    ('Exercise 1 (invariance)', 'Write one.')
    """
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", markdown) if p.strip() and not p.lstrip().startswith("#")]
    starts = [i for i, p in enumerate(paragraphs) if _BOLD_LEAD.match(p)]
    kept = paragraphs[starts[-1] :] if starts else paragraphs
    lead = _BOLD_LEAD.match(kept[0]) if kept else None
    if lead:
        kept[0] = kept[0][lead.end() :]
    return (lead.group(1) if lead else default), "\n\n".join(kept)


def _timed(notes: Mapping[str, Any]) -> int | None:
    """A lesson's minutes as a reader timed them (``timed: {minutes, by}`` in its notes), or None."""
    minutes = (notes.get("timed") or {}).get("minutes")
    return int(minutes) if isinstance(minutes, (int, float)) and minutes > 0 else None


def _plan_minutes(notes: Mapping[str, Any], parts: Sequence[tuple[str, int, float]]) -> int:
    timed = _timed(notes)
    return timed if timed is not None else _total(parts)


def teachers_page(
    chapters: Sequence[Chapter],
    times: Mapping[str, Sequence[tuple[str, int, float]]],
    profile: str,
    notes: Mapping[str, Any] | None = None,
) -> str:
    """The teacher edition's first page: how to run the class, what installing costs, and the lesson plan
    (``times``: each chapter's :func:`minutes` by number; ``notes``: ``book/teaching.yaml``, whose ``install``
    text is measured, and whose lessons' ``timed`` minutes replace the estimate)."""
    notes = notes or {}
    tour = next((ch for ch in chapters if ch.number == "00"), None)
    first = link(tour.title, f"../{tour.source}") if tour else "the tour"
    pace = ", ".join(f"{v:g} min per {k[:-1]}" for k, v in PACE.items() if k != "prose words")
    out = [
        "# For teachers",
        "",
        f"Lesson 1 is {first}: metamorphic relations on one sentence, a suite of tests, a failing case read "
        "closely, two real sentiment tools compared, and its exercises. Each later chapter is one paper's "
        "experiment, for a class that goes further. Everything runs offline on a laptop's CPU. This is the "
        "teacher edition: the student edition (book/_build/html/student) is the same book without these pages.",
        "",
        "## Running the class",
        "",
        "**In JupyterLab**, each student runs the notebook:",
        "",
        "```bash",
        "make install     # once: .venv with the notebooks' packages and the mtlib kernel (PyPI only, offline after)",
        "make lab NB=00   # JupyterLab on a scratch copy of the tour (scratch/, git-ignored)",
        "```",
        "",
        "A student replaces the line marked `# your answer` in an exercise's cell and reruns it: the check prints "
        '"Correct" or a hint, computed from the student\'s own run.',
        "",
        "**From the student edition**, nobody installs anything: `make book` builds it into "
        "`book/_build/html/student` (from the quick run; `make book PROFILE=smoke` for a fast one). Hand out that "
        "folder, zipped or on any static web server: its pages open offline from `index.html`, each exercise's "
        'answer stays folded under "Show the answer", and nothing in it links to these pages.',
        "",
        "## What installing costs",
        "",
        str(notes.get("install") or "Not measured yet.").strip(),
        "",
        "## Lesson plan",
        "",
        f"A lesson's minutes are estimated from its notebook, part by part, not from its length alone: prose at "
        f"{PACE['prose words']} words a minute (formulas left out), plus {pace}. For scale, silent reading of English "
        "non-fiction averages 238 words a minute, most adults 175 to 300, second-language readers slower "
        "([Brysbaert 2019](https://doi.org/10.1016/j.jml.2019.104047), 190 studies); a lesson is studied, not read "
        "through, so the model reads its prose at about half that. This is a model, not a measured "
        f"reading: {sum(_timed(notes.get(ch.number) or {}) is not None for ch in chapters)} of {len(chapters)} lessons "
        "have been timed by a reader so far (a `timed:` entry in book/teaching.yaml replaces the estimate). The "
        f"run time is what the runner measured for the {text(profile)} run (a student who runs the notebook "
        "waits that long on a similar machine).",
        "",
        "| lesson | for the teacher | minutes | its notebook's run time | exercises |",
        "| --- | --- | --- | --- | --- |",
    ]
    for ch in chapters:
        parts = times.get(ch.number, [])
        took = f"{ch.seconds:.0f} s" if ch.seconds is not None else "not recorded"
        n_ex = next((n for part, n, _ in parts if part == "exercises"), 0)
        out.append(
            f"| {link(ch.title, f'../{ch.source}')} | {link('objectives, checks, questions', f'{ch.stem}.md')} | "
            f"{_plan_minutes(notes.get(ch.number) or {}, parts) if parts else '?'} | {took} | {n_ex} |"
        )
    total = sum(_plan_minutes(notes.get(ch.number) or {}, times[ch.number]) for ch in chapters if ch.number in times)
    out += ["", f"All lessons: about {total} minutes of class time, before running any notebook.", ""]
    return "\n".join(out) + "\n"


def lesson_page(
    ch: Chapter,
    tasks: Sequence[Exercise],
    notes: Mapping[str, Any],
    parts: Sequence[tuple[str, int, float]],
    profile: str,
) -> str:
    """The teacher's page of one lesson: objectives, prerequisites, minutes (``parts``: :func:`minutes`), the
    exercises with their checks and common wrong answers, and questions for discussion (``notes``: the lesson's
    entry of ``book/teaching.yaml``)."""

    def bullets(key: str, none: str) -> list[str]:
        items = [f"- {item}" for item in notes.get(key) or []]
        return (items or [none]) + [""]

    out = [f"# {text(ch.title)}: for the teacher", "", f"The lesson: {link(ch.title, f'../{ch.source}')}.", ""]
    out += ["## Objectives", "", "After this lesson a student can:", "", *bullets("objectives", "Not written yet.")]
    out += ["## Prerequisites", "", *bullets("prerequisites", "Lesson 00.")]
    out += ["## Minutes", "", "| part | count | minutes |", "| --- | --- | --- |"]
    out += [f"| {part} | {n:,} | {m:.1f} |" for part, n, m in parts if n]
    out += [f"| **total** | | **{_total(parts)}** |", ""]
    if (timed := _timed(notes)) is not None:
        who = text(str((notes.get("timed") or {}).get("by") or "a reader"))
        out += [f"Timed by reading: {timed} minutes ({who}); the lesson plan uses this, not the estimate.", ""]
    out += ["## Exercises", ""]
    wrong = {str(k): v for k, v in (notes.get("wrong_answers") or {}).items()}
    for i, task in enumerate(tasks, 1):
        heading, question = _question(task.question, f"Exercise {i}")
        out += [f"### {heading}", "", question, "", "The answer shipped in the notebook:", ""]
        out += ["```python", task.answer.strip(), "```", ""]
        if task.check:
            out += [f"Checked by `{task.check}`: {task.checks}", ""]
        if task.verdict:
            out += [f"In the {text(profile)} run: {text(task.verdict)}", ""]
        if wrong.get(str(i)):
            out += ["Common wrong answers:", "", *[f"- {w}" for w in wrong[str(i)]], ""]
    if not tasks:
        out += ["This lesson's notebook has no exercise cell yet (a cell tagged `answer`).", ""]
    out += ["## Questions for discussion", "", *bullets("discussion", "Not written yet.")]
    return "\n".join(out)


_INTRO = (
    "Do NLP models behave systematically, compositionally and transitively? Metamorphic testing asks this "
    "without gold labels: it checks relations between a model's outputs on related inputs. This book is the "
    "mtlib notebooks as one run left them: a lesson (the tour), one chapter per experiment of four papers, a "
    "page per paper on what is reproduced and what differs, and the parameters of every notebook."
)


def index_page(chapters: Sequence[Chapter], profile: str, provenance: str, teacher: bool = False, pdf: str = "") -> str:
    """The landing page: what the book is, which run it shows, every chapter's status, the printed book (``pdf``:
    its link, "" when there is none) and the tables of contents (with the teachers' pages in the teacher
    edition)."""
    ran = [ch for ch in chapters if ch.executed]
    out = [
        "# Metamorphic testing of NLP models",
        "",
        _INTRO,
        "",
        f"Built from the **{text(profile)}** run in papermill_runs/{text(profile)}/: {len(ran)} of "
        f"{len(chapters)} notebooks executed" + (f"; ran on {text(provenance)}." if provenance else "."),
        "",
        "| chapter | status | run time | headline |",
        "| --- | --- | --- | --- |",
    ]
    for ch in chapters:
        took = f"{ch.seconds:.1f} s" if ch.seconds is not None else ""
        out.append(f"| {link(ch.title, ch.source)} | {text(ch.status)} | {took} | {headline(ch.metrics)} |")
    out += [
        "",
        "Each chapter is its notebook as executed, opened by a note on its run (where it ran, its headline, "
        "its tables as CSV and figures as PDF) and closed by the tables that set the paper's values beside "
        "ours. Exercise answers are folded until clicked.",
        "",
        *(
            [f"The whole book for print: {link('one PDF', pdf)} (the student edition; answers left out).", ""]
            if pdf
            else []
        ),
        toctree("Lesson", [c.docname for c in chapters if c.number == "00"]),
        *([toctree("For teachers", ["teachers/index"] + [f"teachers/{c.stem}" for c in chapters])] if teacher else []),
        toctree("Experiments", [c.docname for c in chapters if c.number != "00"]),
        toctree("Papers", [f"papers/{p.key}" for p in PAPERS]),
        toctree("Reference", ["reference/parameters", "reference/comparing-runs", "bibliography"]),
    ]
    return "\n".join(out) + "\n"
