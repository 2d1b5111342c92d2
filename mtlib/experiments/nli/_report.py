"""The experiment of notebook 02: pairwise compositionality with a hypernymy probe (Manino et al. §5.1).

Intuition: if the model reasons compositionally, the probe's s_hyp should
predict the output's s_ent: in a downward context more hypernymy means more
entailment (same order), in an upward context less (reversed order). Every
pair of inputs inside one test context is a case; :func:`compositionality`
counts them through :class:`mtlib.relations.PairwiseCompositionality` and the
:class:`CompositionalityReport` gives Tables 3-4, up against down and the rate
against chance.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from mtlib.analysis import claims, plots, stats
from mtlib.data import papers
from mtlib.experiments.nli._data import NLIData
from mtlib.experiments.nli._external import ExternalNLI
from mtlib.experiments.nli._scores import (
    EntailmentScorer,
    accuracy_by,
    entailment_scores,
    forward,
    hidden_vectors,
    train_probe,
)
from mtlib.models.adapters.transformer import TransformerModel
from mtlib.models.base import Model
from mtlib.models.loading import load
from mtlib.models.training.finetune import split_name
from mtlib.models.training.frozen import Head
from mtlib.models.training.settings import ClassifierSettings
from mtlib.relations.pairwise import PairwiseCompositionality
from mtlib.relations.result import RelationResult
from mtlib.utils.context import RunContext


def relation_symbol(relation: str) -> str:
    """The paper's notation of an insertion relation: ⊆ (leq), ⊇ (geq), none."""
    return {"leq": "⊆", "geq": "⊇"}.get(relation, "none")


