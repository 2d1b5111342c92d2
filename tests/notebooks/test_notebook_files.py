"""Notebooks in JupyterLab and as shared HTML (issue 19).

Every ``notebooks/NN_*.ipynb`` names the ``mtlib`` kernel, stores the metadata
JupyterLab writes (so opening it changes nothing), survives an nbformat
round trip byte for byte and carries no outputs; the normaliser and the
pre-commit hook enforce it. The runner's HTML export renders maths as MathML
with no CDN, and every figure has alt text, also in ``REPORT.md``.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import pytest  # noqa: E402

import mtrun as runner  # noqa: E402
from mtlib.analysis import plots  # noqa: E402
from mtlib.run import results  # noqa: E402
from mtlib.run.results import RunLayout  # noqa: E402
from mtrun import export  # noqa: E402
from mtrun import notebooks as nbfiles  # noqa: E402
from tests.smoke_runs import CODE_PATH  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
DEFAULT_ALT = "No description has been provided for this image"
# the dirty fixture notebooks lack a cell id on purpose
pytestmark = pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")


# -- committed notebooks -------------------------------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_names_the_mtlib_kernel_and_full_language_info(path):
    meta = json.loads(path.read_text())["metadata"]
    assert meta["kernelspec"] == {"name": "mtlib", "display_name": "Python (mtlib)", "language": "python"}
    # what ipykernel reports, so JupyterLab's kernel_info update changes nothing (it compares deeply)
    from ipykernel.ipkernel import IPythonKernel

    reported = {**IPythonKernel.language_info, "version": nbfiles.REFERENCE_PYTHON}
    assert meta["language_info"] == reported


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_survives_an_nbformat_round_trip_byte_for_byte(path):
    raw = path.read_bytes()
    buf = io.StringIO()
    nbformat.write(nbformat.read(io.StringIO(raw.decode("utf-8")), as_version=nbformat.NO_CONVERT), buf)
    assert buf.getvalue().encode("utf-8") == raw, f"{path.name}: run python -m mtrun.notebooks --fix {path}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stripped_and_canonical(path):
    assert nbfiles.problems(path.read_text(encoding="utf-8"), path.name) == []


def test_the_parameters_cell_is_the_specs_and_the_fix_writes_it(tmp_path, capsys):
    source = ROOT / "notebooks" / "03_cogalex_transitivity.ipynb"
    nb = nbformat.read(source, as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    cell.source = cell.source.replace("n_boot: int = 1000", "n_boot: int = 50")  # a default edited by hand
    copy = tmp_path / source.name
    copy.write_text(nbfiles.canonical_text(nb))
    found = nbfiles.problems(copy.read_text(), copy.name)
    assert found and "the parameters cell differs from mtlib.experiments.lexical.spec.Spec" in found[0]
    assert nbfiles.main(["--fix", str(copy)]) == 0
    assert copy.read_bytes() == source.read_bytes()


def test_the_parameter_docs_are_generated_from_the_specs():
    text = (ROOT / "notebooks" / nbfiles.PARAMETERS_DOC).read_text(encoding="utf-8")
    assert text == nbfiles.parameters_markdown(), "run python -m mtrun.notebooks --docs notebooks/PARAMETERS.md"


def test_every_notebook_is_checked_generically():
    # 05-07 (and any later NN_*) are picked up by the glob, not listed by hand
    assert {p.stem[:2] for p in NOTEBOOKS} >= {"00", "01", "02", "03", "04"}
    assert all(p.stem[:2].isdigit() for p in NOTEBOOKS)


# -- the normaliser ------------------------------------------------------------------------------


def _dirty_notebook() -> nbformat.NotebookNode:
    """A template copy after a JupyterLab session and a papermill run: everything the fix removes."""
    nb = nbformat.read(ROOT / "notebooks" / "00_template.ipynb", as_version=4)
    nb.metadata = nbformat.from_dict(
        {
            "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"},
            "language_info": {"name": "python"},
            "papermill": {"duration": 1.0},
            "widgets": {"application/vnd.jupyter.widget-state+json": {}},
            "title": "kept",
        }
    )
    code = [c for c in nb.cells if c.cell_type == "code"]
    code[1].outputs = [nbformat.v4.new_output("stream", text="hello\n")]
    code[1].execution_count = 3
    code[1].metadata.update({"scrolled": True, "execution": {"iopub.status.busy": "2026-01-01"}})
    injected = nbformat.v4.new_code_cell("profile = 'smoke'")
    injected.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(2, injected)
    del nb.cells[-1]["id"]
    return nb


def test_normaliser_fixes_everything_and_is_idempotent(tmp_path):
    path = tmp_path / "05_copy.ipynb"
    nbformat.write(_dirty_notebook(), path)
    found = "\n".join(nbfiles.problems(path.read_text(), path.name))
    for expected in (
        "kernelspec",
        "language_info",
        "papermill",
        "widgets",
        "1 output",
        "execution_count 3",
        "scrolled",
        "injected-parameters",
    ):
        assert expected in found
    assert nbfiles.main(["--fix", str(path)]) == 0
    first = path.read_bytes()
    assert nbfiles.fix(path) is False and path.read_bytes() == first  # idempotent
    assert nbfiles.problems(first.decode(), path.name) == []
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata.kernelspec.name == "mtlib" and nb.metadata.title == "kept"
    assert not any("injected-parameters" in c.metadata.get("tags", []) for c in nb.cells)
    assert all(c.get("outputs", []) == [] for c in nb.cells)
    assert len({c.id for c in nb.cells}) == len(nb.cells)
    # the parameters cell keeps its tag, the source is untouched
    template = nbformat.read(ROOT / "notebooks" / "00_template.ipynb", as_version=4)
    assert [c.source for c in nb.cells] == [c.source for c in template.cells][: len(nb.cells)]


def test_check_command_exits_non_zero_and_names_the_problem(tmp_path, capsys):
    path = tmp_path / "06_dirty.ipynb"
    nbformat.write(_dirty_notebook(), path)
    assert nbfiles.main(["--check", str(path)]) == 1
    assert "06_dirty.ipynb: cell" in capsys.readouterr().err
    assert nbfiles.main(["--check", str(ROOT / "notebooks" / "00_template.ipynb")]) == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_pre_commit_hook_refuses_outputs_then_accepts_the_fix(tmp_path):
    repo = tmp_path / "repo"
    (repo / "notebooks").mkdir(parents=True)
    env = {
        **os.environ,
        "MTLIB_PYTHON": sys.executable,
        "PYTHONPATH": CODE_PATH,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }

    def git(*args):
        return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)

    git("init", "-q")
    nb = repo / "notebooks" / "07_new.ipynb"
    nbformat.write(_dirty_notebook(), nb)
    git("add", ".")
    hook = [str(ROOT / ".githooks" / "pre-commit")]
    refused = subprocess.run(hook, cwd=repo, env=env, capture_output=True, text=True)
    assert refused.returncode == 1 and "07_new.ipynb" in refused.stderr and "--fix" in refused.stderr
    assert nbfiles.fix(nb)
    git("add", ".")
    accepted = subprocess.run(hook, cwd=repo, env=env, capture_output=True, text=True)
    assert accepted.returncode == 0, accepted.stderr


def test_runner_kernelspec_runs_this_interpreter(tmp_path):
    spec_dir = nbfiles.write_kernelspec(tmp_path)
    spec = json.loads((spec_dir / "kernel.json").read_text())
    assert spec_dir.name == "mtlib" and spec["argv"][0] == sys.executable
    assert spec["display_name"] == "Python (mtlib)" and "{connection_file}" in spec["argv"]


# -- figures: alt text ---------------------------------------------------------------------------


def test_describe_figure_reads_titles_labels_and_marks():
    fig, (left, right) = plt.subplots(1, 2)
    left.imshow([[0, 1], [1, 0]])
    left.set_title(r"Scores of $\mathbf{z}$")
    left.set_xlabel("second adjective")
    right.bar(["S-I", "NS-P"], [0.2, 0.4], yerr=[0.1, 0.1])
    right.set_ylabel("consistency E")
    fig.suptitle("Table 6")
    fig.canvas.draw()
    text = plots.describe_figure(fig)
    assert text == (
        "Table 6. Scores of z: heatmap; x: second adjective. bars with error bars; x: S-I, NS-P; y: consistency E."
    )
    plt.close(fig)


def test_save_figure_stores_alt_text_in_the_figures_index(tmp_path):
    run = results.Run("01_alt", profile="smoke", out_dir=str(tmp_path))
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [0, 1, 4])
    ax.set_title("Growth")
    ax.set_xlabel("step")
    run.save_figure(fig, "derived")
    run.save_figure(fig, "given", "A line that rises from 0 to 4 over three steps.")
    index = results.read_figures(run.run_dir)
    assert list(index) == ["derived", "given"]
    assert index["derived"]["alt"] == "Growth: lines; x: step."
    assert index["given"]["alt"] == "A line that rises from 0 to 4 over three steps."
    assert (tmp_path / index["given"]["png"]).exists() and (tmp_path / index["given"]["pdf"]).exists()
    # a new execution starts a new index
    results.Run("01_alt", profile="smoke", out_dir=str(tmp_path))
    assert results.read_figures(run.run_dir) == {}
    plt.close(fig)


# -- HTML export ---------------------------------------------------------------------------------

MARKDOWN = r"""# Fixture: maths and a figure

