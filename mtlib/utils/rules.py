"""The rule language of notebook parameters: a type and a short rule string per parameter.

Intuition: a researcher's typo (``n_boot: 0``, ``vocabulary_split: bogus``,
``models: []``) should cost one clear message before anything runs, never a
silently wrong number or a traceback from deep inside a cell. Each parameter
has a **type** (``int``, ``float``, ``bool``, ``str``, ``list``, ``dict``) and a
**rule**: one string, clauses separated by ``;``, every clause must hold::

    >= N   > N   <= N   < N   != N      a finite number compared with N
    in [a, b]  in (a, b)  in [a, b)  in (a, b]     a number in an interval
    one of a, b, c          the value is one of these (numbers compare as numbers, the rest as strings;
                            '' is the empty string)
    non-empty               a list, mapping or string with at least one entry
    distinct                a list with no entry twice (a model listed twice would run twice, or overwrite
                            its own results, without a word)
    length N                a list of exactly N entries
    str | int | float | bool | list | dict       the value's type
    each CLAUSE             CLAUSE holds for every entry of a list (every value of a mapping)
    keys CLAUSE             CLAUSE holds for every key of a mapping
    subset of NAME          every entry (every key of a mapping) is in parameter NAME's value
    non-empty if NAME       non-empty when parameter NAME is non-empty
    non-empty unless NAME   non-empty when parameter NAME is empty (one of the two has entries)

For example ``models: "non-empty; each str"``, ``n_boot: ">= 1"``,
``heads: "non-empty; each one of linear, mlp"``, ``finetune: "subset of encoders"``.
A rule that lists the choices of a tuple in the code is built from it where it is
declared (``f"each one of {', '.join(HEADS)}"``), so the two cannot drift apart.

Types: ``int`` takes an integer (not a bool, not ``100.0``); ``float`` an integer
or a float; ``bool`` only ``true``/``false``; ``str`` a string; ``list`` a list;
``dict`` a mapping.

The rules are declared once per experiment, in its spec
(:mod:`mtlib.experiments.spec`); this module only reads and applies them. It is
pure Python and imports nothing of mtlib.

Example:
    >>> rule = compile_rule("non-empty; each one of linear, mlp", "heads")
    >>> rule.problems(["linear", "svm"], {})
    [('[1]', 'svm', 'one of linear, mlp')]
    >>> type_problem("n_boot", "5", "int")
    "n_boot = '5': expected an integer (int), got str (write it without quotes)"
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

__all__ = [
    "TYPES",
    "ParameterError",
    "Rule",
    "RuleError",
    "compile_rule",
    "parse_clause",
    "type_problem",
]

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
_NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf)"


class ParameterError(ValueError):
    """Bad notebook parameters; the message lists every problem, one per line."""

    def __init__(self, problems: Sequence[str], where: str = "") -> None:
        self.problems = list(problems)
        head = f"invalid parameters{' of ' + where if where else ''}:"
        super().__init__("\n  ".join([head, *self.problems]))


class RuleError(ValueError):
    """A rule string the language does not have; the message names where it is declared."""


# -- rules --------------------------------------------------------------------------------------------------------
#: A compiled clause: (value, all values) -> [(where, offending value, what is expected)], empty when it holds.
Check = Callable[[Any, Mapping[str, Any]], "list[tuple[str, Any, str]]"]


@dataclass
class Rule:
    """A parsed rule string; :meth:`problems` lists what a value breaks."""

    text: str
    source: str  # where the rule is declared, e.g. "sentiment.Spec.n_boot"
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


def _distinct(v: Any, _: Any) -> list[tuple[str, Any, str]]:
    """The clause ``distinct``: the first entry of a list that repeats an earlier one, with where that one is."""
    entries = [json.dumps(x, sort_keys=True, default=str) for x in v] if isinstance(v, (list, tuple)) else []
    seen: dict[str, int] = {}
    for i, key in enumerate(entries):
        if key in seen:
            return [(f"[{i}]", v[i], f"distinct entries: it is also entry [{seen[key]}]; list it once")]
        seen[key] = i
    return []


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
    if m := re.fullmatch(r"one of (.+)", t):
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
    if t == "distinct":
        return _distinct
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
        RuleError: a clause the language does not have, naming ``source``.
    """
    rule = Rule(str(text), source)
    for clause in str(text).split(";"):
        if not clause.strip():
            continue
        try:
            rule.checks.append(parse_clause(clause))
        except ValueError as err:
            raise RuleError(f"{source}: {err}; the rule language is described in mtlib/utils/rules.py") from None
    return rule


def type_problem(name: str, value: Any, type_name: str) -> str | None:
    """Why ``value`` is not of the parameter type ``type_name`` (``None`` when it is, or the type is unknown).

    The message names the parameter, the value, what is expected and, for the usual slips, how to write it.
    """
    if type_name not in TYPES:
        return None
    types, words = TYPES[type_name]
    ok = False if isinstance(value, bool) and type_name != "bool" else isinstance(value, types)
    if ok:
        return None
    hint = ""
    if type_name == "list" and isinstance(value, str):
        hint = f" (write [{value}] in YAML or [{value!r}] in Python)"
    elif type_name == "int" and isinstance(value, float) and value.is_integer():
        hint = f" (write {int(value)})"
    elif type_name in ("int", "float") and isinstance(value, str) and re.fullmatch(_NUM, value.strip()):
        hint = (
            " (YAML reads 1e-3 as text: write 1.0e-3)"
            if "e" in value.lower() and "." not in value
            else " (write it without quotes)"
        )
    return f"{name} = {value!r}: expected {words} ({type_name}), got {type(value).__name__}{hint}"
