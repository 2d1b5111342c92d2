"""Notebook parameters: where their declarations come from, and one check before any work.

Intuition: a researcher's typo (``n_boot: 0``, ``vocabulary_split: bogus``,
``models: []``) should cost one clear message before anything runs, never a
silently wrong number or a traceback from deep inside a cell. So every
notebook's parameters are checked in one place, by one mechanism:

- a notebook of an mtlib experiment has a **spec** (:mod:`mtlib.experiments.spec`):
  one frozen dataclass declaring each parameter's type, default, rule and doc;
  its ``parameters`` cell is generated from it. :func:`declared` reads the spec
  and :func:`check` builds it (types, the rules of :mod:`mtlib.utils.rules`,
  then the experiment's own checks, e.g. training settings);
- any other notebook (a user's own) declares its parameters in its cell:
  ``name: type = literal  # doc | rule``, the type from the annotation and the
  optional rule after `` | `` in the comment.

The runner (``python -m mtrun``) checks each notebook's values before
papermill starts it (a notebook with a bad value is not run and is reported
failed with the message; the others run): an early error. A notebook opens its
run with its spec (``Spec.from_notebook(globals())``), which checks the values
the kernel received, always (the check is cheap and idempotent; no environment
flag skips it), whoever started the notebook.

A string where a list is expected (``-p 01.models=minilm``) is wrapped into a
one-element list by the runner, with a note, because the runner decides what it
injects; in JupyterLab the notebook's own variable cannot be changed, so it is
refused with a message saying how to write the list. Anything that can only be
checked with the model loaded (``layer`` against the model's depth) is checked
where the model is used, naming the parameter.
"""

from __future__ import annotations

import ast
import difflib
import functools
import io
import json
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtlib.experiments.catalog import spec_for
from mtlib.experiments.spec import CHECKED_ENV as CHECKED_ENV
from mtlib.experiments.spec import Spec
from mtlib.utils.paths import project_root
from mtlib.utils.rules import TYPES as TYPES
from mtlib.utils.rules import ParameterError, Rule, RuleError, compile_rule, type_problem
from mtlib.utils.rules import parse_clause as parse_clause

# An import "as" itself is a re-export: other modules import that name from here (it is not on the face).
__all__ = ["check_run"]


class ConfigError(ValueError):
    """A malformed profile, rules file or parameters cell; the message names the file and line."""


# -- declared parameters ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Declared:
    """One declared parameter of a notebook.

    Attributes:
        name: The variable.
        type: Its annotation (``"int"``, ``"list"``, ...; ``""`` when not a plain name).
        default: The literal it is set to.
        line: Its line within the parameters cell (1-based; 0 when declared by a spec).
        rule: Its rule string (may be empty).
        doc: Its one-line description.
        source: Where it is declared, named in messages (``"sentiment.Spec.n_boot"`` or
            ``"01_a.ipynb parameters cell, line 3"``).
    """

    name: str
    type: str
    default: Any
    line: int = 0
    rule: str = ""
    doc: str = ""
    source: str = ""


def spec_of(notebook: str | Path) -> type[Spec] | None:
    """The spec of a notebook (by its file stem), or ``None`` for a notebook no experiment declares."""
    return spec_for(Path(notebook).stem, missing_ok=True)


def declared(notebook: str | Path) -> dict[str, Declared]:
    """The parameters a notebook declares: from its experiment's spec, else from its ``parameters`` cell.

    Raises:
        ConfigError: a notebook without a spec that has no parameters cell, or a line that is not
            ``name: type = literal``.
    """
    spec = spec_of(notebook)
    if spec is not None:
        return {
            p.name: Declared(p.name, p.type, p.default, 0, p.rule, p.doc, f"{spec.__module__}.{p.owner}")
            for p in spec.parameters()
        }
    notebook = Path(notebook)
    return dict(_declared(str(notebook.resolve()), notebook.stat().st_mtime_ns))


@functools.lru_cache(maxsize=64)
def _declared(path: str, mtime_ns: int) -> dict[str, Declared]:
    notebook = Path(path)
    source = parameters_source(notebook)
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise ConfigError(f"{notebook}: parameters cell line {err.lineno}: {err.msg}") from None
    comments = {
        tok.start[0]: tok.string[1:].strip()
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    }
    out = {}
    for node in tree.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue  # papermill ignores anything else too
        type_name = node.annotation.id if isinstance(node.annotation, ast.Name) else ""
        try:
            default = ast.literal_eval(node.value) if node.value is not None else None
        except ValueError:
            default = None
        doc, _, rule = comments.get(node.end_lineno or node.lineno, "").partition(" | ")
        out[node.target.id] = Declared(
            node.target.id,
            type_name,
            default,
            node.lineno,
            rule.strip(),
            doc.strip(),
            f"{notebook.name} parameters cell, line {node.lineno}",
        )
    return out


