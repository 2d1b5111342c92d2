"""The experiment of notebook 03: every language, one report per model (Manino et al. §6.1, Table 5).

Intuition: :func:`transitivity` builds the model (heads on frozen vectors per
language, or one fine-tuned pair classifier for all), scores it on the gold
pairs and checks three-way transitivity on each language's vocabulary; the
:class:`LexicalTransitivityReport` sets the violation rates beside the
supervised scores: precision, recall, F1 and balanced accuracy per relation
and the shared task's summary F1 (a head that has learnt its relation can
still break transitivity; accuracy alone cannot say whether it has learnt it).
A model name ending in ``-ft`` (``minilm-ft``) is its base fine-tuned on word
pairs, its own model row beside the frozen heads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from mtlib.analysis import claims, plots
from mtlib.data.papers import COGALEX_VI_WINNER
from mtlib.experiments.lexical._check import TransitivityReport, check_transitivity, most_violating_words
from mtlib.experiments.lexical._data import RELATIONS, LexicalData, table5_frame
from mtlib.experiments.lexical._pair_models import (
    COGALEX_CLASSES,
    PAIR_CLASSES,
    PairModel,
    evaluate_heads,
    pair_model,
    relation_probabilities,
)
from mtlib.experiments.lexical._scores import f1_summary, learnt_contrast, relation_scores, shared_task_table
from mtlib.models.training.finetune import split_name
from mtlib.models.training.settings import ClassifierSettings
from mtlib.relations.transitivity import ThreeWayTransitivity
from mtlib.utils.context import RunContext


@dataclass
class LexicalTransitivityReport:
    """Three-way transitivity of one model in every language, beside its supervised accuracy (§6.1).

    A report for :meth:`mtlib.run.results.Run.record_report`: metric keys
    ``<metric>/<language>/<relation>`` (``violation_rate/english/syn``,
    ``accuracy/english/hyp``...), tables and :attr:`headline` (the first
    language's rates).

    Attributes:
        model: Model name.
        data: The pairs and vocabularies.
        reports: Language -> :class:`TransitivityReport`.
        scores: Language -> :func:`evaluate_heads` on the gold test pairs.
        finetuned: Whether the model was fine-tuned on word pairs (else frozen vectors and heads).
        train_seconds: Language -> time to build the model and score the test pairs; ``finetune``: time of the
            shared fine-tuning.
        n_top: Words per language and relation in the ranking of violations.
        relation_scores: Language -> :func:`mtlib.experiments.lexical._scores.relation_scores` on the gold test
            pairs (every relation the model predicts).
        f1_summaries: Language -> the shared task's summary F1
            (:func:`mtlib.experiments.lexical._scores.f1_summary`).
        fits: ``all languages`` (one model) or language -> how a fine-tuned model was trained
            (:func:`fit_record`: validation data, early stopping's curve and chosen epoch).
        shared_task: Language -> the shared task's score table of a 4-class model
            (:func:`mtlib.experiments.lexical._scores.shared_task_table`, with the winner's F1 where known).
    """

    model: str
    data: LexicalData
    reports: dict[str, TransitivityReport]
    scores: dict[str, pd.DataFrame]
    finetuned: bool = False
    train_seconds: dict[str, float] = field(default_factory=dict)
    n_top: int = 10
    relation_scores: dict[str, pd.DataFrame] = field(default_factory=dict)
    f1_summaries: dict[str, float] = field(default_factory=dict)
    fits: dict[str, dict[str, Any]] = field(default_factory=dict)
    shared_task: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def relation(self) -> ThreeWayTransitivity:
        """The relation checked (its diagram is the paper's Figure 5)."""
        return ThreeWayTransitivity(r"three-way transitivity of $v_{syn}$ and $v_{hyp}$")

    @property
    def headline(self) -> list[str]:
        lang = self.data.languages[0]
        return [f"violation_rate/{lang}/{rel}" for rel in RELATIONS]

    @cached_property
    def table5(self) -> pd.DataFrame:
        """Table 5: one row per (language, relation) with the paper's rate where it applies."""
        table = pd.concat({lang: r.table for lang, r in self.reports.items()}, names=["language"])
        paper = table5_frame(self.data.dataset)
        table["paper_rate"] = [
            paper.loc[lang, rel] if lang in paper.index else float("nan") for lang, rel in table.index
        ]
        return table

    @cached_property
    def accuracy(self) -> pd.DataFrame:
        """Supervised scores of each head on each language's gold test pairs."""
        return pd.concat(self.scores, names=["language"])

    @cached_property
    def heads(self) -> dict[tuple[str, str], claims.AccuracyReport]:
        """(language, relation) -> the head's accuracy beside its majority-class baseline."""
        return {
            (lang, rel): rep
            for lang, frame in self.scores.items()
            for rel, rep in claims.binary_scores_report(frame).items()
        }

    @cached_property
    def sampled_vs_exhaustive(self) -> pd.DataFrame:
        """The paper's sampled procedure beside the exact count (``difference`` = sampled - exact)."""
        cols = [
            "method",
            "rate",
            "ci_low",
            "ci_high",
            "cases",
            "sampled_rate",
            "sampled_ci_low",
            "sampled_ci_high",
            "sampled_cases",
            "sampled_triples",
        ]
        compare = self.table5[[c for c in cols if c in self.table5]].copy()
        if "sampled_rate" in compare:
            compare["difference"] = compare["sampled_rate"] - compare["rate"]
        return compare

    @cached_property
    def top_words(self) -> dict[str, pd.DataFrame]:
        """Language -> the ``n_top`` words in the most violated triples per relation (languages with an exact
        count)."""
        return {lang: most_violating_words(r.results, self.n_top) for lang, r in self.reports.items() if r.results}

    def rates(self) -> pd.Series:
        """Violation rate per (language, relation)."""
        return self.table5["rate"]

    def metrics(self) -> dict[str, Any]:
        """Flat metrics without a model prefix: ``<metric>/<language>/<relation>`` and the data sizes."""
        out: dict[str, Any] = dict(self.data.metrics())
        for lang, rep in self.reports.items():
            for key, value in rep.metrics().items():
                head, _, tail = key.partition("/")
                out[f"{head}/{lang}/{tail}" if tail else f"{head}/{lang}"] = value
            if lang in self.train_seconds:
                out[f"train_seconds/{lang}"] = self.train_seconds[lang]
        if "finetune" in self.train_seconds:  # the one fine-tuning for every language (0 when reloaded)
            out["train_seconds/finetune"] = self.train_seconds["finetune"]
        for (lang, rel), accuracy in self.heads.items():
            out.update(accuracy.metrics(f"accuracy/{lang}/{rel}"))
            out[f"f1/{lang}/{rel}"] = self.scores[lang].loc[rel, "f1"]
        for lang, top in self.top_words.items():
            out[f"top_words/{lang}"] = {rel: top[top["relation"] == rel]["word"].tolist() for rel in RELATIONS}
        for lang, frame in self.relation_scores.items():
            for rel, row in frame.iterrows():
                for key in ("balanced_accuracy", "f1", "precision", "recall"):
                    out.setdefault(f"{key}/{lang}/{rel}", float(row[key]))
        out.update({f"f1_summary/{lang}": value for lang, value in self.f1_summaries.items()})
        for lang, table in self.shared_task.items():
            out[f"f1_without_random/{lang}"] = float(table.loc["weighted (SYN, ANT, HYP)", "f1_without_random"])
        for where, fit in self.fits.items():
            if fit.get("best_epoch") is not None:
                out[f"best_epoch/{where.replace(' ', '_')}"] = fit["best_epoch"]
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """Table 5, the supervised accuracy, sampled against exhaustive, and each language's top words."""
        return {
            "table5_violation_rate": self.table5,
            "supervised_accuracy": self.accuracy,
            **(
                {"relation_scores": pd.concat(self.relation_scores, names=["language"])} if self.relation_scores else {}
            ),
            **({"shared_task_scores": pd.concat(self.shared_task, names=["language"])} if self.shared_task else {}),
            "sampled_vs_exhaustive": self.sampled_vs_exhaustive,
            **{f"top_words_{lang}": top for lang, top in self.top_words.items()},
        }

    def summary(self) -> str:
        """One line per language: how the rates were counted, and in what time."""
        lines = []
        for lang, rep in self.reports.items():
            n = len(self.data.splits[lang]["words"])
            if not rep.results:
                lines.append(
                    f"{self.model}, {lang}: n = {n} words, n(n-1) = {n * (n - 1):,} ordered pairs: too many "
                    "for an exhaustive count, the sampled procedure only"
                )
                continue
            counts = ", ".join(f"{rel} {r.extra['count_seconds']:.3f} s" for rel, r in rep.results.items())
            lines.append(
                f"{self.model}, {lang}: {n} words, {n * (n - 1):,} ordered pairs predicted in "
                f"{rep.predict_seconds:.2f} s; {n * (n - 1) * (n - 2):,} ordered triples counted exactly "
                f"({counts})"
            )
        return "\n".join(lines)

    def sentence(self) -> str:
        """Does a head that has learnt its relation still break transitivity? Stated from this run (Markdown).

        "Learnt" is balanced accuracy above 0.5 (a one-sided Fisher test), which always-"no" cannot pass
        (:func:`mtlib.experiments.lexical._scores.learnt_contrast`); without relation scores, the accuracy
        sentence of :func:`mtlib.analysis.claims.transitivity_contrast`.
        """
        if self.relation_scores:
            return learnt_contrast(self.table5, self.relation_scores)
        return claims.transitivity_contrast(self.table5, self.heads)

    def shared_task_sentence(self) -> str:
        """The 4-class model against the shared task's bar and its winner, and how it was trained (Markdown).

        Per language: the weighted F1 over SYN, ANT and HYP beside the winner's where known, the lowest
        relation F1, and each binary head of the transitivity test (synonymy, hypernymy) with its accuracy
        beside always-"no" and its balanced accuracy; then the fit (validation data, chosen epoch).
        """
        if not self.shared_task:
            return f"{self.model}: not a single-label 4-class model, so no shared-task table."
        lines = []
        for lang, table in self.shared_task.items():
            weighted = table.loc["weighted (SYN, ANT, HYP)"]
            rel = table.drop(index=["weighted (SYN, ANT, HYP)", "RANDOM"], errors="ignore")
            low = rel["f1"].idxmin()
            ref = weighted["reference_f1"]
            versus = f" (the CogALex-VI winner: {ref:.3f})" if np.isfinite(ref) else ""
            heads = []
            for short, word in (("syn", "synonymy"), ("hyp", "hypernymy")):
                row = self.relation_scores[lang].loc[short]
                side = "above" if row["accuracy"] > row["majority_baseline"] else "not above"
                heads.append(
                    f'{word} accuracy {row["accuracy"]:.3f}, {side} always-"no" {row["majority_baseline"]:.3f} '
                    f"(balanced accuracy {row['balanced_accuracy']:.3f})"
                )
            lines.append(
                f"- {lang}: weighted F1 over SYN, ANT, HYP {weighted['f1']:.3f}{versus}; "
                f"{weighted['f1_without_random']:.3f} without the gold-RANDOM pairs; lowest relation F1 "
                f"{rel.loc[low, 'f1']:.3f} ({low}); {'; '.join(heads)}."
            )
        for where, fit in self.fits.items():
            if fit.get("best_epoch") is not None:
                lines.append(
                    f"- fit ({where}): early stopping on {fit['validation']} by {fit['select_by']}, best state at "
                    f"epoch {fit['best_epoch']:g} of at most {fit['max_epochs']}."
                )
            elif fit:
                lines.append(f"- fit ({where}): validation {fit['validation']}.")
        return f"**{self.model}**\n\n" + "\n".join(lines)

    def _bars(self) -> pd.DataFrame:
        """Table 5 with a ``label`` column ``language · relation`` for bar charts."""
        bars = self.table5.reset_index()
        bars["label"] = bars["language"] + " · " + bars["relation"]
        return bars

    def figure_table5(self):
        """Violation rate per language and relation, with bootstrap intervals."""
        bars = self._bars()
        return plots.rate_bars(
            bars,
            label="label",
            hue="relation",
            xlim=(0, 1),
            title=f"Three-way transitivity violations ({self.model}{', fine-tuned' if self.finetuned else ''})",
            xlabel="proportion of violated triples among cases (95% bootstrap interval over words)",
        )

    def figure_vs_paper(self):
        """The same rates beside Table 5 (languages the paper did not test have no paper bar)."""
        bars = self._bars()
        side = pd.concat(
            [
                bars.assign(source=f"mtlib: {self.model}")[["label", "rate", "source"]],
                bars.assign(source="Manino et al. Table 5", rate=bars["paper_rate"])[["label", "rate", "source"]],
            ]
        )
        return plots.grouped_bars(
            side.dropna(),
            x="label",
            y="rate",
            hue="source",
            title="Violation rate: ours and the paper's",
            ylabel="proportion of violated triples",
        )


def transitivity(
    model: str,
    data: LexicalData,
    *,
    how: str,
    head_settings: ClassifierSettings,
    finetune_settings: ClassifierSettings,
    finetune_classes: int,
    predict_batch_size: int,
    max_pairs: int,
    n_sample: int,
    n_boot: int,
    n_top: int,
    seed: int,
    context: RunContext,
    per_language: bool = False,
    heldout_fraction: float,
) -> LexicalTransitivityReport:
    """Three-way transitivity of a lexical-relation model in every language of ``data``.

    Frozen (``how="head"``): one head per relation on the model's word
    vectors, trained per language. Fine-tuned: one pair classifier trained on
    every language's training pairs (the paper's multilingual model). Then
    :func:`check_transitivity` per language (exhaustive count through
    :class:`mtlib.relations.ThreeWayTransitivity`, and the sampled procedure)
    and :func:`evaluate_heads` on the gold test pairs.

    Args:
        model: Registry name or path; a name ending in ``-ft`` is its base fine-tuned (the report keeps the
            ``-ft`` name), whatever ``how`` says.
        data: :func:`load_data`.
        how: ``"head"`` (heads on frozen vectors) or ``"finetune"`` (the model fine-tuned on word pairs).
        head_settings: Settings of the heads on frozen vectors (:func:`train_frozen_heads`).
        finetune_settings: Settings of the fine-tuned pair classifier (:func:`finetune_pair_classifier`).
        finetune_classes: Classes of a fine-tuned model: 3 (``SYN, HYP, OTHER``) or 4 (CogALex-VI's ``SYN, ANT,
            HYP, RANDOM``, as in the shared task).
        predict_batch_size: Word pairs per forward pass of a fine-tuned model.
        max_pairs: Most ordered pairs a fine-tuned model predicts for the exhaustive count.
        n_sample: Random triples of the sampled procedure.
        n_boot: Bootstrap replicates over words.
        n_top: Words per language and relation in the ranking of violations.
        seed: As everywhere.
        context: The run's context: the models load and train in it; the counts and bootstraps run on its
            ``stats_device``.
        per_language: Fine-tune one model per language (early stopping on its ``valid`` pairs, else on a
            held-out part of its train pairs) instead of one on every language's pairs.
        heldout_fraction: Without validation pairs, the stratified share of train held out for early stopping.
    """
    if finetune_classes not in (3, 4):
        raise ValueError(f"finetune_classes must be 3 or 4, got {finetune_classes}")
    classes = PAIR_CLASSES if finetune_classes == 3 else COGALEX_CLASSES
    name = str(model)
    base, way, _ = split_name(name, how)  # the report keeps the name as given
    finetune = way == "finetune"

    def build(train: pd.DataFrame, test: pd.DataFrame | None, how: str, valid: Any = None) -> PairModel:
        settings = finetune_settings if how == "finetune" else head_settings
        kw = dict(seed=seed, context=context, classes=classes, valid=valid, heldout_fraction=heldout_fraction)
        return pair_model(base, train, test, how=how, settings=settings, **kw)

    shared = None
    seconds: dict[str, float] = {}
    fits: dict[str, dict[str, Any]] = {}
    if finetune and not per_language:
        start = time.perf_counter()
        splits = list(data.splits.values())
        valid = _joint_valid(splits)
        shared = build(pd.concat([d["train"] for d in splits], ignore_index=True), None, "finetune", valid)
        seconds["finetune"] = time.perf_counter() - start
        fits["all languages"] = fit_record(shared, valid)
    reports: dict[str, TransitivityReport] = {}
    scores: dict[str, pd.DataFrame] = {}
    per_relation: dict[str, pd.DataFrame] = {}
    summaries: dict[str, float] = {}
    shared_task: dict[str, pd.DataFrame] = {}
    for lang, d in data.splits.items():
        start = time.perf_counter()
        if shared is not None:
            fitted = shared
        elif finetune:  # one model per language, its own validation pairs (or a held-out part of its train)
            fitted = build(d["train"], None, "finetune", d.get("valid"))
            fits[lang] = fit_record(fitted, d.get("valid"))
        else:
            fitted = build(d["train"], d["test"], "head")
        scores[lang] = evaluate_heads(fitted, d["test"], batch_size=predict_batch_size)
        seconds[lang] = time.perf_counter() - start
        probs = relation_probabilities(fitted, d["test"], batch_size=predict_batch_size)
        per_relation[lang] = relation_scores(probs, d["test"]["relation"])
        summaries[lang] = f1_summary(per_relation[lang], d["test"]["relation"])
        if "ant" in probs:  # a single-label 4-class model: the shared task's own table
            shared_task[lang] = shared_task_table(probs, d["test"]["relation"], COGALEX_VI_WINNER.get(lang))
        counts = dict(max_pairs=max_pairs, n_sample=n_sample, n_boot=n_boot, seed=seed, batch_size=predict_batch_size)
        reports[lang] = check_transitivity(fitted, d["words"], stats_device=context.stats_device, **counts)
    return LexicalTransitivityReport(
        name, data, reports, scores, finetune, seconds, n_top, per_relation, summaries, fits, shared_task
    )


def _joint_valid(splits: list[dict[str, Any]]) -> pd.DataFrame | None:
    """Every language's validation pairs when each has some (one model for all), else None (hold out of train)."""
    valid = [d.get("valid") for d in splits]
    if all(v is not None and len(v) for v in valid):
        return pd.concat(valid, ignore_index=True)
    return None


def fit_record(model: PairModel, valid: pd.DataFrame | None) -> dict[str, Any]:
    """How a fine-tuned pair classifier was trained: validation data, early stopping's curve and chosen epoch."""
    training = getattr(getattr(model, "model", None), "training", None)
    if training is None:
        return {}
    s = training.settings
    if s.get("eval_every") is None:
        validation = "none (every training pair trains, a fixed number of epochs)"
    elif valid is not None and len(valid):
        validation = f"validgold ({len(valid):,} pairs)"
    else:
        validation = f"a stratified {s['heldout_fraction']:.0%} of train held out ({training.n_heldout:,} pairs)"
    return {
        "validation": validation,
        "select_by": s.get("select_by"),
        "best_epoch": training.best_epoch,
        "max_epochs": s.get("epochs"),
        "valid_curve": list(training.valid_curve),
        "heldout_accuracy": training.heldout_accuracy,
        "architecture": s.get("architecture", "cross"),
        "class_weight": s.get("class_weight"),
        "from_cache": training.from_cache,
    }
