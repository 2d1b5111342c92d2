"""Suites as JSON: relations and transformations by registered name and parameters (never pickle).

A saved suite must load anywhere without running code from the file, so a
transformation is written as its class's registered name and its
constructor parameters (``{"type": "Typos", "params": {"kind": "swap", "n": 1,
"seed": 0}}``), a composition as its parts, and a relation the same way.
Every transformation class of :mod:`mtlib.relations.transformations` is
registered under its class name; a user registers a class of their own, or a
module-level ``str -> str`` function, with :func:`register`. An anonymous
function (a lambda, a local function) has no name to load it by: saving a
suite that uses one raises :class:`NotSerializable`, saying what to do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from mtlib.relations import PairwiseSystematicity, Relation, SingleInput, transformations
from mtlib.suite.mft import MFT

__all__ = [
    "NotSerializable",
    "TRANSFORMATIONS",
    "register",
    "relation_from_json",
    "relation_to_json",
    "transformation_from_json",
    "transformation_to_json",
]


class NotSerializable(TypeError):
    """A part of a suite has no registered name and parameters to save it by."""


#: Registered name -> transformation class (a dataclass) or ``str -> str`` function.
TRANSFORMATIONS: dict[str, Any] = {
    name: getattr(transformations, name)
    for name in transformations.__all__
    if isinstance(getattr(transformations, name), type)
    and issubclass(getattr(transformations, name), transformations.Transformation)
    and dataclasses.is_dataclass(getattr(transformations, name))
    and name not in ("Composed", "FunctionTransformation")
}


def register(name: str, obj: Any) -> Any:
    """Register a transformation class (a dataclass) or a ``str -> str`` function under ``name`` for saving.

    The same registration must run before :meth:`mtlib.suite.Suite.load`
    reads a suite that uses it. Returns ``obj`` (usable as a decorator helper).

    Raises:
        ValueError: the name is taken by another object.
    """
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
    t = transformations.as_transformation(t)
    if isinstance(t, transformations.Composed):
        return {"type": "Composed", "parts": [transformation_to_json(p) for p in t.parts]}
    if isinstance(t, transformations.FunctionTransformation):
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


def transformation_from_json(data: dict[str, Any]) -> transformations.Transformation:
    """The transformation :func:`transformation_to_json` wrote.

    Raises:
        KeyError: a name that is not registered (register it first).
    """
    if data["type"] == "Composed":
        return transformations.Composed(tuple(transformation_from_json(p) for p in data["parts"]))
    if data["type"] not in TRANSFORMATIONS:
        raise KeyError(
            f"no transformation registered as {data['type']!r}; register it with "
            f"mtlib.suite.register({data['type']!r}, ...) before loading"
        )
    obj = TRANSFORMATIONS[data["type"]]
    if data.get("function"):
        return transformations.FunctionTransformation(obj, data["name"], data["description"], data["expected"])
    defaults = {f.name: f.default for f in dataclasses.fields(obj)}
    params = {
        k: (tuple(v) if isinstance(v, list) and isinstance(defaults.get(k), tuple) else v)
        for k, v in data["params"].items()
    }
    t: transformations.Transformation = obj(**params)
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


def relation_from_json(data: dict[str, Any]) -> Relation | MFT:
    """The relation :func:`relation_to_json` wrote."""
    family = data["family"]
    if family == "MFT":
        return MFT(data["expected_label"], name=data["name"], description=data.get("description", ""))
    ts = [transformation_from_json(t) for t in data.get("transforms", [])]
    if family == "SingleInput":
        return SingleInput(
            data["name"],
            data["prop"],
            ts or None,
            threshold=data.get("threshold"),
            direction=data.get("direction", "increase"),
            description=data.get("description", ""),
        )
    if family == "PairwiseSystematicity":
        return PairwiseSystematicity(
            data["name"], ts or None, expected=data.get("expected"), description=data.get("description", "")
        )
    raise ValueError(f"unknown relation family {family!r} in a saved suite")
