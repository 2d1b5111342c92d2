"""The inputs of notebook 02: contexts, insertion pairs, their compositions and the split.

Intuition: an NLI input is the pair (C(ℓa), C(ℓb)): one context C with a
placeholder, filled with two insertions whose lexical relation is known. The
contexts are split once: the training contexts train the probe and the NLI
head, the test contexts (never seen by either) test the relation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data import monotonicity
from mtlib.data.sample import subsample


def split_contexts(contexts: pd.DataFrame, train_fraction: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Context ids for training heads and for testing the relation, stratified by monotonicity.

    Returns:
        ``(train_ids, test_ids)``; disjoint, their union is every context.
    """
    from sklearn.model_selection import train_test_split

    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    ids = contexts["context_id"].to_numpy()
    n_train = int(np.floor(train_fraction * len(ids)))
    if n_train < 1 or n_train == len(ids):
        need = next(n for n in range(2, 10_000) if 1 <= int(np.floor(train_fraction * n)) < n)
        raise ValueError(
            f"{len(ids)} context(s) split at train_fraction={train_fraction:g} leave {n_train} for training and "
            f"{len(ids) - n_train} for testing; expected at least one on each side: keep at least {need} contexts "
            "(parameter max_contexts; 0 keeps all)"
        )
    counts = contexts["monotonicity"].value_counts()
    fits = min(n_train, len(ids) - n_train) >= len(counts)  # each side can hold every monotonicity class
    strat = contexts["monotonicity"] if counts.min() >= 2 and fits else None
    train, test = train_test_split(ids, train_size=train_fraction, random_state=seed, stratify=strat)
    return np.sort(train), np.sort(test)


@dataclass
class NLIData:
    """Contexts, insertion pairs, their compositions and the split into training and test contexts.

    Attributes:
        contexts: One row per context (``context_id, context, monotonicity, operator``...).
        insertions: One row per insertion pair, reverses included (``insertion_id, x, y, relation``).
        items: Every composition (:func:`mtlib.data.monotonicity.compose`), shape ``(m, ...)``.
        train_mask: Compositions whose context trains the probe and the NLI head, shape ``(m,)`` bool.
        train_ids, test_ids: Context ids of each side.
        n_pairs_file: Insertion pairs as read from the file (before reverses and subsetting).
        n_pairs_with_reverses: The same with every pair's reverse added.
    """

    contexts: pd.DataFrame
    insertions: pd.DataFrame
    items: pd.DataFrame
    train_mask: np.ndarray
    train_ids: np.ndarray
    test_ids: np.ndarray
    n_pairs_file: int
    n_pairs_with_reverses: int

    @cached_property
    def test_items(self) -> pd.DataFrame:
        """The compositions of the test contexts, fresh index: the relation's inputs."""
        return self.items[~self.train_mask].reset_index(drop=True)

    @cached_property
    def direction(self) -> dict[Any, str]:
        """Context id -> expected order: ``same`` in a downward context, ``opposite`` in an upward one."""
        return {
            cid: ("same" if mono == "down" else "opposite")
            for cid, mono in zip(self.contexts["context_id"], self.contexts["monotonicity"])
        }

    def metrics(self) -> dict[str, int]:
        """Data sizes: contexts of each side, insertion pairs, inputs."""
        return {
            "n_insertion_pairs_file": self.n_pairs_file,
            "n_insertion_pairs_with_reverses": self.n_pairs_with_reverses,
            "n_contexts": int(len(self.test_ids)),
            "n_contexts_train": int(len(self.train_ids)),
            "n_insertion_pairs": int(self.test_items["insertion_id"].nunique()),
            "n_inputs": len(self.items),
            "n_inputs_test": len(self.test_items),
        }

    def summary(self) -> str:
        return (
            f"{len(self.contexts)} contexts ({len(self.train_ids)} train, {len(self.test_ids)} test), "
            f"{len(self.insertions)} insertion pairs with reverses ({self.n_pairs_file} in the file), "
            f"{len(self.items):,} NLI inputs ({len(self.test_items):,} in test contexts)"
        )


def load_data(
    contexts_path: str = "",
    insertions_path: str = "",
    *,
    train_fraction: float = 0.3,
    max_contexts: int = 0,
    max_insertions: int = 0,
    seed: int = 0,
) -> NLIData:
    """Read contexts and insertions (bundled or NLI-XY files), add reverses, subset, compose and split.

    Args:
        contexts_path, insertions_path: NLI-XY ``contexts.tsv`` / ``insertions.tsv``; empty for the bundled ones.
        train_fraction: Share of contexts that trains the probe and the NLI head (never tested).
        max_contexts: Keep at most this many contexts, the same number per monotonicity (0 keeps all).
        max_insertions: Keep at most this many insertion pairs, the same number per relation (0 keeps all).
        seed: Seeds the subsets and the split.
    """
    pairs_read = monotonicity.load_insertions(insertions_path or monotonicity.BUNDLED_INSERTIONS)
    pairs_both = monotonicity.with_reverses(pairs_read)
    contexts = subsample(
        monotonicity.load_contexts(contexts_path or monotonicity.BUNDLED_CONTEXTS),
        max_contexts,
        seed,
        by="monotonicity",
        sort="context_id",
    )
    insertions = subsample(pairs_both, max_insertions, seed, by="relation", sort="insertion_id")
    items = monotonicity.compose(contexts, insertions)
    train_ids, test_ids = split_contexts(contexts, train_fraction, seed)
    return NLIData(
        contexts,
        insertions,
        items,
        items["context_id"].isin(train_ids).to_numpy(),
        train_ids,
        test_ids,
        len(pairs_read),
        len(pairs_both),
    )
