"""What notebook 05 records: per-model and run-level reports of Table 1, and conclusions read off them.

Intuition: :func:`polarity_sensitivity` trains and scores every setting, then
:func:`report_from` tabulates; a :class:`ModelReport` gives one encoder's
metrics in the run's key scheme, :class:`PSSReport` the tables, figures and
sentences of the whole run (nothing asserted in advance).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from mtlib.experiments.pss._figures import pss_vs_accuracy, table1_bars
from mtlib.experiments.pss._tables import (
    by_direction,
    direction_tests,
    hardest_flips,
    paired_tests,
    table1,
    table1_layout,
)
from mtlib.experiments.pss._training import OOV_PARTS, Outcome, Setting, run_settings
from mtlib.models.inference.oov import coverage_metrics, coverage_note
from mtlib.relations.errors import check_count, refuse


@dataclass
class ModelReport:
    """One encoder's (or native model's) settings of :func:`polarity_sensitivity`.

    Metric keys (no model prefix; ``<group>`` is :attr:`Setting.group`, ``linear/FB`` or ``native``):
    ``pss/<group>``, ``accuracy/<group>``, ``relative_pss/<group>``,
    ``majority_baseline/<group>``, ``pss_ci/<group>``, ``accuracy_ci/<group>``
    (seed means and 95% intervals), ``pss/<group>/seed<k>`` and
    ``accuracy/<group>/seed<k>``, ``pss_direction/<group>/<direction>``,
    ``mcnemar_p/<comparison>/<group>/seed<k>`` and ``train_seconds``; for an encoder with frozen-feature
    (FB) settings, per part (``train``, ``test``, ``pairs``: :data:`~mtlib.experiments.pss._training.OOV_PARTS`)
    ``oov/skipped/<part>`` (texts with no vector: skipped in training, the majority class when scored),
    ``oov/partial/<part>`` (texts with some unknown words) and ``oov/token_coverage/<part>`` (the share of
    tokens with a vector; 1.0 for a model without vocabulary).
    """

    model: str
    outcomes: list[Outcome]
    table: pd.DataFrame
    tests: pd.DataFrame
    directions: pd.DataFrame

    @property
    def headline(self) -> list[str]:
        return list(dict.fromkeys(f"pss/{o.setting.group}" for o in self.outcomes))

    def metrics(self) -> dict[str, Any]:
        groups = {o.setting.key: o.setting.group for o in self.outcomes}
        out: dict[str, Any] = {}
        for key, r in self.table.iterrows():
            g = groups[key]
            out.update(
                {
                    f"pss/{g}": r["pss"],
                    f"accuracy/{g}": r["accuracy"],
                    f"relative_pss/{g}": r["relative"],
                    f"majority_baseline/{g}": r["majority_baseline"],
                    f"pss_ci/{g}": [r["pss_low"], r["pss_high"]],
                    f"accuracy_ci/{g}": [r["accuracy_low"], r["accuracy_high"]],
                }
            )
        for o in self.outcomes:
            if o.seed is not None:
                out[f"pss/{o.setting.group}/seed{o.seed}"] = o.pss
                out[f"accuracy/{o.setting.group}/seed{o.seed}"] = o.accuracy
        out.update({f"pss_direction/{groups[r.setting]}/{r.direction}": r.pss for r in self.directions.itertuples()})
        out.update(
            {
                f"mcnemar_p/{r.comparison.replace(' ', '_')}/{groups[r.a]}/seed{r.seed}": r.p_value
                for r in self.tests.itertuples()
            }
        )
        for part, summary in self.coverage.items():
            out.update(coverage_metrics(summary, part))
        out["train_seconds"] = float(sum(o.info.get("seconds", 0.0) for o in self.outcomes))
        return out

    @property
    def coverage(self) -> dict[str, dict[str, Any]]:
        """Per part, the encoder's coverage (:func:`mtlib.experiments.pss.coverage`); empty without FB settings."""
        return next((o.info["oov"] for o in self.outcomes if "oov" in o.info), {})

    def coverage_notes(self) -> list[str]:
        """One sentence per part: texts without a vector, what happened to them, and the coverage rate."""
        return [
            coverage_note(self.model, summary, *OOV_PARTS.get(part, (part, "skipped")))
            for part, summary in self.coverage.items()
        ]


