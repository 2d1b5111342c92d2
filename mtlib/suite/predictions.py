"""A model's saved outputs as a model: score a suite from a file, for models that cannot run here.

CheckList's ``run_from_file`` reads a model's predictions from a file; here
the file is a CSV with a header, or JSON Lines (one JSON object per line: a
``.jsonl`` or ``.ndjson`` file, or any file whose first line opens an object),
with a ``text`` column (key) and either

- a ``score`` column (one number per text, read like a scoring function's:
  the positive class's probability, or any score an order relation reads), or
- one column per class holding its probability (the columns' names are the
  class names, e.g. ``negative,positive``), read like a classifier's.

:func:`needed_texts` lists every text a suite will ask for (the sources and
every follow-up its transformations make), so a user can score exactly those
elsewhere (``python -m mtlib.suite texts SUITE.json``) and bring the file
back (``python -m mtlib.suite score SUITE.json PREDICTIONS.csv``).

Every refusal names the file and the line: a byte that is not UTF-8 (the file
is decoded line by line, :func:`mtlib.data.tsv.text_lines`), a line longer
than :data:`~mtlib.data.tsv.MAX_LINE_CHARS`, a line that is not JSON, an empty
or blank text, a value that is not a number (a word, a boolean, an empty cell,
JSON ``null``), NaN or an infinity, a class probability outside [0, 1], class
probabilities whose row does not sum to 1 within :data:`SUM_TOLERANCE`, a text
listed twice with different values. A file with one value column that is not
``score`` is refused as such (it is neither a score nor a set of classes). A
``score`` read as a probability (by an MFT) must lie in [0, 1]; that is
checked where it is read (:class:`~mtlib.suite.memo.ScoreMemo`), since an
order relation may read any score, and the message gives the file's line. A
text the file lacks is refused with the count and the first one missing.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.data.errors import DataArgumentError, DataFormatError
from mtlib.data.tsv import text_lines
from mtlib.relations.errors import MtlibInputError
from mtlib.relations.transformations.base import apply
from mtlib.suite.mft import MFT
from mtlib.suite.suite import Suite

__all__ = ["needed_texts", "read_predictions"]

#: How far a row of class probabilities may sum from 1: a row written with two decimals over two or three
#: classes is off by at most 0.015 by rounding alone, a softmax written in full by about 1e-7.
SUM_TOLERANCE = 0.02
#: How far a single class probability may stray outside [0, 1] (float32 written in full: 1.0000001).
_SLACK = 1e-6
#: File endings read as JSON Lines (a file with another ending is read as JSON Lines when its first line is ``{``).
JSONL_SUFFIXES = (".jsonl", ".ndjson")


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
        path: The file.
        calls: Look-ups made (one per batch).
    """

    def __init__(self, rows: dict[str, np.ndarray], lines: dict[str, int], width: int, name: str, path: str) -> None:
        self.name, self.path, self.calls = name, path, 0
        self._rows, self._lines, self._width = rows, lines, width

    def where(self, text: str) -> str:
        """``"<file>, line <n>"``: where the file gives ``text``'s prediction."""
        return f"{self.path}, line {self._lines[text]}" if text in self._lines else self.path

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

    def __init__(
        self, rows: dict[str, np.ndarray], lines: dict[str, int], labels: list[str], name: str, path: str
    ) -> None:
        super().__init__(rows, lines, len(labels), name, path)
        self.labels = list(labels)

    def classify(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities ``(n, k)`` from the file."""
        return self._rows_of(texts)


def refused(path: Path, line: int, message: str) -> MtlibInputError:
    """The error for a bad record: ``"<path>, line <line>: <message>"`` (no line: the file alone)."""
    return MtlibInputError(f"{path}, line {line}: {message}" if line else f"{path}: {message}", argument="predictions")


def checked_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The file's lines, UTF-8 checked one at a time; every error names the file (and the line)."""
    try:
        yield from text_lines(path)
    except DataFormatError as err:
        raise MtlibInputError(str(err), argument="predictions") from err
    except (OSError, DataArgumentError) as err:
        raise MtlibInputError(f"{path}: cannot read the predictions: {err}", argument="predictions") from err


def csv_records(path: Path, lines: Iterator[tuple[int, str]]) -> tuple[list[str], list[tuple[int, list[Any]]]]:
    """The header and ``(line, fields)`` of every record (a quoted text may span lines: its first line)."""
    numbered = list(lines)
    reader = csv.reader(line + "\n" for _, line in numbered)
    header: list[str] | None = None
    records: list[tuple[int, list[Any]]] = []
    done = 0
    try:
        for row in reader:
            start, done = numbered[done][0] if done < len(numbered) else 0, reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if header is None:
                header = [c.strip() for c in row]
                twice = sorted({c for c in header if header.count(c) > 1})
                if twice:
                    raise refused(path, start, f"the header names {twice} twice; expected each column once")
                continue
            if len(row) != len(header):
                raise refused(path, start, f"expected {len(header)} fields ({', '.join(header)}), got {len(row)}")
            records.append((start, row))
    except csv.Error as err:
        raise refused(path, numbered[min(reader.line_num, len(numbered)) - 1][0], f"not valid CSV ({err})") from err
    if header is None:
        raise refused(path, 0, "the file is empty; expected a header (text, then score or one column per class)")
    return header, records


def jsonl_records(
    path: Path, lines: Iterator[tuple[int, str]], key: str = "text"
) -> tuple[list[str], list[tuple[int, list[Any]]]]:
    """The keys of the first object and ``(line, values)`` of every line (each must hold those keys, ``key`` too)."""
    keys: list[str] | None = None
    records: list[tuple[int, list[Any]]] = []
    for number, line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise refused(
                path, number, f"not valid JSON at column {err.colno} ({err.msg}); expected one JSON object per line"
            ) from None
        if not isinstance(obj, dict):
            raise refused(path, number, f"expected a JSON object per line, got {type(obj).__name__} {line[:60]!r}")
        if keys is None:
            keys = list(obj)
            if key not in keys:
                raise refused(path, number, f"each JSON object needs a {key!r} key; this one has {keys}")
        missing = [k for k in keys if k not in obj]
        if missing:
            raise refused(path, number, f"the object lacks {missing}; every line needs the keys of the first {keys}")
        records.append((number, [obj[k] for k in keys]))
    if keys is None:
        raise refused(path, 0, "the file is empty; expected one JSON object per line")
    return keys, records


def finite_number(path: Path, line: int, column: str, value: Any) -> float:
    """A CSV cell or a JSON value as a finite float; anything else is refused with its line."""
    if type(value) in (str, float, int):  # the common case first: a number as written (no bool: a subclass)
        try:
            number = float(value)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number
    what = f"column {column!r} must hold numbers"
    if isinstance(value, bool) or (isinstance(value, str) and value.strip().lower() in ("true", "false")):
        shown = json.dumps(value) if isinstance(value, bool) else repr(value)
        raise refused(path, line, f"{what}, got the boolean {shown}: write the score or probability as a number")
    if value is None or (isinstance(value, str) and not value.strip()):
        raise refused(path, line, f"{what}, got an empty value ({'null' if value is None else 'an empty cell'})")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise refused(path, line, f"{what}, got {value!r}") from None
    else:
        raise refused(path, line, f"{what}, got {type(value).__name__} {str(value)[:40]!r}")
    if not math.isfinite(number):
        raise refused(path, line, f"{what}, got {value!r}: every value must be a finite number")
    return number


def _value_columns(path: Path, columns: list[str]) -> list[str]:
    if "text" not in columns:
        raise MtlibInputError(
            f"{path}: the predictions need a 'text' column; the header has {columns}", argument="predictions"
        )
    if "score" in columns:
        return ["score"]
    values = [c for c in columns if c != "text"]
    if len(values) == 1:
        raise MtlibInputError(
            f"{path}: no 'score' column: the only value column is {values[0]!r}; expected a 'score' column (one "
            f"number per text) or one probability column per class, two or more, named by the class",
            argument="predictions",
        )
    if not values:
        raise MtlibInputError(
            f"{path}: no value column: give a 'score' column, or one probability column per class",
            argument="predictions",
        )
    return values


def _check_probabilities(path: Path, line: int, columns: list[str], row: list[float]) -> None:
    total = sum(row)
    outside = [(c, v) for c, v in zip(columns, row) if not -_SLACK <= v <= 1 + _SLACK]
    if not outside and abs(total - 1) <= SUM_TOLERANCE:
        return
    shown = ", ".join(f"{c}={v:g}" for c, v in zip(columns, row))
    if outside:
        raise refused(
            path,
            line,
            f"class probabilities must lie in [0, 1], got {shown} (logits or other scores: apply a softmax, or "
            f"write one 'score' column)",
        )
    if abs(total - 1) > SUM_TOLERANCE:
        raise refused(
            path,
            line,
            f"the class probabilities ({shown}) sum to {total:g}; expected 1 within {SUM_TOLERANCE:g} (one "
            f"probability per class; a file of independent scores needs one 'score' column)",
        )


def read_predictions(path: str | Path, *, name: str | None = None) -> PredictedScores:
    """A CSV or JSON Lines file of saved outputs as a model, checked line by line (see the module docstring).

    Returns:
        A :class:`PredictionsModel` (``classify`` and ``labels``) for a file with class columns, or
        :class:`PredictedScores` (a scoring function) for a file with a ``score`` column.

    Raises:
        MtlibInputError: what the module docstring lists, naming the file and the line.
    """
    path = Path(path)
    lines = checked_lines(path)
    first = next(((n, line) for n, line in lines if line.strip()), None)
    rest = itertools.chain([first] if first else [], lines)  # an empty file: each reader says so in its words
    jsonl = path.suffix.lower() in JSONL_SUFFIXES or (first is not None and first[1].lstrip().startswith("{"))
    columns, records = jsonl_records(path, rest) if jsonl else csv_records(path, rest)
    values = _value_columns(path, columns)
    at_text, at_values = columns.index("text"), [columns.index(c) for c in values]
    rows: dict[str, list[float]] = {}
    seen: dict[str, int] = {}
    for line, fields in records:
        text = fields[at_text]
        if not isinstance(text, str) or not text.strip():
            found = "an empty or blank text" if isinstance(text, str) else f"{type(text).__name__} {text!r}"
            raise refused(path, line, f"the 'text' column must hold a non-blank text, got {found}")
        row = [finite_number(path, line, c, fields[i]) for c, i in zip(values, at_values)]
        if values != ["score"]:
            _check_probabilities(path, line, values, row)
        if text in rows:
            if rows[text] != row:
                raise refused(
                    path, line, f"text {text[:80]!r} has two different predictions (here and on line {seen[text]})"
                )
            continue
        rows[text], seen[text] = row, line
    # one array for the file, one row of it per text (not an array built per line)
    table = dict(zip(rows, np.array(list(rows.values()), dtype=float).reshape(len(rows), len(values))))
    stem = name or path.stem
    if values == ["score"]:
        return PredictedScores(table, seen, 1, stem, str(path))
    return PredictionsModel(table, seen, values, stem, str(path))
