"""The experiment of notebook 06 as reports: ground truth, one encoder's TRE, tables, figures, sentences.

:func:`ground_truth` loads and scores the trees (:class:`GroundTruth`);
:func:`tree_reconstruction` embeds them with one encoder, fits TRE and reads its
Table 2 rows (:class:`TREReport`); the rest lays several reports side by side.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.analysis import plots
from mtlib.data.papers import BHATHENA_TABLE2_SOURCE
from mtlib.data.sst import load_sst_trees
from mtlib.data.trees import Tree
from mtlib.experiments.tre._correlation import _paper_rows, spearman_ci, table2, table2_row
from mtlib.experiments.tre._encoding import build_vocabulary
from mtlib.experiments.tre._fit import TREModel, tre_by_split
from mtlib.experiments.tre._scores import find_paper_examples, tree_scores
from mtlib.experiments.tre._settings import FitSettings
from mtlib.models.inference.oov import coverage_metrics, coverage_note, coverage_summary, model_token_counts
from mtlib.models.loading import load
from mtlib.relations.errors import check_count
from mtlib.utils.context import RunContext


def sensitivity(
    trees: Sequence[Tree],
    targets: np.ndarray,
    scores: pd.DataFrame,
    sweeps: Mapping[str, Sequence[Any]],
    *,
    n_boot: int = 0,
    seed: int = 0,
    **settings: Any,
) -> pd.DataFrame:
    """How ρ(TRE, WNS) moves with the fit's settings, one setting at a time around ``settings``.

    Args:
        trees, targets: As for :func:`tre_by_split` (``extra_trees``/``extra_targets`` go in ``settings``).
        scores: :func:`tree_scores` of the same trees.
        sweeps: Setting name (``steps``, ``lr``, ``init_scale``) -> values to try.
        n_boot: Bootstrap resamples per interval (0: no intervals, faster).
        **settings: The base settings (``heldout_fraction``, ``composition``, ``steps`` ...).

    Returns:
        One row per (setting, value, split): ``setting, value, split, rho_tre_wns,
        ci_low, ci_high, partial_rho_length, tre_mean``.
    """
    rows = []
    for name, values in sweeps.items():
        for value in values:
            per, _ = tre_by_split(trees, targets, seed=seed, **{**settings, name: value})
            frame = scores.join(per)
            for split in ("train", "heldout"):
                part = frame[frame["split"] == split]
                if len(part) < 4:
                    continue
                r = table2_row(part, n_boot=n_boot, seed=seed)
                rows.append(
                    {
                        "setting": name,
                        "value": value,
                        "split": split,
                        "rho_tre_wns": r["rho_tre_wns"],
                        "ci_low": r["ci_low"],
                        "ci_high": r["ci_high"],
                        "partial_rho_length": r["partial_rho_length"],
                        "tre_mean": part["tre"].mean(),
                    }
                )
    return pd.DataFrame(rows)


@dataclass
class GroundTruth:
    """The trees of a run and their ground-truth compositionality scores (:func:`ground_truth`).

    Attributes:
        trees: The scored sentences.
        extra: Sentences that only join the TRE fit (``fit_path``).
        scores: :func:`tree_scores` of ``trees`` (``text, n_words, label, ti, wns``).
        examples: :func:`find_paper_examples` (the paper's Table 4 / Figure 3 sentences).
        source: Where the trees come from (for sentences).
    """

    trees: list[Tree]
    extra: list[Tree]
    scores: pd.DataFrame
    examples: pd.DataFrame
    source: str = ""
    headline: tuple[str, ...] = ()

    def metrics(self) -> dict[str, Any]:
        """Counts, mean TI and WNS, and rho(TI, WNS), rho(WNS, length) (no model involved).

        A value that could not be computed (see :meth:`skipped`) is left out.
        """
        skipped = self.skipped()
        return {k: v for k, v in self._values().items() if k not in skipped}

    def skipped(self) -> dict[str, str]:
        """``{key: reason}`` for the values not computed: no WNS at all (only one-word sentences), or a
        correlation on fewer than 3 sentences with a WNS or over a constant column."""
        values, sc = self._values(), self.scores
        n_wns = int(sc["wns"].notna().sum())
        reasons = {
            "wns_mean": f"no sentence of more than one word among the {len(sc)}: no WNS to average",
            "spearman_ti_wns": _rho_reason(n_wns, 3, "sentences with a WNS"),
            "spearman_wns_length": _rho_reason(n_wns, 3, "sentences with a WNS"),
        }
        return {k: why for k, why in reasons.items() if not np.isfinite(values[k])}

    def _values(self) -> dict[str, Any]:
        sc = self.scores
        return {
            "n_sentences": len(self.trees),
            "n_word_types": len(build_vocabulary(self.trees)),
            "n_one_word": int(sc["wns"].isna().sum()),
            "n_fit_only": len(self.extra),
            "ti_mean": float(sc["ti"].mean()),
            "wns_mean": float(sc["wns"].mean()),
            "spearman_ti_wns": float(spearman_ci(sc["ti"], sc["wns"], n_boot=0)["rho"]),
            "spearman_wns_length": float(spearman_ci(sc["wns"], sc["n_words"], n_boot=0)["rho"]),
            "paper_examples_found": int(self.examples["found"].sum()),
        }

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"paper_examples": self.examples}

    def summary(self) -> str:
        """Two sentences on the data and on how TI, WNS and length relate."""
        m, sc = self._values(), self.scores
        return (
            f"{m['n_sentences']} sentences, {m['n_word_types']} word types, {sc['n_words'].mean():.1f} words on "
            f"average; {m['n_one_word']} one-word sentences have no WNS; {m['n_fit_only']} more sentences for "
            f"the fit.\nrho(TI, WNS) = {m['spearman_ti_wns']:+.3f}; rho(WNS, length) = "
            f"{m['spearman_wns_length']:+.3f}"
        )

    def figure(self):
        """Histograms of TI, WNS and sentence length."""
        return plots.histograms(
            self.scores,
            ["ti", "wns", "n_words"],
            labels=["Tree Impurity", "Weighted Node Switching", "words"],
            title=f"Ground-truth scores of {len(self.trees)} sentences",
        )

    def examples_note(self) -> str:
        found = int(self.examples["found"].sum())
        return f"{found} of {len(self.examples)} paper sentences are in {self.source} ({BHATHENA_TABLE2_SOURCE})"

    def examples_view(self) -> pd.DataFrame:
        """The paper sentences found (rounded), or the list of them when none is in the data."""
        found = self.examples[self.examples["found"]]
        return found.round(2) if len(found) else self.examples[["source", "sentence", "ti_paper", "wns_paper"]]


def ground_truth(data_path: str, *, fit_path: str = "", max_sentences: int, weight: str, average: str) -> GroundTruth:
    """Load a PTB tree file (and optional fit-only trees) and score every tree's TI and WNS.

    Args:
        data_path: Tree file, absolute or relative to ``data/`` (``trees/dev.txt``, SST's ``dev.txt``).
        fit_path: Optional second tree file whose sentences only join the TRE fit.
        max_sentences: Keep at most this many sentences of each file, in file order (0 keeps all).
        weight, average: WNS variant (:func:`mtlib.data.trees.weighted_node_switching`; the literal reading is
            ``weight="height"``, ``average="mean"``).

    Raises:
        MtlibInputError: ``max_sentences`` is not an integer >= 0 (``-2`` would drop the last two).
    """
    max_sentences = check_count(max_sentences, "ground_truth", "max_sentences")
    trees = list(load_sst_trees(data_path, binary=False)["tree"])[: max_sentences or None]
    extra = list(load_sst_trees(fit_path, binary=False)["tree"])[: max_sentences or None] if fit_path else []
    return GroundTruth(
        trees,
        extra,
        tree_scores(trees, weight=weight, average=average),
        find_paper_examples(trees, weight=weight, average=average),
        str(data_path),
    )


@dataclass
class TREReport:
    """One encoder's TRE on a :class:`GroundTruth` and its Table 2 rows (:func:`tree_reconstruction`).

    Metric keys (no model prefix): ``tre_mean/<split>``, ``sentences/<split>`` (``train``, ``heldout``,
    ``no_target``),
    ``heldout_with_unseen``, ``fit_overlap_heldout``, ``tre_mean_all_seen/heldout``, and per split
    (``train``, ``heldout``) ``spearman_tre_wns/<split>``,
    ``spearman_tre_ti/<split>``, ``partial_spearman_tre_wns/<split>``,
    ``spearman_tre_wns_p/<split>``; ``fit_seconds``; the encoder's coverage of the scored sentences
    ``oov/skipped/sentences`` (no known word: no vector, left out as ``no target``),
    ``oov/partial/sentences`` (some unknown words: the mean of the known ones) and
    ``oov/token_coverage/sentences`` (share of tokens with a vector; 1.0 for a model without vocabulary),
    and the same with ``/fit_only`` for the fit-only sentences when there are any.

    ``fit_overlap_heldout`` counts held-out sentences that are also in the fit-only sentences
    (``fit_path``, same text): the fit saw them, so their TRE is not out of sample. It is detected,
    counted and stated (here, in :meth:`summary` and in :func:`describe`), not refused: a fit file
    may legitimately repeat a few sentences of the scored file.

    Attributes:
        model: The encoder's name.
        frame: Per sentence: the ground truth's scores with ``split``, ``tre``, ``n_unseen``,
            ``in_fit_path`` (the same text is among the fit-only sentences).
        fit: The trained primitives.
        targets, extra_targets: The encoder's vectors of the scored and of the fit-only sentences.
        table: Table 2 rows of this encoder (:func:`table2_row` per split, ``paper``,
            ``fit_overlap_heldout``: held-out sentences also in ``fit_path``, 0 on the train row).
        settings: The fit's settings (``composition``, ``steps``, ``heldout_fraction`` ...).
        seconds: Duration of the fit.
        coverage: Per part (``sentences``, ``fit_only``), :func:`mtlib.models.inference.oov.coverage_summary`.
    """

    model: str
    frame: pd.DataFrame
    fit: TREModel
    targets: np.ndarray
    extra_targets: np.ndarray
    table: pd.DataFrame
    settings: dict[str, Any]
    seconds: float = 0.0
    coverage: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def split(self) -> str:
        """The split the headline correlation is read on: held-out sentences when there are any."""
        return "heldout" if (self.frame["split"] == "heldout").any() else "train"

    @property
    def headline(self) -> list[str]:
        return [f"spearman_tre_wns/{self.split}"]

    def seen_heldout(self) -> pd.Series:
        """TRE of the held-out sentences whose every word was seen in the fit."""
        f = self.frame
        return f.loc[(f["split"] == "heldout") & (f["n_unseen"] == 0), "tre"]

    def metrics(self) -> dict[str, Any]:
        """The keys of the class docstring; a value not computed (see :meth:`skipped`) is left out."""
        skipped = self.skipped()
        return {k: v for k, v in self._values().items() if k not in skipped}

    def skipped(self) -> dict[str, str]:
        """``{key: reason}`` for the values not computed in this run.

        The held-out means without held-out sentences (``heldout_fraction=0``) or without a held-out
        sentence whose every word was seen in the fit, and a correlation of a split on too few sentences
        with a TRE and a WNS (3; 4 for the partial one) or over a constant column.
        """
        f, values = self.frame, self._values()
        n_heldout = int((f["split"] == "heldout").sum())
        reasons: dict[str, str] = {}
        for split in ("train", "heldout"):
            reasons[f"tre_mean/{split}"] = f"no {'held-out' if split == 'heldout' else split} sentences" + (
                f" (heldout_fraction={self.settings.get('heldout_fraction')})" if split == "heldout" else ""
            )
        reasons["tre_mean_all_seen/heldout"] = (
            f"none of the {n_heldout} held-out sentences has every word seen in the fit"
            if n_heldout
            else reasons["tre_mean/heldout"]
        )
        for row in self.table.itertuples():
            n = int(row.n) if np.isfinite(row.n) else 0
            what = f"{'held-out' if row.split == 'heldout' else row.split} sentences with a TRE and a WNS"
            for key in ("spearman_tre_wns", "spearman_tre_ti", "spearman_tre_wns_p"):
                reasons[f"{key}/{row.split}"] = _rho_reason(n, 3, what)
            reasons[f"partial_spearman_tre_wns/{row.split}"] = _rho_reason(n, 4, what, partial=True)
        return {k: why for k, why in reasons.items() if k in values and not np.isfinite(values[k])}

    def _values(self) -> dict[str, Any]:
        f = self.frame
        out: dict[str, Any] = {
            f"tre_mean/{s}": float(f.loc[f["split"] == s, "tre"].mean()) for s in ("train", "heldout")
        }
        out.update({f"sentences/{s.replace(' ', '_')}": int(n) for s, n in f["split"].value_counts().items()})
        out["heldout_with_unseen"] = int((f["n_unseen"] > 0).sum())
        out["fit_overlap_heldout"] = self.fit_overlap_heldout()
        out["tre_mean_all_seen/heldout"] = float(self.seen_heldout().mean())
        for r in self.table.itertuples():
            out.update(
                {
                    f"spearman_tre_wns/{r.split}": float(r.rho_tre_wns),
                    f"spearman_tre_ti/{r.split}": float(r.rho_tre_ti),
                    f"partial_spearman_tre_wns/{r.split}": float(r.partial_rho_length),
                    f"spearman_tre_wns_p/{r.split}": float(r.p_value),
                }
            )
        for part, summary in self.coverage.items():
            out.update(coverage_metrics(summary, part))
        out["fit_seconds"] = self.seconds
        return out

    def coverage_notes(self) -> list[str]:
        """One sentence per part: sentences the encoder has no vector for (left out) and its coverage rate."""
        what = {"sentences": ("sentences", "no target: left out"), "fit_only": ("fit-only sentences", "left out")}
        return [coverage_note(self.model, c, *what.get(p, (p, "left out"))) for p, c in self.coverage.items()]

    def fit_overlap_heldout(self) -> int:
        """Held-out sentences whose text is also among the fit-only sentences (``fit_path``)."""
        f = self.frame
        if "in_fit_path" not in f:
            return 0
        return int(((f["split"] == "heldout") & f["in_fit_path"]).sum())

    def summary(self) -> str:
        """Mean TRE per split, the held-out mean over sentences with every word seen, the final loss."""
        f, seen = self.frame, self.seen_heldout()
        overlap = self.fit_overlap_heldout()
        caution = f"\n{_overlap_note(overlap)}" if overlap else ""
        return (
            f"{self.model}: mean TRE train {f.loc[f['split'] == 'train', 'tre'].mean():.5f}, held-out "
            f"{f.loc[f['split'] == 'heldout', 'tre'].mean():.5f}, held-out with every word seen "
            f"{seen.mean():.5f} (n={len(seen)}); final training loss "
            f"{self.fit.losses[-1] if len(self.fit.losses) else float('nan'):.4f}; fit {self.seconds:.1f} s"
            f"{caution}" + "".join(f"\n{line}" for line in self.coverage_notes())
        )


def _rho_reason(n: int, need: int, what: str, *, partial: bool = False) -> str:
    """Why a Spearman correlation of ``n`` ``what`` is undefined: too few of them, or a constant column."""
    if n < need:
        return f"only {n} {what}: a{' partial' if partial else ''} Spearman correlation needs {need}"
    extra = ", or one perfectly correlated with length" if partial else ""
    return f"Spearman's rho is undefined over these {n} {what} (a constant column{extra})"


def _overlap_note(overlap: int) -> str:
    """The sentence that says ``overlap`` held-out sentences were also fit (they are in ``fit_path``)."""
    return (
        f"Caution: {overlap} held-out sentence{'s are' if overlap != 1 else ' is'} also in fit_path, so the fit "
        "saw them: this held-out reading is not out of sample (remove them from fit_path)."
    )


def tree_reconstruction(
    model: Any, truth: GroundTruth, *, fit: FitSettings, seed: int, n_boot: int, context: RunContext
) -> TREReport:
    """TRE of one encoder on ``truth``'s trees and its correlation with WNS and TI (Table 2).

    Args:
        model: Registry name, hub id or path (loaded with :func:`mtlib.models.load`), or a loaded model.
        truth: :func:`ground_truth`.
        fit: How the fit runs (composition, steps, lr, init_scale, heldout_fraction, unseen).
        seed: Seeds the split, the initialisation and the bootstraps.
        n_boot: Bootstrap resamples of each correlation interval.
        context: The run's context: the encoder loads in it, and the fit runs on its device.
    """
    name = model if isinstance(model, str) else getattr(model, "name", type(model).__name__)
    encoder = load(model, context=context) if isinstance(model, str) else model
    texts, extra_texts = list(truth.scores["text"]), [t.sentence for t in truth.extra]
    targets = encoder.embed(texts)
    extra_targets = encoder.embed(extra_texts)
    coverage = {"sentences": coverage_summary(model_token_counts(encoder, texts), len(texts))}
    if extra_texts:
        coverage["fit_only"] = coverage_summary(model_token_counts(encoder, extra_texts), len(extra_texts))
    settings = fit.kwargs()
    t0 = time.perf_counter()
    per, fitted = tre_by_split(
        truth.trees,
        targets,
        seed=seed,
        extra_trees=truth.extra,
        extra_targets=extra_targets,
        device=context.device,
        **settings,
    )
    seconds = time.perf_counter() - t0
    frame = truth.scores.join(per)
    frame["in_fit_path"] = frame["text"].isin({t.sentence for t in truth.extra})
    table = table2({name: frame}, n_boot=n_boot, seed=seed, paper_rows=False)
    overlap = int(((frame["split"] == "heldout") & frame["in_fit_path"]).sum())
    table["fit_overlap_heldout"] = np.where(table["split"] == "heldout", overlap, 0)
    return TREReport(
        name,
        frame,
        fitted,
        np.asarray(targets),
        np.asarray(extra_targets),
        table,
        {**settings, "device": context.device, "seed": seed},
        seconds,
        coverage,
    )


def table2_from(reports: Mapping[str, TREReport], *, paper_rows: bool = True) -> pd.DataFrame:
    """Table 2 of several encoders: their rows, then the paper's encoders not run (printed value only)."""
    rows = [r.table for r in reports.values()]
    if paper_rows:
        rows.append(pd.DataFrame(_paper_rows(list(reports))))
    return pd.concat([r for r in rows if len(r)], ignore_index=True)


def scatter_figure(reports: Mapping[str, TREReport]):
    """TRE against WNS, one panel per encoder, coloured by split, with the held-out rho in each panel."""
    long = pd.concat([r.frame.assign(encoder=name) for name, r in reports.items()]).query("split != 'no target'")
    notes = {
        name: f"held-out rho {row.rho_tre_wns:+.3f}"
        for name, r in reports.items()
        for row in r.table.query("split == 'heldout'").itertuples()
    }
    return plots.scatter_panels(
        long,
        x="wns",
        y="tre",
        panel="encoder",
        hue="split",
        notes=notes,
        title="TRE against Weighted Node Switching",
        xlabel="WNS",
        ylabel="TRE (1 - cos)",
    )


def sweep(
    report: TREReport,
    truth: GroundTruth,
    *,
    steps: Sequence[int] = (),
    lr: Sequence[float] = (),
    init_scale: Sequence[float] = (),
) -> pd.DataFrame:
    """:func:`sensitivity` around ``report``'s fit: one setting at a time (empty lists are skipped).

    Reuses the report's encoder vectors, so no model is called.
    """
    sweeps = {k: list(v) for k, v in (("steps", steps), ("lr", lr), ("init_scale", init_scale)) if len(v)}
    base = {k: v for k, v in report.settings.items() if k != "seed"}
    return sensitivity(
        truth.trees,
        report.targets,
        truth.scores,
        sweeps,
        seed=report.settings.get("seed", 0),
        extra_trees=truth.extra,
        extra_targets=report.extra_targets,
        **base,
    )


def sweep_figure(table: pd.DataFrame, model: str):
    """rho(TRE, WNS) against each swept setting (:func:`sweep`), one line per split."""
    return plots.sweep_lines(
        table,
        x="value",
        y="rho_tre_wns",
        hue="split",
        panel="setting",
        title=f"rho(TRE, WNS) against the fit's settings ({model})",
        ylabel="Spearman rho",
    )


def extreme_trees(truth: GroundTruth, report: TREReport, n: int = 1) -> list[tuple[str, Tree, str]]:
    """The ``n`` trees at each end by WNS and by ``report``'s TRE (held-out sentences with every word seen,
    when there are held-out sentences), as ``(name, tree, title)`` for :func:`mtlib.analysis.plots.tree_drawing`."""
    sc, first = truth.scores, report.frame
    pool = first.loc[report.seen_heldout().index] if report.split == "heldout" else first
    picks = {
        "wns_high": sc["wns"].nlargest(n).index,
        "wns_low": sc["wns"].nsmallest(n).index,
        "tre_high": pool["tre"].nlargest(n).index,
        "tre_low": pool["tre"].nsmallest(n).index,
    }
    return [
        (
            f"tree_{tag}_{k}",
            truth.trees[i],
            f"{tag}: TI {sc.at[i, 'ti']:.2f}, WNS {sc.at[i, 'wns']:.2f}, TRE ({report.model}) {first.at[i, 'tre']:.3f}",
        )
        for tag, index in picks.items()
        for k, i in enumerate(index)
    ]


def table4_examples(truth: GroundTruth, reports: Mapping[str, TREReport], n: int = 4) -> pd.DataFrame:
    """Table 4 style: the ``n`` sentences with the highest and lowest WNS and TI, with each encoder's TRE and split."""
    sc = truth.scores
    ends = [sc[c].nlargest(n).index for c in ("wns", "ti")] + [sc[c].nsmallest(n).index for c in ("wns", "ti")]
    out = sc.loc[ends[0].append(ends[1:]).unique(), ["text", "n_words", "ti", "wns"]]
    for name, r in reports.items():
        out[f"tre {name}"] = r.frame.loc[out.index, "tre"]
        out[f"split {name}"] = r.frame.loc[out.index, "split"]
    return out


def describe(table: pd.DataFrame) -> list[str]:
    """Sentences that state what a Table 2 (from :func:`table2_row` rows with ``encoder``, ``split``) shows.

    The direction is read from the 95% interval: below 0, above 0, or containing 0. A held-out row
    whose sentences are also in ``fit_path`` (column ``fit_overlap_heldout``, :class:`TREReport`)
    is followed by a caution naming how many.
    """
    out = []
    for r in table.itertuples():
        if str(r.encoder).endswith("(paper)"):
            continue
        if not np.isfinite(r.rho_tre_wns):
            out.append(f"{r.encoder} ({r.split}): no correlation (fewer than 3 usable sentences).")
            continue
        where = (
            "negative (the interval lies below 0: in the paper's reading, compositional)"
            if r.ci_high < 0
            else "positive (the interval lies above 0)"
            if r.ci_low > 0
            else "not distinguishable from 0"
        )
        paper = f"; the paper reports {r.paper:+.3f}" if np.isfinite(r.paper) else ""
        out.append(
            f"{r.encoder} ({r.split}, n={int(r.n)}): ρ(TRE, WNS) = {r.rho_tre_wns:+.3f} "
            f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}], {where}; controlling for length "
            f"{r.partial_rho_length:+.3f}; ρ(TRE, TI) = {r.rho_tre_ti:+.3f}{paper}."
        )
        overlap = getattr(r, "fit_overlap_heldout", 0)
        if r.split == "heldout" and pd.notna(overlap) and overlap > 0:
            out.append(f"{r.encoder}: {_overlap_note(int(overlap))}")
    return out
