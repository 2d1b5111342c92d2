"""Testing one's own model: named tests, run together, reported, saved, compared and gated.

A :class:`Suite` holds named tests, each a relation of :mod:`mtlib.relations`
(with its transformations) or a minimum-functionality test (:class:`MFT`),
its inputs (texts, or a template of :mod:`~mtlib.suite.generate`) and a
threshold. ``suite.run(model)`` takes any model (a registry name, an mtlib
model, an sklearn pipeline, a transformers text-classification pipeline, a
scoring function: :func:`mtlib.models.adapters.wrap`), scores every unique
text once and returns a :class:`SuiteResult`: ``summary()``,
``to_html(path)``, ``assert_passes()`` for CI, ``save``/``load`` in JSON and
``compare(other)`` (:func:`compare`: paired bootstrap of the rate difference
and McNemar's test per test).

This wing sits above relations and analysis, beside experiments; nothing in
mtlib imports it.
"""

# the face imports in dependency order, lowest level first
# isort: off
from mtlib.suite.generate import LEXICONS, Template, lexicon, template  # level 0
from mtlib.suite import generate  # level 0
from mtlib.suite.mft import MFT  # level 0
from mtlib.suite.memo import ScoreMemo, as_model  # level 0
from mtlib.suite.outcome import TestOutcome  # level 1
from mtlib.suite.serialize import TRANSFORMATIONS, NotSerializable, register  # level 1
from mtlib.suite.compare import compare, mcnemar_test  # level 2
from mtlib.suite.result import SuiteFailure, SuiteResult  # level 3
from mtlib.suite.suite import Suite, SuiteTest  # level 4
# isort: on

__all__ = [
    "LEXICONS",
    "MFT",
    "NotSerializable",
    "ScoreMemo",
    "Suite",
    "SuiteFailure",
    "SuiteResult",
    "SuiteTest",
    "TRANSFORMATIONS",
    "Template",
    "TestOutcome",
    "as_model",
    "compare",
    "generate",
    "lexicon",
    "mcnemar_test",
    "register",
    "template",
]
