"""Spearman with a bootstrap interval and partial Spearman (mtlib.analysis.rank_correlation)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mtlib.analysis.rank_correlation import partial_spearman, spearman_ci, undefined_reason


def test_spearman_ci_and_partial():
    rng = np.random.default_rng(0)
    length = rng.integers(2, 30, size=400).astype(float)
    x = length + rng.normal(scale=3, size=400)
    y = length + rng.normal(scale=3, size=400)
    res = spearman_ci(x, y, n_boot=300, seed=0)
    assert res["rho"] > 0.6 and res["ci_low"] < res["rho"] < res["ci_high"] and res["p_value"] < 1e-10
    assert res["rho"] == pytest.approx(stats.spearmanr(x, y).statistic)
    part = partial_spearman(x, y, length, n_boot=300, seed=0)
    assert abs(part["rho"]) < 0.15 and part["ci_low"] < part["rho"] < part["ci_high"]
    y_nan = y.copy()
    y_nan[:7] = np.nan
    assert spearman_ci(x, y_nan, n_boot=0)["n_dropped"] == 7


def test_bootstrap_interval_is_seeded_and_absent_without_resamples():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=50), rng.normal(size=50)
    a, b = spearman_ci(x, y, n_boot=100, seed=3), spearman_ci(x, y, n_boot=100, seed=3)
    assert a == b and a["ci_low"] != spearman_ci(x, y, n_boot=100, seed=4)["ci_low"]
    none = spearman_ci(x, y, n_boot=0)
    assert none["rho"] == a["rho"] and np.isnan(none["ci_low"]) and np.isnan(none["ci_high"])


def test_partial_spearman_matches_residual_definition():
    rng = np.random.default_rng(2)
    z = rng.normal(size=200)
    x, y = z + rng.normal(size=200), -z + 0.5 * rng.normal(size=200)
    rx, ry, rz = (stats.rankdata(v) for v in (x, y, z))
    res_x = rx - np.polyval(np.polyfit(rz, rx, 1), rz)
    res_y = ry - np.polyval(np.polyfit(rz, ry, 1), rz)
    expected = np.corrcoef(res_x, res_y)[0, 1]
    assert partial_spearman(x, y, z, n_boot=0)["rho"] == pytest.approx(expected, abs=1e-10)


def test_too_few_pairs_give_nan_and_say_why():
    assert np.isnan(spearman_ci([1.0, 2.0], [2.0, 1.0])["rho"]) and np.isnan(
        partial_spearman([1, 2, 3], [3, 2, 1], [1, 1, 2])["rho"]
    )
    with pytest.warns(stats.ConstantInputWarning):
        assert np.isnan(spearman_ci([1, 2, 3, 4], [5, 5, 5, 5], n_boot=10)["rho"])  # a constant column
    assert undefined_reason(2, 3, "train sentences") == "only 2 train sentences: a Spearman correlation needs 3"
    assert undefined_reason(3, 4, "x", partial=True) == "only 3 x: a partial Spearman correlation needs 4"
    assert undefined_reason(9, 3, "x") == "Spearman's rho is undefined over these 9 x (a constant column)"
    assert "or one perfectly correlated with length" in undefined_reason(9, 4, "x", partial=True)
