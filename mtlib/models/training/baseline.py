"""The majority-class baseline: the accuracy to beat, beside every accuracy mtlib reports.

Intuition: a model that always answers the most frequent label of the test
set scores the share of that label. Any accuracy means something only next to
this number (an NLI head at 0.66 against always-"not entailed" at 0.59 has
learnt little). It is the best any constant predictor can do on those items.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["majority_baseline"]


def majority_baseline(labels: Any) -> float:
    """Share of the most frequent label among ``labels``: the accuracy of always predicting it.

    Args:
        labels: Test labels, shape ``(n,)``, any hashable values (class ids, names, 0/1).

    Returns:
        The share in ``[0, 1]``; ``nan`` for no labels.

    Examples:
        >>> majority_baseline([1, 0, 1, 1])
        0.75
        >>> majority_baseline(["yes", "no"])
        0.5
    """
    y = np.asarray(labels)
    if y.size == 0:
        return float("nan")
    return float(np.unique(y, return_counts=True)[1].max() / y.size)
