"""Sphinx configuration of the course book. Build it with ``make book`` (``python -m mtrun.book``), which
writes the sources under ``book/_build/src/<edition>`` from a run and builds ``book/_build/html/student`` and
``book/_build/html/teacher``.

Nothing here fetches anything: no intersphinx, no MathJax (maths is MathML, rendered by
``mtrun.book_sphinx``), no widget or require.js loader from a CDN; MyST-NB never executes a notebook.
"""

project = "mtlib: metamorphic testing of NLP models"
author = "the mtlib authors"
copyright = "the mtlib authors, MIT licence"  # noqa: A001 (Sphinx's name)
html_title = "mtlib course book"

# sphinx_copybutton: a copy button on every code block (its own static JavaScript, nothing fetched); it leaves
# out the prompts and the output lines of a console block (">>> ", "... ", "$ ")
extensions = ["myst_nb", "mtrun.book_sphinx", "sphinx_copybutton"]
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_exclude = ".linenos, .gp, .go"

# MyST-NB: show the run's outputs as they are; never run a kernel
nb_execution_mode = "off"
nb_output_stderr = "remove"  # progress bars; warnings are in the executed notebooks
nb_merge_streams = True
nb_ipywidgets_js = {}  # no require.js / widget manager from a CDN
nb_render_markdown_format = "commonmark"  # text/markdown outputs: no MyST directive from data
nb_mime_priority_overrides = [
    ("html", "application/javascript", None),
    ("html", "text/javascript", None),
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("html", "image/svg+xml", None),
]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True  # a displayed $$...$$ inside a paragraph (the notebooks write them so)
smartquotes = False  # a value from a run is shown as it is ("Pos", not “Pos”)
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type"]

# maths as MathML at build time (mtrun.book_sphinx), no MathJax
html_math_renderer = "mathml"

html_theme = "sphinx_book_theme"
html_theme_options = {
    "use_download_button": False,
    "use_fullscreen_button": False,
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
html_static_path = ["_static"]
html_css_files = ["book.css"]
html_copy_source = False  # the sources are generated; students get the notebooks from the repository
html_show_sourcelink = False
html_last_updated_fmt = None
exclude_patterns = ["**.ipynb_checkpoints", "files/**"]  # files/: downloads (the notebooks as .ipynb), not pages

# the printed book (python -m mtrun.book, when latexmk and XeLaTeX are installed): the student edition as one
# PDF. XeLaTeX reads the notebooks' Unicode (ρ, →, ✓) with the system's OpenType fonts; no package is fetched.
latex_engine = "xelatex"
latex_documents = [("index", "mtlib-course-book.tex", html_title, author, "manual")]
# tables in a smaller type, no column narrower than a number (tabulary would break "0.1620" over two lines)
_PRINT_TABLES = r"\usepackage{etoolbox}\AtBeginEnvironment{tabulary}{\footnotesize}\setlength{\tymin}{3.3em}"
latex_elements = {"papersize": "a4paper", "pointsize": "10pt", "printindex": "", "preamble": _PRINT_TABLES}
latex_show_urls = "no"
