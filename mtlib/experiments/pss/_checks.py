"""Checks at the PSS entries: a wrong argument fails there, naming it (and the row), not deep inside pandas.

Intuition: rewrite pairs come from files and style-transfer models, so a missing
rewrite (``NaN``), a number or a ``None`` source can slip in; ``str()`` used to
turn them into the words ``"nan"`` or ``"5"`` and the pair was scored as if it
were text. Each check raises :class:`~mtlib.relations.MtlibInputError` (a
``ValueError``) naming the function, the argument and what was expected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations.errors import MtlibInputError, refuse


def check_text_columns(frame: pd.DataFrame, where: str, argument: str, columns: Sequence[str]) -> None:
    """Every value of ``columns`` is a ``str``; else the error names the first bad row and column.

    >>> check_text_columns(pd.DataFrame({"rewrite": ["ok", 5]}), "clean_pairs", "pairs", ["rewrite"])
    Traceback (most recent call last):
    ...
    mtlib.utils.inputs.MtlibInputError: clean_pairs: pairs row 1 (index 1), column 'rewrite' must be a text \
(str), got int 5 (1 such row)
    """
    for column in columns:
        values = frame[column].to_numpy(dtype=object)
        bad = np.flatnonzero([not isinstance(v, str) for v in values])
        if len(bad):
            i = int(bad[0])
            value, label = values[i], frame.index[i]
            label = label.item() if isinstance(label, np.generic) else label
            raise MtlibInputError(
                f"{where}: {argument} row {i} (index {label!r}), column {column!r} must be a text (str), "
                f"got {type(value).__name__} {value!r} ({len(bad)} such row{'s' if len(bad) > 1 else ''})",
                argument=f"{argument}[{column!r}]",
                expected="a text (str)",
            )


def check_names(names: Any, where: str, argument: str) -> list[str]:
    """A list of names (``str``), possibly empty; a bare string (which would iterate its letters) is refused.

    >>> check_names(("minilm",), "settings_grid", "encoders")
    ['minilm']
    """
    expected = "a list of names (str)"
    if isinstance(names, (str, bytes, dict)) or not isinstance(names, (Sequence, np.ndarray, pd.Index, pd.Series)):
        raise refuse(where, argument, expected, names)
    out = list(names)
    for i, name in enumerate(out):
        if not isinstance(name, str):
            raise refuse(where, f"{argument}[{i}]", "a name (str)", name)
    return out