Inline $d(p, t_i) \le d(t_j, t_k)$ and $s_{pos}(\mathbf{y}'_1)$, a display

$$s_{pos}(\mathbf{y}_1) > s_{pos}(\mathbf{y}_2) \;\Rightarrow\; s_{pos}(\mathbf{y}'_1) > s_{pos}(\mathbf{y}'_2),$$

and \(O(n \log n)\) for $|\mathcal{D}| \times (1 + |T|)$ inputs."""

BODY = r"""from IPython.display import Markdown, Latex, display
import matplotlib.pyplot as plt
from mtlib.analysis import plots
from mtlib.run import results
run = results.Run("01_fixture", profile=profile, out_dir=out_dir)
fig, ax = plt.subplots()
ax.bar(["a", "b"], [value, 2])
ax.set_title("Counts per group")
run.save_figure(fig, "counts")
run.record("value", value, headline=True)
display(Markdown(f"The rate is ${value} / n$."), Latex(r"$\frac{a}{b}$"))"""


def _math_free_text(html_text: str) -> str:
    """The text of rendered markdown (cells and outputs), with maths, code and preformatted text removed."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html_text, "html.parser")
    for tag in soup.find_all(["math", "code", "pre", "script", "style"]):
        tag.decompose()
    return " ".join(el.get_text(" ") for el in soup.select(".jp-RenderedMarkdown, .jp-MarkdownOutput"))


def _assert_offline_html(html_text: str) -> None:
    for host in export.CDN_HOSTS:
        assert host not in html_text, f"CDN {host} in the HTML"
    assert not re.search(
        r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?(?:https?:)?//""", html_text, re.I
    ), "a remote resource is loaded"
    assert not re.search(r"@import\s+url\(\s*[\"']?(?:https?:)?//", html_text), "a remote stylesheet is imported"


@pytest.fixture(scope="module")
def fixture_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    (root / "mtlib").mkdir()
    (root / "notebooks" / "profiles").mkdir(parents=True)
    params = nbformat.v4.new_code_cell(
        'profile: str = "quick"  # run profile\nout_dir: str = ""  # output root\nvalue: int = 1  # a number\n'
    )
    params.metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell(MARKDOWN), params, nbformat.v4.new_code_cell(BODY)]
    )
    path = root / "notebooks" / "01_fixture.ipynb"
    nbformat.write(nb, path)
    nbfiles.fix(path)  # the canonical metadata: kernel `mtlib`, which nothing has registered
    (root / "notebooks" / "profiles" / "smoke.yaml").write_text("notebooks:\n  '01':\n    value: 3\n")
    status = runner.main(["--profile", "smoke", "--root", str(root)])
    return root, status


