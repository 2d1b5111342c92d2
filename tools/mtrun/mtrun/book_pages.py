"""The course book's own pages, as MyST markdown: every value from a run escaped, every table built here.

Intuition: the pages around the notebooks (the landing page, a page per paper,
the teachers' page, each chapter's preface) are written from a run's files:
``metrics.json``, ``manifest.json``, the ledger ``report.json``, ``tables/*.csv``
and the notebooks' computed claims. Nothing read from a run becomes markup:

- text in MyST goes through :func:`text` (:func:`mtrun.report.md`, plus ``$``
  so no formula starts), so it cannot open a link, an image, a role or HTML;
- tables (:func:`csv_table`, :func:`html_table`) are HTML built here with every
  cell escaped by :func:`html.escape`;
- the claims, which are markdown, are rendered by markdown-it in CommonMark mode
  with raw HTML off (:func:`claims_html`): a claim cannot hold a MyST directive
  (no ``{include}`` of a build machine's file) or a tag.

The build then cleans every raw HTML node once more (:mod:`mtrun.book_sphinx`).
"""

from __future__ import annotations

import csv
import html
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mtrun.report import md

#: How the book's build names maths left unrendered on a page (a warning the build turns into its failure).
MATHS_LEFT = "maths left unrendered"

__all__ = [
    "PAPERS",
    "Chapter",
    "Paper",
    "claims_html",
    "comparison",
    "compares_with_paper",
    "csv_table",
    "download",
    "headline",
    "html_table",
    "link",
    "paper_beside_ours",
    "paper_links",
    "paper_of",
    "parameter_rows",
    "preface",
    "read_csv",
    "table_cell",
    "run_files",
    "text",
    "toctree",
    "value",
    "words",
]


@dataclass(frozen=True)
class Paper:
    """One of the four papers and the notebooks that reproduce it (``book/bibliography.md`` cites them in full).

    Attributes:
        key: The page's file name (``papers/<key>.md``).
        citation: Authors and year, as the README cites them.
        title: The paper's title.
        notebooks: The numbers of its notebooks.
        ids: Its DOI or ACL Anthology identifier, then its arXiv preprint where there is one (``doi:...``).
    """

    key: str
    citation: str
    title: str
    notebooks: tuple[str, ...]
    ids: tuple[str, ...] = ()


#: Where an identifier of :attr:`Paper.ids` resolves, by its prefix.
_RESOLVER = {"doi": "https://doi.org/", "ACL Anthology": "https://aclanthology.org/", "arXiv": "https://arxiv.org/abs/"}
#: The papers, in notebook order (the README's table and ``mtlib/data/papers.py`` name the same four).
PAPERS: tuple[Paper, ...] = (
    Paper(
        "manino",
        "Manino et al. 2022",
        "Systematicity, Compositionality and Transitivity of Deep NLP Models: a Metamorphic Testing Perspective",
        ("01", "02", "03"),
        ("doi:10.18653/v1/2022.findings-acl.185", "arXiv:2204.12316"),
    ),
    Paper(
        "carvalho",
        "Carvalho et al. 2023",
        "Montague semantics and modifier consistency measurement in neural language models",
        ("04",),
        ("ACL Anthology:2025.coling-main.370", "arXiv:2212.04310"),
    ),
    Paper(
        "bhathena",
        "Bhathena, Willis and Dass",
        "Evaluating Compositionality of Sentence Representation Models",
        ("05", "06"),
        ("ACL Anthology:2020.repl4nlp-1.22",),
    ),
    Paper(
        "fu-frank",
        "Fu and Frank 2023",
        "SETI: Systematicity Evaluation of Textual Inference",
        ("07",),
        ("doi:10.18653/v1/2023.findings-acl.252", "arXiv:2305.15045"),
    ),
)


def paper_links(paper: Paper) -> str:
    """The paper's DOI or anthology page and its preprint, as MyST links (the identifiers are the constants above).

    >>> paper_links(Paper("k", "c", "t", (), ("doi:10.1/x", "arXiv:1.2")))
    '[doi:10.1/x](https://doi.org/10.1/x), [arXiv:1.2](https://arxiv.org/abs/1.2)'
    """
    return ", ".join(link(i, _RESOLVER[i.split(":")[0]] + i.split(":", 1)[1]) for i in paper.ids)


def text(val: Any) -> str:
    """A value from a run as inert MyST text on one line (no link, image, role, HTML or formula can start).

    >>> text("<script>x</script> [a](javascript:y) $z$")
    '&lt;script>x&lt;/script> \\\\[a\\\\](javascript:y) \\\\$z\\\\$'
    """
    return md(val).replace("$", "\\$")


