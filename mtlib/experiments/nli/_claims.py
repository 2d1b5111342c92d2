"""Notebook 02's conclusion, stated from the run's tests (Manino et al. §5.1: upward contexts violate less)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtlib.analysis import claims
from mtlib.analysis.stats import TestResults
from mtlib.data import papers
from mtlib.relations import RelationResult


def conclusion(result: RelationResult, chance: TestResults, by_mono: pd.DataFrame, p_perm: float) -> str:
    """Notebook 02's conclusion for one model row, in markdown: the overall violation rate against chance (0.5)
    and upward against downward contexts, each stated from its test's p-value, beside the paper's values.

    Args:
        result: The row's :class:`~mtlib.relations.RelationResult` over every test context.
        chance: The per-context rates tested against 0.5 (:func:`~mtlib.analysis.stats.one_sample_test`: its
            ``t_test`` is stated), or no test.
        by_mono: Rate and interval per monotonicity (index ``up``, ``down``; ``rate``, ``ci_low``, ``ci_high``).
        p_perm: The context-label permutation test's p-value of up against down (NaN: not tested).
    """
    paper = papers.MANINO_S51
    text = (
        f"Overall violation rate **{result.rate:.3f}** [{result.ci_low:.3f}, {result.ci_high:.3f}] over "
        f"{int(result.cases):,} cases (paper: {paper['violation_rate/overall']})."
    )
    t = chance.get("t_test")
    if t is None:
        text += " Too few contexts to test the rate against chance."
    else:
        side = f"significantly {'below' if t.effect < 0 else 'above'} chance (0.5)"
        verdict = (
            "untested"
            if not np.isfinite(t.p_value)
            else side
            if t.p_value < claims.ALPHA
            else ("not distinguishable from chance (0.5)")
        )
        text += f" Per-context rates are {verdict} ({t.test}, p = {t.p_value:.3g})."
    if {"up", "down"} <= set(by_mono.index):
        up, down = by_mono.loc["up"], by_mono.loc["down"]
        text += (
            f" Upward contexts {up['rate']:.3f} [{up['ci_low']:.3f}, {up['ci_high']:.3f}] vs downward "
            f"{down['rate']:.3f} [{down['ci_low']:.3f}, {down['ci_high']:.3f}]: up is "
            f"{'lower' if up['rate'] < down['rate'] else 'higher'} than down (paper: {paper['violation_rate/up']}"
            f" vs {paper['violation_rate/down']}, up lower)"
        )
        text += (
            "; the difference was not tested."
            if not np.isfinite(p_perm)
            else f"; the difference is {'' if p_perm < claims.ALPHA else 'not '}significant (context-label "
            f"permutation test, p = {p_perm:.3g})."
        )
    return text
