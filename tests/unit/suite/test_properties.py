"""Property tests of the suite (issue 36): arbitrary inputs and model outputs give a finite result or mtlib's error.

Whatever a user passes as a test's inputs (texts, ``None``, bytes, numbers,
empty lists) and whatever the model answers (finite scores, NaN, infinities,
values outside [0, 1]), ``Suite.add`` and ``Suite.run`` either give a result
whose numbers are finite (a test that counts nothing says why in ``note``) or
raise :class:`MtlibInputError` naming the argument or the test.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mtlib.relations import MtlibInputError, PairwiseSystematicity, SingleInput
from mtlib.relations import transformations as T
from mtlib.suite import MFT, Suite, Template

ITEM = st.one_of(st.text(max_size=12), st.none(), st.binary(max_size=3), st.integers(), st.floats())
VALUE = st.one_of(st.floats(min_value=-2, max_value=2), st.just(float("nan")), st.just(float("inf")))
RELATIONS = {
    "mft": lambda: MFT("positive"),
    "mft-first": lambda: MFT("negative", ties="first"),
    "typos": lambda: SingleInput("typos", "equivalence", T.Typos()),
    "strip": lambda: SingleInput("strip", "order", T.Punctuation("strip"), direction="decrease", tolerance=0.1),
    "pairwise": lambda: PairwiseSystematicity("case", T.Casing("upper")),
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inputs=st.lists(ITEM, max_size=6),
    values=st.lists(VALUE, min_size=1, max_size=4),
    relation=st.sampled_from(sorted(RELATIONS)),
    threshold=st.one_of(st.floats(allow_nan=True), st.integers(-1, 2)),
)
@example(inputs=["0"], values=[float("nan")], relation="mft", threshold=2.225073858507203e-309)  # overflowed once
def test_a_suite_on_arbitrary_inputs_and_outputs_is_finite_or_refused(inputs, values, relation, threshold):
    suite = Suite("p", n_boot=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            suite.add("t", RELATIONS[relation](), inputs, threshold=threshold)
        except MtlibInputError as err:
            assert err.argument in ("inputs", "threshold", "name") or err.argument.startswith("inputs[")
            return

    def model(texts: list[str]) -> np.ndarray:
        return np.array([values[len(t) % len(values)] for t in texts])

    try:
        result = suite.run(model)
    except MtlibInputError as err:
        assert "test 't'" in str(err) and ("NaN or infinite" in str(err) or "must lie in [0, 1]" in str(err))
        return
    t = result["t"]
    if t.cases:
        assert all(math.isfinite(v) for v in (t.rate, t.ci_low, t.ci_high, t.gate_bound))
        assert 0 <= t.ci_low <= t.rate <= t.ci_high <= 1
    else:
        assert t.note and not t.passed


@settings(max_examples=80, deadline=None)
@given(
    fillers=st.dictionaries(
        st.sampled_from(["a", "b", "c"]),
        st.one_of(st.lists(st.one_of(st.text(max_size=5), st.integers(), st.none()), max_size=4), st.integers()),
        max_size=3,
    ),
    sample=st.one_of(st.none(), st.integers(-2, 30)),
    label=st.one_of(st.none(), st.text(max_size=3), st.lists(st.text(max_size=2), max_size=3)),
)
def test_a_template_from_arbitrary_fillers_writes_rows_or_is_refused(fillers, sample, label):
    pattern = " ".join("{" + k + "}" for k in sorted(fillers)) or "constant"
    try:
        frame = Template(pattern, fillers, sample, 0, label).frame()
    except MtlibInputError as err:
        assert str(err)
        return
    assert list(frame.columns[:1]) == ["text"] and frame["text"].map(type).eq(str).all()
    assert len(frame) == (sample if sample is not None else len(frame))
