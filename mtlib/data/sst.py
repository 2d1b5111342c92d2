"""Stanford Sentiment Treebank readers, and the bundled reviews in the same format.

Two real formats:

- sentence files ``stsa.binary.{train,dev,test}`` and ``stsa.fine.*``: one
  ``label<space>sentence`` per line (labels 0/1, or 0-4 for fine-grained);
  the bundled ``data/sentiment/reviews.txt`` uses the same format;
- PTB tree files ``{train,dev,test}.txt``: one bracketed tree per line with a
  0-4 label on every node; the root label is the sentence's sentiment.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from mtlib.data.errors import DataFormatError, resolve_data_path
from mtlib.data.trees import parse_tree
from mtlib.data.tsv import nonblank_lines as _lines

BUNDLED_REVIEWS = "sentiment/reviews.txt"
_SST_LABELS = frozenset("01234")


def load_sst_sentences(path: str | os.PathLike, *, fine: bool | None = None) -> pd.DataFrame:
    """Read an SST sentence file (``label<space>sentence`` per line).

    Args:
        path: File path (absolute, or relative to the bundled ``data/``).
        fine: Labels 0-4 (``True``) or 0/1 (``False``); ``None`` guesses from
            the file name (a ``fine`` part, as in ``stsa.fine.dev``), else 0/1.

    Returns:
        DataFrame with columns ``text`` (str), ``label`` (int) and ``line``
        (1-based line number), one row per non-empty line.

    Raises:
        DataFormatError: a line without a label and a sentence, or a label
            outside the allowed set; the message names file and line.
    """
    path = resolve_data_path(path)
    if fine is None:
        fine = "fine" in path.name.lower().split(".")
    allowed = range(5) if fine else range(2)
    expected = f"'<label> <sentence>' with label in {list(allowed)}"
    rows = []
    for number, line in _lines(path):
        head, _, text = line.partition(" ")
        if not text.strip() or not head.isdecimal() or not head.isascii() or int(head) not in allowed:
            raise DataFormatError(path, number, expected, line)
        rows.append((text.strip(), int(head), number))
    if not rows:
        raise DataFormatError(path, 0, "at least one '<label> <sentence>' line", "an empty file")
    return pd.DataFrame(rows, columns=["text", "label", "line"])


def load_reviews(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """The bundled review sentences (or any file in the SST sentence format)."""
    return load_sst_sentences(path or BUNDLED_REVIEWS, fine=False)


def fine_to_binary(label: int) -> int | None:
    """SST convention: 0-1 negative (0), 3-4 positive (1), 2 neutral (None)."""
    return 0 if label <= 1 else (1 if label >= 3 else None)


def load_sst_trees(path: str | os.PathLike, *, binary: bool = True) -> pd.DataFrame:
    """Read an SST PTB tree file.

    Args:
        path: File with one bracketed tree per line.
        binary: Map root labels to 0/1 and drop neutral (2) sentences, as the
            ``stsa.binary`` files do; ``False`` keeps the 0-4 labels.

    Returns:
        DataFrame with ``text`` (the leaves joined by spaces), ``label``,
        ``fine_label`` (root, 0-4), ``tree`` (:class:`mtlib.data.trees.Tree`) and ``line``;
        ``attrs["dropped_neutral"]`` counts the neutral roots dropped in binary mode.

    Raises:
        DataFormatError: a line that is not a well-formed tree, a node label
            that is not 0-4, or an empty file.
    """
    path = resolve_data_path(path)
    rows, dropped = [], 0
    for number, line in _lines(path):
        try:
            tree = parse_tree(line)
        except ValueError as err:
            raise DataFormatError(path, number, f"a bracketed PTB tree ({err})", line) from None
        bad = next((t.label for t in tree.subtrees() if t.label not in _SST_LABELS), None)
        if bad is not None:
            raise DataFormatError(path, number, "a sentiment label 0-4 on every node", bad)
        fine_label = int(tree.label)
        label = fine_to_binary(fine_label) if binary else fine_label
        if label is None:
            dropped += 1
            continue
        rows.append((tree.sentence, label, fine_label, tree, number))
    if not rows and not dropped:
        raise DataFormatError(path, 0, "at least one bracketed tree", "an empty file")
    if not rows:
        raise DataFormatError(
            path,
            0,
            "at least one tree with a non-neutral root (label 0, 1, 3 or 4)",
            f"{dropped} trees, all neutral (2)",
        )
    out = pd.DataFrame(rows, columns=["text", "label", "fine_label", "tree", "line"])
    out.attrs.update(fine=True, dropped_neutral=dropped, source=str(path))
    return out


def sentences_to_binary(df: pd.DataFrame, path: str | os.PathLike = "") -> pd.DataFrame:
    """Fine-grained sentence labels (0-4) mapped to binary, neutral (2) sentences dropped.

    The SST convention (:func:`fine_to_binary`): 0-1 negative, 3-4 positive.

    Returns:
        ``text, label, fine_label, line``; ``attrs["dropped_neutral"]`` is the
        number of neutral sentences dropped.
    """
    binary = df["label"].map(fine_to_binary)
    keep = binary.notna()
    out = df[keep].assign(fine_label=df.loc[keep, "label"], label=binary[keep].astype(int)).reset_index(drop=True)
    out = out[["text", "label", "fine_label", "line"]]
    out.attrs.update(fine=True, dropped_neutral=int((~keep).sum()), source=str(path))
    if out.empty:
        raise DataFormatError(
            Path(path), 0, "at least one non-neutral sentence (label 0, 1, 3 or 4)", f"{len(df)} neutral sentences"
        )
    return out


def load_sentiment(path: str | os.PathLike = "", fmt: str = "auto") -> pd.DataFrame:
    """Sentences with binary labels from any supported file.

    Fine-grained sentence files (``stsa.fine.*``: a ``fine`` part in the name,
    or any label above 1) and tree files are mapped to binary labels the SST
    way: 0-1 negative, 3-4 positive, 2 (neutral) dropped.

    Args:
        path: An SST sentence file (binary or fine-grained), an SST tree
            file, or empty for the bundled reviews.
        fmt: ``"auto"`` (a first line starting with ``(`` means trees),
            ``"sentences"`` or ``"trees"``.

    Returns:
        ``text, label, line`` (plus ``fine_label`` for fine-grained sentences
        and trees, ``tree`` for trees). ``attrs["dropped_neutral"]`` counts
        the neutral sentences dropped (0 for a binary file).
    """
    if not path:
        out = load_reviews()
        out.attrs.update(fine=False, dropped_neutral=0)
        return out
    resolved = resolve_data_path(path)
    if fmt == "auto":
        first = next((line for _, line in _lines(resolved)), "")
        fmt = "trees" if first.lstrip().startswith("(") else "sentences"
    if fmt == "trees":
        return load_sst_trees(resolved, binary=True)
    if fmt == "sentences":
        named_fine = "fine" in resolved.name.lower().split(".")
        named_binary = "binary" in resolved.name.lower().split(".")
        df = load_sst_sentences(resolved, fine=not named_binary)
        if named_fine or (df["label"] > 1).any():
            return sentences_to_binary(df, resolved)
        df.attrs.update(fine=False, dropped_neutral=0)
        return df
    raise ValueError(f"unknown format {fmt!r}; use 'auto', 'sentences' or 'trees'")


__all__ = [
    "BUNDLED_REVIEWS",
    "load_sst_sentences",
    "load_reviews",
    "fine_to_binary",
    "load_sst_trees",
    "sentences_to_binary",
    "load_sentiment",
]
