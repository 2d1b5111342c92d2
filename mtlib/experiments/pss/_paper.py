"""The paper's Table 1 (Bhathena et al.): its rows as fractions, and ours beside them in its layout.

Intuition: the published values (:data:`mtlib.data.papers.BHATHENA_TABLE1`,
percent) are stored once; :func:`paper_table1` gives them in the columns of
notebook 05's own Table 1 (fractions), so one ``pd.concat`` puts both in a
table or a figure, and :func:`table1_layout` prints the two in the paper's
layout (percent, ``mean ± sd [low, high]``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtlib.data.papers import BHATHENA_TABLE1


def paper_table1() -> pd.DataFrame:
    """The paper's Table 1 as fractions: ``encoder, final_layers, mode, accuracy, pss, relative, source``.

    Index ``condition``, ``paper:<encoder>/<final layers>/<mode>`` (named ``setting`` before issue 57); ``source`` is
    ``"paper (Table 1)"``.
    """
    rows = [
        {
            "condition": f"paper:{e}/{h}/{m}",
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
    return pd.DataFrame(rows).set_index("condition")


def _cell(r: dict, col: str) -> str:
    """One value in percent, with `` ± sd`` and `` [low, high]`` when the row has them; empty when missing."""
    v = r.get(col)
    if v is None or not np.isfinite(v):
        return ""
    s = f"{100 * v:.1f}"
    sd = r.get(f"{col}_sd")
    if sd is not None and np.isfinite(sd):
        s += f" ± {100 * sd:.1f}"
    lo, hi = r.get(f"{col}_low"), r.get(f"{col}_high")
    if lo is not None and hi is not None and np.isfinite(lo):
        s += f" [{100 * lo:.1f}, {100 * hi:.1f}]"
    return s


def table1_layout(ours: pd.DataFrame, *, with_paper: bool = True) -> pd.DataFrame:
    """Our Table 1 (and the paper's rows below it) in the paper's columns, in percent, ``mean ± sd [low, high]``.

    Args:
        ours: One row per condition (``encoder/head/mode``) with ``encoder, final_layers, mode, source`` and
            ``accuracy``, ``majority_baseline``, ``pss``, ``relative`` (fractions), optionally each with ``_sd``,
            ``_low``, ``_high``.

    Returns:
        One row per condition, indexed by it (index ``condition``: named ``setting`` before issue 57).
    """
    both = pd.concat([ours] + ([paper_table1()] if with_paper else []))
    rows = []
    for key, r in both.iterrows():
        r = {k: (float(v) if isinstance(v, (int, float, np.number)) else v) for k, v in r.items() if pd.notna(v)}
        rows.append(
            {
                "condition": key,
                "Encoder": r["encoder"],
                "Final Layers": r["final_layers"],
                "Finetune mode": r["mode"],
                "Test Accuracy": _cell(r, "accuracy"),
                "Majority baseline": _cell(r, "majority_baseline"),
                "PSS": _cell(r, "pss"),
                "Relative": _cell(r, "relative"),
                "source": r["source"],
            }
        )
    return pd.DataFrame(rows).set_index("condition")
