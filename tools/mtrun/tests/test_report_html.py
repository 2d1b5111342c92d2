"""``REPORT.html``: a browsable, offline page of the run with every value escaped and every output linked."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from mtlib.run.layout import RunLayout
from mtrun.jobs import JobResult
from mtrun.report import REPORT_HTML, write_report

EVIL = "<img src=x onerror=alert(1)> [click](http://evil) `tick` a|b \"q\" 'r' &amp;"


class Tags(HTMLParser):
    """Collects every start tag with its attributes, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _outputs(root: Path, profile: str, stem: str) -> RunLayout:
    """Write the outputs a run of ``stem`` leaves: notebook, HTML export, metrics, params, a table, a figure."""
    layout = RunLayout(root, profile, stem)
    (layout.run_dir / "tables").mkdir(parents=True)
    layout.figures_dir.mkdir(parents=True)
    layout.notebook_path.write_text("{}")
    layout.html_path.write_text("<html></html>")
    layout.metrics_path.write_text(json.dumps({"accuracy": 0.5}))
    layout.params_path.write_text("{}")
    (layout.tables_dir / "table1.csv").write_text("a\n1\n")
    png = layout.figures_dir / "fig1.png"
    png.write_bytes(b"\x89PNG")
    layout.figures_index.write_text(
        json.dumps({f"fig1{EVIL}": {"png": str(png.relative_to(root)), "alt": f"alt {EVIL}"}})
    )
    return layout


def test_report_html_escapes_every_value_and_links_every_output(tmp_path: Path) -> None:
    profile = "smoke"
    layout = _outputs(tmp_path, profile, "01_a")
    results = [
        JobResult(
            "01_a",
            "ok",
            12.3,
            metrics={f"k{EVIL}": 1.5, "accuracy": 0.5, "_headline": [f"k{EVIL}", "accuracy"]},
            html=layout.html_path,
        ),
        JobResult("02_b", "failed", 1.0, error=f"boom {EVIL}", html_error=f"no html {EVIL}"),
    ]
    write_report(results, profile, tmp_path)
    page = (layout.profile_dir / REPORT_HTML).read_text()

    parser = Tags()
    parser.feed(page)
    imgs = [attrs for tag, attrs in parser.tags if tag == "img"]
    assert [img["src"] for img in imgs] == ["../../figures/smoke/01_a/fig1.png"]  # the thumbnail, relative
    assert all(set(img) <= {"src", "alt", "loading"} for img in imgs)  # no onerror from the data
    assert page.count("<img") == 1 and "onerror=alert(1)>" not in page.replace("&lt;img src=x onerror=alert(1)&gt;", "")
    assert not any(tag in {"script", "link"} for tag, _ in parser.tags) and "http" not in page.replace(
        "http://evil", ""
    )
    assert (
        "&lt;img src=x onerror=alert(1)&gt; [click](http://evil) `tick` a|b &quot;q&quot; &#x27;r&#x27; &amp;amp;"
        in page
    )

    hrefs = {attrs["href"] for tag, attrs in parser.tags if tag == "a"}
    assert {
        "01_a/01_a.html",
        "01_a/01_a.ipynb",
        "01_a/metrics.json",
        "01_a/params.json",
        "01_a/tables/table1.csv",
        "../../figures/smoke/01_a/fig1.pdf",
        "#01_a",
        "#02_b",
        "REPORT.md",
    } <= hrefs
    assert not any(h.startswith(("/", "http")) or re.match(r"^[a-z]+:", h or "") for h in hrefs)
    assert "<style>" in page and "12.3" in page and "failed" in page


def test_report_html_keeps_rows_of_notebooks_not_run_this_time(tmp_path: Path) -> None:
    layout = RunLayout(tmp_path, "p", "01_a")
    layout.run_dir.mkdir(parents=True)
    layout.metrics_path.write_text(json.dumps({"accuracy": 0.25}))  # what a run of 01_a leaves; read back later
    write_report([JobResult("01_a", "ok", 2.0, metrics={"accuracy": 0.25})], "p", tmp_path)
    write_report([JobResult("02_b", "ok", 3.0)], "p", tmp_path)
    page = (RunLayout(tmp_path, "p", "").profile_dir / REPORT_HTML).read_text()
    assert 'id="01_a"' in page and 'id="02_b"' in page and "accuracy=0.25" in page
