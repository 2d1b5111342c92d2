"""One sub-package per notebook: its spec, its method, its builders and its report, split along their seams.

========== ==================================================== ==========
package    experiment                                           notebook
========== ==================================================== ==========
sentiment  pairwise systematicity of a sentiment classifier     01
nli        pairwise compositionality of an NLI model + probe    02
lexical    three-way transitivity on CogALex                    03
montague   Montague adjective tests on embedding models         04
pss        Polarity Sensitivity Scoring                         05
tre        Tree Reconstruction Error, Tree Impurity, WNS        06
seti       SETI, systematicity of textual inference             07
tour       the teaching tour: a suite, a failure, a comparison  00
template   the template a new notebook starts from              00
========== ==================================================== ==========

Each package exposes ``Spec`` (its parameters, declared once: :mod:`mtlib.experiments.spec`)
and ``run(spec)``, which runs the whole experiment and returns its outcome.
:func:`spec_for` finds the spec of a notebook by its key (``"01"``) or file stem;
a new package is found without being listed anywhere.

Import the one a notebook needs (``from mtlib.experiments import pss``); the
faces are lazy, so importing one (or every spec) does not load the others.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from mtlib.experiments.spec import Spec, param

__all__ = [
    "Spec",
    "lexical",
    "montague",
    "nli",
    "param",
    "pss",
    "sentiment",
    "seti",
    "spec_for",
    "specs",
    "template",
    "tour",
    "tre",
]

_NOT_EXPERIMENTS = {"spec", "outcome"}


def __getattr__(name: str):
    """Import an experiment package on first use (``mtlib.experiments.pss``)."""
    if name in __all__:
        return importlib.import_module(f"mtlib.experiments.{name}")
    raise AttributeError(f"module 'mtlib.experiments' has no attribute {name!r}")


@functools.cache
def specs() -> dict[str, type[Spec]]:
    """Every experiment's spec, by its notebook's file stem, found by looking at the sub-packages.

    Raises:
        ValueError: two experiments claim the same notebook.
    """
    out: dict[str, type[Spec]] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in _NOT_EXPERIMENTS:
            continue
        spec = getattr(importlib.import_module(f"{__name__}.{info.name}"), "Spec", None)
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
