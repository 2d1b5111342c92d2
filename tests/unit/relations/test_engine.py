"""The counting engine's two paths: numpy on the host and torch on a device (here the CPU), value for value.

Every count is exact, so the torch path must give the numpy path's integers,
and the batched replicates must give the per-replicate counts, for the same
seeded weights. The torch tests run on the CPU device; a GPU runs the same code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtlib.analysis import stats
from mtlib.relations import ThreeWayTransitivity, bootstrap, counting_torch, kernels
from mtlib.relations.counting import count_order_violations, count_transitivity_violations
from mtlib.relations.errors import MtlibInputError
from mtlib.relations.exactness import product_dtype
from mtlib.relations.replicates import (
    as_weight_matrix,
    order_replicates,
    transitivity_replicates,
    weighted_sums,
)
from mtlib.utils.arrays import namespace
from tests.unit.relations.test_counting import adjacency, score_pairs

pytest.importorskip("torch")

DEVICE = "cpu"


def _weights(data: st.DataObject, n: int, n_boot: int) -> np.ndarray:
    """Seeded multinomial replicate weights, or small random integers (zeros and repeats)."""
    if data.draw(st.booleans()):
        return bootstrap.bootstrap_weights(n, n_boot, data.draw(st.integers(0, 1000)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    return rng.integers(0, 4, (n_boot, n))


@settings(max_examples=60, deadline=None)
@given(adjacency(max_n=14), st.data())
def test_transitivity_replicates_equal_per_replicate_counts(adj: np.ndarray, data: st.DataObject) -> None:
    w = _weights(data, len(adj), 5)
    expected = [count_transitivity_violations(adj, weights=row, per_item=False) for row in w]
    for device in (None, DEVICE):
        got = transitivity_replicates(adj, w, device=device)
        assert got.violations.tolist() == [r.violations for r in expected]
        assert got.cases.tolist() == [r.cases for r in expected]


@settings(max_examples=60, deadline=None)
@given(adjacency(max_n=12), st.booleans(), st.data())
def test_torch_exact_transitivity_equals_numpy(adj: np.ndarray, weighted: bool, data: st.DataObject) -> None:
    w = _weights(data, len(adj), 1)[0] if weighted else None
    block = data.draw(st.integers(1, 5))
    host = count_transitivity_violations(adj, weights=w, block_size=block)
    torch_path = count_transitivity_violations(adj, weights=w, block_size=block, device=DEVICE)
    assert (torch_path.cases, torch_path.violations) == (host.cases, host.violations)
    assert np.array_equal(torch_path.per_item, host.per_item)
    assert np.array_equal(torch_path.per_item_cases, host.per_item_cases)
    assert torch_path.rate == host.rate or (math.isnan(torch_path.rate) and math.isnan(host.rate))


@settings(max_examples=80, deadline=None)
@given(score_pairs(max_n=60), st.sampled_from(["same", "opposite"]), st.booleans(), st.data())
def test_torch_order_count_equals_numpy(
    pair: tuple[np.ndarray, np.ndarray], expected: str, weighted: bool, data: st.DataObject
) -> None:
    src, flw = pair
    w = _weights(data, len(src), 1)[0] if weighted else None
    host = count_order_violations(src, flw, expected=expected, weights=w, per_item=True)
    torch_path = count_order_violations(src, flw, expected=expected, weights=w, per_item=True, device=DEVICE)
    for field in ("n", "cases", "violations", "ties_src", "ties_flw"):
        assert getattr(torch_path, field) == getattr(host, field), field
    assert np.array_equal(torch_path.per_item, host.per_item)
    assert np.array_equal(torch_path.per_item_cases, host.per_item_cases)


@settings(max_examples=60, deadline=None)
@given(score_pairs(max_n=40), st.sampled_from(["same", "opposite"]), st.data())
def test_order_replicates_equal_per_replicate_counts(
    pair: tuple[np.ndarray, np.ndarray], expected: str, data: st.DataObject
) -> None:
    src, flw = pair
    w = _weights(data, len(src), 4)
    per = [count_order_violations(src, flw, expected=expected, weights=row) for row in w]
    for device in (None, DEVICE):
        got = order_replicates(src, flw, w, expected=expected, device=device)
        assert got.violations.tolist() == [r.violations for r in per]
        assert got.cases.tolist() == [r.cases for r in per]


def test_order_replicates_past_the_dense_limit_count_per_replicate(monkeypatch: pytest.MonkeyPatch) -> None:
    from mtlib.relations import replicates

    rng = np.random.default_rng(0)
    src, flw = rng.integers(0, 5, 50).astype(float), rng.integers(0, 5, 50).astype(float)
    w = bootstrap.bootstrap_weights(50, 6, 1)
    dense = order_replicates(src, flw, w)
    monkeypatch.setattr(replicates, "DENSE_ORDER_MAX", 10)
    sorted_path = order_replicates(src, flw, w)
    assert dense.violations.tolist() == sorted_path.violations.tolist()
    assert dense.cases.tolist() == sorted_path.cases.tolist()


def test_bootstrap_replicates_are_identical_on_host_and_device() -> None:
    rng = np.random.default_rng(3)
    adj = rng.random((40, 40)) < 0.3
    host = bootstrap.bootstrap_transitivity_rates(adj, n_boot=50, seed=7)
    device = bootstrap.bootstrap_transitivity_rates(adj, n_boot=50, seed=7, device=DEVICE)
    assert np.array_equal(host, device)
    # and each replicate is the exact weighted count of the seeded weights
    w = bootstrap.bootstrap_weights(40, 50, 7)
    for b in (0, 17, 49):
        r = count_transitivity_violations(adj, weights=w[b], per_item=False)
        assert host[b] == r.violations / r.cases


def test_relation_check_gives_the_same_result_on_host_and_device() -> None:
    rng = np.random.default_rng(5)
    adj = rng.random((30, 30)) < 0.4
    host = ThreeWayTransitivity("t").check(adj, n_boot=30, seed=2)
    device = ThreeWayTransitivity("t").check(adj, n_boot=30, seed=2, device=DEVICE)
    assert (host.cases, host.violations, host.ci_low, host.ci_high) == (
        device.cases,
        device.violations,
        device.ci_low,
        device.ci_high,
    )
    assert host.per_item.equals(device.per_item)


def test_cluster_permutation_test_is_the_same_batched_on_host_and_device() -> None:
    rng = np.random.default_rng(0)
    cases = rng.integers(5, 50, 20)
    violations = rng.binomial(cases, 0.3)
    labels = np.array(["up"] * 9 + ["down"] * 11)
    host = stats.cluster_permutation_test(violations, cases, labels, permutations=300, seed=4)
    device = stats.cluster_permutation_test(violations, cases, labels, permutations=300, seed=4, device=DEVICE)
    assert host == device

    # the per-shuffle form of the same test (the statistic called once per shuffle) agrees exactly
    v, c = violations.astype(float), cases.astype(float)
    is_a = labels == "down"

    def diff(mask: np.ndarray) -> float:
        return v[mask].sum() / c[mask].sum() - v[~mask].sum() / c[~mask].sum()

    observed, p = stats.permutation_test(diff, is_a, permutations=300, seed=4, two_sided=True)
    assert (observed, p) == (host["difference"], host["p_value"])


def test_weighted_sums_host_and_device() -> None:
    w = bootstrap.bootstrap_weights(6, 4, 0)
    values = np.arange(12).reshape(6, 2)
    assert np.array_equal(weighted_sums(w, values), w @ values)
    assert np.array_equal(weighted_sums(w, values, device=DEVICE), w @ values)
    assert np.array_equal(weighted_sums(w, values[:, 0], device=DEVICE), w @ values[:, 0])
    with pytest.raises(MtlibInputError, match="integer counts"):
        weighted_sums(w, np.full(6, 0.5))


def test_float_products_switch_to_float64_past_the_float32_bound() -> None:
    """A total weight of 2**24 or more cannot be summed exactly in float32: the products move to float64."""
    src, flw = np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0, 1.0])
    w = np.array([[2**24 + 1, 1, 3]])
    expected = count_order_violations(src, flw, weights=w[0])
    assert (product_dtype(2**24 - 1), product_dtype(2**24 + 5)) == ("float32", "float64")
    assert namespace(DEVICE).dtype(product_dtype(2**24 + 5)) is namespace(DEVICE).torch.float64
    for device in (None, DEVICE):
        got = order_replicates(src, flw, w, device=device)
        assert (int(got.violations[0]), int(got.cases[0])) == (expected.violations, expected.cases)


def test_triples_past_the_int64_bound_are_refused() -> None:
    with pytest.raises(MtlibInputError, match="too large"):
        transitivity_replicates(np.ones((3, 3), bool), np.array([[2**21, 0, 0]]))


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        (np.ones((2, 4)), r"shape \(B, 3\)"),
        (np.array([[1, -1, 0]]), r"weights\[0, 1\] is -1"),
        (np.array([[1.5, 0, 0]]), "non-negative integers"),
        (np.array([["a", "b", "c"]]), "dtype"),
    ],
)
def test_weight_matrix_validation(weights: np.ndarray, match: str) -> None:
    with pytest.raises(MtlibInputError, match=match):
        as_weight_matrix(weights, 3)


def test_threaded_host_count_equals_per_replicate_counts() -> None:
    """Past 256 items the host shares the middle items among threads: the same integers."""
    rng = np.random.default_rng(11)
    adj = rng.random((300, 300)) < 0.2
    w = bootstrap.bootstrap_weights(300, 3, 0)
    got = transitivity_replicates(adj, w)
    for b, row in enumerate(w):
        r = count_transitivity_violations(adj, weights=row, per_item=False)
        assert (int(got.violations[b]), int(got.cases[b])) == (r.violations, r.cases)


def test_statistics_device_is_a_deprecated_alias_of_the_run_context_rule() -> None:
    """``stats_device`` is defined once (``RunContext``); the old function warns and gives the same answer."""
    from mtlib.utils.context import RunContext

    for device in (None, "cpu", "host"):
        with pytest.warns(DeprecationWarning, match="RunContext"):
            assert counting_torch.statistics_device(device) is None
    assert RunContext(device="cpu").stats_device is None and RunContext(device="cuda:1").stats_device == "cuda:1"


@settings(max_examples=40, deadline=None)
@given(score_pairs(max_n=30), st.sampled_from(["same", "opposite"]), st.integers(1, 7), st.data())
def test_order_replicates_in_row_blocks_equal_the_whole_matrix(
    pair: tuple[np.ndarray, np.ndarray], expected: str, rows: int, data: st.DataObject
) -> None:
    """The kernel builds V a block of rows at a time (both orders per block) or whole (one order, transposed)."""
    src, flw = pair
    w = as_weight_matrix(_weights(data, len(src), 3), len(src))
    for device in (None, DEVICE):
        xp = namespace(device)
        whole = kernels.order_replicates(xp, src, flw, expected, w, max(len(src), 1))
        blocked = kernels.order_replicates(xp, src, flw, expected, w, rows)
        assert np.array_equal(whole[0], blocked[0]) and np.array_equal(whole[1], blocked[1])
