"""One model, every test (:func:`run_tests` -> :class:`MontagueReport`), and several models side by side.

The report holds the relation results of the four tables, the type-difference
tests and the timings; ``metrics()``, ``tables()`` and ``headline`` are what
``Run.record_report`` records.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mtlib.data import papers
from mtlib.experiments.montague._embeddings import EmbeddingTable
from mtlib.experiments.montague._method import (
    MAX_SPLIT_DISTANCE,
    intersective_pairs,
    intersectivity,
    nonsubsectivity,
    type_pair_matrix,
)
from mtlib.experiments.montague._paper import PAPER_COUNTERPARTS, compare_with_paper, paper_values
from mtlib.experiments.montague._phrases import PhraseSet, _typed
from mtlib.experiments.montague._relation import (
    INTERSECTIVITY,
    NONSUBSECTIVITY,
    PAIR_INTERSECTIVITY,
    DistanceOrder,
    _label,
    consistency,
)
from mtlib.experiments.montague._type_tests import type_difference_test
from mtlib.relations.errors import check_count, refuse
from mtlib.relations.result import RelationResult


class TestSpec(NamedTuple):
    """How one Montague test is checked and reported.

    Attributes:
        relation: The :class:`DistanceOrder` it checks.
        items: Case columns naming its adjectives (the bootstrap's items).
        groups: Case columns naming their types (the breakdown).
        table: The paper table holding its published values.
    """

    relation: DistanceOrder
    items: tuple[str, ...]
    groups: tuple[str, ...]
    table: int


#: Metric name -> test. Metric keys are ``<name>/<type>`` or ``<name>/<type1>,<type2>``.
TESTS = {
    "intersective_an": TestSpec(INTERSECTIVITY, ("adj",), ("type",), 1),
    "intersective_aan": TestSpec(INTERSECTIVITY, ("adj1", "adj2"), ("type1", "type2"), 6),
    "intersective_pairs": TestSpec(PAIR_INTERSECTIVITY, ("adj1", "adj2"), ("type1", "type2"), 7),
    "nonsubsective": TestSpec(NONSUBSECTIVITY, ("adj",), ("type",), 8),
}


@dataclass
class MontagueReport:
    """The three Montague tests (four tables) of one model on one phrase set.

    Attributes:
        model: The model's name (registry name or path, as given).
        results: Test name (see :data:`TESTS`) -> :class:`RelationResult`
            (``groups`` per type or type pair, ``per_item`` per adjective or
            adjective pair, bootstrap intervals over adjectives within types).
        n_texts: Unique texts embedded.
        excluded_phrases: AN and AAN phrases dropped because a text has no
            vector (a word out of a static model's vocabulary).
        missing_words: Adjectives and nouns without a vector.
        type_tests: One row per test: :func:`type_difference_test` outcome.
        embed_seconds, test_seconds: Time to embed every text; to run the tests.
        cases: Test name -> one row per case (per phrase; per adjective pair and noun pair for
            ``intersective_pairs``) with its ``near`` and ``far`` distances; not saved as tables.
    """

    model: str
    results: dict[str, RelationResult]
    n_texts: int
    excluded_phrases: int
    missing_words: list[str]
    type_tests: pd.DataFrame
    embed_seconds: float
    test_seconds: float
    cases: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    @property
    def paper_model(self) -> bool:
        """Whether the paper publishes this model's rows (``minilm`` does)."""
        return paper_values(6, self.model) is not None

    @property
    def headline(self) -> list[str]:
        """Keys for the runner's summary: overall consistency, and the Table 6 match when published."""
        heads = ["intersective_an/overall", "intersective_aan/overall", "nonsubsective/overall"]
        return heads + (["paper_match/table6"] if self.paper_model else [])

    def consistency(self, test: str) -> pd.DataFrame:
        """E with its interval, k and n per type (or type pair) of one test (see :func:`consistency`)."""
        return consistency(self.results[test])

    def matrix(self, test: str) -> pd.DataFrame:
        """A type-pair test as a T1 x T2 matrix of E (rows: first adjective / a1)."""
        return type_pair_matrix(self.consistency(test))

    def per_adjective(self, test: str) -> pd.DataFrame:
        """Per adjective (or adjective pair): ``k`` (holds), ``n``, ``E`` and its type(s)."""
        frame = self.results[test].per_item.copy()
        frame.insert(len(frame.columns) - 3, "k", frame["cases"] - frame["violations"])
        return (
            frame.rename(columns={"cases": "n"})
            .drop(columns=["violations", "rate"])
            .assign(E=lambda d: d["k"] / d["n"])
        )

    def comparison(self, table: int) -> pd.DataFrame | None:
        """Our scores beside the paper's Table ``table`` (1, 6, 7 or 8), or ``None`` when not published."""
        paper = paper_values(table, self.model)
        if paper is None:
            return None
        test = next(name for name, spec in TESTS.items() if spec.table == table)
        return compare_with_paper(self.consistency(test)["E"], paper, papers.CARVALHO_DECIMALS[table])

    def fidelity(self) -> pd.DataFrame:
        """Per published table: ``model, table, cells, matching, max_abs_gap`` (empty when not published)."""
        rows = []
        for table in (1, 6, 8, 7):
            cmp = self.comparison(table)
            if cmp is not None:
                rows.append(
                    {
                        "model": self.model,
                        "table": table,
                        "cells": len(cmp),
                        "matching": int(cmp["match"].sum()),
                        "max_abs_gap": float(cmp["gap"].abs().max()),
                    }
                )
        return pd.DataFrame(rows, columns=["model", "table", "cells", "matching", "max_abs_gap"])

    def metrics(self) -> dict[str, Any]:
        """Flat metrics without a model prefix (``Run.record_report`` adds it).

        Per test and group: ``<test>/<group>`` (E), ``<test>_ci_low/<group>``,
        ``<test>_ci_high/<group>``, ``<test>_cases/<group>``; the same with
        group ``overall``; ``paper_match|paper_cells|paper_max_gap/table<N>``
        for a published model; ``type_test_p_permutation|type_test_p_chi2/<test>``;
        ``n_texts``, ``excluded_phrases``, ``missing_words``; ``embed_seconds``, ``test_seconds``.
        A value that was not computed (see :meth:`skipped`) is left out.
        """
        skipped = self.skipped()
        return {k: v for k, v in self._values().items() if k not in skipped}

    def skipped(self) -> dict[str, str]:
        """The keys not computed in this run, each with why: ``{key: reason}`` (``Run.record_report`` reads it).

        Intervals of a run with ``n_boot=0`` (no bootstrap), E and its interval of a group without
        cases (too few adjectives or nouns for the test, or every phrase excluded: a word without a
        vector), and the largest gap to a paper table none of whose cells was measured. Any other NaN
        is left in :meth:`metrics`, where ``Run.record`` refuses it, naming the key.
        """
        out: dict[str, str] = {}
        cases_of = {
            test: dict(zip(map(_label, self.consistency(test).index), self.consistency(test)["n"]))
            for test in self.results
        }
        for key, value in self._values().items():
            if not isinstance(value, float) or np.isfinite(value):
                continue
            test, _, label = key.partition("/")
            base = test.removesuffix("_ci_low").removesuffix("_ci_high")
            result = self.results.get(base)
            cases = None if result is None else result.cases if label == "overall" else cases_of[base].get(label)
            if result is not None and cases == 0:
                out[key] = (
                    f"no {base} case for {label} in this run (too few adjectives or nouns for it, or every "
                    "phrase of it excluded: a word without a vector)"
                )
            elif result is not None and test != base and result.extra.get("n_boot") == 0:
                out[key] = "n_boot=0: no bootstrap intervals"
            elif test == "paper_max_gap":
                out[key] = f"none of the published cells of {label.replace('table', 'Table ')} was measured in this run"
        return out

    def _values(self) -> dict[str, Any]:
        """Every metric as computed, NaN included (:meth:`metrics` leaves the skipped ones out)."""
        out: dict[str, Any] = {}
        for test, result in self.results.items():
            frame = self.consistency(test)
            k = result.cases - result.violations
            overall = pd.DataFrame(
                {
                    "E": [k / result.cases if result.cases else np.nan],
                    "ci_low": [1.0 - result.ci_high],
                    "ci_high": [1.0 - result.ci_low],
                    "n": [result.cases],
                },
                index=["overall"],
            )
            for label, row in [*zip(map(_label, frame.index), frame.itertuples()), ("overall", *overall.itertuples())]:
                out[f"{test}/{label}"] = float(row.E)
                out[f"{test}_ci_low/{label}"] = float(row.ci_low)
                out[f"{test}_ci_high/{label}"] = float(row.ci_high)
                out[f"{test}_cases/{label}"] = int(row.n)
        for row in self.fidelity().itertuples():
            out[f"paper_match/table{row.table}"] = int(row.matching)
            out[f"paper_cells/table{row.table}"] = int(row.cells)
            out[f"paper_max_gap/table{row.table}"] = float(row.max_abs_gap)
        for row in self.type_tests.itertuples():
            out[f"type_test_p_permutation/{row.test}"] = float(row.p_permutation)
            out[f"type_test_p_chi2/{row.test}"] = float(row.p_chi2)
        out.update(
            {
                "n_texts": self.n_texts,
                "excluded_phrases": self.excluded_phrases,
                "missing_words": len(self.missing_words),
                "embed_seconds": self.embed_seconds,
                "test_seconds": self.test_seconds,
            }
        )
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """Named tables to save: consistency with intervals per test, per-adjective counts, paper comparisons.

        (The type-difference tests are in :attr:`type_tests`; :func:`type_tests_table` stacks them over models.)
        """
        out = {f"consistency_{test}": self.consistency(test).reset_index() for test in self.results}
        out.update({f"per_adjective_{test}": self.per_adjective(test) for test in self.results})
        out["table6_intersective_aan"] = self.matrix("intersective_aan")
        out["table7_intersective_pairs"] = self.matrix("intersective_pairs")
        for table in (1, 6, 7, 8):
            cmp = self.comparison(table)
            if cmp is not None:
                out[f"paper_table{table}"] = cmp.reset_index()
        return out

    def summary(self) -> str:
        """One line: texts embedded, times, exclusions, and the paper match when published."""
        text = (
            f"{self.model}: embedded {self.n_texts:,} texts in {self.embed_seconds:.1f} s, tests in "
            f"{self.test_seconds:.2f} s, {self.excluded_phrases} phrases excluded"
        )
        if self.missing_words:
            text += f" (words without a vector: {', '.join(self.missing_words[:20])})"
        fid = self.fidelity()
        if len(fid):
            text += "; paper cells matched: " + ", ".join(
                f"Table {r.table} {r.matching}/{r.cells}" for r in fid.itertuples()
            )
        return text


def run_tests(
    model: Any,
    phrases: PhraseSet,
    *,
    name: str | None = None,
    max_split_distance: float | None = MAX_SPLIT_DISTANCE,
    n_boot: int,
    permutations: int,
    seed: int = 0,
) -> MontagueReport:
    """Embed every text once and run the three Montague tests (four tables) on one model.

    Args:
        model: Anything with ``embed(texts) -> (n, d)`` (NaN rows: no vector).
        phrases: From :func:`build_phrases`.
        name: The model's name for the report and the paper lookup (default ``model.name``).
        max_split_distance: See :func:`intersectivity`.
        n_boot: Bootstrap replicates over adjectives (0 skips the intervals).
        permutations: Label shuffles of the type-difference tests (0 skips them).
        seed: Seeds the bootstrap and the permutations.

    Returns:
        A :class:`MontagueReport`.

    Raises:
        MtlibInputError: ``n_boot`` or ``permutations`` is not an integer >= 0, or ``max_split_distance``
            is not ``None`` or a number in [0, 2] (a cosine distance).
    """
    n_boot = check_count(n_boot, "run_tests", "n_boot")
    permutations = check_count(permutations, "run_tests", "permutations")
    if max_split_distance is not None and (
        isinstance(max_split_distance, bool)
        or not isinstance(max_split_distance, (int, float, np.integer, np.floating))
        or not 0 <= max_split_distance <= 2
    ):
        raise refuse("run_tests", "max_split_distance", "None or a number in [0, 2]", max_split_distance)
    name = str(name if name is not None else getattr(model, "name", type(model).__name__))
    start = time.perf_counter()
    table = EmbeddingTable.from_model(model, phrases.texts)
    embed_seconds = time.perf_counter() - start
    start = time.perf_counter()
    cases = {
        "intersective_an": intersectivity(table, phrases.an, ["adj", "noun"], max_split_distance=max_split_distance),
        "intersective_aan": intersectivity(
            table, phrases.aan, ["adj1", "adj2", "noun"], max_split_distance=max_split_distance
        ),
        "intersective_pairs": intersective_pairs(table, phrases),
        "nonsubsective": nonsubsectivity(table, phrases.an),
    }
    types = phrases.adjectives.set_index("word")["type"]
    results = {
        test: spec.relation.check(
            frame["near"].to_numpy(),
            frame["far"].to_numpy(),
            frame[list(spec.items)],
            _typed(frame, spec.groups),
            types,
            n_boot,
            seed,
        )
        for test, (frame, spec) in ((t, (cases[t], s)) for t, s in TESTS.items())
    }
    test_seconds = time.perf_counter() - start
    words = [*phrases.adjectives["word"], *phrases.nouns]
    missing = [w for w, ok in zip(words, table.valid[table.rows(words)]) if not ok]
    type_tests = pd.DataFrame(
        [
            {
                "model": name,
                "test": test,
                **type_difference_test(
                    _unit_counts(results[test], TESTS[test].items),
                    unit=list(TESTS[test].items),
                    types=types,
                    permutations=permutations,
                    seed=seed,
                ),
            }
            for test in TESTS
        ]
        if permutations
        else [],
        columns=["model", "test", "chi2", "dof", "p_chi2", "p_permutation", "method"],
    )
    excluded = phrases.n_phrases - len(cases["intersective_an"]) - len(cases["intersective_aan"])
    return MontagueReport(
        name, results, len(phrases.texts), excluded, missing, type_tests, embed_seconds, test_seconds, cases
    )


def _unit_counts(result: RelationResult, unit: Sequence[str]) -> pd.DataFrame:
    """Per-item counts as ``unit..., k, n`` (what :func:`type_difference_test` reads)."""
    frame = result.per_item
    return pd.DataFrame({**{c: frame[c] for c in unit}, "k": frame["cases"] - frame["violations"], "n": frame["cases"]})


def across_models(reports: Mapping[str, MontagueReport], test: str) -> pd.DataFrame:
    """One row per model (E per type of a one-type test), plus the paper's printed row of each model it publishes.

    A model with a different counterpart in the paper (:data:`PAPER_COUNTERPARTS`, e.g. ``glove-50d`` beside
    the paper's GloVe 300d) gets that row, labelled as such, to read beside it; it is not compared.
    """
    table = pd.DataFrame({name: r.consistency(test)["E"] for name, r in reports.items()}).T
    number = TESTS[test].table
    for name in reports:
        key, label = PAPER_COUNTERPARTS.get(name, (name, f"{name} (paper, printed)"))
        paper = paper_values(number, key)
        if paper is not None and label not in table.index:
            table.loc[label] = paper.reindex(table.columns)
    return table.rename_axis(index="model", columns="type")


def long_form(table: pd.DataFrame, value: str = "E") -> pd.DataFrame:
    """A models x types table as rows ``model, type, <value>`` (for grouped bar charts)."""
    return table.rename_axis(index="model", columns="type").stack().rename(value).reset_index()


def fidelity_table(reports: Mapping[str, MontagueReport]) -> pd.DataFrame:
    """Every report's :meth:`MontagueReport.fidelity`, stacked (empty when no model is published)."""
    frames = [r.fidelity() for r in reports.values()]
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["model", "table", "cells", "matching", "max_abs_gap"])
    )


def type_tests_table(reports: Mapping[str, MontagueReport]) -> pd.DataFrame:
    """Every report's type-difference tests, stacked."""
    return pd.concat([r.type_tests for r in reports.values()], ignore_index=True)
