"""Scoring models on SETI: heads on frozen pair features, fine-tuned cross-encoders, few-shot curves.

Intuition: every model goes through the classifier factory
(:func:`mtlib.models.classifier`) on (premise, hypothesis) pairs: a head on
frozen features ``[u, v, |u-v|, u*v]`` (each sentence encoded once and
cached) or a cross-encoder fine-tuned end to end. A run's accuracy is read
beside the majority-class baseline of its test set
(:func:`mtlib.models.training.baseline.majority_baseline`) and per Table 3 rule.

No function here keeps a default of its own for what notebook 07 sets: the
head, the training sizes and the fine-tuning's
:class:`~mtlib.models.ClassifierSettings` (epochs, lr, batch size, ...) come
from the spec (:class:`~mtlib.experiments.seti.spec.Spec`), whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.experiments.seti._builder import SetiData, with_shots
from mtlib.experiments.seti._facts import RULE_SYMBOLS, SetiError, check_fewshot
from mtlib.experiments.seti._inferences import _objects
from mtlib.models.factory import classifier
from mtlib.models.training.baseline import majority_baseline
from mtlib.models.training.settings import ClassifierSettings
from mtlib.utils.context import RunContext
from mtlib.utils.threads import limit_threads

# --- models: encode once, train heads, score ------------------------------------------------------


def pairs_frame(items: pd.DataFrame) -> pd.DataFrame:
    """Items as the classifier factory's training data: ``text`` (premise), ``text_pair`` (hypothesis) and
    ``label`` (``"entailment"`` or ``"non-entailment"``)."""
    return pd.DataFrame(
        {
            "text": _objects(items["premise"]),
            "text_pair": _objects(items["hypothesis"]),
            "label": np.where(items["label"].to_numpy().astype(int) == 1, "entailment", "non-entailment"),
        }
    )


def head_predictions(
    encoder: Any,
    train: pd.DataFrame,
    test: pd.DataFrame,
    *,
    seed: int,
    head: str,
    dev: pd.DataFrame | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """A head on frozen pair features ``[u, v, |u-v|, u*v]`` of ``train`` (the classifier factory,
    ``how="head"``, ``head`` ``"linear"`` or ``"mlp"``), scored on ``test``; ``kwargs`` go to the factory.

    The encoder's embeddings are cached per sentence, so once :func:`universe` has been encoded no fit or
    prediction sends a sentence through the model again.

    Returns:
        ``pred`` (0/1 per test row), ``prob`` (entailment probability), ``dev_accuracy``.
    """
    if train["label"].nunique() < 2:  # one class only (possible in a tiny subsample): predict it
        prob = np.full(len(test), float(train["label"].iloc[0]))
        return {"pred": prob.astype(int), "prob": prob, "dev_accuracy": float("nan")}
    # an MLP head's many small steps: one BLAS thread is faster than two contending ones (10x on a loaded
    # 2-core CPU); a linear head keeps the run's threads for its Gram matrix and limits its own Newton loop
    # (mtlib.models.training.logistic)
    with limit_threads(small_fit_threads("head", head), torch_too=False):
        clf: Any = classifier(  # a trained classifier: it has .training
            encoder,
            pairs_frame(train),
            how="head",
            head=head,
            seed=seed,
            valid=pairs_frame(dev) if dev is not None and len(dev) else None,
            **kwargs,
        )
        prob = clf.score(list(_objects(test["premise"])), "entailment", text_pairs=list(_objects(test["hypothesis"])))
    prob = np.asarray(prob, dtype=float)
    return {"pred": (prob > 0.5).astype(int), "prob": prob, "dev_accuracy": clf.training.heldout_accuracy}


def accuracy_by_rule(test: pd.DataFrame, pred: np.ndarray) -> pd.DataFrame:
    """Accuracy per Table 3 rule (CI) and per primitive kind, with counts and the majority baseline."""
    frame = test.assign(correct=(np.asarray(pred).astype(int) == test["label"].to_numpy().astype(int)))
    frame = frame.assign(
        group=np.where(
            frame["kind"] == "CI",
            frame["rule"].map(lambda r: f"{RULE_SYMBOLS.get(int(r), r)} rule {int(r)}"),
            frame["kind"],
        )
    )
    out = frame.groupby("group").agg(accuracy=("correct", "mean"), n=("correct", "size"), label=("label", "mean"))
    return out


def _score_rows(
    model: str,
    key: tuple[int, str, str, int],
    data: SetiData,
    pred: np.ndarray,
    extra: dict[str, Any],
    test: pd.DataFrame | None = None,
) -> tuple[dict[str, Any], pd.DataFrame]:
    task, setting, config, seed = key
    test = data.test if test is None else test
    correct = np.asarray(pred).astype(int) == test["label"].to_numpy().astype(int)
    row = {
        "model": model,
        "task": task,
        "setting": setting,
        "config": config,
        "seed": seed,
        "accuracy": float(correct.mean()),
        "baseline": majority_baseline(test["label"].astype(int)),
        "n_test": len(test),
        "n_train": len(data.train),
        **extra,
    }
    by_rule = (
        accuracy_by_rule(test, pred)
        .reset_index()
        .assign(model=model, task=task, setting=setting, config=config, seed=seed)
    )
    return row, by_rule


def evaluate_heads(
    encoder: Any,
    model: str,
    datasets: Mapping[tuple[int, str, str, int], SetiData],
    *,
    head: str,
    max_train: int,
    **kwargs: Any,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A head on frozen pair features for every dataset (seeded by the dataset's seed).

    ``max_train`` > 0 trains on at most that many training items (spread evenly over kinds and rules).

    Returns:
        ``(scores, by_rule)``: one row per dataset (``accuracy``, majority ``baseline``, ``dev_accuracy``,
        sizes) and one row per dataset and rule (accuracy per Table 3 rule / primitive kind).
    """
    rows, rules = [], []
    for key, data in datasets.items():
        train = _stratified(data.train, max_train, key[3], ["kind", "rule"])
        out = head_predictions(encoder, train, data.test, dev=data.dev, seed=key[3], head=head, **kwargs)
        row, by_rule = _score_rows(
            model,
            key,
            data,
            out["pred"],
            {"how": f"head-{head}", "n_train": len(train), "dev_accuracy": out["dev_accuracy"]},
        )
        rows.append(row)
        rules.append(by_rule)
    return pd.DataFrame(rows), pd.concat(rules, ignore_index=True)


