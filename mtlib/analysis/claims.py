"""Conclusions computed from a run: accuracies beside their baselines, and sentences built from metrics.

A notebook's markdown never asserts a result in advance (DESIGN.md, "Claims
come from the run"). The functions here turn a run's numbers into the
sentences its markdown would otherwise hard-code, so the same notebook tells
the truth on the bundled data, on the real data and on a user's model:

- :func:`accuracy_vs_baseline` puts an accuracy beside its majority-class
  baseline and balanced accuracy, with a one-sided binomial test of "better
  than always answering the majority class";
- each notebook states its own conclusions from its tables, in a few lines of its own.

Sentences are Markdown strings: show them with ``IPython.display.Markdown``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Characters that start Markdown or HTML in a notebook's Markdown output.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def md_escape(value: object) -> str:
    """A value from data or the command line (a model name, a label), safe inside a Markdown sentence.

    Backslash-escapes the characters that would start emphasis, code, a link, a table cell or HTML, so a
    model named ``<img src=x onerror=...>`` or ``[x](javascript:...)`` is printed, never rendered.

    Examples:
        >>> md_escape("minilm")
        'minilm'
        >>> print(md_escape("<img src=x>"))
        \\<img src=x\\>
    """
    return _MD_SPECIAL.sub(r"\\\1", str(value))


#: Significance level of the named tests the sentences report.
ALPHA = 0.05


@dataclass(frozen=True)
class AccuracyReport:
    """An accuracy and what it must be compared with.

    Attributes:
        accuracy: Share of correct predictions.
        majority_baseline: Accuracy of always predicting the most frequent gold label.
        majority_label: That label, as text.
        balanced_accuracy: Mean recall over the gold classes (0.5 for any constant answer).
        n: Number of predictions.
        p_above_baseline: One-sided exact binomial test of "accuracy > majority
            baseline" (correct predictions against ``n`` draws at the baseline rate).
    """

    accuracy: float
    majority_baseline: float
    majority_label: str
    balanced_accuracy: float
    n: int
    p_above_baseline: float

    @property
    def beats_baseline(self) -> bool:
        """Above the majority baseline at :data:`ALPHA` (one-sided binomial test)."""
        return bool(self.accuracy > self.majority_baseline and self.p_above_baseline < ALPHA)

    def metrics(self, accuracy_key: str) -> dict[str, float | int]:
        """Flat metrics beside ``accuracy_key``: ``<key>``, ``<key>_majority_baseline``, ... .

        ``accuracy`` gives ``accuracy``, ``accuracy_majority_baseline``,
        ``accuracy_balanced``, ``accuracy_p_above_baseline``, ``accuracy_n``;
        ``accuracy/english/syn`` gives ``accuracy/english/syn_majority_baseline`` and so on.
        """
        return {
            accuracy_key: self.accuracy,
            f"{accuracy_key}_majority_baseline": self.majority_baseline,
            f"{accuracy_key}_balanced": self.balanced_accuracy,
            f"{accuracy_key}_p_above_baseline": self.p_above_baseline,
            f"{accuracy_key}_n": self.n,
        }

    def sentence(self, what: str) -> str:
        """One Markdown sentence: the accuracy, its baseline, and which side of it the run fell."""
        what, label = md_escape(what), md_escape(self.majority_label)
        if not self.n or not np.isfinite(self.accuracy):
            return f"**{what}**: no predictions to score."
        head = (
            f"**{what}**: accuracy {self.accuracy:.3f} on {self.n:,} items, beside a majority-class baseline "
            f'of {self.majority_baseline:.3f} (always "{label}") and a balanced accuracy of '
            f"{self.balanced_accuracy:.3f} (0.5 for any constant answer)."
        )
        if self.accuracy <= self.majority_baseline:
            return head + (
                f' It is **not above the baseline**: always answering "{label}" would score at least as well.'
            )
        verdict = "above the baseline" if self.p_above_baseline < ALPHA else "above the baseline, but not significantly"
        return head + (
            f" It is **{verdict}** (one-sided exact binomial test against the baseline rate, "
            f"p = {self.p_above_baseline:.3g})."
        )


def _binomial_p(correct: int, n: int, rate: float) -> float:
    from scipy.stats import binomtest

    if not n:
        return float("nan")
    return float(binomtest(int(correct), int(n), min(max(rate, 0.0), 1.0), alternative="greater").pvalue)


def accuracy_vs_baseline(gold: Sequence, predicted: Sequence, names: dict | None = None) -> AccuracyReport:
    """Score predictions against gold labels, beside the majority-class baseline.

    Args:
        gold: Gold labels, shape ``(n,)`` (any hashable values).
        predicted: Predicted labels, same values, shape ``(n,)``.
        names: Optional display names of the labels (``{False: "not entailed"}``).

    Returns:
        :class:`AccuracyReport`; all NaN (``n`` = 0) for no items.
    """
    gold_a, pred_a = np.asarray(gold), np.asarray(predicted)
    if gold_a.shape != pred_a.shape:
        raise ValueError(f"gold and predicted differ in shape: {gold_a.shape} vs {pred_a.shape}")
    n = len(gold_a)
    if not n:
        return AccuracyReport(float("nan"), float("nan"), "", float("nan"), 0, float("nan"))
    labels, counts = np.unique(gold_a, return_counts=True)
    top = labels[int(np.argmax(counts))]
    correct = gold_a == pred_a
    recalls = [float(correct[gold_a == lab].mean()) for lab in labels]
    baseline = float(counts.max() / n)
    label = (names or {}).get(top.item() if hasattr(top, "item") else top, str(top))
    return AccuracyReport(
        float(correct.mean()), baseline, label, float(np.mean(recalls)), n, _binomial_p(int(correct.sum()), n, baseline)
    )


__all__ = [
    "md_escape",
    "ALPHA",
    "AccuracyReport",
    "accuracy_vs_baseline",
]
