"""The paired statistics against direct computations: statsmodels' McNemar and Holm, a per-replicate loop."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from mtlib.analysis.paired_tests import group_sums, holm, paired_replicates, sign_flip_p
from mtlib.paired.stats import paired_stats
from mtlib.relations.bootstrap import bootstrap_weights, wilson_interval

RNG = np.random.default_rng(5)


def _pair(n: int, p: float = 0.6, flip: float = 0.15) -> tuple[np.ndarray, np.ndarray]:
    a = (RNG.random(n) < p).astype(float)
    return a, np.where(RNG.random(n) < flip, 1 - a, a)


@pytest.mark.parametrize("n", [30, 200])
def test_mcnemar_is_statsmodels_exact_test_on_the_discordant_counts(n):
    a, b = _pair(n)
    row = paired_stats(np.arange(n), a, np.ones(n), b, np.ones(n), n_boot=200)
    table = pd.crosstab(pd.Categorical(a, [1.0, 0.0]), pd.Categorical(b, [1.0, 0.0]), dropna=False).to_numpy()
    assert (row["a_only"], row["b_only"]) == (table[0, 1], table[1, 0])
    assert row["test"] == "McNemar exact"
    assert row["p"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    assert (row["a_low"], row["a_high"]) == pytest.approx(wilson_interval(a.sum(), n))


def test_the_paired_bootstrap_equals_a_per_replicate_loop_over_the_same_draws():
    n, n_boot, seed = 120, 400, 3
    a, b = _pair(n)
    groups = np.repeat(np.arange(40), 3)  # 40 documents asked 3 ways each: resampled whole
    sums, sizes = group_sums(groups, a, np.ones(n), b, np.ones(n))
    kinds, counts = np.unique(sums, axis=0, return_counts=True)
    rng = np.random.default_rng(seed)  # the loop: one multinomial draw over the kinds of groups per replicate
    loop = []
    for _ in range(n_boot):
        w = rng.multinomial(len(sums), counts / len(sums))
        ta, na, tb, nb = w @ kinds
        loop.append(tb / nb - ta / na)
    tot = paired_replicates(sums, n_boot, seed)
    assert np.array_equal(tot[:, 2] / tot[:, 3] - tot[:, 0] / tot[:, 1], np.array(loop))
    row = paired_stats(groups, a, np.ones(n), b, np.ones(n), n_boot=n_boot, seed=seed)
    assert (row["diff_low"], row["diff_high"]) == tuple(np.quantile(loop, [0.025, 0.975]))
    assert row["n_groups"] == 40 and row["ci_method"] == "bootstrap over groups"
    assert row["test"] == "sign-flip permutation over groups"


def test_collapsed_replicates_have_the_distribution_of_item_replicates():
    n = 400
    a, b = _pair(n)
    sums, _ = group_sums(np.arange(n), a, np.ones(n), b, np.ones(n))
    collapsed = paired_replicates(sums, 4000, 1)
    items = bootstrap_weights(n, 4000, 2) @ sums  # the item-level resample mtlib's suite draws
    for rep in (collapsed, items):
        rep[:, 0] = rep[:, 2] / rep[:, 3] - rep[:, 0] / rep[:, 1]
    assert collapsed[:, 0].std() == pytest.approx(items[:, 0].std(), rel=0.08)
    assert collapsed[:, 0].mean() == pytest.approx(items[:, 0].mean(), abs=0.004)


def test_the_sign_flip_test_matches_a_loop_over_random_signs():
    d = np.round(RNG.normal(0.1, 1, 50), 1)
    p = sign_flip_p(d, 4000, 0)
    signs = np.random.default_rng(9).choice([-1, 1], size=(4000, d.size))
    direct = (1 + (np.abs(signs @ d) >= abs(d.sum()) * (1 - 1e-12)).sum()) / 4001
    assert p == pytest.approx(direct, abs=0.03)
    assert sign_flip_p(np.zeros(5), 100, 0) == 1.0


def test_holm_is_statsmodels_multipletests():
    p = np.r_[RNG.random(12) * 0.1, 0.5, 0.9, 0.002]
    assert np.allclose(holm(p), multipletests(p, method="holm")[1])
    assert np.isnan(holm([0.01, np.nan])[1])


def test_the_same_seed_gives_the_same_numbers():
    a, b = RNG.random(80), RNG.random(80)
    one = paired_stats(np.arange(80), a, np.ones(80), b, np.ones(80), n_boot=500, seed=4)
    assert one == paired_stats(np.arange(80), a, np.ones(80), b, np.ones(80), n_boot=500, seed=4)
    assert one["test"] == "sign-flip permutation" and one["ci_method"] == "bootstrap over items"
