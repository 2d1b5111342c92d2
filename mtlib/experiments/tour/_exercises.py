"""The tour's three exercises, judged on this run: every answer gets "Correct" or a hint, never an assumption.

Intuition: an exercise answer (a transformation, a prediction) is checked by
running it, so the verdict holds for whatever two models ``model_a`` and
``model_b`` are.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from mtlib.experiments.tour._data import TourInputs
from mtlib.relations.single import SingleInput
from mtlib.relations.transformations.base import Transformation
from mtlib.suite.suite import Suite


def _run_one(model: Any, relation: Any, texts: pd.DataFrame, *, threshold: float, n_boot: int, seed: int) -> Any:
    return (
        Suite("exercise", n_boot=n_boot, seed=seed).add("mine", relation, texts, threshold=threshold).run(model)["mine"]
    )


def check_invariance(
    model: Any, answer: Transformation, data: TourInputs, *, threshold: float, n_boot: int, seed: int
) -> tuple[float, str]:
    """Exercise 1: is ``model``'s class invariant under ``answer``? The rate and a verdict with a hint."""
    mine = _run_one(
        model, SingleInput("mine", "equivalence", answer), data.people, threshold=threshold, n_boot=n_boot, seed=seed
    )
    head = f"violation rate {mine.rate:.3f} on {mine.n_items} sentences ({mine.skipped} skipped)"
    if mine.n_items <= mine.skipped:
        return float(mine.rate), f"{head}. Not yet: your transformation applies to none of the sentences."
    if mine.rate > threshold:
        return float(mine.rate), (
            f"{head}. Not yet: the class changed on {mine.violations} sentences, e.g. {mine.worst!r}. A lexicon "
            "model reads the words it knows: a change that breaks or adds a sentiment word moves its score. Try "
            "casing, punctuation or names."
        )
    return float(mine.rate), f"{head}. Correct: at most {threshold:.0%} of the classes changed."


def check_decrease(
    model: Any, answer: Transformation, data: TourInputs, *, threshold: float, n_boot: int, seed: int
) -> tuple[float, str]:
    """Exercise 2: does ``answer`` lower ``model``'s score on praise? The rate and a verdict with a hint."""
    mine = _run_one(
        model,
        SingleInput("mine", "order", answer, direction="decrease"),
        data.praise,
        threshold=threshold,
        n_boot=n_boot,
        seed=seed,
    )
    head = f"the score failed to go down on {mine.violations} of {mine.n_items} sentences"
    if mine.rate > threshold:
        return float(mine.rate), (
            f"{head}. Not yet: e.g. {mine.worst!r}. An order relation needs a strict decrease: add or change "
            "words the model reads as negative (a neutral sentence leaves the score where it was)."
        )
    return float(mine.rate), f"{head}. Correct."


def check_prediction(
    prediction: str, table: pd.DataFrame, model_a: str, model_b: str, *, inputs: str = "reviews"
) -> str:
    """Exercise 3: which model keeps Table 1's order more often (on the reviews, or the inputs named)? Judged on
    this run's comparison."""
    row = table.loc["table1_order"]
    winner = model_a if row["rate_a"] <= row["rate_b"] else model_b
    head = (
        f"Table 1's order on the {inputs}: {model_a} {row['rate_a']:.3f}, {model_b} {row['rate_b']:.3f}, "
        f"McNemar p = {row['mcnemar_p']:.3g}"
    )
    if prediction not in (model_a, model_b):
        return f"{head}. Answer with one of {model_a!r} and {model_b!r}."
    if prediction != winner:
        return f"{head}. Not this time: {winner} has the lower violation rate."
    return f"{head}. Correct: {winner} violates fewer pairs."