def test_runner_executes_with_the_mtlib_kernel_and_writes_html_beside_the_notebook(fixture_run):
    root, status = fixture_run
    run_dir = RunLayout(root, "smoke", "01_fixture").run_dir
    assert status == 0, RunLayout(root, "smoke", "01_fixture").report_path.read_text()
    executed = nbformat.read(run_dir / "01_fixture.ipynb", as_version=4)
    assert executed.metadata.kernelspec.name == "mtlib"
    assert (run_dir / "01_fixture.html").exists()
    report = RunLayout(root, "smoke", "01_fixture").report_path.read_text()
    assert "(01_fixture/01_fixture.html)" in report


def test_html_renders_maths_offline_and_every_image_has_alt_text(fixture_run):
    from bs4 import BeautifulSoup

    root, _ = fixture_run
    run_dir = RunLayout(root, "smoke", "01_fixture").run_dir
    text = (run_dir / "01_fixture.html").read_text()
    _assert_offline_html(text)
    soup = BeautifulSoup(text, "html.parser")
    # 5 formulas in the markdown cell, 1 in the Markdown output, 1 Latex output: all MathML
    assert len(soup.find_all("math")) == 7 and len(soup.find_all("math", display="block")) == 2
    assert 'class="mtlib-tex"' not in text  # nothing fell back to TeX source
    rest = _math_free_text(text)
    assert "Fixture" in rest and not re.search(r"\$[^$]+\$|\\\(|\\begin\{", rest)
    images = soup.find_all("img")
    index = results.read_figures(run_dir)
    assert len(images) == 1 and images[0]["alt"] == index["counts"]["alt"] == "Counts per group: bars; x: a, b."
    assert all(img.get("alt") and img["alt"] != DEFAULT_ALT for img in images)
    report = RunLayout(root, "smoke", "01_fixture").report_path.read_text()
    assert "![Counts per group: bars; x: a, b.](../../figures/smoke/01_fixture/counts.png)" in report


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_formula_in_the_notebooks_converts_to_mathml(path):
    """The markdown of every committed notebook exports with all maths as MathML and no CDN."""
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if c.cell_type == "markdown"]
    text = export.to_html(nb, path.parent)
    _assert_offline_html(text)
    assert 'class="mtlib-tex"' not in text, "latex2mathml could not convert a formula (shown as TeX source)"
    assert not re.search(r"\$[^$]+\$|\\\(|\\begin\{", _math_free_text(text))