@dataclass
class CompositionalityReport:
    """Pairwise compositionality of one NLI model with a hypernymy probe (§5.1), on the test contexts.

    A report for :meth:`mtlib.run.results.Run.record_report` (:meth:`metrics`,
    :meth:`tables`, :attr:`headline`).

    Attributes:
        model: Model name.
        data: The inputs and the split.
        ent: The entailment scores (s_ent) of every input and how they were obtained.
        probe: The hypernymy probe; ``s_hyp`` its log-odds on every input, shape ``(m,)``.
        relation: The relation checked; ``result`` its pooled result over the test contexts
            (``groups``: one row per context, ``per_item``: one row per insertion pair).
        by_monotonicity: ``up``/``down`` rows: rate, interval, cases, violations, contexts, paper_rate.
        difference: Named tests of up against down (empty when one side is missing).
        chance: Named tests of the per-context rates against 0.5.
        external: External training pairs (SICK TRAIN, MED) and SICK TEST, or None.
        sick_test: The NLI accuracy on SICK TEST beside its majority baseline, or None without SICK.
    """

    model: str
    data: NLIData
    ent: EntailmentScorer
    probe: Head
    s_hyp: np.ndarray
    relation: PairwiseCompositionality
    result: RelationResult
    by_monotonicity: pd.DataFrame
    difference: pd.DataFrame
    chance: pd.DataFrame
    external: ExternalNLI | None = None
    sick_test: claims.AccuracyReport | None = None

    headline: ClassVar[tuple[str, ...]] = ("probe_accuracy", "nli_accuracy", "violation_rate/up", "violation_rate/down")

    @cached_property
    def nli_accuracy(self) -> claims.AccuracyReport:
        """NLI accuracy (P(entailed) > 0.5) on the test contexts against the gold labels, beside its baseline."""
        test = ~self.data.train_mask
        return claims.accuracy_vs_baseline(
            self.data.test_items["entailed"], self.ent.prob[test] > 0.5, {False: "not entailed", True: "entailed"}
        )

    @cached_property
    def probe_accuracy(self) -> claims.AccuracyReport:
        """The probe's accuracy on the test contexts' inputs, beside its baseline."""
        test = ~self.data.train_mask
        return claims.accuracy_vs_baseline(
            self.data.test_items["hypernym"], self.s_hyp[test] > 0, {False: "not a hypernym", True: "hypernym"}
        )

    def accuracies(self) -> pd.Series:
        """NLI accuracy overall and per monotonicity, and the probe's accuracy."""
        out = accuracy_by(self.data.test_items, self.ent.prob[~self.data.train_mask] > 0.5)
        out.loc["probe_accuracy"] = self.probe_accuracy.accuracy
        return out

    @cached_property
    def table3(self) -> pd.DataFrame:
        """Table 3: contexts ranked by violation rate."""
        return stats.rank_items(self.result.groups, by="rate")

    @cached_property
    def table4(self) -> pd.DataFrame:
        """Table 4: insertion pairs ranked by violation rate, with the pair and its lexical relation."""
        return stats.rank_items(
            self.result.per_item.assign(
                pair=lambda d: "(" + d["x"] + ", " + d["y"] + ")",
                lexical_relation=lambda d: d["relation"].map(relation_symbol),
            ),
            by="rate",
        )

    def metrics(self) -> dict[str, Any]:
        """Flat metrics without a model prefix (see :mod:`mtlib.run.results` for the key scheme)."""
        r, test = self.result, ~self.data.train_mask
        out: dict[str, Any] = {
            **self.data.metrics(),
            **self.nli_accuracy.metrics("nli_accuracy"),
            **self.probe_accuracy.metrics("probe_accuracy"),
            **self.ent.info,
        }
        for mono, part in self.data.test_items.groupby("monotonicity"):  # each beside its own baseline
            out.update(
                claims.accuracy_vs_baseline(part["entailed"], self.ent.prob[test][part.index] > 0.5).metrics(
                    f"nli_accuracy/{mono}"
                )
            )
        for mono, row in self.by_monotonicity.iterrows():
            out.update(
                {
                    f"violation_rate/{mono}": row["rate"],
                    f"violation_rate/{mono}_ci_low": row["ci_low"],
                    f"violation_rate/{mono}_ci_high": row["ci_high"],
                }
            )
        out.update(
            {
                "violation_rate/overall": r.rate,
                "violation_rate/overall_ci_low": r.ci_low,
                "violation_rate/overall_ci_high": r.ci_high,
                "n_cases": r.cases,
                "count_seconds": r.extra["count_seconds"],
            }
        )
        if len(self.difference):
            out.update(
                {
                    "up_vs_down_p_z": self.difference.loc[0, "p_value"],
                    "up_vs_down_p_permutation": self.difference.loc[1, "p_value"],
                }
            )
        if len(self.chance):
            out["overall_vs_chance_p"] = self.chance.loc[0, "p_value"]
        if self.external is not None:
            out.update(self.external.metrics())
        if self.sick_test is not None:
            out.update(
                {
                    "accuracy/sick_test": self.sick_test.accuracy,
                    "majority_baseline/sick_test": self.sick_test.majority_baseline,
                    "balanced_accuracy/sick_test": self.sick_test.balanced_accuracy,
                    "p_above_baseline/sick_test": self.sick_test.p_above_baseline,
                }
            )
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """Tables 3 and 4, the rates by monotonicity and the named tests."""
        return {
            "table3_contexts": self.table3,
            "table4_insertions": self.table4,
            "violation_rate_by_monotonicity": self.by_monotonicity,
            "up_vs_down_tests": self.difference,
            "overall_vs_chance": self.chance,
        }

    def summary(self) -> str:
        r = self.result
        return (
            f"{self.model}: s_ent from {self.ent.source}; probe accuracy {self.probe_accuracy.accuracy:.4f}; "
            f"NLI accuracy {self.nli_accuracy.accuracy:.4f}; {r.cases:,} cases counted in "
            f"{r.extra['count_seconds']:.3f} s; violation rate {stats.rate_text(r.rate, r.ci_low, r.ci_high)}"
        )

    def accuracy_sentences(self) -> str:
        """The NLI and probe accuracies beside their baselines (and on SICK TEST when scored), as Markdown."""
        text = (
            self.nli_accuracy.sentence(f"NLI ({self.model}, s_ent from {self.ent.source})")
            + "\n\n"
            + self.probe_accuracy.sentence(f"hypernymy probe ({self.model})")
        )
        if self.sick_test is not None:
            text += "\n\n" + self.sick_test.sentence(f"NLI on SICK TEST ({self.model})")
        return text

    def sentence(self) -> str:
        """The overall rate against chance and up against down, stated from this run."""
        p = self.difference.loc[1, "p_value"] if len(self.difference) else float("nan")
        return claims.compositionality_sentence(self.result, self.chance, self.by_monotonicity, p)

    def figure_by_monotonicity(self):
        """Violation rate of upward and downward contexts, with intervals and chance."""
        bars = self.by_monotonicity.reset_index().assign(label=lambda d: d["monotonicity"] + " contexts")
        return plots.rate_bars(
            bars,
            label="label",
            title=f"Violation rate by monotonicity ({self.model})",
            reference=0.5,
            reference_label="chance",
            xlabel="proportion of violated pairs (95% bootstrap interval)",
        )

    def figure_table3(self, n_show: int = 6):
        """The ``n_show`` contexts with most and fewest violations (Wilson intervals)."""
        shown = pd.concat([self.table3.head(n_show), self.table3.tail(n_show)]).drop_duplicates()
        return plots.rate_bars(
            stats.rate_table(shown).assign(label=lambda d: d["context"].str.slice(0, 48)),
            label="label",
            hue="monotonicity",
            reference=0.5,
            title=f"Contexts with the most and fewest violations ({self.model})",
            xlabel="violation rate (Wilson interval over the context's cases)",
        )

    def figure_table4(self, n_show: int = 6):
        """The ``n_show`` insertion pairs with most and fewest violations (Wilson intervals)."""
        shown = pd.concat([self.table4.head(n_show), self.table4.tail(n_show)]).drop_duplicates()
        return plots.rate_bars(
            stats.rate_table(shown),
            label="pair",
            hue="lexical_relation",
            reference=0.5,
            title=f"Insertion pairs with the most and fewest violations ({self.model})",
            xlabel="violation rate (Wilson interval over the pair's cases)",
        )


