"""The paired statistics written once (mtlib.analysis.paired_tests), and the three doors that use them.

One per-item data set given to ``mtlib.suite.compare``, to ``python -m mtlib.paired`` and to PSS's ``mcnemar`` gives
one McNemar p-value: statsmodels' ``mcnemar(exact=True)``. Before issue 56 the suite answered with the chi-square
form above 25 discordant items (0.00266 instead of 0.00222 for 10 vs 30).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from mtlib.analysis.paired_tests import benjamini_hochberg, holm, mcnemar_test, paired_ratio_replicates
from mtlib.analysis.polarity_sensitivity import mcnemar as pss_mcnemar
from mtlib.paired.cli import main as paired_main
from mtlib.suite import MFT, Suite, compare


def _right(n: int, a_only: int, b_only: int, both_wrong: int) -> tuple[np.ndarray, np.ndarray]:
    """Per item: is model a right, is model b right (a_only items only a gets right, b_only only b)."""
    a, b = np.ones(n, bool), np.ones(n, bool)
    b[:a_only] = False
    a[a_only : a_only + b_only] = False
    a[a_only + b_only : a_only + b_only + both_wrong] = b[a_only + b_only : a_only + b_only + both_wrong] = False
    return a, b


@pytest.mark.parametrize("n, a_only, b_only", [(200, 10, 30), (200, 3, 9), (400, 40, 62)])
def test_the_suite_the_paired_command_and_pss_give_one_mcnemar_p_value(tmp_path: Path, n, a_only, b_only):
    right_a, right_b = _right(n, a_only, b_only, 20)
    reference = mcnemar([[n - a_only - b_only - 20, a_only], [b_only, 20]], exact=True).pvalue

    texts = [f"item {i}" for i in range(n)]
    suite = Suite("s").add("mft", MFT("positive"), texts, threshold=0.5)

    def model(right):  # positive (passes the MFT) exactly where the model is right
        return lambda xs: np.array([0.9 if right[int(x.split()[1])] else 0.1 for x in xs])

    p_suite = compare(suite.run(model(right_a)), suite.run(model(right_b)), n_boot=0).loc["mft", "mcnemar_p"]
    for name, right in (("a", right_a), ("b", right_b)):
        (tmp_path / f"{name}.csv").write_text("id,acc\n" + "".join(f"{i},{int(v)}\n" for i, v in enumerate(right)))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = paired_main(
            [str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--n-boot", "50", "--json", str(tmp_path / "o.json")]
        )
    assert code == 0
    p_paired = json.loads((tmp_path / "o.json").read_text())["rows"][0]["p"]
    p_pss = pss_mcnemar(right_a, right_b)["p_value"]
    assert p_suite == p_paired == p_pss
    assert p_suite == pytest.approx(reference, rel=1e-12)


@pytest.mark.parametrize("a_only, b_only", [(0, 6), (1, 9), (10, 30), (57, 43), (250, 300)])
def test_mcnemar_is_statsmodels_exact_test(a_only, b_only):
    stat, p = mcnemar_test(a_only, b_only)
    sm = mcnemar([[7, a_only], [b_only, 7]], exact=True)
    assert p == pytest.approx(sm.pvalue, rel=1e-12) and stat == sm.statistic
    assert mcnemar_test(0, 0) == (pytest.approx(np.nan, nan_ok=True), 1.0)
    with pytest.raises(ValueError, match="a_only=-1"):
        mcnemar_test(-1, 3)


@pytest.mark.parametrize("seed", range(5))
def test_holm_and_benjamini_hochberg_are_statsmodels_multipletests(seed):
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(0, 0.05, 4), rng.uniform(0, 1, 11), [0.02, 0.02]])  # ties too
    assert np.allclose(holm(p), multipletests(p, method="holm")[1], rtol=0, atol=1e-15)
    assert np.allclose(benjamini_hochberg(p), multipletests(p, method="fdr_bh")[1], rtol=0, atol=1e-15)
    with_nan = benjamini_hochberg(np.append(p, np.nan))
    assert np.isnan(with_nan[-1]) and np.allclose(with_nan[:-1], multipletests(p, method="fdr_bh")[1])


def test_the_paired_ratio_replicates_resample_both_sides_with_one_draw():
    counts = np.array([[1, 2, 0, 2], [0, 1, 1, 1], [2, 3, 2, 3]] * 10, float)
    rep_a, rep_b = paired_ratio_replicates(counts, 300, 4)
    assert rep_a.shape == rep_b.shape == (300,) and np.isfinite(rep_a).all()
    again = paired_ratio_replicates(counts, 300, 4)
    assert np.array_equal(rep_a, again[0]) and np.array_equal(rep_b, again[1])
    # the same numbers on both sides: one draw per replicate for both, so every difference is exactly 0
    same_a, same_b = paired_ratio_replicates(np.hstack([counts[:, :2]] * 2), 300, 4)
    assert np.array_equal(same_a, same_b)
    assert paired_ratio_replicates(counts, 0, 0)[0].shape == (0,)