@dataclass
class PSSReport:
    """Everything :func:`polarity_sensitivity` measured, across models.

    Attributes:
        outcomes: One :class:`Outcome` per setting and seed.
        table: :func:`table1` (ours; fractions, intervals, seed spread).
        tests: :func:`paired_tests` (McNemar, FB vs FT and Linear vs DNN).
        directions: :func:`by_direction` (Appendix C).
        direction_tests: :func:`direction_tests` (Fisher).
        hardest: :func:`hardest_flips`.
        models: Per encoder (then native model), its :class:`ModelReport`; the
            first is the primary model.
    """

    outcomes: list[Outcome]
    table: pd.DataFrame
    tests: pd.DataFrame
    directions: pd.DataFrame
    direction_tests: pd.DataFrame
    hardest: pd.DataFrame
    models: dict[str, ModelReport]
    headline: tuple[str, ...] = ()

    @property
    def primary(self) -> str | None:
        """The first model (its values also go under plain keys)."""
        return next(iter(self.models), None)

    @property
    def layout(self) -> pd.DataFrame:
        """Table 1 in the paper's layout, the paper's rows below ours (:func:`table1_layout`)."""
        return table1_layout(self.table)

    @property
    def direction_table(self) -> pd.DataFrame:
        """PSS per setting (rows) and direction (columns), with the number of pairs."""
        d = self.directions
        return d.pivot(index="setting", columns="direction", values="pss").join(
            d.groupby("setting")["n_pairs"].sum().rename("pairs")
        )

    def coverage_notes(self) -> list[str]:
        """What each frozen encoder had no vector for, part by part (:meth:`ModelReport.coverage_notes`)."""
        return [line for part in self.models.values() for line in part.coverage_notes()]

    def metrics(self) -> dict[str, Any]:
        """Run-level counts: ``n_settings`` and ``n_runs`` (settings x seeds, native models once)."""
        return {"n_settings": len({o.setting for o in self.outcomes}), "n_runs": len(self.outcomes)}

    def tables(self) -> dict[str, pd.DataFrame]:
        return {
            "table1_pss": self.table,
            "table1_pss_paper_layout": self.layout,
            "paired_tests_mcnemar": self.tests,
            "pss_by_direction": self.directions,
            "direction_tests_fisher": self.direction_tests,
            "hardest_flips": self.hardest,
        }

    def conclusions(self, alpha: float = 0.05) -> list[str]:
        """Sentences read off this run's tables (:func:`conclusions`)."""
        return conclusions(self.table, self.tests, self.direction_tests, alpha=alpha)

    def figures(self) -> dict[str, Any]:
        """``pss_vs_accuracy`` (:func:`pss_vs_accuracy`) and ``table1_pss_bars`` (:func:`table1_bars`)."""
        return {
            "pss_vs_accuracy": pss_vs_accuracy(
                self.table, title="PSS against test accuracy (ours filled, paper hollow)"
            ),
            "table1_pss_bars": table1_bars(self.table),
        }


def _check_counts(where: str, n_boot: Any, seed: Any, n_hardest: Any) -> None:
    check_count(n_boot, where, "n_boot", minimum=1)
    check_count(seed, where, "seed")
    check_count(n_hardest, where, "n_hardest")


def polarity_sensitivity(
    grid: Sequence[Setting],
    train: pd.DataFrame,
    test: pd.DataFrame,
    pairs: pd.DataFrame,
    *,
    seeds: Sequence[int],
    n_boot: int,
    seed: int,
    n_hardest: int,
    **kwargs: Any,
) -> PSSReport:
    """Table 1 and its tests: train and score every setting (:func:`run_settings`), then tabulate.

    Args:
        grid: Settings from :func:`settings_grid` (encoders first, then native models).
        train, test, pairs: As for :func:`run_settings`.
        seeds: Training seeds.
        n_boot: Bootstrap replicates of the intervals.
        seed: Seeds the bootstraps.
        n_hardest: Rows of the hardest-flips table.
        **kwargs: Passed to :func:`run_settings`: ``context``, ``head_settings``, ``finetune_settings``
            (required), ``finetune_train``, ``classifier``, ``log``.

    Raises:
        MtlibInputError: a wrong argument (:func:`run_settings`, :func:`report_from`), before any training.
    """
    _check_counts("polarity_sensitivity", n_boot, seed, n_hardest)
    outcomes = run_settings(grid, train, test, pairs, seeds=seeds, **kwargs)
    return report_from(outcomes, n_boot=n_boot, seed=seed, n_hardest=n_hardest)


