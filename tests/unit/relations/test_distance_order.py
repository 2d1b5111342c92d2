"""The relation ``near <= far`` of notebook 04 (:class:`mtlib.relations.DistanceOrder`) against a naive count,
its interval over items, and what it refuses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.relations import DistanceOrder, MtlibInputError, Relation, consistency_scores


def _random_cases(rng: np.random.Generator, n: int) -> pd.DataFrame:
    words = np.array([f"w{i}" for i in range(9)])
    types = {w: ("S-I", "NS-Pr", "A")[i % 3] for i, w in enumerate(words)}
    a1 = rng.choice(words, n)
    a2 = rng.choice(words, n)
    # distances on a coarse grid, so near == far (a tie, which holds) is frequent
    return pd.DataFrame(
        {
            "adj1": a1,
            "adj2": a2,
            "type1": [types[w] for w in a1],
            "type2": [types[w] for w in a2],
            "near": rng.integers(0, 4, n) / 4,
            "far": rng.integers(0, 4, n) / 4,
        }
    ), types


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distance_order_counts_equal_a_naive_count_with_ties(seed):
    rng = np.random.default_rng(seed)
    cases, types = _random_cases(rng, 300)
    res = DistanceOrder("toy").check(
        cases["near"], cases["far"], cases[["adj1", "adj2"]], cases[["type1", "type2"]], types, 200, seed
    )
    violated = [near > far for near, far in zip(cases["near"], cases["far"])]
    assert (res.cases, res.violations) == (len(cases), sum(violated))
    assert res.rate == sum(violated) / len(cases)
    for (t1, t2), row in res.groups.iterrows():
        mask = [(a, b) == (t1, t2) for a, b in zip(cases["type1"], cases["type2"])]
        assert (row["cases"], row["violations"]) == (sum(mask), sum(v for v, m in zip(violated, mask) if m))
        assert row["ci_low"] <= row["rate"] <= row["ci_high"]
    for row in res.per_item.itertuples():
        mask = [(a, b) == (row.adj1, row.adj2) for a, b in zip(cases["adj1"], cases["adj2"])]
        assert (row.cases, row.violations) == (sum(mask), sum(v for v, m in zip(violated, mask) if m))
        assert (row.type1, row.type2) == (types[row.adj1], types[row.adj2])
    assert res.ci_low <= res.rate <= res.ci_high and res.per_item["cases"].sum() == len(cases)
    scores = consistency_scores(res)
    assert (
        np.allclose(scores["E"], 1 - res.groups["rate"])
        and (scores["k"] + res.groups["violations"] == scores["n"]).all()
    )


def test_distance_order_interval_resamples_items_not_cases():
    # two adjectives, one always holding, one always violated: the rate over cases is 0.5 and the
    # interval over adjectives spans it widely; with one adjective per stratum each resample keeps both
    near = np.r_[np.zeros(50), np.ones(50)]
    far = np.full(100, 0.5)
    items = ["good"] * 50 + ["bad"] * 50
    free = DistanceOrder("toy").check(near, far, items, None, None, 500, 0)
    assert free.rate == 0.5 and free.ci_low == 0.0 and free.ci_high == 1.0
    stratified = DistanceOrder("toy").check(near, far, items, None, {"good": "a", "bad": "b"}, 500, 0)
    assert stratified.ci_low == stratified.ci_high == 0.5
    assert np.isnan(DistanceOrder("toy").check(near, far, items, None, None, 0).ci_low)


def test_distance_order_is_a_relation_with_only_check():
    assert issubclass(DistanceOrder, Relation)
    own = {k for k, v in vars(DistanceOrder).items() if callable(v) and not k.startswith("__")}
    assert own == {"check"}
    with pytest.raises(ValueError, match="one length"):
        DistanceOrder("toy").check(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="NaN"):
        DistanceOrder("toy").check(np.zeros(3), np.array([0.0, np.nan, 1.0]))


def test_distance_order_refuses_a_negative_bootstrap_and_scores_holds_over_cases():
    with pytest.raises(MtlibInputError, match="DistanceOrder.check: n_boot must be"):
        DistanceOrder("toy").check(np.zeros(3), np.ones(3), n_boot=-1)
    res = DistanceOrder("toy").check([0.1, 0.5, 0.9], [0.5, 0.5, 0.5], None, ["a", "a", "b"], None, 0)
    scores = consistency_scores(res)
    assert scores["k"].tolist() == [2, 0] and scores["n"].tolist() == [2, 1] and scores["E"].tolist() == [1.0, 0.0]
    assert res.extra["n_boot"] == 0 and np.isnan(scores["ci_low"]).all()
    with pytest.raises(ValueError, match="no groups"):
        consistency_scores(DistanceOrder("toy").check([0.1], [0.2], n_boot=0))
