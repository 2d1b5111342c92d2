"""Executed notebooks as one self-contained HTML file that renders anywhere, offline.

``jupyter nbconvert --to html`` leaves maths as ``$...$`` for MathJax and
loads MathJax, require.js, mermaid and the widget manager from CDNs, so a
report opened without a network shows raw TeX. Here instead

- every formula in markdown (cells and ``text/markdown`` outputs; ``$...$``,
  ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``, ``\\begin{env}``) and every ``text/latex``
  output is converted to MathML by ``latex2mathml``; browsers render MathML
  natively, so no script is needed;
- the template drops every remote script, and widget state is removed (a
  widget output falls back to its text, e.g. a finished progress bar);
- images are embedded (figures as base64, markdown images too), and each
  figure carries the alt text :meth:`mtlib.run.results.Run.save_figure` gave it.

The runner writes ``<stem>.html`` beside each executed notebook; by hand::

    python -m mtrun.export papermill_runs/quick/04_montague_adjectives/04_montague_adjectives.ipynb
"""

from __future__ import annotations

import argparse
import copy
import html
import logging
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat

__all__ = [
    "CDN_HOSTS",
    "export_html",
    "latex_to_mathml",
    "main",
    "to_html",
]

log = logging.getLogger(__name__)

#: Hosts of the scripts nbconvert's templates would load; none may appear in an export.
CDN_HOSTS = ("cdnjs.cloudflare.com", "cdn.jsdelivr.net", "unpkg.com", "cdn.mathjax.org", "polyfill.io")

_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{#- mtlib: no remote script (maths is MathML, widgets are dropped) and alt text on figures -#}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block data_png scoped -%}
{%- set alt = output | get_metadata('alt', 'image/png') -%}
{%- set width = output | get_metadata('width', 'image/png') -%}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
{%- if alt %} alt="{{ alt | escape_html }}"{% endif %}
{%- if width %} width="{{ width | escape_html }}"{% endif %}>
</div>
{%- endblock data_png -%}
{%- block html_head_css -%}
{{ super() }}
<style>math[display="block"] { display: block; margin: 0.6em 0; } .mtlib-tex { color: #a00; }</style>
{%- endblock html_head_css -%}
"""


def latex_to_mathml(tex: str, display: bool = False) -> str:
    """One formula as MathML (``display=True`` for a displayed equation).

    A formula latex2mathml cannot parse is shown as its TeX source in a
    ``<code class="mtlib-tex">`` (never as ``$...$``) and logged.
    """
    from latex2mathml.converter import convert

    try:
        return convert(tex.strip(), display="block" if display else "inline")
    except Exception as err:  # latex2mathml raises a variety of parse errors
        log.warning("maths not converted to MathML (%s): %s", err, tex)
        return f'<code class="mtlib-tex">{html.escape(tex.strip())}</code>'


_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.S)
_LATEX_DELIMITED = re.compile(r"(?<!\\)\\\((.+?)(?<!\\)\\\)|(?<!\\)\\\[(.+?)(?<!\\)\\\]", re.S)


def _tex_delimiters(source: str) -> str:
    """``\\(...\\)`` and ``\\[...\\]`` as ``$...$`` and ``$$...$$`` outside code, as JupyterLab reads them.

    (Markdown would otherwise eat the backslash and leave ``(...)`` as text.)
    """

    def swap(m: re.Match) -> str:
        return f"${m.group(1)}$" if m.group(1) is not None else f"$${m.group(2)}$$"

    parts = _CODE.split(source)
    return "".join(p if i % 2 else _LATEX_DELIMITED.sub(swap, p) for i, p in enumerate(parts))


def _renderer_class():
    """nbconvert's markdown renderer with maths turned into MathML (built lazily: nbconvert is heavy)."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer

    class MathMLRenderer(IPythonRenderer):
        """Markdown to HTML with maths as MathML instead of MathJax delimiters."""

        def block_math(self, body: str) -> str:
            return latex_to_mathml(body, display=True)

        def inline_math(self, body: str) -> str:
            return latex_to_mathml(body)

        def latex_environment(self, name: str, body: str) -> str:
            return latex_to_mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)

        def multiline_math(self, text: str) -> str:  # older mistune only
            return latex_to_mathml(text.strip().strip("$"), display=True)

    return MathMLRenderer


_LATEX_OUTPUT = re.compile(r"^\s*(\$\$?)(.*?)\1\s*$|^\s*\\\[(.*?)\\\]\s*$", re.S)


def _prepare(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop widget state and views; turn ``text/latex`` outputs into MathML ``text/html``."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            data.pop("application/vnd.jupyter.widget-view+json", None)
            data.pop("application/vnd.jupyter.widget-state+json", None)
            if "text/latex" in data and "text/html" not in data:
                m = _LATEX_OUTPUT.match(data["text/latex"])
                tex = (m.group(2) or m.group(3) or "") if m else data["text/latex"]
                data["text/html"] = latex_to_mathml(tex, display=True)
    return nb


def _exporter():
    from jinja2 import DictLoader, pass_context
    from nbconvert import HTMLExporter

    renderer_class = _renderer_class()

    class OfflineHTMLExporter(HTMLExporter):
        """nbconvert's lab HTML with MathML maths and no remote script."""

        @pass_context
        def markdown2html(self, context: dict[str, Any], source: str) -> str:
            from nbconvert.filters.markdown_mistune import MarkdownWithMath

            cell = context.get("cell", {})
            path = context.get("resources", {}).get("metadata", {}).get("path", "")
            renderer = renderer_class(
                escape=False,
                attachments=cell.get("attachments", {}),
                embed_images=self.embed_images,
                path=path,
                anchor_link_text=self.anchor_link_text,
                exclude_anchor_links=self.exclude_anchor_links,
                **self.lexer_options,
            )
            return MarkdownWithMath(renderer=renderer).render(_tex_delimiters(source))

    return OfflineHTMLExporter(
        template_name="lab",
        template_file="mtlib_offline.html.j2",
        extra_loaders=[DictLoader({"mtlib_offline.html.j2": _TEMPLATE})],
        embed_images=True,
    )


def to_html(nb: nbformat.NotebookNode, path: str | Path | None = None) -> str:
    """The self-contained HTML of a notebook.

    Args:
        nb: The (executed) notebook.
        path: Its folder, for markdown images given by relative path.
    """
    resources = {"metadata": {"path": str(path or "."), "name": nb.metadata.get("title", "")}}
    body, _ = _exporter().from_notebook_node(_prepare(nb), resources=resources)
    return body


def export_html(notebook: str | Path, output: str | Path | None = None) -> Path:
    """Write the self-contained HTML of a notebook file (default: beside it, ``.html``).

    Returns:
        The HTML file written.
    """
    notebook = Path(notebook)
    output = Path(output) if output else notebook.with_suffix(".html")
    nb = nbformat.read(notebook, as_version=4)
    nb.metadata.setdefault("title", notebook.stem)
    text = to_html(nb, notebook.parent)
    tmp = output.with_name(f".tmp-{output.name}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(output)
    return output


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m mtrun.export",
        description="Export executed notebooks as self-contained HTML "
        "(maths as MathML, no CDN, figures with alt text).",
    )
    parser.add_argument("notebooks", nargs="+", help="executed notebook files")
    parser.add_argument("-o", "--output", default=None, help="output file (only with one notebook)")
    args = parser.parse_args(argv)
    if args.output and len(args.notebooks) > 1:
        parser.error("--output takes one notebook")
    for nb in args.notebooks:
        print(export_html(nb, args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
