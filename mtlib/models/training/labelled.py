"""Labelled texts for the classifier factory: parsed, checked, indexed and split once.

Intuition: every trained classifier (a head on frozen features, a fine-tuned
network) starts from the same thing: texts (or text pairs) with labels, the
class order, the part that trains and the part that measures accuracy.
:func:`prepare` builds that :class:`Task` with one clear error per problem
(missing columns, lengths that differ, an unknown label...), naming the model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from mtlib.models.training.loop import stratified_split
from mtlib.models.training.settings import ClassifierSettings
from mtlib.utils.cache import stable_hash

__all__ = ["Task", "label_indices", "parse_labelled", "prepare"]


def parse_labelled(data: Any, what: str, model_name: str) -> tuple[list[str], list[str] | None, list[Any]]:
    """``(texts, text_pairs or None, labels)`` from a DataFrame or a tuple; clear errors otherwise."""

    if isinstance(data, pd.DataFrame):
        missing = [c for c in ("text", "label") if c not in data.columns]
        if missing:
            raise ValueError(
                f"classifier({model_name!r}): {what} needs columns 'text' and 'label' (and optionally "
                f"'text_pair'); it lacks {missing} (columns: {list(data.columns)})"
            )
        texts, labels = data["text"].tolist(), data["label"].tolist()
        pairs = data["text_pair"].tolist() if "text_pair" in data.columns else None
    elif isinstance(data, tuple) and len(data) in (2, 3):
        texts, labels = list(data[0]), list(data[-1])
        pairs = list(data[1]) if len(data) == 3 else None
    else:
        raise ValueError(
            f"classifier({model_name!r}): {what} must be a DataFrame with columns text, label "
            f"[, text_pair] or a tuple (texts, labels) / (texts, text_pairs, labels); "
            f"got {type(data).__name__}"
        )
    if len(texts) != len(labels) or (pairs is not None and len(pairs) != len(texts)):
        sizes = f"{len(texts)} texts, " + (f"{len(pairs)} text_pairs, " if pairs is not None else "")
        raise ValueError(
            f"classifier({model_name!r}): {what} has {sizes}{len(labels)} labels; "
            "each text needs exactly one label (and one text_pair for pairs)"
        )
    if not texts:
        raise ValueError(f"classifier({model_name!r}): {what} is empty")
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise ValueError(f"classifier({model_name!r}): {what} row {bad[0]} has a non-text input {texts[bad[0]]!r}")
    labels = [x.item() if hasattr(x, "item") else x for x in labels]
    unlabelled = [i for i, x in enumerate(labels) if _missing(x)]
    if unlabelled:
        raise ValueError(
            f"classifier({model_name!r}): {what} has {len(unlabelled)} missing label(s) (NaN/None), e.g. row "
            f"{unlabelled[0]} ({texts[unlabelled[0]]!r}); a missing label is not a class: drop or fill those rows"
        )
    return [str(t) for t in texts], ([str(p) for p in pairs] if pairs is not None else None), labels


def _missing(label: Any) -> bool:
    """Whether a label is missing: None, NaN, or pandas' NA / NaT."""

    return label is None or label is pd.NA or label is pd.NaT or (isinstance(label, float) and math.isnan(label))


def label_indices(labels: list[Any], classes: list[Any], what: str, model_name: str) -> np.ndarray:
    """Column of each label in ``classes``, shape ``(n,)`` int64; an unknown label is named."""
    where = {c: i for i, c in enumerate(classes)}
    unknown = sorted({repr(x) for x in labels if x not in where})
    if unknown:
        raise ValueError(
            f"classifier({model_name!r}): {what} has labels {', '.join(unknown)} that are not in "
            f"labels={classes}; pass labels= with every class, or fix the data"
        )
    return np.array([where[x] for x in labels], dtype=np.int64)


@dataclass
class Task:
    """Labelled data ready to train on.

    Attributes:
        texts, pairs, labels: All of ``train`` as given (``pairs`` None for single texts).
        classes: The class order (the columns of the classifier).
        data: The training part: ``{"texts", "pairs", "y" (n,), "k"}``.
        held: The held-out part ``{"texts", "pairs", "y"}`` (``valid``, or a split of ``train``), or None.
        valid_hash: Hash of ``valid`` when given (part of the cache key).
    """

    texts: list[str]
    pairs: list[str] | None
    labels: list[Any]
    classes: list[Any]
    data: dict[str, Any]
    held: dict[str, Any] | None
    valid_hash: str | None


