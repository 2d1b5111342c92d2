"""The paper's sampled transitivity procedure for a model too costly for a prediction matrix.

Intuition: the counting engine (:mod:`~mtlib.relations.counting`) samples
triples from an n x n Boolean matrix. A model that scores one pair per forward
pass (a cross-encoder) cannot afford that matrix for a large vocabulary, but the
sampled procedure needs only the pairs its drawn triples touch.
:func:`count_sampled_transitivity` draws the engine's own triples
(:func:`~mtlib.relations.counting.sample_triples`) and asks the model for just
those pairs, so its counts equal the engine's on the matrix the model would fill.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from mtlib.relations.counting import TransitivityCount, _positive_int, sample_triples

__all__ = ["count_sampled_transitivity"]


def count_sampled_transitivity(
    predict: Callable[[np.ndarray, np.ndarray], Mapping[str, np.ndarray]],
    n: int,
    m: int,
    seed: int | None,
    names: Sequence[str],
) -> dict[str, TransitivityCount]:
    """The sampled count of each named relation whose n x n matrix is never built: only the pairs the drawn
    triples need are predicted.

    Intuition: a cross-encoder scores one pair per forward pass, so a vocabulary
    of 10,000 words would need 10^8 passes for the matrix. The sampled mode
    needs (x1, x2) and (x2, x3) of each drawn triple, and (x1, x3) only where
    the premise holds for some relation. The triples are :func:`sample_triples`'s,
    so each count equals ``count_transitivity_violations(adj, sample=m, seed=seed)``
    on the matrix ``predict`` would fill.

    Args:
        predict: ``predict(a, b)`` for int arrays of shape (p,): ``{name: bool array (p,)}``, whether each
            relation holds for the pairs ``(a[t], b[t])``. Three calls, for (x1, x2), (x2, x3) and (x1, x3),
            each asking a distinct pair once.
        n: Items (the matrix would be n x n).
        m: Triples to draw (at least 1, as the engine's ``sample``).
        seed: The generator's seed.
        names: The relations to count (keys of ``predict``'s answer).

    Returns:
        ``{name: TransitivityCount}``, sampled, without per-item counts.

    >>> adj = np.random.default_rng(1).random((6, 6)) < 0.5
    >>> got = count_sampled_transitivity(lambda a, b: {"r": adj[a, b]}, 6, 50, 0, ["r"])["r"]
    >>> from mtlib.relations import count_transitivity_violations
    >>> engine = count_transitivity_violations(adj, per_item=False, sample=50, seed=0)
    >>> (got.cases, got.violations, got.n_sampled) == (engine.cases, engine.violations, engine.n_sampled)
    True
    """
    i, j, k = sample_triples(_positive_int(n, "n"), _positive_int(m, "m"), seed)

    def pairs(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
        if not len(a):
            return {name: np.zeros(0, bool) for name in names}
        codes, inverse = np.unique(a * n + b, return_inverse=True)
        said = predict(codes // n, codes % n)
        return {name: np.asarray(said[name], bool).reshape(-1)[inverse] for name in names}

    first, second = pairs(i, j), pairs(j, k)
    case = {name: first[name] & second[name] for name in names}
    any_case = np.logical_or.reduce([*case.values(), np.zeros(len(i), bool)])
    third = pairs(i[any_case], k[any_case])
    out = {}
    for name in names:
        closed = np.zeros(len(i), bool)
        closed[any_case] = third[name]
        cases, violations = int(case[name].sum()), int((case[name] & ~closed).sum())
        out[name] = TransitivityCount(n, cases, violations, violations / cases if cases else float("nan"), True, len(i))
    return out
