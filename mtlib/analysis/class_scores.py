"""Per-class precision, recall, F1 and balanced accuracy of a one-vs-rest model, and a shared task's F1.

Intuition: when most gold items are a control class (CogALex-VI's RANDOM word
pairs), a head that always answers "no" for a class has a high accuracy (0.85
for English synonymy) and has learnt nothing. Accuracy cannot tell a model
from that baseline; balanced accuracy (0.5 for any constant answer) and F1 (0
for always-"no") can (:func:`per_class_scores`). The CogALex shared tasks ranked
systems by the F1 of each class averaged over the classes other than RANDOM,
weighted by their support in the gold pairs (:func:`f1_summary`); a class the
model does not predict (ANT for notebook 03's frozen heads) counts with F1 0.

A class is "predicted" for an item when its probability is above the
threshold, which the caller passes: notebook 03's ``spec.threshold``, the one
its prediction matrices use too (``v_rel = p_rel > threshold``), so that the
transitivity test and the supervised scores read the same decisions.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from mtlib.models.training.baseline import majority_baseline
from mtlib.utils.inputs import MtlibInputError

__all__ = ["accuracy_by_group", "f1_summary", "per_class_scores", "shared_task_table"]

#: The control class of the shared tasks: left out of the summary F1.
RANDOM = "RANDOM"


def learnt_p(tp: int, fn: int, fp: int, tn: int) -> float:
    """One-sided Fisher exact test that the model says "yes" more often to gold positives than to gold negatives.

    That is balanced accuracy above 0.5 (true-positive rate above false-positive rate); any constant answer,
    always-"no" included, has p = 1.

    Examples:
        >>> learnt_p(0, 10, 0, 90)
        1.0
        >>> learnt_p(9, 1, 1, 89) < 0.001
        True
    """
    from scipy.stats import fisher_exact

    if min(tp + fn, fp + tn) == 0:
        return float("nan")
    return float(fisher_exact([[tp, fn], [fp, tn]], alternative="greater")[1])


def _threshold(threshold: float | None, where: str) -> float:
    """``threshold`` checked (a number in (0, 1)); ``None`` is 0.5 with a DeprecationWarning for one release."""
    if threshold is None:
        warnings.warn(
            f"{where}: pass threshold= (the decision threshold your other predictions use, e.g. notebook 03's "
            "spec.threshold); 0.5 is assumed for now, and the argument becomes required in the next release",
            DeprecationWarning,
            stacklevel=3,
        )
        return 0.5
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold < 1:
        raise MtlibInputError(
            f"{where}: threshold must be a number in (0, 1), got {threshold!r}", argument="threshold", expected="(0, 1)"
        )
    return float(threshold)


def per_class_scores(probs: Mapping[str, np.ndarray], gold: pd.Series, threshold: float | None = None) -> pd.DataFrame:
    """Binary scores of each class the model predicts, against the gold class of each item.

    Args:
        probs: Lower-case class name (``syn``, ``hyp``, ``ant``, ``random``) -> probability per item, each
            shape ``(m,)``; the gold class of the same name is its upper case (``SYN``).
        gold: Gold class of each item (``SYN``, ``HYP``, ``ANT``, ``RANDOM``...), shape ``(m,)``.
        threshold: A class is predicted when its probability is above it: pass the one the rest of the
            method uses (notebook 03: ``spec.threshold``, also that of its matrices). Left out: 0.5, with a
            DeprecationWarning (it becomes required).

    Returns:
        One row per class of ``probs`` (index ``relation``): ``precision, recall, f1, balanced_accuracy, accuracy,
        majority_baseline, support, predicted_positive, pairs, learnt_p`` (precision is nan when nothing is
        predicted, recall when nothing is gold).
    """
    threshold = _threshold(threshold, "per_class_scores")
    gold_arr = np.asarray(gold).astype(str)
    rows: dict[str, dict[str, Any]] = {}
    for rel, p in probs.items():
        pred, pos = np.asarray(p) > threshold, gold_arr == rel.upper()
        tp, fp = int((pred & pos).sum()), int((pred & ~pos).sum())
        fn, tn = int((~pred & pos).sum()), int((~pred & ~pos).sum())
        n = len(pos)
        tpr = tp / (tp + fn) if tp + fn else float("nan")
        tnr = tn / (tn + fp) if tn + fp else float("nan")
        rows[rel] = {
            "precision": tp / (tp + fp) if tp + fp else float("nan"),
            "recall": tpr,
            "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else float("nan"),
            "balanced_accuracy": float(np.nanmean([tpr, tnr])) if n else float("nan"),
            "accuracy": (tp + tn) / n if n else float("nan"),
            "majority_baseline": max(tp + fn, tn + fp) / n if n else float("nan"),
            "support": tp + fn,
            "predicted_positive": tp + fp,
            "pairs": n,
            "learnt_p": learnt_p(tp, fn, fp, tn),
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "relation"
    return frame


def f1_summary(scores: pd.DataFrame, gold: pd.Series) -> float:
    """The shared task's summary: F1 per relation averaged over the gold relations other than RANDOM,
    weighted by their support; a gold relation the model does not predict counts with F1 0.

    Args:
        scores: :func:`per_class_scores` (index: lower-case class names).
        gold: Gold relation of each pair, shape ``(m,)``.

    Returns:
        The weighted F1 in ``[0, 1]``, nan without a non-RANDOM gold pair.

    Examples:
        >>> s = pd.DataFrame({"f1": [0.5, 1.0]}, index=["syn", "hyp"])
        >>> f1_summary(s, pd.Series(["SYN", "HYP", "HYP", "ANT", "RANDOM"]))
        0.625
    """
    support = pd.Series(np.asarray(gold).astype(str)).value_counts()
    support = support[support.index != RANDOM]
    if not support.sum():
        return float("nan")
    f1 = [scores["f1"].get(rel.lower(), 0.0) for rel in support.index]
    f1 = [0.0 if not np.isfinite(x) else float(x) for x in f1]
    return float(np.dot(f1, support.to_numpy()) / support.sum())


def shared_task_table(
    probs: Mapping[str, np.ndarray],
    gold: pd.Series,
    reference: Mapping[str, float] | None = None,
    threshold: float | None = None,
) -> pd.DataFrame:
    """The shared task's score table of a single-label model: P, R, F1 per class and the weighted F1.

    Rows ``SYN, ANT, HYP, RANDOM`` (the classes the model predicts) and ``weighted (SYN, ANT, HYP)``: the F1 of
    the three relations weighted by their gold support (:func:`f1_summary`, every gold pair counted: a RANDOM
    pair called SYN is a SYN false positive). Column ``f1_without_random`` repeats the F1 after dropping the
    gold-RANDOM pairs (a variant some reproductions report, higher since RANDOM pairs cannot be false
    positives then); ``reference_f1`` holds ``reference`` (e.g. the winning system's F1) where given.

    Args:
        probs: Short class name (``syn``, ``ant``, ``hyp``, ``random``) -> score per pair, above 0.5 when it is
            the model's answer (notebook 03's 4-class rule).
        gold: Gold relation per pair, shape ``(m,)``.
        reference: Class (``SYN``...) or ``weighted`` -> a reference F1.
        threshold: A class is the answer when its score is above it (:func:`per_class_scores`).

    Returns:
        Columns ``precision, recall, f1, support, f1_without_random, reference_f1``.

    Examples:
        >>> p = {"syn": np.array([0.9, 0.1, 0.1]), "random": np.array([0.1, 0.9, 0.9])}
        >>> shared_task_table(p, pd.Series(["SYN", "RANDOM", "SYN"]), threshold=0.5)["f1"].round(3).tolist()
        [0.667, 0.667, 0.667]
    """
    gold_arr = np.asarray(gold).astype(str)
    threshold = _threshold(threshold, "shared_task_table")
    full = per_class_scores(probs, gold, threshold)
    keep = gold_arr != RANDOM
    kept = {rel: np.asarray(p)[keep] for rel, p in probs.items()}
    without = per_class_scores(kept, pd.Series(gold_arr[keep]), threshold)
    table = pd.DataFrame(
        {
            "precision": full["precision"],
            "recall": full["recall"],
            "f1": full["f1"],
            "support": full["support"],
            "f1_without_random": without["f1"].where(full.index != RANDOM.lower()),
        }
    )
    table.index = [rel.upper() for rel in table.index]
    weighted = {
        "f1": f1_summary(full, gold),
        "f1_without_random": f1_summary(without, pd.Series(gold_arr[keep])),
        "support": int(keep.sum()),
    }
    table.loc["weighted (SYN, ANT, HYP)"] = pd.Series(weighted)
    reference = dict(reference or {})
    table["reference_f1"] = [
        reference.get("weighted" if rel.startswith("weighted") else rel, float("nan")) for rel in table.index
    ]
    table.index.name = "class"
    return table


def accuracy_by_group(labels: pd.Series, predicted: Any, groups: Any) -> tuple[dict[str, Any], pd.DataFrame]:
    """One run's accuracy beside its test set's majority baseline, and its accuracy per group of items.

    Args:
        labels: Gold 0/1 labels, shape (n,).
        predicted: Predicted 0/1 labels, shape (n,).
        groups: A group name per item, shape (n,) (e.g. a rule, or an item type).

    Returns:
        ``{"accuracy", "baseline", "n_test"}``, and a frame indexed by ``group``: ``accuracy``, ``n`` and
        ``label`` (the share of gold 1s, which says what a constant answer would score there).

    >>> summary, per = accuracy_by_group(pd.Series([1, 1, 0]), [1, 0, 0], ["a", "a", "b"])
    >>> summary, per["accuracy"].tolist()
    ({'accuracy': 0.6666666666666666, 'baseline': 0.6666666666666666, 'n_test': 3}, [0.5, 1.0])
    """
    correct = np.asarray(predicted) == labels.to_numpy().astype(int)
    baseline = majority_baseline(labels.astype(int))
    summary = {"accuracy": float(correct.mean()), "baseline": baseline, "n_test": len(labels)}
    per_group = pd.DataFrame({"correct": correct, "group": np.asarray(groups), "label": labels.to_numpy()})
    per_group = per_group.groupby("group").agg(
        accuracy=("correct", "mean"), n=("correct", "size"), label=("label", "mean")
    )
    return summary, per_group
