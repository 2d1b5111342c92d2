"""Experiment reports of notebook 01: their counts come from the relations, their keys follow the scheme."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from mtlib.data import papers
from mtlib.data.sample import subsample
from mtlib.experiments import sentiment
from mtlib.relations import PairwiseSystematicity
from mtlib.run import results


class _LengthModel:
    """A fake sentiment classifier: P(positive) from a hash of the text (ties included)."""

    def classify(self, texts):
        p = np.array([(sum(map(ord, t)) % 7) / 7 for t in texts], dtype=float)
        return np.stack([1 - p, p], axis=1)


@pytest.fixture
def sources():
    texts = [f"review number {i} {'good' * (i % 3)}" for i in range(25)]
    return pd.DataFrame({"text": texts, "label": [i % 2 for i in range(25)]})


def test_systematicity_report_counts_through_the_relation_and_records_in_the_key_scheme(sources, tmp_path):
    scorer = sentiment.SentimentScorer("fake", _LengthModel(), positive=1)
    ts = sentiment.transformations([["An extra sentence.", "end"]])
    report = sentiment.systematicity(scorer, sources, ts, n_boot=20, seed=3)
    # the same counts as the relation on the same scores
    src, flw = sentiment.score_follow_ups(scorer, sources["text"], ts)
    direct = PairwiseSystematicity("x").check_many(src, flw, n_boot=20, seed=3)
    assert (report.result.cases, report.result.violations) == (direct.cases, direct.violations)
    assert report.result.ci_low == direct.ci_low
    m = report.metrics()
    assert m["violation_rate/overall"] == direct.rate and m["n_sources"] == 25 and m["n_transformations"] == 7
    assert m["violation_rate/U1"] == direct.groups.loc["U1", "rate"] and m["n_pairs"] == 300 * 7
    assert m["accuracy"] == pytest.approx(((src > 0.5).astype(int) == sources["label"]).mean())
    assert list(report.table1["rate"]) == sorted(report.table1["rate"], reverse=True)
    assert report.table1.loc["T1", "paper_rate"] == papers.MANINO_TABLE1[0][3]
    assert np.isnan(report.table1.loc["U1", "paper_rate"])
    assert report.table2["violations"].is_monotonic_decreasing and "text" in report.table2
    assert report.per_item["violations"].sum() == 2 * direct.violations  # each violated pair counts for both
    run = results.Run("01_test", profile="t", out_dir=str(tmp_path))
    run.record_report(report, model="fake", primary=True)
    run.record_report(report, model="other/model", primary=False)
    saved = json.loads(run.metrics_path.read_text())
    slug = results.model_slug("other/model")
    assert saved["violation_rate/overall"] == saved["models/fake/violation_rate/overall"]
    assert saved[f"models/{slug}/violation_rate/T1"] == m["violation_rate/T1"]
    assert "timing/models/fake/count_seconds" in saved and "count_seconds" not in saved
    assert saved["_headline"] == [k for k in report.headline if k in m]
    assert (run.tables_dir / "table1_violation_rate_per_transformation.csv").exists()
    assert (run.tables_dir / f"table2_sources_ranked_by_violations__{slug}.csv").exists()


def test_systematicity_report_without_gold_labels_says_so(sources):
    scorer = sentiment.SentimentScorer("fake", _LengthModel(), positive=1)
    report = sentiment.systematicity(scorer, sources[["text"]], sentiment.transformations(), n_boot=0, seed=0)
    m = report.metrics()
    assert "accuracy" not in m and np.isnan(m["misclassified_vs_violations_p"])
    assert "No gold labels" in report.misclassified_sentence(3)
    assert report.figure_violations() is not None


def test_subsample_keeps_groups_and_order():
    frame = pd.DataFrame({"id": range(30), "group": ["a"] * 20 + ["b"] * 10})
    assert subsample(frame, 0, seed=1) is frame
    some = subsample(frame, 8, seed=1, by="group", sort="id")
    assert list(some["group"].value_counts().sort_index()) == [4, 4] and some["id"].is_monotonic_increasing
    assert len(subsample(frame, 100, seed=1)) == 30
    assert subsample(frame, 5, seed=2).equals(subsample(frame, 5, seed=2))
    with pytest.raises(ValueError, match="n must be an integer >= 0"):
        subsample(frame, -1)
