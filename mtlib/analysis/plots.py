"""One figure style for every notebook, and the plots used more than once.

Call :func:`use_style` once per notebook; every helper returns a matplotlib
``Figure`` (to save through :meth:`mtlib.run.results.Run.save_figure`) and never
calls ``plt.show()``, so notebooks work the same in JupyterLab and papermill.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from mtlib.relations.notation import plain_text as plain  # mathtext -> plain text, shared with the diagrams

matplotlib.rcParams.setdefault("figure.max_open_warning", 0)

PALETTE = "colorblind"


def use_style() -> None:
    """Seaborn's whitegrid theme, colour-blind palette, compact fonts."""
    import seaborn as sns

    sns.set_theme(context="notebook", style="whitegrid", palette=PALETTE, font_scale=0.9)
    plt.rcParams.update({"figure.dpi": 100, "savefig.dpi": 150, "axes.titleweight": "bold", "figure.autolayout": False})


def rate_bars(
    df: pd.DataFrame,
    *,
    label: str,
    rate: str = "rate",
    lo: str = "ci_low",
    hi: str = "ci_high",
    hue: str | None = None,
    title: str = "",
    xlabel: str = "violation rate",
    reference: float | None = None,
    reference_label: str = "",
    xlim: tuple[float, float] | None = None,
) -> plt.Figure:
    """Horizontal bars of rates with 95% interval whiskers, one bar per row.

    Args:
        df: One row per bar, with columns ``label``, ``rate``, ``lo``, ``hi``
            (and ``hue`` to colour groups).
        reference: Draw a vertical line here (e.g. 0.5 for chance).
        xlim: Fix the rate axis, e.g. ``(0, 1)``.
    """
    import seaborn as sns

    df = df.reset_index(drop=True)
    height = max(2.2, 0.38 * len(df) + 1.0)
    fig, ax = plt.subplots(figsize=(7.0, height))
    colors = sns.color_palette(PALETTE, n_colors=max(1, df[hue].nunique() if hue else 1))
    if hue:
        levels = list(dict.fromkeys(df[hue]))
        color_of = {lev: colors[i] for i, lev in enumerate(levels)}
        bar_colors = [color_of[v] for v in df[hue]]
    else:
        bar_colors = [colors[0]] * len(df)
    y = np.arange(len(df))
    err = np.vstack([df[rate] - df[lo], df[hi] - df[rate]]).clip(min=0)
    ax.barh(y, df[rate], xerr=err, color=bar_colors, capsize=3, ecolor="0.25")
    ax.set_yticks(y, [str(v) for v in df[label]])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    if reference is not None:
        ax.axvline(reference, color="0.3", ls=":", lw=1.2, label=reference_label or None)
    if hue:
        from matplotlib.patches import Patch

        handles = [Patch(color=color_of[lev], label=str(lev)) for lev in levels]
        ax.legend(handles=handles, title=hue, loc="best", frameon=True)
    elif reference is not None and reference_label:
        ax.legend(loc="best")
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def similarity_heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    *,
    title: str = "",
    vmin: float = -1.0,
    vmax: float = 1.0,
    max_label: int = 40,
) -> plt.Figure:
    """Square heatmap of a similarity matrix with (shortened) text labels."""
    import seaborn as sns

    short = [t if len(t) <= max_label else t[: max_label - 1] + "…" for t in labels]
    size = min(10.0, 2.0 + 0.5 * len(labels))
    fig, ax = plt.subplots(figsize=(size + 2.5, size))
    sns.heatmap(
        matrix,
        xticklabels=short,
        yticklabels=short,
        vmin=vmin,
        vmax=vmax,
        cmap="vlag",
        annot=len(labels) <= 12,
        fmt=".2f",
        square=True,
        ax=ax,
        cbar_kws={"shrink": 0.7},
    )
    ax.set_title(title)
    plt.setp(ax.get_xticklabels(), rotation=40, ha="right")
    fig.tight_layout()
    return fig


