"""The forest plot of a paired comparison: each row's difference with its intervals, the gate, the equivalence band.

One line per task and metric, top to bottom in the table's order. What a reader sees before the table:

- the point: b's improvement over a (``b - a``; ``a - b`` for a lower-is-better metric, so right is always better);
- a thin bar: its 95% paired bootstrap interval (what the gate reads); a thick bar: its 90% interval (what the
  equivalence verdict reads);
- a solid vertical line at 0, a dashed red line at the gate (``--min-diff``), a grey band for ``(-M, M)``
  (``--equivalence``);
- at the right, the verdict and the row's minimum detectable effect.

Drawn with matplotlib's object API (a ``Figure`` on the Agg canvas: no pyplot, no global backend change, so it is
safe inside a notebook). matplotlib is optional: without it :func:`forest_png` returns None and the HTML says so.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

__all__ = ["forest_png"]

#: The colour of each verdict.
COLOURS = {"better": "#1a7f37", "worse": "#cf222e", "equivalent": "#0969da", "inconclusive": "#6e7781"}


def improvement(table: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """b's improvement over a per row and its 95% and 90% bounds: ``(point, low95, high95, low90, high90)``.

    A lower-is-better row (``lower_better``) is turned around: the improvement is ``a - b``, its bounds the
    negated upper and lower bounds of ``b - a``.
    """
    lower = table["lower_better"].to_numpy(bool) if "lower_better" in table else np.zeros(len(table), bool)
    sign = np.where(lower, -1.0, 1.0)
    d = table["diff"].to_numpy(float) * sign
    bounds = []
    for lo, hi in (("diff_low", "diff_high"), ("diff_low90", "diff_high90")):
        a, b = table[lo].to_numpy(float) * sign, table[hi].to_numpy(float) * sign
        bounds += [np.minimum(a, b), np.maximum(a, b)]
    return d, bounds[0], bounds[1], bounds[2], bounds[3]


def forest_png(
    table: Any, *, title: str = "", min_diff: float | None = None, equivalence: float | None = None, dpi: int = 110
) -> bytes | None:
    """The forest plot as PNG bytes; None when matplotlib is not installed.

    Args:
        table: A comparison's table (:class:`mtlib.paired.Comparison`), indexed by ``(task, metric)``.
        title: Drawn above the plot.
        min_diff: The gate's line (None: none).
        equivalence: The band's half-width M (None: no band).
        dpi: Resolution.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    d, lo95, hi95, lo90, hi90 = improvement(table)
    labels = ["/".join(str(k) for k in key) if isinstance(key, tuple) else str(key) for key in table.index]
    y = np.arange(len(table))[::-1]
    fig = Figure(figsize=(9.0, 1.2 + 0.42 * len(table)), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    if equivalence is not None:
        ax.axvspan(-equivalence, equivalence, color="#d0d7de", alpha=0.6, lw=0, label=f"equivalence ±{equivalence:g}")
    ax.axvline(0, color="black", lw=0.9)
    if min_diff is not None:
        ax.axvline(min_diff, color="#cf222e", lw=1.2, ls="--", label=f"gate {min_diff:+g}")
    for k, (row, verdict) in enumerate(zip(y, table["verdict"])):
        colour = COLOURS.get(verdict, "black")
        ax.plot([lo95[k], hi95[k]], [row, row], color=colour, lw=1.2, solid_capstyle="butt")
        ax.plot([lo90[k], hi90[k]], [row, row], color=colour, lw=4.5, alpha=0.55, solid_capstyle="butt")
        ax.plot([d[k]], [row], "o", color=colour, ms=5)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_ylim(-0.7, len(table) - 0.3)
    ax.set_xlabel("improvement of b over a (b - a; a - b where lower is better): point, 90% and 95% paired intervals")
    notes = [
        f"{v}  (MDE {m:.3g})" if np.isfinite(m) else f"{v}  (MDE n/a)" for v, m in zip(table["verdict"], table["mde"])
    ]
    ax2 = ax.twinx()
    ax2.set_ylim(ax.get_ylim())
    ax2.set_yticks(y, notes, fontsize=8)
    for tick, verdict in zip(ax2.get_yticklabels(), table["verdict"]):
        tick.set_color(COLOURS.get(verdict, "black"))
    ax.grid(axis="x", color="#eaeef2", lw=0.6)
    ax.set_axisbelow(True)
    if equivalence is not None or min_diff is not None:
        ax.legend(loc="lower left", fontsize=7, frameon=False, bbox_to_anchor=(0, 1.0), ncol=2)
    if title:
        fig.suptitle(title, fontsize=10, x=0.01, ha="left")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()
