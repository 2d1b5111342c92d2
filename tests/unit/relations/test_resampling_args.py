"""The statistics' own arguments: one check of replicate counts and seeds, exact bounds, replicates in blocks."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib.analysis import stats
from mtlib.relations import MtlibInputError, bootstrap, replicates
from mtlib.relations.pairwise import PairwiseSystematicity
from mtlib.relations.transformations import Concatenation

SRC, FLW = np.arange(6.0), np.array([0.0, 2.0, 1.0, 3.0, 5.0, 4.0])


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda n: bootstrap.bootstrap_order_rate(SRC, FLW, n_boot=n), "bootstrap_order_rate: n_boot"),
        (lambda n: bootstrap.bootstrap_transitivity_rates(np.eye(3), n_boot=n), "bootstrap_transitivity_rates"),
        (lambda n: bootstrap.bootstrap_rate(lambda w: (0, 1), 3, n_boot=n), "bootstrap_rates: n_boot"),
        (lambda n: bootstrap.bootstrap_weights(3, n, 0), "bootstrap_weights: n_boot"),
        (lambda n: stats.permutation_test(np.mean, np.arange(4), permutations=n), "permutations"),
        (
            lambda n: stats.cluster_permutation_test([1, 2], [3, 4], ["a", "b"], permutations=n),
            "cluster_permutation_test: permutations",
        ),
    ],
)
@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10", None])
def test_replicate_counts_are_integers_of_at_least_one(call, words, bad):
    with pytest.raises(MtlibInputError, match=words):
        call(bad)


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, "0"])
def test_seeds_follow_the_seed_rule(seed):
    with pytest.raises(MtlibInputError, match="seed must be an integer in"):
        bootstrap.bootstrap_order_rate(SRC, FLW, n_boot=5, seed=seed)
    with pytest.raises(MtlibInputError, match="seed"):
        PairwiseSystematicity("p", Concatenation("x")).check(SRC, FLW, seed=seed)


def test_zero_replicates_still_skip_an_interval_where_documented():
    res = PairwiseSystematicity("p", Concatenation("x")).check(SRC, FLW, n_boot=0)
    assert res.ci_method == "none" and np.isnan(res.ci_low)


@pytest.mark.parametrize("value", [np.nan, 2, -1, 0.5])
def test_transitivity_bootstrap_checks_the_matrix_before_casting(value):
    adj = np.ones((4, 4))
    adj[1, 2] = value
    with pytest.raises(MtlibInputError, match=r"adj\[1, 2\]"):
        bootstrap.bootstrap_transitivity_rates(adj, n_boot=3)


@pytest.mark.parametrize(("n_items", "n_boot", "rows"), [(7, 50, 1), (7, 50, 13), (400, 30, 7), (0, 4, 3)])
def test_blocks_are_the_same_replicates_as_one_draw(n_items, n_boot, rows):
    """The draw before blocks: one multinomial of size n_boot from the seeded generator."""
    rng = np.random.default_rng(11)
    before = (
        rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=n_boot)
        if n_items
        else np.zeros((n_boot, 0), np.int64)
    )
    blocks = list(bootstrap.weight_blocks(n_items, n_boot, 11, rows=rows))
    assert len(blocks) == -(-n_boot // rows)
    np.testing.assert_array_equal(np.concatenate(blocks), before)
    np.testing.assert_array_equal(bootstrap.bootstrap_weights(n_items, n_boot, 11), before)


def test_block_memory_is_bounded_whatever_n_boot(monkeypatch):
    monkeypatch.setattr(bootstrap, "_BLOCK_BYTES", 8 * 400 * 100)  # 100 rows of 400 items per block
    sizes = {len(w) for w in bootstrap.weight_blocks(400, 1_000, 0)}
    assert sizes == {100}
    one = bootstrap.bootstrap_order_rate(np.arange(400.0), np.arange(400.0)[::-1], n_boot=250, seed=3)
    monkeypatch.setattr(bootstrap, "_BLOCK_BYTES", 2**30)
    assert bootstrap.bootstrap_order_rate(np.arange(400.0), np.arange(400.0)[::-1], n_boot=250, seed=3) == one


def test_permutation_blocks_are_the_same_shuffles(monkeypatch):
    labels = np.array([0, 0, 1, 1, 1, 0, 1])
    whole = stats.cluster_permutation_test(np.arange(7), np.arange(7) + 3, labels, permutations=99)
    monkeypatch.setattr(stats, "_SHUFFLE_BLOCK", 7 * 5)
    assert stats.cluster_permutation_test(np.arange(7), np.arange(7) + 3, labels, permutations=99) == whole


@pytest.mark.parametrize(
    ("violations", "cases", "words"),
    [
        ([5, 1], [3, 4], "cluster 0 has 5 violations of 3 cases"),
        ([1, -1], [3, 4], "cluster 1"),
        ([1], [2, 3], "one entry"),
    ],
)
def test_cluster_permutation_test_refuses_impossible_counts(violations, cases, words):
    with pytest.raises(MtlibInputError, match=words):
        stats.cluster_permutation_test(violations, cases, ["a", "b"], permutations=10)


def test_order_replicates_stay_exact_past_2_53():
    """Squared total weight past 2**53: the numpy engine switches to int64 sums (a float64 one is off by one)."""
    s, f = np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.0, 2.0])
    w = np.array([[2**27 + 1, 2**27 + 3, 5]])
    got = replicates.order_replicates(s, f, w)
    expected = int(w[0, 0]) * int(w[0, 1])  # the only violated pair is (0, 1)
    assert int(got.violations[0]) == expected
    assert int(got.cases[0]) == int(w[0, 0]) * int(w[0, 1]) + int(w[0, 0]) * 5 + int(w[0, 1]) * 5


def test_counts_past_int64_are_refused_not_wrapped():
    with pytest.raises(MtlibInputError, match=r"order_replicates: .*total\*\*2 < 2\*\*63"):
        replicates.order_replicates([0.0, 1.0], [0.0, 1.0], [[2**31, 2**31]])
    with pytest.raises(MtlibInputError, match="weighted_sums"):
        replicates.weighted_sums([[2**40, 1]], [2**30, 1])


def test_cuda_without_cuda_is_the_run_contexts_message():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ValueError, match="torch sees no CUDA GPU"):
        replicates.order_replicates(SRC, FLW, [[1] * 6], device="cuda")
