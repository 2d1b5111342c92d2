"""Executed notebooks made ready for the course book: no build path, no live output, answers folded.

Intuition: the book (:mod:`mtrun.book`) shows the notebooks as a run left
them, but a run records where it happened (papermill's ``input_path`` and
``output_path``, the ``out_dir`` parameter, paths in reprs, tracebacks and
warnings) and its outputs come from data. :func:`prepare` returns a copy that

- holds no absolute path of the machine that ran or builds it: each known folder
  (the project, the output root, the virtual environment, Python's prefix, the
  home and temporary folders, and the folders the run itself recorded) is
  rewritten (:class:`Scrubber`), in cell sources, every text output and the
  metadata; papermill's metadata is dropped;
- drops a returned value echoed with no meaning for a reader (:func:`echo`: a list of saved paths, a metrics
  dump; they stay in the run's files);
- keeps no output that could run code: widget views and state, JavaScript, and
  SVG (which may carry script) are removed; HTML outputs are cleaned later, at
  build time (:mod:`mtrun.book_sphinx`);
- folds the cells a reader should open on purpose: a cell tagged ``answer``
  (the tour's exercises) shows "Show the answer" until clicked, and the
  ``parameters`` and papermill ``injected-parameters`` cells "Show the parameters"
  (MyST-NB's ``hide-cell``: a ``<details>`` element, no script).

:func:`claims` collects the sentences a notebook computed from its run (its
``text/markdown`` outputs, :mod:`mtlib.analysis.claims`).
"""

from __future__ import annotations

import html
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from mtrun.book_pages import table_cell
from mtrun.notebooks import INJECTED_TAG

__all__ = [
    "ANSWER_TAG",
    "HIDE_TAG",
    "Scrubber",
    "claims",
    "echo",
    "markdown_cell",
    "prepare",
    "recorded_folders",
    "source_text",
    "title",
]

#: The tag of a cell holding an exercise's answer (notebooks/00_tour.ipynb): folded in the book.
ANSWER_TAG = "answer"
#: MyST-NB's tag for a cell folded behind one toggle (input and output).
HIDE_TAG = "hide-cell"
#: Output types that would run code in a browser, or that the book cannot show safely.
_DROPPED_MIME = (
    "application/javascript",
    "text/javascript",
    "application/vnd.jupyter.widget-view+json",
    "application/vnd.jupyter.widget-state+json",
)
#: A plain cell of a table output (pandas writes them so): set again by :func:`table_cell`.
_TD = re.compile(r"<td>([^<]*)</td>")
#: A returned value echoed where it means nothing to a reader: file paths (``save_figure``'s list), an object
#: recording where it writes (``Run(..., run_dir=...)``); a long dict or list is a dump (``run.metrics``).
_PATH_ECHO = re.compile(r"\b(?:Posix|Windows)?Path\(|\brun_dir=")
_DUMP_LINES = 10
#: Output types holding text (scrubbed of paths); images stay as they are.
_TEXT_MIME = re.compile(r"^(text/|application/json$)")


