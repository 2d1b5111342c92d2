"""Table 1 and its companions from scored outcomes: seed means with intervals, directions, paired tests.

Intuition: every table here is read off the per-pair and per-sentence
outcomes of :func:`mtlib.experiments.pss._training.run_settings`: Table 1
(means over seeds, Wilson and bootstrap intervals), the paper's Table 1 as
fractions, PSS per direction of the switch (Appendix C) with Fisher's test,
McNemar tests of FB vs FT and Linear vs DNN, and the hardest flips.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sstats

from mtlib.analysis import stats
from mtlib.data.papers import BHATHENA_TABLE1
from mtlib.data.yelp import DIRECTIONS
from mtlib.experiments.pss._scoring import accuracy_interval, bootstrap_mean, mcnemar, pss_interval, relative_pss
from mtlib.experiments.pss._training import FINAL_LAYERS, Outcome, Setting


def _groups(outcomes: Iterable[Outcome]) -> dict[Setting, list[Outcome]]:
    groups: dict[Setting, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(o.setting, []).append(o)
    return groups


def table1(outcomes: Sequence[Outcome], *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 1 in the paper's layout, one row per setting, means over seeds with spread and intervals.

    Intervals: accuracy by Wilson on the test sentences (the seed-mean count
    over the real ``n``); PSS by a bootstrap over pairs of the per-pair
    seed-mean outcome; relative PSS by the same pair bootstrap divided by an
    independent bootstrap of the test sentences.

    Returns:
        Columns ``encoder, final_layers, mode, seeds, accuracy, accuracy_low,
        accuracy_high, accuracy_sd, majority_baseline, pss, pss_low, pss_high,
        pss_sd, relative, relative_low, relative_high, n_pairs, n_test, source``
        (``source`` = ``"ours"``), index ``<encoder>/<head>/<mode>``.
    """
    rows = []
    for setting, outs in _groups(outcomes).items():
        accs = np.array([o.accuracy for o in outs])
        psss = np.array([o.pss for o in outs])
        per_pair = np.mean([o.table["both_right"].to_numpy(float) for o in outs], axis=0)
        per_test = np.mean([o.test_correct.astype(float) for o in outs], axis=0)
        n_test, n_pairs = len(per_test), len(per_pair)
        acc_lo, acc_hi = accuracy_interval(per_test.sum(), n_test)
        boot_p = bootstrap_mean(per_pair, n_boot=n_boot, seed=seed)
        boot_a = bootstrap_mean(per_test, n_boot=n_boot, seed=seed + 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rel_lo, rel_hi = stats.percentile_interval(boot_p / boot_a)
        p_lo, p_hi = stats.percentile_interval(boot_p)
        acc = float(per_test.mean()) if n_test else float("nan")
        pval = float(per_pair.mean()) if n_pairs else float("nan")
        rows.append(
            {
                "setting": setting.key,
                "encoder": setting.encoder,
                "final_layers": FINAL_LAYERS[setting.head],
                "mode": setting.mode,
                "seeds": len(outs),
                "accuracy": acc,
                "accuracy_low": acc_lo,
                "accuracy_high": acc_hi,
                "accuracy_sd": float(accs.std(ddof=1)) if len(outs) > 1 else np.nan,
                "majority_baseline": outs[0].majority_baseline,
                "pss": pval,
                "pss_low": p_lo,
                "pss_high": p_hi,
                "pss_sd": float(psss.std(ddof=1)) if len(outs) > 1 else np.nan,
                "relative": relative_pss(pval, acc),
                "relative_low": rel_lo,
                "relative_high": rel_hi,
                "n_pairs": n_pairs,
                "n_test": n_test,
                "source": "ours",
            }
        )
    return pd.DataFrame(rows).set_index("setting")


def paper_table1() -> pd.DataFrame:
    """The paper's Table 1 (:data:`mtlib.data.papers.BHATHENA_TABLE1`) as fractions, in :func:`table1`'s columns."""
    rows = [
        {
            "setting": f"paper:{e}/{h}/{m}",
            "encoder": e,
            "final_layers": h,
            "mode": m,
            "accuracy": a / 100,
            "pss": p / 100,
            "relative": r / 100,
            "source": "paper (Table 1)",
        }
        for e, h, m, a, p, r in BHATHENA_TABLE1
    ]
    return pd.DataFrame(rows).set_index("setting")


def table1_layout(ours: pd.DataFrame, *, with_paper: bool = True) -> pd.DataFrame:
    """Ours (and the paper's rows) in percent, ``mean ± sd [low, high]``, in the paper's column order."""
    both = pd.concat([ours] + ([paper_table1()] if with_paper else []))

    def cell(r: dict, col: str, interval: bool = True) -> str:
        v = r.get(col)
        if v is None or not np.isfinite(v):
            return ""
        s = f"{100 * v:.1f}"
        sd = r.get(f"{col}_sd")
        if sd is not None and np.isfinite(sd):
            s += f" ± {100 * sd:.1f}"
        lo, hi = r.get(f"{col}_low"), r.get(f"{col}_high")
        if interval and lo is not None and hi is not None and np.isfinite(lo):
            s += f" [{100 * lo:.1f}, {100 * hi:.1f}]"
        return s

    rows = []
    for key, r in both.iterrows():
        r = {k: (float(v) if isinstance(v, (int, float, np.number)) else v) for k, v in r.items() if pd.notna(v)}
        rows.append(
            {
                "setting": key,
                "Encoder": r["encoder"],
                "Final Layers": r["final_layers"],
                "Finetune mode": r["mode"],
                "Test Accuracy": cell(r, "accuracy"),
                "Majority baseline": cell(r, "majority_baseline"),
                "PSS": cell(r, "pss"),
                "Relative": cell(r, "relative"),
                "source": r["source"],
            }
        )
    return pd.DataFrame(rows).set_index("setting")


def by_direction(outcomes: Sequence[Outcome], *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Appendix C: PSS per direction of the switch (neg->pos vs pos->neg), per setting, seed-mean.

    Returns:
        Columns ``setting, direction, n_pairs, pss, pss_low, pss_high,
        source_right, rewrite_right`` (the last two: share of each side right).
    """
    rows = []
    for setting, outs in _groups(outcomes).items():
        direction = outs[0].table["direction"].to_numpy()
        for d in DIRECTIONS:
            mask = direction == d
            if not mask.any():
                continue
            both = np.mean([o.table["both_right"].to_numpy(float)[mask] for o in outs], axis=0)
            lo, hi = pss_interval(both, n_boot=n_boot, seed=seed)
            rows.append(
                {
                    "setting": setting.key,
                    "direction": d,
                    "n_pairs": int(mask.sum()),
                    "pss": float(both.mean()),
                    "pss_low": lo,
                    "pss_high": hi,
                    "source_right": float(np.mean([o.table["source_right"].to_numpy()[mask] for o in outs])),
                    "rewrite_right": float(np.mean([o.table["rewrite_right"].to_numpy()[mask] for o in outs])),
                }
            )
    return pd.DataFrame(
        rows, columns=["setting", "direction", "n_pairs", "pss", "pss_low", "pss_high", "source_right", "rewrite_right"]
    )


def direction_tests(outcomes: Sequence[Outcome]) -> pd.DataFrame:
    """Does PSS differ between the two directions? Fisher's exact test per setting and seed.

    The two directions hold different pairs, so the test is for independent
    samples (not McNemar).
    """
    rows = []
    for o in outcomes:
        t = o.table
        counts = [
            [
                int(t.loc[t["direction"] == d, "both_right"].sum()),
                int((~t.loc[t["direction"] == d, "both_right"]).sum()),
            ]
            for d in DIRECTIONS
        ]
        if min(sum(c) for c in counts) == 0:
            continue
        p = float(sstats.fisher_exact(counts).pvalue)
        rows.append(
            {
                "setting": o.setting.key,
                "seed": o.seed,
                "pss_neg_to_pos": counts[0][0] / sum(counts[0]),
                "pss_pos_to_neg": counts[1][0] / sum(counts[1]),
                "test": "Fisher exact (directions are different pairs)",
                "p_value": p,
            }
        )
    return pd.DataFrame(rows, columns=["setting", "seed", "pss_neg_to_pos", "pss_pos_to_neg", "test", "p_value"])


def paired_tests(outcomes: Sequence[Outcome]) -> pd.DataFrame:
    """FB vs FT (same encoder and head) and Linear vs DNN (same encoder and mode), McNemar per seed.

    Both settings of a comparison are scored on the same pairs; seed ``s`` of
    one is paired with seed ``s`` of the other.

    Returns:
        Columns ``comparison, encoder, held_fixed, seed, a, b, pss_a, pss_b,
        a_only, b_only, difference, test, p_value``.
    """
    by_key = {(o.setting, o.seed): o for o in outcomes}
    rows = []
    for (setting, seed), a in by_key.items():
        s = setting
        pairs = []
        if s.mode == "FB":
            pairs.append(("FB vs FT", Setting(s.encoder, s.head, "FT"), FINAL_LAYERS[s.head]))
        if s.head == "linear" and s.mode in ("FB", "FT"):
            pairs.append(("Linear vs DNN", Setting(s.encoder, "mlp", s.mode), s.mode))
        for name, other, fixed in pairs:
            b = by_key.get((other, seed))
            if b is None:
                continue
            t = mcnemar(a.table["both_right"].to_numpy(), b.table["both_right"].to_numpy())
            rows.append(
                {
                    "comparison": name,
                    "encoder": s.encoder,
                    "held_fixed": fixed,
                    "seed": seed,
                    "a": s.key,
                    "b": other.key,
                    "pss_a": a.pss,
                    "pss_b": b.pss,
                    "a_only": t["a_only"],
                    "b_only": t["b_only"],
                    "difference": t["difference"],
                    "test": t["test"],
                    "p_value": t["p_value"],
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "comparison",
            "encoder",
            "held_fixed",
            "seed",
            "a",
            "b",
            "pss_a",
            "pss_b",
            "a_only",
            "b_only",
            "difference",
            "test",
            "p_value",
        ],
    )


def hardest_flips(outcomes: Sequence[Outcome], k: int = 10) -> pd.DataFrame:
    """Like the paper's Table 3: the flips most model runs get wrong.

    Returns:
        The ``k`` pairs with most runs failing (not both sides right):
        ``source, rewrite, direction, wrong, runs, source_wrong, rewrite_wrong``
        (the last two: runs that got that side wrong), ties kept in file order.
    """
    if not outcomes:
        return pd.DataFrame(
            columns=["source", "rewrite", "direction", "wrong", "runs", "source_wrong", "rewrite_wrong"]
        )
    base = outcomes[0].table
    wrong = np.sum([~o.table["both_right"].to_numpy() for o in outcomes], axis=0)
    src_wrong = np.sum([~o.table["source_right"].to_numpy() for o in outcomes], axis=0)
    rew_wrong = np.sum([~o.table["rewrite_right"].to_numpy() for o in outcomes], axis=0)
    out = pd.DataFrame(
        {
            "source": base.get("source"),
            "rewrite": base.get("rewrite"),
            "direction": base["direction"],
            "wrong": wrong,
            "runs": len(outcomes),
            "source_wrong": src_wrong,
            "rewrite_wrong": rew_wrong,
        },
        index=base.index,
    )
    return out.sort_values("wrong", ascending=False, kind="stable").head(k)
