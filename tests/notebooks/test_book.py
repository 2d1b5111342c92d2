"""The course book (``make book``), built from the session's smoke runs, read back as a reader's browser would.

The smoke runs are the ones ``tests/smoke_runs.py`` makes once per session for the notebook tests (same
``xdist_group``), so the book adds its build (seconds), not runs. They are copied into one output root,
and hostile data is planted in the copies before the build: a ``<script>``, an ``onerror=`` handler and a
``javascript:`` link in an HTML output, a markdown output, a CSV table, a figure's alt text, a headline metric
and the runner's error message, plus the project's and the virtual environment's absolute paths in outputs,
a traceback and the metadata. The built site must hold no live script from any of them, no build path, every
local link and image must resolve, the chapters must carry their titles, and the tour's answers must stay
folded until clicked.
"""

from __future__ import annotations

import json
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from mtlib.run.layout import RunLayout
from mtrun.profiles import discover

pytest.importorskip("sphinx")
pytest.importorskip("myst_nb")
pytest.importorskip("nh3")

from mtrun import book  # noqa: E402  (after the skips: it needs the book's extra at build time)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = discover(ROOT / "notebooks")
pytestmark = [
    pytest.mark.notebook,
    pytest.mark.xdist_group("smoke"),
    pytest.mark.filterwarnings("ignore::PendingDeprecationWarning"),  # Sphinx 9 on the theme's and MyST's API use
]
#: A marker no page has of its own: wherever it is found live, data ran.
MARK = "mtlibPwned"
PAYLOAD = (
    f'<script>window.{MARK}=1</script><img src=x onerror="window.{MARK}=2">'
    f'<a href="javascript:window.{MARK}=3">{MARK}-link</a><svg onload="window.{MARK}=4"></svg>'
)


def _plant(root: Path) -> None:
    """Hostile data and build paths in the copied runs (never in the session's own smoke runs)."""
    tour = RunLayout(root, "smoke", "00_tour")
    nb = nbformat.read(tour.notebook_path, as_version=4)
    outputs = [
        nbformat.v4.new_output("display_data", {"text/html": PAYLOAD, "text/plain": "x"}),
        nbformat.v4.new_output("display_data", {"text/markdown": f"claim {PAYLOAD} [x](javascript:window.{MARK}=5)"}),
        nbformat.v4.new_output("stream", name="stdout", text=f"cwd {ROOT}/notebooks and {sys.prefix}/lib\n"),
        nbformat.v4.new_output(
            "error", ename="OSError", evalue=f"{ROOT}/data/x", traceback=[f"File {sys.prefix}/lib/site.py:1"]
        ),
        nbformat.v4.new_output("display_data", {"application/javascript": f"window.{MARK}=6"}),
    ]
    nb.cells.append(nbformat.v4.new_code_cell("print('planted')", outputs=outputs))
    nb.metadata["papermill"]["cwd"] = str(ROOT)
    nbformat.write(nb, tour.notebook_path)
    montague = RunLayout(root, "smoke", "04_montague_adjectives")
    (montague.tables_dir / "paper_planted.csv").write_text(f'model,paper,ours\n"{PAYLOAD}",{ROOT},1\n')
    index = json.loads(montague.figures_index.read_text())
    next(iter(index.values()))["alt"] = PAYLOAD
    montague.figures_index.write_text(json.dumps(index))
    metrics = json.loads(montague.metrics_path.read_text())
    metrics[PAYLOAD] = 1.0
    metrics["_headline"] = [PAYLOAD, *metrics.get("_headline", [])]
    montague.metrics_path.write_text(json.dumps(metrics))
    ledger_path = RunLayout(root, "smoke", "").profile_dir / "report.json"
    ledger = json.loads(ledger_path.read_text())
    ledger["01_pairwise_sentiment_systematicity"].update(status="failed", error=f"{PAYLOAD} in {ROOT}/x.py")
    ledger_path.write_text(json.dumps(ledger))


