"""The experiment of notebook 01: pairwise systematicity of one model (Manino et al. §4.1, Tables 1-2).

Intuition: if the model scores review x1 more positive than x2, it should also
score T(x1) more positive than T(x2); every pair of reviews is a test case.
:func:`systematicity` scores every unique text once and counts every pair
exactly through :class:`mtlib.relations.PairwiseSystematicity`; the
:class:`SystematicityReport` gives Tables 1-2, the misclassification tests and
the geometric picture of §4.2 (:func:`sample_pairs`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from mtlib.analysis import claims, plots, stats
from mtlib.experiments.sentiment._data import table1_frame
from mtlib.experiments.sentiment._scorer import SentimentScorer, score_follow_ups
from mtlib.relations.pairwise import PairwiseSystematicity
from mtlib.relations.result import RelationResult
from mtlib.relations.transformations.concatenation import Concatenation


def sample_pairs(src: np.ndarray, flw: np.ndarray, k: int, seed: int = 0, expected: str = "same") -> pd.DataFrame:
    """A random sample of source pairs with their four scores and whether each is violated.

    Used for the geometric picture of §4.2 only; the rates come from exact counting.
    """
    n = len(src)
    if n < 2 or k <= 0:
        return pd.DataFrame(columns=["i", "j", "src_i", "src_j", "flw_i", "flw_j", "violated"])
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, size=4 * k)
    j = rng.integers(0, n, size=4 * k)
    keep = (i != j) & (src[i] != src[j])
    i, j = i[keep][:k], j[keep][:k]
    s = np.sign(src[i] - src[j]) * (1 if expected == "same" else -1)
    violated = np.sign(flw[i] - flw[j]) != s
    return pd.DataFrame(
        {"i": i, "j": j, "src_i": src[i], "src_j": src[j], "flw_i": flw[i], "flw_j": flw[j], "violated": violated}
    )


@dataclass
class SystematicityReport:
    """Pairwise systematicity of one sentiment model under several transformations (§4.1).

    A report in the sense of :meth:`mtlib.run.results.Run.record_report`:
    :meth:`metrics` (keys without a model prefix), :meth:`tables` and
    :attr:`headline`.

    Attributes:
        model: Model name.
        sources: The source set D (``text``, and ``label`` when known), shape ``(n, ...)``.
        transformations: The transformations, in their order.
        src: s_pos of the sources, shape ``(n,)``.
        flw: Transformation id -> s_pos of the follow-ups, each shape ``(n,)``.
        result: The relation's pooled :class:`mtlib.relations.RelationResult`
            (``groups``: one row per transformation).
        relation: The relation checked (its diagram is the paper's notation).
        info: The head's held-out accuracy and sizes (empty for a model's own classes).
        infer_seconds: Time to score every unique text.
    """

    model: str
    sources: pd.DataFrame
    transformations: list[Concatenation]
    src: np.ndarray
    flw: dict[str, np.ndarray]
    result: RelationResult
    relation: PairwiseSystematicity
    info: dict[str, Any] = field(default_factory=dict)
    infer_seconds: float = float("nan")

    headline: ClassVar[tuple[str, ...]] = ("violation_rate/overall", "accuracy", "misclassified_vs_violations_p")

    @property
    def _groups(self) -> pd.DataFrame:
        """The result's rows per transformation (``check_many`` always gives them)."""
        assert self.result.groups is not None
        return self.result.groups

    @cached_property
    def table1(self) -> pd.DataFrame:
        """Table 1: one row per transformation (rate, bootstrap interval, cases, violations, the paper's rate),
        sorted by decreasing rate."""
        return self._groups.join(table1_frame(self.transformations)).sort_values("rate", ascending=False)

    @cached_property
    def per_item(self) -> pd.DataFrame:
        """One row per source: text, violated and total cases over all transformations, s_pos, prediction,
        and with gold labels ``gold`` and ``misclassified``."""
        predicted = (self.src > 0.5).astype(int)
        frame = self.result.per_item.reset_index(drop=True)
        frame.insert(0, "text", self.sources["text"].to_numpy())
        frame = frame.assign(s_pos=self.src, predicted=np.where(predicted == 1, "Pos", "Neg"))
        if "label" in self.sources:
            gold = self.sources["label"].to_numpy()
            frame["gold"] = np.where(gold == 1, "Pos", "Neg")
            frame["misclassified"] = predicted != gold
        return frame

    @cached_property
    def table2(self) -> pd.DataFrame:
        """Table 2: sources ranked by the number of violated pairs they take part in."""
        return stats.rank_items(self.per_item, by="violations")

    @cached_property
    def accuracy(self) -> claims.AccuracyReport:
        """Accuracy on D beside its majority-class baseline (``n`` = 0 without gold labels)."""
        if "label" not in self.sources:
            return claims.accuracy_vs_baseline([], [])
        return claims.accuracy_vs_baseline(
            self.sources["label"], (self.src > 0.5).astype(int).tolist(), {0: "Neg", 1: "Pos"}
        )

    @cached_property
    def association(self) -> pd.DataFrame:
        """Named tests: do misclassified reviews take part in more violated pairs? (empty without both kinds)."""
        flag = self.per_item["misclassified"] if "misclassified" in self.per_item else pd.Series(dtype=bool)
        if not (flag.any() and (~flag).any()):
            return pd.DataFrame(columns=["test", "statistic", "p_value", "effect"])
        return stats.association_test(self.per_item["violations"], flag)

    def rates(self) -> pd.Series:
        """Violation rate per transformation and ``overall``."""
        out = self._groups["rate"].copy()
        out.loc["overall"] = self.result.rate
        return out

    def metrics(self) -> dict[str, Any]:
        """Flat metrics without a model prefix (see :mod:`mtlib.run.results` for the key scheme)."""
        r, n = self.result, len(self.sources)
        out: dict[str, Any] = {
            "n_sources": n,
            "n_transformations": len(self.transformations),
            "n_pairs": int(r.extra["pairs"]),
            "n_dropped_neutral": int(self.sources.attrs.get("dropped_neutral", 0)),
            "violation_rate/overall": r.rate,
            "violation_rate/overall_ci_low": r.ci_low,
            "violation_rate/overall_ci_high": r.ci_high,
            "cases": r.cases,
            "violations": r.violations,
            **{f"violation_rate/{tid}": rate for tid, rate in self._groups["rate"].items()},
            **self.info,
            "count_seconds": r.extra["count_seconds"],
            "infer_seconds": self.infer_seconds,
        }
        if self.accuracy.n:
            out.update(self.accuracy.metrics("accuracy"))
        tests = self.association
        out["misclassified_vs_violations_p"] = float(tests.loc[0, "p_value"]) if len(tests) else float("nan")
        if len(tests) > 1:
            out["misclassified_vs_violations_logit_p"] = float(tests.loc[1, "p_value"])
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables the notebook saves: Table 1, Table 2 and the named tests."""
        return {
            "table1_violation_rate_per_transformation": self.table1,
            "table2_sources_ranked_by_violations": self.table2,
            "misclassified_vs_violations": self.association,
        }

    def summary(self) -> str:
        """One line: texts scored, pairs counted, the overall rate and its interval."""
        r = self.result
        return (
            f"{self.model}: {len(self.sources) * (1 + len(self.transformations)):,} texts scored in "
            f"{self.infer_seconds:.1f} s; {r.extra['pairs']:,} pairs counted exactly in "
            f"{r.extra['count_seconds']:.3f} s; violation rate {stats.rate_text(r.rate, r.ci_low, r.ci_high)}"
        )

    def misclassified_sentence(self, n_top: int) -> str:
        """The paper's observation (top reviews are misclassified), stated from this run."""
        return claims.misclassified_at_top(self.table2, n_top, self.metrics()["misclassified_vs_violations_p"])

    def figure_rates(self):
        """Bars of Table 1 with their intervals."""
        bars = self.table1.reset_index()
        bars["label"] = bars["transformation"] + ": " + bars["text"].str.slice(0, 38)
        return plots.rate_bars(
            bars,
            label="label",
            title=f"Violation rate per transformation ({self.model})",
            xlabel="proportion of violated pairs (95% bootstrap interval)",
        )

    def figure_violations(self):
        """Violated pairs per review, misclassified against correct (a note when untestable)."""
        import matplotlib.pyplot as plt

        if not len(self.association):
            fig, ax = plt.subplots(figsize=(6.5, 1.2))
            ax.axis("off")
            ax.text(
                0.5,
                0.5,
                f"{self.model}: no gold labels, or no misclassified (or no correct) review",
                ha="center",
                va="center",
            )
            return fig
        groups = self.per_item["misclassified"].map({True: "misclassified", False: "correct"})
        return plots.distribution_by_group(
            self.per_item["violations"],
            groups,
            title=f"Violated pairs per review ({self.model})",
            xlabel="number of violated pairs the review appears in (all transformations)",
        )

    def figure_geometry(self, n_pairs: int = 120, seed: int = 0):
        """§4.2: sources at (s_pos(x), s_pos(T(x))) on the logit scale for the transformation with most
        violations, with a random sample of pairs (falling segments are violated)."""
        worst = self.table1.index[0]
        pairs = sample_pairs(self.src, self.flw[worst], n_pairs, seed=seed, expected=self.relation.expected)
        return plots.pair_segments(
            self.src,
            self.flw[worst],
            pairs,
            title=f"{worst}: '{self.table1.loc[worst, 'text']}' ({self.model})",
            xlabel=r"logit $s_{pos}(x)$",
            ylabel=r"logit $s_{pos}(T(x))$",
            logit=True,
        )


