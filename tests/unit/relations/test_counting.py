"""Tests of the exact violation counts against the naive loops."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mtlib.relations.counting import (
    OrderCount,
    TransitivityCount,
    count_order_violations,
    count_transitivity_violations,
)
from tests.unit.relations.counting_naive import count_order_violations_naive, count_transitivity_violations_naive

# Value pools with many ties (tiny integer sets, one-decimal floats) and one
# with few, so that every tie path of the counts is exercised.
_POOLS = (
    st.integers(0, 1).map(float),
    st.integers(0, 4).map(float),
    st.floats(-1, 1).map(lambda x: round(x, 1)),
    st.floats(-1e3, 1e3),
)
_DIRECTIONS = st.sampled_from(["same", "opposite"])


@st.composite
def scores(draw: st.DrawFn, n: int) -> np.ndarray:
    """Shape (n,) scores from a tie-heavy pool, either shrinkable hypothesis
    arrays or seeded numpy draws (which spread the values more evenly)."""
    if draw(st.booleans()):
        return draw(arrays(np.float64, n, elements=draw(st.sampled_from(_POOLS))))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.integers(0, draw(st.integers(1, 6)), n).astype(float)


@st.composite
def score_pairs(draw: st.DrawFn, max_n: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal-length (src, flw) score arrays with many ties."""
    n = draw(st.integers(0, max_n))
    return draw(scores(n)), draw(scores(n))