def rates_by_monotonicity(
    relation: PairwiseCompositionality,
    hid: np.ndarray,
    out: np.ndarray,
    data: NLIData,
    *,
    n_boot: int,
    seed: int,
    device: str | None = None,
) -> pd.DataFrame:
    """The relation on the upward and on the downward test contexts apart, beside the paper's rates.

    Args:
        relation: The relation checked.
        hid: s_hyp of the test inputs, shape ``(m,)``.
        out: s_ent of the test inputs (log-odds), shape ``(m,)``.
        data: The inputs; ``data.test_items`` are the rows of ``hid`` and ``out``.
        n_boot: Bootstrap replicates over insertion pairs (0 skips the intervals).
        seed: Seeds the bootstrap.
        device: Where the counts and the bootstrap run (None: numpy on the host).

    Returns:
        Index ``monotonicity`` (``up``, ``down``: those with test contexts), columns
        ``rate, ci_low, ci_high, cases, violations, contexts, paper_rate``.
    """
    test = data.test_items
    rows = []
    for mono in ("up", "down"):
        mask = (test["monotonicity"] == mono).to_numpy()
        if mask.any():
            part = relation.check(
                hid[mask],
                out[mask],
                test["context_id"][mask],
                data.direction,
                per_item=test["insertion_id"][mask],
                n_boot=n_boot,
                seed=seed,
                device=device,
            )
            rows.append(
                {
                    "monotonicity": mono,
                    "rate": part.rate,
                    "ci_low": part.ci_low,
                    "ci_high": part.ci_high,
                    "cases": part.cases,
                    "violations": part.violations,
                    "contexts": part.extra["n_groups"],
                    "paper_rate": papers.MANINO_S51[f"violation_rate/{mono}"],
                }
            )
    return pd.DataFrame(
        rows, columns=["monotonicity", "rate", "ci_low", "ci_high", "cases", "violations", "contexts", "paper_rate"]
    ).set_index("monotonicity")


