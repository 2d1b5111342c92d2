"""Experiment reports of notebook 03: their counts come from the relations, their keys follow the scheme."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.data import papers
from mtlib.data.sample import subsample
from mtlib.experiments import lexical
from mtlib.relations import ThreeWayTransitivity
from mtlib.run import results


class _PairModel:
    """A fake lexical-relation model: fixed random prediction matrices (the interface of a fine-tuned one)."""

    def __init__(self, words, seed=0):
        rng = np.random.default_rng(seed)
        self.index = {w: i for i, w in enumerate(words)}
        self.probs = {rel: rng.random((len(words), len(words))) for rel in lexical.RELATIONS}

    def predict_pairs(self, words_i, words_j, batch_size=256):
        i = [self.index[w] for w in words_i]
        j = [self.index[w] for w in words_j]
        return {rel: p[i, j] for rel, p in self.probs.items()}

    def prediction_matrices(self, words, threshold=0.5, batch_size=256):
        out = {}
        for rel, p in self.probs.items():
            adj = p > threshold
            np.fill_diagonal(adj, False)
            out[rel] = adj
        return out


def test_transitivity_report_keys_put_the_language_before_the_relation():
    words = [f"w{i}" for i in range(12)]
    test = pd.DataFrame(
        {"word1": words[:6], "word2": words[6:], "relation": ["SYN", "HYP", "RANDOM"] * 2, "split": "test"}
    )
    data = lexical.LexicalData({"english": {"train": test, "test": test, "words": words}}, "bundled")
    model = _PairModel(words)
    per_language = lexical.check_transitivity(model, words, max_pairs=10**6, n_sample=500, n_boot=10, seed=1)
    report = lexical.LexicalTransitivityReport(
        "fake", data, {"english": per_language}, {"english": lexical.evaluate_heads(model, test)}, n_top=2
    )
    m = report.metrics()
    direct = ThreeWayTransitivity("syn").check(model.prediction_matrices(words)["syn"], n_boot=0)
    assert m["violation_rate/english/syn"] == direct.rate and m["cases/english/syn"] == direct.cases
    assert m["count_seconds/english/syn"] >= 0 and m["vocabulary/english"] == 12 and m["dataset"] == "bundled"
    assert {"accuracy/english/hyp", "accuracy/english/hyp_majority_baseline", "f1/english/syn"} <= set(m)
    assert len(m["top_words/english"]["syn"]) == 2
    assert report.headline == ["violation_rate/english/syn", "violation_rate/english/hyp"]
    assert report.table5.loc[("english", "syn"), "paper_rate"] == papers.MANINO_TABLE5["english"][0]
    assert set(report.tables()) >= {"table5_violation_rate", "supervised_accuracy", "top_words_english"}
    assert results.timing_key("models/fake/count_seconds/english/syn") == "timing/models/fake/count_seconds/english/syn"


def test_subsample_keeps_groups_and_order():
    frame = pd.DataFrame({"id": range(30), "group": ["a"] * 20 + ["b"] * 10})
    assert subsample(frame, 0, seed=1) is frame
    some = subsample(frame, 8, seed=1, by="group", sort="id")
    assert list(some["group"].value_counts().sort_index()) == [4, 4] and some["id"].is_monotonic_increasing
    assert len(subsample(frame, 100, seed=1)) == 30
    assert subsample(frame, 5, seed=2).equals(subsample(frame, 5, seed=2))
    with pytest.raises(ValueError, match="n must be an integer >= 0"):
        subsample(frame, -1)
