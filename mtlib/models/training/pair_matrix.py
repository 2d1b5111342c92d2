"""Prediction matrices of a head on pair features, in matrix form.

Intuition: a logistic head on the pair features ``[u, v, |u - v|, u * v]`` of
two word vectors has a logit that splits into a row term, a column term, a
bilinear term and an ``|u - v|`` term, so the ``n x n`` matrix of its
predictions over a whole vocabulary costs a few matrix products instead of
``n^2`` head calls (n = 2,000 words of d = 384 in about a second).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtlib.models.base import label_position
from mtlib.models.training.frozen import HeadClassifier
from mtlib.models.training.heads import pair_features

__all__ = ["pair_probability_matrix"]


def _feature_head(head: Any, positive: Any) -> tuple[Any, int, tuple[np.ndarray, float] | None]:
    """``(predict_proba on pair features, positive column, linear parts or None)`` of any head.

    ``head`` is a :class:`mtlib.models.training.frozen.Head`, a :class:`mtlib.models.HeadClassifier`
    (from :func:`mtlib.models.classifier`) or a bare
    :class:`mtlib.models.training.heads.LinearHead` / ``MLPHead`` (then ``positive`` is the column).
    """
    if isinstance(head, HeadClassifier):
        col = head.label_index(positive)
        return head.head.predict_proba, col, head.head.linear_parts(col)
    if hasattr(head, "classes_"):
        col = label_position(list(head.classes_), positive, "head")
        return head.predict_proba, col, head.linear_parts(positive)
    col = int(positive)
    return head.predict_proba, col, head.linear_parts(col)


def _abs_difference_term(W: np.ndarray, beta: np.ndarray, block: int, tile: int) -> np.ndarray:
    """``D[i, j] = |W[i] - W[j]| . beta`` for all pairs, shape ``(n, n)`` float64.

    Row blocks of ``block`` rows against column tiles of ``tile`` columns keep
    the ``(block, tile, d)`` buffer in cache; ``D`` is symmetric, so only
    tiles on or above the diagonal are computed and then mirrored.
    """
    n, d = W.shape
    W = np.ascontiguousarray(W, np.float32)
    beta32 = beta.astype(np.float32)
    D = np.zeros((n, n), np.float64)
    buf = np.empty((block, tile, d), np.float32)
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        for c in range(lo, n, tile):
            ce = min(c + tile, n)
            diff = buf[: hi - lo, : ce - c]
            np.subtract(W[lo:hi, None, :], W[None, c:ce, :], out=diff)
            np.abs(diff, out=diff)
            D[lo:hi, c:ce] = diff @ beta32
    return np.triu(D) + np.triu(D, 1).T


def pair_probability_matrix(
    head: Any, W: np.ndarray, *, positive: Any = True, block: int = 4, tile: int = 256
) -> np.ndarray:
    """``P[i, j] = P(positive | pair_features(w_i, w_j))`` for every ordered pair.

    A binary linear head (logistic regression on standardised features, as
    :func:`mtlib.models.classifier` and ``classifier(X, y, how="head")`` on a feature matrix build it)
    is evaluated in matrix form:
    with ``beta = [b1, b2, b3, b4]`` its weights on ``[u, v, |u - v|, u * v]``
    after folding in the scaler, the logit is ``c + W b1`` (a row term)
    ``+ W b2`` (a column term) ``+ (W * b4) @ W.T`` (a bilinear term)
    ``+ |w_i - w_j| . b3`` (computed in blocks with broadcasting). Any
    other head (an MLP) is called on all pairs of a block of rows at once.
    The diagonal is 0.

    Args:
        head: A head classifier from :func:`mtlib.models.classifier`, a
            :class:`mtlib.models.training.frozen.Head`, or a bare head of :mod:`mtlib.models.training.heads`.
        W: Word vectors, shape ``(n, d)``.
        positive: The class whose probability is returned.
        block: Rows per block.
        tile: Columns per tile of the ``|u - v|`` term.

    Returns:
        Shape ``(n, n)`` float64.
    """
    from scipy.special import expit

    W = np.asarray(W, np.float32)
    n, d = W.shape
    predict_proba, col, parts = _feature_head(head, positive)
    if parts is not None:
        w, c = parts
        if w.shape != (4 * d,):
            raise ValueError(f"head has {w.shape[0]} weights; pair features of {d}-d vectors have {4 * d}")
        b1, b2, b3, b4 = w.reshape(4, d)
        W64 = W.astype(np.float64)
        logits = c + (W64 @ b1)[:, None] + (W64 @ b2)[None, :] + (W64 * b4) @ W64.T
        logits += _abs_difference_term(W, b3, block, tile)
        P = expit(logits)
    else:
        rows = max(1, (1 << 22) // max(1, n * 4 * d))
        P = np.empty((n, n), np.float64)
        for lo in range(0, n, rows):
            hi = min(lo + rows, n)
            X = pair_features(np.repeat(W[lo:hi], n, axis=0), np.tile(W, (hi - lo, 1)))
            P[lo:hi] = predict_proba(X)[:, col].reshape(hi - lo, n)
    np.fill_diagonal(P, 0.0)
    return P