def _classes(train_labels: list[Any], labels: Sequence[Any] | None, name: str) -> list[Any]:
    if labels is None:
        try:
            return sorted(set(train_labels))
        except TypeError as err:
            raise ValueError(
                f"classifier({name!r}): labels of mixed types cannot be sorted; pass labels= in the order you want"
            ) from err
    classes = list(labels)
    if len(set(classes)) != len(classes):
        raise ValueError(f"classifier({name!r}): labels={classes} repeats a class")
    return classes


def prepare(
    parsed: tuple[list[str], list[str] | None, list[Any]],
    s: ClassifierSettings,
    name: str,
    labels: Sequence[Any] | None,
    every_class: bool = False,
) -> Task:
    """Fix the classes of parsed ``train`` (:func:`parse_labelled`), parse ``s.valid`` and split off the held-out part.

    ``labels`` is the class order asked for (or the init's classes when continuing). ``every_class``:
    the training part must hold every class (a logistic regression has a column for each class it saw,
    so an absent class would leave the probabilities a column short).

    Raises:
        ValueError: bad data (see :func:`parse_labelled`), an unknown or repeated class, or a
            single class to train on (unless continuing from ``s.init``).
    """
    texts, pairs, train_labels = parsed
    classes = _classes(train_labels, labels, name)
    y = label_indices(train_labels, classes, "train", name)
    present = sorted({classes[i] for i in y}, key=classes.index)
    if len(present) < 2 and s.init is None:
        raise ValueError(
            f"classifier({name!r}): train has a single class {present}; a classifier needs examples "
            "of at least two classes"
        )
    held: dict[str, Any] | None
    if s.valid is not None:
        v_texts, v_pairs, v_labels = parse_labelled(s.valid, "valid", name)
        if (v_pairs is None) != (pairs is None):
            raise ValueError(f"classifier({name!r}): train and valid must both be single texts or both pairs")
        v_y = label_indices(v_labels, classes, "valid", name)
        tr = np.arange(len(texts))
        held = {"texts": v_texts, "pairs": v_pairs, "y": v_y}
        valid_hash: str | None = stable_hash([v_texts, v_pairs, v_labels], 24)
    elif s.heldout_fraction > 0:
        tr, te = stratified_split(y, s.heldout_fraction, s.seed)
        held = {
            "texts": [texts[i] for i in te],
            "pairs": [pairs[i] for i in te] if pairs is not None else None,
            "y": y[te],
        }
        valid_hash = None
    else:
        tr, held, valid_hash = np.arange(len(texts)), None, None
    data: dict[str, Any] = {
        "texts": [texts[i] for i in tr],
        "pairs": [pairs[i] for i in tr] if pairs is not None else None,
        "y": y[tr],
        "k": len(classes),
    }
    if len(set(data["y"].tolist())) < 2 and s.init is None:
        raise ValueError(
            f"classifier({name!r}): the training part has a single class after holding out "
            f"{s.heldout_fraction:.0%}; add examples or pass valid="
        )
    if every_class:
        _check_every_class(classes, present, sorted(set(data["y"].tolist())), s, name)
    return Task(texts, pairs, train_labels, classes, data, held, valid_hash)


def _check_every_class(
    classes: list[Any], present: list[Any], trained: list[int], s: ClassifierSettings, name: str
) -> None:
    """Refuse classes without a training example (``present``: in train; ``trained``: indices in the training part)."""
    absent = [c for c in classes if c not in present]
    if absent:
        raise ValueError(
            f"classifier({name!r}): labels={classes} names class(es) {absent} with no example in train; "
            "a linear head learns only the classes it sees: drop them from labels= or add examples"
        )
    held_out = [classes[i] for i in range(len(classes)) if i not in trained]
    if held_out:
        raise ValueError(
            f"classifier({name!r}): after holding out {s.heldout_fraction:.0%} of train, the training part has "
            f"no example of class(es) {held_out}; add examples, lower heldout_fraction or pass valid="
        )
