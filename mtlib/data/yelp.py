"""Yelp sentiment-transfer data (Li et al. 2018) and the bundled Yelp-style files.

Formats (one folder holds them all):

- ``sentiment.{train,dev,test}.{0,1}``: one sentence per line, lower-cased and
  space-tokenised; the file's last suffix is the label (0 negative, 1 positive);
- ``reference.0`` / ``reference.1`` (Li et al.): ``source<TAB>rewrite`` per
  line; ``reference.0`` holds negative sources rewritten positive,
  ``reference.1`` positive sources rewritten negative (500 lines each);
- the rpryzant delete-retrieve-generate variant: one sentence per line in two
  line-aligned files, ``reference.test.0`` (the negative sources) beside
  ``reference.test.1`` (their positive rewrites), 500 pairs in one direction.
  Any other pair of line-aligned files (a transfer model's inputs and
  outputs) reads with :func:`read_aligned_pairs`.

The bundled stand-in is ``data/yelp_style/`` (written by
``data/yelp_style/make_yelp_style.py``). Every loader rejects malformed input
with :class:`~mtlib.data.errors.DataFormatError` naming the file, the line and
the expected format.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from mtlib.data.errors import DataArgumentError, DataFormatError, check_choice, path_component, resolve_data_path
from mtlib.data.tsv import text_lines as _raw_lines

BUNDLED_DIR = "yelp_style"
SPLITS = ("train", "dev", "test")
LABELS = (0, 1)
#: Direction of a rewrite, by the source's label: 0 -> "neg_to_pos", 1 -> "pos_to_neg".
DIRECTIONS = ("neg_to_pos", "pos_to_neg")
REFERENCE_FORMATS = ("auto", "li", "rpryzant")
_SENTIMENT_FILE = re.compile(r"^sentiment\.(\w+)\.([^.]+)$")
_PAIR_COLUMNS = ["source", "rewrite", "direction", "file", "line"]


def _folder(directory: str | os.PathLike) -> Path:
    folder = resolve_data_path(directory or BUNDLED_DIR)
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder}: expected a folder holding sentiment.* / reference.* files")
    return folder


def read_sentences(path: str | os.PathLike, label: int) -> pd.DataFrame:
    """Read one sentence file (one sentence per line; blank lines skipped).

    Returns:
        ``text, label, line``.

    Raises:
        DataArgumentError: ``label`` is not 0 or 1.
        DataFormatError: a line with a tab (a reference file given by mistake)
            or an empty file.
    """
    label = check_choice(label, LABELS, "read_sentences", "label")
    path = resolve_data_path(path)
    rows = []
    for number, line in _raw_lines(path):
        if not line.strip():
            continue
        if "\t" in line:
            raise DataFormatError(path, number, "one sentence per line, no tab (is this a reference file?)", line)
        rows.append((line.strip(), label, number))
    if not rows:
        raise DataFormatError(path, 0, "at least one sentence", "an empty file")
    return pd.DataFrame(rows, columns=["text", "label", "line"])


def load_sentences(directory: str | os.PathLike = BUNDLED_DIR, splits: Sequence[str] = SPLITS) -> pd.DataFrame:
    """All ``sentiment.<split>.<label>`` files of a folder.

    Args:
        directory: The folder (absolute, or relative to the bundled ``data/``);
            empty means the bundled ``yelp_style``.
        splits: Which splits to read (each must have a ``.0`` and a ``.1`` file).

    Returns:
        DataFrame ``text, label (0/1), split, file, line``, split by split,
        negatives first.

    Raises:
        DataArgumentError: ``splits`` is a bare string, empty, or names a split that is not one file-name part.
        FileNotFoundError: a split's file is missing (the message lists what is expected).
        DataFormatError: a ``sentiment.<split>.<x>`` file whose label ``x`` is
            not 0 or 1, or a malformed line.
    """
    if isinstance(splits, (str, bytes)) or not len(splits):
        raise DataArgumentError(
            "load_sentences", "splits", f"a non-empty list of splits such as {list(SPLITS)}", splits
        )
    splits = [path_component(s, "load_sentences", "splits") for s in splits]
    folder = _folder(directory)
    for p in sorted(folder.iterdir()):
        m = _SENTIMENT_FILE.match(p.name)
        if m and m.group(1) in splits and m.group(2) not in {"0", "1"}:
            raise DataFormatError(
                p, 0, "a label suffix 0 (negative) or 1 (positive) on sentiment.<split>.<label>", m.group(2)
            )
    frames = []
    for split in splits:
        for label in LABELS:
            path = folder / f"sentiment.{split}.{label}"
            if not path.exists():
                raise FileNotFoundError(
                    f"{path}: missing; a Yelp folder holds sentiment.{{train,dev,test}}.{{0,1}} "
                    f"(one sentence per line; 0 negative, 1 positive)"
                )
            df = read_sentences(path, label)
            frames.append(df.assign(split=split, file=path.name))
    return pd.concat(frames, ignore_index=True)[["text", "label", "split", "file", "line"]]


def read_tab_pairs(path: str | os.PathLike, direction: str) -> pd.DataFrame:
    """Read one Li et al. reference file: ``source<TAB>rewrite`` per line.

    Raises:
        DataArgumentError: ``direction`` is not ``neg_to_pos`` or ``pos_to_neg``.
        DataFormatError: a line without exactly one tab, or with an empty side.
    """
    direction = check_choice(direction, DIRECTIONS, "read_tab_pairs", "direction")
    path = resolve_data_path(path)
    expected = "'source<TAB>rewrite' (one tab, both sides non-empty)"
    rows = []
    for number, line in _raw_lines(path):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise DataFormatError(path, number, expected, line)
        rows.append((fields[0].strip(), fields[1].strip(), direction, path.name, number))
    if not rows:
        raise DataFormatError(path, 0, expected, "an empty file")
    return pd.DataFrame(rows, columns=_PAIR_COLUMNS)


def read_aligned_pairs(source_path: str | os.PathLike, rewrite_path: str | os.PathLike, direction: str) -> pd.DataFrame:
    """Pair line *i* of a source file with line *i* of a rewrite file (one sentence per line).

    Args:
        source_path: The sentences that were rewritten.
        rewrite_path: Their rewrites, line-aligned.
        direction: ``"neg_to_pos"`` or ``"pos_to_neg"``.

    Returns:
        ``source, rewrite, direction, file, line`` (``file``/``line`` point at the rewrite).

    Raises:
        DataFormatError: the files differ in length, a line is empty or holds a tab.
    """
    direction = check_choice(direction, DIRECTIONS, "read_aligned_pairs", "direction")
    src_path, rew_path = resolve_data_path(source_path), resolve_data_path(rewrite_path)
    sources, rewrites = list(_raw_lines(src_path)), list(_raw_lines(rew_path))
    # a final empty line is only the file's last line end
    for lines in (sources, rewrites):
        while lines and not lines[-1][1].strip():
            lines.pop()
    if len(sources) != len(rewrites):
        raise DataFormatError(
            rew_path,
            min(len(sources), len(rewrites)) + 1,
            f"one rewrite per line of {src_path.name} ({len(sources)} lines)",
            f"{len(rewrites)} lines",
        )
    rows = []
    for (n, s), (_, r) in zip(sources, rewrites):
        for path, text in ((src_path, s), (rew_path, r)):
            if not text.strip() or "\t" in text:
                raise DataFormatError(
                    path,
                    n,
                    "one non-empty sentence per line (no tab), line-aligned with "
                    f"{(rew_path if path == src_path else src_path).name}",
                    text,
                )
        rows.append((s.strip(), r.strip(), direction, rew_path.name, n))
    if not rows:
        raise DataFormatError(rew_path, 0, "at least one rewrite", "an empty file")
    return pd.DataFrame(rows, columns=_PAIR_COLUMNS)


def reference_format(directory: str | os.PathLike = BUNDLED_DIR) -> str:
    """``"li"`` when ``reference.0``/``reference.1`` exist, ``"rpryzant"`` for ``reference.test.{0,1}``."""
    folder = _folder(directory)
    if (folder / "reference.0").exists() or (folder / "reference.1").exists():
        return "li"
    if (folder / "reference.test.0").exists() and (folder / "reference.test.1").exists():
        return "rpryzant"
    raise FileNotFoundError(
        f"{folder}: no reference pairs; expected reference.0 and reference.1 "
        "('source<TAB>rewrite', Li et al. 2018) or reference.test.0 beside reference.test.1 "
        "(line-aligned sources and rewrites, rpryzant/delete_retrieve_generate)"
    )


def load_reference_pairs(directory: str | os.PathLike = BUNDLED_DIR, fmt: str = "auto") -> pd.DataFrame:
    """Every (source, rewrite) pair of a folder's reference files.

    Args:
        directory: The folder; empty means the bundled ``yelp_style``.
        fmt: ``"li"`` (``reference.0`` and ``reference.1``, tab-separated; both
            files required), ``"rpryzant"`` (``reference.test.0`` sources beside
            ``reference.test.1`` rewrites, one per line: negative to positive
            only), or ``"auto"`` (whichever is there, ``li`` first).

    Returns:
        DataFrame ``source, rewrite, direction, file, line``; ``direction`` is
        ``"neg_to_pos"`` (source negative, rewrite meant positive) or
        ``"pos_to_neg"``.

    Raises:
        FileNotFoundError: no reference files of the format.
        DataFormatError: a line with a missing tab or an empty side, or
            line-aligned files of different lengths (file and line named).
    """
    fmt = check_choice(fmt, REFERENCE_FORMATS, "load_reference_pairs", "fmt")
    folder = _folder(directory)
    if fmt == "auto":
        fmt = reference_format(folder)
    if fmt == "rpryzant":
        return read_aligned_pairs(folder / "reference.test.0", folder / "reference.test.1", "neg_to_pos")
    frames = []
    for label, direction in zip(LABELS, DIRECTIONS):
        path = folder / f"reference.{label}"
        if not path.exists():
            raise FileNotFoundError(
                f"{path}: missing; Li et al. reference files come as reference.0 "
                "(negative sources) and reference.1 (positive sources), 'source<TAB>rewrite'"
            )
        frames.append(read_tab_pairs(path, direction))
    return pd.concat(frames, ignore_index=True)


__all__ = ["DIRECTIONS"]
