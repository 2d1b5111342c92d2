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

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "generate": ALL,
        "mft": ALL,
        "memo": ALL,
        "outcome": ALL,
        "serialize": ALL,
        "comparison": ALL,
        "result": ALL,
        "suite": ALL,
        "predictions": ALL,
        "junit": ALL,
    },
    moved={"mcnemar_test": "mtlib.analysis:mcnemar_test"},
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
