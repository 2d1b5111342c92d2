"""Every experiment's spec, found by its notebook: each sub-package of :mod:`mtlib.experiments` with a ``Spec``.

A new experiment package is found here without being listed anywhere.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from pathlib import Path

from mtlib.experiments.spec import Spec

__all__ = ["spec_for", "specs"]

_PACKAGE = __name__.rpartition(".")[0]
_FOLDER = str(Path(__file__).parent)


def experiment_packages() -> list[str]:
    """The names of the experiment sub-packages (``sentiment``, ``nli``...), in file order.

    Every public sub-package is an experiment (the rule of the package face, :mod:`mtlib.experiments`); its
    modules (``spec``, ``outcome``, this one) are not packages, so no list of them is kept.
    """
    return [info.name for info in pkgutil.iter_modules([_FOLDER]) if info.ispkg and not info.name.startswith("_")]


@functools.cache
def specs() -> dict[str, type[Spec]]:
    """Every experiment's spec, by its notebook's file stem, found by looking at the sub-packages.

    Raises:
        ValueError: two experiments claim the same notebook.
    """
    out: dict[str, type[Spec]] = {}
    for name in experiment_packages():
        spec = getattr(importlib.import_module(f"{_PACKAGE}.{name}"), "Spec", None)
        if isinstance(spec, type) and issubclass(spec, Spec) and spec.notebook:
            if spec.notebook in out:
                raise ValueError(f"{spec.notebook} is claimed by {out[spec.notebook].__module__} and {spec.__module__}")
            out[spec.notebook] = spec
    return dict(sorted(out.items()))


def spec_for(key: str, *, missing_ok: bool = False) -> type[Spec] | None:
    """The spec of a notebook, by its file stem (``"01_pairwise_sentiment_systematicity"``) or key (``"01"``).

    Args:
        key: A stem, or a two-digit key shared by no other notebook.
        missing_ok: Return ``None`` instead of raising when no experiment declares that notebook.

    Raises:
        KeyError: no such notebook (listing them), or a key that two notebooks share (``"00"``).

    Example:
        >>> spec_for("04").notebook
        '04_montague_adjectives'
    """
    found = specs()
    if key in found:
        return found[key]
    matches = [stem for stem in found if stem[:2] == key and len(key) == 2]
    if len(matches) == 1:
        return found[matches[0]]
    if missing_ok and not matches:
        return None
    if matches:
        raise KeyError(f"notebook key {key!r} is shared by {', '.join(matches)}: give the file stem")
    raise KeyError(f"no experiment declares notebook {key!r}; the notebooks are {', '.join(found)}")