@dataclass(frozen=True)
class Scrubber:
    """Rewrites absolute folders of the build and run machines into placeholders, longest first.

    Args:
        folders: ``(absolute folder, placeholder)`` pairs; a folder is replaced only as a whole path
            component (``/a/b`` in ``/a/b/c`` or ``"/a/b"``, not in ``/a/bc``).

    >>> s = Scrubber.of([("/work/repo", "."), ("/work/repo/.venv", "[venv]")])
    >>> s("File /work/repo/.venv/lib/x.py and /work/repo/mtlib/y.py, not /work/repository")
    'File [venv]/lib/x.py and ./mtlib/y.py, not /work/repository'
    """

    folders: tuple[tuple[str, str], ...]
    _pattern: re.Pattern = field(init=False, repr=False, compare=False)
    _lookup: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_lookup", dict(self.folders))
        alternatives = "|".join(re.escape(folder) for folder, _ in self.folders)
        # a whole component: not followed by a character that continues a file name
        object.__setattr__(self, "_pattern", re.compile(f"(?:{alternatives})(?![\\w.+-])" if alternatives else "(?!)"))

    @classmethod
    def of(cls, pairs: Iterable[tuple[str | os.PathLike, str]]) -> Scrubber:
        """A scrubber of ``pairs`` (each folder also in its resolved form), longest folder first;
        the root folder and empty names are ignored."""
        seen: dict[str, str] = {}
        for folder, placeholder in pairs:
            for form in {str(folder), str(Path(folder).resolve())}:
                form = form.rstrip("/\\")
                if len(form) > 1 and form not in seen:
                    seen[form] = placeholder
        return cls(tuple(sorted(seen.items(), key=lambda kv: -len(kv[0]))))

    @classmethod
    def for_build(cls, project: Path, root: Path, recorded: Iterable[str | os.PathLike] = ()) -> Scrubber:
        """The folders of this build: ``project`` (``.``), the run's output ``root`` (``.`` when it is the
        project, else ``[outputs]``), the ones a run recorded (:func:`recorded_folders`, as ``[outputs]``),
        the virtual environment and Python's prefix, the home and the temporary folders."""
        same = Path(root).resolve() == Path(project).resolve()
        pairs: list[tuple[str | os.PathLike, str]] = [(project, "."), (root, "." if same else "[outputs]")]
        pairs += [(folder, "[outputs]") for folder in recorded]
        pairs += [(sys.prefix, "[venv]"), (sys.base_prefix, "[python]"), (sys.exec_prefix, "[venv]")]
        pairs += [(Path.home(), "~"), (tempfile.gettempdir(), "[tmp]")]
        return cls.of(pairs)

    def __call__(self, text: str) -> str:
        return self._pattern.sub(lambda m: self._lookup[m.group(0)], text)

    def tree(self, value: Any) -> Any:
        """Every string inside ``value`` (dicts, lists, strings) scrubbed; other values as they are."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, Mapping):
            return {k: self.tree(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.tree(v) for v in value]
        return value


def recorded_folders(nb: Mapping[str, Any], project_relative: str = "notebooks") -> list[str]:
    """Folders an executed notebook recorded about the machine that ran it: papermill's ``input_path``
    (its project, two levels up), ``output_path`` and the ``out_dir`` parameter (the output root).

    >>> recorded_folders({"metadata": {"papermill": {"input_path": "/w/p/notebooks/01_x.ipynb",
    ...     "output_path": "/w/p/papermill_runs/q/.01_x.attempt/papermill_runs/q/01_x/01_x.ipynb",
    ...     "parameters": {"out_dir": "/w/p/papermill_runs/q/.01_x.attempt"}}}})
    ['/w/p', '/w/p/papermill_runs/q/.01_x.attempt']
    """
    meta = (nb.get("metadata") or {}).get("papermill") or {}
    found: list[str] = []
    source = str(meta.get("input_path") or "")
    if os.path.isabs(source) and Path(source).parent.name == project_relative:
        found.append(str(Path(source).parent.parent))
    out_dir = str((meta.get("parameters") or {}).get("out_dir") or "")
    if os.path.isabs(out_dir):
        found.append(out_dir)
    return [f for i, f in enumerate(found) if f not in found[:i]]


def title(nb: Mapping[str, Any], default: str) -> str:
    """The notebook's first ``# `` heading, without its hashes (``default`` when it has none)."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in source_text(cell.get("source", "")).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return default


def claims(nb: Mapping[str, Any]) -> list[str]:
    """The sentences a notebook computed from its run: its ``text/markdown`` outputs, in order."""
    out = []
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []) or []:
            text = (output.get("data") or {}).get("text/markdown")
            if text:
                out.append(source_text(text).strip())
    return [c for c in out if c]


def markdown_cell(source: str) -> nbformat.NotebookNode:
    """A markdown cell for the book's own text (added to a prepared copy, never to a committed notebook)."""
    return nbformat.v4.new_markdown_cell(source)


def source_text(value: Any) -> str:
    """A notebook's multiline text (a cell's source, a stream's text, an output's data) as one string: nbformat
    stores it as a string or a list of lines."""
    return "".join(value) if isinstance(value, list) else str(value)