def report_from(outcomes: Sequence[Outcome], *, n_boot: int, seed: int, n_hardest: int) -> PSSReport:
    """The :class:`PSSReport` of scored outcomes: Table 1, the tests, and one :class:`ModelReport` per encoder.

    Raises:
        MtlibInputError: ``outcomes`` not a list of :class:`Outcome`, ``n_boot`` < 1, ``seed`` or ``n_hardest`` < 0.
    """
    _check_counts("report_from", n_boot, seed, n_hardest)
    if isinstance(outcomes, (str, Outcome)) or not isinstance(outcomes, Iterable):
        raise refuse("report_from", "outcomes", "a list of Outcome (run_settings)", outcomes)
    outcomes = list(outcomes)
    for i, o in enumerate(outcomes):
        if not isinstance(o, Outcome):
            raise refuse("report_from", f"outcomes[{i}]", "an Outcome (run_settings)", o)
    table = table1(outcomes, n_boot=n_boot, seed=seed)
    tests = paired_tests(outcomes)
    directions = by_direction(outcomes, n_boot=n_boot, seed=seed)
    models: dict[str, ModelReport] = {}
    for name in dict.fromkeys(o.setting.encoder for o in outcomes):
        outs = [o for o in outcomes if o.setting.encoder == name]
        keys = {o.setting.key for o in outs}
        models[name] = ModelReport(
            name,
            outs,
            table[table.index.isin(keys)],
            tests[tests["encoder"] == name],
            directions[directions["setting"].isin(keys)],
        )
    return PSSReport(
        outcomes, table, tests, directions, direction_tests(outcomes), hardest_flips(outcomes, k=n_hardest), models
    )


def conclusions(
    table: pd.DataFrame, tests: pd.DataFrame, directions: pd.DataFrame, *, alpha: float = 0.05
) -> list[str]:
    """Sentences read off this run's tables (nothing asserted in advance).

    Args:
        table: :func:`table1` (ours).
        tests: :func:`paired_tests`.
        directions: :func:`direction_tests`.
    """
    lines = []
    scored = table[np.isfinite(table["pss"])]
    if scored.empty:
        return ["No setting has a PSS (no pairs survived cleaning, or nothing was scored)."]
    best = scored["pss"].idxmax()
    b = scored.loc[best]
    lines.append(
        f"Highest PSS: {best} with {b['pss']:.3f} [{b['pss_low']:.3f}, {b['pss_high']:.3f}] at test accuracy "
        f"{b['accuracy']:.3f} (majority baseline {b['majority_baseline']:.3f}); relative PSS "
        f"{b['relative']:.3f}."
    )
    best_rel = scored["relative"].idxmax()
    lines.append(
        f"Highest relative PSS: {best_rel} ({scored.loc[best_rel, 'relative']:.3f}); lowest: "
        f"{scored['relative'].idxmin()} ({scored['relative'].min():.3f})."
    )
    for name in ("FB vs FT", "Linear vs DNN"):
        part = tests[tests["comparison"] == name]
        if part.empty:
            lines.append(f"{name}: no pair of settings to compare in this run.")
            continue
        for (a, b_), g in part.groupby(["a", "b"], sort=False):
            sig = int((g["p_value"] < alpha).sum())
            d = g["difference"].mean()
            higher = "the first is higher" if d > 0 else "the second is higher" if d < 0 else "equal"
            lines.append(
                f"{name}, {a} vs {b_}: mean PSS difference {d:+.3f} ({higher}); "
                f"McNemar p < {alpha} in {sig} of {len(g)} seed(s) "
                f"(p = {', '.join(f'{p:.3g}' for p in g['p_value'])})."
            )
    if not directions.empty:
        sig = int((directions["p_value"] < alpha).sum())
        gap = (directions["pss_neg_to_pos"] - directions["pss_pos_to_neg"]).mean()
        lines.append(
            f"Direction of the switch (Appendix C): PSS(neg->pos) - PSS(pos->neg) averages {gap:+.3f} over "
            f"{len(directions)} runs; Fisher's exact test p < {alpha} in {sig} of them."
        )
    return lines
