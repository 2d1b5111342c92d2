"""Notebook parameters: declared types, allowed values, one check before any work.

Intuition: a researcher's typo (``n_boot: 0``, ``vocabulary_split: bogus``,
``models: []``) should cost one clear message before anything runs, never a
silently wrong number or a traceback from deep inside a cell. So every
notebook's parameters are checked in one place, by one mechanism:

- the **type** of each parameter comes from its annotation in the notebook's
  ``parameters`` cell (``n_boot: int = 1000``), read with :mod:`ast`;
- its **allowed values and ranges** are declared once per notebook in
  ``notebooks/parameters.yaml`` (``"01": {n_boot: ">= 1", ...}``), in the
  small rule language below.

The runner (``python -m mtlib.run``) checks each notebook's values before
papermill starts it (a notebook with a bad value is not run and is reported
failed with the message; the others run) and tells the kernel so
(:data:`CHECKED_ENV`); :class:`mtlib.run.results.Run` makes the same check,
with the same rules, only for a run the runner did not check (a notebook
started in JupyterLab).

Types: ``int`` takes an integer (not a bool, not ``100.0``); ``float`` takes
an integer or a float; ``bool`` only ``true``/``false``; ``str`` a string;
``list`` a list; ``dict`` a mapping. A string where a list is expected
(``-p 01.models=minilm``) is wrapped into a one-element list by the runner,
with a note, because the runner decides what it injects; in JupyterLab
(:func:`check_run`) the notebook's own variable cannot be changed, so it is
refused with a message saying how to write the list.

Rule language: one string per parameter, clauses separated by ``;``, every
clause must hold::

    >= N   > N   <= N   < N   != N      a number compared with N
    in [a, b]  in (a, b)  in [a, b)  in (a, b]     a number in an interval
    one of a, b, c          the value is one of these (numbers compare as numbers, the rest as strings;
                            '' is the empty string)
    non-empty               a list, mapping or string with at least one entry
    length N                a list of exactly N entries
    str | int | float | bool | list | dict       the value's type
    each CLAUSE             CLAUSE holds for every entry of a list (every value of a mapping)
    keys CLAUSE             CLAUSE holds for every key of a mapping
    subset of NAME          every entry (every key of a mapping) is in parameter NAME's value
    non-empty if NAME       non-empty when parameter NAME is non-empty
    non-empty unless NAME   non-empty when parameter NAME is empty (one of the two has entries)

A list in ``one of`` may be named instead of spelt, as ``MODULE:NAME``
(``each one of mtlib.models.heads:HEADS``): the tuple ``NAME`` of that
``mtlib`` module, so the rule and the code that implements the choices share
one list.

For example ``models: "non-empty; each str"``, ``n_boot: ">= 1"``,
``heads: "non-empty; each one of linear, mlp"``,
``finetune: "subset of encoders"``. Anything that can only be checked with the
model loaded (``layer`` against the model's depth) is checked where the model
is used, naming the parameter.
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import yaml

from mtlib.utils.paths import project_root

__all__ = [
    "CHECKED_ENV",
    "MAX_YAML_BYTES",
    "MAX_YAML_NODES",
    "RULES_FILE",
    "TYPES",
    "ConfigError",
    "Declared",
    "ParameterError",
    "Rule",
    "check",
    "check_run",
    "compile_rule",
    "declared",
    "kernel_namespace",
    "load_yaml_text",
    "load_rules",
    "namespace_values",
    "notebook_file",
    "notebook_key",
    "parse_clause",
    "read_yaml",
]

#: The rules file, beside the notebooks.
RULES_FILE = "parameters.yaml"
#: Set by the runner in a notebook's environment to the notebook's stem: its parameters were checked before it
#: started, so :func:`check_run` does not check them again.
CHECKED_ENV = "MTLIB_PARAMS_CHECKED"
#: Annotation name -> (accepted Python types, words for messages).
TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "int": ((int,), "an integer"),
    "float": ((int, float), "a number"),
    "number": ((int, float), "a number"),
    "bool": ((bool,), "true or false"),
    "str": ((str,), "a string"),
    "list": ((list, tuple), "a list"),
    "dict": ((dict,), "a mapping"),
}
#: Bounds of a profile, the rules file or a ``-p`` value: bytes, and values once YAML aliases are expanded.
MAX_YAML_BYTES = 1_000_000
MAX_YAML_NODES = 100_000
_NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf)"


class ParameterError(ValueError):
    """Bad notebook parameters; the message lists every problem, one per line."""

    def __init__(self, problems: Sequence[str], where: str = "") -> None:
        self.problems = list(problems)
        head = f"invalid parameters{' of ' + where if where else ''}:"
        super().__init__("\n  ".join([head, *self.problems]))


class ConfigError(ValueError):
    """A malformed YAML file (profile or rules); the message names the file and line."""


# -- YAML with line numbers ---------------------------------------------------------------------------------------
def read_yaml(path: str | Path, *, raw_keys_under: Sequence[str] = ()) -> tuple[Any, dict[tuple[str, ...], int]]:
    """Parse a YAML file; return the data and the 1-based line of every mapping key.

    Args:
        path: The file.
        raw_keys_under: Top-level keys whose mapping's keys are kept as written
            (``01:`` unquoted stays the string ``"01"``, not the integer 1);
            ``""`` means the top-level mapping's own keys.

    Returns:
        ``(data, lines)``, ``lines[("notebooks", "01")]`` being the line of that key.

    Raises:
        ConfigError: unreadable or invalid YAML, with ``file:line:column``.
    """
    path = Path(path)
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            raise ConfigError(
                f"{path}: {path.stat().st_size} bytes, more than a profile or rules file needs "
                f"(at most {MAX_YAML_BYTES})"
            )
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 text ({err.reason}); save the file as UTF-8") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read ({err.strerror or err})") from None
    loader = yaml.SafeLoader(text)
    lines: dict[tuple[str, ...], int] = {}
    try:
        node = loader.get_single_node()
        if node is None:
            return None, lines
        if isinstance(node, yaml.MappingNode):
            mappings = [node] if "" in raw_keys_under else []
            mappings += [
                value
                for key, value in node.value
                if key.value in raw_keys_under and isinstance(value, yaml.MappingNode)
            ]
            for mapping in mappings:
                for sub, _ in mapping.value:
                    if isinstance(sub, yaml.ScalarNode) and sub.tag.endswith((":int", ":float")):
                        sub.tag = "tag:yaml.org,2002:str"  # keep "01" as written
        _check_nodes(node, str(path))
        _key_lines(node, (), lines)
        data = loader.construct_document(node)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = " ".join(str(getattr(err, "problem", None) or err).split())
        raise ConfigError(f"{where}: not valid YAML: {problem}") from None
    finally:
        loader.dispose()
    return data, lines


def load_yaml_text(text: str, where: str) -> Any:
    """Parse one YAML value given on the command line, with the bounds of :func:`read_yaml`.

    Raises:
        ConfigError: too long, too many nodes once aliases are expanded, or a duplicate key.
        yaml.YAMLError: invalid YAML.
    """
    if len(text) > MAX_YAML_BYTES:
        raise ConfigError(f"{where}: the value has {len(text)} characters (at most {MAX_YAML_BYTES})")
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node, where)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_nodes(root: Any, where: str) -> None:
    """Refuse an alias bomb (a document that grows past :data:`MAX_YAML_NODES` once aliases are expanded)
    and a key given twice in one mapping (YAML keeps the last silently), naming the line."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            raise ConfigError(
                f"{where}: more than {MAX_YAML_NODES} values once its aliases (*name) are expanded; "
                "an alias bomb, or far more than a profile needs"
            )
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                    if key.value in seen:
                        raise ConfigError(
                            f"{where}:{key.start_mark.line + 1}: key {key.value!r} is given twice "
                            f"(first at line {seen[key.value]})"
                        )
                    seen[key.value] = key.start_mark.line + 1
                stack += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value


