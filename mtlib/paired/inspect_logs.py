"""inspect_ai evaluation logs (``.eval`` and ``.json``) as per-item results, paired by sample id.

inspect_ai writes one log per task and model: by default an ``.eval`` file, a zip archive holding ``header.json``
(``version``, ``status``, ``eval`` with ``task`` and ``model``, ``error``) and one member per sample and epoch,
``samples/<id>_epoch_<n>.json``; with ``--log-format json`` one JSON document with the header's keys and a
``samples`` list. Read from inspect-ai 0.3.285 (``inspect_ai/log/_log.py``: ``EvalLog``, ``EvalSample``, ``Score``;
``inspect_ai/log/_recorders/eval.py``: the archive), with the fixtures of ``tests/fixtures/inspect`` written by it.

Per sample (:func:`read_inspect`):

- the id is inspect's sample ``id``; its epochs are repeats of one item, so they form one group, resampled together
  (``id = <sample id>#<epoch>``, ``group = <sample id>``; one epoch: ``id = group = <sample id>``);
- each scorer is a metric (a scorer returning a dict of values gives ``<scorer>/<key>``), its value mapped as
  inspect's own ``value_to_float`` does: ``"C"`` (correct) 1, ``"I"`` (incorrect) 0, ``"P"`` (partial) 0.5,
  ``"N"`` (no answer) 0, ``true``/``false`` 1/0, numbers as numbers. A scorer whose values are other texts is left
  out and said so. A metric with a 0.5 in it is no longer 0/1, so it is compared with the sign-flip test;
- a sample with an ``error`` is left out and listed (file, sample id, epoch, message): the other run's item is then
  reported as unmatched, and ``--require-all`` refuses the comparison;
- a log whose ``status`` is not ``success`` (``error``, ``cancelled``, ``started``) is refused, naming the file,
  the status and inspect's error message: its samples are a partial run.

Reading an ``.eval`` needs only the ``zstandard`` package (a light dependency of mtlib: one compiled wheel, no
dependencies of its own), not inspect_ai: Python's ``zipfile`` reads the archive's directory, and a member
compressed with zstd (method 93, which ``zipfile`` refuses before Python 3.14) is inflated by ``zstandard`` across
its frames (inspect writes large members as several frames). inspect_ai itself would bring pydantic, httpx, rich,
textual and dozens more for what is a zip of JSON files.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import zstandard

from mtlib.relations.errors import MtlibInputError
from mtlib.utils.provenance import record_input

__all__ = ["read_inspect"]

#: inspect's letter values as numbers (``inspect_ai/scorer/_metric.py``, ``value_to_float``).
INSPECT_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_ZSTD = 93  # the zip compression method number of Zstandard


def is_inspect_json(data: Any) -> bool:
    """Whether a parsed JSON document is an inspect_ai log (its header keys)."""
    return isinstance(data, dict) and {"version", "status", "eval"} <= set(data) and isinstance(data["eval"], dict)


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """One member's bytes; a zstd member inflated with ``zstandard`` (every frame)."""
    if info.compress_type != _ZSTD:
        return archive.read(info)
    with open(archive.filename or "", "rb") as fh:  # the local header: 30 bytes, then the name and the extra field
        fh.seek(info.header_offset)
        head = fh.read(30)
        fh.seek(info.header_offset + 30 + int.from_bytes(head[26:28], "little") + int.from_bytes(head[28:30], "little"))
        raw = fh.read(info.compress_size)
    return zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True).read()


def _eval_log(path: Path) -> tuple[dict[str, Any], Iterator[tuple[str, dict[str, Any]]]]:
    """The header and ``(member, sample)`` of every sample of an ``.eval`` archive."""
    try:
        archive = zipfile.ZipFile(path)
        names = {i.filename: i for i in archive.infolist()}
        if "header.json" not in names:
            raise MtlibInputError(f"{path}: an .eval archive without header.json (is inspect still writing it?)")
        header = json.loads(_member(archive, names["header.json"]))
    except (zipfile.BadZipFile, zstandard.ZstdError, json.JSONDecodeError, UnicodeDecodeError) as err:
        raise MtlibInputError(f"{path}: not a readable inspect_ai .eval log ({err})") from None

    def samples() -> Iterator[tuple[str, dict[str, Any]]]:
        for name, info in names.items():
            if name.startswith("samples/") and name.endswith(".json"):
                try:
                    yield name, json.loads(_member(archive, info))
                except (zstandard.ZstdError, json.JSONDecodeError, UnicodeDecodeError) as err:
                    raise MtlibInputError(f"{path}: member {name} is not a readable sample ({err})") from None

    return header, samples()


