"""The paper's published values (:mod:`mtlib.data.papers`) and the comparison with them.

The paper truncates (does not round) its scores to four decimals: :func:`truncate`
prints ours the same way before comparing cell by cell.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtlib.data import papers


def truncate(value: float, decimals: int = 4) -> float:
    """Truncate as the paper prints (0.43209 -> 0.4320)."""
    scale = 10**decimals
    return float(np.floor(value * scale + 1e-9) / scale)


_PAPER_TABLES = {
    1: papers.CARVALHO_TABLE1,
    6: papers.CARVALHO_TABLE6,
    7: papers.CARVALHO_TABLE7,
    8: papers.CARVALHO_TABLE8,
}
#: Models of this project shown beside a different model of the paper (never compared cell by cell):
#: registry name -> (paper row, label of that row).
PAPER_COUNTERPARTS = {"glove-50d": ("glove", "glove 300d (paper, printed)")}


def paper_values(table: int, model: str) -> pd.Series | None:
    """A model's row of the paper's Table 1, 6, 7 or 8, indexed like our results (``None`` if absent).

    Model names are registry names (``minilm``, ``sbert``, ``glove`` ...); the
    ``-hub`` suffix is ignored. Values come from :mod:`mtlib.data.papers`.
    """
    key = str(model).removesuffix("-hub")
    source = _PAPER_TABLES[table]
    if key not in source:
        return None
    if table in (1, 8):
        return pd.Series(source[key], index=pd.Index(list(papers.CARVALHO_TYPES), name="type"))
    columns = papers.CARVALHO_TABLE6_COLUMNS if table == 6 else papers.CARVALHO_TABLE7_COLUMNS
    return pd.Series(source[key], index=pd.MultiIndex.from_tuples(columns, names=["type1", "type2"]))


def compare_with_paper(ours: pd.Series, paper: pd.Series, decimals: int = 4) -> pd.DataFrame:
    """Side by side: our score, ours truncated like the paper, the paper's, and the gap.

    Returns:
        Indexed like ``paper``: ``ours``, ``ours_printed``, ``paper``, ``gap``
        (ours - paper) and ``match`` (printed values equal).
    """
    frame = pd.DataFrame({"ours": ours.reindex(paper.index), "paper": paper})
    frame.insert(1, "ours_printed", [truncate(v, decimals) if pd.notna(v) else np.nan for v in frame["ours"]])
    frame["gap"] = frame["ours"] - frame["paper"]
    frame["match"] = np.isclose(frame["ours_printed"], frame["paper"], atol=1e-9)
    return frame
