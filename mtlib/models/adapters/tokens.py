"""Tokenise once, pad per batch: the token side of a transformer's batched inference.

Intuition: a transformer batch is padded to its longest member, so batches are
cut by length, and lengths come from the token ids. Tokenising every text once
without padding gives both: the lengths that sort and cut the batches
(:func:`mtlib.utils.batching.length_sorted_batches`) and the ids that each
batch is then padded from (:func:`pad_rows`), with no second pass through the
tokenizer. The padded tensors are the very ones the tokenizer would give for
that batch with ``padding=True`` (same ids, pad id, mask, token types, padding
side); :func:`same_batches` checks it on a few probe texts for each model, and
a model whose tokenizer pads otherwise keeps tokenising per batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mtlib.models.inference.spans import substring_token_mask

__all__ = ["PROBE_PAIRS", "PROBE_TEXTS", "TokenRow", "pad_rows", "same_batches", "span_masks", "tokenise"]

#: A tokenised input, unpadded: ``input_ids`` (and ``token_type_ids``, ``offsets``, ``sequence_ids`` when asked).
TokenRow = dict[str, Any]
#: Texts a model's one-pass encoding is checked on: lengths that pad, one that truncates, an empty one.
PROBE_TEXTS = ("a dog", "the cat sat on the mat, and then it slept", "", "every king " * 400)
#: Second segments of the pair check.
PROBE_PAIRS = ("a cat", "no", "something else entirely", "yes " * 300)


def tokenise(
    tokenizer: Any, texts: Sequence[str], pairs: Sequence[str] | None, max_length: int, offsets: bool = False
) -> list[TokenRow]:
    """Each text (or pair) tokenised once, truncated to ``max_length`` tokens, unpadded.

    Args:
        tokenizer: A Hugging Face fast tokenizer.
        texts: First segments, length ``n``.
        pairs: Second segments (length ``n``) or ``None``.
        max_length: Truncation length in tokens (``longest_first`` for pairs, as the tokenizer's default).
        offsets: Also keep each token's character ``offsets`` and ``sequence_ids`` (for spans).

    Returns:
        ``n`` rows; the length of a row is ``len(row["input_ids"])``.
    """
    enc = tokenizer(
        list(texts),
        list(pairs) if pairs is not None else None,
        truncation=True,
        max_length=max_length,
        return_attention_mask=False,
        return_offsets_mapping=offsets,
    )
    keys = [k for k in ("input_ids", "token_type_ids") if k in enc]
    rows: list[TokenRow] = [{k: enc[k][i] for k in keys} for i in range(len(texts))]
    if offsets:
        for i, row in enumerate(rows):
            row["offsets"] = enc["offset_mapping"][i]
            row["sequence_ids"] = enc.sequence_ids(i)
    return rows


def pad_rows(rows: Sequence[TokenRow], tokenizer: Any) -> dict[str, Any]:
    """One batch as the tokenizer pads it: ``input_ids``, ``attention_mask`` (and ``token_type_ids``), ``(b, t)`` int64.

    ``t`` is the longest row; pad positions hold the tokenizer's pad id (type id), mask 0, on its padding side.
    """
    import torch

    n = len(rows)
    lengths = np.fromiter((len(r["input_ids"]) for r in rows), dtype=np.int64, count=n)
    width = int(lengths.max()) if n else 0
    left = getattr(tokenizer, "padding_side", "right") == "left"
    pads = {"input_ids": tokenizer.pad_token_id or 0, "token_type_ids": getattr(tokenizer, "pad_token_type_id", 0)}
    out: dict[str, Any] = {}
    for key in ("input_ids", "token_type_ids"):
        if n == 0 or key not in rows[0]:
            continue
        arr = np.full((n, width), pads[key], dtype=np.int64)
        for i, row in enumerate(rows):
            if lengths[i]:
                target = arr[i, width - lengths[i] :] if left else arr[i, : lengths[i]]
                target[:] = row[key]
        out[key] = torch.from_numpy(arr)
    positions = np.arange(width)[None, :]
    mask = positions >= (width - lengths)[:, None] if left else positions < lengths[:, None]
    out["attention_mask"] = torch.from_numpy(mask.astype(np.int64))
    order = [k for k in getattr(tokenizer, "model_input_names", ()) if k in out]
    return {k: out[k] for k in order + [k for k in out if k not in order]}


def span_masks(rows: Sequence[TokenRow], items: Sequence[dict[str, Any]], width: int, left: bool) -> Any:
    """Which tokens of each padded row cover each requested substring: ``(b, m, width)`` float32 (torch).

    Args:
        rows: The batch's rows, tokenised with ``offsets``.
        items: Per row, ``{"t": text, "p": pair or absent, "s": [[substring, segment, occurrence], ...]}``.
        width: The padded length of the batch.
        left: Whether the tokenizer pads on the left.

    Raises:
        ValueError: a substring is not in its text, or no token covers it (truncated), naming both.
    """
    import torch

    m = len(items[0]["s"]) if items else 0
    masks = torch.zeros((len(rows), m, width))
    for b, (row, item) in enumerate(zip(rows, items)):
        length = len(row["input_ids"])
        start = width - length if left else 0
        for j, (sub, seg, occ) in enumerate(item["s"]):
            text = item["t"] if seg == 0 else item["p"]
            mask = substring_token_mask(text, sub, row["offsets"], row["sequence_ids"], seg, occ)
            masks[b, j, start : start + length] = torch.as_tensor(mask)
    return masks


def same_batches(tokenizer: Any, reference: Any, max_length: int, pairs: bool = False) -> bool:
    """Whether :func:`tokenise` + :func:`pad_rows` give the tensors ``reference(texts, pairs)`` gives, on probes.

    ``reference`` is the per-batch tokenisation the one-pass path replaces (the tokenizer called with
    ``padding=True``, or a pipeline's own preprocessing); every tensor it returns must be equal.
    ``pairs`` also checks text pairs.
    """
    import torch

    probes: list[tuple[list[str], list[str] | None]] = [(list(PROBE_TEXTS), None), (list(PROBE_TEXTS[:2]), None)]
    if pairs:
        probes.append((list(PROBE_TEXTS), list(PROBE_PAIRS)))
    for texts, second in probes:
        want = reference(texts, second)
        got = pad_rows(tokenise(tokenizer, texts, second, max_length), tokenizer)
        tensors = {k: v for k, v in want.items() if isinstance(v, torch.Tensor)}
        if set(tensors) != set(got) or not all(torch.equal(tensors[k].long(), got[k]) for k in tensors):
            return False
    return True
