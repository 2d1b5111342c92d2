"""What a suite run gives back: one :class:`~mtlib.suite.outcome.TestOutcome` per test, and ways to read it.

``summary()`` is the table (one row per test), ``to_html(path)`` the page a
person reads, ``assert_passes()`` the CI gate (it lists every failing test,
not the first), ``save``/``load`` a JSON file (plain values, never pickle)
and ``compare(other)`` the paired comparison with another model's run of the
same suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from mtlib.suite import report
from mtlib.suite.comparison import compare
from mtlib.suite.outcome import COLUMNS, TestOutcome, plain
from mtlib.utils.inputs import check_output_file

__all__ = ["SuiteFailure", "SuiteResult"]

#: Format tag of a saved result.
FORMAT = "mtlib.suite-result/1"


class SuiteFailure(AssertionError):
    """Some tests of a suite fail; ``result`` is the :class:`SuiteResult`, ``failing`` their names."""

    def __init__(self, message: str, result: SuiteResult, failing: list[str]) -> None:
        super().__init__(message)
        self.result, self.failing = result, failing


@dataclass
class SuiteResult:
    """A suite's run on one model.

    Attributes:
        suite: Suite name.
        model: Model name.
        tests: One outcome per test, in the suite's order.
        scored: Unique texts the model was asked for in this run (after the per-run memo).
        batches: Model calls in this run (0 when everything came from the memo).
        model_calls: Batches the model itself ran (``Model.calls`` moved by); 0 on a rerun from the disk cache.
    """

    suite: str
    model: str
    tests: list[TestOutcome]
    scored: int = 0
    batches: int = 0
    model_calls: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> TestOutcome:
        for t in self.tests:
            if t.name == name:
                return t
        raise KeyError(f"no test {name!r}; tests: {[t.name for t in self.tests]}")

    @property
    def passed(self) -> bool:
        """Whether every test passes."""
        return all(t.passed for t in self.tests)

    def summary(self) -> pd.DataFrame:
        """One row per test: family, rate, interval, gate bound, threshold, passed, counts, the worst case."""
        frame = pd.DataFrame(
            [t.row() for t in self.tests],
            columns=list(COLUMNS),
            index=pd.Index([t.name for t in self.tests], name="test"),
        )
        return frame

    def failing(self) -> list[str]:
        """Names of the failing tests."""
        return [t.name for t in self.tests if not t.passed]

    def assert_passes(self) -> SuiteResult:
        """CI gate: raise :class:`SuiteFailure` (an AssertionError) listing every failing test; else return self."""
        failing = [t for t in self.tests if not t.passed]
        if failing:
            lines = [f"{len(failing)} of {len(self.tests)} tests of suite {self.suite!r} fail on {self.model}:"]
            for t in failing:
                lines.append(
                    f"- {t.name}: rate {t.rate:.4f} [{t.ci_low:.4f}, {t.ci_high:.4f}], gate bound "
                    f"{t.gate_bound:.4f} > threshold {t.threshold:.4f} ({t.violations:,} of {t.cases:,} "
                    f"cases; {t.description})" + (f"; {t.warning}" if t.warning else "")
                )
            raise SuiteFailure("\n".join(lines), self, [t.name for t in failing])
        return self

    def to_html(self, path: str | Path) -> Path:
        """Write a self-contained page: the summary, then per test its transformations and worst examples."""
        target = check_output_file(path, "SuiteResult.to_html", suffix=".html")
        return report.write_html(target, self.suite, self.model, self.tests, self.summary())

    def compare(self, other: SuiteResult, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
        """:func:`mtlib.suite.compare` of this result (a) and ``other`` (b)."""
        return compare(self, other, n_boot=n_boot, seed=seed)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {
            "format": FORMAT,
            "suite": self.suite,
            "model": self.model,
            "scored": self.scored,
            "batches": self.batches,
            "model_calls": self.model_calls,
            "meta": plain(self.meta),
            "tests": [t.to_json() for t in self.tests],
        }

    def save(self, path: str | Path) -> Path:
        """Write the result as JSON (strict: no NaN literals); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1, allow_nan=False), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> SuiteResult:
        """The result :meth:`save` wrote.

        Raises:
            ValueError: the file is not a saved suite result.
        """
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{path} is not a saved suite result (format {FORMAT!r})")
        return cls(
            data["suite"],
            data["model"],
            [TestOutcome.from_json(t) for t in data["tests"]],
            int(data.get("scored", 0)),
            int(data.get("batches", 0)),
            data.get("model_calls"),
            dict(data.get("meta") or {}),
        )

    def __repr__(self) -> str:
        verdict = "every test passes" if self.passed else f"failing: {self.failing()}"
        return f"SuiteResult({self.suite!r} on {self.model!r}: {len(self.tests)} tests, {verdict})"

    def _repr_html_(self) -> str:
        return report.table_html(self.summary())
