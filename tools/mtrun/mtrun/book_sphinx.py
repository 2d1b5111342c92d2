"""The course book's Sphinx extension: maths as MathML, and no live HTML from data.

Intuition: the book (:mod:`mtrun.book`) renders executed notebooks whose
outputs come from data: a review, a model name, a table cell. Sphinx and
MyST-NB pass HTML through as ``raw`` nodes (``text/html`` outputs, raw HTML
inside markdown and ``text/markdown`` outputs), so every ``raw`` HTML node of
every page is cleaned here by the Ammonia sanitiser (``nh3``) against an allow
list before it is written: no ``<script>``, ``<style>``, ``<iframe>``, event
handler (``onerror=``) or ``javascript:`` URL survives. Formulas are rendered
as MathML at build time (the converter of :mod:`mtrun.export`), so no page
loads MathJax from a CDN and the site reads offline. The theme's own static
JavaScript is untouched.

For the PDF (Sphinx's LaTeX builder, :func:`mtrun.book.build_book`) the
same pages are printed: an answer cell, which a page folds, is left out (a
print cannot fold), and an HTML table (the paper's values beside ours) becomes
a table of its cells' text, since LaTeX drops raw HTML.

``book/conf.py`` lists this module as an extension and sets
``html_math_renderer = "mathml"``.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from docutils import nodes

from mtrun.book_pages import MATHS_LEFT
from mtrun.export import latex_to_mathml

__all__ = [
    "MATHS_LEFT",
    "MATH_RENDERER",
    "PRINT_ANSWER",
    "clean_html",
    "clean_mathml",
    "mathml",
    "setup",
    "table_from_html",
    "unrendered",
]

#: The name ``book/conf.py`` gives ``html_math_renderer``.
MATH_RENDERER = "mathml"

#: Tags a notebook output may keep: text, tables, lists, figures and disclosure widgets.
_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del", "details",
    "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins",
    "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong", "sub", "summary", "sup",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var",
}  # fmt: skip
#: Attributes kept on every tag (no ``style``: CSS from data could still leak or overlay the page).
_ATTRIBUTES = {
    "*": {"class", "title", "lang", "dir"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "ol": {"start"},
    "details": {"open"},
}
#: URL schemes a link may use (relative URLs are removed).
_SCHEMES = {"http", "https", "mailto"}
#: Elements removed with everything inside them (their text is no reading matter).
_DROP_WITH_CONTENT = {"script", "style", "iframe", "object", "embed", "template", "noscript", "svg", "math"}


def clean_html(fragment: str) -> str:
    """An HTML fragment from data or a notebook output, reduced to inert markup.

    Keeps text, tables, lists, links (``http``, ``https``, ``mailto``) and images; removes scripts, styles,
    frames, forms, event handlers, every other URL scheme and relative URLs (a path in data cannot point at
    a file of the book, and would be a broken link).

    >>> clean_html('<b onclick="x()">hi</b><script>alert(1)</script><a href="javascript:x()">a</a>')
    '<b>hi</b><a rel="noopener noreferrer">a</a>'
    >>> clean_html('<table class="dataframe"><tr><td>&lt;img&gt;</td></tr></table>')
    '<table class="dataframe"><tbody><tr><td>&lt;img&gt;</td></tr></tbody></table>'
    """
    import nh3

    return nh3.clean(
        fragment,
        tags=_TAGS,
        clean_content_tags=_DROP_WITH_CONTENT,
        attributes=_ATTRIBUTES,
        url_schemes=_SCHEMES,
        url_relative="deny",
        strip_comments=True,
        link_rel="noopener noreferrer",
    )


_MATHML_ATTR = re.compile(r"""\s(?:on[\w-]*|href|xlink:href|src|style)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]*)""", re.I)


def clean_mathml(markup: str) -> str:
    """MathML from a formula with no link, source or handler attribute (a formula in data cannot link anywhere).

    >>> clean_mathml('<math><mi href="javascript:x()" onclick="y()">x</mi></math>')
    '<math><mi>x</mi></math>'
    """
    return _MATHML_ATTR.sub("", markup)


#: What latex2mathml makes of a command it does not know (``\\arg``): an identifier holding the backslash.
_UNKNOWN_COMMAND = re.compile(r"<mi>\\([A-Za-z]+)</mi>")


def mathml(tex: str, display: bool = False) -> str:
    r"""A formula as clean MathML; a function name latex2mathml does not know (``\arg``) set upright.

    >>> m = mathml(r"\arg\max f(x)")
    >>> "\\arg" in m, '<mi mathvariant="normal">arg</mi>' in m
    (False, True)
    """
    converted = latex_to_mathml(tex, display=display)
    return clean_mathml(_UNKNOWN_COMMAND.sub(r'<mi mathvariant="normal">\1</mi><mspace width="0.167em"/>', converted))


def _visit_math(self: Any, node: nodes.math) -> None:
    self.body.append(f'<span class="math">{mathml(node.astext())}</span>')
    raise nodes.SkipNode


def _visit_math_block(self: Any, node: nodes.math_block) -> None:
    tag = "span" if isinstance(node.parent, nodes.TextElement) else "div"  # ``$$..$$`` inside a paragraph
    self.body.append(f'<{tag} class="math display">{mathml(node.astext(), display=True)}</{tag}>\n')
    raise nodes.SkipNode


#: Maths a reader would see as source: a ``$$``, a ``$...$`` pair or a LaTeX command left in a page's text.
UNRENDERED = re.compile(r"\$\$|\$[^\s$][^$]*\$|\\[A-Za-z]{2,}")
#: The start of the warning :func:`_check_maths` gives (:mod:`mtrun.book` fails the build on it).
_CODE = (nodes.FixedTextElement, nodes.literal, nodes.math, nodes.raw, nodes.comment)


def unrendered(doctree: nodes.Node) -> list[str]:
    r"""The text of a page (outside code, maths and raw HTML) that still holds maths source.

    >>> page = nodes.section("", nodes.paragraph("", r"Broken: $P: \mathbf{x}$, 5 $."), nodes.literal_block("", "$x$"))
    >>> unrendered(page)
    ['$P: \\mathbf{x}$']
    """
    if isinstance(doctree, _CODE):
        return []
    if isinstance(doctree, nodes.Text):
        return UNRENDERED.findall(doctree.astext())
    return [found for child in doctree.children for found in unrendered(child)]


def _check_maths(app: Any, doctree: nodes.document, docname: str) -> None:
    from sphinx.util import logging

    if left := unrendered(doctree):
        shown = "; ".join(dict.fromkeys(s[:60] for s in left))
        logging.getLogger(__name__).warning(f"{MATHS_LEFT} in {docname}: {shown}", location=docname)


def _clean_raw(app: Any, doctree: nodes.document, docname: str) -> None:
    """Replace every raw HTML node of a resolved page by its cleaned HTML; drop raw nodes of other formats."""
    for node in list(doctree.findall(nodes.raw)):
        formats = str(node.get("format", "")).split()
        if "html" not in formats:
            node.parent.remove(node)
            continue
        cleaned = clean_html(node.astext())
        node.replace_self(nodes.raw(cleaned, cleaned, format="html"))


#: What the printed book says where a page folds an exercise's answer (the cell tagged ``answer``).
PRINT_ANSWER = "The answer is not printed: it is folded in the HTML book and in the notebook."


class _Rows(HTMLParser):
    """The rows of an HTML table as the text each cell shows (a long text cut as on the page: whole in the CSV)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._text: str | None = None  # the open cell's text; None outside a cell

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th") and self.rows:
            self._text = ""

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._text is not None:
            self.rows[-1].append(self._text.strip())
            self._text = None


