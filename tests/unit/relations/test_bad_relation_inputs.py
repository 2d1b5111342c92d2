"""Wrong arguments at the relations' public entries raise MtlibInputError naming the argument.

Transformations, ``check``, ``evaluate`` and the gate refuse ``None``, numbers,
bytes, a bare string where a list of texts is expected, and rates outside
[0, 1], instead of stringifying them or failing deep inside numpy. A
hypothesis property checks that arbitrary inputs either give a well-formed
result or raise that one error type.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtlib import relations as R
from mtlib.relations import transformations as T
from mtlib.relations.errors import MtlibInputError
from mtlib.testing import assert_relation

BAD_TEXTS = [None, 3, 2.5, b"bytes", ["a list"]]


def length_score(texts: list[str]) -> np.ndarray:
    return np.array([len(t) for t in texts], dtype=float)


def probs(texts: list[str]) -> np.ndarray:
    p = np.array([(len(t) % 7) / 7 for t in texts])
    return np.stack([1 - p, p], axis=1)


TRANSFORMATIONS = [
    T.Concatenation("Thank you.", "end"),
    T.Typos(seed=1),
    T.Contractions(),
    T.NameSwap(),
    T.NumberSwap(),
    T.Negation(),
    T.Punctuation("exclaim"),
    T.Casing("upper"),
    T.as_transformation(str.lower),
    T.Concatenation("Hi.", "start") >> T.Casing("lower"),
]


def test_the_error_is_a_value_error_and_names_argument_and_expectation():
    err = R.MtlibInputError("f: x must be y", argument="x", expected="y")
    assert isinstance(err, ValueError) and err.argument == "x" and err.expected == "y"


# (a) transformations ------------------------------------------------------------------------


@pytest.mark.parametrize("t", TRANSFORMATIONS, ids=lambda t: t.name)
@pytest.mark.parametrize("bad", BAD_TEXTS, ids=repr)
def test_transformations_refuse_what_is_not_a_text(t, bad):
    with pytest.raises(MtlibInputError, match=r"x must be a text \(str\), got") as info:
        t(bad)
    assert info.value.argument == "x"


def test_transformations_still_transform_texts_and_apply_refuses_a_bare_string():
    assert T.Concatenation("Thank you.")("Good.") == "Good. Thank you."
    with pytest.raises(MtlibInputError, match="texts must be a list of texts"):
        T.apply(T.Casing("upper"), "a review")
    with pytest.raises(MtlibInputError, match=r"texts\[1\] must be a text"):
        T.apply(T.Casing("upper"), ["fine", None])
    with pytest.raises(MtlibInputError, match="text must be a non-empty text"):
        T.Concatenation(None)
    with pytest.raises(MtlibInputError, match="transform must be a callable"):
        T.as_transformation(5)


# (b) evaluate and check ---------------------------------------------------------------------


RELATIONS = [
    R.PairwiseSystematicity("p", T.Concatenation("Thank you.")),
    R.SingleInput("s", "order", T.Punctuation("exclaim")),
    R.ThreeWayTransitivity("t"),
]


@pytest.mark.parametrize("rel", RELATIONS, ids=lambda r: type(r).__name__)
@pytest.mark.parametrize("bad", [None, 5, "a review", b"bytes", [1, 2, 3], ["ok", None]], ids=repr)
def test_evaluate_refuses_what_is_not_a_list_of_texts(rel, bad):
    calls = []

    def scorer(texts):
        calls.append(texts)
        return length_score(texts)

    with pytest.raises(MtlibInputError, match="inputs"):
        rel.evaluate(bad, scorer, n_boot=0)
    assert not calls  # refused before the model is called


def test_compositionality_evaluate_refuses_a_bare_string():
    rel = R.PairwiseCompositionality("c")
    with pytest.raises(MtlibInputError, match="inputs must be a list of texts"):
        rel.evaluate("abc", lambda t: np.zeros((len(t), 2)), groups=[0, 0, 0], direction={0: "same"})


def test_evaluate_refuses_a_scorer_that_is_not_one_and_bad_scores():
    rel = R.PairwiseSystematicity("p", T.Concatenation("Thank you."))
    with pytest.raises(MtlibInputError, match="model must be a scorer: a function texts -> scores"):
        rel.evaluate(["a", "bb"], 42, n_boot=0)
    with pytest.raises(MtlibInputError, match="must return numbers"):
        rel.evaluate(["a", "bb"], lambda texts: [None] * len(texts), n_boot=0)
    with pytest.raises(MtlibInputError, match="NaN or infinite values for 4 of 4 texts; the first: 'a'"):
        rel.evaluate(["a", "bb"], lambda texts: np.full(len(texts), np.nan), n_boot=0)
    with pytest.raises(MtlibInputError, match="n_boot must be an integer >= 0"):
        rel.evaluate(["a", "bb"], length_score, n_boot=-1)


@pytest.mark.parametrize(
    "rel, args, argument",
    [
        (R.SingleInput("s", "order"), (None, None), "src"),
        (R.SingleInput("s", "order"), ([0.1, 0.2], "ab"), "flw"),
        (R.SingleInput("s", "order"), ([0.1, np.nan], [0.2, 0.3]), "src"),
        (R.SingleInput("s", "order"), ([0.1, 0.2], [0.2, 0.3, 0.4]), "flw"),
        (R.PairwiseSystematicity("p"), (None, [1.0]), "src"),
        (R.PairwiseSystematicity("p"), ([1.0, 2.0], None), "flw"),
        (R.PairwiseSystematicity("p"), ([1.0, 2.0], [1.0]), "flw"),
        (R.PairwiseSystematicity("p"), ([1.0, 2.0], [1.0, np.inf]), "flw"),
        (R.PairwiseSystematicity("p"), ("ab", [1.0, 2.0]), "src"),
        (R.ThreeWayTransitivity("t"), (None,), "src"),
        (R.ThreeWayTransitivity("t"), (np.ones((2, 3), bool),), "src"),
    ],
)
def test_check_refuses_wrong_scores_naming_the_argument(rel, args, argument):
    with pytest.raises(MtlibInputError, match=argument):
        rel.check(*args)


def test_check_refuses_bad_per_item_groups_direction_and_bootstrap_settings():
    src, flw = np.array([0.1, 0.5, 0.3]), np.array([0.2, 0.4, 0.1])
    with pytest.raises(MtlibInputError, match="per_item"):
        R.PairwiseSystematicity("p").check(src, flw, per_item="abc", n_boot=0)
    with pytest.raises(MtlibInputError, match="per_item"):
        R.SingleInput("s", "order").check(src, flw, per_item=["a", "b"])
    with pytest.raises(MtlibInputError, match="n_boot"):
        R.PairwiseSystematicity("p").check(src, flw, n_boot=-5)
    with pytest.raises(MtlibInputError, match="seed"):
        R.PairwiseSystematicity("p").check(src, flw, seed="zero")
    rel = R.PairwiseCompositionality("c")
    with pytest.raises(MtlibInputError, match="groups"):
        rel.check(src, flw, None, {0: "same"})
    with pytest.raises(MtlibInputError, match="direction must be a mapping"):
        rel.check(src, flw, [0, 0, 0], "same")
    with pytest.raises(MtlibInputError, match="expected"):
        rel.check(src, flw, [0, 0, 0], {0: "sideways"}, n_boot=0)


# (c) the gate --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def result():
    return R.SingleInput("s", "order").check(np.zeros(100), np.r_[np.full(96, 1.0), np.full(4, -1.0)])


@pytest.mark.parametrize("bad", [1.5, 5, math.inf, -0.1, math.nan, None, "0.1", True])
def test_the_gate_refuses_a_max_rate_outside_0_1(result, bad):
    with pytest.raises(MtlibInputError, match=r"max_rate must be a number in \[0, 1\]"):
        result.passes(max_rate=bad)


@pytest.mark.parametrize("bad", [0, 1, 1.5, None])
def test_the_gate_refuses_a_confidence_outside_0_1(result, bad):
    with pytest.raises(MtlibInputError, match="confidence"):
        result.passes(max_rate=0.1, confidence=bad)
    with pytest.raises(MtlibInputError, match="confidence"):
        result.interval(bad)


def test_the_gate_accepts_its_bounds(result):
    assert result.passes(max_rate=1) and not result.passes(max_rate=0)


@pytest.mark.parametrize("bad", [-1, 2.5, None, "3", True])
def test_examples_refuses_a_k_that_is_not_a_count(result, bad, tmp_path):
    with pytest.raises(MtlibInputError, match="k must be an integer >= 0"):
        result.examples(bad)
    with pytest.raises(MtlibInputError, match="k must be an integer >= 0"):
        result.to_html(tmp_path / "cases.html", k=bad)
    assert len(result.examples(0)) == 0


def test_assert_relation_refuses_before_calling_the_model():
    calls = []

    def scorer(texts):
        calls.append(texts)
        return length_score(texts)

    rel = R.PairwiseSystematicity("p", T.Concatenation("Thank you."))
    with pytest.raises(MtlibInputError, match="max_rate"):
        assert_relation(scorer, rel, ["a", "bb"], max_rate=5)
    with pytest.raises(MtlibInputError, match="inputs"):
        assert_relation(scorer, rel, "a review", max_rate=0.1)
    with pytest.raises(MtlibInputError, match="relation must be a Relation"):
        assert_relation(scorer, "systematicity", ["a", "bb"], max_rate=0.1)
    assert not calls


# (d) the property: a well-formed result or MtlibInputError ----------------------------------

texts_st = st.lists(st.text(max_size=12), max_size=8)
anything = st.one_of(
    st.none(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.binary(max_size=4),
    st.text(max_size=6),
    texts_st,
    st.lists(st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=3)), max_size=6),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=8),
)
rates = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-2, 3), st.none(), st.booleans())


def assert_well_formed(res: R.RelationResult) -> None:
    assert isinstance(res, R.RelationResult)
    assert 0 <= res.violations <= res.cases
    if res.cases:  # a result with cases claims a rate: no NaN in it
        assert math.isfinite(res.rate) and 0 <= res.rate <= 1
        assert res.rate == res.violations / res.cases
    else:
        assert math.isnan(res.rate)
    assert len(res.per_item) >= 0 and isinstance(res.examples(3), type(res.per_item))


def well_formed_or_refused(fn, *args, **kwargs):
    try:
        out = fn(*args, **kwargs)
    except MtlibInputError as err:
        assert str(err)
        return None
    return out


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(inputs=st.one_of(anything, texts_st), which=st.integers(0, 2), n_boot=st.one_of(st.integers(-2, 30), anything))
def test_evaluate_gives_a_well_formed_result_or_refuses(inputs, which, n_boot):
    rel = [
        R.PairwiseSystematicity("p", T.Concatenation("Thank you.")),
        R.SingleInput("s", "equivalence", [T.Punctuation("exclaim"), T.Contractions()]),
        R.ThreeWayTransitivity("t"),
    ][which]
    scorer = [length_score, probs, lambda pairs: np.array([len(a) <= len(b) for a, b in pairs], bool)][which]
    res = well_formed_or_refused(rel.evaluate, inputs, scorer, n_boot=n_boot)
    if res is not None:
        assert_well_formed(res)


@PROPERTY
@given(src=anything, flw=anything, which=st.integers(0, 2), per_item=st.one_of(st.none(), anything))
def test_check_gives_a_well_formed_result_or_refuses(src, flw, which, per_item):
    rel = [R.PairwiseSystematicity("p"), R.SingleInput("s", "order"), R.ThreeWayTransitivity("t")][which]
    if which == 2:
        src = np.asarray(src, dtype=object) if isinstance(src, list) and len(src) == 4 else src
        flw = None
    res = well_formed_or_refused(rel.check, src, flw, per_item=per_item, n_boot=10)
    if res is not None:
        assert_well_formed(res)


@PROPERTY
@given(x=st.one_of(anything, st.text(max_size=40)), which=st.integers(0, len(TRANSFORMATIONS) - 1))
def test_transformations_give_a_text_or_refuse(x, which):
    t = TRANSFORMATIONS[which]
    try:
        out = t(x)
    except T.NotApplicable:
        assert isinstance(x, str)
        return
    except MtlibInputError:
        assert not isinstance(x, str)
        return
    assert isinstance(x, str) and isinstance(out, str)


@PROPERTY
@given(max_rate=rates, confidence=st.one_of(rates, st.just(0.95)), k=st.one_of(st.integers(-3, 30), anything))
def test_the_gate_answers_a_bool_or_refuses(result, max_rate, confidence, k):
    ok = well_formed_or_refused(result.passes, max_rate=max_rate, confidence=confidence)
    assert ok is None or isinstance(ok, bool)
    if ok is not None:
        assert 0 <= max_rate <= 1 and 0 < confidence < 1
    ex = well_formed_or_refused(result.examples, k)
    assert ex is None or len(ex) <= k
