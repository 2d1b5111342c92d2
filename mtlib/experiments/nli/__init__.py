"""Pairwise compositionality of an NLI model with a hypernymy probe (Manino et al. §5.1).

An NLI input is the pair (C(ℓa), C(ℓb)): one context C with a placeholder,
filled with two insertions whose lexical relation is known (ℓa ⊆ ℓb, ℓa ⊇ ℓb,
or unrelated). If the model reasons compositionally, a linear probe that
reads "ℓa is a hypernym of ℓb" off the hidden states of the insertions
(s_hyp) should predict the output's entailment score (s_ent): in a downward
context more hypernymy means more entailment (same order), in an upward
context less (reversed order). Every pair of inputs inside one context is a
test case.

This module turns a model into the two scores from ONE forward pass per
input: the hidden states of the insertion tokens at a chosen layer (their
word pieces found through the tokenizer's offset mapping) and the
entailment score, either from the model's own ENTAILMENT label or from a
head trained here on frozen pooled features (never on the test contexts).

The experiment is one call: ``report = compositionality(model, load_data(...))`` returns a
:class:`CompositionalityReport` (Tables 3-4, up against down, the rate against chance) that
:meth:`mtlib.run.results.Run.record_report` records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from mtlib.analysis import claims
from mtlib.data import papers
from mtlib.analysis import stats
from mtlib.models import Features, Model, SpanRequest
from mtlib.models.probes import Head, train_head
from mtlib.relations import PairwiseCompositionality, RelationResult


def split_contexts(contexts: pd.DataFrame, train_fraction: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Context ids for training heads and for testing the relation, stratified by monotonicity.

    Returns:
        ``(train_ids, test_ids)``; disjoint, their union is every context.
    """
    from sklearn.model_selection import train_test_split

    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    ids = contexts["context_id"].to_numpy()
    strat = contexts["monotonicity"] if contexts["monotonicity"].value_counts().min() >= 2 else None
    train, test = train_test_split(ids, train_size=train_fraction, random_state=seed, stratify=strat)
    return np.sort(train), np.sort(test)


def insertion_spans(items: pd.DataFrame) -> list[list[SpanRequest]]:
    """For each NLI input: ℓa (``x``) in the premise and ℓb (``y``) in the hypothesis."""
    return [[SpanRequest(x, 0), SpanRequest(y, 1)] for x, y in zip(items["x"], items["y"])]


def forward(model: Model, items: pd.DataFrame, layer: int) -> Features:
    """One forward pass per (premise, hypothesis): pooled output, logits, insertion states at ``layer``.

    Args:
        model: A transformer (:class:`mtlib.models.TransformerModel`).
        items: Rows of :func:`mtlib.data.monotonicity.compose`.
        layer: Hidden-state index (``-2`` = second-to-last layer; 23 for the
            paper's layer 23 of RoBERTa-large's 24).

    Returns:
        :class:`mtlib.models.Features`; ``spans`` has shape ``(n, 2, h)``.
    """
    return model.features(list(items["premise"]), list(items["hypothesis"]), layer=layer,
                          spans=insertion_spans(items))


def hidden_vectors(features: Features) -> np.ndarray:
    """z: the pooled states of ℓa and ℓb side by side, shape ``(n, 2h)``."""
    assert features.spans is not None
    return features.spans.reshape(len(features.spans), -1)


@dataclass
class EntailmentScorer:
    """s_ent for every input, and how it was obtained.

    Attributes:
        source: ``"model label ENTAILMENT"`` or ``"head trained on ... inputs"``.
        log_odds: s_ent as log-odds, shape ``(n,)`` (used for orders: no saturation).
        prob: P(entailed), shape ``(n,)``.
        head: The head classifier from :func:`mtlib.models.classifier`, if one was trained.
        info: Held-out accuracy of the head (and its majority-class baseline).
    """

    source: str
    log_odds: np.ndarray
    prob: np.ndarray
    head: Model | None = None
    info: dict[str, Any] = field(default_factory=dict)


