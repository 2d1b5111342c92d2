"""A model's own classification head as a classifier (``how="native"``): nothing is trained.

Intuition: a Hugging Face classifier, VADER or TextBlob already answers with
labelled scores. The factory only puts its columns in the order asked for and,
given labelled data, measures its accuracy beside the majority baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mtlib.models.base import Model, label_position
from mtlib.models.training.baseline import majority_baseline
from mtlib.models.training.labelled import parse_labelled
from mtlib.models.training.settings import Training, json_safe

__all__ = ["NativeClassifier"]


class NativeClassifier(Model):
    """A model's own head, its columns in the order of ``labels``."""

    kind = "native-classifier"

    def __init__(self, base: Model, labels: Sequence[Any], training: Training) -> None:
        super().__init__(base.name, base.identity, base.device, False)
        self.base, self.labels, self.training = base, list(labels), training
        self._perm = [label_position(base.labels, lab, base.name) for lab in self.labels]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.base.embed(texts)

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        return np.asarray(self.base.classify(texts, text_pairs))[:, self._perm]

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        return np.asarray(self.base.logits(texts, text_pairs))[:, self._perm]


def native_classifier(base: Model, train: Any, valid: Any, labels: Sequence[Any] | None) -> NativeClassifier:
    """The model's own head; ``valid`` (else ``train``) measures its accuracy, nothing trains.

    Raises:
        ValueError: the model has no head of its own, or a label (asked for, or in the data) is not one of its.
    """
    name = base.name
    if not base.labels:
        raise ValueError(
            f"classifier({name!r}, how='native'): {name} ({base.kind}) has no classification head of "
            "its own; use how='head' (a head on its frozen embeddings) or how='finetune'"
        )
    order = list(labels) if labels is not None else list(base.labels)
    for lab in order:
        try:
            label_position(base.labels, lab, name)
        except KeyError as err:
            raise ValueError(
                f"classifier({name!r}, how='native'): {name} has no label {lab!r}; its labels are "
                f"{list(base.labels)}. Name its labels, or train your own with how='head'"
            ) from err
    training = Training("native", "native", {"how": "native", "labels": json_safe(order)}, 0, None, None)
    clf = NativeClassifier(base, order, training)
    data = valid if valid is not None else train
    if data is not None:
        texts, pairs, gold = parse_labelled(data, "valid" if valid is not None else "train", name)
        try:
            gold_idx = np.array([label_position(order, g, name) for g in gold])
        except KeyError as err:
            raise ValueError(
                f"classifier({name!r}, how='native'): a gold label is not one of {name}'s labels "
                f"{order} ({err}); map your labels to these names, or use how='head'"
            ) from err
        predicted = clf.classify(texts, pairs).argmax(1)
        training.heldout_accuracy = float(np.mean(predicted == gold_idx))
        training.majority_baseline = majority_baseline(gold_idx)
        training.n_heldout = len(gold_idx)
    return clf