@pytest.fixture(scope="module")
def built(smoke_runs, tmp_path_factory) -> book.BookResult:
    """The book of every notebook's smoke run, copied into one output root with hostile data planted."""
    root = tmp_path_factory.mktemp("book-root")
    ledger: dict = {}
    runs = smoke_runs.get_all([nb.stem[:2] for nb in NOTEBOOKS])  # those the other worker makes, last
    for nb in NOTEBOOKS:
        run = runs[nb.stem[:2]]
        src, dst = RunLayout(run.out_dir, "smoke", nb.stem), RunLayout(root, "smoke", nb.stem)
        if src.run_dir.exists():
            shutil.copytree(src.run_dir, dst.run_dir)
        if src.figures_dir.exists():
            shutil.copytree(src.figures_dir, dst.figures_dir)
        ledger_path = src.profile_dir / "report.json"
        ledger |= json.loads(ledger_path.read_text()) if ledger_path.exists() else {}
    (RunLayout(root, "smoke", "").profile_dir / "report.json").write_text(json.dumps(ledger))
    _plant(root)
    result = book.build_book("smoke", project=ROOT, root=root, build_dir=tmp_path_factory.mktemp("book"))
    assert result.pages >= len(NOTEBOOKS) + 6, result
    return result


@pytest.fixture(scope="module")
def site(built) -> Path:
    """The student edition."""
    return built.html


@pytest.fixture(scope="module")
def teacher_site(built) -> Path:
    """The teacher edition of the same build."""
    return built.teacher


class _Page(HTMLParser):
    """Links, sources, scripts, event handlers and the text inside closed ``<details>`` of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self.loads: list[str] = []  # what the browser fetches by itself: scripts, images, styles, frames
        self.handlers: list[str] = []
        self.scripts: list[tuple[str, str]] = []  # (src, inline text)
        self.folded: list[str] = []  # text inside a <details> without "open"
        self.shown: list[str] = []  # text outside any closed <details>
        self.h1: list[str] = []
        self._details: list[bool] = []  # open flag of each enclosing <details>
        self._script: str | None = None
        self._in_h1 = False
        self._summary = 0  # inside a <summary>: the visible label of a <details>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.handlers += [f"{tag} {k}={v}" for k, v in attrs if k.startswith("on")]
        self.urls += [v for k, v in attrs if k in ("href", "src") and v]
        fetched = "href" if tag == "link" else "src"
        self.loads += [
            v for k, v in attrs if k == fetched and v and tag in ("script", "img", "link", "iframe", "source")
        ]
        if tag == "details":
            self._details.append("open" in found)
        elif tag == "script":
            self._script = found.get("src") or ""
            self.scripts.append((self._script, ""))
        elif tag == "h1":
            self._in_h1 = True
            self.h1.append("")
        elif tag == "summary":
            self._summary += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "summary":
            self._summary = max(0, self._summary - 1)
        elif tag == "details" and self._details:
            self._details.pop()
        elif tag == "script":
            self._script = None
        elif tag == "h1":
            self._in_h1 = False

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            src, text = self.scripts[-1]
            self.scripts[-1] = (src, text + data)
            return
        if self._in_h1:
            self.h1[-1] += data
        hidden = any(not is_open for is_open in self._details[: len(self._details) - bool(self._summary)])
        (self.folded if hidden else self.shown).append(data)


def _pages(site: Path) -> dict[Path, _Page]:
    """Every page of the site (not the theme's template fragments that it copies into ``_static/``)."""
    out = {}
    for path in sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts):
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        out[path] = page
    return out