def entailment_scores(model: Model, items: pd.DataFrame, train_mask: np.ndarray, *, features: Features | None = None,
                      entailment_label: str = "ENTAILMENT", seed: int = 0) -> EntailmentScorer:
    """Entailment scores from the model's own NLI head, or from a head trained here.

    A model with an ``entailment_label`` class (``roberta-large-mnli``) is used
    natively; its logits come from ``features`` when given (the same forward
    pass as the probe's hidden states). Any other model gets
    :func:`mtlib.models.classifier` with ``how="head"``: a logistic head on the
    pair features ``[u, v, |u - v|, u * v]`` of its sentence embeddings of
    premise and hypothesis, trained on the training contexts' inputs only
    (20% of them held out for its accuracy), with the natural-logic gold
    label (entailed or not).
    """
    from mtlib.models import classifier

    premises, hypotheses = list(items["premise"]), list(items["hypothesis"])
    if entailment_label.lower() in [str(lab).lower() for lab in model.labels]:
        native = classifier(model, how="native")
        lo = features.log_odds(entailment_label) if features is not None and features.logits is not None else \
            native.log_odds(premises, entailment_label, hypotheses)
        return EntailmentScorer(f"model label {entailment_label}", lo, 1 / (1 + np.exp(-lo)))
    gold = items["entailed"].to_numpy().astype(bool)
    train = np.flatnonzero(train_mask)
    head = classifier(model, ([premises[i] for i in train], [hypotheses[i] for i in train], gold[train]), how="head",
                      heldout_fraction=0.2, seed=seed)
    lo = head.log_odds(premises, True, hypotheses)
    t = head.training
    return EntailmentScorer(f"logistic head on [u, v, |u-v|, u*v] trained on {t.n_train} training-context inputs",
                            lo, 1 / (1 + np.exp(-lo)), head,
                            {"nli_head_accuracy_train_contexts": t.heldout_accuracy,
                             "nli_head_majority_baseline": t.majority_baseline, "nli_head_n_train": t.n_train})


def train_probe(z: np.ndarray, items: pd.DataFrame, train_mask: np.ndarray, *, seed: int = 0,
                C: float = 1.0) -> tuple[Head, np.ndarray]:
    """Linear hypernymy probe on z: is ℓa a hypernym of ℓb?

    z are span states, not texts, so the probe is the factory's linear head
    on arrays (:func:`mtlib.models.probes.train_head`, the same
    :class:`mtlib.models.heads.LinearHead`). Trained on the training contexts' inputs and evaluated on the test
    contexts' inputs (its ``accuracy``).

    Returns:
        ``(head, s_hyp)`` with s_hyp the probe's log-odds for every input, shape ``(n,)``.
    """
    y = items["hypernym"].to_numpy()
    head = train_head(z[train_mask], y[train_mask], kind="logreg", seed=seed, C=C,
                      X_test=z[~train_mask], y_test=y[~train_mask])
    return head, head.log_odds(z, True)


def accuracy_by(items: pd.DataFrame, predicted: np.ndarray, by: str = "monotonicity") -> pd.Series:
    """Accuracy of boolean predictions against ``items["entailed"]``, overall and per group."""
    correct = pd.Series(np.asarray(predicted) == items["entailed"].to_numpy(), index=items.index)
    out = correct.groupby(items[by]).mean()
    out.loc["overall"] = correct.mean()
    return out


def relation_symbol(relation: str) -> str:
    """The paper's notation of an insertion relation: ⊆ (leq), ⊇ (geq), none."""
    return {"leq": "⊆", "geq": "⊇"}.get(relation, "none")


