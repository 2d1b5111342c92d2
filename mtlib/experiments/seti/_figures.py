"""SETI's figures: Figure 1 (accuracy per setting, CG against ID) and Figure 2 (few-shot curves).

Intuition: Figure 1 shows, per setting, whether a model beats its majority
baseline in the controlled split as it does in distribution; Figure 2 shows
how many D_few shots it takes to recover the missing composition rules.
matplotlib is imported when a figure is drawn.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtlib.experiments.seti._facts import FEWSHOT_SETTINGS, MISSING_RULES, SETTINGS


def figure1(scores: pd.DataFrame):
    """Figure 1: per setting, accuracy of every model in both configurations, one symbol per seed.

    The dotted line is the majority-class baseline (mean over seeds) of each configuration.
    """
    import matplotlib.pyplot as plt

    settings = [s for s in SETTINGS if ((scores["task"] == s[0]) & (scores["setting"] == s[1])).any()]
    models = list(dict.fromkeys(scores["model"]))
    fig, axes = plt.subplots(1, len(settings), figsize=(2.3 * len(settings) + 1, 3.6), sharey=True, squeeze=False)
    markers, colors = {"cg": "o", "id": "s"}, {"cg": "#C44E52", "id": "#4C72B0"}
    for ax, (task, setting) in zip(axes[0], settings):
        part = scores[(scores["task"] == task) & (scores["setting"] == setting)]
        for config, shift in (("cg", -0.15), ("id", 0.15)):
            sub = part[part["config"] == config]
            x = np.array([models.index(m) for m in sub["model"]], dtype=float) + shift
            jitter = (sub["seed"].rank(method="first").to_numpy() - 1) * 0.03 if len(sub) else 0
            ax.scatter(
                x + jitter,
                sub["accuracy"],
                marker=markers[config],
                color=colors[config],
                s=22,
                alpha=0.8,
                label={"cg": "Compositional Generalization", "id": "In-Distribution"}[config],
            )
            for m, base in sub.groupby("model")["baseline"].mean().items():
                i = models.index(m) + shift
                ax.hlines(base, i - 0.12, i + 0.12, colors=colors[config], linestyles=":", lw=1.2)
        ax.set_xticks(range(len(models)), models, rotation=40, ha="right", fontsize=8)
        ax.set_xlim(-0.6, len(models) - 0.4)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"Task {task}\n{setting}", fontsize=9)
    axes[0][0].set_ylabel("test accuracy (dotted: majority baseline)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles[:2], labels[:2], loc="lower center", ncol=2, bbox_to_anchor=(0.5, -0.08), fontsize=8)
    fig.tight_layout()
    return fig


def figure2(fewshot: pd.DataFrame):
    """Figure 2: few-shot accuracy against the number of shots (log scale; 0 drawn at the left edge),
    one line per model, mean over seeds with the min-max band."""
    import matplotlib.pyplot as plt

    settings = [
        s
        for s in FEWSHOT_SETTINGS + ((3, "non-trivial-R_ver"),)
        if ((fewshot["task"] == s[0]) & (fewshot["setting"] == s[1])).any()
    ]
    fig, axes = plt.subplots(1, len(settings), figsize=(3.6 * len(settings), 3.4), sharey=True, squeeze=False)
    for ax, (task, setting) in zip(axes[0], settings):
        part = fewshot[(fewshot["task"] == task) & (fewshot["setting"] == setting)]
        for model, sub in part.groupby("model", sort=False):
            agg = sub.groupby("shots")["accuracy"].agg(["mean", "min", "max"])
            x = np.maximum(agg.index.to_numpy(dtype=float), 0.5)  # 0 shots drawn at 0.5 on the log axis
            ax.plot(x, agg["mean"], marker="o", ms=3, label=model)
            ax.fill_between(x, agg["min"], agg["max"], alpha=0.2)
        ax.axhline(part["baseline"].mean(), color="0.4", ls=":", lw=1, label="majority baseline")
        k = MISSING_RULES.get((task, setting))
        if k:
            ax.axvline(k, color="0.6", ls="--", lw=0.8)
        ax.set_xscale("log", base=2)
        ticks = sorted(set(np.maximum(part["shots"].unique().astype(float), 0.5)))
        ax.set_xticks(ticks, ["0" if t == 0.5 else str(int(t)) for t in ticks], fontsize=7)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("shots in D_few (log scale)")
        ax.set_title(f"Task {task} {setting}" + (f"\n(dashed: {k} missing rule types)" if k else ""), fontsize=9)
    axes[0][0].set_ylabel("test accuracy")
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig
