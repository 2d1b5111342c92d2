"""Substrings to word-piece masks, from a fast tokenizer's offset mapping.

Intuition: an NLI probe reads the hidden states of an inserted phrase
(``"cherry tree"``); which tokens cover it depends on the tokenizer
(WordPiece ``cherry``/``##tree``, byte-level BPE ``Ġcherry``/``Ġtree``).
Offsets make this tokenizer-independent: a token belongs to the span when
its characters overlap the substring's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SpanRequest:
    """A substring whose word pieces are pooled.

    Attributes:
        substring: The text to find (e.g. an insertion ``"cherry tree"``).
        segment: 0 for the first text (premise), 1 for the second (hypothesis).
        occurrence: Which occurrence to use when the substring repeats (0 = first).
    """

    substring: str
    segment: int = 0
    occurrence: int = 0


def find_substring(text: str, substring: str, occurrence: int = 0) -> tuple[int, int]:
    """Character span of a substring, preferring whole-word matches.

    Returns:
        ``(start, end)`` character offsets.

    Raises:
        ValueError: naming the text and the substring when it is absent.
    """
    if not substring:
        raise ValueError(f"empty substring asked for in {text!r}")
    word = [m.span() for m in re.finditer(r"(?<!\w)" + re.escape(substring) + r"(?!\w)", text)]
    anywhere = [m.span() for m in re.finditer(re.escape(substring), text)]
    hits = word or anywhere
    if len(hits) <= occurrence:
        raise ValueError(f"substring {substring!r} (occurrence {occurrence}) not found in text {text!r}")
    return hits[occurrence]


def substring_token_mask(
    text: str,
    substring: str,
    offsets: Sequence[Sequence[int]],
    sequence_ids: Sequence[int | None],
    segment: int = 0,
    occurrence: int = 0,
) -> list[float]:
    """Which tokens cover a substring, from a fast tokenizer's offset mapping.

    Works for WordPiece and byte-level BPE alike: a token belongs to the span
    when its character offsets (within its own segment) overlap the
    substring's characters, ignoring special tokens and zero-width offsets.

    Args:
        text: The segment's text.
        substring: Text to locate in it.
        offsets: ``(start, end)`` per token, as returned with
            ``return_offsets_mapping=True``.
        sequence_ids: Segment of each token (``None`` for special tokens).
        segment: Which segment ``text`` is (0 or 1).
        occurrence: Which occurrence of the substring.

    Returns:
        A 0/1 list, one entry per token.

    Raises:
        ValueError: the substring is missing, or no token covers it
            (e.g. cut by truncation); the message names text and substring.
    """
    start, end = find_substring(text, substring, occurrence)
    mask = [0.0] * len(offsets)
    for t, ((a, b), seq) in enumerate(zip(offsets, sequence_ids)):
        if seq == segment and b > a and a < end and b > start:
            mask[t] = 1.0
    if not any(mask):
        raise ValueError(f"substring {substring!r} of text {text!r} is not covered by any token (truncated input?)")
    return mask


__all__ = ["SpanRequest", "find_substring", "substring_token_mask"]
