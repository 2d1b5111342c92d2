"""Comparing two models on the same suite: paired bootstrap of the rate difference, McNemar on items."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from mtlib import models
from mtlib.analysis.paired_tests import mcnemar_test
from mtlib.data.sst import load_reviews
from mtlib.relations import PairwiseSystematicity, SingleInput
from mtlib.relations import transformations as T
from mtlib.suite import MFT, Suite, compare

REVIEWS = load_reviews()["text"].tolist()[:100]


def notebook01_suite(texts) -> Suite:
    # Notebook 01's relation: pairwise systematicity under the six concatenations of Manino et al. Table 1.
    suite = Suite("notebook 01", n_boot=200)
    suite.add("Table 1", PairwiseSystematicity("Table 1", T.manino_table1()), texts, threshold=0.10)
    suite.add("typos", SingleInput("typos", "equivalence", T.Typos("swap")), texts, threshold=0.40)
    return suite


def test_vader_and_textblob_compared_on_notebook_01s_relation():
    assert len(REVIEWS) == 100
    suite = notebook01_suite(REVIEWS)
    vader, textblob = suite.run(models.load("vader")), suite.run(models.load("textblob"))
    table = compare(vader, textblob, n_boot=300)
    assert list(table.index) == ["Table 1", "typos"]
    for test, row in table.iterrows():
        assert row["rate_a"] == vader[test].rate and row["rate_b"] == textblob[test].rate
        assert row["diff"] == pytest.approx(row["rate_b"] - row["rate_a"])
        assert row["diff_low"] <= row["diff"] <= row["diff_high"]
        assert row["n_items"] == 100 and 0 <= row["mcnemar_p"] <= 1
        fail_a = vader[test].per_item["violations"].to_numpy() > 0
        fail_b = textblob[test].per_item["violations"].to_numpy() > 0
        assert row["a_only_fail"] == (fail_a & ~fail_b).sum() and row["b_only_fail"] == (fail_b & ~fail_a).sum()
    pd.testing.assert_frame_equal(vader.compare(textblob, n_boot=300), table)
    same = compare(vader, vader)
    assert (same["diff"] == 0).all() and (same["mcnemar_p"] == 1).all()


def test_the_paired_interval_comes_from_resampling_items_for_both_results_at_once():
    texts = [f"item {i}" for i in range(60)]
    suite = Suite("s").add("mft", MFT("positive"), texts, threshold=0.5)
    a = suite.run(lambda xs: np.array([0.9 if int(x.split()[1]) % 3 else 0.1 for x in xs]))  # fails 20 of 60
    b = suite.run(lambda xs: np.array([0.9 if int(x.split()[1]) % 6 else 0.1 for x in xs]))  # fails 10, a subset
    row = compare(a, b, n_boot=500).loc["mft"]
    assert row["diff"] == pytest.approx(-10 / 60)
    # b's failures are a subset of a's: every resample moves both rates together, so the interval is narrow
    assert row["diff_high"] < 0 and row["diff_high"] - row["diff_low"] < 0.2
    assert (row["a_only_fail"], row["b_only_fail"], row["both_fail"]) == (10, 0, 10)
    assert row["mcnemar_p"] == pytest.approx(2 * 0.5**10)


@pytest.mark.parametrize("a_only, b_only", [(1, 9), (20, 40), (10, 30), (57, 43), (0, 0)])
def test_mcnemar_is_exact_at_any_number_of_discordant_items(a_only, b_only):
    stat, p = mcnemar_test(a_only, b_only)
    assert p == pytest.approx(mcnemar([[50, a_only], [b_only, 50]], exact=True).pvalue, rel=1e-12)
    assert (np.isnan(stat) and p == 1.0) if a_only + b_only == 0 else stat == min(a_only, b_only)
    assert mcnemar_test(1, 9)[1] == pytest.approx(2 * (1 + 10) / 2**10)  # two-sided binomial: 2 P(X <= 1)


def test_results_on_different_inputs_or_suites_are_refused():
    score = lambda xs: np.full(len(xs), 0.7)  # noqa: E731
    a = Suite("s").add("mft", MFT("positive"), ["x", "y"]).run(score)
    b = Suite("s").add("mft", MFT("positive"), ["x", "z"]).run(score)
    with pytest.raises(ValueError, match="different inputs"):
        compare(a, b)
    c = Suite("s").add("other", MFT("positive"), ["x", "y"]).run(score)
    with pytest.raises(ValueError, match="different suites"):
        compare(a, c)
