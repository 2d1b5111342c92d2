"""How one TRE fit runs, as one object: composition, steps, learning rate, initialisation, held-out part.

Intuition: these are not a classifier's training block (nothing here is a
:class:`~mtlib.models.ClassifierSettings`): they are the optimiser's and the
protocol's, shared by every encoder of a run and by the sensitivity sweep around
them (notebook 06's last section). Notebook 06's
spec holds their defaults (:meth:`mtlib.experiments.tre.spec.Spec.fit_options`);
this object has none, so no module keeps a second copy.

Example:
    >>> fit = TreFitOptions(composition="add", steps=400, lr=0.01, init_scale=1.0, heldout_fraction=0.3, unseen="zero")
    >>> sorted(fit.kwargs())
    ['composition', 'heldout_fraction', 'init_scale', 'lr', 'steps', 'unseen']
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class TreFitOptions:
    """The options of a TRE fit (:func:`~mtlib.analysis.tree_reconstruction.fit_tre_heldout`).

    Attributes:
        composition: ``"add"`` (a node is the sum of its children) or ``"linear"`` (learned ``W [a; b]``).
        steps: RMSProp steps (full batch).
        lr: RMSProp learning rate.
        init_scale: Standard deviation of the primitives' normal initialisation.
        heldout_fraction: Share of the sentences held out of the fit and scored with the trained primitives
            (0: fit and score every sentence, the paper's protocol).
        unseen: A held-out word never seen in the fit: ``"zero"`` (the zero vector) or ``"exclude"``
            (its sentence gets no TRE).
    """

    composition: str
    steps: int
    lr: float
    init_scale: float
    heldout_fraction: float
    unseen: str

    def kwargs(self) -> dict[str, Any]:
        """The options as keyword arguments of :func:`~mtlib.analysis.tree_reconstruction.fit_tre_heldout`."""
        return asdict(self)