def value(val: Any) -> str:
    """A metric or a cell for a reader: floats to 4 significant digits, integers with separators, lists joined.

    >>> value(0.123456), value(1553040), value("minilm"), value(["a", "b"]), value(float("nan")), value(True)
    ('0.1235', '1,553,040', 'minilm', 'a, b', 'nan', 'True')
    """
    if isinstance(val, bool):
        return str(val)
    if isinstance(val, int):
        return f"{val:,}"
    if isinstance(val, float):
        return f"{val:.4g}" if math.isfinite(val) else str(val)
    if isinstance(val, (list, tuple)):
        return ", ".join(value(v) for v in val)
    if isinstance(val, dict):
        return json.dumps(val, sort_keys=True)
    return str(val)


def _cell(raw: str) -> str:
    """A CSV cell for display: a float with more than 6 significant digits shortened (so a value truncated to 4
    decimals, as the papers print, still reads beside it), anything else as written.

    >>> _cell("0.98055555555"), _cell("12"), _cell("S-I"), _cell("3.0300000000e-06")
    ('0.980556', '12', 'S-I', '3.03e-06')
    """
    try:
        number = float(raw)
    except ValueError:
        return raw
    if re.fullmatch(r"-?\d+", raw.strip()):
        return raw
    return f"{number:.6g}" if math.isfinite(number) else raw


def link(label: str, target: str) -> str:
    """A MyST link whose label is escaped; ``target`` must be a path this module built (never data)."""
    return f"[{text(label)}]({target})"


#: Characters of a table cell shown before it is cut (the whole text is its tooltip and in the CSV download).
CELL_CHARS = 80
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:e[-+]?\d+)?%?|nan|inf", re.I)


def table_cell(val: Any) -> str:
    """A table cell, escaped: a number kept on one line, a long text cut with the whole of it on hover."""
    cell = str(val)
    if _NUMBER.fullmatch(cell.strip()):
        return f'<td class="num">{html.escape(cell)}</td>'
    if len(cell) > CELL_CHARS:
        cut = cell[: CELL_CHARS - 1].rsplit(" ", 1)[0] + "\u2026"
        return f'<td class="text" title="{html.escape(cell)}">{html.escape(cut)}</td>'
    return f'<td class="text">{html.escape(cell)}</td>' if len(cell) > 24 else f"<td>{html.escape(cell)}</td>"


def download(target: str) -> str:
    """A MyST download link to a file this module copied into the book (a notebook is a file here, not a page).

    >>> download("../files/00_tour/00_tour.ipynb")
    '{download}`00_tour.ipynb <../files/00_tour/00_tour.ipynb>`'
    """
    return f"{{download}}`{target.rsplit('/', 1)[-1]} <{target}>`"


