"""Three-way transitivity of one model on one vocabulary: the exact count and the paper's sample.

Intuition: both relations (synonymy, hypernymy) are transitive, so a
consistent model obeys ``v(x_i, x_j) and v(x_j, x_k) => v(x_i, x_k)`` on every
ordered triple of distinct words. When the ``n x n`` prediction matrices are
affordable, :class:`mtlib.relations.ThreeWayTransitivity` counts all
``n (n - 1) (n - 2)`` triples exactly; the paper's sampled procedure
(:func:`sampled_transitivity`) predicts only the pairs that random triples need.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from mtlib.analysis import stats
from mtlib.experiments.lexical._data import RELATIONS
from mtlib.experiments.lexical._pair_models import PairModel, predict_pairs, prediction_matrices
from mtlib.relations.counting import sample_triples
from mtlib.relations.result import RelationResult
from mtlib.relations.transitivity import ThreeWayTransitivity


def sampled_transitivity(
    source: PairModel | Mapping[str, np.ndarray],
    words: Sequence[str],
    n_sample: int,
    *,
    seed: int = 0,
    threshold: float = 0.5,
    batch_size: int = 256,
) -> pd.DataFrame:
    """The paper's sampled procedure: random triples, keep those whose premise holds.

    ``n_sample`` ordered triples of distinct words are drawn; a triple is a
    case of a relation when ``v(x1, x2) and v(x2, x3)``, and violated when
    moreover ``not v(x1, x3)``. From a model, only the pairs the triples need
    are predicted (``(x1, x3)`` only for cases).

    Args:
        source: Prediction matrices ``{relation: (n, n) bool}`` or a model.
        words: The vocabulary, shape ``(n,)``.
        n_sample: Triples to draw.
        seed: Seeds the draw (the same triples for every relation).

    Returns:
        One row per relation: ``triples, cases, violations, rate, ci_low,
        ci_high`` (Wilson over the cases).
    """
    words = list(words)
    i, j, k = sample_triples(len(words), n_sample, seed)  # the counting engine's own draw

    def predict(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
        if isinstance(source, Mapping):
            return {rel: np.asarray(adj, bool)[a, b] for rel, adj in source.items()}
        codes, inverse = np.unique(a * len(words) + b, return_inverse=True)
        ua, ub = np.divmod(codes, len(words))
        probs = predict_pairs(source, [words[x] for x in ua], [words[x] for x in ub], batch_size)
        return {rel: (p > threshold)[inverse] for rel, p in probs.items()}

    first, second = predict(i, j), predict(j, k)
    any_case = np.zeros(len(i), bool)
    for rel in first:
        any_case |= first[rel] & second[rel]
    third = predict(i[any_case], k[any_case])
    rows = {}
    for rel in first:
        case = first[rel] & second[rel]
        closed = np.zeros(len(i), bool)
        closed[any_case] = third[rel]
        cases, violations = int(case.sum()), int((case & ~closed).sum())
        low, high = stats.wilson_interval(violations, cases)
        rows[rel] = {
            "triples": len(i),
            "cases": cases,
            "violations": violations,
            "rate": violations / cases if cases else float("nan"),
            "ci_low": low,
            "ci_high": high,
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "relation"
    return frame


@dataclass
class TransitivityReport:
    """Three-way transitivity of one model on one vocabulary, both relations.

    Attributes:
        table: One row per relation: ``method`` (``exhaustive`` or
            ``sampled``), ``rate, ci_low, ci_high, cases, violations,
            triples`` of that method, ``positive_rate`` (share of ordered
            pairs predicted true), ``independent_baseline`` (``1 -
            positive_rate``: the violation rate if the positive predictions
            were scattered independently), ``count_seconds`` and the sampled
            procedure's ``sampled_rate, sampled_ci_low, sampled_ci_high,
            sampled_cases, sampled_triples``.
        results: Relation -> exhaustive :class:`RelationResult` (per-word
            counts in ``per_item``); empty when only the sample was affordable.
        matrices: Relation -> ``(n, n)`` bool, or None.
        predict_seconds: Time to build the matrices.
    """

    table: pd.DataFrame
    results: dict[str, RelationResult]
    matrices: dict[str, np.ndarray] | None
    predict_seconds: float

    headline: ClassVar[tuple[str, ...]] = tuple(f"violation_rate/{rel}" for rel in RELATIONS)

    #: Metric name -> column of :attr:`table`; each gives ``<metric>/<relation>``.
    COLUMNS: ClassVar[dict[str, str]] = {
        "violation_rate": "rate",
        "cases": "cases",
        "violations": "violations",
        "triples": "triples",
        "positive_rate": "positive_rate",
        "method": "method",
        "sampled_rate": "sampled_rate",
        "sampled_cases": "sampled_cases",
        "count_seconds": "count_seconds",
    }

    def metrics(self) -> dict[str, Any]:
        """Flat metrics ``<metric>/<relation>`` (``violation_rate/syn``, its ``_ci_low``/``_ci_high``...)."""
        out: dict[str, Any] = {"predict_seconds": self.predict_seconds}
        for rel, row in self.table.iterrows():
            out.update({f"{key}/{rel}": row[col] for key, col in self.COLUMNS.items() if col in row.index})
            out.update({f"violation_rate/{rel}_ci_low": row["ci_low"], f"violation_rate/{rel}_ci_high": row["ci_high"]})
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"transitivity": self.table}


def check_transitivity(
    model: PairModel,
    words: Sequence[str],
    *,
    max_pairs: int,
    n_sample: int,
    n_boot: int,
    seed: int = 0,
    threshold: float = 0.5,
    batch_size: int = 256,
    stats_device: str | None = None,
) -> TransitivityReport:
    """Exhaustive count when the matrices are affordable, and the paper's sampled procedure.

    Args:
        model: Frozen heads or a fine-tuned pair classifier.
        words: The vocabulary, shape ``(n,)``.
        max_pairs: Most ordered pairs a fine-tuned model predicts for the matrices.
        n_sample: Random triples of the sampled procedure (0 skips it).
        n_boot: Bootstrap replicates over words for the exhaustive interval.
        seed: Seeds the bootstrap and the sample.
        stats_device: Where the exact counts and the bootstrap run: the run context's ``stats_device`` (a
            GPU run's card), or None for numpy on the host. The same integers either way.

    Returns:
        A :class:`TransitivityReport`.
    """
    words = list(words)
    n = len(words)
    start = time.perf_counter()
    mats = prediction_matrices(model, words, max_pairs=max_pairs, threshold=threshold, batch_size=batch_size)
    predict_seconds = time.perf_counter() - start
    sampled = (
        sampled_transitivity(
            mats if mats is not None else model, words, n_sample, seed=seed, threshold=threshold, batch_size=batch_size
        )
        if n_sample
        else None
    )
    rows, results = {}, {}
    for rel in RELATIONS:
        row: dict[str, Any] = {}
        if mats is not None:
            res = ThreeWayTransitivity(rel).check(
                mats[rel], per_item=words, n_boot=n_boot, seed=seed, device=stats_device
            )
            results[rel] = res
            positive = mats[rel].sum() / max(1, n * (n - 1))
            row.update(
                method="exhaustive",
                rate=res.rate,
                ci_low=res.ci_low,
                ci_high=res.ci_high,
                cases=res.cases,
                violations=res.violations,
                triples=res.extra["triples"],
                positive_rate=positive,
                independent_baseline=1 - positive,
                count_seconds=res.extra["count_seconds"],
            )
        elif sampled is not None:
            s = sampled.loc[rel]
            row.update(
                method="sampled",
                rate=s["rate"],
                ci_low=s["ci_low"],
                ci_high=s["ci_high"],
                cases=int(s["cases"]),
                violations=int(s["violations"]),
                triples=int(s["triples"]),
                positive_rate=np.nan,
                independent_baseline=np.nan,
                count_seconds=np.nan,
            )
        if sampled is not None:
            s = sampled.loc[rel]
            row.update(
                sampled_rate=s["rate"],
                sampled_ci_low=s["ci_low"],
                sampled_ci_high=s["ci_high"],
                sampled_cases=int(s["cases"]),
                sampled_triples=int(s["triples"]),
            )
        rows[rel] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "relation"
    return TransitivityReport(table, results, mats, predict_seconds)


def most_violating_words(per_item: Mapping[str, pd.DataFrame | RelationResult], k: int = 10) -> pd.DataFrame:
    """The ``k`` words taking part in the most violated triples, per relation.

    Args:
        per_item: Relation -> a :class:`RelationResult` or its ``per_item``
            frame (``item, violations, cases, rate``; ``item`` is the word).

    Returns:
        Rows ``relation, rank, word, violations, cases, rate``.
    """
    frames = []
    for rel, frame in per_item.items():
        frame = getattr(frame, "per_item", frame)
        top = stats.rank_items(frame, by="violations").head(k).rename(columns={"item": "word"})
        frames.append(top.assign(relation=rel)[["relation", "rank", "word", "violations", "cases", "rate"]])
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["relation", "rank", "word", "violations", "cases", "rate"])
    )
