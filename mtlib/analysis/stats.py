"""Statistics for violation rates: intervals, bootstraps over items, named tests.

Intuition: a pairwise or three-way test case shares its source items with many
other cases, so cases are *not* independent and a binomial interval over 56M
pairs would be absurdly narrow. The honest unit of resampling is the source
item: :func:`bootstrap_order_rate` and :func:`bootstrap_transitivity_rates`
draw multinomial item weights and recount exactly (a resample with repeated
items is just integer weights to the counting engine). Wilson intervals are
for rates over genuinely independent cases. Every test names itself, so
tables say which test produced a p-value; the functions that run several
tests of one question (:func:`compare_two_groups`, :func:`association_test`,
:func:`one_sample_test`) return :class:`TestResults`, read by name
(``result.permutation.p_value``), never by row position, with ``table()`` for
display and saving.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sstats

from mtlib.models.training.baseline import majority_baseline
from mtlib.relations.bootstrap import (
    bootstrap_order_rate,
    bootstrap_rate,
    bootstrap_rates,
    bootstrap_transitivity_rates,
    bootstrap_weights,
    check_resampling,
    percentile_interval,
    rate_text,
    wilson_interval,
    with_wilson_rates,
)
from mtlib.relations.bootstrap import rate_table as rate_table  # with_wilson_rates' old name, for one release
from mtlib.relations.errors import MtlibInputError, check_scores
from mtlib.relations.replicates import weighted_sums

# Label entries per block of shuffles in a permutation test (int64: about 64 MB).
_SHUFFLE_BLOCK = 8 * 2**20
#: The columns of :meth:`TestResults.table` for a comparison of two groups, and for a test with an effect size.
GROUP_COMPARISON_COLUMNS = ("test", "groups", "difference", "statistic", "p_value")
EFFECT_TEST_COLUMNS = ("test", "statistic", "p_value", "effect")


@dataclass(frozen=True)
class TestResult:
    """One named test's outcome.

    Attributes:
        test: The test's full name, as a table shows it (``"Mann-Whitney U (one-sided: flagged > others)"``).
        statistic: Its statistic (``nan`` where the test has none, e.g. a permutation test's).
        p_value: Its p-value.
        effect: The effect it tests: a difference of rates or medians, an odds ratio, a mean minus the reference.
        ci_low, ci_high: The effect's 95% interval, where the test gives one (else ``nan``).
        groups: The groups compared (``"up - down"``), where there are two.
    """

    __test__ = False  # not a pytest class

    test: str
    statistic: float
    p_value: float
    effect: float = float("nan")
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    groups: str = ""

    @property
    def difference(self) -> float:
        """The effect of a two-group comparison (the name its table column has)."""
        return self.effect


class TestResults:
    """The named tests of one question: each by name (``result.z_test.p_value``), ``table()`` for display.

    A test that could not run (too few values, one group only) is absent: ``name in result`` says whether it
    ran, ``result.get(name)`` gives ``None`` for an absent one, ``len(result)`` counts those that ran.

    Reading it as the DataFrame it used to be (``result.loc[1, "p_value"]``, ``result["p_value"]``) still works
    for one release, with a DeprecationWarning: rows by position are what this class replaces.
    """

    __test__ = False  # not a pytest class

    def __init__(self, tests: dict[str, TestResult], columns: tuple[str, ...] = EFFECT_TEST_COLUMNS) -> None:
        self._tests, self._columns = dict(tests), tuple(columns)

    @classmethod
    def untested(cls, columns: tuple[str, ...] = EFFECT_TEST_COLUMNS) -> TestResults:
        """No test run (e.g. only one group): empty, with the table's columns."""
        return cls({}, columns)

    @property
    def names(self) -> list[str]:
        """The names of the tests that ran, in order."""
        return list(self._tests)

    def __getattr__(self, name: str) -> TestResult:
        tests = self.__dict__.get("_tests", {})
        if name.startswith("_") or name not in tests:
            raise AttributeError(
                f"no test {name!r} in this result: it has {list(tests)} (a test that could not run is left out)"
            )
        return tests[name]

    def get(self, name: str) -> TestResult | None:
        """The test called ``name``, or ``None`` when it did not run."""
        return self._tests.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tests

    def __len__(self) -> int:
        return len(self._tests)

    def __iter__(self) -> Iterator[TestResult]:
        return iter(self._tests.values())

    def table(self) -> pd.DataFrame:
        """One row per test that ran (in order), the columns of this type of result."""
        rows = [{**asdict(t), "difference": t.effect} for t in self._tests.values()]
        return pd.DataFrame([{c: r[c] for c in self._columns} for r in rows], columns=list(self._columns))

    def __repr__(self) -> str:
        return repr(self.table())

    def _repr_html_(self) -> str:
        return str(self.table()._repr_html_())

    def _deprecated(self, how: str) -> pd.DataFrame:
        warnings.warn(
            f"reading a test result as a DataFrame ({how}) is deprecated and goes in the next release: read a test "
            f"by name ({', '.join(f'result.{n}.p_value' for n in self._tests) or 'none ran'}), or call .table()",
            DeprecationWarning,
            stacklevel=3,
        )
        return self.table()

    @property
    def loc(self) -> Any:
        return self._deprecated(".loc").loc

    @property
    def iloc(self) -> Any:
        return self._deprecated(".iloc").iloc

    @property
    def empty(self) -> bool:
        return not self._tests

    def __getitem__(self, column: str) -> pd.Series:
        return self._deprecated(f"[{column!r}]")[column]

    def to_csv(self, *args: Any, **kwargs: Any) -> Any:
        """The table as CSV (what :meth:`mtlib.run.results.Run.save_table` calls)."""
        return self.table().to_csv(*args, **kwargs)


def two_proportion_test(k1: int, n1: int, k2: int, n2: int) -> dict[str, Any]:
    """Two-sided z-test for a difference of two proportions, cases assumed independent."""
    p1, p2 = k1 / n1 if n1 else np.nan, k2 / n2 if n2 else np.nan
    pooled = (k1 + k2) / (n1 + n2) if n1 + n2 else np.nan
    se = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2)) if n1 and n2 else np.nan
    z = (p1 - p2) / se if se and np.isfinite(se) and se > 0 else np.nan
    p = float(2 * sstats.norm.sf(abs(z))) if np.isfinite(z) else float("nan")
    return {
        "test": "two-proportion z-test (cases independent)",
        "statistic": float(z),
        "p_value": p,
        "difference": float(p1 - p2),
    }


