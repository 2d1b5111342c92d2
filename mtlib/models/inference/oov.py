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
- :func:`token_counts` / :func:`coverage_summary` / :func:`coverage_metrics`: how much of the texts a
  model covers (partial coverage as a rate: the share of tokens with a vector), for any model: one
  without a vocabulary (word pieces, a lexicon) covers every text.
- :func:`coverage_note`: the sentence a notebook prints about it.

A head on frozen features (:mod:`mtlib.models.training.frozen`) applies the same rule: a
training text with no vector is skipped and counted; a text to predict that has
no vector gets the training class shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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


def token_counts(token_rows: Sequence[Sequence[int | None]]) -> np.ndarray:
    """Per text, its known tokens and all its tokens: ``(n, 2)`` int64.

    Example:
        >>> token_counts([[0, 1], [0, None], [None], []])
        array([[2, 2],
               [1, 2],
               [0, 1],
               [0, 0]])
    """
    out = np.zeros((len(token_rows), 2), dtype=np.int64)
    for i, rows in enumerate(token_rows):
        out[i] = (sum(r is not None for r in rows), len(rows))
    return out


def model_token_counts(model: Any, texts: Sequence[str]) -> np.ndarray | None:
    """``model.token_counts(texts)`` ``(n, 2)`` when the model has a vocabulary (static vectors), else None.

    A model without one (word pieces, a lexicon, a classifier) gives every text a vector: nothing to count.
    """
    counts = getattr(model, "token_counts", None)
    return None if counts is None else np.asarray(counts(list(texts)), dtype=np.int64).reshape(-1, 2)


def coverage_summary(counts: np.ndarray | None, n_texts: int = 0) -> dict[str, Any]:
    """How much of the texts a model covers, from :func:`token_counts` (None: a model without vocabulary).

    Returns:
        ``texts``; ``skipped``: texts with no known token (no vector, skipped); ``partial``: texts with
        some unknown tokens (the mean of the known ones); ``token_coverage``: the share of all tokens
        with a vector (1.0 for a model without vocabulary, NaN for no tokens at all); ``vocabulary``:
        whether the model has a fixed vocabulary (False: it has a vector for every text).

    Example:
        >>> coverage_summary(token_counts([[0, 1], [0, None], [None], []]))
        {'texts': 4, 'vocabulary': True, 'skipped': 2, 'partial': 1, 'token_coverage': 0.6}
        >>> coverage_summary(None, 3)
        {'texts': 3, 'vocabulary': False, 'skipped': 0, 'partial': 0, 'token_coverage': 1.0}
    """
    if counts is None:
        return {"texts": n_texts, "vocabulary": False, "skipped": 0, "partial": 0, "token_coverage": 1.0}
    known, total = counts[:, 0], counts[:, 1]
    return {
        "texts": len(counts),
        "vocabulary": True,
        "skipped": int((known == 0).sum()),
        "partial": int(((known > 0) & (known < total)).sum()),
        "token_coverage": float(known.sum() / total.sum()) if total.sum() else float("nan"),
    }


def coverage_metrics(summary: dict[str, Any], part: str = "") -> dict[str, Any]:
    """Metric keys of a :func:`coverage_summary`: ``oov/skipped``, ``oov/partial``, ``oov/token_coverage``,
    each followed by ``/<part>`` when a part (``train``, ``test`` ...) is named.

    Example:
        >>> coverage_metrics({"texts": 4, "skipped": 2, "partial": 1, "token_coverage": 0.6}, "train")
        {'oov/skipped/train': 2, 'oov/partial/train': 1, 'oov/token_coverage/train': 0.6}
    """
    tail = f"/{part}" if part else ""
    return {f"oov/{k}{tail}": summary[k] for k in ("skipped", "partial", "token_coverage")}


def coverage_note(model: str, summary: dict[str, Any], what: str = "texts", fate: str = "skipped") -> str:
    """One sentence: how many of ``what`` had no vector (and what happened to them), and the coverage rate.

    Example:
        >>> coverage_note("glove-50d", coverage_summary(token_counts([[0, 1], [0, None], [None], []])))
        'glove-50d: 2 of 4 texts have no known word (skipped); 1 (25.00%) have some unknown words (the mean of \
the known ones); 60.00% of the tokens have a vector.'
        >>> coverage_note("minilm", coverage_summary(None, 3))
        'minilm: a vector for every one of the 3 texts (no fixed vocabulary of words).'
    """
    n = summary["texts"]
    if not summary.get("vocabulary", True):
        return f"{model}: a vector for every one of the {n:,} {what} (no fixed vocabulary of words)."
    share = summary["partial"] / n if n else float("nan")
    return (
        f"{model}: {summary['skipped']:,} of {n:,} {what} have no known word ({fate}); {summary['partial']:,} "
        f"({_percent(share)}) have some unknown words (the mean of the known ones); "
        f"{_percent(summary['token_coverage'])} of the tokens have a vector."
    )


def _percent(x: float) -> str:
    """A share as a percentage that never reads 0% or 100% unless it is exactly that.

    Example:
        >>> [_percent(x) for x in (0.0, 0.00004, 0.4, 0.99996, 1.0)]
        ['0%', '<0.01%', '40.00%', '>99.99%', '100%']
    """
    if x in (0.0, 1.0):
        return f"{x:.0%}"
    text = f"{x:.2%}"
    return {"0.00%": "<0.01%", "100.00%": ">99.99%"}.get(text, text)


__all__ = ["coverage_metrics", "coverage_note", "coverage_summary", "model_token_counts"]