def pair_classifier(
    model: Any,
    train: pd.DataFrame,
    *,
    how: str,
    settings: ClassifierSettings,
    seed: int,
    init: Any = None,
    **options: Any,
) -> Any:
    """The classifier factory on (premise, hypothesis) pairs of ``train``: a head on frozen pair features
    (``how="head"``) or a cross-encoder (``how="finetune"``), trained with ``settings`` (its head, epochs,
    lr, ...; ``options`` override single fields, e.g. ``epochs``), nothing held out; ``init``
    continues training that classifier on ``train`` (which may then hold one class only)."""
    options.setdefault("heldout_fraction", 0.0)
    with limit_threads(small_fit_threads(how, options.get("head", settings.head)), torch_too=False):
        return classifier(model, pairs_frame(train), how=how, settings=settings, seed=seed, init=init, **options)


def small_fit_threads(how: str, head: str) -> int | None:
    """BLAS threads for one SETI fit: 1 for an MLP head (many tiny steps), else the run's own (``None``).

    Example:
        >>> small_fit_threads("head", "mlp"), small_fit_threads("head", "linear"), small_fit_threads("finetune", "mlp")
        (1, None, None)
    """
    return 1 if how == "head" and head == "mlp" else None


def pair_predictions(clf: Any, test: pd.DataFrame) -> np.ndarray:
    """0/1 predictions (entailment probability above 0.5) of a pair classifier on ``test``."""
    prob = clf.score(list(_objects(test["premise"])), "entailment", text_pairs=list(_objects(test["hypothesis"])))
    return (np.asarray(prob, dtype=float) > 0.5).astype(int)