@pytest.mark.parametrize("edition", ["site", "teacher_site"])
def test_every_local_link_and_image_resolves(edition, request):
    site = request.getfixturevalue(edition)
    broken = []
    for path, page in _pages(site).items():
        for url in page.urls:
            parts = urlsplit(url)
            if parts.scheme or url.startswith(("#", "//")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.exists():
                broken.append(f"{path.relative_to(site)} -> {url}")
    assert not broken, "broken local links:\n" + "\n".join(broken[:20])


def test_nothing_is_loaded_from_a_network(site):
    remote = [
        f"{path.relative_to(site)}: {url}"
        for path, page in _pages(site).items()
        for url in page.loads
        if urlsplit(url).scheme in ("http", "https") or url.startswith("//")
    ]
    assert not remote, "fetched from a network:\n" + "\n".join(remote[:20])


def test_chapters_papers_and_reference_carry_their_titles(site):
    pages = _pages(site)
    titles = {p.relative_to(site).as_posix(): " ".join(page.h1).strip() for p, page in pages.items()}
    index = " ".join(pages[site / "index.html"].shown)
    for nb in NOTEBOOKS:
        heading = next(
            line[2:].strip()
            for cell in nbformat.read(nb, as_version=4).cells
            if cell.cell_type == "markdown"
            for line in cell.source.splitlines()
            if line.startswith("# ")
        )
        folder = "lessons" if nb.stem.startswith("00") else "experiments"
        assert heading in titles[f"{folder}/{nb.stem}.html"], (nb.stem, titles.get(f"{folder}/{nb.stem}.html"))
        assert heading in index, f"{heading} not on the landing page"
    for key, citation in (("manino", "Manino"), ("carvalho", "Carvalho"), ("bhathena", "Bhathena"), ("fu-frank", "Fu")):
        assert citation in titles[f"papers/{key}.html"]
    assert "parameters" in titles["reference/parameters.html"].lower()
    assert "Comparing two models" in titles["reference/comparing-runs.html"]


def test_tour_answers_are_folded_until_clicked(site):
    page = _pages(site)[site / "lessons" / "00_tour.html"]
    folded, shown = "".join(page.folded), "".join(page.shown)
    answers = [c.source for c in nbformat.read(ROOT / "notebooks" / "00_tour.ipynb", as_version=4).cells
               if "answer" in c.metadata.get("tags", [])]  # fmt: skip
    assert len(answers) == 3
    for source in answers:
        answer = next(line for line in source.splitlines() if "your answer" in line).split("#")[0].strip()
        assert answer in folded, answer
        assert answer not in shown, f"{answer} is visible without a click"
    assert "exercise 1:" in folded and "exercise 1:" not in shown  # the checks' verdicts are folded too
    assert shown.count("Show the answer") == 3


def test_no_path_of_the_build_machine_in_any_file(site, tmp_path_factory):
    paths = {str(ROOT), sys.prefix, str(tmp_path_factory.getbasetemp())}
    found = [
        f"{p.relative_to(site.parent)} holds {path}"
        for p in site.parent.rglob("*")  # both editions
        if p.is_file()
        for path in paths
        if path.encode() in p.read_bytes()
    ]
    assert not found, "\n".join(found[:20])


def test_no_script_runs_from_data(site):
    pages = _pages(site)
    for path, page in pages.items():
        where = path.relative_to(site)
        assert not [h for h in page.handlers if MARK in h], f"{where}: a planted event handler is live"
        assert not [u for u in page.urls if u.strip().lower().startswith(("javascript:", "data:text"))], where
        for src, inline in page.scripts:
            assert MARK not in inline, f"{where}: a planted script runs"
            if src:  # the theme's and Sphinx's own scripts: local files, none among the run's images or files
                target = (path.parent / urlsplit(src).path).resolve()
                assert target.is_file() and target.relative_to(site.resolve()).parts[0] in ("_static", "searchindex.js")
    tour = " ".join(pages[site / "lessons" / "00_tour.html"].shown)
    assert f"{MARK}-link" in tour  # the planted HTML output is shown, as inert text and markup
    chapter = (site / "experiments" / "04_montague_adjectives.html").read_text(encoding="utf-8")
    assert f"&lt;script&gt;window.{MARK}=1&lt;/script&gt;" in chapter  # the planted table cell, escaped
    failed = " ".join(pages[site / "experiments" / "01_pairwise_sentiment_systematicity.html"].shown)
    assert f"<script>window.{MARK}=1</script>" in failed  # the runner's error, shown as text


def _prose(page_html: str) -> str:
    """A page's text outside code, maths, scripts and styles (what a reader reads as prose)."""
    import html as html_module
    import re

    body = re.sub(r"(?s)<(pre|code|math|script|style)\b.*?</\1>", "", page_html)
    return html_module.unescape(re.sub(r"(?s)<[^>]+>", " ", body))


def test_maths_renders_and_no_source_is_left(site):
    from mtrun.book_sphinx import UNRENDERED

    left = {str(p.relative_to(site)): UNRENDERED.findall(_prose(p.read_text(encoding="utf-8"))) for p in _pages(site)}
    assert not {k: v for k, v in left.items() if v}, left
    for nb in NOTEBOOKS:  # every displayed formula of a notebook is MathML in its chapter
        source = "".join(c.source for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "markdown")
        folder = "lessons" if nb.stem.startswith("00") else "experiments"
        page = (site / folder / f"{nb.stem}.html").read_text(encoding="utf-8")
        assert page.count('display="block"') >= source.count("$$") // 2, nb.stem


def test_a_page_with_maths_left_unrendered_fails_the_build(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text("# Page\n\nFine: $x$ and $$y$$ inline.\n\nBroken: \\mathbf{x} is left.\n")
    with pytest.raises(book.BookError, match=r"maths left unrendered in index: .*\\mathbf"):
        book._sphinx(src, ROOT / "book", tmp_path / "html", tmp_path / "doctrees", 1)


def test_tables_keep_numbers_whole_cut_long_texts_and_set_the_paper_beside_ours(site):
    import re

    css = (site / "_static" / "book.css").read_text(encoding="utf-8")
    assert re.search(r"td\.num \{[^}]*white-space: nowrap", css) and not re.search(r"td[^{}]*\{[^}]*anywhere", css)
    chapter = (site / "experiments" / "04_montague_adjectives.html").read_text(encoding="utf-8")
    planted = re.search(r'<td class="text" title="([^"]*)">([^<]*)</td>', chapter)
    assert planted and planted.group(2).endswith("\u2026") and MARK in planted.group(1), "the long cell is not cut"
    checked = 0
    for path in (site / "papers").glob("*.html"):
        for head in re.findall(r"<thead><tr>(.*?)</tr></thead>", path.read_text(encoding="utf-8")):
            names = re.findall(r"<th>(.*?)</th>", head)
            for i, name in enumerate(names):
                if name.startswith("paper_") and name[6:] in names:
                    assert names.index(name[6:]) == i - 1, (path.name, names)
                    checked += 1
    assert checked, "no paper_* column beside ours on the paper pages"


def test_no_echoed_paths_metric_dumps_or_raw_headline_keys(site):
    import html as html_module
    import re

    for nb in NOTEBOOKS:
        folder = "lessons" if nb.stem.startswith("00") else "experiments"
        page = (site / folder / f"{nb.stem}.html").read_text(encoding="utf-8")
        assert "PosixPath(" not in page and "run_dir=" not in page, nb.stem
        dumps = [
            p
            for p in re.findall(r"(?s)<pre>(.*?)</pre>", page)
            if html_module.unescape(p).startswith(("{", "[")) and p.count("\n") >= 10
        ]
        assert not dumps, f"{nb.stem}: a dict or list dump is shown: {dumps[0][:200]}"
        assert re.search(r'href="[^"]+/metrics\.json"', page), f"{nb.stem}: no link to its metrics"
    index = _pages(site)[site / "index.html"]
    headlines = [t for t in index.shown if re.search(r"\w+/\w+\S* = ", t)]
    assert not headlines, f"raw metric keys on the landing page: {headlines[:3]}"


def test_each_chapter_offers_its_notebooks_and_its_paper_and_the_book_a_bibliography(site):
    import re

    for nb in NOTEBOOKS:
        folder = "lessons" if nb.stem.startswith("00") else "experiments"
        page = site / folder / f"{nb.stem}.html"
        hrefs = re.findall(r'href="([^"]+\.ipynb)"', page.read_text(encoding="utf-8"))
        names = {h.rsplit("/", 1)[-1]: (page.parent / h).resolve() for h in hrefs}
        assert {f"{nb.stem}.ipynb", f"{nb.stem}.executed.ipynb"} <= set(names), (nb.stem, hrefs)
        clean = nbformat.read(names[f"{nb.stem}.ipynb"], as_version=4)
        executed = nbformat.read(names[f"{nb.stem}.executed.ipynb"], as_version=4)
        assert len(clean.cells) == len(nbformat.read(nb, as_version=4).cells)
        assert any(c.get("outputs") for c in executed.cells if c.cell_type == "code"), f"{nb.stem}: not executed"
        if not nb.stem.startswith("00"):
            assert re.search(r'href="https://(doi\.org|arxiv\.org|aclanthology\.org)/', page.read_text()), nb.stem
    bibliography = " ".join(_pages(site)[site / "bibliography.html"].shown)
    for citation in ("Manino", "Carvalho", "Bhathena", "Fu"):
        assert citation in bibliography
    assert bibliography.count("doi:10.18653") >= 2 and bibliography.count("arXiv:") >= 3


def test_the_student_edition_never_links_to_the_teachers_and_the_teacher_edition_adds_a_page_per_lesson(
    site, teacher_site
):
    assert not (site / "teachers").exists()
    for path, page in _pages(site).items():
        assert not [u for u in page.urls if "teachers" in u], f"{path.relative_to(site)} links to a teacher's page"
        assert "For teachers" not in " ".join(page.shown), path.relative_to(site)
    pages = _pages(teacher_site)
    plan = " ".join(pages[teacher_site / "teachers" / "index.html"].shown)
    assert "Lesson plan" in plan and "words a minute" in plan and "All lessons: about" in plan
    for nb in NOTEBOOKS:
        lesson = " ".join(pages[teacher_site / "teachers" / f"{nb.stem}.html"].shown)
        for heading in ("Objectives", "Prerequisites", "Minutes", "Exercises", "Questions for discussion"):
            assert heading in lesson, (nb.stem, heading)
    tour = " ".join(pages[teacher_site / "teachers" / "00_tour.html"].shown)
    assert "tour.check_invariance" in tour and "tour.check_prediction" in tour and "Common wrong answers" in tour
    assert tour.count("your answer") >= 3  # the answers, unfolded for the teacher
    assert "What installing costs" in plan and "Measured on" in plan and "of 8 lessons have been timed" in plan


def test_code_blocks_get_a_copy_button_served_from_the_site(site):
    for nb in NOTEBOOKS:
        folder = "lessons" if nb.stem.startswith("00") else "experiments"
        page = _pages(site)[site / folder / f"{nb.stem}.html"]
        copy = [urlsplit(s).path for s, _ in page.scripts if urlsplit(s).path.endswith("copybutton.js")]
        assert copy and (site / folder / copy[0]).resolve().exists(), f"{nb.stem}: no copy button script"
    assert "div.highlight pre" in (site / "_static" / "copybutton.js").read_text(encoding="utf-8")


def test_the_printed_book_leaves_answers_out_and_keeps_the_paper_beside_ours(built, tmp_path):
    """The LaTeX sources of the student edition (Sphinx's LaTeX builder needs no TeX, so this runs everywhere);
    the PDF itself where latexmk and XeLaTeX are installed, else the build says why there is none."""
    from mtrun.book_sphinx import PRINT_ANSWER

    build = built.html.parent.parent
    book._sphinx(build / "src" / "student", ROOT / "book", tmp_path / "tex", tmp_path / "doctrees", 1, "latex")
    tex = (tmp_path / "tex" / "mtlib-course-book.tex").read_text(encoding="utf-8")
    answers = sum(
        "answer" in c.metadata.get("tags", []) for nb in NOTEBOOKS for c in nbformat.read(nb, as_version=4).cells
    )
    assert answers >= 2 * 7 and tex.count(PRINT_ANSWER) == answers
    assert "# your answer" not in tex and "\\$\\$" not in tex
    assert tex.count("paper\\_rate") >= 3 and "\\begin{tabulary}" in tex  # the HTML tables, printed as tables
    index = (built.html / "index.html").read_text(encoding="utf-8")
    if built.pdf is None:
        assert "latexmk" in built.no_pdf and "apt-get install" in built.no_pdf
        assert book.PDF_NAME not in index
        return
    assert built.pdf.read_bytes()[:5] == b"%PDF-" and not built.no_pdf
    for edition in (built.html, built.teacher):
        links = [u for u in _pages(edition)[edition / "index.html"].urls if u.endswith(book.PDF_NAME)]
        assert links and (edition / unquote(links[0])).read_bytes() == built.pdf.read_bytes(), edition.name


def test_bookkeeping_cells_tagged_hide_input_fold_their_code_and_keep_their_output(site):
    """A notebook tags the cells that only record metrics and save tables ``hide-input`` (MyST-NB's tag): the
    chapter folds their code behind "Show code cell source"; JupyterLab shows it as any cell."""
    import re

    tagged = 0
    for nb in NOTEBOOKS:
        cells = [c for c in nbformat.read(nb, as_version=4).cells if "hide-input" in c.metadata.get("tags", [])]
        folder = "lessons" if nb.stem.startswith("00") else "experiments"
        page = (site / folder / f"{nb.stem}.html").read_text(encoding="utf-8")
        folded = re.findall(r'<details class="[^"]*hide above-input"[^>]*>(.*?)</details>', page, re.S)
        for cell in cells:
            first = cell.source.splitlines()[0].split("(")[0].split()[-1]  # a name on its first line
            hiding = [f for f in folded if first in re.sub(r"<[^>]+>", "", f)]
            assert hiding, f"{nb.stem}: not folded: {cell.source[:60]}"
            assert "cell_output" not in hiding[0], f"{nb.stem}: its output is folded too"
        tagged += len(cells)
    assert tagged >= 5, "the metrics-and-tables cells of 01, 02, 04, 05 and 06 are tagged hide-input"
