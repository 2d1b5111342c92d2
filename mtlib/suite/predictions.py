"""A model's saved outputs as a model: score a suite from a file, for models that cannot run here.

CheckList's ``run_from_file`` reads a model's predictions from a file; here
the file is a CSV with a ``text`` column and either

- a ``score`` column (one number per text, read like a scoring function's:
  the positive class's probability, or any score an order relation reads), or
- one column per class holding its probability (the columns' names are the
  class names, e.g. ``negative,positive``), read like a classifier's.

:func:`needed_texts` lists every text a suite will ask for (the sources and
every follow-up its transformations make), so a user can score exactly those
elsewhere (``python -m mtlib.suite texts SUITE.json``) and bring the file
back (``python -m mtlib.suite score SUITE.json PREDICTIONS.csv``). A text the
file lacks is refused with the count and the first one missing; a value that
is not a number with its line; NaN, infinite and empty values (pandas writes
NaN as an empty cell) with the test's name, the count and the first text, as
for any model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtlib.relations.errors import MtlibInputError
from mtlib.relations.transformations.base import apply
from mtlib.suite.mft import MFT
from mtlib.suite.suite import Suite

__all__ = ["PredictedScores", "PredictionsModel", "needed_texts", "read_predictions"]


def needed_texts(suite: Suite) -> list[str]:
    """Every unique text the suite's tests score: each test's inputs, then their follow-ups, in first-seen order."""
    texts: dict[str, None] = {}
    for test in suite.tests:
        sources = test.texts()
        texts.update(dict.fromkeys(sources))
        if not isinstance(test.relation, MFT):
            for t in test.relation.transforms:
                follow, _ = apply(t, sources)
                texts.update(dict.fromkeys(f for f in follow if f is not None))
    return list(texts)


class PredictedScores:
    """Saved scores, looked up by text: a scoring function ``texts -> (n,)`` with a name.

    Attributes:
        name: The model's name in results (default: the file's stem).
        calls: Look-ups made (one per batch).
    """

    def __init__(self, frame: pd.DataFrame, columns: list[str], name: str, path: str) -> None:
        self.name, self.path, self.calls = name, path, 0
        self._width = len(columns)
        self._rows = dict(zip(frame["text"], frame[columns].to_numpy(dtype=float)))

    def _rows_of(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        missing = [t for t in texts if t not in self._rows]
        if missing:
            raise MtlibInputError(
                f"{self.path}: no prediction for {len(missing):,} of the {len(texts):,} texts asked for; the "
                f"first: {missing[0][:80]!r} (write every text of `python -m mtlib.suite texts SUITE.json`)",
                argument="predictions",
            )
        return np.stack([self._rows[t] for t in texts]) if texts else np.zeros((0, self._width))

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Scores ``(n,)`` from the file's ``score`` column."""
        return self._rows_of(texts)[:, 0]


class PredictionsModel(PredictedScores):
    """Saved class probabilities, looked up by text: ``classify(texts) -> (n, k)`` and ``labels``."""

    def __init__(self, frame: pd.DataFrame, columns: list[str], name: str, path: str) -> None:
        super().__init__(frame, columns, name, path)
        self.labels = list(columns)

    def classify(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities ``(n, k)`` from the file."""
        return self._rows_of(texts)


def read_predictions(path: str | Path, *, name: str | None = None) -> PredictedScores:
    """A CSV of saved outputs as a model (:class:`PredictionsModel`), checked line by line.

    Returns:
        A :class:`PredictionsModel` (``classify`` and ``labels``) for a file with class columns, or
        :class:`PredictedScores` (a scoring function) for a file with a ``score`` column.

    Raises:
        MtlibInputError: no ``text`` column, no value column, a value that is not a number
            (with its line), a text listed twice with different values.
    """
    path = Path(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise MtlibInputError(f"{path}: cannot read the predictions: {err}", argument="predictions") from err
    if "text" not in frame.columns:
        raise MtlibInputError(
            f"{path}: the predictions need a 'text' column; the header has {list(frame.columns)}",
            argument="predictions",
        )
    columns = ["score"] if "score" in frame.columns else [c for c in frame.columns if c != "text"]
    if not columns:
        raise MtlibInputError(
            f"{path}: no value column: give a 'score' column, or one probability column per class",
            argument="predictions",
        )
    for col in columns:
        values = pd.to_numeric(frame[col].str.strip(), errors="coerce")
        bad = values.isna() & ~frame[col].str.strip().str.lower().isin(["", "nan", "inf", "-inf", "+inf"])
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise MtlibInputError(
                f"{path}, line {i + 2}: column {col!r} must hold numbers, got {frame[col].iloc[i]!r}",
                argument="predictions",
            )
        frame[col] = values
    dup = frame.duplicated("text", keep=False)
    if dup.any() and len(frame[dup].drop_duplicates(["text", *columns])) > frame[dup]["text"].nunique():
        first = frame.loc[dup, "text"].iloc[0]
        raise MtlibInputError(f"{path}: text {first[:80]!r} has two different predictions", argument="predictions")
    kind = PredictedScores if columns == ["score"] else PredictionsModel
    return kind(frame.drop_duplicates("text"), columns, name or path.stem, str(path))