def _fold(cell: nbformat.NotebookNode, what: str) -> None:
    tags = list(cell.metadata.get("tags", []))
    if HIDE_TAG not in tags:
        tags.append(HIDE_TAG)
    cell.metadata["tags"] = tags
    cell.metadata["mystnb"] = {"code_prompt_show": f"Show {what}", "code_prompt_hide": f"Hide {what}"}


def echo(output: Mapping[str, Any]) -> bool:
    """Whether an output is a returned value echoed with no meaning for a reader: a plain-text result holding
    file paths or a run's folder, or a dict or list dump of more than ten lines (the run's files keep them).

    >>> echo({"output_type": "execute_result", "data": {"text/plain": "[PosixPath('figures/a.png')]"}})
    True
    >>> echo({"output_type": "execute_result", "data": {"text/plain": "(732, 43920)"}})
    False
    """
    data = output.get("data") or {}
    if output.get("output_type") != "execute_result" or set(data) != {"text/plain"}:
        return False
    shown = source_text(data["text/plain"])
    return bool(_PATH_ECHO.search(shown)) or (shown[:1] in "{[" and shown.count("\n") >= _DUMP_LINES)


def _clean_outputs(outputs: list, scrub: Scrubber) -> list:
    """Outputs with text scrubbed, no script-carrying type, no meaningless echo (:func:`echo`), and SVG replaced
    where nothing else shows (changed in place: they belong to the notebook's copy)."""
    kept = []
    for output in outputs:
        if echo(output):
            continue
        if "text" in output:
            output["text"] = scrub(source_text(output["text"]))
        if "traceback" in output:
            output["traceback"] = [scrub(line) for line in output["traceback"]]
        if "evalue" in output:
            output["evalue"] = scrub(str(output["evalue"]))
        data = output.get("data")
        if isinstance(data, dict):
            for mime in _DROPPED_MIME:
                data.pop(mime, None)
            if "image/svg+xml" in data:
                del data["image/svg+xml"]
                if not data:
                    data["text/plain"] = "(an SVG image: not shown in the book, open the notebook to see it)"
            for mime in list(data):
                if _TEXT_MIME.match(mime) and isinstance(data[mime], (str, list)):
                    data[mime] = scrub(source_text(data[mime]))
            if isinstance(data.get("text/html"), str):  # numbers on one line, long texts cut (whole on hover)
                data["text/html"] = _TD.sub(lambda m: table_cell(html.unescape(m.group(1))), data["text/html"])
            if not data:
                continue
        if isinstance(output.get("metadata"), dict):
            output["metadata"] = scrub.tree(output["metadata"])
        kept.append(output)
    return kept


def prepare(nb: Mapping[str, Any], scrub: Scrubber) -> nbformat.NotebookNode:
    """A copy of an executed notebook for the book: paths scrubbed, outputs made inert, answers folded.

    Args:
        nb: The executed notebook (as read by :func:`nbformat.read`, or its dict).
        scrub: The folders to rewrite (:meth:`Scrubber.for_build`).

    Returns:
        A new notebook (nbformat 4); ``nb`` is not changed.
    """
    out = nbformat.from_dict(dict(nb))  # a copy: every dict and list is rebuilt
    meta = {k: v for k, v in out.metadata.items() if k not in ("papermill", "widgets")}
    out.metadata = nbformat.from_dict(scrub.tree(meta))
    for cell in out.cells:
        cell.source = scrub(source_text(cell.source))
        kept = {k: v for k, v in cell.get("metadata", {}).items() if k in ("tags", "jupyter")}
        cell.metadata = nbformat.from_dict(scrub.tree(kept))
        if cell.cell_type != "code":
            continue
        cell.pop("attachments", None)
        cell.outputs = [nbformat.from_dict(o) for o in _clean_outputs(list(cell.get("outputs", [])), scrub)]
        tags = cell.metadata.get("tags", [])
        if ANSWER_TAG in tags:
            _fold(cell, "the answer")
        elif "parameters" in tags or INJECTED_TAG in tags:
            _fold(cell, "the parameters" if "parameters" in tags else "the parameters this run was given")
    return out
