"""The phrase set's texts embedded once: rows L2-normalised, looked up by text, compared by integer index.

Intuition: notebook 04 compares many distances between a few thousand texts
(44k phrases, their words and sub-phrases): it embeds each text once per model,
then gathers rows by integer index and compares whole arrays. Cosine distances
between gathered rows are computed in chunks (:data:`DISTANCE_CHUNK`), so no
``(n, d)`` copy of the gathered vectors is ever made.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mtlib.models.inference.oov import known_rows
from mtlib.utils.similarity import normalize_rows

#: Rows per chunk of :meth:`EmbeddingTable.distance` (a few MB of gathered vectors at a time).
DISTANCE_CHUNK = 4096


class EmbeddingTable:
    """Unit-normalised embeddings of texts, looked up by text.

    Args:
        texts: Unique texts, shape ``(T,)``.
        vectors: Their embeddings, shape ``(T, d)``; rows with NaN (a text none of
            whose words a static model knows) are marked invalid. A phrase with one
            unknown word has a vector (the mean of the known words): the tests also
            require every word of a phrase to have one.
    """

    def __init__(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.texts = list(texts)
        self.row = {t: i for i, t in enumerate(self.texts)}
        self._index = pd.Index(np.asarray(self.texts, dtype=object), dtype=object)
        if not self._index.is_unique:
            raise ValueError("EmbeddingTable texts must be unique")
        vectors = np.asarray(vectors, dtype=np.float64)
        self.valid = known_rows(vectors)  # a text with no known token (static vectors) is skipped
        self.unit = normalize_rows(np.nan_to_num(vectors))

    @classmethod
    def from_model(cls, model, texts: Sequence[str]) -> EmbeddingTable:
        """Embed every text once with ``model.embed``."""
        return cls(texts, model.embed(list(texts)))

    def rows(self, texts: Sequence[str] | np.ndarray) -> np.ndarray:
        """Row indices of texts (any shape of array of strings).

        Raises:
            KeyError: a text that was not embedded (the first few are named).
        """
        arr = np.asarray(texts, dtype=object)
        if not arr.size:
            return arr.astype(np.int64)
        idx = self._index.get_indexer(arr.ravel()).astype(np.int64)
        if (idx < 0).any():
            raise KeyError(f"texts not embedded: {list(arr.ravel()[idx < 0][:5])}")
        return idx.reshape(arr.shape)

    def all_valid(self, *rows: np.ndarray) -> np.ndarray:
        """Per case (the first axis of each array of row indices): whether every text of the case has a vector."""
        ok = np.ones(len(rows[0]), dtype=bool)
        for idx in rows:
            ok &= self.valid[idx].reshape(len(idx), -1).all(axis=1)
        return ok

    def distance(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Cosine distance between rows ``a`` and ``b`` (index arrays broadcast to one shape).

        Computed in chunks of rows, so no ``(n, d)`` copy of the gathered
        vectors is ever made for the 44k phrases (memory bandwidth, not
        arithmetic, is what this costs).
        """
        a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
        flat_a, flat_b = a.ravel(), b.ravel()
        out = np.empty(flat_a.shape, dtype=np.float64)
        for start in range(0, len(flat_a), DISTANCE_CHUNK):
            sl = slice(start, start + DISTANCE_CHUNK)
            out[sl] = 1.0 - np.einsum("nd,nd->n", self.unit[flat_a[sl]], self.unit[flat_b[sl]])
        return out.reshape(a.shape)
