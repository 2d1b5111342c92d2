"""Gates for CI: fail a test when a model violates a relation too often.

``assert_relation(model, relation, inputs, max_rate=0.05)`` evaluates the
relation (one model call per unique text) and fails unless the UPPER end of
the rate's interval is at most ``max_rate``: a model passes only when the
data show, with the given confidence, that it violates the relation less
often than allowed, so a small noisy sample does not pass by luck. The
failure message gives the rate, its interval, the relation's description and
the worst inputs. Drop into a lab's own pytest suite::

    from mtlib import relations as R
    from mtlib.relations import transformations as T
    from mtlib.testing import assert_relation

    def test_sentiment_is_systematic():
        assert_relation("vader", R.PairwiseSystematicity("table 1", T.manino_table1()),
                        reviews, max_rate=0.10)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations import bootstrap
from mtlib.relations.base import Relation
from mtlib.relations.errors import check_open_unit, check_rate, refuse
from mtlib.relations.result import RelationResult
from mtlib.suite.memo import as_model

__all__ = ["RelationGateError", "assert_relation", "gate_decision", "gate_message"]


class RelationGateError(AssertionError):
    """A relation gate failed; ``result`` holds the full :class:`RelationResult`."""

    def __init__(self, message: str, result: RelationResult) -> None:
        super().__init__(message)
        self.result = result


def gate_decision(result: RelationResult, max_rate: float, confidence: float = 0.95) -> list[str]:
    """The gate's decision in words: the rate, its interval, the item-level Wilson bound, which bound decided.

    The gate compares the larger of two upper bounds with ``max_rate``: the
    interval's upper end and a Wilson bound that counts only the source items
    as independent. The second protects against a handful of items passing by
    luck (with no violation observed, every bootstrap resample has rate 0 and
    the interval collapses to ``[0, 0]``).
    """
    low, high = result.interval(confidence)
    units = len(result.per_item)
    wilson = float("nan")
    if units and result.cases:
        wilson = float(bootstrap.wilson_interval(result.rate * units, units, alpha=1 - confidence)[1])
    bound = result.gate_bound(confidence)
    decided = "the item-level Wilson bound" if np.isfinite(wilson) and wilson > high else "the interval's upper end"
    verdict = "passes" if result.cases and bound <= max_rate else "fails"
    lines = [
        f"{result.relation}: violation rate {result.rate:.4f} ({result.violations:,} of {result.cases:,} cases), "
        f"{confidence:.0%} interval [{low:.4f}, {high:.4f}] ({result.ci_method})",
    ]
    if np.isfinite(wilson):
        lines.append(
            f"item-level Wilson upper bound {wilson:.4f} over {units:,} source items (it keeps a handful "
            "of items from passing by luck when the bootstrap interval collapses)"
        )
    lines.append(
        f"gate {verdict}: {decided} decided, {bound:.4f} {'<=' if verdict == 'passes' else '>'} "
        f"max_rate {max_rate:.4f}" + ("" if result.cases else f" (nothing was tested: {result.no_cases})")
    )
    return lines


def gate_message(result: RelationResult, max_rate: float, confidence: float = 0.95, k: int = 5) -> str:
    """Rate, interval, the bound that decided, description and the k worst cases, as one readable message."""
    lines = [*gate_decision(result, max_rate, confidence), f"relation: {result.description}"]
    if "skipped" in result.extra:
        lines.append(f"skipped (transformation not applicable): {result.extra['skipped']}")
    if result.groups is not None and "rate" in result.groups:
        worst = result.groups["rate"].sort_values(ascending=False).head(3)
        lines.append("worst groups: " + ", ".join(f"{g} {r:.4f}" for g, r in worst.items()))
    ex = result.examples(k)
    if len(ex):
        with pd.option_context("display.max_colwidth", 60, "display.width", 200):
            lines.append(f"worst {len(ex)} cases:\n{ex.to_string(index=False)}")
    return "\n".join(lines)


def assert_relation(
    model_or_scorer: Any,
    relation: Relation,
    inputs: Sequence[str],
    *,
    max_rate: float = 0.10,
    confidence: float = 0.95,
    n_boot: int = 200,
    seed: int = 0,
    **kwargs: Any,
) -> RelationResult:
    """Evaluate ``relation`` on ``inputs`` and fail unless it passes the gate.

    Args:
        model_or_scorer: A registry name (``"vader"``), an :class:`mtlib.models.Model`,
            an sklearn pipeline or transformers pipeline (:func:`mtlib.models.adapters.wrap`),
            an object with ``score(texts)`` or a function ``texts -> scores``.
        relation: The relation, with its transformation(s).
        inputs: Source texts.
        max_rate: Highest violation rate allowed.
        confidence: Confidence of the interval whose upper end is compared.
        n_boot: Bootstrap replicates for pairwise and three-way relations.
        seed: Seeds the bootstrap.
        **kwargs: Passed to ``relation.evaluate``.

    Returns:
        The result, when the gate passes.

    Raises:
        MtlibInputError: a wrong argument (``max_rate`` outside [0, 1], a
            bare string as ``inputs``...), before the model is called.
        RelationGateError: (an ``AssertionError``) the upper end of the
            interval is above ``max_rate``, or there are no cases.
    """
    if not isinstance(relation, Relation):
        raise refuse("assert_relation", "relation", "a Relation (mtlib.relations)", relation)
    check_rate(max_rate, "assert_relation", "max_rate")
    check_open_unit(confidence, "assert_relation", "confidence")
    scorer = as_model(model_or_scorer)  # a registry name loaded, an sklearn or transformers pipeline wrapped
    result = relation.evaluate(inputs, scorer, n_boot=n_boot, seed=seed, **kwargs)
    if not result.passes(max_rate=max_rate, confidence=confidence):
        raise RelationGateError(gate_message(result, max_rate, confidence), result)
    return result
