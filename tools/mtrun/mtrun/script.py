"""A notebook run as a plain Python script: the same cells, no Jupyter, kernel or papermill.

Intuition: a notebook's method is its code cells, run in order in one namespace.
That needs only Python: a GPU machine with torch but no Jupyter runs a notebook
with a profile's values exactly as papermill would. The parameters cell runs
first, then the profile's values are assigned after it (where papermill injects
them), then every other code cell. As in a kernel, a cell whose last statement
is a bare expression shows that value (unless the cell ends with ``;``), and
``display`` shows objects: text for tables, a Markdown object's source.
Markdown cells are skipped. Figures are saved by the notebook's own ``run.save_figure`` as in a
papermill run (matplotlib draws without a display where there is none); ``metrics.json`` is written
the same way.

Where IPython is missing, a small ``IPython.display`` stand-in (``display``,
``Markdown``, ``HTML``) is registered, so ``from IPython.display import Markdown,
display`` in a notebook works on such a machine too.

Command line (from the project root)::

    python -m mtrun.script notebooks/03_cogalex_transitivity.ipynb --profile smoke -p n_boot=50

Without ``--profile`` the parameters cell's own values are used (``-p`` still overrides one).
``--parameters FILE`` (a YAML mapping) passes the values as they are instead (the runner's
``--as-script`` uses it). Exit code 0 when every cell ran, 1 when a cell raised (its traceback names
the notebook and the cell), 2 for a bad command line or parameters.

Example:
    >>> cells = ["x: int = 1  # a parameter", "y = x * 10\\ny + 1"]
    >>> ns = run_cells(cells, {"x": 4}, parameters_cell=0, show=lambda v: print("shown:", v))
    shown: 41
    >>> ns["y"]
    40
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mtlib.utils.paths import project_root
from mtrun import profiles
from mtrun.yamlfile import read_yaml

__all__ = ["code_cells", "display", "main", "run_cells", "run_notebook"]


def code_cells(notebook: str | Path) -> tuple[list[str], int | None]:
    """The code cells' sources of a notebook, and the index of its ``parameters``-tagged cell.

    Read as JSON (no nbformat needed). Returns ``(sources, index)``; ``index`` is ``None`` when no cell
    carries the ``parameters`` tag.
    """
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    sources: list[str] = []
    index: int | None = None
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        if "parameters" in (cell.get("metadata", {}).get("tags") or []) and index is None:
            index = len(sources)
        src = cell.get("source", "")
        sources.append("".join(src) if isinstance(src, list) else str(src))
    return sources, index


def display(*objs: Any, **_: Any) -> None:
    """Show objects as text, as a script can: a Markdown object's source, a table's text, else ``str``."""
    for obj in objs:
        if obj is None:
            continue
        md = getattr(obj, "_repr_markdown_", None)
        text = md() if callable(md) else getattr(obj, "data", None) if _is_rich(obj) else None
        print(text if isinstance(text, str) else (obj.to_string() if hasattr(obj, "to_string") else str(obj)))


def _is_rich(obj: Any) -> bool:
    return type(obj).__name__ in {"Markdown", "HTML", "Latex"}


def run_cells(
    cells: Sequence[str],
    parameters: Mapping[str, Any],
    *,
    parameters_cell: int | None,
    name: str = "<notebook>",
    show: Callable[[Any], None] = display,
) -> dict[str, Any]:
    """Run code cells in one namespace, the parameters assigned right after the parameters cell.

    Args:
        cells: The code cells' sources, in order.
        parameters: Values assigned after ``cells[parameters_cell]`` (before the first cell when it is ``None``).
        parameters_cell: Index of the parameters cell.
        name: Used in tracebacks, with the cell's number (``name:cell 3``).
        show: What a cell's last bare expression is handed to.

    Returns:
        The namespace after the last cell.
    """
    ns: dict[str, Any] = {"__name__": "__main__", "display": display}
    injected = "\n".join(f"{k} = {v!r}" for k, v in parameters.items())
    order: list[tuple[str, str]] = []
    if parameters_cell is None:
        order.append(("parameters", injected))
    for i, src in enumerate(cells):
        order.append((f"cell {i + 1}", src))
        if i == parameters_cell:
            order.append(("injected parameters", injected))
    for label, src in order:
        _run_one(src, ns, f"{name}:{label}", show)
    return ns


def _run_one(src: str, ns: dict[str, Any], filename: str, show: Callable[[Any], None]) -> None:
    tree = ast.parse(src, filename=filename)
    last = tree.body[-1] if tree.body else None
    quiet = src.rstrip().endswith(";")
    if isinstance(last, ast.Expr):
        tree.body.pop()
    exec(compile(tree, filename, "exec"), ns)  # noqa: S102 - the notebook's own cells
    if isinstance(last, ast.Expr):
        value = eval(compile(ast.Expression(last.value), filename, "eval"), ns)  # noqa: S307
        if value is not None and not quiet:
            show(value)


def _ipython_display_stand_in() -> None:
    """Register ``IPython.display`` (display, Markdown, HTML) where IPython is not installed."""
    try:
        import IPython.display as ipd
    except ImportError:
        mod = types.ModuleType("IPython.display")

        class _Rich:
            def __init__(self, data: str = "") -> None:
                self.data = data

        mod.Markdown = type("Markdown", (_Rich,), {})  # type: ignore[attr-defined]
        mod.HTML = type("HTML", (_Rich,), {})  # type: ignore[attr-defined]
        mod.display = display  # type: ignore[attr-defined]
        pkg = types.ModuleType("IPython")
        pkg.display = mod  # type: ignore[attr-defined]
        sys.modules.setdefault("IPython", pkg)
        sys.modules["IPython.display"] = mod
        return
    ipd.display = display  # outside a kernel IPython's own display prints reprs, not a Markdown's text


def run_notebook(notebook: str | Path, parameters: Mapping[str, Any], *, quiet: bool = False) -> dict[str, Any]:
    """Run one notebook as a script in this process (see the module docstring); returns its namespace."""
    _ipython_display_stand_in()
    cells, index = code_cells(notebook)
    show: Callable[[Any], None] = (lambda v: None) if quiet else display
    return run_cells(cells, parameters, parameters_cell=index, name=Path(notebook).name, show=show)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mtrun.script NOTEBOOK [--profile P] [-p key=value] [--parameters FILE] [--quiet]``."""
    parser = argparse.ArgumentParser(
        prog="python -m mtrun.script", description="Run a notebook as a plain Python script (no Jupyter)."
    )
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--profile", help="a profile name or YAML path (default: the parameters cell's values)")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE", help="override one")
    parser.add_argument("--parameters", type=Path, help="a YAML mapping of the values, passed as they are")
    parser.add_argument("--device", help="the torch device (default: the profile's, else auto)")
    parser.add_argument("--quiet", action="store_true", help="do not print the cells' shown values")
    parser.add_argument("--out-dir", help="where figures/ and papermill_runs/ go (default: the project folder)")
    parser.add_argument("--cwd", type=Path, help="working directory of the cells (default: the notebook's folder)")
    args = parser.parse_args(argv)
    nb = args.notebook.resolve()
    if not nb.is_file():
        print(f"mtrun.script: no notebook {nb}", file=sys.stderr)
        return 2
    if args.parameters:
        values, _ = read_yaml(args.parameters)
        if not isinstance(values, dict):
            print(f"mtrun.script: {args.parameters}: expected a mapping of parameters", file=sys.stderr)
            return 2
    else:
        # no profile: the parameters cell's values; -p KEY=VALUE applies to this notebook alone (its stem)
        # a copy of a notebook outside notebooks/ (a researcher's variant) takes the project's profiles
        profiles_dir = nb.parent if (nb.parent / "profiles").is_dir() else project_root() / "notebooks"
        data = profiles.load_profile(profiles_dir, args.profile) if args.profile else {}
        data = profiles.apply_overrides(data, [f"{nb.stem}.{p}" for p in args.param])
        name = profiles.profile_name(args.profile) if args.profile else "quick"
        raw = profiles.notebook_parameters(nb, data, name, args.device, Path(""))
        raw.pop("out_dir", None)  # the notebook's default (the project folder) unless --out-dir says
        if args.out_dir:
            raw["out_dir"] = str(Path(args.out_dir).resolve())
        if not args.profile:
            raw.pop("profile", None)
        values, problems = profiles.check_parameters(nb, data, raw)
        if problems:
            print("mtrun.script: refused parameters:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 2
    os.chdir(args.cwd or nb.parent)  # where papermill runs a notebook's kernel
    run_notebook(nb, values, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
