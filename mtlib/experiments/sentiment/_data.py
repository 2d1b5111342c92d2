"""The reviews of notebook 01, and the paper's Table 1 beside the notebook's transformations.

Intuition: the source set D is a set of reviews; each transformation T (the
notebook's list, Manino et al. Table 1 and your own) concatenates a short,
neutral sentence at the start or the end of a review. The bundled reviews
are split once: a stratified part trains the heads of encoder models, the
rest is D (or D is an SST file, and every bundled review trains the heads).
A real training file (``train_path``: SST sentences or trees) replaces the
bundled reviews as training data; its dev file (:func:`load_dev`) measures
the trained classifier.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mtlib.data import papers, sst
from mtlib.data.sample import subsample
from mtlib.relations.transformations.concatenation import Concatenation


def table1_frame(ts: Sequence[Concatenation]) -> pd.DataFrame:
    """Id, text, position and the paper's rate (Manino et al. Table 1; ``nan`` for a transformation of your own)."""
    paper = {tid: rate for tid, _, _, rate in papers.MANINO_TABLE1}
    return pd.DataFrame(
        {
            "transformation": [t.name for t in ts],
            "text": [t.text for t in ts],
            "position": [t.position for t in ts],
            "paper_rate": [paper.get(t.name, np.nan) for t in ts],
        }
    ).set_index("transformation")


def split_reviews(reviews: pd.DataFrame, train_fraction: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Stratified split of the bundled reviews into a head-training part and the source set D."""
    from sklearn.model_selection import train_test_split

    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    train, rest = train_test_split(reviews, train_size=train_fraction, random_state=seed, stratify=reviews["label"])
    return train.reset_index(drop=True), rest.reset_index(drop=True)


def load_data(
    data_path: str = "",
    data_format: str = "auto",
    *,
    train_fraction: float = 0.4,
    n_sources: int = 0,
    seed: int = 0,
    train_path: str = "",
    train_format: str = "auto",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The reviews that train encoder heads, and the source set D under test.

    Without ``data_path`` or ``train_path`` the bundled reviews are split once
    (a stratified ``train_fraction`` trains the heads, the rest is D). With a
    ``data_path`` (:func:`mtlib.data.sst.load_sentiment`: an SST sentence or
    tree file), that file is D and the heads train on every bundled review.
    With a ``train_path`` (same formats), that file trains the heads and
    fine-tunings; D is then ``data_path`` or, without it, every bundled review.

    Args:
        data_path: Reviews to test, empty for the bundled ones.
        data_format: ``auto``, ``sentences`` or ``trees``.
        train_fraction: Share of the bundled reviews that trains the heads (no ``train_path``).
        n_sources: Keep at most this many sources (0 keeps all), drawn with ``seed``.
        seed: Seeds the split and the subset.
        train_path: Labelled reviews that train the classifiers (``stsa.binary.train``), empty for the bundled ones.
        train_format: ``auto``, ``sentences`` or ``trees`` for ``train_path``.

    Returns:
        ``(train, sources)``, each with ``text, label``; ``sources.attrs["dropped_neutral"]``
        counts the neutral sentences the loader dropped; with ``train_path``, ``train.attrs["source"]`` is that path.
    """
    bundled = sst.load_reviews()
    train, sources = split_reviews(bundled, train_fraction, seed)
    if data_path:
        train, sources = bundled, sst.load_sentiment(data_path, data_format)
    if train_path:
        train = sst.load_sentiment(train_path, train_format)
        if not data_path:
            sources = bundled
        train.attrs["source"] = str(train_path)
    sources = subsample(sources, n_sources, seed)
    sources.attrs.setdefault("dropped_neutral", 0)
    return train, sources


def load_dev(dev_path: str = "", dev_format: str = "auto") -> pd.DataFrame | None:
    """Labelled reviews that measure the trained classifier (``stsa.binary.dev``), or None without a path.

    Returns:
        ``text, label`` (neutral sentences dropped), or None.
    """
    return sst.load_sentiment(dev_path, dev_format) if dev_path else None
