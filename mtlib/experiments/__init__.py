"""One sub-package per notebook: the method, its builders and its report, split along their seams.

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
========== ==================================================== ==========

Import the one a notebook needs (``from mtlib.experiments import pss``); the
face imports none of them, so importing one does not load the others.
"""

import importlib as _importlib

__all__ = ["lexical", "montague", "nli", "pss", "sentiment", "seti", "tour", "tre"]


def __getattr__(name: str):
    """Import an experiment package on first use (``mtlib.experiments.pss``)."""
    if name in __all__:
        return _importlib.import_module(f"mtlib.experiments.{name}")
    raise AttributeError(f"module 'mtlib.experiments' has no attribute {name!r}")