def compositionality(
    model: str | Model,
    data: NLIData,
    *,
    layer: int,
    entailment_label: str,
    n_boot: int,
    permutations: int,
    seed: int,
    context: RunContext,
    how: str,
    external: ExternalNLI | None,
    settings: ClassifierSettings,
) -> CompositionalityReport:
    """Pairwise compositionality of an NLI model: does the hypernymy probe's order show in s_ent?

    One forward pass per input gives the probe's input z and the entailment
    score; the probe and (for an encoder) the NLI head train on the training
    contexts only; :class:`mtlib.relations.PairwiseCompositionality` counts every
    pair of inputs inside each test context exactly, pooled and per
    monotonicity, with bootstrap intervals over insertion pairs; up against
    down and the per-context rates against chance are tested.

    Args:
        model: A registry name or path, or a loaded model.
        data: :func:`load_data`.
        layer: Hidden-state index of z (``-2``: second-to-last).
        entailment_label: Entailment class name of a Hugging Face NLI classifier.
        n_boot: Bootstrap replicates over insertion pairs (0 skips the intervals).
        permutations: Label shuffles of the up-vs-down permutation test.
        seed: Seeds heads, probe, bootstrap and permutations.
        context: The run's context: the models load and train in it, the counts, bootstraps and the
            permutation test run on its ``stats_device``.
        how: ``head`` (the model's own NLI label, else a head on frozen features) or ``finetune`` (the model
            fine-tuned as a cross-encoder; the report is named ``<model>-ft``). A name ending in ``-ft`` is
            always fine-tuned. The probe reads the hidden states of the base model in both cases.
        external: Extra training pairs and SICK TEST (:func:`mtlib.experiments.nli._external.load_external`).
        settings: Training settings of the fine-tuned cross-encoder (the spec's ``finetune_settings``).

    Returns:
        A :class:`CompositionalityReport`.
    """
    name = model if isinstance(model, str) else getattr(model, "name", type(model).__name__)
    base, how, name = split_name(name, how)
    loaded = load(base, context=context) if isinstance(model, str) else model
    if not isinstance(loaded, TransformerModel):
        raise TypeError(f"{name}: the probe reads hidden states; pass a transformer, got {type(loaded).__name__}")
    items, train_mask, test = data.items, data.train_mask, data.test_items
    features = forward(loaded, items, layer)
    ent = entailment_scores(
        loaded,
        items,
        train_mask,
        features=features,
        entailment_label=entailment_label,
        seed=seed,
        how=how,
        external=external.train if external is not None else None,
        settings=settings,
        context=context,
    )
    probe, s_hyp = train_probe(hidden_vectors(features), items, train_mask, seed=seed)
    relation = PairwiseCompositionality("pairwise compositionality of NLI", hidden="s_{hyp}", output="s_{ent}")
    hid, out = s_hyp[~train_mask], ent.log_odds[~train_mask]
    result = relation.check(
        hid,
        out,
        test["context_id"],
        data.direction,
        per_item=test["insertion_id"],
        group_info=data.contexts.set_index("context_id")[["context", "monotonicity", "operator"]],
        item_info=data.insertions.set_index("insertion_id")[["x", "y", "relation"]],
        n_boot=n_boot,
        seed=seed,
        device=context.stats_device,
    )
    by_mono = rates_by_monotonicity(relation, hid, out, data, n_boot=n_boot, seed=seed, device=context.stats_device)
    assert result.groups is not None  # one row per context
    difference = (
        stats.compare_two_groups(
            result.groups, group="monotonicity", permutations=permutations, seed=seed, device=context.stats_device
        )
        if len(by_mono) == 2
        else pd.DataFrame(columns=["test", "groups", "difference", "statistic", "p_value"])
    )
    chance = stats.one_sample_test(result.groups["rate"], 0.5)
    sick_test = None
    if external is not None and external.sick_test is not None and ent.score is not None:
        lo_sick = ent.score(list(external.sick_test["premise"]), list(external.sick_test["hypothesis"]))
        sick_test = claims.accuracy_vs_baseline(
            external.sick_test["entailed"], (lo_sick > 0).tolist(), {False: "not entailed", True: "entailed"}
        )
    return CompositionalityReport(
        name, data, ent, probe, s_hyp, relation, result, by_mono, difference, chance, external, sick_test
    )
