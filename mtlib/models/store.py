"""The one cache of trained classifiers: in-process memo, disk records, held-out evaluation.

Intuition: a classifier is trained once per (encoder identity, training data,
settings, seed). The key names a folder under ``$MTLIB_CACHE/classifiers``
whose ``classifier.json`` (written last, with the digests of its files) marks
a complete entry; :data:`_MEMO` keeps the classifiers of this process so a
second request returns the same object. Whether a classifier was trained or
reloaded is recorded in its :class:`~mtlib.models.settings.Training`
(``from_cache``), never in a global counter.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.models.base import Model
from mtlib.models.baseline import majority_baseline
from mtlib.models.settings import Training, json_safe
from mtlib.utils.cache import cache_root, read_record, stable_hash, write_record

__all__ = ["cache_key", "cached_training", "evaluate", "folder_of", "memo", "read_entry", "remember", "write_entry"]

#: Classifiers built in this process, by cache key (cleared by tests to act as a new process).
_MEMO: dict[str, Model] = {}


def cache_key(
    base: Model, texts: list[str], pairs: list[str] | None, labels: list[Any], settings: dict[str, Any]
) -> str:
    """24 hex digits naming one training: encoder identity, training data and settings."""
    return stable_hash([base.identity, stable_hash([texts, pairs, json_safe(labels)], 32), settings], 24)


def memo(key: str) -> Model | None:
    """The classifier of ``key`` built earlier in this process, or None."""
    return _MEMO.get(key)


def remember(key: str, clf: Model) -> Model:
    """Keep ``clf`` for later requests of ``key`` in this process; returns it."""
    _MEMO[key] = clf
    return clf


def folder_of(key: str) -> Path:
    """The cache folder of a training."""
    return cache_root() / "classifiers" / key


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