@dataclass
class NLIData:
    """Contexts, insertion pairs, their compositions and the split into training and test contexts.

    Attributes:
        contexts: One row per context (``context_id, context, monotonicity, operator``...).
        insertions: One row per insertion pair, reverses included (``insertion_id, x, y, relation``).
        items: Every composition (:func:`mtlib.data.monotonicity.compose`), shape ``(m, ...)``.
        train_mask: Compositions whose context trains the probe and the NLI head, shape ``(m,)`` bool.
        train_ids, test_ids: Context ids of each side.
        n_pairs_file: Insertion pairs as read from the file (before reverses and subsetting).
        n_pairs_with_reverses: The same with every pair's reverse added.
    """

    contexts: pd.DataFrame
    insertions: pd.DataFrame
    items: pd.DataFrame
    train_mask: np.ndarray
    train_ids: np.ndarray
    test_ids: np.ndarray
    n_pairs_file: int
    n_pairs_with_reverses: int

    @cached_property
    def test_items(self) -> pd.DataFrame:
        """The compositions of the test contexts, fresh index: the relation's inputs."""
        return self.items[~self.train_mask].reset_index(drop=True)

    @cached_property
    def direction(self) -> dict[Any, str]:
        """Context id -> expected order: ``same`` in a downward context, ``opposite`` in an upward one."""
        return {cid: ("same" if mono == "down" else "opposite")
                for cid, mono in zip(self.contexts["context_id"], self.contexts["monotonicity"])}

    def metrics(self) -> dict[str, int]:
        """Data sizes: contexts of each side, insertion pairs, inputs."""
        return {"n_insertion_pairs_file": self.n_pairs_file,
                "n_insertion_pairs_with_reverses": self.n_pairs_with_reverses,
                "n_contexts": int(len(self.test_ids)), "n_contexts_train": int(len(self.train_ids)),
                "n_insertion_pairs": int(self.test_items["insertion_id"].nunique()), "n_inputs": len(self.items),
                "n_inputs_test": len(self.test_items)}

    def summary(self) -> str:
        return (f"{len(self.contexts)} contexts ({len(self.train_ids)} train, {len(self.test_ids)} test), "
                f"{len(self.insertions)} insertion pairs with reverses ({self.n_pairs_file} in the file), "
                f"{len(self.items):,} NLI inputs ({len(self.test_items):,} in test contexts)")


