"""Suites as JSON: relations and transformations by registered name and parameters (never pickle).

A saved suite must load anywhere without running code from the file, so a
transformation is written as its class's registered name and its
constructor parameters (``{"type": "Typos", "params": {"typo": "swap", "n": 1,
"seed": 0}}``; a file written before ``kind`` was renamed ``typo`` still loads), a
composition as its parts, and a relation the same way.
Every transformation class of :mod:`mtlib.relations.transformations` is
registered under its class name; a user registers a class of their own, or a
module-level ``str -> str`` function, with :func:`register`. An anonymous
function (a lambda, a local function) has no name to load it by: saving a
suite that uses one raises :class:`NotSerializable`, saying what to do.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mtlib.relations import transformations
from mtlib.relations.base import Relation
from mtlib.relations.errors import MtlibInputError
from mtlib.relations.pairwise import PairwiseSystematicity
from mtlib.relations.single import SingleInput
from mtlib.relations.transformations.base import Composed, FunctionTransformation, Transformation, as_transformation
from mtlib.suite.mft import MFT

__all__ = ["NotSerializable", "TRANSFORMATIONS", "register"]


class NotSerializable(TypeError):
    """A part of a suite has no registered name and parameters to save it by."""


#: Registered name -> transformation class (a dataclass) or ``str -> str`` function.
TRANSFORMATIONS: dict[str, Any] = {
    name: getattr(transformations, name)
    for name in transformations.__all__
    if isinstance(getattr(transformations, name), type)
    and issubclass(getattr(transformations, name), Transformation)
    and dataclasses.is_dataclass(getattr(transformations, name))
    and name not in ("Composed", "FunctionTransformation")
}
#: Registered name -> {old parameter name: new name}: files written before a rename load with the new name.
_RENAMED_PARAMS: dict[str, dict[str, str]] = {"Typos": {"kind": "typo"}}


def register(name: str, obj: Any) -> Any:
    """Register a transformation class (a dataclass) or a ``str -> str`` function under ``name`` for saving.

    The same registration must run before :meth:`mtlib.suite.Suite.load`
    reads a suite that uses it. Returns ``obj`` (usable as a decorator helper).

    Raises:
        ValueError: the name is taken by another object.
    """
    if not isinstance(name, str) or not name.strip():
        raise MtlibInputError(f"register: name must be a non-empty text (str), got {name!r}", argument="name")
    if not callable(obj):
        raise MtlibInputError(
            f"register: obj must be a transformation class or a function, got {obj!r}", argument="obj"
        )
    if name in TRANSFORMATIONS and TRANSFORMATIONS[name] is not obj:
        raise ValueError(f"a transformation is already registered as {name!r}")
    TRANSFORMATIONS[name] = obj
    return obj


def _registered_name(obj: Any) -> str | None:
    return next((k for k, v in TRANSFORMATIONS.items() if v is obj), None)


def transformation_to_json(t: Callable[[str], str]) -> dict[str, Any]:
    """A transformation as ``{"type": name, "params": {...}}`` (compositions as ``{"type": "Composed", "parts"}``).

    Raises:
        NotSerializable: an anonymous or unregistered function or class.
    """
    t = as_transformation(t)
    if isinstance(t, Composed):
        return {"type": "Composed", "parts": [transformation_to_json(p) for p in t.parts]}
    if isinstance(t, FunctionTransformation):
        fn = t.fn
        name = _registered_name(fn)
        if name is None:
            what = (
                "an anonymous function (lambda)"
                if getattr(fn, "__name__", "") == "<lambda>"
                else f"the unregistered function {getattr(fn, '__qualname__', fn)!r}"
            )
            raise NotSerializable(
                f"cannot save transformation {t.name!r}: it is {what}. Use a transformation class of "
                f"mtlib.relations.transformations, or define a module-level function and register it with "
                f"mtlib.suite.register('name', fn) (before saving and before loading)"
            )
        return {"type": name, "function": True, "name": t.name, "description": t.description, "expected": t.expected}
    name = _registered_name(type(t))
    if name is None or not dataclasses.is_dataclass(t):
        raise NotSerializable(
            f"cannot save transformation {t.name!r} of class {type(t).__name__}: register the "
            f"class (a dataclass) with mtlib.suite.register({type(t).__name__!r}, "
            f"{type(t).__name__})"
        )
    params = {f.name: _plain(getattr(t, f.name)) for f in dataclasses.fields(t) if f.init}
    return {"type": name, "params": params}


def _plain(value: Any) -> Any:
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def transformation_from_json(data: dict[str, Any], where: str = "transform") -> Transformation:
    """The transformation :func:`transformation_to_json` wrote.

    Raises:
        MtlibInputError: a name that is not registered (register it first), or parameters its class refuses;
            the message names ``where`` (the key in the file).
    """
    type_name = _need(data, "type", str, where)
    if type_name == "Composed":
        parts = _need(data, "parts", list, where)
        return Composed(tuple(transformation_from_json(p, f"{where}.parts[{i}]") for i, p in enumerate(parts)))
    if type_name not in TRANSFORMATIONS:
        raise MtlibInputError(
            f"{where}: type {type_name!r} is not a registered transformation; expected one of "
            f"{', '.join(sorted([*TRANSFORMATIONS, 'Composed']))}, or a name registered with "
            f"mtlib.suite.register({type_name!r}, ...) before loading",
            argument=where,
            expected="a registered transformation name",
        )
    obj = TRANSFORMATIONS[type_name]
    try:
        if data.get("function"):
            return FunctionTransformation(
                obj, _need(data, "name", str, where), data.get("description", ""), data.get("expected", "same")
            )
        defaults = {f.name: f.default for f in dataclasses.fields(obj)}
        params = {
            k: (tuple(v) if isinstance(v, list) and isinstance(defaults.get(k), tuple) else v)
            for k, v in _need(data, "params", dict, where).items()
        }
        for old, new in _RENAMED_PARAMS.get(type_name, {}).items():  # a file written before a rename
            if old in params and new not in params:
                params[new] = params.pop(old)
        t: Transformation = obj(**params)
    except (TypeError, ValueError) as err:  # unknown parameters, values the class refuses
        raise MtlibInputError(f"{where}: cannot build {type_name}: {err}", argument=where) from err
    return t


def relation_to_json(relation: Any) -> dict[str, Any]:
    """A relation as its family, name and parameters.

    Raises:
        NotSerializable: a family other than :class:`SingleInput`, :class:`PairwiseSystematicity`
            and :class:`MFT`, a custom similarity function, or an unsaveable transformation.
    """
    if isinstance(relation, MFT):
        return {
            "family": "MFT",
            "name": relation.name,
            "expected_label": _plain(relation.expected_label),
            "description": relation._description,
            "ties": relation.ties,
        }
    if type(relation) is SingleInput:
        if relation.similarity is not None:
            raise NotSerializable(f"cannot save {relation.name!r}: its similarity function is code, not data")
        return {
            "family": "SingleInput",
            "name": relation.name,
            "prop": relation.prop,
            "transforms": [transformation_to_json(t) for t in relation.transforms],
            "threshold": relation.threshold,
            "direction": relation.direction,
            "ties": relation.ties,
            "tolerance": relation.tolerance,
            "description": relation._description,
        }
    if type(relation) is PairwiseSystematicity:
        return {
            "family": "PairwiseSystematicity",
            "name": relation.name,
            "transforms": [transformation_to_json(t) for t in relation.transforms],
            "expected": relation.expected if relation._explicit else None,
            "description": relation._description,
        }
    raise NotSerializable(
        f"cannot save a {type(relation).__name__} relation: a saved suite holds SingleInput, "
        f"PairwiseSystematicity and MFT tests"
    )


def relation_from_json(data: dict[str, Any], where: str = "relation") -> Relation | MFT:
    """The relation :func:`relation_to_json` wrote.

    Raises:
        MtlibInputError: an unknown family, a missing or mistyped key, values the relation refuses;
            the message names ``where`` (the key in the file).
    """
    family = _need(data, "family", str, where)
    name = _need(data, "name", str, where)
    description = _need(data, "description", str, where, default="")
    try:
        if family == "MFT":
            return MFT(data.get("expected_label"), name=name, description=description, ties=data.get("ties", "fail"))
        raw = _need(data, "transforms", list, where, default=[])
        ts = [transformation_from_json(t, f"{where}.transforms[{i}]") for i, t in enumerate(raw)]
        if family == "SingleInput":
            return SingleInput(
                name,
                _need(data, "prop", str, where),
                ts or None,
                threshold=data.get("threshold"),
                direction=data.get("direction", "increase"),
                ties=data.get("ties", "fail"),
                tolerance=data.get("tolerance"),
                description=description,
            )
        if family == "PairwiseSystematicity":
            return PairwiseSystematicity(name, ts or None, expected=data.get("expected"), description=description)
    except MtlibInputError:
        raise
    except (TypeError, ValueError) as err:
        raise MtlibInputError(f"{where}: cannot build {family} {name!r}: {err}", argument=where) from err
    raise MtlibInputError(
        f"{where}.family: unknown relation family {family!r}; a saved suite holds MFT, SingleInput and "
        f"PairwiseSystematicity tests",
        argument=where,
    )


_MISSING = object()


def _need(data: Any, key: str, expected: type | tuple[type, ...], where: str, default: Any = _MISSING) -> Any:
    """``data[key]`` if ``data`` is a JSON object holding a value of type ``expected``; else the error names the key."""
    if not isinstance(data, dict):
        raise MtlibInputError(
            f"{where}: expected a JSON object, got {type(data).__name__} {data!r:.60}", argument=where
        )
    if key not in data or data[key] is None:
        if default is not _MISSING:
            return default
        raise MtlibInputError(f"{where}.{key}: missing", argument=f"{where}.{key}")
    value = data[key]
    if not isinstance(value, expected) or (
        isinstance(value, bool) and bool not in (expected if isinstance(expected, tuple) else (expected,))
    ):
        names = " or ".join(k.__name__ for k in (expected if isinstance(expected, tuple) else (expected,)))
        raise MtlibInputError(
            f"{where}.{key}: expected {names}, got {type(value).__name__} {value!r:.60}", argument=f"{where}.{key}"
        )
    return value


def read_json(path: str | Path, what: str) -> Any:
    """The JSON value in ``path``; a missing file or bad JSON is a :class:`MtlibInputError` naming the file and line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise MtlibInputError(f"{path}: cannot read {what}: {err}", argument="path") from err
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise MtlibInputError(
            f"{path}: {what} is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})", argument="path"
        ) from err


