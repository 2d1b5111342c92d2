"""The template's data: the sentences the notebook embeds.

Intuition: the smallest package a notebook needs. :class:`~mtlib.experiments.template.spec.Spec`
declares the parameters once and :func:`load` reads the data; the method itself (load each model,
embed, compare, record) is the notebook's cells, over mtlib's generic blocks.
"""

from __future__ import annotations

from mtlib.experiments.template.spec import Spec


def load(spec: Spec) -> list[str]:
    """The first ``n_examples`` sentences of the spec."""
    return list(spec.sentences[: spec.n_examples])