def _values(path: Path, where: str, scores: Any, notes: set[str]) -> Iterator[tuple[str, float]]:
    """``(metric, value)`` of one sample's scores (scorer name -> ``Score``)."""
    if not isinstance(scores, dict):
        raise MtlibInputError(f"{path}: {where}: 'scores' must map scorer names to scores, got {scores!r:.80}")
    for scorer, score in scores.items():
        value = score.get("value") if isinstance(score, dict) else None
        parts = value.items() if isinstance(value, dict) else [(None, value)]
        for key, v in parts:
            metric = scorer if key is None else f"{scorer}/{key}"
            if isinstance(v, bool):
                yield metric, float(v)
            elif isinstance(v, (int, float)):
                yield metric, float(v)
            elif isinstance(v, str) and v.strip().upper() in INSPECT_VALUES:
                yield metric, INSPECT_VALUES[v.strip().upper()]
            else:
                notes.add(
                    f"{path}: scorer {metric!r} gives {type(v).__name__} values ({v!r:.40}), not numbers or "
                    f"C/I/P/N: left out"
                )


def read_inspect(path: Path) -> tuple[list[tuple[Any, ...]], list[str], str]:
    """One inspect_ai log's rows ``(task, metric, id, group, value, n, line)``, its notes and its model.

    ``line`` is 0 (a sample has no line; the id names it). Raises :class:`MtlibInputError` for a log that did not
    finish (``status`` other than ``success``) or is not an inspect log.
    """
    if path.suffix.lower() == ".eval":
        header, samples = _eval_log(path)
    else:
        try:
            header = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise MtlibInputError(f"{path}: not valid JSON ({err})") from None
        if not is_inspect_json(header):
            raise MtlibInputError(f"{path}: not an inspect_ai log (expected the keys version, status, eval)")
        samples = ((f"samples[{k}]", s) for k, s in enumerate(header.get("samples") or []))
    record_input(path)
    status = header.get("status")
    if status != "success":
        error = (header.get("error") or {}).get("message", "no error message")
        raise MtlibInputError(
            f"{path}: the log's status is {status!r}, not 'success' ({error}): its samples are a partial run; "
            f"rerun the evaluation (or inspect's 'eval-retry') and compare the finished log"
        )
    task, model = str(header["eval"].get("task", "all")), str(header["eval"].get("model", ""))
    rows: list[tuple[Any, ...]] = []
    notes: set[str] = set()
    errors: list[str] = []
    epochs: set[int] = set()
    for where, sample in samples:
        ident, epoch = sample.get("id"), int(sample.get("epoch", 1))
        if ident is None or isinstance(ident, (dict, list)):
            raise MtlibInputError(f"{path}: {where}: expected a sample 'id' (a text or a number), got {ident!r}")
        if sample.get("error"):
            message = str(sample["error"].get("message", sample["error"]))[:120]
            errors.append(f"sample {ident!r} epoch {epoch}: {message}")
            continue
        epochs.add(epoch)
        for metric, value in _values(path, f"{where} (sample {ident!r} epoch {epoch})", sample.get("scores"), notes):
            rows.append((task, metric, f"{ident}#{epoch}", str(ident), value, 1.0, 0))
    if errors:
        notes.add(f"{path}: {len(errors)} samples ended in an error and are left out: " + "; ".join(errors))
    if len(epochs) == 1:  # one epoch: the sample id alone
        rows = [(t, m, g, g, v, n, line) for t, m, _, g, v, n, line in rows]
    return rows, sorted(notes), model


def inspect_files(folder: Path) -> list[Path]:
    """The inspect_ai logs of a folder: every ``.eval``, and every ``.json`` that is an inspect log."""
    found = sorted(folder.glob("*.eval"))
    for candidate in sorted(folder.glob("*.json")):
        try:
            with open(candidate, encoding="utf-8") as fh:
                head = fh.read(4096)
        except (OSError, UnicodeDecodeError):
            continue
        if '"status"' in head and '"eval"' in head:
            found.append(candidate)
    return found


def frame_of(paths: list[Path]) -> tuple[pd.DataFrame, list[str], str]:
    """The rows of several logs as one frame (columns ``task, metric, id, group, value, n, line``), notes, model.

    Two logs of one task in a folder are refused: pairing them would count one item twice.
    """
    parts, notes, models = [], [], set()
    tasks: dict[str, Path] = {}
    for path in paths:
        rows, more, model = read_inspect(path)
        for task in {r[0] for r in rows}:
            if task in tasks:
                raise MtlibInputError(
                    f"{path}: task {task!r} is also in {tasks[task]}: give one log per task (a folder of one "
                    f"model's logs), or the file itself"
                )
            tasks[task] = path
        parts.append(pd.DataFrame(rows, columns=["task", "metric", "id", "group", "value", "n", "line"]))
        notes += more
        models.add(model)
    return pd.concat(parts, ignore_index=True), notes, ", ".join(sorted(m for m in models if m))
