"""The one cache of trained classifiers: in-process memo, disk records, held-out evaluation.

Intuition: a classifier is trained once per (encoder identity, training data,
settings, seed). The key names a folder under ``$MTLIB_CACHE/classifiers``
whose ``classifier.json`` (written last, with the digests of its files) marks
a complete entry; :data:`_MEMO` keeps the classifiers of this process so a
second request returns the same object. Whether a classifier was trained or
reloaded is recorded in its :class:`~mtlib.models.training.settings.Training`
(``from_cache``), never in a global counter.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtlib.models.base import Model
from mtlib.models.training.baseline import majority_baseline
from mtlib.models.training.settings import Training, json_safe
from mtlib.utils.cache import cache_root, read_record, stable_hash, write_record

__all__ = [
    "cache_key",
    "data_digest",
    "cached_training",
    "evaluate",
    "folder_of",
    "memo",
    "read_entry",
    "remember",
    "trained_models",
    "write_entry",
]

#: Classifiers built in this process, by cache key (cleared by tests to act as a new process).
_MEMO: dict[str, Model] = {}


def cache_key(
    base: Model, texts: list[str], pairs: list[str] | None, labels: list[Any], settings: dict[str, Any]
) -> str:
    """24 hex digits naming one training: encoder identity, training data (:func:`data_digest`) and settings."""
    return stable_hash([base.identity, data_digest(texts, pairs, labels), settings], 24)


def data_digest(texts: list[str], pairs: list[str] | None, labels: list[Any]) -> str:
    """32 hex digits naming a training set: its texts, text pairs and labels, in order (the run manifest shows it)."""
    return stable_hash([texts, pairs, json_safe(labels)], 32)


def memo(key: str) -> Model | None:
    """The classifier of ``key`` built earlier in this process, or None."""
    return _MEMO.get(key)


def remember(key: str, clf: Model) -> Model:
    """Keep ``clf`` for later requests of ``key`` in this process; returns it."""
    _MEMO[key] = clf
    return clf


def folder_of(key: str, root: Path | None = None) -> Path:
    """The cache folder of a training, in the cache folder ``root`` (None: the default folder).

    The default is :func:`~mtlib.utils.cache.default_cache_dir`; a run passes its ``context.cache_dir``.
    """
    return cache_root(root) / "classifiers" / key


def read_entry(folder: Path) -> dict[str, Any] | None:
    """``classifier.json`` with every digest checked (a damaged entry warns and retrains)."""
    return read_record(folder / "classifier.json")


def cached_training(record: dict[str, Any]) -> Training:
    """The :class:`Training` of a cache record, marked as reloaded."""
    return Training(**{**record["training"], "from_cache": True})


def write_entry(
    folder: Path, training: Training, classes: list[Any], base: Model, files: dict[str, bytes] | None
) -> None:
    """Write ``classifier.json`` (the training record, labels, model) and ``files``, the record last."""
    meta = {
        "training": json_safe(asdict(training)),
        "labels": json_safe(classes),
        "model": base.name,
        "identity": base.identity,
    }
    write_record(folder / "classifier.json", meta, files)


def evaluate(clf: Model, training: Training, held: dict[str, Any] | None) -> None:
    """Held-out accuracy and majority baseline into ``training`` (nothing without held-out data)."""
    if held is None:
        return
    predicted = np.asarray(clf.classify(held["texts"], held["pairs"])).argmax(1)
    training.heldout_accuracy = float(np.mean(predicted == held["y"]))
    training.majority_baseline = majority_baseline(held["y"])


def _trained_on(training: dict[str, Any], labels: list[Any]) -> str:
    """What a stored classifier was trained on, from its record (counts, labels, held-out accuracy)."""
    settings = training.get("settings") or {}
    what = "text pairs" if settings.get("pairs") else "texts"
    text = f"{training.get('n_train', '?')} {what}, labels {labels}"
    if training.get("n_skipped"):
        text += f" ({training['n_skipped']} skipped: no vector)"
    if training.get("n_heldout"):
        text += f"; {training['n_heldout']} held out"
    if training.get("heldout_accuracy") is not None:
        text += f", held-out accuracy {training['heldout_accuracy']:.3f}"
    return text


def trained_models(cache_dir: str | Path | None = None) -> pd.DataFrame:
    """Classifiers trained by :func:`mtlib.models.classifier` and stored in the cache (``how="head"``, ``"finetune"``).

    Read from each entry's ``classifier.json`` (its record checksum checked; weights are not read, so
    listing is fast; an unreadable or damaged entry is left out). One row per entry, indexed by
    ``<model>+<head>#<key prefix>`` (``<model>+finetuned#...`` for a fine-tuned network) with the columns of
    :func:`mtlib.models.weights.resolve.registered` plus ``trained`` (True), ``trained_on`` (examples, labels, held-out
    accuracy, as the record has them) and ``cache_key``. Get one back by asking :func:`mtlib.models.classifier`
    for the same model, data and settings: it reloads instead of training.

    Args:
        cache_dir: The cache folder to list (a run's ``context.cache_dir``); None: the default
            (:func:`mtlib.utils.cache.default_cache_dir`).
    """
    rows = []
    root = cache_root(cache_dir) / "classifiers"
    for path in sorted(root.glob("*/classifier.json")) if root.is_dir() else []:
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
            claimed = body.pop("record_sha256")
            if stable_hash(body, 64) != claimed:
                continue
            training, model = dict(body["training"]), str(body["model"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        how, head = training.get("how", "?"), training.get("head", "?")
        tuned = how == "finetune"
        rows.append(
            {
                "name": f"{model}+{'finetuned' if tuned else head}#{path.parent.name[:8]}",
                "kind": "finetuned-classifier" if tuned else "head-classifier",
                "source": model,
                "resolves": "trained",
                "used_in": "",
                "description": f"{model} fine-tuned (head: {head})"
                if tuned
                else f"{head} head on frozen {model} features",
                "trained": True,
                "trained_on": _trained_on(training, list(body.get("labels") or [])),
                "cache_key": path.parent.name,
            }
        )
    columns = ["kind", "source", "resolves", "used_in", "description", "trained", "trained_on", "cache_key"]
    return pd.DataFrame(rows, columns=["name", *columns]).set_index("name")
