"""Notebook files as JupyterLab saves them: the ``mtlib`` kernel, canonical metadata, no outputs.

Intuition: a committed notebook should be byte for byte what JupyterLab would
save after a user opens it and its kernel connects, minus anything a run
leaves behind. When the kernel connects, Lab sets ``metadata.kernelspec``
(name, display name, language of the kernel) and ``metadata.language_info``
(the kernel's ``kernel_info`` reply) and marks the notebook edited whenever
either differs from the file, so its autosave then rewrites tracked files.
Lab saves through the Jupyter server, i.e. ``nbformat.write`` (one-space
indent, sorted keys, a final newline). So the canonical form of a notebook is

- ``kernelspec`` = :data:`KERNELSPEC` (the ``mtlib`` kernel, "Python (mtlib)");
- ``language_info`` = :data:`LANGUAGE_INFO`, the full dict ipykernel reports for
  the project's reference Python (:data:`REFERENCE_PYTHON`; a kernel on another
  patch release differs in that one field);
- no outputs and no execution counts; cell metadata limited to authoring keys
  (:data:`CELL_METADATA_KEPT`); no papermill ``injected-parameters`` cell; every
  cell with a unique id; nbformat 4.5;
- serialised exactly as ``nbformat.write`` does;
- for a notebook of an mtlib experiment, the ``parameters`` cell generated from
  the experiment's spec (:meth:`mtlib.experiments.spec.Spec.cell`): the spec is
  the one declaration, the cell its copy.

:func:`normalise` produces that form (idempotent), :func:`problems` lists what
differs. Command line (the pre-commit hook in ``.githooks/`` calls ``--check``)::

    python -m mtrun.notebooks --check notebooks/*.ipynb   # exit 1 and the problems found
    python -m mtrun.notebooks --fix notebooks/*.ipynb     # rewrite in canonical form
    python -m mtrun.notebooks --docs notebooks/PARAMETERS.md   # the parameter tables of every spec

The runner executes notebooks with a kernel named ``mtlib`` that runs its own
interpreter (:func:`write_kernelspec`), so papermill needs nothing registered;
``make install`` / ``make lab`` register the same name for JupyterLab.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import nbformat

from mtlib.experiments.catalog import spec_for, specs

__all__ = [
    "PARAMETERS_DOC",
    "CELL_METADATA_KEPT",
    "INJECTED_TAG",
    "KERNEL_DISPLAY_NAME",
    "KERNEL_NAME",
    "NOTEBOOK_METADATA_KEPT",
    "REFERENCE_PYTHON",
    "canonical_metadata",
    "canonical_text",
    "fix",
    "main",
    "normalise",
    "parameters_markdown",
    "problems",
    "write_kernelspec",
]

#: The documentation table of every experiment's parameters, generated from the specs.
PARAMETERS_DOC = "PARAMETERS.md"
KERNEL_NAME = "mtlib"
KERNEL_DISPLAY_NAME = "Python (mtlib)"
#: What JupyterLab writes into ``metadata.kernelspec`` once the ``mtlib`` kernel connects.
KERNELSPEC: dict[str, str] = {"display_name": KERNEL_DISPLAY_NAME, "language": "python", "name": KERNEL_NAME}
#: The Python of the reference environment (``environment.yml``, CI, the shared venv).
REFERENCE_PYTHON = "3.11.7"
#: ipykernel's ``language_info`` for that Python, as Lab stores it.
LANGUAGE_INFO: dict[str, Any] = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": REFERENCE_PYTHON,
}
#: Notebook-level metadata kept besides kernelspec and language_info (authoring, not run state).
NOTEBOOK_METADATA_KEPT = ("authors", "title")
#: Cell metadata an author sets on purpose; everything else (execution times, ``collapsed``,
#: ``scrolled``, papermill's records) is run state and is dropped.
CELL_METADATA_KEPT = ("deletable", "editable", "jupyter", "slideshow", "tags")
#: Tag of the cell papermill inserts with a run's parameters.
INJECTED_TAG = "injected-parameters"


def canonical_metadata() -> dict[str, Any]:
    """A fresh copy of the notebook-level metadata every notebook stores."""
    return {"kernelspec": dict(KERNELSPEC), "language_info": copy.deepcopy(LANGUAGE_INFO)}


def normalise(nb: nbformat.NotebookNode, stem: str = "") -> nbformat.NotebookNode:
    """The canonical form of a notebook (a new object; ``nb`` is left as it is).

    Clears outputs and execution counts, drops run-state metadata and any
    ``injected-parameters`` cell, gives every cell a unique id, writes the
    canonical notebook-level metadata and, when an experiment's spec declares the
    notebook ``stem``, its ``parameters`` cell. Applying it twice changes nothing.
    """
    nb = nbformat.convert(copy.deepcopy(nb), 4)
    spec = spec_for(stem, missing_ok=True) if stem else None
    nb.nbformat, nb.nbformat_minor = 4, max(5, int(nb.get("nbformat_minor", 0)))
    kept = {k: v for k, v in nb.metadata.items() if k in NOTEBOOK_METADATA_KEPT}
    nb.metadata = nbformat.from_dict({**kept, **canonical_metadata()})
    cells: list[Any] = []
    seen: set[str] = set()
    for cell in nb.cells:
        meta = cell.get("metadata", {})
        if INJECTED_TAG in meta.get("tags", []):
            continue
        cell.metadata = nbformat.from_dict({k: v for k, v in meta.items() if k in CELL_METADATA_KEPT})
        if spec is not None and "parameters" in meta.get("tags", []):
            cell.source = spec.cell()
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        else:
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
        cell_id = cell.get("id")
        if not cell_id or cell_id in seen:
            n = len(cells)
            while f"cell-{n:02d}" in seen:
                n += 1
            cell_id = f"cell-{n:02d}"
        cell.id = cell_id
        seen.add(cell_id)
        cells.append(cell)
    nb.cells = cells
    return nb


def canonical_text(nb: nbformat.NotebookNode) -> str:
    """Serialise exactly as ``nbformat.write`` (and so the Jupyter server) does."""
    text = nbformat.writes(nb, version=nbformat.NO_CONVERT)
    return text if text.endswith("\n") else text + "\n"


def problems(text: str, name: str = "<notebook>") -> list[str]:
    """What keeps ``text`` (a notebook file's content) from being canonical; empty when it is.

    Args:
        text: The file's content.
        name: File name used in the messages.
    """
    try:
        nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    except Exception as err:  # nbformat raises several types for unreadable JSON
        return [f"{name}: not a readable notebook ({err})"]
    fixed = normalise(nb, Path(name).stem)
    if canonical_text(fixed) == text:
        return []
    found = []
    spec = spec_for(Path(name).stem, missing_ok=True)
    for cell in nb.get("cells", []):
        if spec is not None and "parameters" in cell.get("metadata", {}).get("tags", []) and cell.source != spec.cell():
            found.append(
                f"{name}: the parameters cell differs from {spec.__module__}.Spec, the one declaration "
                "(the fix writes the spec's cell)"
            )
    if nb.get("nbformat") != 4 or nb.get("nbformat_minor", 0) < 5:
        found.append(f"{name}: nbformat {nb.get('nbformat')}.{nb.get('nbformat_minor')}, expected 4.5")
    meta = dict(nb.get("metadata", {}))
    if meta.get("kernelspec") != KERNELSPEC:
        found.append(
            f"{name}: metadata.kernelspec is {json.dumps(meta.get('kernelspec'))}, expected {json.dumps(KERNELSPEC)}"
        )
    if meta.get("language_info") != LANGUAGE_INFO:
        found.append(
            f"{name}: metadata.language_info differs from what the mtlib kernel reports "
            f"({json.dumps(meta.get('language_info'))})"
        )
    extra = sorted(set(meta) - {"kernelspec", "language_info", *NOTEBOOK_METADATA_KEPT})
    if extra:
        found.append(f"{name}: volatile notebook metadata {', '.join(extra)}")
    for i, cell in enumerate(nb.get("cells", [])):
        where = f"{name}: cell {i} ({cell.get('id', 'no id')})"
        if INJECTED_TAG in cell.get("metadata", {}).get("tags", []):
            found.append(f"{where}: papermill's injected-parameters cell")
        if cell.get("outputs"):
            found.append(f"{where}: has {len(cell['outputs'])} output(s)")
        if cell.get("execution_count") is not None:
            found.append(f"{where}: execution_count {cell['execution_count']}")
        extra = sorted(set(cell.get("metadata", {})) - set(CELL_METADATA_KEPT))
        if extra:
            found.append(f"{where}: volatile cell metadata {', '.join(extra)}")
    ids = [c.get("id") for c in nb.get("cells", [])]
    if None in ids or len(set(ids)) != len(ids):
        found.append(f"{name}: cell ids missing or repeated")
    if not found:
        found.append(f"{name}: not serialised as nbformat writes it (indent, key order or final newline)")
    return found


def fix(path: str | Path) -> bool:
    """Rewrite one notebook file in canonical form; True when its content changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    fixed = canonical_text(normalise(nbformat.reads(text, as_version=nbformat.NO_CONVERT), path.stem))
    if fixed == text:
        return False
    path.write_text(fixed, encoding="utf-8")
    return True


def parameters_markdown() -> str:
    """The documentation of every experiment's parameters: one table per notebook, from its spec."""
    parts = [
        "# Notebook parameters",
        "",
        "Generated from each experiment's spec (`mtlib/experiments/<package>/spec.py`), the one place a",
        "parameter is declared: `python -m mtrun.notebooks --docs notebooks/PARAMETERS.md` rewrites this",
        "file and a test checks it is current. A profile may set any parameter but `profile` and `out_dir`,",
        "which the runner sets. Rules: `mtlib/utils/rules.py`.",
    ]
    for stem, spec in specs().items():
        doc = (spec.__doc__ or "").strip().splitlines()[0]
        parts += ["", f"## {stem}", "", doc, "", spec.markdown()]
    return "\n".join(parts) + "\n"


def write_kernelspec(folder: str | Path, python: str | None = None) -> Path:
    """Write a kernelspec named ``mtlib`` that runs ``python`` (default: this interpreter).

    Put ``folder`` first on ``JUPYTER_PATH`` and ``papermill -k mtlib`` (or any
    Jupyter client) finds it, so a run needs no registered kernel and always
    uses the interpreter that runs it.

    Returns:
        The kernelspec folder ``<folder>/kernels/mtlib``.
    """
    spec_dir = Path(folder) / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [python or sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": KERNEL_DISPLAY_NAME,
        "language": "python",
        "metadata": {"debugger": True},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n")
    return spec_dir


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m mtrun.notebooks",
        description="Check or fix notebooks: mtlib kernel, canonical metadata, no outputs, nbformat serialisation.",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--fix", action="store_true", help="rewrite the notebooks in canonical form")
    mode.add_argument("--check", action="store_true", help="report problems, exit 1 if any (the default)")
    parser.add_argument("--name", default="<stdin>", help="file name shown for '-' (standard input)")
    parser.add_argument("--docs", metavar="PATH", help=f"write every spec's parameter table to PATH ({PARAMETERS_DOC})")
    parser.add_argument("paths", nargs="*", help="notebook files; '-' reads one from standard input (check only)")
    args = parser.parse_args(argv)
    status = 0
    if args.docs:
        Path(args.docs).write_text(parameters_markdown(), encoding="utf-8")
        print(f"wrote {args.docs}")
    for p in args.paths:
        if p == "-":
            if args.fix:
                parser.error("--fix needs file paths, not '-'")
            found = problems(sys.stdin.read(), args.name)
        elif args.fix:
            if fix(p):
                print(f"fixed {p}")
            continue
        else:
            found = problems(Path(p).read_text(encoding="utf-8"), p)
        for line in found:
            print(line, file=sys.stderr)
        status |= bool(found)
    if status:
        print("fix with: python -m mtrun.notebooks --fix <notebook> ...", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
