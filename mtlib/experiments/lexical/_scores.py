"""Per-relation precision, recall, F1 and balanced accuracy of a lexical-relation model, and the shared task's F1.

Intuition: on CogALex-VI most gold pairs are RANDOM, so a head that always
answers "no" for a relation has a high accuracy (0.85 for English synonymy)
and has learnt nothing. Accuracy cannot tell a model from that baseline;
balanced accuracy (0.5 for any constant answer) and F1 (0 for always-"no")
can. The shared tasks (CogALex-V, CogALex-VI) ranked systems by the F1 of
each relation averaged over the relations other than RANDOM, weighted by
their support in the gold pairs (:func:`f1_summary`); a relation the model
does not predict (ANT for the frozen heads) counts with F1 0.

A relation is "predicted" for a pair when its probability is above the
threshold, as in the transitivity test (``v_rel = p_rel > 0.5``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from mtlib.analysis import claims

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


def relation_scores(probs: Mapping[str, np.ndarray], gold: pd.Series, threshold: float = 0.5) -> pd.DataFrame:
    """Binary scores of each relation the model predicts, against the gold relation of each pair.

    Args:
        probs: Short relation name (``syn``, ``hyp``, ``ant``, ``random``) -> probability per pair, each
            shape ``(m,)``.
        gold: Gold relation of each pair (``SYN``, ``HYP``, ``ANT``, ``RANDOM``...), shape ``(m,)``.
        threshold: A relation is predicted when its probability is above it.

    Returns:
        One row per relation of ``probs``: ``precision, recall, f1, balanced_accuracy, accuracy,
        majority_baseline, support, predicted_positive, pairs, learnt_p`` (precision is nan when nothing is
        predicted, recall when nothing is gold).
    """
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
        scores: :func:`relation_scores` (index: short relation names).
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
    probs: Mapping[str, np.ndarray], gold: pd.Series, reference: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """The shared task's score table of a single-label model: P, R, F1 per class and the weighted F1.

    Rows ``SYN, ANT, HYP, RANDOM`` (the classes the model predicts) and ``weighted (SYN, ANT, HYP)``: the F1 of
    the three relations weighted by their gold support (:func:`f1_summary`, every gold pair counted: a RANDOM
    pair called SYN is a SYN false positive). Column ``f1_without_random`` repeats the F1 after dropping the
    gold-RANDOM pairs (a variant some reproductions report, higher since RANDOM pairs cannot be false
    positives then); ``reference_f1`` holds ``reference`` (e.g. the winning system's F1) where given.

    Args:
        probs: Short class name (``syn``, ``ant``, ``hyp``, ``random``) -> score per pair, above 0.5 when it is
            the model's answer (``FineTunedPairClassifier.class_probabilities``).
        gold: Gold relation per pair, shape ``(m,)``.
        reference: Class (``SYN``...) or ``weighted`` -> a reference F1.

    Returns:
        Columns ``precision, recall, f1, support, f1_without_random, reference_f1``.

    Examples:
        >>> p = {"syn": np.array([0.9, 0.1, 0.1]), "random": np.array([0.1, 0.9, 0.9])}
        >>> shared_task_table(p, pd.Series(["SYN", "RANDOM", "SYN"]))["f1"].round(3).tolist()
        [0.667, 0.667, 0.667]
    """
    gold_arr = np.asarray(gold).astype(str)
    full = relation_scores(probs, gold)
    keep = gold_arr != RANDOM
    without = relation_scores({rel: np.asarray(p)[keep] for rel, p in probs.items()}, pd.Series(gold_arr[keep]))
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


def learnt_contrast(table5: pd.DataFrame, scores: Mapping[str, pd.DataFrame], alpha: float = claims.ALPHA) -> str:
    """Notebook 03: does a head that has learnt its relation still break transitivity? Per language and relation.

    "Learnt" is measured so that always-"no" cannot pass: balanced accuracy above 0.5 with the one-sided Fisher
    test of :func:`learnt_p` below ``alpha`` (accuracy is not used: on CogALex-VI always-"no" beats the
    frozen heads on it).

    Args:
        table5: Rows indexed by ``(language, relation)`` with ``rate, ci_low, ci_high, cases``.
        scores: Language -> :func:`relation_scores` on its gold test pairs.

    Returns:
        Markdown: a bullet per head, then the conclusion the run supports.
    """
    lines, contrast, unlearnt = [], [], []
    for (lang, rel), row in table5.iterrows():
        if lang not in scores or rel not in scores[lang].index:
            continue
        s = scores[lang].loc[rel]
        rate = (
            f"violation rate {row['rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] over "
            f"{int(row['cases']):,} cases"
            if np.isfinite(row["rate"])
            else "no transitivity case"
        )
        learnt = bool(s["balanced_accuracy"] > 0.5 and s["learnt_p"] < alpha)
        lines.append(
            f'- {lang} · {rel}: balanced accuracy {s["balanced_accuracy"]:.3f} (0.5 for always-"no"; '
            f"p = {s['learnt_p']:.3g}), F1 {s['f1']:.3f}, accuracy {s['accuracy']:.3f} vs "
            f"{s['majority_baseline']:.3f} for the majority answer; {rate}."
        )
        name = f"{lang} · {rel}"
        if not learnt:
            unlearnt.append(name)
        elif np.isfinite(row["ci_low"]) and row["ci_low"] > 0:
            contrast.append(f"{name} ({row['rate']:.1%} of cases violated)")
    if contrast:
        end = (
            'Heads that tell their relation apart better than always-"no" (balanced accuracy above 0.5, '
            "one-sided Fisher test) and still break transitivity (interval above 0): "
            + "; ".join(contrast)
            + ". For them, the supervised score does not reveal what the relation finds."
        )
    else:
        end = (
            'No head of this run both tells its relation apart better than always-"no" and breaks transitivity '
            "with an interval above 0."
        )
    if unlearnt:
        end += (
            " Heads whose balanced accuracy is not significantly above 0.5 (no better than a constant answer), "
            "so this run cannot show the paper's contrast for them: " + ", ".join(unlearnt) + "."
        )
    return "\n".join(lines + ["", end])
