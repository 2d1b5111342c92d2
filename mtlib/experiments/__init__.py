"""One sub-package per notebook: its spec, its data loading and the paper's values; the method is the notebook's.

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

Each package exposes ``Spec`` (its parameters, declared once: :mod:`mtlib.experiments.spec`) and
its data loading; no function runs a whole experiment: the notebook's cells take its steps over the
generic wings (a relation, a probe, a metric or a dataset builder lives there, with its tests).
:func:`spec_for` finds the spec of a notebook by its key (``"01"``) or file stem;
a new package is found without being listed anywhere.

Import the one a notebook needs (``from mtlib.experiments import pss``); the
faces are lazy, so importing one (or every spec) does not load the others.
"""

import pkgutil as _pkgutil

from mtlib.utils.faces import ALL, Face

# every sub-package is an experiment (its face lazy too), found by its folder: none is listed by hand
_EXPERIMENTS = [m.name for m in _pkgutil.iter_modules(__path__) if m.ispkg and not m.name.startswith("_")]
_face = Face(
    __name__,
    {"spec": ALL, "catalog": ALL, **{name: [] for name in _EXPERIMENTS}},
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