def suite_from_json(path: str | Path, fmt: str) -> dict[str, Any]:
    """The saved suite in ``path``, its structure checked (every test's name, threshold, relation and inputs).

    Raises:
        MtlibInputError: not JSON, another format, or a key missing or of the wrong type; the message
            names the file and the key (``tests[2].inputs[5]``).
    """
    data = read_json(path, "the suite")
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise MtlibInputError(f"{path} is not a saved suite (format {fmt!r})", argument="path")
    try:
        for key in ("n_boot", "seed", "k"):
            _need(data, key, int, "suite", default=0 if key != "k" else 10)
        _need(data, "name", str, "suite")
        for i, test in enumerate(_need(data, "tests", list, "suite")):
            at = f"tests[{i}]"
            _need(test, "name", str, at)
            _need(test, "threshold", (int, float), at)
            _need(test, "relation", dict, at)
            if "template" in test:
                template = _need(test, "template", dict, at)
                _need(template, "pattern", str, f"{at}.template")
                _need(template, "fillers", dict, f"{at}.template")
            else:
                inputs = _need(test, "inputs", list, at)
                bad = next((j for j, x in enumerate(inputs) if not isinstance(x, str)), None)
                if bad is not None:
                    raise MtlibInputError(f"{at}.inputs[{bad}]: expected a text (str), got {inputs[bad]!r:.60}")
            _need(test, "labels", list, at, default=None)
    except MtlibInputError as err:
        raise MtlibInputError(f"{path}: {err}", argument=err.argument) from err
    return data
