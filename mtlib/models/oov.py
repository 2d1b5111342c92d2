"""Out-of-vocabulary texts of static word vectors: one rule for every adapter and every caller.

Intuition: a static model knows a fixed list of words. A text is the mean of
the vectors of the tokens it knows; a text with **no known token** has no
vector at all, so it gets a row of NaN. Callers never guess a vector for it:
they *skip* such rows and *count* them (notebook 06 reports them as the split
``"no target"``, ``sentences/no_target``; notebook 04 leaves their phrases out
and lists the missing words).

- :func:`pool_known_tokens`: what an adapter's ``embed`` returns, from each
  text's token rows (``None`` for an unknown token).
- :func:`known_rows` / :func:`count_skipped`: what a caller skips and counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pool_known_tokens(token_rows: Sequence[Sequence[int | None]], vectors: np.ndarray) -> np.ndarray:
    """Each text's vector: the mean of its known tokens' rows; NaN for a text with no known token.

    Args:
        token_rows: Per text, the row in ``vectors`` of each token, ``None`` for an unknown one.
        vectors: The word vectors, shape ``(V, d)``.

    Returns:
        float32 array of shape ``(n_texts, d)``; an empty text or one whose every token is unknown
        is a row of NaN (skip it with :func:`known_rows`, count it with :func:`count_skipped`).

    Example:
        >>> vectors = np.array([[1.0, 0.0], [0.0, 1.0]])
        >>> pool_known_tokens([[0, 1], [0, None], [None], []], vectors)
        array([[0.5, 0.5],
               [1. , 0. ],
               [nan, nan],
               [nan, nan]], dtype=float32)
    """
    out = np.full((len(token_rows), vectors.shape[1]), np.nan, dtype=np.float32)
    for i, rows in enumerate(token_rows):
        known = [r for r in rows if r is not None]
        if known:
            out[i] = vectors[known].mean(0)
    return out


def known_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows that are a vector (every value finite): the rows a caller keeps, shape ``(n,)``.

    Example:
        >>> known_rows(np.array([[0.5, 0.5], [np.nan, np.nan]]))
        array([ True, False])
    """
    return np.asarray(np.isfinite(np.asarray(vectors, dtype=np.float64)).all(axis=1), dtype=bool)


def count_skipped(vectors: np.ndarray) -> int:
    """How many rows a caller skips (texts with no known token).

    Example:
        >>> count_skipped(np.array([[0.5, 0.5], [np.nan, np.nan], [np.nan, np.nan]]))
        2
    """
    return int((~known_rows(vectors)).sum())


__all__ = ["count_skipped", "known_rows", "pool_known_tokens"]
