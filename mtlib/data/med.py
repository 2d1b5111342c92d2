"""MED (Yanaka et al. 2019): the Monotonicity Entailment Dataset, premise-hypothesis pairs in MultiNLI's layout.

Intuition: NLI-XY asks whether a model follows monotonicity (replacing a word
by a hypernym keeps or breaks entailment depending on the context). MED is the
training and test material written for exactly that: 5,382 pairs labelled
``entailment`` or ``neutral``, each tagged with where it comes from and which
direction of monotonicity it exercises (``genre`` such as
``paper:FraCaS_GQ:upward_monotone``).

The real ``MED.tsv`` is tab-separated with a header line::

    index promptID pairID genre sentence1_binary_parse sentence2_binary_parse
    sentence1_parse sentence2_parse sentence1 sentence2 label1 ... label5 gold_label

Only ``genre``, ``sentence1``, ``sentence2`` and ``gold_label`` are needed;
the other columns are kept when present (label2..label5 are often empty).
"""

from __future__ import annotations

import os

import pandas as pd

from mtlib.data.errors import DataFormatError, resolve_data_path
from mtlib.data.tsv import header_index, read_header

__all__ = ["REQUIRED", "LABELS", "load_med"]

#: Columns a MED file must have.
REQUIRED = ("genre", "sentence1", "sentence2", "gold_label")
#: Gold labels of MED (a two-way task).
LABELS = ("entailment", "neutral")


def load_med(path: str | os.PathLike) -> pd.DataFrame:
    """Read a MED file (``MED.tsv``).

    Args:
        path: The file, absolute or relative to the bundled ``data/`` folder.

    Returns:
        One row per pair with the file's columns (strings), ``entailed``
        (bool: ``gold_label == "entailment"``) and ``line``, the 1-based line
        number in the file; shape ``(n, columns + 2)``.

    Raises:
        DataFormatError: a header without the required columns, a row with
            too few fields, an empty sentence or a gold label outside
            ``entailment``/``neutral``; the message names the file, the line
            and what was expected.
    """
    path = resolve_data_path(path)
    header, rows = read_header(path, keep_trailing=True)
    index = header_index(path, header, REQUIRED)
    need = max(index[c] for c in REQUIRED) + 1
    records, lines = [], []
    for number, fields in rows:
        if len(fields) < need:
            raise DataFormatError(
                path,
                number,
                f"at least {need} tab-separated columns up to gold_label ({' '.join(header)})",
                "\t".join(fields),
            )
        for column in ("sentence1", "sentence2"):
            if not fields[index[column]]:
                raise DataFormatError(path, number, f"a non-empty {column}", "\t".join(fields))
        label = fields[index["gold_label"]]
        if label not in LABELS:
            raise DataFormatError(path, number, f"gold_label in {list(LABELS)}", label)
        records.append({name: (fields[i] if i < len(fields) else "") for name, i in index.items()})
        lines.append(number)
    if not records:
        raise DataFormatError(path, 0, "at least one pair after the header", "no rows")
    frame = pd.DataFrame(records, columns=list(index))
    frame["entailed"] = frame["gold_label"] == "entailment"
    frame["line"] = lines
    return frame