def html_table(header: Sequence[Any], rows: Iterable[Sequence[Any]], caption: str = "") -> str:
    """An HTML table on one line (a MyST raw block ends at a blank line), every cell escaped (:func:`table_cell`).

    >>> print(html_table(["a", "<b>"], [["1.5", "<img src=x onerror=y()>"]]).replace("><", ">\\n<"))
    <div class="book-table">
    <table class="table">
    <thead>
    <tr>
    <th>a</th>
    <th>&lt;b&gt;</th>
    </tr>
    </thead>
    <tbody>
    <tr>
    <td class="num">1.5</td>
    <td>&lt;img src=x onerror=y()&gt;</td>
    </tr>
    </tbody>
    </table>
    </div>
    >>> html_table(["t"], [["word " * 30]]).count("\u2026"), 'title="word word' in html_table(["t"], [["word " * 30]])
    (1, True)
    """
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(table_cell(c) for c in row) + "</tr>" for row in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (
        f'<div class="book-table"><table class="table">{cap}<thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _base(column: str) -> str:
    return re.sub(r"[\W_]+", " ", re.sub(r"(?i)paper|ours", " ", column)).strip().lower()


def paper_beside_ours(header: Sequence[str]) -> list[int]:
    """The column order that sets each published column beside ours: ``paper_rate`` after ``rate``,
    ``ti_paper`` after ``ti_ours``, ``paper`` after ``ours``, ``paper (all)`` after ``all``.

    >>> h = ["x", "rate", "ci", "paper_rate", "ti_ours", "ti_paper", "ours", "gap", "paper", "paper_other"]
    >>> [h[i] for i in paper_beside_ours(h)]
    ['x', 'rate', 'paper_rate', 'ci', 'ti_ours', 'ti_paper', 'ours', 'paper', 'gap', 'paper_other']
    """
    order = [i for i, h in enumerate(header) if "paper" not in h.lower()]
    for i, h in enumerate(header):
        if "paper" in h.lower():
            mates = [j for j, o in enumerate(header) if "paper" not in o.lower() and _base(o) == _base(h)]
            at = order.index(mates[0]) + 1 if mates else len(order)
            while at < len(order) and "paper" in header[order[at]].lower():
                at += 1
            order.insert(at, i)
    return order


def read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    """A CSV table's header and rows as text (empty when it cannot be read)."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error):
        return [], []
    return (rows[0], rows[1:]) if rows else ([], [])


def compares_with_paper(path: Path, header: Sequence[str], rows: Sequence[Sequence[str]]) -> bool:
    """Whether a run's table sets published values beside its own: ``paper`` in its file name or in a
    column name, or a ``source`` column naming the paper on some row."""
    if "paper" in path.stem.lower() or any("paper" in h.lower() for h in header):
        return True
    if "source" in header:
        i = list(header).index("source")
        return any(len(r) > i and "paper" in r[i].lower() for r in rows)
    return False


def csv_table(path: Path, download: str, limit: int = 20) -> str:
    """A run's CSV table as an escaped HTML table of its first ``limit`` rows (the paper's columns beside ours:
    :func:`paper_beside_ours`), and a link to the whole file.

    Args:
        path: The CSV file.
        download: The link target of its copy in the book (relative to the page).
        limit: Rows shown.
    """
    header, rows = read_csv(path)
    if not header:
        return f"{link(path.name, download)}: no rows."
    order = paper_beside_ours(header)
    cells = ([_cell(row[i]) if i < len(row) else "" for i in order] for row in rows[:limit])
    shown = html_table([header[i] for i in order], cells)
    more = f"the first {limit} of {len(rows):,} rows; " if len(rows) > limit else ""
    return f"**{text(path.stem)}** ({more}the whole table: {link(path.name, download)})\n\n{shown}\n"


def claims_html(claims: Sequence[str]) -> str:
    """The notebook's claims (markdown) as HTML, rendered with raw HTML off and no MyST extension.

    >>> print(claims_html(["**a** <script>x()</script> ```{include} /etc/passwd```"]).replace("> ", ">\\n"))
    <div class="book-claims"><p><strong>a</strong>
    &lt;script&gt;x()&lt;/script&gt; <code>{include} /etc/passwd</code></p></div>
    """
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    parts = [parser.render(c).strip() for c in claims if c.strip()]
    body = "\n".join(parts)
    body = re.sub(r"\n\s*\n", "\n", body)  # one raw HTML block: no blank line inside
    return f'<div class="book-claims">{body}</div>'


def toctree(caption: str, entries: Sequence[str], hidden: bool = True) -> str:
    """A MyST ``toctree`` directive of ``entries`` (document names this module built) under ``caption``."""
    options = [f":caption: {caption}", ":maxdepth: 1"] + ([":hidden:"] if hidden else [])
    return "```{toctree}\n" + "\n".join(options) + "\n\n" + "\n".join(entries) + "\n```\n"


def parameter_rows(run: Mapping[str, Any], paper: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(parameter, this run, the paper profile's value)`` for each parameter the paper profile sets that this run
    set otherwise, in the paper profile's order."""
    rows = []
    for key, wanted in paper.items():
        got = run.get(key, "(not recorded)")
        if got != wanted:
            rows.append((str(key), value(got), value(wanted)))
    return rows


# -- the pages ------------------------------------------------------------------------------------------------------
@dataclass
class Chapter:
    """One notebook of the book, as its run left it.

    Attributes:
        number: ``"00"``, ``"01"``, ...
        stem: The notebook's stem (``01_pairwise_sentiment_systematicity``).
        title: Its first heading.
        docname: Its page in the book (``lessons/00_tour``, ``experiments/<stem>``), without suffix.
        status: The run's status (``ok``, ``failed``, ...), or ``not run``.
        seconds: How long its last run took (None: not recorded).
        date: When (the runner's ledger), or empty.
        error: The last run's error, if it failed.
        metrics: Its ``metrics.json``.
        manifest: Its ``manifest.json``.
        claims: The sentences it computed (:func:`mtrun.book_notebooks.claims`).
        tables: Its CSV tables, with the path of each copy in the book (relative to the book's root).
        figures: ``(name, alt text, path of the PDF copy in the book or "")`` of each figure.
        downloads: ``(what it is, path of the copy in the book)`` of its other files (notebooks, metrics).
        executed: Whether the book shows its executed notebook (else a page saying it was not run).
    """

    number: str
    stem: str
    title: str
    docname: str
    status: str = "not run"
    seconds: float | None = None
    date: str = ""
    error: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    claims: tuple[str, ...] = ()
    tables: tuple[tuple[Path, str], ...] = ()
    figures: tuple[tuple[str, str, str], ...] = ()
    downloads: tuple[tuple[str, str], ...] = ()
    executed: bool = False

    @property
    def source(self) -> str:
        """Its page's file in the book's sources (a link target from the root)."""
        return self.docname + (".ipynb" if self.executed else ".md")

    @property
    def up(self) -> str:
        """From the chapter's page to the book's root."""
        return "../" * self.docname.count("/")

    def run_line(self, profile: str) -> str:
        """One escaped sentence: status, time and date of the run the chapter shows."""
        took = f", {self.seconds:.1f} s" if self.seconds is not None else ""
        when = f", run {text(self.date)}" if self.date else ""
        return f"profile **{text(profile)}**: status **{text(self.status)}**{took}{when}"


