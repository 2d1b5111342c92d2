"""A choice made by argument, else by an environment variable, else a default: one resolver for all of them.

Intuition: several choices of a run (the backend of frozen encoders, the precision of forward passes) are
given the same three ways: an explicit argument, ``"auto"`` (or nothing) meaning "whatever the environment
variable says", and a default when that is unset. They share the rule and the wording of their errors.

Example:
    >>> resolve_choice(" ONNX ", name="backend", choices=("torch", "onnx"), env="MTLIB_X_UNSET", default="torch")
    'onnx'
    >>> resolve_choice("auto", name="backend", choices=("torch", "onnx"), env="MTLIB_X_UNSET", default="torch")
    'torch'
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["AUTO", "resolve_choice"]

#: The value that defers to the environment variable, then the default.
AUTO = "auto"


def resolve_choice(
    value: Any,
    *,
    name: str,
    choices: Sequence[str],
    env: str,
    default: str,
    environ: Mapping[str, str] | None = None,
) -> str:
    """``value`` (case and spaces ignored) if it is one of ``choices``; for ``auto``/``None``/``""`` the variable
    ``env`` of ``environ`` (``os.environ`` by default; only read) when set, else ``default``.

    Raises:
        ValueError: a value (or a ``$env``) that is not one of ``choices``, naming the allowed ones.
    """
    allowed = ", ".join(choices)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name}={value!r}: expected a string, one of {allowed} or {AUTO}")
    text = (value or "").strip().lower()
    if text in ("", AUTO):
        variables = os.environ if environ is None else environ
        from_env = variables.get(env, "").strip().lower()
        if from_env in ("", AUTO):
            return default
        if from_env not in choices:
            raise ValueError(f"${env}={variables[env]!r}: expected one of {allowed} (or unset it for {default})")
        return from_env
    if text not in choices:
        raise ValueError(f"{name}={value!r}: expected one of {allowed}, or {AUTO} (${env}, else {default})")
    return text
