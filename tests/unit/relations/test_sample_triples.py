"""The paper's sampled procedure (notebook 03): the engine's draw, reusable by a caller without a matrix."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib.relations import MtlibInputError, ThreeWayTransitivity, count_transitivity_violations, sample_triples


def test_sampled_count_draws_distinct_triples_a_caller_can_repeat():
    n = 12
    complete = ~np.eye(n, dtype=bool)
    noisy = np.random.default_rng(4).random((n, n)) < 0.3
    full = count_transitivity_violations(complete, sample=5000, seed=0, per_item=False)
    assert (full.cases, full.violations, full.n_sampled) == (5000, 0, 5000)
    sampled = count_transitivity_violations(noisy, sample=5000, seed=0, per_item=False)
    exact = ThreeWayTransitivity("hyp").check(noisy, n_boot=0).rate
    assert abs(sampled.rate - exact) < 0.05
    i, j, k = sample_triples(n, 5000, seed=0)  # the same triples: count them by hand
    assert ((i != j) & (j != k) & (i != k)).all()
    case = noisy[i, j] & noisy[j, k]
    assert (int(case.sum()), int((case & ~noisy[i, k]).sum())) == (sampled.cases, sampled.violations)
    # per-item counting does not change the draw
    assert count_transitivity_violations(noisy, sample=5000, seed=0, per_item=True).cases == sampled.cases


def test_counting_sampled_predictions_equals_the_engine_and_asks_each_needed_pair_once():
    from mtlib.relations import count_sampled_transitivity

    rng = np.random.default_rng(7)
    for n, m, seed in [(2, 100, 0), (3, 1, 1), (3, 40, 2), (9, 300, 3), (40, 20_000, 4)]:
        mats = {"syn": rng.random((n, n)) < 0.4, "hyp": rng.random((n, n)) < 0.15}
        asked: list[tuple[int, int]] = []

        def predict(a, b, mats=mats, asked=asked):
            asked.extend(zip(a.tolist(), b.tolist()))
            return {name: adj[a, b] for name, adj in mats.items()}

        got = count_sampled_transitivity(predict, n, m, seed, ["syn", "hyp"])
        for name, adj in mats.items():
            engine = count_transitivity_violations(adj, per_item=False, sample=m, seed=seed)
            assert (got[name].cases, got[name].violations, got[name].n_sampled) == (
                engine.cases, engine.violations, engine.n_sampled
            ), (n, m, name)  # fmt: skip
            assert got[name].sampled and got[name].per_item is None
        i, j, k = sample_triples(n, m, seed)
        premise = np.zeros(len(i), bool)
        for adj in mats.values():
            premise |= adj[i, j] & adj[j, k]
        needed = set(zip(i.tolist(), j.tolist())) | set(zip(j.tolist(), k.tolist()))
        needed |= set(zip(i[premise].tolist(), k[premise].tolist()))
        calls = len(set(zip(i.tolist(), j.tolist()))) + len(set(zip(j.tolist(), k.tolist())))
        assert set(asked) == needed and len(asked) <= calls + int(premise.sum())
    with pytest.raises(MtlibInputError, match="m must be a positive integer, got 0"):
        count_sampled_transitivity(predict, 5, 0, 0, ["syn"])
