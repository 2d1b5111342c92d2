"""PSS figures: PSS against test accuracy with iso-lines of relative PSS, and Table 1 as bars.

Intuition: settings on one dashed line share a relative PSS, so a point above
another's line notices flips better for its accuracy. matplotlib and seaborn
are imported when a figure is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mtlib.analysis import plots
from mtlib.experiments.pss._tables import paper_table1


def pss_vs_accuracy(
    ours: pd.DataFrame,
    *,
    with_paper: bool = True,
    relatives: Sequence[float] = (0.6, 0.7, 0.8, 0.9, 1.0),
    title: str = "",
):
    """PSS against test accuracy, one point per setting, with iso-lines of relative PSS.

    Points on one dashed line share a relative PSS (PSS = r x accuracy);
    ours are filled, the paper's hollow; error bars are the 95% intervals.

    Returns:
        A matplotlib ``Figure``.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, ax = plt.subplots(figsize=(7.2, 5.4))
    frames = [ours.assign(source="ours")] + ([paper_table1()] if with_paper else [])
    both = pd.concat(frames)
    lo_x = float(np.nanmin(both["accuracy"])) if len(both) else 0.5
    xs = np.linspace(min(0.45, lo_x - 0.05), 1.0, 50)
    for r in relatives:
        ax.plot(xs, r * xs, ls="--", lw=0.8, color="0.6", zorder=0)
        ax.annotate(
            f"relative {r:.0%}", (xs[0] + 0.005, r * (xs[0] + 0.005)), fontsize=7, color="0.4", ha="left", va="bottom"
        )
    encoders = list(dict.fromkeys(both["encoder"]))
    colors = dict(zip(encoders, sns.color_palette("colorblind", n_colors=max(1, len(encoders)))))
    markers = {"FB": "o", "FT": "^", "native": "s"}
    for r in ours.itertuples():
        xerr = [[r.accuracy - r.accuracy_low], [r.accuracy_high - r.accuracy]]
        yerr = [[r.pss - r.pss_low], [r.pss_high - r.pss]]
        if np.isfinite(r.pss) and np.isfinite(r.pss_low):
            ax.errorbar(
                r.accuracy,
                r.pss,
                xerr=np.clip(xerr, 0, None),
                yerr=np.clip(yerr, 0, None),
                fmt="none",
                ecolor=colors[r.encoder],
                alpha=0.5,
                lw=1,
            )
        ax.scatter(
            r.accuracy,
            r.pss,
            color=colors[r.encoder],
            marker=markers.get(r.mode, "o"),
            s=55,
            edgecolor="black",
            lw=0.6,
            zorder=3,
        )
        ax.annotate(
            f"{r.encoder} {r.final_layers} {r.mode}",
            (r.accuracy, r.pss),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize=6.5,
        )
    if with_paper:
        for r in paper_table1().itertuples():
            ax.scatter(
                r.accuracy,
                r.pss,
                facecolor="none",
                edgecolor=colors[r.encoder],
                marker=markers.get(r.mode, "o"),
                s=55,
                lw=1.2,
                zorder=2,
            )
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colors[e], marker="o", ls="", label=e) for e in encoders]
    handles += [
        Line2D([], [], color="0.3", marker=m, ls="", label=k, markerfacecolor="0.7")
        for k, m in markers.items()
        if k in set(both["mode"])
    ]
    if with_paper:
        handles.append(
            Line2D([], [], color="0.3", marker="o", ls="", markerfacecolor="none", label="hollow: paper, Table 1")
        )
    ax.legend(handles=handles, fontsize=7, loc="lower right", frameon=True)
    ax.set_xlabel("test accuracy (dev + test sentences; 95% Wilson)")
    ax.set_ylabel("PSS (share of pairs with both sides right; 95% bootstrap)")
    ax.set_xlim(xs[0], 1.01)
    ax.set_ylim(0, 1.0)
    ax.set_title(title or "PSS against test accuracy")
    fig.tight_layout()
    return fig


def table1_bars(ours: pd.DataFrame, *, with_paper: bool = True):
    """Table 1 as horizontal bars: PSS per setting with its 95% interval, ours and the paper's.

    Returns:
        A matplotlib ``Figure``.
    """

    bars = pd.concat([ours] + ([paper_table1()] if with_paper else [])).reset_index()
    bars["label"] = bars["encoder"] + " · " + bars["final_layers"] + " · " + bars["mode"]
    bars = bars.rename(columns={"pss_low": "ci_low", "pss_high": "ci_high"})
    bars = bars.fillna({"ci_low": bars["pss"], "ci_high": bars["pss"]})
    return plots.rate_bars(
        bars,
        label="label",
        rate="pss",
        hue="source",
        xlabel="PSS (95% bootstrap interval)",
        title="Table 1 as bars: PSS per setting",
        xlim=(0, 1),
    )
