"""Per-class scores of a one-vs-rest model and the CogALex shared task's F1 (notebook 03's supervised side)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.analysis.class_scores import f1_summary, learnt_p, per_class_scores, shared_task_table


def test_per_class_scores_and_summary_f1():
    gold = pd.Series(["SYN", "SYN", "HYP", "ANT", "RANDOM", "RANDOM"])
    probs = {"syn": np.array([0.9, 0.2, 0.1, 0.1, 0.6, 0.1]), "hyp": np.array([0.1, 0.1, 0.8, 0.1, 0.1, 0.1])}
    s = per_class_scores(probs, gold, threshold=0.5)
    assert s.loc["syn", "precision"] == 0.5 and s.loc["syn", "recall"] == 0.5 and s.loc["syn", "f1"] == 0.5
    assert s.loc["hyp", "f1"] == 1.0 and s.loc["hyp", "balanced_accuracy"] == 1.0
    assert s.loc["syn", "balanced_accuracy"] == pytest.approx((0.5 + 3 / 4) / 2)
    # weights: SYN 2, HYP 1, ANT 1 (not predicted: F1 0); RANDOM left out
    assert f1_summary(s, gold) == pytest.approx((2 * 0.5 + 1 * 1.0 + 0) / 4)
    never = per_class_scores({"syn": np.zeros(6)}, gold, threshold=0.5)
    assert never.loc["syn", "balanced_accuracy"] == 0.5 and never.loc["syn", "learnt_p"] == 1.0
    assert never.loc["syn", "accuracy"] == never.loc["syn", "majority_baseline"]
    assert learnt_p(9, 1, 1, 89) < 0.001 and np.isnan(learnt_p(0, 0, 1, 9))


def test_shared_task_table_scores_single_labels_over_every_gold_pair():
    gold = pd.Series(["SYN", "SYN", "ANT", "HYP", "RANDOM", "RANDOM"])
    answer = np.array(["SYN", "ANT", "ANT", "RANDOM", "SYN", "RANDOM"])
    probs = {c.lower(): (answer == c).astype(float) for c in ("SYN", "ANT", "HYP", "RANDOM")}
    table = shared_task_table(probs, gold, {"SYN": 0.477, "weighted": 0.543}, threshold=0.5)
    assert list(table.index) == ["SYN", "ANT", "HYP", "RANDOM", "weighted (SYN, ANT, HYP)"]
    # SYN: tp 1, fp 1 (a RANDOM pair), fn 1 -> F1 0.5; ANT: tp 1, fp 1 -> 2/3; HYP: 0
    np.testing.assert_allclose(table.loc[["SYN", "ANT", "HYP"], "f1"], [0.5, 2 / 3, 0.0])
    weighted = table.loc["weighted (SYN, ANT, HYP)"]
    assert weighted["f1"] == pytest.approx((2 * 0.5 + 2 / 3 + 0) / 4)
    assert weighted["f1_without_random"] == pytest.approx((2 * 2 / 3 + 2 / 3 + 0) / 4)  # SYN fp gone
    assert weighted["reference_f1"] == 0.543 and np.isnan(table.loc["ANT", "reference_f1"])


def test_the_threshold_is_the_callers_and_moves_every_score():
    gold = pd.Series(["SYN", "SYN", "RANDOM", "RANDOM"])
    probs = {"syn": np.array([0.9, 0.6, 0.55, 0.1])}
    assert per_class_scores(probs, gold, threshold=0.5).loc["syn", "predicted_positive"] == 3
    strict = per_class_scores(probs, gold, threshold=0.7).loc["syn"]
    assert strict["predicted_positive"] == 1 and strict["recall"] == 0.5 and strict["precision"] == 1.0
    table = shared_task_table(probs, gold, threshold=0.7)
    assert table.loc["SYN", "recall"] == 0.5
    with pytest.warns(DeprecationWarning, match="per_class_scores: pass threshold="):
        assert per_class_scores(probs, gold).equals(per_class_scores(probs, gold, threshold=0.5))
    with pytest.raises(ValueError, match=r"per_class_scores: threshold must be a number in \(0, 1\), got 1.5"):
        per_class_scores(probs, gold, threshold=1.5)
