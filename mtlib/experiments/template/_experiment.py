"""The template's experiment: each model's cosine similarities of a few sentences.

Intuition: the smallest experiment with the whole pattern of a notebook's
package. :class:`~mtlib.experiments.template.spec.Spec` declares the
parameters once; :func:`load` reads the data; :func:`analyse` runs every model
and returns an :class:`~mtlib.experiments.outcome.Outcome`: one report per
model (the first model's is the primary one), run-level values in ``parts``.
:func:`run` is both steps in one call (a script, a test); the notebook takes
them one by one and records the outcome with ``run.record_outcome(outcome)``.
A report is any object with ``metrics()`` (and optionally ``headline``): the
run records it in the one key scheme, ``models/<model>/<metric>`` and, for the
primary model, ``<metric>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtlib.experiments.outcome import Outcome
from mtlib.experiments.template.spec import Spec
from mtlib.models.loading import load as load_model
from mtlib.utils.similarity import cosine_matrix


@dataclass
class Similarities:
    """One model's report: the cosine similarities of the texts.

    Attributes:
        model: The model's name.
        similarities: ``(n, n)``: the cosine similarity of every text with every text (ones on the diagonal).
    """

    model: str
    similarities: np.ndarray
    #: The metrics the runner's summary shows (for the primary model).
    headline: ClassVar[list[str]] = ["mean_similarity"]

    def metrics(self) -> dict[str, float]:
        """``mean_similarity``: the mean of the matrix, diagonal included."""
        return {"mean_similarity": float(self.similarities.mean())}


def load(spec: Spec) -> list[str]:
    """The first ``n_examples`` sentences of the spec."""
    return list(spec.sentences[: spec.n_examples])


def analyse(spec: Spec, texts: list[str]) -> Outcome:
    """Each model of the spec embeds the texts (each unique text once; reruns read the disk cache)."""
    reports = {}
    for name in spec.models:
        model = load_model(name, context=spec.context())
        reports[name] = Similarities(name, cosine_matrix(model.embed(texts)))
    return Outcome(reports=reports, parts=[{"n_examples": len(texts)}], data=texts, spec=spec)


def run(spec: Spec) -> Outcome:
    """The whole experiment in one call: :func:`load`, then :func:`analyse`."""
    return analyse(spec, load(spec))