# -- JupyterLab's own server: opening and saving changes nothing ---------------------------------


def _http(method: str, url: str, body: dict | None = None) -> dict:
    import urllib.request

    req = urllib.request.Request(
        url,
        method=method,
        headers={"Authorization": "token t", "Content-Type": "application/json"},
        data=None if body is None else json.dumps(body).encode(),
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        text = resp.read().decode()
    return json.loads(text) if text else {}


def test_jupyterlab_server_open_connect_save_changes_no_byte(tmp_path):
    """What JupyterLab does on open: read through the Jupyter server, start the notebook's kernel,
    store its ``language_info`` and ``kernelspec`` (Lab compares deeply and marks the notebook
    edited only on a difference), save through the server; the file must not change."""
    pytest.importorskip("jupyter_server")
    import asyncio
    import socket
    import time
    import uuid

    from tornado.websocket import websocket_connect

    src = ROOT / "notebooks" / "04_montague_adjectives.ipynb"
    shutil.copy(src, tmp_path / src.name)
    nbfiles.write_kernelspec(tmp_path / "jupyter")  # stands in for `make lab`'s registered kernel
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "JUPYTER_PATH": str(tmp_path / "jupyter"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter_server",
            "--no-browser",
            f"--port={port}",
            "--IdentityProvider.token=t",
            f"--ServerApp.root_dir={tmp_path}",
            "--ServerApp.port_retries=0",
            "--allow-root",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/api"
    try:
        for _ in range(600):
            try:
                _http("GET", f"{base}/status")
                break
            except OSError:
                assert server.poll() is None, "the Jupyter server stopped"
                time.sleep(0.1)
        model = _http("GET", f"{base}/contents/{src.name}?content=1")
        meta = model["content"]["metadata"]
        spec = _http("GET", f"{base}/kernelspecs")["kernelspecs"][meta["kernelspec"]["name"]]["spec"]
        kernel_id = _http("POST", f"{base}/kernels", {"name": meta["kernelspec"]["name"]})["id"]

        async def kernel_info() -> dict:
            ws = await websocket_connect(f"ws://127.0.0.1:{port}/api/kernels/{kernel_id}/channels?token=t")
            msg_id = uuid.uuid4().hex
            ws.write_message(
                json.dumps(
                    {
                        "header": {
                            "msg_id": msg_id,
                            "username": "",
                            "session": uuid.uuid4().hex,
                            "msg_type": "kernel_info_request",
                            "version": "5.3",
                        },
                        "parent_header": {},
                        "metadata": {},
                        "content": {},
                        "channel": "shell",
                    }
                )
            )
            while True:
                msg = json.loads(await asyncio.wait_for(ws.read_message(), 120))
                if msg.get("parent_header", {}).get("msg_id") == msg_id and msg["msg_type"] == "kernel_info_reply":
                    ws.close()
                    return msg["content"]

        language_info = asyncio.run(kernel_info())["language_info"]
        kernelspec = {
            "name": meta["kernelspec"]["name"],
            "display_name": spec["display_name"],
            "language": spec["language"],
        }
        assert kernelspec == meta["kernelspec"]
        if language_info["version"] != nbfiles.REFERENCE_PYTHON:  # another patch release than the reference
            language_info = {**language_info, "version": nbfiles.REFERENCE_PYTHON}
        assert language_info == meta["language_info"]
        meta.update(kernelspec=kernelspec, language_info=language_info)
        _http("PUT", f"{base}/contents/{src.name}", {"type": "notebook", "format": "json", "content": model["content"]})
        _http("DELETE", f"{base}/kernels/{kernel_id}")
        assert (tmp_path / src.name).read_bytes() == src.read_bytes()
    finally:
        server.terminate()
        server.wait(30)