def table_heatmap(
    table: pd.DataFrame,
    *,
    title: str = "",
    fmt: str = ".3f",
    cmap: str = "rocket_r",
    vmin: float | None = 0.0,
    vmax: float | None = 1.0,
    xlabel: str = "",
    ylabel: str = "",
) -> plt.Figure:
    """Annotated heatmap of a small table (rows x columns of scores)."""
    import seaborn as sns

    fig, ax = plt.subplots(figsize=(1.1 * table.shape[1] + 2.5, 0.55 * table.shape[0] + 1.6))
    sns.heatmap(
        table.astype(float),
        annot=True,
        fmt=fmt,
        cmap=cmap,
        vmin=vmin,
        vmax=vmax,
        ax=ax,
        cbar_kws={"shrink": 0.8},
        linewidths=0.5,
    )
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    fig.tight_layout()
    return fig


def pair_segments(
    items_src: np.ndarray,
    items_flw: np.ndarray,
    pairs: pd.DataFrame,
    *,
    title: str = "",
    xlabel: str = "score of the source x",
    ylabel: str = "score of the follow-up T(x)",
    logit: bool = False,
) -> plt.Figure:
    """The geometry of pairwise systematicity (Manino et al. §4.2, Figure 3).

    Each source is a point (its score, its follow-up's score). A pair keeps
    its order exactly when the segment joining its two points rises; sampled
    pairs are drawn as segments, violated ones (falling or flat) highlighted.
    ``logit=True`` draws probabilities on the logit scale, which spreads the
    crowded ends and, being monotone, changes no rise into a fall.
    """
    if logit:
        from scipy.special import logit as _logit

        def f(x):
            return _logit(np.clip(np.asarray(x, float), 1e-6, 1 - 1e-6))

        items_src, items_flw = f(items_src), f(items_flw)
        pairs = pairs.assign(**{c: f(pairs[c]) for c in ("src_i", "src_j", "flw_i", "flw_j")})
    fig, ax = plt.subplots(figsize=(6.0, 5.4))
    ax.scatter(items_src, items_flw, s=6, color="0.7", zorder=1, label="sources")
    ok = pairs[~pairs["violated"].astype(bool)]
    bad = pairs[pairs["violated"].astype(bool)]
    for frame, color, label, lw in ((ok, "#4C72B0", "order kept", 0.5), (bad, "#C44E52", "order violated", 1.2)):
        for k, r in enumerate(frame.itertuples()):
            ax.plot(
                [r.src_i, r.src_j],
                [r.flw_i, r.flw_j],
                color=color,
                lw=lw,
                alpha=0.55,
                label=f"{label} ({len(frame)})" if k == 0 else None,
                zorder=2 if color != "#4C72B0" else 1.5,
            )
    lims = [min(np.min(items_src), np.min(items_flw)), max(np.max(items_src), np.max(items_flw))]
    ax.plot(lims, lims, ls=":", color="0.4", lw=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def grouped_bars(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    hue: str,
    title: str = "",
    ylabel: str = "",
    ylim: tuple[float, float] | None = (0.0, 1.0),
    order: Sequence[str] | None = None,
) -> plt.Figure:
    """Bars of ``y`` per ``x`` category, one colour per ``hue`` value (e.g. models side by side)."""
    import seaborn as sns

    fig, ax = plt.subplots(figsize=(max(5.5, 0.9 * df[x].nunique() * max(1, df[hue].nunique()) * 0.6 + 2), 3.8))
    sns.barplot(df, x=x, y=y, hue=hue, order=order, ax=ax)
    if ylim:
        ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel or y)
    ax.set_xlabel("")
    ax.set_title(title)
    ax.legend(title=hue, fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def strip_by_group(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    label: str | None = None,
    title: str = "",
    xlabel: str = "",
    order: Sequence[str] | None = None,
    annotate: int = 1,
) -> plt.Figure:
    """One dot per item (e.g. adjective) along ``x``, grouped on the ``y`` axis; extremes labelled.

    ``annotate`` labels that many lowest (below) and highest (above) items of each group.
    """
    import seaborn as sns

    groups = list(order) if order is not None else list(dict.fromkeys(df[y]))
    fig, ax = plt.subplots(figsize=(7.0, 0.75 * len(groups) + 1.4))
    sns.stripplot(df, x=x, y=y, order=groups, hue=y, hue_order=groups, legend=False, size=6, jitter=0.15, ax=ax)
    if label and annotate:
        for gi, g in enumerate(groups):
            part = df[df[y] == g].sort_values(x, kind="stable")
            low, high = part.head(annotate), part.tail(annotate)
            for k, (_, r) in enumerate(low.iterrows()):
                ax.annotate(str(r[label]), (r[x], gi), xytext=(2, -11 - 8 * k), textcoords="offset points", fontsize=7)
            for k, (_, r) in enumerate(high.drop(low.index, errors="ignore").iterrows()):
                ax.annotate(str(r[label]), (r[x], gi), xytext=(2, 6 + 8 * k), textcoords="offset points", fontsize=7)
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel("")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def _setup_column(frame: pd.DataFrame, caller: str) -> pd.DataFrame:
    """``frame`` with its SETI task setup in column ``setup``: a frame that still names it ``setting`` (the old
    name) is renamed, with a DeprecationWarning, for one release."""
    if "setup" not in frame.columns and "setting" in frame.columns:
        warnings.warn(
            f"{caller}: the column 'setting' is renamed 'setup'; frames with the old name are refused in the next "
            "release",
            DeprecationWarning,
            stacklevel=3,
        )
        return frame.rename(columns={"setting": "setup"})
    return frame


def accuracy_panels(
    scores: pd.DataFrame, panels: Sequence[tuple], configs: Sequence[tuple[str, str]], *, ylabel: str = ""
) -> plt.Figure:
    """One panel per ``(task, setup)``: each model's accuracy in each configuration, one symbol per seed, and
    its majority baseline as a bar (SETI's Figure 1, Fu & Frank 2023).

    Args:
        scores: One row per run: ``model``, ``task``, ``setup`` (its old name
            ``setting`` still read, a DeprecationWarning), ``config``, ``seed``, ``accuracy``, ``baseline``.
        panels: The ``(task, setup)`` pairs to draw, in order (those without a run are left out).
        configs: ``(config, legend label)`` pairs, drawn left and right of each model.
        ylabel: The first panel's y label.
    """
    scores = _setup_column(scores, "accuracy_panels")
    present = set(zip(scores["task"], scores["setup"]))
    panels = [p for p in panels if p in present]
    models = list(dict.fromkeys(scores["model"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(2.3 * len(panels) + 1, 3.6), sharey=True, squeeze=False)
    for ax, (task, setup) in zip(axes[0], panels):
        part = scores[(scores["task"] == task) & (scores["setup"] == setup)]
        for (config, label), marker, shift in zip(configs, "osD^", np.linspace(-0.15, 0.15, len(configs))):
            sub = part[part["config"] == config]
            x = sub["model"].map(models.index) + shift + 0.03 * (sub["seed"].rank(method="first") - 1)
            ax.scatter(x, sub["accuracy"], marker=marker, s=22, alpha=0.8, label=label)
            base = sub.groupby("model")["baseline"].mean()
            ax.scatter(base.index.map(models.index) + shift, base, marker="_", s=160, color="0.3")
        ax.set_xticks(range(len(models)), models, rotation=40, ha="right", fontsize=8)
        ax.set(title=f"Task {task}\n{setup}", xlim=(-0.6, len(models) - 0.4), ylim=(-0.02, 1.02))
    axes[0][0].set_ylabel(ylabel)
    axes[0][0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def shot_curves(fewshot: pd.DataFrame, panels: Sequence[tuple], marks: dict | None = None) -> plt.Figure:
    """One panel per ``(task, setup)``: accuracy against the shots (log scale, 0 drawn at 0.5), one line per
    model with its min-max band over seeds, the majority baseline dotted, and ``marks[(task, setup)]`` (e.g. the
    number of missing rule types) dashed (SETI's Figure 2).

    Args:
        fewshot: One row per run and shot budget: ``model``, ``task``, ``setup`` (its old name
            ``setting`` still read, a DeprecationWarning), ``shots``, ``accuracy``, ``baseline``.
        panels: The ``(task, setup)`` pairs to draw, in order (those without a run are left out).
        marks: A vertical line per panel, at that many shots.
    """
    import seaborn as sns

    fewshot = _setup_column(fewshot, "shot_curves")
    present = set(zip(fewshot["task"], fewshot["setup"]))
    panels = [p for p in panels if p in present]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.4), sharey=True, squeeze=False)
    for ax, (task, setup) in zip(axes[0], panels):
        part = fewshot[(fewshot["task"] == task) & (fewshot["setup"] == setup)]
        sns.lineplot(part.assign(x=part["shots"].clip(lower=0.5)), x="x", y="accuracy", hue="model", marker="o",
                     errorbar=("pi", 100), ax=ax)  # fmt: skip
        ax.axhline(part["baseline"].mean(), color="0.4", ls=":", lw=1, label="majority baseline")
        if (marks or {}).get((task, setup)) is not None:
            ax.axvline((marks or {})[task, setup], color="0.6", ls="--", lw=0.8)
        ax.set_xscale("log", base=2)
        ticks = sorted(part["shots"].clip(lower=0.5).unique())
        ax.set_xticks(ticks, ["0" if t == 0.5 else str(int(t)) for t in ticks], fontsize=7)
        ax.set(title=f"Task {task} {setup}", ylim=(-0.02, 1.02), xlabel="shots in D_few (log scale)",
               ylabel="test accuracy")  # fmt: skip
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def describe_figure(fig: plt.Figure, max_chars: int = 300) -> str:
    """A short description of a figure (alt text): its titles and what each panel plots.

    Read from the figure itself: the (super)title, then per panel its title,
    the marks (heatmap, bars, points, lines, areas, or a diagram when
    the axes are off) and the axis labels, with mathtext reduced to plain text.
    Colour-bar panels are skipped. Example: ``"Intersectivity, AAN phrases
    (minilm): heatmap; x: second adjective; y: first adjective."``

    Args:
        fig: A matplotlib ``Figure``.
        max_chars: Longer descriptions are cut at a word boundary with "…".
    """
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection, QuadMesh
    from matplotlib.container import BarContainer, ErrorbarContainer

    panels = []
    for ax in fig.axes:
        if not ax.get_visible() or ax.get_label() == "<colorbar>":
            continue
        marks_drawn = []
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        whiskers = {
            id(seg)
            for c in ax.containers
            for err in [getattr(c, "errorbar", None) or c]
            if isinstance(err, ErrorbarContainer)
            for seg in err.lines[2]
        }
        if ax.images or any(isinstance(c, QuadMesh) for c in ax.collections):
            marks_drawn.append("heatmap")
        if bars:
            marks_drawn.append("bars with error bars" if whiskers else "bars")
        if any(isinstance(c, PathCollection) and len(np.asarray(c.get_offsets())) for c in ax.collections):
            marks_drawn.append("points")
        if any(len(np.asarray(line.get_xdata())) > 2 for line in ax.lines) or any(
            isinstance(c, LineCollection) and id(c) not in whiskers for c in ax.collections
        ):
            marks_drawn.append("lines")
        if any(isinstance(c, PolyCollection) and not isinstance(c, QuadMesh) for c in ax.collections):
            marks_drawn.append("areas")
        if not ax.axison:
            marks_drawn = ["diagram"]
        parts = [" and ".join(marks_drawn) or "empty axes"]
        if ax.axison:
            for axis, label, ticks in (
                ("x", ax.get_xlabel(), ax.get_xticklabels()),
                ("y", ax.get_ylabel(), ax.get_yticklabels()),
            ):
                if label.strip():
                    parts.append(f"{axis}: {plain(label)}")
                    continue
                # an unlabelled categorical axis: name its first categories instead
                cats = [plain(t.get_text()) for t in ticks if re.search(r"[A-Za-z]", t.get_text())]
                if cats:
                    parts.append(f"{axis}: " + ", ".join(cats[:6]) + (", …" if len(cats) > 6 else ""))
        legend = ax.get_legend()
        if legend is not None:
            entries = [plain(t.get_text()) for t in legend.get_texts() if t.get_text().strip()]
            if entries:
                parts.append("legend: " + ", ".join(entries))
        title = plain(ax.get_title())
        panels.append((f"{title}: " if title else "") + "; ".join(parts))
    sup = getattr(fig, "_suptitle", None)
    suptitle = plain(sup.get_text()) if sup else ""
    text = ". ".join(p for p in [suptitle, *panels] if p) + "."
    if len(text) > max_chars:
        text = text[: max_chars - 1].rsplit(" ", 1)[0] + "…"
    return text


SST_COLORS = ["#b2182b", "#ef8a62", "#d9d9d9", "#67a9cf", "#2166ac"]  # labels 0 (very negative) .. 4


def tree_drawing(tree, *, title: str = "", colors: Sequence[str] = SST_COLORS) -> plt.Figure:
    """A labelled parse tree in the style of Bhathena et al. Figure 3: one disc per node coloured by its label.

    Pre-terminals sit on one line above their words (left to right); an inner
    node is centred over its children and drawn one row above the highest of
    them, so the root is at the top.

    Args:
        tree: A :class:`mtlib.data.trees.Tree` with numeric labels (0-4 coloured
            by ``colors``; other numbers are clipped to that range).
        title: Figure title (e.g. the sentence's TI, WNS and TRE).
    """
    from matplotlib.patches import Patch

    pos: dict[int, tuple[float, float]] = {}
    edges: list[tuple[int, int]] = []
    nodes: list = []
    count = [0]

    def place(t) -> tuple[float, float]:
        k = len(nodes)
        nodes.append(t)
        if t.is_leaf:
            pos[k] = (float(count[0]), 1.0)
            count[0] += 1
            return pos[k]
        kids = []
        for c in t.children:
            edges.append((k, len(nodes)))
            kids.append(place(c))
        pos[k] = (sum(x for x, _ in kids) / len(kids), 1.0 + max(y for _, y in kids))
        return pos[k]

    place(tree)
    n_words = count[0]
    top = max(y for _, y in pos.values())
    fig, ax = plt.subplots(figsize=(min(18.0, 1.0 + 0.55 * n_words), min(9.0, 1.2 + 0.45 * top)))
    for a, b in edges:
        ax.plot([pos[a][0], pos[b][0]], [pos[a][1], pos[b][1]], color="0.55", lw=0.8, zorder=1)
    for k, t in enumerate(nodes):
        x, y = pos[k]
        label = int(min(len(colors) - 1, max(0, round(float(t.label)))))
        ax.scatter([x], [y], s=170, color=colors[label], edgecolors="0.3", linewidths=0.6, zorder=2)
        ax.text(x, y, t.label, ha="center", va="center", fontsize=7, zorder=3)
        if t.is_leaf:
            ax.text(x, y - 0.45, t.word, ha="center", va="top", fontsize=8, rotation=60 if n_words > 14 else 0)
    ax.set_xlim(-0.8, n_words - 0.2)
    ax.set_ylim(-0.9 if n_words > 14 else 0.2, top + 0.6)
    ax.axis("off")
    handles = [Patch(color=c, label=str(i)) for i, c in enumerate(colors)]
    ax.legend(
        handles=handles, title="label", loc="upper left", fontsize=7, title_fontsize=7, frameon=False, ncol=len(colors)
    )
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


__all__ = [
    "PALETTE",
    "use_style",
    "rate_bars",
    "similarity_heatmap",
    "table_heatmap",
    "pair_segments",
    "grouped_bars",
    "strip_by_group",
    "accuracy_panels",
    "shot_curves",
    "describe_figure",
    "SST_COLORS",
    "tree_drawing",
]
