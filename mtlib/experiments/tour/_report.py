"""What the tour records: every test's rate for both models, their differences and McNemar p-values.

Intuition: the notebook says nothing it did not compute. :class:`TourReport`
holds the suite's results on both models and their comparison; its
``metrics()`` are the keys the run records, its ``headline`` the Table 1 rates
and their difference. :func:`failing_summary` and :func:`rates_by_model` turn
the results into the sentence and the chart the notebook shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from mtlib.experiments.tour._data import TourInputs
from mtlib.suite.result import SuiteResult


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


@dataclass
class TourReport:
    """The suite on two models, compared: what notebook 00_tour records (a run-level report: the model names
    are part of its keys, ``rate/<model>/<test>``).

    Attributes:
        results: Model name -> its :class:`~mtlib.suite.SuiteResult`, the first model first.
        table: :func:`mtlib.suite.compare` of the first model's result with the second's.
        data: The inputs the suite ran on.
        n_tests: Tests in the suite.
    """

    results: dict[str, SuiteResult]
    table: pd.DataFrame
    data: TourInputs
    n_tests: int

    @property
    def headline(self) -> list[str]:
        """Both models' Table 1 rates and their difference."""
        names = list(self.results)  # one name when both models are the same
        return [f"rate/{names[0]}/table1_order", f"rate/{names[-1]}/table1_order", "diff/table1_order"]

    def metrics(self) -> dict[str, Any]:
        """:func:`metrics` of this comparison."""
        return metrics(self.results, self.table, self.data, self.n_tests)

    def rates(self) -> pd.DataFrame:
        """:func:`rates_by_model` of both results."""
        return rates_by_model(self.results)