def load_data(contexts_path: str = "", insertions_path: str = "", *, train_fraction: float = 0.3,
              max_contexts: int = 0, max_insertions: int = 0, seed: int = 0) -> NLIData:
    """Read contexts and insertions (bundled or NLI-XY files), add reverses, subset, compose and split.

    Args:
        contexts_path, insertions_path: NLI-XY ``contexts.tsv`` / ``insertions.tsv``; empty for the bundled ones.
        train_fraction: Share of contexts that trains the probe and the NLI head (never tested).
        max_contexts: Keep at most this many contexts, the same number per monotonicity (0 keeps all).
        max_insertions: Keep at most this many insertion pairs, the same number per relation (0 keeps all).
        seed: Seeds the subsets and the split.
    """
    from mtlib.data import monotonicity
    from mtlib.data.sample import subsample

    pairs_read = monotonicity.load_insertions(insertions_path or monotonicity.BUNDLED_INSERTIONS)
    pairs_both = monotonicity.with_reverses(pairs_read)
    contexts = subsample(monotonicity.load_contexts(contexts_path or monotonicity.BUNDLED_CONTEXTS), max_contexts,
                         seed, by="monotonicity", sort="context_id")
    insertions = subsample(pairs_both, max_insertions, seed, by="relation", sort="insertion_id")
    items = monotonicity.compose(contexts, insertions)
    train_ids, test_ids = split_contexts(contexts, train_fraction, seed)
    return NLIData(contexts, insertions, items, items["context_id"].isin(train_ids).to_numpy(), train_ids, test_ids,
                   len(pairs_read), len(pairs_both))


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

    headline: ClassVar[tuple[str, ...]] = ("probe_accuracy", "nli_accuracy", "violation_rate/up",
                                           "violation_rate/down")

    @cached_property
    def nli_accuracy(self) -> claims.AccuracyReport:
        """NLI accuracy (P(entailed) > 0.5) on the test contexts against the gold labels, beside its baseline."""
        test = ~self.data.train_mask
        return claims.accuracy_vs_baseline(self.data.test_items["entailed"], self.ent.prob[test] > 0.5,
                                           {False: "not entailed", True: "entailed"})

    @cached_property
    def probe_accuracy(self) -> claims.AccuracyReport:
        """The probe's accuracy on the test contexts' inputs, beside its baseline."""
        test = ~self.data.train_mask
        return claims.accuracy_vs_baseline(self.data.test_items["hypernym"], self.s_hyp[test] > 0,
                                           {False: "not a hypernym", True: "hypernym"})

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
        return stats.rank_items(self.result.per_item.assign(
            pair=lambda d: "(" + d["x"] + ", " + d["y"] + ")",
            lexical_relation=lambda d: d["relation"].map(relation_symbol)), by="rate")

    def metrics(self) -> dict[str, Any]:
        """Flat metrics without a model prefix (see :mod:`mtlib.run.results` for the key scheme)."""
        r, test = self.result, ~self.data.train_mask
        out: dict[str, Any] = {**self.data.metrics(), **self.nli_accuracy.metrics("nli_accuracy"),
                               **self.probe_accuracy.metrics("probe_accuracy"), **self.ent.info}
        for mono, part in self.data.test_items.groupby("monotonicity"):  # each beside its own baseline
            out.update(claims.accuracy_vs_baseline(part["entailed"], self.ent.prob[test][part.index] > 0.5)
                       .metrics(f"nli_accuracy/{mono}"))
        for mono, row in self.by_monotonicity.iterrows():
            out.update({f"violation_rate/{mono}": row["rate"], f"violation_rate/{mono}_ci_low": row["ci_low"],
                        f"violation_rate/{mono}_ci_high": row["ci_high"]})
        out.update({"violation_rate/overall": r.rate, "violation_rate/overall_ci_low": r.ci_low,
                    "violation_rate/overall_ci_high": r.ci_high, "n_cases": r.cases,
                    "count_seconds": r.extra["count_seconds"]})
        if len(self.difference):
            out.update({"up_vs_down_p_z": self.difference.loc[0, "p_value"],
                        "up_vs_down_p_permutation": self.difference.loc[1, "p_value"]})
        if len(self.chance):
            out["overall_vs_chance_p"] = self.chance.loc[0, "p_value"]
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """Tables 3 and 4, the rates by monotonicity and the named tests."""
        return {"table3_contexts": self.table3, "table4_insertions": self.table4,
                "violation_rate_by_monotonicity": self.by_monotonicity, "up_vs_down_tests": self.difference,
                "overall_vs_chance": self.chance}

    def summary(self) -> str:
        r = self.result
        return (f"{self.model}: s_ent from {self.ent.source}; probe accuracy {self.probe_accuracy.accuracy:.4f}; "
                f"NLI accuracy {self.nli_accuracy.accuracy:.4f}; {r.cases:,} cases counted in "
                f"{r.extra['count_seconds']:.3f} s; violation rate {stats.rate_text(r.rate, r.ci_low, r.ci_high)}")

    def accuracy_sentences(self) -> str:
        """The NLI and probe accuracies beside their baselines, as Markdown."""
        return (self.nli_accuracy.sentence(f"NLI ({self.model}, s_ent from {self.ent.source})") + "\n\n"
                + self.probe_accuracy.sentence(f"hypernymy probe ({self.model})"))

    def sentence(self) -> str:
        """The overall rate against chance and up against down, stated from this run."""
        p = self.difference.loc[1, "p_value"] if len(self.difference) else float("nan")
        return claims.compositionality_sentence(self.result, self.chance, self.by_monotonicity, p)

    def figure_by_monotonicity(self):
        """Violation rate of upward and downward contexts, with intervals and chance."""
        from mtlib.analysis import plots

        bars = self.by_monotonicity.reset_index().assign(label=lambda d: d["monotonicity"] + " contexts")
        return plots.rate_bars(bars, label="label", title=f"Violation rate by monotonicity ({self.model})",
                               reference=0.5, reference_label="chance",
                               xlabel="proportion of violated pairs (95% bootstrap interval)")

    def figure_table3(self, n_show: int = 6):
        """The ``n_show`` contexts with most and fewest violations (Wilson intervals)."""
        from mtlib.analysis import plots

        shown = pd.concat([self.table3.head(n_show), self.table3.tail(n_show)]).drop_duplicates()
        return plots.rate_bars(stats.rate_table(shown).assign(label=lambda d: d["context"].str.slice(0, 48)),
                               label="label", hue="monotonicity", reference=0.5,
                               title=f"Contexts with the most and fewest violations ({self.model})",
                               xlabel="violation rate (Wilson interval over the context's cases)")

    def figure_table4(self, n_show: int = 6):
        """The ``n_show`` insertion pairs with most and fewest violations (Wilson intervals)."""
        from mtlib.analysis import plots

        shown = pd.concat([self.table4.head(n_show), self.table4.tail(n_show)]).drop_duplicates()
        return plots.rate_bars(stats.rate_table(shown), label="pair", hue="lexical_relation", reference=0.5,
                               title=f"Insertion pairs with the most and fewest violations ({self.model})",
                               xlabel="violation rate (Wilson interval over the pair's cases)")


