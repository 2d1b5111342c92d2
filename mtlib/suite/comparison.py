"""Two models on the same suite: which one violates each test more, and is the difference real?

For every test the two results share their source items, so the comparison
is paired:

- the difference of the rates (``rate_b - rate_a``) gets a paired bootstrap
  interval: each replicate resamples the source items once and recomputes
  both rates from the same items (each rate is ``sum(violations) /
  sum(cases)`` over the resampled items);
- McNemar's exact test on item-level pass/fail (an item fails when any of its
  cases is violated): only the discordant items count (``a_only_fail``,
  ``b_only_fail``). Both the test and the bootstrap are
  :mod:`mtlib.analysis.paired_tests`, the functions ``python -m mtlib.paired``
  and PSS use, so one data set gives one p-value (exact, as statsmodels'
  ``mcnemar(exact=True)``, at any number of discordant items).

Results computed on different inputs are refused: a comparison of two
models on different sentences is not paired. Two
:class:`~mtlib.relations.RelationResult` (what ``Relation.evaluate`` returns
and the notebooks hold) compare the same way, as one test each: they know
their inputs (the source texts, or the per-item labels given to ``check``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mtlib.analysis.paired_tests import mcnemar_test, paired_ratio_replicates
from mtlib.relations import bootstrap
from mtlib.relations.errors import MtlibInputError
from mtlib.relations.result import RelationResult
from mtlib.suite.outcome import TestOutcome

__all__ = ["compare"]


def _paired_boot(a: TestOutcome, b: TestOutcome, n_boot: int, seed: int) -> tuple[float, float]:
    counts = np.concatenate([x.per_item[["violations", "cases"]].to_numpy() for x in (a, b)], axis=1)
    if not n_boot or len(counts) == 0:
        return float("nan"), float("nan")
    rate_a, rate_b = paired_ratio_replicates(counts, n_boot, seed)
    return bootstrap.percentile_interval(rate_b - rate_a)


def compare_outcomes(a: TestOutcome, b: TestOutcome, *, n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The comparison of one test on two models (a row of :func:`compare`).

    Raises:
        ValueError: the two outcomes were computed on different inputs.
    """
    n_boot, seed = bootstrap.check_resampling(n_boot, seed, "compare_outcomes", skip=True)
    same = (
        a.inputs_digest == b.inputs_digest
        and len(a.per_item) == len(b.per_item)
        and a.per_item["item"].tolist() == b.per_item["item"].tolist()
    )
    if not same:
        raise ValueError(
            f"test {a.name!r}: the two results were computed on different inputs "
            f"({a.n_items} vs {b.n_items} items, digests {a.inputs_digest} vs {b.inputs_digest}); "
            f"a paired comparison needs the same inputs: run the same suite on both models"
        )
    low, high = _paired_boot(a, b, n_boot, seed)
    fail_a = a.per_item["violations"].to_numpy() > 0
    fail_b = b.per_item["violations"].to_numpy() > 0
    a_only, b_only = int((fail_a & ~fail_b).sum()), int((fail_b & ~fail_a).sum())
    stat, p = mcnemar_test(a_only, b_only)
    return {
        "test": a.name,
        "family": a.family,
        "rate_a": a.rate,
        "rate_b": b.rate,
        "diff": b.rate - a.rate,
        "diff_low": low,
        "diff_high": high,
        "n_items": a.n_items,
        "passed_a": None if np.isnan(a.threshold) else a.passed,  # a RelationResult has no threshold
        "passed_b": None if np.isnan(b.threshold) else b.passed,
        "both_fail": int((fail_a & fail_b).sum()),
        "a_only_fail": a_only,
        "b_only_fail": b_only,
        "mcnemar_statistic": stat,
        "mcnemar_p": p,
    }


def _outcome_of(result: RelationResult, name: str) -> TestOutcome:
    """A relation's result as a suite test outcome (no threshold: its gate columns are empty)."""
    if result.cases == 0:
        raise MtlibInputError(f"compare: {result.relation!r} has no cases ({result.no_cases})", argument="result")
    texts = result.details.get("src_text")
    if texts is None:
        items = result.per_item["item"] if "item" in result.per_item else result.per_item.index
        texts = [str(x) for x in items]
    return TestOutcome.from_result(name, result, float("nan"), list(texts), k=0)


def _tests_of(result: Any, side: str) -> dict[str, TestOutcome]:
    """The outcomes of a SuiteResult, of one RelationResult, or of a mapping name -> RelationResult."""
    if isinstance(result, RelationResult):
        return {result.relation: _outcome_of(result, result.relation)}
    if isinstance(result, dict) and result and all(isinstance(r, RelationResult) for r in result.values()):
        return {str(name): _outcome_of(r, str(name)) for name, r in result.items()}
    tests = getattr(result, "tests", None)
    if isinstance(tests, list) and all(isinstance(t, TestOutcome) for t in tests):
        return {t.name: t for t in tests}
    raise MtlibInputError(
        f"compare: result_{side} must be a SuiteResult (suite.run(model)), a RelationResult "
        f"(relation.evaluate(...)) or a dict name -> RelationResult, got {type(result).__name__}",
        argument=f"result_{side}",
    )


def compare(result_a: Any, result_b: Any, *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per test: both rates, their paired difference with an interval, McNemar's test on item pass/fail.

    Args:
        result_a, result_b: Two :class:`~mtlib.suite.SuiteResult` of the same suite (same tests, same
            inputs), two :class:`~mtlib.relations.RelationResult` of one relation on the same inputs
            (from ``evaluate``), or two dicts name -> RelationResult with the same names.
        n_boot: Bootstrap replicates of the paired difference (0 skips the interval).
        seed: Seeds the bootstrap.

    Returns:
        DataFrame indexed by test: ``rate_a, rate_b, diff (b - a), diff_low, diff_high, n_items, passed_a,
        passed_b, both_fail, a_only_fail, b_only_fail, mcnemar_statistic, mcnemar_p`` (McNemar exact:
        :func:`mtlib.analysis.paired_tests.mcnemar_test`).

    Raises:
        MtlibInputError: something else than these; a result without cases.
        ValueError: the results have different tests, or a test was run on different inputs.
    """
    n_boot, seed = bootstrap.check_resampling(n_boot, seed, "compare", skip=True)
    tests_a, tests_b = _tests_of(result_a, "a"), _tests_of(result_b, "b")
    if isinstance(result_a, RelationResult) and isinstance(result_b, RelationResult):
        tests_b = {next(iter(tests_a)): next(iter(tests_b.values()))}  # one relation each: paired by position
    if set(tests_a) != set(tests_b):
        raise ValueError(
            f"the results come from different suites: tests only in a "
            f"{sorted(set(tests_a) - set(tests_b))}, only in b {sorted(set(tests_b) - set(tests_a))}"
        )
    rows = [compare_outcomes(tests_a[name], tests_b[name], n_boot=n_boot, seed=seed) for name in tests_a]
    frame = pd.DataFrame(rows).set_index("test")
    frame.attrs.update(model_a=getattr(result_a, "model", "a"), model_b=getattr(result_b, "model", "b"))
    return frame
