"""The tour's inputs: sentences from two templates and a seeded sample of the bundled movie reviews.

Intuition: a minimum-functionality test needs easy, labelled inputs (praise
must read as positive), an invariance test sentences that a transformation can
change (names, casing, typos), and the pairwise relation real reviews. Two
templates give the first two (every combination, or a seeded sample), the
bundled reviews the third.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from mtlib.suite import generate

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