def permutation_test(
    statistic: Callable[[np.ndarray], Any],
    labels: np.ndarray,
    *,
    permutations: int,
    seed: int = 0,
    two_sided: bool = False,
    batched: bool = False,
) -> tuple[float, float]:
    """The one label-permutation test of the package: observed statistic and its p-value.

    The null distribution recomputes ``statistic`` on ``permutations``
    seeded shuffles of ``labels``; the p-value counts the shuffles at least
    as extreme as the observation, plus one (so it is never 0).

    Args:
        statistic: Maps a label array ``(c,)`` to a number; with ``batched``,
            a label matrix ``(B, c)`` (one shuffle per row) to ``(B,)`` numbers.
        labels: The observed labels, shape ``(c,)`` (shuffled among units).
        permutations: Number of shuffles ``B``.
        seed: Seeds the shuffles (drawn one after another by one generator, so
            the batched and the per-shuffle forms see the same shuffles).
        two_sided: Compare absolute values (else: larger is more extreme).
        batched: ``statistic`` takes all shuffles at once.

    Returns:
        ``(observed, p)`` with ``p = (1 + #{null >= observed}) / (B' + 1)``,
        where ``B'`` counts the shuffles whose statistic is defined: a
        shuffle that leaves a group without cases has no statistic (NaN)
        and is left out rather than counted as "less extreme", which would
        make ``p`` too small. An undefined observation gives ``p = NaN``.
    """
    permutations, seed = check_resampling(permutations, seed, "permutation_test", argument="permutations")
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    rows = max(1, _SHUFFLE_BLOCK // max(labels.size, 1))  # shuffles per block: memory bounded whatever B is
    parts = []
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = float(np.asarray(statistic(labels[None, :]), dtype=float)[0] if batched else statistic(labels))
        for lo in range(0, permutations, rows):
            block = [rng.permutation(labels) for _ in range(min(rows, permutations - lo))]
            parts.append(statistic(np.stack(block)) if batched else [statistic(x) for x in block])
    null = np.concatenate([np.asarray(p, dtype=float) for p in parts])
    null = null[np.isfinite(null)]
    if not np.isfinite(observed) or not len(null):
        return observed, float("nan")
    obs = abs(observed) if two_sided else observed
    null = np.abs(null) if two_sided else null
    return observed, float((1 + np.sum(null >= obs - 1e-12)) / (len(null) + 1))


def cluster_permutation_test(
    violations: np.ndarray,
    cases: np.ndarray,
    labels: np.ndarray,
    *,
    permutations: int = 5000,
    seed: int = 0,
    device: str | None = None,
) -> dict[str, Any]:
    """Difference of pooled rates between two groups of clusters, by permuting cluster labels.

    Each cluster (e.g. a context) contributes its violations and cases; the
    statistic is the pooled rate of group A minus that of group B; the null
    shuffles the group labels among clusters, which respects the dependence
    of cases inside a cluster. All shuffles are counted at once, as integer
    sums (:func:`~mtlib.relations.replicates.weighted_sums`, on ``device``
    when given): the same p-value wherever it runs.

    Args:
        violations, cases: Per cluster, shape ``(c,)``, integer counts.
        labels: Two distinct values, shape ``(c,)``; the first in sorted
            order is group A.
        device: None for numpy on the host, or a torch device string.

    Returns:
        ``{"test", "groups", "difference", "p_value"}`` (two-sided).
    """
    where = "cluster_permutation_test"
    v, c = check_scores(violations, where, "violations"), check_scores(cases, where, "cases")
    labels = np.asarray(labels)
    if not v.size == c.size == labels.size:
        raise MtlibInputError(
            f"{where}: violations, cases and labels must have one entry per cluster, got "
            f"{v.size}, {c.size} and {labels.size}"
        )
    bad = np.flatnonzero((v < 0) | (v > c))
    if bad.size:
        i = int(bad[0])
        raise MtlibInputError(
            f"{where}: cluster {i} has {v[i]:g} violations of {c[i]:g} cases; expected 0 <= violations <= cases",
            argument="violations",
        )
    check_resampling(permutations, seed, where, argument="permutations")
    counts = np.stack([v, c], axis=1)  # (c, 2)
    groups = np.unique(labels)
    if len(groups) != 2:
        raise ValueError(f"need exactly two groups of clusters, got {groups.tolist()}")
    is_a = labels == groups[0]
    whole = counts.sum(0)

    integral = bool(np.isfinite(counts).all()) and np.array_equal(counts, np.round(counts))

    def diff(masks: np.ndarray) -> np.ndarray:
        if integral:  # exact integer sums, on the device when given
            in_a = weighted_sums(masks.astype(np.int64), counts, device=device).astype(float)  # (B, 2)
        else:
            in_a = masks.astype(float) @ counts
        in_b = whole - in_a
        return in_a[:, 0] / in_a[:, 1] - in_b[:, 0] / in_b[:, 1]

    observed, p = permutation_test(diff, is_a, permutations=permutations, seed=seed, two_sided=True, batched=True)
    return {
        "test": f"cluster permutation test (labels shuffled among {len(labels)} clusters, B={permutations})",
        "groups": [str(g) for g in groups],
        "difference": float(observed),
        "p_value": float(p),
    }


def compare_two_groups(
    per_cluster: pd.DataFrame,
    *,
    group: str,
    violations: str = "violations",
    cases: str = "cases",
    permutations: int = 5000,
    seed: int = 0,
    device: str | None = None,
) -> TestResults:
    """Do two groups of clusters differ in their rate? Two named tests.

    ``device`` is where the permutation test counts (:func:`cluster_permutation_test`).

    Returns:
        :class:`TestResults` with ``z_test`` (two-proportion z-test, cases assumed independent) and
        ``permutation`` (cluster labels shuffled: the one to trust when cases inside a cluster are dependent),
        each with ``groups``, ``difference`` (first group's rate minus the second's), ``statistic``, ``p_value``;
        ``table()`` has the columns ``test, groups, difference, statistic, p_value``.
    """
    agg = per_cluster.groupby(group)[[violations, cases]].sum()
    if len(agg) != 2:
        raise ValueError(f"column {group!r} must have exactly two values, has {agg.index.tolist()}")
    (g1, r1), (g2, r2) = agg.iterrows()
    z = two_proportion_test(int(r1[violations]), int(r1[cases]), int(r2[violations]), int(r2[cases]))
    perm = cluster_permutation_test(
        per_cluster[violations],
        per_cluster[cases],
        per_cluster[group],
        permutations=permutations,
        seed=seed,
        device=device,
    )
    groups = f"{g1} - {g2}"
    tests = {
        "z_test": TestResult(z["test"], z["statistic"], z["p_value"], z["difference"], groups=groups),
        "permutation": TestResult(perm["test"], np.nan, perm["p_value"], perm["difference"], groups=groups),
    }
    return TestResults(tests, GROUP_COMPARISON_COLUMNS)


def association_test(values: np.ndarray, flag: np.ndarray) -> TestResults:
    """Is a per-item count larger where a binary flag is set (e.g. misclassified)?

    Two named tests: Mann-Whitney U (one-sided: flagged items have larger
    values) and a logistic regression of the flag on the standardised value
    (Wald test of the slope, statsmodels).

    Returns:
        :class:`TestResults` with ``mann_whitney`` (effect: the median difference) and ``logistic`` (effect: the
        odds ratio per standard deviation; absent when the values do not vary); no test when every item is
        flagged or none is. ``table()`` has the columns ``test, statistic, p_value, effect``.
    """
    values, flag = np.asarray(values, float), np.asarray(flag, bool)
    tests: dict[str, TestResult] = {}
    if flag.any() and (~flag).any():
        mw = sstats.mannwhitneyu(values[flag], values[~flag], alternative="greater")
        effect = float(np.median(values[flag]) - np.median(values[~flag]))
        tests["mann_whitney"] = TestResult(
            "Mann-Whitney U (one-sided: flagged > others)", float(mw.statistic), float(mw.pvalue), effect
        )
        sd = values.std()
        if sd > 0:
            import statsmodels.api as sm

            x = sm.add_constant((values - values.mean()) / sd)
            try:
                fit = sm.Logit(flag.astype(float), x).fit(disp=False)
                low, high = np.exp(np.asarray(fit.conf_int())[1])
                tests["logistic"] = TestResult(
                    "logistic regression flag ~ value (Wald)",
                    float(fit.tvalues[1]),
                    float(fit.pvalues[1]),
                    float(np.exp(fit.params[1])),
                    float(low),
                    float(high),
                )
            except Exception as err:  # perfect separation and the like
                tests["logistic"] = TestResult(f"logistic regression flag ~ value (failed: {err})", np.nan, np.nan)
    return TestResults(tests, EFFECT_TEST_COLUMNS)


def rank_items(per_item: pd.DataFrame, *, by: str = "violations", ascending: bool = False) -> pd.DataFrame:
    """Items sorted by a count, with their rank (1 = most violations), ties broken by index order."""
    out = per_item.sort_values(by, ascending=ascending, kind="stable").copy()
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    return out


def top_and_bottom(frame: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """The first and last ``k`` rows of a ranked table, with a ``...`` separator row when cut."""
    if len(frame) <= 2 * k:
        return frame
    gap = pd.DataFrame([{c: "..." for c in frame.columns}], index=["..."])
    return pd.concat([frame.head(k), gap, frame.tail(k)])


def one_sample_test(values: np.ndarray, reference: float) -> TestResults:
    """Do per-cluster values (e.g. per-context violation rates) differ from a reference (e.g. 0.5)?

    Returns:
        :class:`TestResults` of two-sided tests over the clusters: ``t_test`` (Student's one-sample t-test;
        effect: mean minus ``reference``, with its 95% interval) and ``wilcoxon`` (signed-rank; effect: median
        minus ``reference``; absent when every value equals it); none with fewer than 2 finite values.
        ``table()`` has the columns ``test, statistic, p_value, effect``.
    """
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    tests: dict[str, TestResult] = {}
    if len(values) >= 2:
        t = sstats.ttest_1samp(values, reference)
        interval = t.confidence_interval(0.95)
        tests["t_test"] = TestResult(
            f"one-sample t-test vs {reference} ({len(values)} clusters)",
            float(t.statistic),
            float(t.pvalue),
            float(values.mean() - reference),
            float(interval.low - reference),
            float(interval.high - reference),
        )
        if np.any(values != reference):
            w = sstats.wilcoxon(values - reference)
            tests["wilcoxon"] = TestResult(
                f"Wilcoxon signed-rank vs {reference} ({len(values)} clusters)",
                float(w.statistic),
                float(w.pvalue),
                float(np.median(values) - reference),
            )
    return TestResults(tests, EFFECT_TEST_COLUMNS)


__all__ = [
    # re-exported: intervals and bootstraps (mtlib.relations.bootstrap), the majority baseline
    # (mtlib.models.training.baseline)
    "bootstrap_order_rate",
    "bootstrap_rate",
    "bootstrap_rates",
    "bootstrap_transitivity_rates",
    "bootstrap_weights",
    "percentile_interval",
    "rate_text",
    "wilson_interval",
    "with_wilson_rates",
    "majority_baseline",
    # tests and tables
    "EFFECT_TEST_COLUMNS",
    "GROUP_COMPARISON_COLUMNS",
    "TestResult",
    "TestResults",
    "two_proportion_test",
    "permutation_test",
    "cluster_permutation_test",
    "compare_two_groups",
    "association_test",
    "rank_items",
    "top_and_bottom",
    "one_sample_test",
]
