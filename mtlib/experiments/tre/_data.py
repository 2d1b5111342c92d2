"""Notebook 06's data: the tree files it scores and fits, and the paper's published values.

No model is involved: the trees come from PTB bracket files (:func:`load_trees`,
read by :func:`mtlib.data.sst.load_sst_trees`); the paper's Table 2
correlations and its Table 4 / Figure 3 sentences (:mod:`mtlib.data.papers`)
are matched to our encoders and to our trees.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data.errors import check_count
from mtlib.data.papers import BHATHENA_TABLE2, BHATHENA_TABLE4
from mtlib.data.sst import load_sst_trees
from mtlib.data.trees import Tree, tree_impurity, weighted_node_switching

# registry names (and hub ids) of our encoders that are a paper encoder
PAPER_ENCODERS = {"bert-base": "BERT", "bert-base-uncased": "BERT"}


def load_trees(data_path: str, *, fit_path: str = "", max_sentences: int = 0) -> tuple[list[Tree], list[Tree]]:
    """The trees of a PTB tree file to score, and those of an optional second file that only join the TRE fit.

    Args:
        data_path: Tree file, absolute or relative to ``data/`` (``trees/dev.txt``, SST's ``dev.txt``).
        fit_path: Optional second tree file (``""``: none).
        max_sentences: Keep at most this many sentences of each file, in file order (0 keeps all).

    Raises:
        DataArgumentError: ``max_sentences`` is not an integer >= 0 (``-2`` would drop the last two).
    """
    max_sentences = check_count(max_sentences, "load_trees", "max_sentences")
    trees = list(load_sst_trees(data_path, binary=False)["tree"])[: max_sentences or None]
    extra = list(load_sst_trees(fit_path, binary=False)["tree"])[: max_sentences or None] if fit_path else []
    return trees, extra


def paper_table2(encoder: str) -> float:
    """The paper's Table 2 correlation for one of our encoders (``nan`` when the paper has none)."""
    return BHATHENA_TABLE2.get(PAPER_ENCODERS.get(encoder, encoder), float("nan"))


def paper_rows(encoders: Iterable[str]) -> list[dict[str, Any]]:
    """Table 2 rows of the paper's encoders not among ``encoders`` (their printed value only)."""
    ran = {PAPER_ENCODERS.get(name, name) for name in encoders}
    return [
        {"encoder": f"{enc} (paper)", "split": "SST dev", "paper": value}
        for enc, value in BHATHENA_TABLE2.items()
        if enc not in ran
    ]


def sentence_key(text: str) -> str:
    """Letters and digits only, lower-cased: matches a printed sentence to its tokenised SST form."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def find_paper_examples(trees: Sequence[Tree], *, weight: str = "height", average: str = "mean") -> pd.DataFrame:
    """The paper's Table 4 / Figure 3 sentences found in ``trees``, our TI and WNS beside the printed ones.

    Returns:
        One row per paper sentence: ``source, sentence, found, index`` (row
        in ``trees``), ``ti_paper, ti_ours, wns_paper, wns_ours``.
    """
    where: dict[str, int] = {}
    for i, t in enumerate(trees):
        where.setdefault(sentence_key(t.sentence), i)
    rows = []
    for text, ti, wns, source in BHATHENA_TABLE4:
        row = where.get(sentence_key(text))
        tree = trees[row] if row is not None else None
        rows.append(
            {
                "source": source,
                "sentence": text,
                "found": tree is not None,
                "index": row,
                "ti_paper": ti,
                "ti_ours": tree_impurity(tree) if tree else np.nan,
                "wns_paper": wns,
                "wns_ours": weighted_node_switching(tree, weight=weight, average=average) if tree else np.nan,
            }
        )
    return pd.DataFrame(rows)