def evaluate_fewshot(
    encoder: Any,
    model: str,
    datasets: Mapping[tuple[int, str, str, int], SetiData],
    shots: Sequence[int],
    *,
    how: str,
    mode: str,
    fewshot_epochs: int,
    head: str,
    max_train: int,
    settings: ClassifierSettings | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """Accuracy against the number of D_few shots (§5.2), per dataset and seed.

    Args:
        encoder: A loaded model or a model name (frozen encoder for ``how="head"``, fine-tuned for
            ``how="finetune"``).
        model: The rows' model label; fine-tuned runs get ``-ft`` appended (as in Figure 1).
        how: ``"head"`` (a head on frozen pair features) or ``"finetune"`` (a cross-encoder, the paper's method).
        mode: ``"add"``: the first k D_few items join the training data (the paper's most plausible reading);
            ``"continue"``: train on D_train, then ``fewshot_epochs`` more epochs on the k items alone, starting
            from the trained weights (0 shots is the D_train model itself).
        head: Head on frozen features (``"mlp"`` for ``mode="continue"``); ``how="head"`` only.
        max_train: Train on at most this many D_train items (spread over kinds and rules; 0 keeps all).
        settings: The fine-tuning's settings (epochs, lr, batch size, its head, ...); needed for
            ``how="finetune"``, unused for ``how="head"``.
        kwargs: Further options of the factory (e.g. ``context``).

    The test set is the same for every shot budget (D_few was taken out of it when the data was built).

    Raises:
        SetiError: unknown few-shot settings (:func:`~mtlib.experiments.seti._facts.check_fewshot`), or
            ``how="finetune"`` without ``settings``.
    """
    check_fewshot(how, mode, fewshot_epochs, head)
    if how == "finetune" and settings is None:
        raise SetiError("evaluate_fewshot(how='finetune') needs the fine-tuning's settings (settings=...)")
    fit = settings if how == "finetune" and settings is not None else ClassifierSettings(head=head)
    rows = []
    for key, data in datasets.items():
        base = SetiData(
            *key[:3], _stratified(data.train, max_train, key[3], ["kind", "rule"]), data.dev, data.test, data.few
        )
        if mode == "add" and how == "head":  # unchanged path of the frozen-head curves
            preds = {
                k: head_predictions(
                    encoder, with_shots(base, k), data.test, dev=data.dev, seed=key[3], head=head, **kwargs
                )["pred"]
                for k in shots
            }
        elif mode == "add":
            preds = {
                k: pair_predictions(
                    pair_classifier(encoder, with_shots(base, k), how=how, settings=fit, seed=key[3], **kwargs),
                    data.test,
                )
                for k in shots
            }
        else:
            first = pair_classifier(encoder, base.train, how=how, settings=fit, seed=key[3], **kwargs)
            more = {**kwargs, "epochs": fewshot_epochs}
            preds = {
                k: pair_predictions(
                    first
                    if k == 0
                    else pair_classifier(
                        encoder,
                        with_shots(base, k).iloc[len(base.train) :],
                        how=how,
                        settings=fit,
                        seed=key[3],
                        init=first,
                        **more,
                    ),
                    data.test,
                )
                for k in shots
            }
        for k, pred in preds.items():
            rows.append(
                {
                    "model": model + ("-ft" if how == "finetune" else ""),
                    "task": key[0],
                    "setting": key[1],
                    "seed": key[3],
                    "shots": int(k),
                    "how": how,
                    "mode": mode,
                    "accuracy": float((pred == data.test["label"].to_numpy()).mean()),
                    "baseline": majority_baseline(data.test["label"].astype(int)),
                }
            )
    return pd.DataFrame(rows)


def _stratified(frame: pd.DataFrame, n: int, seed: int, by: str | list[str]) -> pd.DataFrame:
    """At most ``n`` rows, spread evenly over the values of ``by``."""
    if n <= 0 or len(frame) <= n:
        return frame
    rng = np.random.default_rng(seed)
    order = frame.iloc[rng.permutation(len(frame))]
    rank = order.groupby(by).cumcount()
    return order.iloc[np.argsort(rank.to_numpy(), kind="stable")[:n]].sort_index()


def finetune_predictions(
    model: str,
    train: pd.DataFrame,
    test: pd.DataFrame,
    *,
    seed: int,
    settings: ClassifierSettings,
    context: RunContext,
    dev: pd.DataFrame | None = None,
) -> np.ndarray:
    """Fine-tune ``model`` as a cross-encoder on (premise, hypothesis) pairs and predict ``test`` (0/1).

    Goes through the classifier factory (``mtlib.models.classifier(..., how="finetune")``) with ``settings``
    (notebook 07's ``finetune_settings``: Adam, batch 16, at most 128 tokens, as the paper).
    """
    clf = classifier(
        model,
        pairs_frame(train),
        how="finetune",
        settings=settings,
        valid=pairs_frame(dev) if dev is not None else None,
        heldout_fraction=0.0,
        seed=seed,
        context=context,
    )
    prob = clf.score(list(_objects(test["premise"])), "entailment", text_pairs=list(_objects(test["hypothesis"])))
    return (np.asarray(prob) > 0.5).astype(int)


def evaluate_finetune(
    model: str,
    datasets: Mapping[tuple[int, str, str, int], SetiData],
    *,
    tasks: Sequence[tuple[int, str]],
    seeds: Sequence[int],
    train_size: int,
    test_size: int,
    settings: ClassifierSettings,
    context: RunContext,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fine-tune on a subsample of each chosen setting's training data (balanced by kind) and test on a
    subsample of its test set (balanced by rule).

    Args:
        model: The model's name.
        datasets: ``{(task, setting, config, seed): SetiData}``.
        tasks: The ``(task, setting)`` pairs to fine-tune on.
        seeds: The seeds to run (datasets of other seeds are skipped).
        train_size, test_size: Subsample sizes (0 keeps all).
        settings: The fine-tuning's settings (:func:`finetune_predictions`).
        context: The run's context (where the fine-tuning runs).
    """
    rows, rules = [], []
    for key, data in datasets.items():
        if (key[0], key[1]) not in set(tasks) or key[3] not in set(seeds):
            continue
        train = _stratified(data.train, train_size, key[3], ["kind", "rule"])
        test = _stratified(data.test, test_size, key[3], "rule")
        pred = finetune_predictions(model, train, test, seed=key[3], settings=settings, context=context)
        row, by_rule = _score_rows(model, key, data, pred, {"how": "finetune", "n_train": len(train)}, test)
        rows.append(row)
        rules.append(by_rule)
    if not rows:
        return pd.DataFrame(), pd.DataFrame()
    return pd.DataFrame(rows), pd.concat(rules, ignore_index=True)
