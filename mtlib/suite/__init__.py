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

Suites are refused early and loudly: non-texts, blank texts or no inputs at
``add``, an MFT label the model lacks before any model call, NaN, infinite
or boolean outputs at ``run`` (with the test, the count and the first text),
a tampered saved file with its key; ``run(model, timeout=S)`` abandons a model
call past S seconds (:class:`ModelTimeout`). The definitions the field disagrees on
are options: ``ties=`` and ``tolerance=`` (:class:`~mtlib.relations.SingleInput`,
:class:`MFT`), labelled templates (``generate.template(..., label=...)``).

In CI: ``python -m mtlib.suite run SUITE.json --model NAME_OR_PATH --junit out.xml``
(:mod:`~mtlib.suite.cli`; exit 0 pass, 1 fail, 2 bad input, 3 the model raised
or ran past ``--timeout``; JUnit on every exit), or ``score`` a CSV or JSON Lines
file of a model's saved outputs (:mod:`~mtlib.suite.predictions`).

This wing sits above relations and analysis, beside experiments; only
``mtlib.testing`` imports it.
"""

# the face imports in dependency order, lowest level first
# isort: off
from mtlib.suite.generate import LEXICONS, MAX_ROWS, Template, lexicon, template  # level 0
from mtlib.suite import generate  # level 0
from mtlib.suite.mft import MFT  # level 0
from mtlib.suite.memo import ModelTimeout, ScoreMemo, as_model  # level 0
from mtlib.suite.outcome import TestOutcome  # level 1
from mtlib.suite.serialize import TRANSFORMATIONS, NotSerializable, register  # level 1
from mtlib.suite.compare import compare, mcnemar_test  # level 2
from mtlib.suite.result import SuiteFailure, SuiteResult  # level 3
from mtlib.suite.suite import Suite, SuiteTest, TooFewInputs, inputs_needed  # level 4
from mtlib.suite.predictions import needed_texts, read_predictions  # level 5
from mtlib.suite.junit import junit_xml, write_junit  # level 5
# isort: on

__all__ = [
    "LEXICONS",
    "MAX_ROWS",
    "MFT",
    "ModelTimeout",
    "NotSerializable",
    "ScoreMemo",
    "Suite",
    "SuiteFailure",
    "SuiteResult",
    "SuiteTest",
    "TRANSFORMATIONS",
    "Template",
    "TestOutcome",
    "TooFewInputs",
    "as_model",
    "compare",
    "generate",
    "inputs_needed",
    "junit_xml",
    "lexicon",
    "mcnemar_test",
    "needed_texts",
    "read_predictions",
    "register",
    "template",
    "write_junit",
]
