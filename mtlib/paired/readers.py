"""Per-item results from any evaluation tool, read with each item's identity and its file and line kept.

Every reader returns the same long table (:data:`COLUMNS`): one row per item and metric, ``task, metric, id, group,
value, n, line``, with the file in ``attrs["path"]`` and what was left out in ``attrs["notes"]``. An item's mean
contribution is ``value / n`` (``n = 1`` except for a suite item, whose value is its violations over its ``n``
cases). Four formats:

- **lm-evaluation-harness** ``--log_samples`` files, ``samples_<task>_<date>.jsonl`` (a file, or the folder lm-eval
  wrote them to). The fields are those of the sample dict built in ``lm_eval/evaluator.py`` (``evaluate``, "if
  log_samples": ``doc_id, doc, target, arguments, resps, filtered_resps, filter, metrics, doc_hash, prompt_hash,
  target_hash``, then ``example.update(metrics)``: one key per metric name listed in ``metrics``), and the file name
  is the one ``lm_eval/loggers/evaluation_tracker.py`` (``save_results_samples``) writes; read from lm-eval 0.4.13.
  The id is ``doc_id``; the metric is ``<name>,<filter>`` as lm-eval's results JSON names it (``acc,none``), with
  one line per document and filter. A metric whose value is not a number (``bleu``'s and ``perplexity``'s per-item
  tuples, aggregated by the corpus) is left out and said so. Several sample files of one task in a folder are
  repeated runs (``--seed``, sampled generation): their items of one document form one group (``id =
  <doc_id>#<run>``).
- **CSV or JSON Lines** (``.jsonl``/``.ndjson``) of ``id``, optional ``task`` and ``group``, and metric columns:
  every other column whose values are numbers (others, like a prediction text, are left out and said so).
- **inspect_ai logs**, ``.eval`` or ``.json``, a file or a folder of one model's logs
  (:mod:`mtlib.paired.inspect_logs`): the id is the sample id, its epochs one group; one metric per scorer.
- **a saved mtlib suite result** (``SuiteResult.save``, format ``mtlib.suite-result/1``): per test, per source item,
  the metrics ``violation_rate`` (the item's violations over its cases, so the mean is the suite's rate) and
  ``item_failed`` (0/1: any case violated, what :func:`mtlib.suite.compare`'s McNemar counts).

Refused, naming the file and the line: a line that is not JSON, a missing or empty id, a metric that is not a finite
number (NaN, null, a word), an id given twice with different values. Given twice with the same values, it is kept
once.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtlib.paired.inspect_logs import frame_of, inspect_files, is_inspect_json
from mtlib.relations.errors import MtlibInputError
from mtlib.suite.outcome import frame_from_json
from mtlib.suite.predictions import JSONL_SUFFIXES, checked_lines, csv_records, finite_number, jsonl_records, refused
from mtlib.suite.result import FORMAT as SUITE_FORMAT
from mtlib.utils.provenance import record_input

__all__ = ["read_items"]

#: The columns every reader returns.
COLUMNS = ["task", "metric", "id", "group", "value", "n", "line"]
#: lm-eval's own keys of a sample line (``lm_eval/evaluator.py``), never metrics.
LMEVAL_KEYS = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics"}
_SAMPLES = re.compile(r"samples_(?P<task>.+?)_(?P<date>\d{4}-\d\d-\d\dT[\d\-.:]+)\.jsonl$")


def _table(path: Path, rows: list[tuple[Any, ...]] | list[pd.DataFrame], notes: list[str]) -> pd.DataFrame:
    """The long table (from rows, or from parts of it), duplicates checked: an id twice with other values is
    refused, with the same kept once."""
    if rows and isinstance(rows[0], pd.DataFrame):
        frame = pd.concat(rows, ignore_index=True)
    else:
        frame = pd.DataFrame(rows, columns=COLUMNS)
    key = ["task", "metric", "id"]
    twice = frame[frame.duplicated(key, keep=False)]
    if len(twice):
        for _, same in twice.groupby(key, sort=False):
            if same[["value", "n", "group"]].nunique().max() > 1:
                first, other = same.iloc[0], same.iloc[1]
                raise refused(
                    path,
                    int(other["line"]),
                    f"id {other['id']!r} (task {other['task']!r}, metric {other['metric']!r}) has value "
                    f"{other['value']:g} here and {first['value']:g} on line {int(first['line'])}",
                )
        notes.append(
            f"{path}: {len(twice) - twice.drop_duplicates(key).shape[0]:,} rows repeat an id with the "
            f"same values, kept once"
        )
        frame = frame.drop_duplicates(key).reset_index(drop=True)
    frame.attrs.update(path=str(path), notes=notes)
    return frame


def _unnamed_filters(path: Path, keys: list[str], records: list[tuple[int, list[Any]]], notes: set[str]) -> list[str]:
    """The filter of each line: its ``filter`` field, else (lm-eval before the field existed wrote one line per
    document and filter without naming the filter: lm-eval #1687, #2025) ``#k`` for a document's k-th line."""
    if "filter" in keys:
        at = keys.index("filter")
        return [str(values[at]) for _, values in records]
    at = keys.index("doc_id")
    seen: dict[str, int] = {}
    out = []
    for _, values in records:
        doc = str(values[at])
        seen[doc] = seen.get(doc, 0) + 1
        out.append(f"#{seen[doc]}")
    if max(seen.values(), default=1) == 1:
        return ["none"] * len(records)
    notes.add(
        f"{path}: documents appear on up to {max(seen.values())} lines and no line names its filter (lm-eval wrote "
        f"one line per document and filter before its samples had a 'filter' field: lm-eval #1687, #2025): a "
        f"document's k-th line is read as filter '#k', the k-th of the task's filter_list"
    )
    return out


def _lmeval_rows(path: Path, task: str, run: str, rows: list[tuple[Any, ...]], notes: set[str]) -> None:
    keys, records = jsonl_records(path, checked_lines(path), key="doc_id")
    filters = _unnamed_filters(path, keys, records, notes)
    for (line, values), filter_ in zip(records, filters):
        obj = dict(zip(keys, values))
        doc = obj.get("doc_id")
        if doc is None or isinstance(doc, (dict, list)):
            raise refused(path, line, f"expected a 'doc_id' (lm-eval's document index), got {doc!r}")
        names = obj.get("metrics") or [k for k in obj if k not in LMEVAL_KEYS and not k.endswith("_hash")]
        for name in names:
            if name not in obj:
                raise refused(path, line, f"the sample lists metric {name!r} in 'metrics' but has no value for it")
            value = obj[name]
            if isinstance(value, (list, tuple, dict, str)):
                notes.add(
                    f"{path}: metric {name!r} holds {type(value).__name__}s (aggregated over the corpus by "
                    f"lm-eval), not per-item numbers: left out"
                )
                continue
            number = finite_number(path, line, name, float(value) if isinstance(value, bool) else value)
            ident = f"{doc}#{run}" if run else str(doc)
            rows.append((task, f"{name},{filter_}", ident, str(doc), number, 1.0, line))


def _read_lmeval(path: Path) -> pd.DataFrame:
    files = sorted(path.glob("samples_*.jsonl")) if path.is_dir() else [path]
    if not files:
        models = sorted({f.parent.name for f in path.glob("*/samples_*.jsonl")})
        hint = f"; give one of its model folders: {models}" if models else ""
        raise MtlibInputError(f"{path}: no lm-eval sample files (samples_<task>_<date>.jsonl) in this folder{hint}")
    by_task: dict[str, list[Path]] = {}
    for f in files:
        match = _SAMPLES.search(f.name)
        by_task.setdefault(match["task"] if match else f.stem.removeprefix("samples_"), []).append(f)
    rows: list[tuple[Any, ...]] = []
    notes: set[str] = set()
    for task, runs in by_task.items():
        for k, f in enumerate(runs):
            _lmeval_rows(f, task, str(k) if len(runs) > 1 else "", rows, notes)
        if len(runs) > 1:
            notes.add(
                f"task {task!r}: {len(runs)} sample files ({', '.join(r.name for r in runs)}) read as repeated "
                f"runs, each document's runs resampled together"
            )
    return _table(path, rows, sorted(notes))


def _fast_csv(path: Path) -> pd.DataFrame | None:
    """A well-formed CSV read by pandas (one record per line, every other column numeric); None: read it slowly,
    line by line, to say what is wrong where."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
        with open(path, "rb") as fh:
            if sum(1 for _ in fh) != len(frame) + 1 or "id" not in frame or frame["id"].str.strip().eq("").any():
                return None
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
        return None
    values: dict[str, np.ndarray] = {}
    notes = []
    for m in (c for c in frame if c not in ("id", "task", "group")):
        v = pd.to_numeric(frame[m], errors="coerce").to_numpy(float)
        bad = ~np.isfinite(v)
        if bad.any() and frame[m][bad].map(_is_word).any():
            notes.append(f"{path}: column {m!r} is not numeric: left out")
        elif bad.any():
            return None  # NaN or an empty cell: the slow reader names the line
        else:
            values[m] = v
    record_input(path)
    ids = frame["id"].str.strip()
    group = frame["group"].where(frame["group"].str.strip() != "", ids) if "group" in frame else ids
    task = frame["task"] if "task" in frame else "all"
    base = pd.DataFrame({"task": task, "id": ids, "group": group, "n": 1.0, "line": np.arange(2, len(frame) + 2)})
    return _table(path, [base.assign(metric=m, value=v)[COLUMNS] for m, v in values.items()], notes)


def _read_plain(path: Path) -> pd.DataFrame:
    fast = _fast_csv(path) if path.suffix.lower() not in JSONL_SUFFIXES else None
    if fast is not None:
        return fast
    lines = checked_lines(path)
    jsonl = path.suffix.lower() in JSONL_SUFFIXES
    columns, records = jsonl_records(path, lines, key="id") if jsonl else csv_records(path, lines)
    if "id" not in columns:
        raise refused(
            path, 1, f"expected an 'id' column (then metric columns, optionally task and group), got {columns}"
        )
    at = {c: i for i, c in enumerate(columns)}
    metrics, notes = [], []
    for c in columns:
        if c in ("id", "task", "group"):
            continue
        cells = [r[at[c]] for _, r in records]
        if any(_is_word(v) for v in cells):
            notes.append(f"{path}: column {c!r} is not numeric: left out")
        else:
            metrics.append(c)
    rows: list[tuple[Any, ...]] = []
    for line, r in records:
        ident = str(r[at["id"]]).strip() if r[at["id"]] is not None else ""
        if not ident:
            raise refused(path, line, "expected a non-empty 'id'")
        task = str(r[at["task"]]) if "task" in at else "all"
        group = str(r[at["group"]]) if "group" in at and str(r[at["group"]]).strip() else ident
        rows += [(task, m, ident, group, finite_number(path, line, m, r[at[m]]), 1.0, line) for m in metrics]
    return _table(path, rows, notes)


def _is_word(value: Any) -> bool:
    """A text that is not a number (nor an empty cell, nan or a boolean: those are refused as bad metrics)."""
    if not isinstance(value, str) or value.strip().lower() in ("", "nan", "true", "false", "inf", "-inf"):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False


def _read_suite(path: Path, data: dict[str, Any]) -> pd.DataFrame:
    rows: list[tuple[Any, ...]] = []
    for test in data["tests"]:
        per_item = frame_from_json(test["per_item"])
        assert per_item is not None
        for k, (item, v, c) in enumerate(per_item[["item", "violations", "cases"]].itertuples(index=False)):
            rows.append((test["name"], "violation_rate", str(item), str(item), float(v), float(c), k + 1))
            rows.append((test["name"], "item_failed", str(item), str(item), float(v > 0), 1.0, k + 1))
    frame = _table(path, rows, [f"{path}: a saved suite result; 'line' is the item's row in its test's per_item"])
    frame.attrs["model"] = data["model"]
    return frame


def _read_inspect(path: Path, files: list[Path]) -> pd.DataFrame:
    frame, notes, model = frame_of(files)
    frame = _table(path, [frame], notes)
    frame.attrs["model"] = model
    return frame


def read_items(path: str | Path) -> pd.DataFrame:
    """Per-item results of one model, in the long table of the module docstring, from any of its formats.

    Raises:
        MtlibInputError: a missing file, an unknown format, or what the module docstring lists (file and line).
    """
    path = Path(path)
    if not path.exists():
        raise MtlibInputError(f"{path}: no such file or folder")
    if path.is_dir() and inspect_files(path):
        return _read_inspect(path, inspect_files(path))
    if path.is_dir() or (path.name.startswith("samples_") and path.suffix.lower() == ".jsonl"):
        return _read_lmeval(path)
    if path.suffix.lower() == ".eval":
        return _read_inspect(path, [path])
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise MtlibInputError(f"{path}: not valid JSON ({err})") from None
        if isinstance(data, dict) and data.get("format") == SUITE_FORMAT:
            return _read_suite(path, data)
        if is_inspect_json(data):
            return _read_inspect(path, [path])
        raise MtlibInputError(f"{path}: a JSON file that is not a saved mtlib suite result (format {SUITE_FORMAT!r})")
    return _read_plain(path)
