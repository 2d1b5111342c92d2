"""The course book's parts without a Sphinx build: paths scrubbed, outputs made inert, pages escaped, exercises read.

The whole book, built from the smoke runs and read back, is ``tests/notebooks/test_book.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest

from mtrun import book, book_guides, book_notebooks, book_pages
from mtrun.book_notebooks import Scrubber

ROOT = Path(__file__).resolve().parents[3]


def _executed(project: str) -> nbformat.NotebookNode:
    """A small executed notebook as papermill leaves one, run in ``project``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {
        "input_path": f"{project}/notebooks/01_x.ipynb",
        "output_path": f"{project}/papermill_runs/quick/.01_x.attempt/papermill_runs/quick/01_x/01_x.ipynb",
        "parameters": {"out_dir": f"{project}/papermill_runs/quick/.01_x.attempt"},
    }
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    params = nbformat.v4.new_code_cell("seed: int = 0  # seed", metadata={"tags": ["parameters"]})
    injected = nbformat.v4.new_code_cell(
        f'out_dir = "{project}/papermill_runs"', metadata={"tags": ["injected-parameters"]}
    )
    answer = nbformat.v4.new_code_cell(
        "x = 1  # your answer", metadata={"tags": ["answer"], "papermill": {"duration": 1}}
    )
    answer.outputs = [nbformat.v4.new_output("stream", name="stdout", text="Correct\n")]
    outputs = nbformat.v4.new_code_cell("run")
    outputs.outputs = [
        nbformat.v4.new_output("execute_result", {"text/plain": f"Run('{project}/papermill_runs/quick')"}),
        nbformat.v4.new_output("display_data", {"text/markdown": "**minilm**: accuracy 0.9", "text/plain": "m"}),
        nbformat.v4.new_output("display_data", {"application/javascript": "alert(1)", "text/plain": "js"}),
        nbformat.v4.new_output("display_data", {"application/vnd.jupyter.widget-view+json": {"model_id": "a"}}),
        nbformat.v4.new_output("display_data", {"image/svg+xml": "<svg onload='x()'/>"}),
        nbformat.v4.new_output("error", ename="E", evalue=f"{sys.prefix}/x", traceback=[f"File {project}/a.py"]),
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 · A title\n\ntext"), params, injected, answer, outputs]
    return nb


def test_a_prepared_notebook_holds_no_path_no_script_and_folds_answers_and_parameters(tmp_path):
    project = "/srv/elsewhere/checkout"  # where the run was made, recorded by papermill
    nb = _executed(project)
    scrub = Scrubber.for_build(tmp_path, tmp_path, book_notebooks.recorded_folders(nb))
    out = book_notebooks.prepare(nb, scrub)
    text = nbformat.writes(out)
    assert project not in text and sys.prefix not in text and "papermill" not in out.metadata
    assert "widgets" not in out.metadata
    kinds = [set(o.get("data", {})) for o in out.cells[4].outputs]
    assert {"application/javascript"} & set().union(*kinds) == set()
    assert not any("application/vnd.jupyter.widget-view+json" in k for k in kinds)
    assert not any("image/svg+xml" in k for k in kinds) and any(
        "SVG" in str(o.get("data")) for o in out.cells[4].outputs
    )
    assert "[outputs]" in out.cells[2].source or "./papermill_runs" in out.cells[2].source
    assert book_notebooks.HIDE_TAG in out.cells[3].metadata.tags
    assert out.cells[3].metadata.mystnb["code_prompt_show"] == "Show the answer"
    assert out.cells[1].metadata.mystnb["code_prompt_show"] == "Show the parameters"
    assert book_notebooks.claims(out) == ["**minilm**: accuracy 0.9"]
    assert book_notebooks.title(out, "x") == "01 · A title"
    assert "tags" in nb.cells[3].metadata and "mystnb" not in nb.cells[3].metadata  # the input is not changed


def test_scrubber_replaces_whole_folders_only_and_their_resolved_forms(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    scrub = Scrubber.of([(link, ".")])
    assert scrub(f"{link}/a and {real}/b and {link}x") == f"./a and ./b and {link}x"
    assert Scrubber.of([])("/any/path") == "/any/path"
    home = Scrubber.for_build(tmp_path, tmp_path)
    assert home(f"{Path.home()}/notes and {sys.prefix}/lib") in (
        "~/notes and [venv]/lib",
        "[venv]/notes and [venv]/lib",
    )


def test_page_text_and_tables_escape_everything_from_a_run(tmp_path):
    hostile = '<script>x()</script><img src=x onerror="y()"> [a](javascript:z) `{include}` $m$'
    escaped = book_pages.text(hostile)
    assert "<" not in escaped.replace("&lt;", "") and "\\[" in escaped and "\\`" in escaped and "\\$" in escaped
    table = book_pages.html_table(["h"], [[hostile]])
    assert "<script>" not in table and "<img" not in table and "&lt;script&gt;" in table
    claims = book_pages.claims_html([hostile, "```{include} /etc/passwd\n```"])
    assert "<script>" not in claims and "<img" not in claims and 'href="javascript' not in claims
    assert "\n\n" not in claims  # one raw HTML block
    csv = tmp_path / "paper_t.csv"
    csv.write_text(f'model,paper\n"{hostile}",0.123456789\n')
    shown = book_pages.csv_table(csv, "../files/x/paper_t.csv")
    assert "0.123457" in shown and "<script>" not in shown
    assert book_pages.compares_with_paper(csv, ["model", "paper"], [])
    assert book_pages.compares_with_paper(Path("t.csv"), ["source"], [["ours"], ["paper (Table 1)"]])
    assert not book_pages.compares_with_paper(Path("t.csv"), ["a", "b"], [["1", "2"]])


def test_a_paper_page_says_what_matches_and_why_the_rest_differs(tmp_path):
    csv = tmp_path / "paper_table1.csv"
    csv.write_text("type,ours,paper,match\nS-I,1.0,1.0,True\nS-NI,0.9,1.0,False\n")
    chapter = book_pages.Chapter(
        "04", "04_montague_adjectives", "04 · Montague", "experiments/04_montague_adjectives", "ok", 3.0,
        metrics={}, manifest={"parameters": {"models": ["minilm"]}, "inputs": [{"name": "data/a.csv"}]},
        claims=("**minilm** Table 1: 5/5 cells match",), tables=((csv, "files/04/paper_table1.csv"),), executed=True,
    )  # fmt: skip
    lines = book_guides.exact_lines(chapter, "quick")
    assert lines[0] == "paper_table1: 1 of 2 cells equal the published value as printed."
    assert any("expected.yaml pins" in line and "reproduces 0 of them" in line for line in lines)
    paper = next(p for p in book_pages.PAPERS if p.key == "carvalho")
    page = book_guides.paper_page(paper, {"04": chapter}, "quick", {"04": {"models": ["sbert", "t5"]}})
    assert "<td>minilm</td><td>sbert, t5</td>" in page and "data/a.csv" in page
    assert "<strong>minilm</strong> Table 1" in page and "../experiments/04_montague_adjectives.ipynb" in page


def test_the_teachers_page_reads_the_tours_exercises_from_the_notebook():
    tour = nbformat.read(ROOT / "notebooks" / "00_tour.ipynb", as_version=4)
    tasks = book_guides.exercises(tour, None, book_notebooks.ANSWER_TAG)
    assert [t.check for t in tasks] == ["tour.check_invariance", "tour.check_decrease", "tour.check_prediction"]
    assert all(t.checks.startswith("Exercise") and "# your answer" in t.answer for t in tasks)
    chapter = book_pages.Chapter("00", "00_tour", "00 · Tour", "lessons/00_tour", executed=True)
    times = {"00": book_guides.minutes(tour, book_notebooks.ANSWER_TAG)}
    page = book_guides.teachers_page([chapter], times, "quick")
    assert "make lab NB=00" in page and "All lessons: about" in page
    lesson = book_guides.lesson_page(chapter, tasks, {"objectives": ["Say it."]}, times["00"], "quick")
    assert "- Say it." in lesson and lesson.count("### Exercise") == 3 and "| exercises | 3 | 15.0 |" in lesson


def test_a_lesson_timed_by_a_reader_replaces_the_estimate_and_the_count_of_timed_lessons_is_said():
    tour = nbformat.read(ROOT / "notebooks" / "00_tour.ipynb", as_version=4)
    chapter = book_pages.Chapter("00", "00_tour", "00 · Tour", "lessons/00_tour", executed=True)
    times = {"00": book_guides.minutes(tour, book_notebooks.ANSWER_TAG)}
    estimate = book_guides.teachers_page([chapter], times, "quick", {"install": "It took 4 min."})
    assert "0 of 1 lessons have been timed by a reader" in estimate and "It took 4 min." in estimate
    notes = {"00": {"timed": {"minutes": 97, "by": "two teachers, 2026"}}}
    timed = book_guides.teachers_page([chapter], times, "quick", notes)
    assert "1 of 1 lessons have been timed" in timed and "| 97 |" in timed and "about 97 minutes" in timed
    assert "Not measured yet." in timed  # no install text: said so, no number made up
    lesson = book_guides.lesson_page(chapter, [], notes["00"], times["00"], "quick")
    assert "Timed by reading: 97 minutes (two teachers, 2026)" in lesson


def test_no_run_is_refused_with_the_command_to_make_one(tmp_path):
    with pytest.raises(book.BookError, match="python -m mtrun --profile smoke"):
        book.build_book("smoke", project=ROOT, root=tmp_path, build_dir=tmp_path / "b")
    assert not (tmp_path / "b" / "html").exists()
    assert book.main(["--profile", "smoke", "--out-dir", str(tmp_path), "--build-dir", str(tmp_path / "b")]) == 2


def test_sources_rewrite_only_what_changed_and_drop_what_is_gone(tmp_path):
    src = book._Sources(tmp_path)
    kept = src.write("a/x.md", "same")
    os.utime(kept, (1, 1))
    src.write("b.md", "old")
    again = book._Sources(tmp_path)
    again.write("a/x.md", "same")
    again.prune()
    assert kept.stat().st_mtime == 1 and not (tmp_path / "b.md").exists()


def test_an_unreadable_executed_notebook_is_named_and_the_rest_is_assembled(tmp_path, capsys):
    from mtlib.run.layout import RunLayout

    for stem, text in (("00_tour", "{not json"), ("01_pairwise_sentiment_systematicity", None)):
        layout = RunLayout(tmp_path, "smoke", stem)
        layout.run_dir.mkdir(parents=True)
        if text is None:
            nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 01 · run")])
            nbformat.write(nb, layout.notebook_path)
        else:
            layout.notebook_path.write_text(text)
    chapters = book.assemble(ROOT, tmp_path, "smoke", tmp_path / "src")
    tour = next(c for c in chapters if c.number == "00")
    assert tour.status == "unreadable" and not tour.executed
    page = (tmp_path / "src" / "lessons" / "00_tour.md").read_text()
    assert "could not be read" in page and "papermill_runs/smoke/00_tour/00_tour.ipynb" in page
    assert str(tmp_path) not in page
    assert (tmp_path / "src" / "experiments" / "01_pairwise_sentiment_systematicity.ipynb").exists()
    assert "00_tour.ipynb cannot be read as a notebook" in capsys.readouterr().err


def test_without_tex_live_the_pdf_is_skipped_with_the_packages_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(book.shutil, "which", lambda tool: None)
    pdf, why = book._pdf(ROOT, tmp_path, "smoke", tmp_path / "build", 1)
    assert pdf is None and "no latexmk or xelatex on PATH" in why and book.LATEX_PACKAGES in why
    assert not (tmp_path / "build").exists()  # nothing assembled, nothing built


def test_a_latex_failure_leaves_no_pdf_and_names_the_log_and_the_error(tmp_path, monkeypatch):
    import subprocess

    monkeypatch.setattr(book.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    monkeypatch.setattr(book, "assemble", lambda *a, **k: [])
    monkeypatch.setattr(book, "_sphinx", lambda src, conf, out, *a, **k: out.mkdir(parents=True) or [])
    stale = tmp_path / "build" / "latex" / book.PDF_NAME
    failed = subprocess.CompletedProcess([], 12, stdout="x\n! Undefined control sequence.\nl.42 \\foo\n", stderr="")
    monkeypatch.setattr(book.subprocess, "run", lambda *a, **k: stale.write_bytes(b"%PDF-old") and failed)
    pdf, why = book._pdf(ROOT, tmp_path, "smoke", tmp_path / "build", 1)
    assert pdf is None and "LaTeX failed (exit 12; latex/mtlib-course-book.log)" in why
    assert "! Undefined control sequence." in why


_CHAPTERS = sorted(p for p in (ROOT / "notebooks").glob("0[0-7]_*.ipynb") if p.stem != "00_template")


@pytest.mark.parametrize("path", _CHAPTERS, ids=lambda p: p.stem)
def test_the_book_shows_every_cell_of_a_notebook_and_folds_only_its_answers_and_parameters(path, tmp_path):
    """Issue 58, item 9: the book shows the same cells (a student sees each step), the answers stay folded."""
    nb = nbformat.read(path, as_version=4)
    out = book_notebooks.prepare(nb, Scrubber.for_build(ROOT, ROOT))
    assert [c.cell_type for c in out.cells] == [c.cell_type for c in nb.cells]  # no cell dropped or added
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert [c.source for c in out.cells if c.cell_type == "code"] == code  # the method's code, unchanged
    for cell in out.cells:
        tags = cell.metadata.get("tags", [])
        folded = book_notebooks.HIDE_TAG in tags
        assert folded == ("answer" in tags or "parameters" in tags), (path.name, cell.source[:80])
    answers = [c for c in out.cells if "answer" in c.metadata.get("tags", [])]  # every chapter ends with exercises
    assert answers and all(c.metadata.mystnb["code_prompt_show"] == "Show the answer" for c in answers)
