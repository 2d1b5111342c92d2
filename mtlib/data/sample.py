"""Seeded subsets of a loaded dataset: the size parameters of the profiles (``n_sources``, ``max_contexts``...).

One helper for every loader's output, so a smoke profile shrinks the data in
the same way everywhere and a notebook never spells ``sample(...)`` itself.
"""

from __future__ import annotations

import pandas as pd

from mtlib.data.errors import DataArgumentError, check_count
from mtlib.utils.inputs import check_seed


def subsample(
    frame: pd.DataFrame, n: int, seed: int = 0, *, by: str | None = None, sort: str | None = None
) -> pd.DataFrame:
    """At most ``n`` rows of ``frame``, drawn at random (0 keeps every row).

    Args:
        frame: A loader's table.
        n: Rows to keep; ``0`` (or ``n >= len(frame)`` without ``by``) keeps all.
        seed: Seeds the draw.
        by: Stratify: the same number of rows, ``max(1, n // groups)``, from
            each value of this column (e.g. ``monotonicity``), so every group
            stays represented.
        sort: Column to sort the kept rows by (e.g. an id, to keep file
            order); without it, the drawn order is kept.

    Returns:
        The kept rows with a fresh index; ``attrs`` are kept.

    Raises:
        DataArgumentError: ``n`` is not an integer >= 0 (``-1``, ``2.5``, ``True``), or ``by`` or
            ``sort`` names no column of ``frame``.
        MtlibInputError: ``seed`` is not an integer in [0, 2**32 - 1].
    """
    n = check_count(n, "subsample", "n")
    seed = check_seed(seed, "subsample")
    for argument, column in (("by", by), ("sort", sort)):
        if column is not None and column not in frame.columns:
            raise DataArgumentError("subsample", argument, f"a column of the table ({list(frame.columns)})", column)
    if not n:
        return frame
    if by is None:
        out = frame.sample(n=min(n, len(frame)), random_state=seed)
    else:
        per_group = max(1, n // max(1, frame[by].nunique()))
        out = frame.sample(frac=1.0, random_state=seed).groupby(by, sort=False).head(per_group)
    if sort is not None:
        out = out.sort_values(sort)
    out = out.reset_index(drop=True)
    out.attrs.update(frame.attrs)
    return out


__all__ = ["subsample"]