@st.composite
def adjacency(draw: st.DrawFn, max_n: int) -> np.ndarray:
    """Boolean matrices: hypothesis-drawn, seeded dense random, symmetric,
    all-True and all-False ones."""
    n = draw(st.integers(0, max_n))
    shape = draw(st.sampled_from(["drawn", "dense", "symmetric", "full", "empty"]))
    if shape == "full":
        return np.ones((n, n), bool)
    if shape == "empty":
        return np.zeros((n, n), bool)
    if shape == "drawn":
        return draw(arrays(bool, (n, n)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    adj = rng.random((n, n)) < draw(st.floats(0.1, 0.9))
    return adj | adj.T if shape == "symmetric" else adj


def _scalars(result: OrderCount | TransitivityCount) -> dict:
    """Scalar fields with nan made comparable."""
    return {k: "nan" if isinstance(v, float) and math.isnan(v) else v for k, v in result.to_dict().items()}


def _assert_equal_counts(fast: OrderCount | TransitivityCount, ref: OrderCount | TransitivityCount) -> None:
    assert _scalars(fast) == _scalars(ref)
    np.testing.assert_array_equal(fast.per_item, ref.per_item)
    np.testing.assert_array_equal(fast.per_item_cases, ref.per_item_cases)


def _copy_index(weights: np.ndarray, i: int) -> int:
    """Index of the first copy of item i in np.repeat(..., weights)."""
    return int(weights[:i].sum())


def _expanded_transitivity(adj: np.ndarray, weights: np.ndarray) -> TransitivityCount:
    """Naive count over the copies of the items, skipping triples that hold
    two copies of one item."""
    items = np.repeat(np.arange(len(weights)), weights)
    a = np.asarray(adj, bool).copy()
    np.fill_diagonal(a, False)
    m = len(items)
    cases = violations = 0
    per_item = np.zeros(m, np.int64)
    per_item_cases = np.zeros(m, np.int64)
    for x in range(m):
        for y in range(m):
            for z in range(m):
                i, j, k = items[x], items[y], items[z]
                if len({i, j, k}) < 3 or not (a[i, j] and a[j, k]):
                    continue
                cases += 1
                per_item_cases[[x, y, z]] += 1
                if not a[i, k]:
                    violations += 1
                    per_item[[x, y, z]] += 1
    return TransitivityCount(
        n=m,
        cases=cases,
        violations=violations,
        rate=violations / cases if cases else math.nan,
        sampled=False,
        n_sampled=None,
        per_item=per_item,
        per_item_cases=per_item_cases,
    )


# --- order violations: properties ------------------------------------------


@settings(max_examples=150, deadline=None)
@given(score_pairs(max_n=150), _DIRECTIONS)
def test_order_fast_equals_naive(pair: tuple[np.ndarray, np.ndarray], expected: str) -> None:
    src, flw = pair
    fast = count_order_violations(src, flw, expected=expected, per_item=True)
    _assert_equal_counts(fast, count_order_violations_naive(src, flw, expected=expected))
    assert int(fast.per_item.sum()) == 2 * fast.violations


@settings(max_examples=60, deadline=None)
@given(score_pairs(max_n=15), _DIRECTIONS, st.data())
def test_order_weighted_equals_expanded(
    pair: tuple[np.ndarray, np.ndarray], expected: str, data: st.DataObject
) -> None:
    src, flw = pair
    w = data.draw(arrays(np.int64, src.size, elements=st.integers(0, 3)))
    fast = count_order_violations(src, flw, expected=expected, per_item=True, weights=w)
    expanded = count_order_violations_naive(np.repeat(src, w), np.repeat(flw, w), expected=expected)
    assert fast.n == src.size
    assert {**_scalars(fast), "n": None} == {**_scalars(expanded), "n": None}
    assert int(w @ fast.per_item) == 2 * fast.violations
    # per_item[i] is the count of a single copy of item i, which does not depend
    # on w[i]; a weight-0 item is given one copy to read it off the expansion.
    for i in range(src.size):
        wi = w.copy()
        wi[i] = max(wi[i], 1)
        ref = count_order_violations_naive(np.repeat(src, wi), np.repeat(flw, wi), expected=expected)
        assert fast.per_item[i] == ref.per_item[_copy_index(wi, i)]
        assert fast.per_item_cases[i] == ref.per_item_cases[_copy_index(wi, i)]


@pytest.mark.parametrize("weighted", [False, True])
def test_order_matches_vectorised_reference_beyond_hypothesis_sizes(weighted: bool) -> None:
    rng = np.random.default_rng(7)
    n = 3001
    src = rng.integers(0, 50, n).astype(float)
    flw = np.round(src / 50 + rng.normal(0, 0.3, n), 1)
    w = rng.integers(0, 4, n) if weighted else np.ones(n, np.int64)
    ds = np.sign(src[:, None] - src[None, :])
    df = np.sign(flw[:, None] - flw[None, :])
    is_case = ds != 0
    for expected, direction in (("same", 1), ("opposite", -1)):
        violated = is_case & (df != direction * ds)
        result = count_order_violations(src, flw, expected=expected, per_item=True, weights=w if weighted else None)
        assert result.cases == int(w @ is_case @ w) // 2
        assert result.violations == int(w @ violated @ w) // 2
        assert result.ties_flw == int(w @ (is_case & (df == 0)) @ w) // 2
        np.testing.assert_array_equal(result.per_item, violated @ w)
        np.testing.assert_array_equal(result.per_item_cases, is_case @ w)


# --- order violations: edge cases and validation -----------------------------


@pytest.mark.parametrize("n", [0, 1, 2])
def test_order_tiny_inputs(n: int) -> None:
    src = np.arange(n, dtype=float)
    result = count_order_violations(src, src, per_item=True)
    assert result.cases == (1 if n == 2 else 0)
    assert result.violations == 0
    assert result.per_item.shape == result.per_item_cases.shape == (n,)
    if n < 2:
        assert math.isnan(result.rate)


def test_order_all_equal_src() -> None:
    n = 7
    result = count_order_violations(np.full(n, 0.5), np.arange(n, dtype=float), per_item=True)
    assert result.cases == result.violations == 0
    assert math.isnan(result.rate)
    assert result.ties_src == n * (n - 1) // 2
    np.testing.assert_array_equal(result.per_item_cases, np.zeros(n))


@pytest.mark.parametrize("expected", ["same", "opposite"])
def test_order_all_equal_flw_violates_every_case(expected: str) -> None:
    src = np.array([0.1, 0.2, 0.2, 0.9, 0.4])
    result = count_order_violations(src, np.zeros(5), expected=expected)
    assert result.cases == 9
    assert result.violations == result.ties_flw == 9
    assert result.rate == 1.0


def test_order_directions_are_complementary_without_flw_ties() -> None:
    rng = np.random.default_rng(3)
    src = rng.integers(0, 5, 200).astype(float)
    flw = rng.permutation(200).astype(float)
    same = count_order_violations(src, flw)
    opposite = count_order_violations(src, flw, expected="opposite")
    assert same.violations + opposite.violations == same.cases


def test_order_result_fields() -> None:
    result = count_order_violations([1.0, 2.0, 3.0], [3.0, 2.0, 1.0])
    assert result.per_item is None and result.per_item_cases is None
    assert result.to_dict() == {
        "n": 3,
        "cases": 3,
        "violations": 3,
        "rate": 1.0,
        "ties_src": 0,
        "ties_flw": 0,
        "expected": "same",
    }
    with_items = count_order_violations([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], per_item=True)
    assert with_items.per_item.dtype == np.int64
    assert not with_items.per_item.flags.writeable


def test_order_accepts_integer_scores() -> None:
    big = 2**60
    result = count_order_violations(np.array([big, big + 1]), np.array([1, 0]))
    assert (result.cases, result.violations) == (1, 1)


@pytest.mark.parametrize(("name", "value"), [("src", np.nan), ("flw", np.inf), ("src", -np.inf)])
def test_order_rejects_non_finite(name: str, value: float) -> None:
    arrays_ = {"src": np.arange(6, dtype=float), "flw": np.arange(6, dtype=float)}
    arrays_[name][3] = value
    with pytest.raises(ValueError, match=rf"{name}\[3\] is {value}"):
        count_order_violations(arrays_["src"], arrays_["flw"])


@pytest.mark.parametrize(
    ("src", "flw", "kwargs", "match"),
    [
        (np.zeros(3), np.zeros(4), {}, "equal lengths"),
        (np.zeros((2, 2)), np.zeros((2, 2)), {}, "1-D"),
        (np.array(["a", "b"]), np.zeros(2), {}, "numeric"),
        (np.zeros(2), np.zeros(2), {"expected": "up"}, "'same' or 'opposite'"),
        (np.zeros(2), np.zeros(2), {"weights": [1, -1]}, r"weights\[1\]"),
        (np.zeros(2), np.zeros(2), {"weights": [1.0, 0.5]}, "non-negative integers"),
        (np.zeros(2), np.zeros(2), {"weights": [1, 1, 1]}, "shape"),
    ],
)
def test_order_validation(src: np.ndarray, flw: np.ndarray, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        count_order_violations(src, flw, **kwargs)


def test_order_accepts_integral_float_weights() -> None:
    src, flw = np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0, 1.0])
    a = count_order_violations(src, flw, weights=np.array([2.0, 0.0, 1.0]))
    b = count_order_violations(src, flw, weights=np.array([2, 0, 1]))
    assert a.to_dict() == b.to_dict()


# --- transitivity: properties ------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(adjacency(max_n=12))
def test_transitivity_fast_equals_naive(adj: np.ndarray) -> None:
    fast = count_transitivity_violations(adj)
    _assert_equal_counts(fast, count_transitivity_violations_naive(adj))
    assert int(fast.per_item.sum()) == 3 * fast.violations
    _assert_equal_counts(count_transitivity_violations(adj, block_size=3), fast)


@settings(max_examples=40, deadline=None)
@given(adjacency(max_n=6), st.data())
def test_transitivity_weighted_equals_expanded(adj: np.ndarray, data: st.DataObject) -> None:
    n = adj.shape[0]
    w = data.draw(arrays(np.int64, n, elements=st.integers(0, 3)))
    fast = count_transitivity_violations(adj, weights=w, block_size=2)
    expanded = _expanded_transitivity(adj, w)
    assert (fast.cases, fast.violations) == (expanded.cases, expanded.violations)
    assert int(w @ fast.per_item) == 3 * fast.violations
    for i in range(n):
        wi = w.copy()
        wi[i] = max(wi[i], 1)
        ref = expanded if wi[i] == w[i] else _expanded_transitivity(adj, wi)
        assert fast.per_item[i] == ref.per_item[_copy_index(wi, i)]
        assert fast.per_item_cases[i] == ref.per_item_cases[_copy_index(wi, i)]


# --- transitivity: edge cases, sampling, validation --------------------------


def test_transitivity_diagonal_is_ignored_and_01_accepted() -> None:
    rng = np.random.default_rng(5)
    adj = rng.random((9, 9)) < 0.5
    with_diag = adj.copy()
    np.fill_diagonal(with_diag, True)
    _assert_equal_counts(
        count_transitivity_violations(with_diag.astype(np.int8)),
        count_transitivity_violations(adj),
    )


@pytest.mark.parametrize("n", [0, 1, 2])
def test_transitivity_fewer_than_three_items(n: int) -> None:
    for result in (
        count_transitivity_violations(np.ones((n, n), bool)),
        count_transitivity_violations(np.ones((n, n), bool), sample=100),
    ):
        assert result.cases == result.violations == 0
        assert math.isnan(result.rate)
        assert result.per_item.shape == (n,)


def test_transitivity_without_per_item() -> None:
    adj = np.random.default_rng(6).random((20, 20)) < 0.3
    full = count_transitivity_violations(adj)
    bare = count_transitivity_violations(adj, per_item=False)
    assert bare.per_item is None and bare.per_item_cases is None
    assert bare.to_dict() == full.to_dict()


def test_transitivity_sampled_is_deterministic() -> None:
    adj = np.random.default_rng(8).random((30, 30)) < 0.4
    a = count_transitivity_violations(adj, sample=5000, seed=11)
    b = count_transitivity_violations(adj, sample=5000, seed=11)
    assert a.sampled and a.n_sampled == 5000
    assert a.to_dict() == b.to_dict()
    np.testing.assert_array_equal(a.per_item, b.per_item)
    assert int(a.per_item.sum()) == 3 * a.violations
    assert int(a.per_item_cases.sum()) == 3 * a.cases


def test_transitivity_sampled_rate_is_close_to_exact() -> None:
    adj = np.random.default_rng(9).random((60, 60)) < 0.5
    exact = count_transitivity_violations(adj, per_item=False)
    sampled = count_transitivity_violations(adj, sample=200_000, seed=1, per_item=False)
    assert abs(sampled.rate - exact.rate) < 0.05


def test_transitivity_sampled_triples_are_distinct() -> None:
    # With every pair adjacent, each distinct triple is a case and never
    # violated; a repeated index would hit the ignored diagonal.
    result = count_transitivity_violations(np.ones((4, 4), bool), sample=50_000, seed=4)
    assert result.cases == 50_000
    assert result.violations == 0


def test_transitivity_sampled_triples_are_uniform() -> None:
    # Only triples (0, 1, 2) are cases, and always violated: about 1 in 6 * 20
    # ordered triples of 6 items drawn hits it.
    adj = np.zeros((6, 6), bool)
    adj[0, 1] = adj[1, 2] = True
    result = count_transitivity_violations(adj, sample=120_000, seed=2)
    assert result.cases == result.violations
    assert abs(result.cases / 120_000 - 1 / 120) < 0.002


@pytest.mark.parametrize(
    ("adj", "kwargs", "match"),
    [
        (np.zeros((3, 4), bool), {}, "square"),
        (np.zeros((2, 2, 2), bool), {}, "square"),
        (np.array([[0, 2], [1, 0]]), {}, r"adj\[0, 1\] = 2"),
        (np.array([[0.0, np.nan], [1.0, 0.0]]), {}, "0/1"),
        (np.array([["a", "b"], ["c", "d"]]), {}, "dtype"),
        (np.zeros((3, 3), bool), {"sample": 0}, "sample"),
        (np.zeros((3, 3), bool), {"block_size": 0}, "block_size"),
        (np.zeros((3, 3), bool), {"weights": [1, 2]}, "shape"),
        (np.zeros((3, 3), bool), {"weights": [1, 1, 1], "sample": 10}, "exact count"),
    ],
)
def test_transitivity_validation(adj: np.ndarray, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        count_transitivity_violations(adj, **kwargs)