def systematicity(
    scorer: SentimentScorer,
    sources: pd.DataFrame,
    transformations: Sequence[Concatenation],
    *,
    n_boot: int,
    seed: int,
    stats_device: str | None = None,
) -> SystematicityReport:
    """Pairwise systematicity of a sentiment scorer over every pair of sources, per transformation.

    Each unique text (sources and follow-ups) is scored once; the relation
    (:class:`mtlib.relations.PairwiseSystematicity`) counts every pair exactly
    and bootstraps over sources.

    Args:
        scorer: s_pos of a model (:func:`~mtlib.experiments.sentiment._experiment.scorer_for` makes one
            from a model name and the spec).
        sources: The source set D: ``text`` (and ``label`` for the accuracy and
            the misclassification tests), shape ``(n, ...)``.
        transformations: The transformations T (:func:`transformations`).
        n_boot: Bootstrap replicates over sources (0 skips the intervals).
        seed: Seeds the bootstrap.
        stats_device: Where the exact counts and the bootstrap run (the run context's ``stats_device``: a
            GPU run's card, else None for numpy on the host).

    Returns:
        A :class:`SystematicityReport`.
    """
    start = time.perf_counter()
    src, flw = score_follow_ups(scorer, sources["text"], transformations)
    infer_seconds = time.perf_counter() - start
    relation = PairwiseSystematicity("pairwise systematicity of s_pos")
    result = relation.check_many(src, flw, n_boot=n_boot, seed=seed, device=stats_device)
    # texts for result.examples() / to_html(): the worst violated pairs shown with their reviews
    texts = list(sources["text"])
    result.details["src_text"] = texts
    result.details["flw_text"] = {t.name: [t(x) for x in texts] for t in transformations}
    return SystematicityReport(
        scorer.name,
        sources.reset_index(drop=True),
        list(transformations),
        src,
        flw,
        result,
        relation,
        dict(scorer.info),
        infer_seconds,
    )