def parameters_source(notebook: Path) -> str:
    """The source of a notebook's first cell tagged ``parameters``, read from the ``.ipynb`` JSON (format 4).

    Raises:
        ConfigError: not a JSON notebook of format 4, or no cell tagged ``parameters``.
    """
    try:
        nb = json.loads(notebook.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ConfigError(f"{notebook}: not a readable notebook file ({err})") from None
    if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        got = nb.get("nbformat") if isinstance(nb, dict) else type(nb).__name__
        raise ConfigError(f"{notebook}: expected a Jupyter notebook of format 4, got nbformat {got!r}")
    for cell in nb["cells"]:
        meta = cell.get("metadata") if isinstance(cell, dict) else None
        if isinstance(meta, dict) and "parameters" in (meta.get("tags") or []):
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else str(source)
    raise ConfigError(f"{notebook}: no cell tagged 'parameters'")


# -- the check ----------------------------------------------------------------------------------------------------
def check(
    notebook: str | Path,
    values: Mapping[str, Any],
    *,
    wrap_strings: bool = False,
    strict_names: bool = True,
    parameters: Mapping[str, Declared] | None = None,
) -> tuple[dict[str, Any], list[str], list[str]]:
    """Check a notebook's parameter values against their declarations (spec or cell).

    Types first, then each parameter's rule, then (a notebook with a spec) the
    experiment's own checks on the whole spec (:meth:`mtlib.experiments.spec.Spec.validate`).

    Args:
        notebook: The notebook file.
        values: The values to check (any subset of the declared parameters).
        wrap_strings: Wrap a string given for a ``list`` parameter into a
            one-element list (with a note) instead of refusing it.
        strict_names: A name the notebook does not declare is a problem
            (with the closest declared name suggested).
        parameters: Preloaded :func:`declared` output.

    Returns:
        ``(values, problems, notes)``: the values (strings wrapped when asked),
        one message per problem naming the parameter, the value and what is
        expected (and where the rule is declared), and notes on what was changed.
    """
    notebook = Path(notebook)
    decl = parameters if parameters is not None else declared(notebook)
    out, problems, notes = dict(values), [], []
    for name, value in values.items():
        if name not in decl:
            if strict_names:
                close = difflib.get_close_matches(name, list(decl), n=1)
                problems.append(
                    f"{name}: {notebook.name} has no such parameter"
                    + (f"; did you mean {close[0]}?" if close else f"; it has {', '.join(decl)}")
                )
            continue
        type_name = decl[name].type
        if type_name == "list" and isinstance(value, str) and wrap_strings:
            out[name] = value = [value]
            notes.append(f"{name}: the string {value[0]!r} was wrapped into the list {value!r}")
        found = type_problem(name, value, type_name)
        if found:
            problems.append(found)
    spec = spec_of(notebook)
    if spec is not None:  # one check: the spec's own (types, rules, then its validate), into its typed form
        if not problems:
            try:
                spec.from_values({k: v for k, v in out.items() if k in decl})
            except ParameterError as err:
                problems += err.problems
        return out, problems, notes
    typed = {k: v for k, v in out.items() if k in decl and not type_problem(k, v, decl[k].type)}
    context = {**{k: d.default for k, d in decl.items()}, **typed}
    for name, d in decl.items():
        if name not in typed or not d.rule:
            continue
        try:
            rule = _compiled(d.rule, d.source)
        except RuleError as err:
            problems.append(str(err))
            continue
        for where, got, what in rule.problems(typed[name], context):
            problems.append(f"{name}{where} = {got!r}: expected {what} (rule {rule.text!r} of {rule.source})")
    return out, problems, notes


@functools.lru_cache(maxsize=512)
def _compiled(text: str, source: str) -> Rule:
    return compile_rule(text, source)


def notebook_file(stem: str, root: str | Path | None = None) -> Path | None:
    """``notebooks/<stem>.ipynb`` of the project (``None`` when there is no such notebook)."""
    notebook = Path(root or project_root()) / "notebooks" / f"{stem}.ipynb"
    return notebook if notebook.is_file() else None


def namespace_values(stem: str, namespace: Mapping[str, Any], *, root: str | Path | None = None) -> dict[str, Any]:
    """The values of a notebook's declared parameters found in ``namespace`` (its ``globals()``).

    The names are those :func:`declared` gives (the spec's, or the parameters cell's), so a notebook never
    restates them. Empty when neither a spec nor ``notebooks/<stem>.ipynb`` is found (a script).
    """
    spec = spec_for(stem, missing_ok=True)
    if spec is not None:
        return {p.name: namespace[p.name] for p in spec.parameters() if p.name in namespace}
    notebook = notebook_file(stem, root)
    if notebook is None:
        return {}
    return {k: namespace[k] for k in declared(notebook) if k in namespace}


def check_run(stem: str, params: Mapping[str, Any] | None, *, root: str | Path | None = None) -> None:
    """What :class:`mtlib.run.results.Run` calls: check a notebook's values as it runs.

    The values are ``params`` plus, inside a Jupyter kernel, every declared
    parameter found in the kernel's namespace (so a value changed in the
    parameters cell in JupyterLab is checked even when ``params`` has only
    some of them), checked by :func:`check`, whoever started the notebook (the
    runner's check is its early error; no environment flag skips this one).
    Nothing is checked when neither a spec nor ``notebooks/<stem>.ipynb`` is
    found (``Run`` used from a script).

    Raises:
        ParameterError: every problem, one per line.
    """
    spec = spec_for(stem, missing_ok=True)
    notebook = notebook_file(stem, root) or (Path(f"{stem}.ipynb") if spec is not None else None)
    if notebook is None:
        return
    decl = declared(notebook)
    values = {k: v for k, v in (params or {}).items() if k in decl}
    values.update({k: v for k, v in kernel_namespace().items() if k in decl and k not in values})
    _, problems, _ = check(notebook, values, wrap_strings=False, strict_names=False, parameters=decl)
    if problems:
        raise ParameterError(problems, f"{notebook.name} (fix the parameters cell)")


def kernel_namespace() -> Mapping[str, Any]:
    """The user namespace of the running IPython kernel (empty outside one)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return {}
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return {}
    return shell.user_ns
