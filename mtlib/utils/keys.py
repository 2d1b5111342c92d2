"""The metric key scheme of a run: model slugs, durations under ``timing/``, per-model and plain keys.

Intuition: every notebook writes flat metric keys, and every tool that reads
them (the runner's summary, the pins, the diff of two runs, the determinism
test) relies on one scheme:

- ``models/<model>/<metric>/<group...>``: a value of one model (``<model>`` is
  :func:`model_slug` of its name, so a model given by path is safe);
- ``<metric>/<group...>``: the same value for the primary model (the first in a
  notebook's models), e.g. ``violation_rate/T1``;
- ``timing/...``: durations, the only keys that differ between two runs of one profile.

:func:`model_keys` applies it to one report's values. A notebook records a model's values one way,
``run.record_report(values, model, primary=...)`` (:meth:`mtlib.run.results.Run.record_report`), which calls it;
``scheme``, its old name, warns for one release.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mtlib.utils.faces import renamed

__all__ = ["model_keys", "model_slug"]

#: Prefix of every timing metric: a determinism check compares all other keys exactly.
TIMING_PREFIX = "timing/"
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def model_slug(name: str) -> str:
    """A safe, unique name for a model in file names and metric keys.

    A registered short name (``"minilm"``, ``"glove-50d"``) is kept as it is.
    A path or hub id (``"/data/my model/"``, ``"org/bert"``) becomes its last
    part, cleaned to ``[A-Za-z0-9._-]``, plus 8 hex digits of a hash of the
    whole string, so two folders named ``model`` never share outputs.

    Examples:
        >>> model_slug("minilm")
        'minilm'
        >>> model_slug("org/bert")
        'bert-e818987b'
    """
    text = str(name)
    if _SAFE.match(text):
        return text
    tail = Path(text.rstrip("/\\")).name or "model"
    clean = re.sub(r"[^A-Za-z0-9._-]+", "-", tail).strip("-.")[:40] or "model"
    return f"{clean}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def timing_key(key: str) -> str:
    """``key`` under :data:`TIMING_PREFIX` when one of its parts is a duration (``*seconds``).

    Example:
        >>> timing_key("count_seconds/english/syn")
        'timing/count_seconds/english/syn'
    """
    if key.startswith(TIMING_PREFIX) or not any(part.endswith("seconds") for part in key.split("/")):
        return key
    return TIMING_PREFIX + key


def model_keys(values: Mapping[str, Any], model: str | None = None, primary: bool = True) -> dict[str, Any]:
    """One report's values in the key scheme: per-model keys, and plain keys for the primary model.

    Args:
        values: ``<metric>/<group...>`` -> value, without a model prefix.
        model: The model the values are about (``None``: run-level values, kept as they are).
        primary: Also give the plain keys (always, without a model).

    Example:
        >>> model_keys({"rate": 0.1, "fit_seconds": 2.0}, "minilm")
        {'models/minilm/rate': 0.1, 'timing/models/minilm/fit_seconds': 2.0, 'rate': 0.1, 'timing/fit_seconds': 2.0}
    """
    slug = model_slug(model) if model is not None else None
    out: dict[str, Any] = {}
    if slug is not None:
        out.update({f"models/{slug}/{k}": v for k, v in values.items()})
    if slug is None or primary:
        out.update(values)
    return {timing_key(k): v for k, v in out.items()}


scheme = renamed(model_keys, "scheme")  # the old name, for one release


def skipped_of(report: Any) -> dict[str, str]:
    """A report's declared skipped keys, ``{key: reason}`` (its ``skipped()`` or ``skipped`` mapping; none).

    A skipped key names a value the report did not compute (``n_boot=0``: no intervals); a run leaves it out of
    ``metrics.json`` and lists it under ``_skipped``, never as a NaN.

    Raises:
        TypeError: ``skipped()`` gives something other than a mapping.
    """
    found = getattr(report, "skipped", None) if not isinstance(report, Mapping) else None
    found = found() if callable(found) else found
    if found is None:
        return {}
    if not isinstance(found, Mapping):
        raise TypeError(f"a report's skipped() must give a mapping {{key: reason}}, got {type(found).__name__}")
    return {str(k): str(v) for k, v in found.items()}


def missing(value: Any) -> bool:
    """Whether a skipped key's value stands for nothing (None, NaN or infinite), so it is left out."""
    return value is None or (isinstance(value, float) and not math.isfinite(value))