def headline(metrics: Mapping[str, Any], limit: int = 4) -> str:
    """The run's headline metrics (``_headline`` in ``metrics.json``), as escaped ``key in words: value`` text."""
    keys = [k for k in metrics.get("_headline") or [] if k in metrics][:limit]
    return "; ".join(f"{text(words(k))}: {text(value(metrics[k]))}" for k in keys)


def words(key: str) -> str:
    """A metric's key as words: its measure, then what it is measured on.

    >>> words("rate/vader/table1_order"), words("pss"), words("violation_rate/english/syn")
    ('rate (vader, table1 order)', 'pss', 'violation rate (english, syn)')
    """
    first, *rest = [part.replace("_", " ").strip() for part in str(key).split("/")]
    return f"{first} ({', '.join(rest)})" if rest else first


def paper_of(number: str) -> Paper | None:
    """The paper a notebook reproduces (None for the tour)."""
    return next((p for p in PAPERS if number in p.notebooks), None)


def preface(ch: Chapter, profile: str, provenance: str) -> str:
    """The note at the top of a chapter: its run, where it ran, its headline, its files and its paper."""
    lines = [
        "```{admonition} This chapter's run",
        ":class: note",
        "",
        f"Notebook notebooks/{text(ch.stem)}.ipynb, executed by the runner in the {ch.run_line(profile)}.",
    ]
    if ch.status not in ("ok", "not run"):
        lines += ["", f"The last run did not finish ({text(ch.error)}); this page shows the last good run."]
    if provenance:
        lines += ["", f"Ran on: {text(provenance)}."]
    shown = headline(ch.metrics)
    if shown:
        lines += ["", f"Headline: {shown}."]
    files = []
    paper = paper_of(ch.number)
    if paper:
        files.append(f"The paper: {link(paper.citation, f'{ch.up}papers/{paper.key}.md')} ({paper_links(paper)}).")
    notebooks = [f"{download(ch.up + copy)} ({what})" for what, copy in ch.downloads if copy.endswith(".ipynb")]
    if notebooks:
        files.append(f"Its notebook: {', '.join(notebooks)}.")
    if ch.tables or ch.downloads or any(pdf for _, _, pdf in ch.figures):
        files.append("Its tables as CSV, figures as PDF and metrics: [files of this run](#files-of-this-run).")
    files.append(f"Run it yourself: make lab NB={text(ch.number)} (a scratch copy in JupyterLab).")
    return "\n".join(lines + ["", " ".join(files), "```"]) + "\n"


def run_files(ch: Chapter) -> str:
    """The chapter's closing section: links to its tables (CSV), figures (PDF) and other files as the run saved
    them."""
    out = ["## Files of this run", ""]
    out += [f"- {link(p.name, ch.up + copy)}" for p, copy in ch.tables]
    out += [f"- {link(f'{name}.pdf', ch.up + pdf)}: {text(alt)}" for name, alt, pdf in ch.figures if pdf]
    out += [f"- {download(ch.up + copy)}: {text(what)}" for what, copy in ch.downloads]
    return "\n".join(out) + "\n"


def comparison(ch: Chapter, heading: str = "##") -> str:
    """The chapter's tables that set the paper's values beside ours, escaped (or a sentence saying there is none)."""
    shown = [csv_table(path, ch.up + copy) for path, copy in ch.tables if compares_with_paper(path, *read_csv(path))]
    head = f"{heading} Ours beside the paper\n\n"
    if not shown:
        return head + "No table of this run sets published values beside its own.\n"
    return (
        head
        + "Every table of this run that sets the paper's values beside its own, as the notebook saved it.\n\n"
        + "\n".join(shown)
    )
