"""The course book: a static HTML site built offline from a run's executed notebooks (``make book``).

Intuition: a student without the environment can still read the lesson, and a
teacher gets a folder to hand out. :func:`build_book` assembles the book's
sources from one profile's run (``papermill_runs/<profile>/``: executed
notebooks, ``metrics.json``, ``manifest.json``, ``tables/``, and the figures in
``figures/<profile>/``, all found through :class:`~mtlib.run.layout.RunLayout`)
and builds them with Sphinx, MyST-NB (which never executes a notebook here)
and the book theme, configured in ``book/conf.py``:

- Lesson 1 is the tour, its exercises' answers folded until clicked; then one
  chapter per experiment (the executed notebook between a note on its run, with
  its paper's links and its notebook as ``.ipynb``, and the tables that set the
  paper's values beside ours), a page per paper (:mod:`mtrun.book_guides`),
  the parameters reference (``notebooks/PARAMETERS.md``) and a bibliography;
- two editions from one build: ``html/student`` (never links to a teacher's
  page) and ``html/teacher``, which adds the lesson plan and, per lesson, its
  objectives, minutes, exercises with their checks, common wrong answers and
  discussion questions (``book/teaching.yaml``);
- the student edition printed as one PDF (Sphinx's LaTeX builder, then latexmk with XeLaTeX, answers left
  out), linked from both landing pages, when TeX Live is installed; otherwise the build says why not;
- the build fails when a page still shows maths source (:mod:`mtrun.book_sphinx`);
- no absolute path of the machines that ran or built it
  (:class:`mtrun.book_notebooks.Scrubber`) and no script from data (outputs
  made inert, pages escaped, raw HTML cleaned: :mod:`mtrun.book_sphinx`);
  maths is MathML, nothing is fetched from a network.

The site is built beside the last one and replaces it only when the build succeeds::

    python -m mtrun.book --profile quick          # -> book/_build/html/{student,teacher}/index.html
    python -m mtrun.book --profile quick --run-if-absent   # run the profile first when it has no run
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import nbformat
import yaml

from mtlib.run.layout import RunLayout, read_json_object, read_metrics, safe_component
from mtlib.run.manifest import read_manifest
from mtlib.utils.paths import project_root
from mtrun import book_guides, book_notebooks, book_pages
from mtrun.book_pages import MATHS_LEFT, Chapter, text
from mtrun.profiles import discover, load_profile
from mtrun.report import LEDGER, figures, provenance_line

__all__ = ["BookError", "BookResult", "assemble", "build_book", "has_run", "main"]

#: Where the book's configuration lives, relative to the project (``conf.py``, ``_static/``).
CONF_DIR = Path("book")
#: Where it is built, relative to the project: ``src/`` (generated sources), ``html/`` (the sites), ``doctrees/``.
BUILD_DIR = CONF_DIR / "_build"
#: The editions, each a site under ``html/``: the student's (answers folded) and the teacher's (plus lesson pages).
EDITIONS = ("student", "teacher")
#: The printed book (``book/conf.py``'s ``latex_documents`` names its ``.tex``), in ``<build_dir>/latex/`` and, as a
#: download, in each edition's ``files/``.
PDF_NAME = "mtlib-course-book.pdf"
#: What the PDF needs besides the book's extra: TeX Live's XeLaTeX and latexmk (Debian's packages).
LATEX_PACKAGES = "latexmk texlive-xetex texlive-latex-extra texlive-fonts-recommended tex-gyre"


class BookError(RuntimeError):
    """The book could not be built (no run to build from, or Sphinx failed); the last site is kept."""


@dataclass(frozen=True)
class BookResult:
    """A built book.

    Attributes:
        html: The student edition's folder (open ``index.html``): answers folded, no teacher's page.
        pages: HTML pages of the student edition.
        seconds: Wall time of the assembly and the Sphinx build.
        warnings: Sphinx's warnings, paths of the build rewritten.
        teacher: The teacher edition's folder: the same book plus the lesson plan and a page per lesson.
        pdf: The student edition as one PDF (None when it was not made: ``no_pdf`` says why).
        no_pdf: Why there is no PDF ("" when there is one).
    """

    html: Path
    pages: int
    seconds: float
    warnings: tuple[str, ...]
    teacher: Path
    pdf: Path | None = None
    no_pdf: str = ""


def has_run(root: Path, profile: str, project: Path | None = None) -> bool:
    """Whether ``root`` holds an executed notebook of ``profile`` for any notebook of the project."""
    notebooks = discover(Path(project or project_root()) / "notebooks")
    return any(RunLayout(root, profile, nb.stem).notebook_path.exists() for nb in notebooks)


class _Sources:
    """The book's sources folder: a file is rewritten only when its bytes change (Sphinx rereads only what
    changed), and files not written by this assembly are removed at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.written: set[Path] = set()
        folder.mkdir(parents=True, exist_ok=True)

    def write(self, relative: str, data: bytes | str) -> Path:
        path = self.folder / relative
        blob = data.encode("utf-8") if isinstance(data, str) else data
        if not (path.exists() and path.read_bytes() == blob):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(blob)
        self.written.add(path)
        return path

    def prune(self) -> None:
        for path in sorted(self.folder.rglob("*"), reverse=True):
            if path.is_file() and path not in self.written:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def _read_executed(paths: list[Path], root: Path, profile: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The executed notebooks of the run by stem, and a ledger entry for each one that cannot be read (its
    chapter then says so, naming the file; the rest of the book is built)."""
    executed, unreadable = {}, {}
    for path in paths:
        notebook = RunLayout(root, profile, path.stem).notebook_path
        if not notebook.exists():
            continue
        try:
            executed[path.stem] = nbformat.read(notebook, as_version=4)
        except Exception as err:  # nbformat raises JSON, validation and OS errors alike
            problem = f"{notebook.relative_to(root)} cannot be read as a notebook: {type(err).__name__}: {err}"
            print(f"book: {problem}", file=sys.stderr)
            unreadable[path.stem] = {"status": "unreadable", "error": problem}
    return executed, unreadable


def _chapter(stem: str, committed: Any, root: Path, profile: str, ledger: dict[str, Any], executed: bool) -> Chapter:
    """A chapter's record from the committed notebook and the run's ledger and files (not its pages yet)."""
    number = stem[:2]
    layout = RunLayout(root, profile, stem)
    found = ledger.get(stem)
    entry: dict[str, Any] = found if isinstance(found, dict) else {}
    seconds = entry.get("seconds") if isinstance(entry.get("seconds"), (int, float)) else None
    status = str(entry.get("status") or ("ok" if executed else "not run"))
    return Chapter(
        number=number,
        stem=stem,
        title=book_notebooks.title(committed, stem),
        docname=f"{'lessons' if number == '00' else 'experiments'}/{stem}",
        status=status,
        seconds=seconds,
        date=str(entry.get("date") or ""),
        error=str(entry.get("error") or ""),
        metrics=read_metrics(layout.metrics_path) if executed else {},
        manifest=read_manifest(layout.manifest_path) if executed else {},
        executed=executed,
    )


def _files(
    ch: Chapter, project: Path, root: Path, profile: str, src: _Sources, scrub: book_notebooks.Scrubber
) -> Chapter:
    """Copy a chapter's tables, metrics and notebooks (executed and clean; scrubbed of paths) and figure PDFs into
    the sources; the chapter with them."""
    layout = RunLayout(root, profile, ch.stem)
    tables = []
    for csv in sorted(layout.tables_dir.glob("*.csv")):
        relative = f"files/{ch.stem}/{_safe_name(csv.name)}"
        copy = src.write(relative, scrub(csv.read_text(encoding="utf-8", errors="replace")))
        tables.append((copy, relative))
    shown = []
    for name, png, alt in figures(root, profile, ch.stem):
        pdf = png.with_suffix(".pdf")
        relative = f"files/{ch.stem}/{_safe_name(pdf.name)}" if pdf.exists() else ""
        if relative:
            src.write(relative, pdf.read_bytes())
        shown.append((name, scrub(alt), relative))
    downloads = []
    notebooks = (
        ("executed, as the run left it", layout.notebook_path, f"{ch.stem}.executed.ipynb"),
        ("clean, to run yourself", project / "notebooks" / f"{ch.stem}.ipynb", f"{ch.stem}.ipynb"),
    )
    for what, path, name in notebooks:
        if path.exists() and (ch.executed or path.parent.name == "notebooks"):
            src.write(f"files/{ch.stem}/{name}", scrub(path.read_text(encoding="utf-8", errors="replace")))
            downloads.append((what, f"files/{ch.stem}/{name}"))
    if layout.metrics_path.exists():
        relative = f"files/{ch.stem}/metrics.json"
        src.write(relative, scrub(layout.metrics_path.read_text(encoding="utf-8", errors="replace")))
        downloads.append(("every metric of this run", relative))
    return replace(ch, tables=tuple(tables), figures=tuple(shown), downloads=tuple(downloads))


def assemble(
    project: Path, root: Path, profile: str, src_dir: Path, teacher: bool = False, pdf: Path | None = None
) -> list[Chapter]:
    """Write the book's sources for ``profile``'s run under ``root`` into ``src_dir``.

    Args:
        project: The project folder (``notebooks/``, ``PARAMETERS.md``, the profiles, ``expected.yaml``).
        root: The run's output root (holds ``papermill_runs/`` and ``figures/``; the project by default).
        profile: The profile whose run the book shows.
        src_dir: The sources folder (rewritten; files of an earlier assembly that are no longer part of
            the book are removed).
        teacher: The teacher edition: the student's book plus a page per lesson for the teacher
            (:func:`mtrun.book_guides.lesson_page`, with ``book/teaching.yaml``).
        pdf: The printed book, copied into ``files/`` and linked from the landing page (None: no link).

    Returns:
        The chapters, in notebook order.
    """
    profile = safe_component(profile, "profile")
    paths = discover(project / "notebooks")
    ledger = read_json_object(RunLayout(root, profile, "").profile_dir / LEDGER)
    executed, unreadable = _read_executed(paths, root, profile)
    ledger |= unreadable
    recorded = [f for nb in executed.values() for f in book_notebooks.recorded_folders(nb)]
    scrub = book_notebooks.Scrubber.for_build(project, root, recorded)
    src = _Sources(src_dir)
    committed = {path.stem: nbformat.read(path, as_version=4) for path in paths}
    chapters, prepared = [], {}
    for stem, notebook in committed.items():
        ch = _chapter(stem, notebook, root, profile, ledger, stem in executed)
        ch = _files(ch, project, root, profile, src, scrub)
        if ch.executed:
            nb = book_notebooks.prepare(executed[ch.stem], scrub)
            ch = replace(ch, claims=tuple(book_notebooks.claims(nb)))
            prepared[ch.stem] = nb
        chapters.append(ch)
    lines = sorted({provenance_line(c.manifest) for c in chapters if c.manifest})
    provenance = (
        lines[0]
        if len(lines) == 1
        else (f"{len(lines)} set-ups: commit, machine, device or precision (each chapter says which)" if lines else "")
    )
    for ch in chapters:
        if ch.stem in prepared:
            nb = _framed(prepared[ch.stem], ch, profile, scrub)
            src.write(ch.source, nbformat.writes(nb))
        else:
            src.write(ch.source, scrub(_not_run(ch, profile)))
    if pdf:
        src.write(f"files/{PDF_NAME}", pdf.read_bytes())
    _guides(project, chapters, committed, prepared, profile, provenance, src, scrub, teacher, bool(pdf))
    src.prune()
    return chapters


def _framed(nb: Any, ch: Chapter, profile: str, scrub: book_notebooks.Scrubber) -> Any:
    """The chapter's notebook between the note on its run and its closing sections (text scrubbed of paths)."""
    cell = book_notebooks.markdown_cell
    nb.cells.insert(1, cell(scrub(book_pages.preface(ch, profile, provenance_line(ch.manifest)))))
    if ch.number != "00":
        nb.cells.append(cell(scrub(book_pages.comparison(ch))))
    if ch.tables or ch.downloads or any(pdf for _, _, pdf in ch.figures):
        nb.cells.append(cell(scrub(book_pages.run_files(ch))))
    return nb


def _not_run(ch: Chapter, profile: str) -> str:
    why = (
        f"the executed notebook could not be read ({text(ch.error)})"
        if ch.status == "unreadable"
        else f"papermill_runs/{text(profile)}/ has no executed notebook {text(ch.stem)}.ipynb"
    )
    return (
        f"# {text(ch.title)}\n\nNot in this run: {why}. Run it with python -m mtrun --profile {text(profile)} "
        f"--only {text(ch.number)}, then build the book again.\n"
    )


def _guides(
    project: Path,
    chapters: list[Chapter],
    committed: dict[str, Any],
    prepared: dict[str, Any],
    profile: str,
    provenance: str,
    src: _Sources,
    scrub: book_notebooks.Scrubber,
    teacher: bool,
    pdf: bool,
) -> None:
    """The landing page, the paper pages, the bibliography and the parameters reference; in the teacher edition,
    the lesson plan and, per lesson, its objectives, minutes and exercises (with ``book/teaching.yaml``)."""
    by_number = {ch.number: ch for ch in chapters}
    try:
        paper_profile = load_profile(project / "notebooks", "paper").get("notebooks") or {}
    except SystemExit:  # a malformed or missing paper profile: the pages say nothing of the paper's parameters
        paper_profile = {}
    for paper in book_pages.PAPERS:
        src.write(f"papers/{paper.key}.md", scrub(book_guides.paper_page(paper, by_number, profile, paper_profile)))
    printed = f"files/{PDF_NAME}" if pdf else ""
    src.write("index.md", scrub(book_guides.index_page(chapters, profile, provenance, teacher, printed)))
    src.write("bibliography.md", (project / CONF_DIR / "bibliography.md").read_text(encoding="utf-8"))
    params = project / "notebooks" / "PARAMETERS.md"
    reference = params.read_text(encoding="utf-8") if params.exists() else "# Notebook parameters\n\nNot found.\n"
    src.write("reference/parameters.md", scrub(reference))
    compare = project / "notebooks" / "COMPARING_RUNS.md"  # the paired comparison of two runs (mtlib.paired)
    if compare.exists():
        src.write("reference/comparing-runs.md", scrub(compare.read_text(encoding="utf-8")))
    if not teacher:
        return
    tag = book_notebooks.ANSWER_TAG
    notes = yaml.safe_load((project / CONF_DIR / "teaching.yaml").read_text(encoding="utf-8")) or {}
    times = {ch.number: book_guides.minutes(prepared.get(ch.stem) or committed[ch.stem], tag) for ch in chapters}
    for ch in chapters:
        tasks = book_guides.exercises(committed[ch.stem], prepared.get(ch.stem), tag)
        page = book_guides.lesson_page(ch, tasks, notes.get(ch.number) or {}, times[ch.number], profile)
        src.write(f"teachers/{ch.stem}.md", scrub(page))
    src.write("teachers/index.md", scrub(book_guides.teachers_page(chapters, times, profile, notes)))


def _sphinx(src: Path, conf: Path, html: Path, doctrees: Path, jobs: int, builder: str = "html") -> list[str]:
    """Run a Sphinx builder (HTML, or LaTeX for the PDF); its warnings, or :class:`BookError` when it fails."""
    try:
        from sphinx.application import Sphinx
        from sphinx.errors import SphinxError
        from sphinx.util.docutils import docutils_namespace, patch_docutils
    except ImportError as err:
        raise BookError(
            f"the book needs Sphinx, MyST-NB, the book theme and nh3 ({err}): pip install -e '.[book]' "
            "(make install installs them)"
        ) from err

    warnings = io.StringIO()
    try:
        with patch_docutils(conf), docutils_namespace():
            app = Sphinx(
                str(src), str(conf), str(html), str(doctrees), builder,
                status=None, warning=warnings, parallel=jobs, keep_going=True,
            )  # fmt: skip
            app.build()
    except SphinxError as err:
        raise BookError(f"Sphinx failed: {err}") from err
    maths = [line for line in warnings.getvalue().splitlines() if MATHS_LEFT in line]
    if app.statuscode or maths:
        raise BookError("Sphinx failed:\n" + "\n".join(maths or [warnings.getvalue()]))
    return [line for line in warnings.getvalue().splitlines() if line.strip()]


def _pdf(project: Path, root: Path, profile: str, build: Path, jobs: int) -> tuple[Path | None, str]:
    """The student edition printed (its own sources, ``src/print``, with no link to a PDF): Sphinx's LaTeX
    builder, then latexmk with XeLaTeX in ``<build>/latex``. The PDF, or None and why not."""
    missing = [tool for tool in ("latexmk", "xelatex") if shutil.which(tool) is None]
    if missing:
        return None, f"no {' or '.join(missing)} on PATH (Debian: apt-get install {LATEX_PACKAGES})"
    tex = build / "latex"
    assemble(project, root, profile, build / "src" / "print")
    try:
        _sphinx(build / "src" / "print", project / CONF_DIR, tex, build / "doctrees" / "latex", jobs, builder="latex")
    except BookError as err:
        return None, f"Sphinx's LaTeX builder failed: {err}"
    (tex / PDF_NAME).unlink(missing_ok=True)
    cmd = ["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error", Path(PDF_NAME).with_suffix(".tex").name]
    done = subprocess.run(cmd, cwd=tex, capture_output=True, text=True, errors="replace", check=False)
    if done.returncode or not (tex / PDF_NAME).exists():
        errors = [line for line in done.stdout.splitlines() if line.startswith("!")][:3]
        return None, f"LaTeX failed (exit {done.returncode}; {tex.name}/{Path(PDF_NAME).stem}.log): {' '.join(errors)}"
    return tex / PDF_NAME, ""


def build_book(
    profile: str = "quick",
    *,
    project: Path | None = None,
    root: Path | None = None,
    build_dir: Path | None = None,
    jobs: int = 1,
    pdf: bool = True,
) -> BookResult:
    """Assemble and build the book of ``profile``'s run.

    Args:
        profile: The profile whose run it shows (``papermill_runs/<profile>/``).
        project: The project folder (default: found from the working directory); ``book/conf.py`` is read here.
        root: The run's output root (default: the project).
        build_dir: Where ``src/``, ``doctrees/`` and ``html/`` go (default: ``<project>/book/_build``).
        jobs: Sphinx's parallel processes.
        pdf: Also print the student edition as one PDF, when latexmk and XeLaTeX are installed.

    Returns:
        :class:`BookResult`; the editions are ``<build_dir>/html/student`` and ``html/teacher``. A failed build
        raises :class:`BookError` and
        leaves the previous sites as they were.
    """
    start = time.perf_counter()
    project = Path(project or project_root()).resolve()
    root = Path(root).resolve() if root else project
    build = Path(build_dir).resolve() if build_dir else project / BUILD_DIR
    if not has_run(root, profile, project):
        raise BookError(
            f"no executed notebook in {RunLayout(root, profile, '').profile_dir}: run python -m mtrun "
            f"--profile {profile} first (make book does when the run is missing)"
        )
    fresh, html = build / "html.new", build / "html"
    shutil.rmtree(fresh, ignore_errors=True)
    scrub = book_notebooks.Scrubber.for_build(project, root)
    printed, no_pdf = _pdf(project, root, profile, build, jobs) if pdf else (None, "not asked for (--no-pdf)")
    warnings: list[str] = []
    for edition in EDITIONS:
        assemble(project, root, profile, build / "src" / edition, teacher=edition == "teacher", pdf=printed)
        try:
            warnings += _sphinx(
                build / "src" / edition, project / CONF_DIR, fresh / edition, build / "doctrees" / edition, jobs
            )
        except BookError:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
    old = build / "html.old"
    shutil.rmtree(old, ignore_errors=True)
    if html.exists():
        html.rename(old)
    fresh.rename(html)
    shutil.rmtree(old, ignore_errors=True)
    html = html / "student"
    pages = sum(1 for _ in html.rglob("*.html"))
    took = time.perf_counter() - start
    return BookResult(html, pages, took, tuple(scrub(w) for w in warnings), html.parent / "teacher", printed, no_pdf)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (2: nothing to build, 1: the build failed)."""
    parser = argparse.ArgumentParser(
        prog="python -m mtrun.book",
        description="Build the course book (static HTML, offline) from a profile's executed notebooks.",
    )
    parser.add_argument("--profile", default="quick", help="the run to build from: papermill_runs/<profile>/")
    parser.add_argument("--root", default=None, help="project folder (default: found from the working directory)")
    parser.add_argument(
        "--out-dir", default=None, help="the run's output root, as given to mtrun (default: the project)"
    )
    parser.add_argument("--build-dir", default=None, help="where the book is built (default: book/_build)")
    parser.add_argument("--jobs", type=int, default=1, help="Sphinx processes (default 1)")
    parser.add_argument("--no-pdf", action="store_true", help="skip the PDF (made when latexmk and xelatex exist)")
    parser.add_argument(
        "--run-if-absent", action="store_true", help="run the profile first (python -m mtrun) when it has no run"
    )
    args = parser.parse_args(argv)
    try:
        safe_component(args.profile, "profile")
    except ValueError as err:
        parser.error(str(err))
    project = Path(args.root).resolve() if args.root else project_root()
    root = Path(args.out_dir).resolve() if args.out_dir else project
    if args.run_if_absent and not has_run(root, args.profile, project):
        print(f"book: no {args.profile} run yet; running python -m mtrun --profile {args.profile} first")
        extra = ["--out-dir", str(root)] if root != project else []
        cmd = [sys.executable, "-m", "mtrun", "--profile", args.profile, "--root", str(project), *extra]
        code = subprocess.run(cmd, check=False).returncode
        if code:
            print(f"book: the run exited with {code}; building from what it wrote", file=sys.stderr)
    try:
        result = build_book(
            args.profile, project=project, root=root, build_dir=args.build_dir, jobs=args.jobs, pdf=not args.no_pdf
        )
    except BookError as err:
        print(f"book: {err}", file=sys.stderr)
        return 2 if "no executed notebook" in str(err) else 1
    for line in result.warnings:
        print(f"  warning: {line}", file=sys.stderr)
    print(f"book: {result.pages} pages in {result.seconds:.1f} s -> {os.path.relpath(result.html / 'index.html')}")
    print(f"book: the teacher edition -> {os.path.relpath(result.teacher / 'index.html')}")
    print(f"book: the PDF -> {os.path.relpath(result.pdf)}" if result.pdf else f"book: no PDF: {result.no_pdf}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
