"""Ground-truth compositionality of each tree (Tree Impurity, Weighted Node Switching) and the paper's examples.

No model is involved: TI and WNS are read off the labelled trees
(:mod:`mtlib.data.trees`); :func:`find_paper_examples` finds the sentences of
the paper's Table 4 / Figure 3 in the data by a letters-and-digits key.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mtlib.data.papers import BHATHENA_TABLE2, BHATHENA_TABLE4
from mtlib.data.trees import Tree, tree_impurity, weighted_node_switching

# registry names (and hub ids) of our encoders that are a paper encoder
PAPER_ENCODERS = {"bert-base": "BERT", "bert-base-uncased": "BERT"}


def paper_table2(encoder: str) -> float:
    """The paper's Table 2 correlation for one of our encoders (``nan`` when the paper has none)."""
    return BHATHENA_TABLE2.get(PAPER_ENCODERS.get(encoder, encoder), float("nan"))


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


def tree_scores(trees: Sequence[Tree], *, weight: str = "height", average: str = "mean") -> pd.DataFrame:
    """Per sentence: ``text, n_words, label`` (root), ``ti``, ``wns`` (``nan`` for one-word sentences)."""
    return pd.DataFrame(
        {
            "text": [t.sentence for t in trees],
            "n_words": [len(t.leaves()) for t in trees],
            "label": [t.label for t in trees],
            "ti": [tree_impurity(t) for t in trees],
            "wns": [weighted_node_switching(t, weight=weight, average=average) for t in trees],
        }
    )