def table_from_html(markup: str) -> nodes.table | None:
    """A docutils table of the first row's width from an HTML table (None when ``markup`` holds no table row).

    >>> table = table_from_html("<table><tr><th>k</th><th>v</th></tr><tr><td title='a long text'>a lo…</td>"
    ...                         "<td>0.5</td></tr></table>")
    >>> [entry.astext() for entry in table.findall(nodes.entry)]
    ['k', 'v', 'a lo…', '0.5']
    """
    parser = _Rows()
    parser.feed(markup)
    rows = [r for r in parser.rows if r]
    if not rows:
        return None
    width = len(rows[0])
    group = nodes.tgroup(cols=width)
    group += [nodes.colspec(colwidth=1) for _ in range(width)]
    for part, chunk in ((nodes.thead(), rows[:1]), (nodes.tbody(), rows[1:])):
        for cells in chunk:
            row = nodes.row()
            row += [nodes.entry("", nodes.paragraph("", c)) for c in (cells + [""] * width)[:width]]
            part += row
        group += part
    return nodes.table("", group)


def _print(app: Any, doctree: nodes.document, docname: str) -> None:
    """A page for print (a builder other than HTML): answers left out, HTML tables as tables."""
    if app.builder.format == "html":
        return
    for cell in list(doctree.findall(lambda n: isinstance(n, nodes.container) and "tag_answer" in n["classes"])):
        cell.replace_self(nodes.paragraph("", "", nodes.emphasis("", PRINT_ANSWER)))
    for node in list(doctree.findall(nodes.raw)):
        if "html" in str(node.get("format", "")).split() and (table := table_from_html(node.astext())):
            node.replace_self(table)


def setup(app: Any) -> dict[str, Any]:
    """Register the MathML renderer, the raw-HTML cleaner and the print pages (Sphinx's extension entry point)."""
    app.add_html_math_renderer(MATH_RENDERER, (_visit_math, None), (_visit_math_block, None))
    app.connect("doctree-resolved", _print)
    app.connect("doctree-resolved", _clean_raw)
    app.connect("doctree-resolved", _check_maths)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
