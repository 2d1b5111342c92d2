"""Cosine similarity and distance in matrix form.

Every test on embeddings in this project compares vectors by cosine; doing it
as one matrix product over L2-normalised rows (instead of a Python loop over
pairs) is what makes 45k phrases x 9 comparisons take a fraction of a second.
"""

from __future__ import annotations

import numpy as np


def normalize_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm, shape ``(n, d)``; zero rows stay zero."""
    X = np.asarray(X, dtype=np.float64)
    norms = np.linalg.norm(X, axis=-1, keepdims=True)
    return X / np.where(norms == 0, 1.0, norms)


def cosine_matrix(A: np.ndarray, B: np.ndarray | None = None) -> np.ndarray:
    """Cosine similarity of every row of ``A (n, d)`` with every row of ``B (m, d)``.

    Returns:
        Array of shape ``(n, m)`` (``(n, n)`` when ``B`` is omitted).
    """
    An = normalize_rows(A)
    Bn = An if B is None else normalize_rows(B)
    return An @ Bn.T


def cosine_distance_rows(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Cosine distance ``1 - cos(a_i, b_i)`` between matching rows, shape ``(n,)``.

    Accepts any leading shape: ``A`` and ``B`` of shape ``(..., d)`` give ``(...)``.
    """
    return 1.0 - np.sum(normalize_rows(A) * normalize_rows(B), axis=-1)


__all__ = ["normalize_rows", "cosine_matrix", "cosine_distance_rows"]
