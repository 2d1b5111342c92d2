"""The paper's sampled procedure (notebook 03): the engine's draw, reusable by a caller without a matrix."""

from __future__ import annotations

import numpy as np

from mtlib.relations import ThreeWayTransitivity, count_transitivity_violations, sample_triples


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
