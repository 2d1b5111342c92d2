"""The parameters of notebook 00_template, declared once (:mod:`mtlib.experiments.spec`).

A new experiment copies this file: a frozen dataclass that subclasses
:class:`mtlib.experiments.spec.Spec` (which declares ``profile``, ``device``,
``precision``, ``seed`` and ``out_dir``), names its notebook, and declares each
parameter with :func:`~mtlib.experiments.spec.param`: its default (a literal),
its rule (:mod:`mtlib.utils.rules`) and a one-line doc. The notebook's
``parameters`` cell, the runner's checks and the profile keys come from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtlib.experiments import spec as base
from mtlib.experiments.spec import param

__all__ = ["Spec"]


@dataclass(frozen=True)
class Spec(base.Spec):
    """Notebook 00_template: the cosine similarities of a few sentences under each model."""

    notebook = "00_template"

    models: list[str] = param(
        ["minilm"], "non-empty; each str; distinct", "registry names, hub ids or local paths of the models to compare"
    )
    sentences: list[str] = param(
        ["A warm, funny film.", "The plot is thin, but the acting is superb.", "Thank you.", "Here is my review:"],
        "each str",
        "example texts to embed",
    )
    n_examples: int = param(4, ">= 1", "how many of the sentences to use (the smoke profile uses fewer)")

    def validate(self) -> list[str]:
        """Checks that involve more than one parameter (a rule checks one): one message per problem."""
        if self.n_examples > len(self.sentences):
            return [f"n_examples = {self.n_examples}: more than the {len(self.sentences)} sentences given"]
        return []