def _key_lines(node: Any, prefix: tuple[str, ...], out: dict[tuple[str, ...], int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            k = (*prefix, str(key.value))
            out[k] = key.start_mark.line + 1
            _key_lines(value, k, out)


# -- declared parameters ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Declared:
    """One parameter of a notebook's ``parameters`` cell.

    Attributes:
        name: The variable.
        type: Its annotation (``"int"``, ``"list"``, ...; ``""`` when not a plain name).
        default: The literal it is set to.
        line: Its line within the cell (1-based).
    """

    name: str
    type: str
    default: Any
    line: int


def declared(notebook: str | Path) -> dict[str, Declared]:
    """The parameters a notebook declares, from its ``parameters``-tagged cell.

    Raises:
        ConfigError: no parameters cell, or a line that is not ``name: type = literal``.
    """
    notebook = Path(notebook)
    return dict(_declared(str(notebook.resolve()), notebook.stat().st_mtime_ns))


@functools.lru_cache(maxsize=64)
def _declared(path: str, mtime_ns: int) -> dict[str, Declared]:
    notebook = Path(path)
    nb = nbformat.read(notebook, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise ConfigError(f"{notebook}: no cell tagged 'parameters'")
    try:
        tree = ast.parse(cells[0].source)
    except SyntaxError as err:
        raise ConfigError(f"{notebook}: parameters cell line {err.lineno}: {err.msg}") from None
    out = {}
    for node in tree.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue  # papermill ignores anything else too
        kind = node.annotation.id if isinstance(node.annotation, ast.Name) else ""
        try:
            default = ast.literal_eval(node.value) if node.value is not None else None
        except ValueError:
            default = None
        out[node.target.id] = Declared(node.target.id, kind, default, node.lineno)
    return out


# -- rules --------------------------------------------------------------------------------------------------------
#: A compiled clause: (value, all values) -> [(where, offending value, what is expected)], empty when it holds.
Check = Callable[[Any, Mapping[str, Any]], "list[tuple[str, Any, str]]"]


@dataclass
class Rule:
    """A parsed rule string; :meth:`problems` lists what a value breaks."""

    text: str
    source: str  # "notebooks/parameters.yaml:12"
    checks: list[Check] = field(default_factory=list)

    def problems(self, value: Any, context: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
        out: list[tuple[str, Any, str]] = []
        for check in self.checks:
            found = check(value, context)
            out += found
            if found:
                break  # one message per value: later clauses may assume earlier ones
        return out


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _entries(v: Any) -> list[tuple[str, Any]]:
    if isinstance(v, Mapping):
        return [(f"[{k!r}]", x) for k, x in v.items()]
    if isinstance(v, (list, tuple)):
        return [(f"[{i}]", x) for i, x in enumerate(v)]
    return []


def _has_entries(v: Any) -> bool:
    return hasattr(v, "__len__") and len(v) > 0


def _choice(word: str) -> Any:
    """One choice of a ``one of`` rule: a number, a quoted string (``''`` is the empty string) or a word."""
    if re.fullmatch(_NUM, word):
        return yaml.safe_load(word)
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


def _named_list(module: str, name: str) -> list[Any]:
    """The tuple or list ``name`` of the ``mtlib`` module ``module`` (a rule's ``one of MODULE:NAME``)."""
    try:
        value = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"{module}:{name} names no list ({err})") from None
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{module}:{name} is a {type(value).__name__}, not a list")
    return list(value)


def parse_clause(text: str) -> Check:
    """Compile one clause of the rule language (see the module docstring).

    Raises:
        ValueError: a clause the language does not have.
    """
    t = " ".join(text.split())
    ops = {
        ">=": lambda a, b: a >= b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        "<": lambda a, b: a < b,
        "!=": lambda a, b: a != b,
    }
    if m := re.fullmatch(rf"(>=|<=|>|<|!=)\s*({_NUM})", t):
        op, bound = m.group(1), float(m.group(2))

        def compare(v: Any, _: Any) -> list[tuple[str, Any, str]]:
            # a comparison asks for a finite number: lr=.inf passes "> 0" arithmetically, then gives NaN metrics
            ok = _is_number(v) and math.isfinite(float(v)) and ops[op](v, bound)
            return [] if ok else [("", v, f"{t} (a finite number)")]

        return compare
    if m := re.fullmatch(rf"in\s*([\[(])\s*({_NUM})\s*,\s*({_NUM})\s*([\])])", t):
        lo_open, lo, hi, hi_open = m.group(1) == "(", float(m.group(2)), float(m.group(3)), m.group(4) == ")"

        def interval(v: Any, _: Any) -> list[tuple[str, Any, str]]:
            ok = _is_number(v) and (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
            return [] if ok else [("", v, f"a number {t}")]

        return interval
    allowed: list[Any] | None = None
    if m := re.fullmatch(r"one of (mtlib(?:\.\w+)+):([A-Za-z_]\w*)", t):
        allowed = _named_list(m.group(1), m.group(2))
    elif m := re.fullmatch(r"one of (.+)", t):
        # numbers are numbers, anything else a string (so "yes"/"no" stay words, unlike plain YAML)
        allowed = [_choice(x.strip()) for x in m.group(1).split(",")]
    if allowed is not None:
        choices = allowed
        words = ", ".join(repr(a) if a == "" else str(a) for a in choices)

        def one_of(v: Any, _: Any) -> list[tuple[str, Any, str]]:
            ok = any(v == a and type(v) is type(a) for a in choices)
            return [] if ok else [("", v, f"one of {words}")]

        return one_of
    if m := re.fullmatch(r"non-empty (if|unless) ([A-Za-z_]\w*)", t):
        when, other = m.group(1), m.group(2)

        def non_empty_when(v: Any, ctx: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
            if other not in ctx or (bool(_has_entries(ctx[other])) != (when == "if")) or _has_entries(v):
                return []
            return [("", v, f"at least one entry when {other} = {json.dumps(ctx[other])}")]

        return non_empty_when
    if t == "non-empty":
        return lambda v, _: [] if hasattr(v, "__len__") and len(v) > 0 else [("", v, "at least one entry")]
    if m := re.fullmatch(r"length (\d+)", t):
        n = int(m.group(1))
        return lambda v, _: [] if isinstance(v, (list, tuple)) and len(v) == n else [("", v, f"a list of {n} entries")]
    if t in TYPES:
        types, words = TYPES[t]
        return lambda v, _: [] if isinstance(v, types) and (bool in types) == isinstance(v, bool) else [("", v, words)]
    if m := re.fullmatch(r"each (.+)", t):
        inner = parse_clause(m.group(1))

        def each(v: Any, ctx: Any) -> list[tuple[str, Any, str]]:
            return [(where + sub, bad, what) for where, x in _entries(v) for sub, bad, what in inner(x, ctx)]

        return each
    if m := re.fullmatch(r"keys (.+)", t):
        inner = parse_clause(m.group(1))

        def keys(v: Any, ctx: Any) -> list[tuple[str, Any, str]]:
            items = list(v) if isinstance(v, Mapping) else []
            return [(" (a key)" + sub, bad, what) for k in items for sub, bad, what in inner(k, ctx)]

        return keys
    if m := re.fullmatch(r"subset of ([A-Za-z_]\w*)", t):
        other = m.group(1)

        def subset(v: Any, ctx: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
            if other not in ctx or not isinstance(ctx[other], (list, tuple, Mapping)):
                return []  # the other parameter is not known here (or has its own problem)
            pool = list(ctx[other])
            if not isinstance(v, (list, tuple, Mapping)):
                return [] if v in pool else [("", v, f"an entry of {other} = {json.dumps(pool)}")]
            extra = [x for x in v if x not in pool]
            return [("", v, f"entries of {other} = {json.dumps(pool)}, not {json.dumps(extra)}")] if extra else []

        return subset
    raise ValueError(f"unknown rule clause {text!r}")


def compile_rule(text: str, source: str) -> Rule:
    """Compile a rule string (clauses separated by ``;``).

    Raises:
        ConfigError: a clause the language does not have, naming ``source`` (``file:line``).
    """
    rule = Rule(str(text), source)
    for clause in str(text).split(";"):
        if not clause.strip():
            continue
        try:
            rule.checks.append(parse_clause(clause))
        except ValueError as err:
            raise ConfigError(f"{source}: {err}; the rule language is described in mtlib/run/params.py") from None
    return rule


def notebook_key(stem: str) -> str:
    """The key of a notebook in profiles and rules: its two-digit number (``"01"``)."""
    return stem[:2]


def load_rules(notebooks_dir: str | Path) -> dict[str, dict[str, Rule]]:
    """The rules of every notebook, from ``<notebooks_dir>/parameters.yaml`` (empty when absent).

    Raises:
        ConfigError: invalid YAML, a malformed block or an unknown clause, naming the file and line.
    """
    path = Path(notebooks_dir) / RULES_FILE
    if not path.exists():
        return {}
    data, lines = read_yaml(path, raw_keys_under=("",))
    data = data or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: expected a mapping of notebook numbers to {{parameter: rule}}")
    out: dict[str, dict[str, Rule]] = {}
    for nb, block in data.items():
        if not isinstance(block, dict):
            raise ConfigError(
                f"{path}:{lines.get((str(nb),), 1)}: notebook {nb!r}: expected a mapping {{parameter: rule}}"
            )
        key = f"0{nb}" if str(nb).isdigit() and len(str(nb)) == 1 else str(nb)
        out[key] = {
            str(p): compile_rule(str(r), f"{path.parent.name}/{path.name}:{lines.get((str(nb), str(p)), 1)}")
            for p, r in block.items()
        }
    return out


# -- the check ----------------------------------------------------------------------------------------------------
def _type_problem(name: str, value: Any, kind: str) -> str | None:
    if kind not in TYPES:
        return None
    types, words = TYPES[kind]
    if isinstance(value, bool) and kind != "bool":
        ok = False
    else:
        ok = isinstance(value, types)
    if ok:
        return None
    hint = ""
    if kind == "list" and isinstance(value, str):
        hint = f" (write [{value}] in YAML or [{value!r}] in Python)"
    elif kind == "int" and isinstance(value, float) and value.is_integer():
        hint = f" (write {int(value)})"
    elif kind in ("int", "float") and isinstance(value, str) and re.fullmatch(_NUM, value.strip()):
        hint = (
            " (YAML reads 1e-3 as text: write 1.0e-3)"
            if "e" in value.lower() and "." not in value
            else " (write it without quotes)"
        )
    return f"{name} = {value!r}: expected {words} ({kind}), got {type(value).__name__}{hint}"


def check(
    notebook: str | Path,
    values: Mapping[str, Any],
    *,
    rules: Mapping[str, Mapping[str, Rule]] | None = None,
    wrap_strings: bool = False,
    strict_names: bool = True,
    parameters: Mapping[str, Declared] | None = None,
) -> tuple[dict[str, Any], list[str], list[str]]:
    """Check a notebook's parameter values against its annotations and rules.

    Args:
        notebook: The notebook file (its parameters cell gives the types; its
            folder's ``parameters.yaml`` the rules, unless ``rules`` is given).
        values: The values to check (any subset of the declared parameters).
        rules: Preloaded :func:`load_rules` output.
        wrap_strings: Wrap a string given for a ``list`` parameter into a
            one-element list (with a note) instead of refusing it.
        strict_names: A name the notebook does not declare is a problem
            (with the closest declared name suggested).
        parameters: Preloaded :func:`declared` output.

    Returns:
        ``(values, problems, notes)``: the values (strings wrapped when asked),
        one message per problem naming the parameter, the value and what is
        expected (and the rule's ``file:line``), and notes on what was changed.
    """
    notebook = Path(notebook)
    decl = parameters if parameters is not None else declared(notebook)
    if rules is None:
        rules = load_rules(notebook.parent)
    nb_rules = dict(rules.get(notebook_key(notebook.stem), {}))
    nb_rules.update(rules.get(notebook.stem, {}))
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
        kind = decl[name].type
        if kind == "list" and isinstance(value, str) and wrap_strings:
            out[name] = value = [value]
            notes.append(f"{name}: the string {value[0]!r} was wrapped into the list {value!r}")
        found = _type_problem(name, value, kind)
        if found:
            problems.append(found)
    typed = {k: v for k, v in out.items() if k in decl and not _type_problem(k, v, decl[k].type)}
    for name, rule in nb_rules.items():
        if name not in typed:
            continue
        for where, got, what in rule.problems(typed[name], typed):
            problems.append(f"{name}{where} = {got!r}: expected {what} (rule {rule.text!r}, {rule.source})")
    for name in nb_rules:
        if name not in decl:
            problems.append(
                f"{name}: {nb_rules[name].source} has a rule for it, but {notebook.name} declares no such parameter"
            )
    return out, problems, notes


def notebook_file(stem: str, root: str | Path | None = None) -> Path | None:
    """``notebooks/<stem>.ipynb`` of the project (``None`` when there is no such notebook)."""
    notebook = Path(root or project_root()) / "notebooks" / f"{stem}.ipynb"
    return notebook if notebook.is_file() else None


def namespace_values(stem: str, namespace: Mapping[str, Any], *, root: str | Path | None = None) -> dict[str, Any]:
    """The values of a notebook's declared parameters found in ``namespace`` (its ``globals()``).

    The names are those of the notebook's ``parameters`` cell (:func:`declared`), so a notebook never
    restates them. Empty when ``notebooks/<stem>.ipynb`` is not found (a script).
    """
    notebook = notebook_file(stem, root)
    if notebook is None:
        return {}
    return {k: namespace[k] for k in declared(notebook) if k in namespace}


def check_run(stem: str, params: Mapping[str, Any] | None, *, root: str | Path | None = None) -> None:
    """What :class:`mtlib.run.results.Run` calls: check a notebook's values as it runs.

    The values are ``params`` plus, inside a Jupyter kernel, every declared
    parameter found in the kernel's namespace (so a value changed in the
    parameters cell in JupyterLab is checked even when ``params`` has only
    some of them). The rules are the runner's (:func:`check`, the same
    ``parameters.yaml``). Nothing is checked when the runner has checked this
    notebook's values before starting it (``$MTLIB_PARAMS_CHECKED`` is its
    stem, :data:`CHECKED_ENV`) or when ``notebooks/<stem>.ipynb`` is not found
    (``Run`` used from a script).

    Raises:
        ParameterError: every problem, one per line.
    """
    if os.environ.get(CHECKED_ENV) == stem:
        return
    notebook = notebook_file(stem, root)
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
