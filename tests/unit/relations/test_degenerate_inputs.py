"""Issue 36's families in the relations: degenerate inputs, out-of-range parameters, non-texts, by family.

Before (the previous code): ``evaluate`` on no text or one text, and three-way
transitivity on two items, returned a result of rate NaN; a similarity
threshold of NaN or 2 was accepted; ``Concatenation("")``, ``NameSwap`` with an
empty name and ``Synonyms`` with an empty key inserted text between every
character; ``Punctuation("strip")`` turned ``"!!!"`` into ``""``; ``Typos(n="2")``,
``NumberSwap(seed="a")``, ``NameSwap(names=None)`` raised numpy and Python errors.
After: each is a :class:`MtlibInputError` naming the argument and what was
expected, a skipped input (:class:`NotApplicable`), or a result that says why
it has no case. The property tests at the end draw arbitrary values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtlib import relations as R
from mtlib.relations import MtlibInputError
from mtlib.relations import transformations as T
from mtlib.relations.transformations import NotApplicable
from mtlib.testing import gate_message


def length(texts: list[str]) -> np.ndarray:
    return np.array([len(t) for t in texts], float)


@pytest.mark.parametrize(
    "relation, inputs, says",
    [
        (
            R.SingleInput("s", "order", T.Casing("upper")),
            [],
            "no input to transform: inputs must hold at least 1 text, got 0",
        ),
        (R.PairwiseSystematicity("p", T.Casing("upper")), [], "no pairs to compare"),
        (R.PairwiseSystematicity("p", T.Casing("upper")), ["one"], "at least 2 texts, got 1"),
        (
            R.ThreeWayTransitivity("t"),
            ["a", "b"],
            "no triples to check: need at least 3 items: inputs must hold at least 3",
        ),
    ],
)
def test_evaluate_refuses_too_few_inputs_for_one_case(relation, inputs, says):
    scorer = length if not isinstance(relation, R.ThreeWayTransitivity) else (lambda pairs: np.ones(len(pairs), bool))
    with pytest.raises(MtlibInputError, match=says) as err:
        relation.evaluate(inputs, scorer)
    assert err.value.argument == "inputs"


def test_compositionality_refuses_one_input():
    with pytest.raises(MtlibInputError, match="no pairs to compare"):
        R.PairwiseCompositionality("c").evaluate(
            ["x"], lambda t: np.zeros((len(t), 2)), groups=[0], direction={0: "same"}
        )


def test_a_result_without_cases_says_why_and_never_passes():
    tied = R.PairwiseSystematicity("p", T.Casing("upper")).evaluate(["aa", "bb", "cc"], length, n_boot=20)
    assert tied.cases == 0 and "no pairs to compare: need at least 2 texts with different scores" in tied.no_cases
    assert "no cases, rate undefined" in repr(tied) and not tied.passes(0.5)
    assert "nothing was tested: no pairs to compare" in gate_message(tied, 0.1)
    skipped = R.SingleInput("n", "equivalence", T.NameSwap()).evaluate(["no name here"], lambda t: np.full(len(t), 0.7))
    assert skipped.cases == 0 and "applied to none of the 1 input(s) (1 skipped)" in skipped.no_cases
    none = R.ThreeWayTransitivity("t").check(np.zeros((3, 3), bool), n_boot=0)  # no premise v(x1, x2), v(x2, x3)
    assert none.cases == 0 and none.no_cases.startswith("no triples to check") and not none.passes(0.5)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_transitivity_check_on_fewer_than_three_items_is_refused_never_a_nan_rate(n):
    """Issue 43: check() on a 2 x 2 matrix returned a NaN rate; evaluate() already refused."""
    with pytest.raises(MtlibInputError, match=rf"need at least 3 items: src must be .* n >= 3, got shape \({n}, {n}\)"):
        R.ThreeWayTransitivity("t").check(np.ones((n, n), bool), n_boot=0)
    assert R.SingleInput("s", "order").check([0.1], [0.2]).no_cases == ""


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"prop": "similarity", "threshold": float("nan")}, "threshold must be a finite number in \\[-1, 1\\)"),
        ({"prop": "similarity", "threshold": 2.0}, "threshold must be a finite number in \\[-1, 1\\)"),
        ({"prop": "similarity", "threshold": 1.0}, "threshold must be a finite number in \\[-1, 1\\)"),
        ({"prop": "similarity", "threshold": "0.5"}, "threshold must be"),
        ({"prop": "similarity", "threshold": True}, "threshold must be"),
        ({"prop": "similarity"}, "needs a threshold"),
        ({"prop": "order", "tolerance": -0.1}, "tolerance must be None or a finite number >= 0"),
        ({"prop": "order", "tolerance": float("inf")}, "tolerance must be None or a finite number >= 0"),
        ({"prop": "equivalence", "tolerance": 1.5}, "tolerance must be a probability change in \\[0, 1\\]"),
        ({"prop": "similarity", "threshold": 0.5, "tolerance": 0.1}, "tolerance must be None for similarity"),
        ({"prop": "equivalence", "ties": "coin"}, "ties must be one of \\['fail', 'first'\\]"),
        ({"prop": "order", "direction": "sideways"}, "direction must be 'increase' or 'decrease'"),
        ({"prop": "entailment"}, "prop must be one of"),
    ],
)
def test_single_input_refuses_parameters_out_of_range(kwargs, says):
    with pytest.raises(MtlibInputError, match=says):
        R.SingleInput("s", **kwargs)


@pytest.mark.parametrize(
    "build, argument",
    [
        (lambda: T.Concatenation(""), "text"),
        (lambda: T.Concatenation("   "), "text"),
        (lambda: T.Concatenation(None), "text"),
        (lambda: T.Concatenation("Hi.", 3), "position"),
        (lambda: T.Concatenation("Hi.", name=5), "name"),
        (lambda: T.Typos("swap", n="2"), "n"),
        (lambda: T.Typos("swap", n=0), "n"),
        (lambda: T.Typos("swap", n=1.5), "n"),
        (lambda: T.Typos("swap", seed=None), "seed"),
        (lambda: T.Typos(None), "typo"),
        (lambda: T.NumberSwap(seed="a"), "seed"),
        (lambda: T.NumberSwap(name=""), "name"),
        (lambda: T.NameSwap(names=None), "names"),
        (lambda: T.NameSwap(names="Anna"), "names"),
        (lambda: T.NameSwap(names=("", "Bob")), "names[0]"),
        (lambda: T.NameSwap(names=(1, 2)), "names[0]"),
        (lambda: T.NameSwap(names=("Anna",)), "names"),
        (lambda: T.NameSwap(seed=2.5), "seed"),
        (lambda: T.Synonyms(None), "table"),
        (lambda: T.Synonyms({}), "table"),
        (lambda: T.Synonyms({"": "x"}), "table key"),
        (lambda: T.Synonyms({"!!": "x"}), "table key"),
        (lambda: T.Synonyms({"good": 3}), "table['good']"),
        (lambda: T.Synonyms({"good": []}), "table['good']"),
        (lambda: T.Synonyms({"good": [None]}), "table['good']"),
        (lambda: T.Synonyms({"good": ""}), "table['good']"),
        (lambda: T.Synonyms({"good": ["fine", " "]}), "table['good']"),
        (lambda: T.Concatenation("Wow!", "end", name=" "), "name"),
        (lambda: T.Contractions("contract", {}), "table"),
        (lambda: T.Contractions("squash"), "mode"),
        (lambda: T.Punctuation(None), "mode"),
        (lambda: T.Casing("shout"), "mode"),
        (lambda: T.Negation(name=""), "name"),
        (lambda: T.FunctionTransformation(3), "fn"),
        (lambda: T.FunctionTransformation(str.upper, expected="sideways"), "expected"),
        (lambda: T.Composed(()), "parts"),
    ],
)
def test_transformations_built_wrong_name_the_argument(build, argument):
    with pytest.raises(MtlibInputError) as err:
        build()
    assert err.value.argument == argument and f"{argument} must be" in str(err.value)


@pytest.mark.parametrize("bad", [None, 3, 2.5, b"bytes", ["a list"]], ids=["None", "int", "float", "bytes", "list"])
@pytest.mark.parametrize(
    "t", [T.Typos(), T.NumberSwap(), T.NameSwap(), T.Synonyms({"good": "fine"}), T.Negation(), T.Casing()], ids=str
)
def test_transformations_called_on_a_non_text_say_so(t, bad):
    with pytest.raises(MtlibInputError, match=r"x must be a text \(str\)"):
        t(bad)


def test_a_transformation_never_returns_an_empty_text_or_a_non_text():
    with pytest.raises(NotApplicable, match="only punctuation"):
        T.Punctuation("strip")("!!! ...")
    with pytest.raises(NotApplicable, match="blank"):
        T.Punctuation("exclaim")("   ")
    with pytest.raises(MtlibInputError, match="returned NoneType"):
        T.FunctionTransformation(lambda x: None, name="broken")("text")


def test_a_relation_given_a_name_or_an_sklearn_pipeline_says_how_to_make_a_scorer():
    rel = R.PairwiseSystematicity("p", T.Casing("upper"))
    with pytest.raises(MtlibInputError, match=r"mtlib.models.load\('vader'\)"):
        rel.evaluate(["a b", "c d e"], "vader")
    with pytest.raises(MtlibInputError, match="model must be a scorer"):
        rel.evaluate(["a b", "c d e"], object())


# ---------------------------------------------------------------------------------------------------------
# property-based: arbitrary inputs give a well-formed result with finite numbers, or mtlib's own error
# ---------------------------------------------------------------------------------------------------------

ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.lists(st.text(max_size=4), max_size=3),
    st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2),
)
BUILDERS = {
    "Concatenation": lambda a, b: T.Concatenation(a, b),
    "Typos": lambda a, b: T.Typos(a, b),
    "NameSwap": lambda a, b: T.NameSwap(a, b),
    "NumberSwap": lambda a, b: T.NumberSwap(a, b),
    "Synonyms": lambda a, b: T.Synonyms(a, b),
    "Contractions": lambda a, b: T.Contractions(a, b),
    "Punctuation": lambda a, b: T.Punctuation(a),
    "Casing": lambda a, b: T.Casing(a),
    "Negation": lambda a, b: T.Negation(a),
}


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(sorted(BUILDERS)), a=ANYTHING, b=ANYTHING, text=st.text(max_size=40))
def test_any_arguments_build_a_transformation_or_are_refused_and_it_makes_a_text(name, a, b, text):
    try:
        t = BUILDERS[name](a, b)
    except MtlibInputError as err:
        assert err.argument and " must be " in str(err)
        return
    try:
        out = t(text)
    except NotApplicable:
        return
    assert isinstance(out, str) and (out.strip() or not text.strip() or name != "Punctuation")


SCORES = st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=0, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(src=SCORES, flw=SCORES, family=st.sampled_from(["order", "equivalence", "pairwise"]))
def test_relations_on_arbitrary_scores_count_finite_numbers_or_refuse(src, flw, family):
    rel = R.PairwiseSystematicity("p") if family == "pairwise" else R.SingleInput("s", family)
    try:
        res = rel.check(np.array(src), np.array(flw), n_boot=20) if family == "pairwise" else rel.check(src, flw)
    except MtlibInputError as err:
        assert err.argument in ("src", "flw", "flws") or "flw" in str(err)
        return
    assert 0 <= res.violations <= res.cases
    if res.cases:
        assert math.isfinite(res.rate) and 0 <= res.ci_low <= res.rate <= res.ci_high <= 1
    else:
        assert res.no_cases and not res.passes(0.5)


@settings(max_examples=60, deadline=None)
@given(matrix=st.lists(st.lists(st.booleans(), min_size=0, max_size=5), min_size=0, max_size=5))
def test_transitivity_on_arbitrary_matrices_counts_or_refuses(matrix):
    try:
        res = R.ThreeWayTransitivity("t").check(matrix, n_boot=10)
    except MtlibInputError as err:
        assert err.argument == "src"
        return
    assert 0 <= res.violations <= res.cases and (res.cases > 0 or res.no_cases)