def compositionality(model: str | Model, data: NLIData, *, layer: int = -2, entailment_label: str = "ENTAILMENT",
                     n_boot: int = 200, permutations: int = 5000, seed: int = 0,
                     device: str = "auto") -> CompositionalityReport:
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
        device: Torch device.

    Returns:
        A :class:`CompositionalityReport`.
    """
    from mtlib import models as mt_models

    name = model if isinstance(model, str) else getattr(model, "name", type(model).__name__)
    loaded = mt_models.load(model, device=device) if isinstance(model, str) else model
    items, train_mask, test = data.items, data.train_mask, data.test_items
    features = forward(loaded, items, layer)
    ent = entailment_scores(loaded, items, train_mask, features=features, entailment_label=entailment_label,
                            seed=seed)
    probe, s_hyp = train_probe(hidden_vectors(features), items, train_mask, seed=seed)
    relation = PairwiseCompositionality("pairwise compositionality of NLI", hidden="s_{hyp}", output="s_{ent}")
    hid, out = s_hyp[~train_mask], ent.log_odds[~train_mask]
    result = relation.check(hid, out, test["context_id"], data.direction, per_item=test["insertion_id"],
                            group_info=data.contexts.set_index("context_id")[["context", "monotonicity", "operator"]],
                            item_info=data.insertions.set_index("insertion_id")[["x", "y", "relation"]],
                            n_boot=n_boot, seed=seed)
    rows = []
    for mono in ("up", "down"):
        mask = (test["monotonicity"] == mono).to_numpy()
        if mask.any():
            part = relation.check(hid[mask], out[mask], test["context_id"][mask], data.direction,
                                  per_item=test["insertion_id"][mask], n_boot=n_boot, seed=seed)
            rows.append({"monotonicity": mono, "rate": part.rate, "ci_low": part.ci_low, "ci_high": part.ci_high,
                         "cases": part.cases, "violations": part.violations, "contexts": part.extra["n_groups"],
                         "paper_rate": papers.MANINO_S51[f"violation_rate/{mono}"]})
    by_mono = pd.DataFrame(rows, columns=["monotonicity", "rate", "ci_low", "ci_high", "cases", "violations",
                                          "contexts", "paper_rate"]).set_index("monotonicity")
    difference = (stats.compare_two_groups(result.groups, group="monotonicity", permutations=permutations, seed=seed)
                  if len(by_mono) == 2 else pd.DataFrame(columns=["test", "groups", "difference", "statistic",
                                                                  "p_value"]))
    chance = stats.one_sample_test(result.groups["rate"], 0.5)
    return CompositionalityReport(name, data, ent, probe, s_hyp, relation, result, by_mono, difference, chance)
