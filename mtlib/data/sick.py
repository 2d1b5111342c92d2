"""SICK (Marelli et al. 2014): sentence pairs with entailment labels, and the bundled stand-in.

Two real layouts are read, both tab-separated with a header line:

- the full release ``SICK.txt``: ``pair_ID sentence_A sentence_B
  entailment_label relatedness_score entailment_AB entailment_BA
  sentence_A_original sentence_B_original sentence_A_dataset
  sentence_B_dataset SemEval_set`` (CRLF line ends); ``entailment_AB`` reads
  ``A_entails_B`` / ``A_neutral_B`` / ``A_contradicts_B``, ``entailment_BA``
  the same with A and B swapped;
- the SemEval 2014 task-1 files: ``pair_ID sentence_A sentence_B
  relatedness_score entailment_judgment`` (A to B only).

The bundled ``data/nli_pool/SICK.txt`` has the first layout (written for
mtlib by ``data/nli_pool/make_sick.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from mtlib.data.errors import DataFormatError, resolve_data_path
from mtlib.data.tsv import header_index, read_header

BUNDLED_SICK = "nli_pool/SICK.txt"
LABELS = ("ENTAILMENT", "NEUTRAL", "CONTRADICTION")
FULL_COLUMNS = (
    "pair_ID",
    "sentence_A",
    "sentence_B",
    "entailment_label",
    "relatedness_score",
    "entailment_AB",
    "entailment_BA",
    "sentence_A_original",
    "sentence_B_original",
    "sentence_A_dataset",
    "sentence_B_dataset",
    "SemEval_set",
)
SEMEVAL_COLUMNS = ("pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment")
#: The range of ``relatedness_score`` (the mean of annotators' 1-5 ratings).
RELATEDNESS = (1.0, 5.0)
# Allowed values of the label-like columns.
ALLOWED = {
    "entailment_label": LABELS,
    "entailment_judgment": LABELS,
    "entailment_AB": ("A_entails_B", "A_neutral_B", "A_contradicts_B"),
    "entailment_BA": ("B_entails_A", "B_neutral_A", "B_contradicts_A"),
    "SemEval_set": ("TRAIN", "TRIAL", "TEST"),
}


def _layout(path: Path, header: list[str]) -> tuple[str, ...]:
    """The layout whose columns the header has (extra columns are kept)."""
    if "entailment_label" in header or "entailment_AB" in header:
        return FULL_COLUMNS
    if "entailment_judgment" in header:
        return SEMEVAL_COLUMNS
    raise DataFormatError(
        path, 1, f"a SICK header: either {' '.join(FULL_COLUMNS)} or {' '.join(SEMEVAL_COLUMNS)}", "\t".join(header)
    )


def load_sick(path: str | os.PathLike = BUNDLED_SICK) -> pd.DataFrame:
    """Read a SICK file (full release or SemEval 2014 layout).

    Args:
        path: The file, absolute or relative to the bundled ``data/`` folder.

    Returns:
        One row per pair with the file's columns (strings, except
        ``pair_ID`` as int and ``relatedness_score`` as float) and ``line``,
        the 1-based line number in the file.

    Raises:
        DataFormatError: a missing column, a row with too few fields, a
            label outside the allowed values or a relatedness_score that is not a
            number from 1 to 5 (``nan``, ``inf``); the message names the file,
            the line and what was expected.
    """
    path = resolve_data_path(path)
    header, rows = read_header(path)
    layout = _layout(path, header)
    index = header_index(path, header, layout)
    checks = [(c, ALLOWED[c]) for c in ALLOWED if c in index]
    records, lines = [], []
    for number, fields in rows:
        need = max(index[c] for c in layout) + 1
        if len(fields) < need:
            raise DataFormatError(
                path, number, f"{len(header)} tab-separated columns ({' '.join(header)})", "\t".join(fields)
            )
        for column, allowed in checks:
            if fields[index[column]] not in allowed:
                raise DataFormatError(path, number, f"{column} in {list(allowed)}", fields[index[column]])
        for column in ("sentence_A", "sentence_B"):
            if not fields[index[column]]:
                raise DataFormatError(path, number, f"a non-empty {column}", "\t".join(fields))
        try:
            pair_id, score = int(fields[index["pair_ID"]]), float(fields[index["relatedness_score"]])
        except ValueError:
            raise DataFormatError(
                path,
                number,
                "an integer pair_ID and a numeric relatedness_score",
                f"{fields[index['pair_ID']]} / {fields[index['relatedness_score']]}",
            ) from None
        if not RELATEDNESS[0] <= score <= RELATEDNESS[1]:  # also NaN and inf, which float() reads
            raise DataFormatError(
                path,
                number,
                f"a relatedness_score from {RELATEDNESS[0]:g} to {RELATEDNESS[1]:g}",
                fields[index["relatedness_score"]],
            )
        record: dict[str, Any] = {name: (fields[i] if i < len(fields) else "") for name, i in index.items()}
        record.update(pair_ID=pair_id, relatedness_score=score)
        records.append(record)
        lines.append(number)
    if not records:
        raise DataFormatError(path, 0, "at least one pair after the header", "no rows")
    frame = pd.DataFrame(records, columns=list(index))
    frame["line"] = lines
    return frame


__all__ = ["BUNDLED_SICK", "RELATEDNESS", "LABELS", "FULL_COLUMNS", "SEMEVAL_COLUMNS", "ALLOWED", "load_sick"]
