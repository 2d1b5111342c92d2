"""The teaching tour (notebook 00): a suite of seven tests, a failing case, two models compared, exercises.

Intuition: a class meets metamorphic testing on two lexicon sentiment models
that install offline (VADER, TextBlob). The suite mixes the test types a user
needs: a minimum-functionality test (praise must read as positive), four
invariances (casing, "!", names, typos), one directional test (negation lowers
the score) and Manino et al.'s pairwise Table 1 relation. Everything the
notebook says is computed here from the run, so it stays true for any two
models given as ``model_a`` and ``model_b``, and an exercise answer is judged,
never assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from mtlib.relations import PairwiseSystematicity, SingleInput
from mtlib.relations import transformations as T
from mtlib.relations.transformations import Transformation
from mtlib.suite import MFT, Suite, SuiteResult, generate

__all__ = [
    "BAD",
    "GOOD",
    "NOUNS",
    "TourInputs",
    "check_decrease",
    "check_invariance",
    "check_prediction",
    "failing_summary",
    "inputs",
    "metrics",
    "rates_by_model",
    "suite",
]

#: Words of the templates: praise, blame and the things a review talks about.
GOOD = ("great", "superb", "wonderful", "excellent", "brilliant", "good")
BAD = ("awful", "terrible", "boring", "dreadful", "horrible", "bad")
NOUNS = ("film", "plot", "cast", "ending", "script", "music", "acting", "story")


@dataclass(frozen=True)
class TourInputs:
    """The tour's inputs: ``praise`` (48 sentences), ``people`` (a sample of the names template), ``reviews``."""

    praise: pd.DataFrame
    people: pd.DataFrame
    reviews: list[str]


def inputs(reviews: pd.DataFrame, *, n_reviews: int, n_people: int, seed: int) -> TourInputs:
    """Sentences from two templates and a seeded sample of ``n_reviews`` reviews (0: all)."""
    sample = reviews.sample(n=min(n_reviews, len(reviews)), random_state=seed) if n_reviews else reviews
    praise = generate.template("The {noun} was {adj}.", noun=list(NOUNS), adj=list(GOOD))
    people = generate.template(
        "{name} thought the {noun} was {adj}.",
        name="names",
        noun=list(NOUNS),
        adj=[*GOOD, *BAD],
        sample=n_people,
        seed=seed,
    )
    return TourInputs(praise, people, sample["text"].tolist())


def suite(data: TourInputs, *, threshold: float, n_boot: int, seed: int) -> Suite:
    """The seven tests: an MFT, four invariances, one directional test and the Table 1 pairwise relation."""
    s = Suite("tour", n_boot=n_boot, seed=seed)
    s.add("praise_is_positive", MFT("positive"), data.praise, threshold=threshold)
    for name, title, t in (
        ("case_upper", "upper case", T.Casing("upper")),
        ("punct_exclaim", "'!'", T.Punctuation("exclaim")),
        ("name_swap", "names", T.NameSwap(seed=seed)),
        ("typos", "typos", T.Typos("swap", seed=seed)),
    ):
        s.add(name, SingleInput(title, "equivalence", t), data.people, threshold=threshold)
    s.add(
        "negation_lowers",
        SingleInput("negation", "order", T.Negation(), direction="decrease"),
        data.praise,
        threshold=threshold,
    )
    s.add("table1_order", PairwiseSystematicity("Table 1", T.manino_table1()), data.reviews, threshold=threshold)
    return s


def failing_summary(result: SuiteResult, model: str) -> tuple[str, str]:
    """A sentence on the failing tests and the test with the highest rate among them (or overall)."""
    summary, failing = result.summary(), result.failing()
    worst = summary.loc[failing, "rate"].idxmax() if failing else summary["rate"].idxmax()
    text = (
        f"{model} fails {len(failing)} of {len(summary)} tests: {', '.join(failing) or 'none'}; "
        f"highest rate among them: {worst} ({summary.loc[worst, 'rate']:.3f})"
    )
    return text, str(worst)


def rates_by_model(results: dict[str, SuiteResult]) -> pd.DataFrame:
    """Every model's summary, stacked with a ``model`` column (for one bar chart)."""
    return pd.concat([r.summary().assign(model=name) for name, r in results.items()]).reset_index()


def metrics(results: dict[str, SuiteResult], table: pd.DataFrame, data: TourInputs, n_tests: int) -> dict[str, Any]:
    """The tour's metrics: rates per model and test, failing counts, paired differences and McNemar p-values."""
    out: dict[str, Any] = {}
    for name, res in results.items():
        out |= {f"rate/{name}/{test}": float(rate) for test, rate in res.summary()["rate"].items()}
        out[f"failing/{name}"] = len(res.failing())
    out |= {f"diff/{test}": float(d) for test, d in table["diff"].items()}
    out |= {f"mcnemar_p/{test}": float(p) for test, p in table["mcnemar_p"].items()}
    return out | {"n_reviews": len(data.reviews), "n_people": len(data.people), "n_tests": n_tests}


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


def check_prediction(prediction: str, table: pd.DataFrame, model_a: str, model_b: str) -> str:
    """Exercise 3: which model keeps Table 1's order more often? Judged on this run's comparison."""
    row = table.loc["table1_order"]
    winner = model_a if row["rate_a"] <= row["rate_b"] else model_b
    head = f"Table 1: {model_a} {row['rate_a']:.3f}, {model_b} {row['rate_b']:.3f}, McNemar p = {row['mcnemar_p']:.3g}"
    if prediction not in (model_a, model_b):
        return f"{head}. Answer with one of {model_a!r} and {model_b!r}."
    if prediction != winner:
        return f"{head}. Not this time: {winner} has the lower violation rate (rate_a and rate_b, row table1_order)."
    return f"{head}. Correct: {winner} violates fewer pairs."
