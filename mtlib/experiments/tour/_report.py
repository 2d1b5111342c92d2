"""What the tour records: every test's rate for both models, their differences and McNemar p-values.

Intuition: the notebook says nothing it did not compute. :func:`metrics` gives the keys the run records
from the suite's results on both models and their comparison; :func:`failing_summary` turns a result into
the sentence the notebook shows.
"""

from __future__ import annotations

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


def metrics(results: dict[str, SuiteResult], table: pd.DataFrame, data: TourInputs, n_tests: int) -> dict[str, Any]:
    """The tour's metrics: rates per model and test, failing counts, paired differences and McNemar p-values."""
    out: dict[str, Any] = {}
    for name, res in results.items():
        out |= {f"rate/{name}/{test}": float(rate) for test, rate in res.summary()["rate"].items()}
        out[f"failing/{name}"] = len(res.failing())
    out |= {f"diff/{test}": float(d) for test, d in table["diff"].items()}
    out |= {f"mcnemar_p/{test}": float(p) for test, p in table["mcnemar_p"].items()}
    return out | {"n_reviews": len(data.reviews), "n_people": len(data.people), "n_tests": n_tests}
