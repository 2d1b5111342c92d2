"""Training and scoring one classifier per Table 1 setting: encoder x final layers x mode.

Intuition: a :class:`Setting` names an encoder, a head (``linear``, ``mlp``
= the paper's DNN, or the model's ``native`` output) and a mode (``FB``:
frozen encoder, ``FT``: fine-tuned). :func:`run_settings` trains each through
the classifier factory (:func:`mtlib.models.classifier`), frozen features
shared by both heads and every seed, and :func:`evaluate_setting` scores it
on the test sentences and the cleaned pairs. How each is trained travels as
:class:`~mtlib.models.ClassifierSettings` objects (notebook 05's
``head_settings`` and per-encoder ``finetune_settings``), made and checked once
by :class:`~mtlib.experiments.pss.spec.Spec`.

Texts an encoder has no vector for (static word vectors that know none of their
words) never stop a run: the heads skip such training sentences, and answer
the training class shares (the majority class) for such test sentences and pair
sides (:mod:`mtlib.models.training.frozen`). :func:`coverage` counts them per part, once
per encoder, into each FB outcome's ``info["oov"]``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mtlib.experiments.pss._checks import check_names, check_text_columns
from mtlib.experiments.pss._scoring import ABSTAIN, _binary, prediction_table, pss
from mtlib.models.factory import classifier as build_classifier
from mtlib.models.inference.oov import coverage_summary, model_token_counts
from mtlib.models.training.baseline import majority_baseline
from mtlib.models.training.heads import HEADS
from mtlib.models.training.settings import ClassifierSettings
from mtlib.relations.errors import check_frame, check_seeds, refuse
from mtlib.utils.context import RunContext
from mtlib.utils.threads import cpu_threads, limit_threads

#: The parts of a run whose coverage by a frozen encoder is counted, and what happens to a text with no vector.
OOV_PARTS = {
    "train": ("training sentences", "skipped by the heads"),
    "test": ("test sentences", "given the training majority class"),
    "pairs": ("pair sides", "given the training majority class"),
}

#: Head names: mtlib's (``mtlib.models.classifier``) to the paper's "Final Layers".
FINAL_LAYERS = {"linear": "Linear", "mlp": "DNN", "native": "native"}
#: The paper's DNN head: two hidden layers of 500 and 100 units. It is the factory's default ``hidden``
#: (a test checks), so an ``mlp`` head is the paper's DNN unless a training block sets ``hidden``.
DNN_HIDDEN = (500, 100)
#: Training modes: frozen encoder (head trained), fine-tuned, or the model's own output.
MODES = ("FB", "FT", "native")


@dataclass(frozen=True)
class Setting:
    """One row of Table 1: an encoder, its final layers, and the training mode.

    Attributes:
        encoder: Registry name, hub id or path.
        head: ``"linear"``, ``"mlp"`` (the paper's DNN) or ``"native"`` (the
            model's own output, no training).
        mode: ``"FB"`` (frozen encoder, head trained), ``"FT"`` (encoder and
            head trained together) or ``"native"``.
    """

    encoder: str
    head: str
    mode: str

    @property
    def key(self) -> str:
        """The setting's name in tables: ``<encoder>/<head>/<mode>``."""
        return f"{self.encoder}/{self.head}/{self.mode}"

    @property
    def group(self) -> str:
        """The setting within its encoder, in metric keys: ``<head>/<mode>``, or ``native``."""
        return "native" if self.mode == "native" else f"{self.head}/{self.mode}"


def settings_grid(
    encoders: Sequence[str],
    heads: Sequence[str],
    finetune: Sequence[str] = (),
    native: Sequence[str] = (),
    finetune_heads: Mapping[str, Sequence[str]] | None = None,
) -> list[Setting]:
    """Table 1's crossing: every encoder x head in FB, the ``finetune`` encoders also in FT, natives alone.

    Args:
        finetune_heads: Per fine-tuned encoder, the heads to fine-tune (an
            encoder not named gets every head of ``heads``); fine-tuning a
            transformer is the expensive part of a CPU run.

    Raises:
        ValueError: an unknown head, or a fine-tuned encoder not among ``encoders``.
        MtlibInputError: ``encoders``, ``heads``, ``finetune`` or ``native`` not a list of names (a bare
            string would be read letter by letter), ``finetune_heads`` not a mapping.
    """
    for name, value in (("encoders", encoders), ("heads", heads), ("finetune", finetune), ("native", native)):
        check_names(value, "settings_grid", name)
    if finetune_heads is not None and not isinstance(finetune_heads, Mapping):
        raise refuse("settings_grid", "finetune_heads", "a mapping {encoder: [heads]} or None", finetune_heads)
    for encoder, hs in (finetune_heads or {}).items():
        check_names(hs, "settings_grid", f"finetune_heads[{encoder!r}]")
    finetune_heads = dict(finetune_heads or {})
    bad = [h for h in [*heads, *(h for hs in finetune_heads.values() for h in hs)] if h not in HEADS]
    if bad:
        raise ValueError(f"heads {bad}: expected 'linear' and/or 'mlp'")
    stray = [e for e in [*finetune, *finetune_heads] if e not in encoders]
    if stray:
        raise ValueError(f"finetune lists {stray}, which are not in encoders {list(encoders)}")
    grid = [Setting(e, h, "FB") for e in encoders for h in heads]
    grid += [Setting(e, h, "FT") for e in finetune for h in finetune_heads.get(e, heads)]
    grid += [Setting(m, "native", "native") for m in native]
    return grid


@dataclass
class Outcome:
    """One trained (or native) classifier scored on the test sentences and the pairs.

    Attributes:
        setting: What was trained.
        seed: Training seed (``None`` for native models).
        test_correct: Per test sentence, was it classified right; shape ``(n_test,)``.
        table: :func:`prediction_table` over the kept pairs.
        majority_baseline: Accuracy of always predicting the test set's majority class.
        info: Training facts from the model (held-out accuracy, from cache, seconds).
    """

    setting: Setting
    seed: int | None
    test_correct: np.ndarray
    table: pd.DataFrame
    majority_baseline: float
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return float(self.test_correct.mean()) if len(self.test_correct) else float("nan")

    @property
    def pss(self) -> float:
        return pss(self.table)


def positive_column(labels: Sequence[Any]) -> int:
    """Which column of ``classify`` is the positive class (label 1, ``positive``, ``POSITIVE``, ``pos``).

    Raises:
        ValueError: no label reads as positive.
    """
    names = [str(x).strip().lower() for x in labels]
    for want in ("1", "positive", "pos", "label_1"):
        if want in names:
            return names.index(want)
    raise ValueError(f"cannot tell the positive class among labels {list(labels)}")


def predict_labels(model: Any, texts: Sequence[str]) -> np.ndarray:
    """Labels from any mtlib classifier: 1 positive, 0 negative, -1 undecided (a tie).

    A tie happens for lexicon models on a text with no sentiment word (VADER
    and TextBlob give polarity 0, i.e. probabilities 0.5/0.5); it counts as
    wrong whatever the gold label, rather than being given to one class by
    an arbitrary tie-break. Each unique text goes through the model once.

    Returns:
        Shape ``(n,)``, int64.
    """
    texts = list(texts)
    if not texts:
        return np.zeros(0, np.int64)
    unique, inverse = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    probs = np.asarray(model.classify(list(unique)), dtype=np.float64)
    pos = positive_column(getattr(model, "labels", [0, 1]))
    p_pos = probs[:, pos]
    p_other = np.delete(probs, pos, axis=1).max(axis=1)
    pred = np.where(p_pos > p_other, 1, np.where(p_pos < p_other, 0, ABSTAIN)).astype(np.int64)
    return pred[inverse.reshape(-1)]


def evaluate_setting(
    model: Any, setting: Setting, test: pd.DataFrame, pairs: pd.DataFrame, seed: int | None = None
) -> Outcome:
    """Score one classifier: accuracy on ``test`` (``text``, ``label``) and the pair table.

    Test sentences, sources and rewrites are classified in one call (each unique text once).
    """
    texts = [*test["text"], *pairs["source"], *pairs["rewrite"]]
    pred = predict_labels(model, texts)
    n_test, n_pairs = len(test), len(pairs)
    y = _binary(test["label"].to_numpy(), "test labels")
    table = prediction_table(pairs, pred[n_test : n_test + n_pairs], pred[n_test + n_pairs :])
    majority = majority_baseline(y)
    training = getattr(model, "training", None)
    facts = training if isinstance(training, dict) else vars(training) if training is not None else {}
    info = {k: facts[k] for k in ("heldout_accuracy", "majority_baseline", "from_cache") if k in facts}
    info["undecided"] = int((pred == ABSTAIN).sum())
    return Outcome(setting, seed, pred[:n_test] == y, table, majority, info)


def coverage(encoder: Any, train: pd.DataFrame, test: pd.DataFrame, pairs: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """How much of each part an encoder covers, by :data:`OOV_PARTS`.

    Counted by :func:`mtlib.models.inference.oov.coverage_summary`.

    ``pairs`` counts sources and rewrites (two texts a pair). A model without a vocabulary covers everything.
    """
    parts = {
        "train": list(train["text"]),
        "test": list(test["text"]),
        "pairs": [*pairs["source"], *pairs["rewrite"]],
    }
    return {part: coverage_summary(model_token_counts(encoder, texts), len(texts)) for part, texts in parts.items()}


def _check_run_inputs(
    grid: Any,
    train: Any,
    test: Any,
    pairs: Any,
    seeds: Any,
    finetune_train: Any,
    context: Any,
    head_settings: Any,
    finetune_settings: Any,
) -> None:
    """:func:`run_settings`'s checks, made once before any training."""
    where = "run_settings"
    if isinstance(grid, (str, Setting)) or not isinstance(grid, Sequence):
        raise refuse(where, "grid", "a list of Setting (settings_grid)", grid)
    for i, setting in enumerate(grid):
        if not isinstance(setting, Setting):
            raise refuse(where, f"grid[{i}]", "a Setting (settings_grid)", setting)
    check_frame(train, where, "train", ["text", "label"])
    check_frame(test, where, "test", ["text", "label"])
    check_text_columns(test, where, "test", ["text"])
    check_frame(pairs, where, "pairs", ["source", "rewrite", "direction"])
    check_text_columns(pairs, where, "pairs", ["source", "rewrite"])
    if finetune_train is not None:
        check_frame(finetune_train, where, "finetune_train", ["text", "label"])
    check_seeds(seeds, where)
    if not isinstance(context, RunContext):
        raise refuse(where, "context", "a RunContext (Spec.context(), or RunContext.resolve(device=...))", context)
    if not isinstance(head_settings, ClassifierSettings):
        raise refuse(where, "head_settings", "a ClassifierSettings (Spec.head_training())", head_settings)
    if not isinstance(finetune_settings, Mapping):
        raise refuse(
            where,
            "finetune_settings",
            "a mapping {encoder: ClassifierSettings} (Spec.finetune_training())",
            finetune_settings,
        )
    for encoder, block in finetune_settings.items():
        if not isinstance(block, ClassifierSettings):
            raise refuse(where, f"finetune_settings[{encoder!r}]", "a ClassifierSettings", block)


def run_settings(
    grid: Sequence[Setting],
    train: pd.DataFrame,
    test: pd.DataFrame,
    pairs: pd.DataFrame,
    *,
    seeds: Sequence[int],
    context: RunContext,
    head_settings: ClassifierSettings,
    finetune_settings: Mapping[str, ClassifierSettings],
    finetune_train: pd.DataFrame | None = None,
    classifier: Callable[..., Any] | None = None,
    log: Callable[[str], None] | None = print,
) -> list[Outcome]:
    """Train (or load from cache) one classifier per setting and seed and score it.

    Frozen-encoder heads share the encoder's cached features: they are
    computed once per encoder and reused by both heads and every seed (the
    factory's feature cache). Native models run once (they have no seed).

    Args:
        grid: Settings from :func:`settings_grid`.
        train: ``text, label`` for the heads.
        test: ``text, label`` for accuracy (the paper: dev and test combined).
        pairs: Cleaned pairs (``source, rewrite, direction``).
        seeds: Training seeds.
        context: The run's context: encoders load and classifiers train in it.
        head_settings: How the FB heads train (``lr``, ``epochs``, ``batch_size``, ``hidden`` of an MLP head;
            ``C``, ``class_weight`` of a linear one); the head itself comes from each setting.
        finetune_settings: Per fine-tuned encoder, how it trains (``lr``, ``epochs``, ``batch_size``,
            ``max_length`` ...); an FT encoder not named trains with the factory's defaults.
        finetune_train: The (smaller) training set of FT settings; ``train`` when ``None``.
        classifier: The factory, ``mtlib.models.classifier`` by default (tests pass a counting one).
        log: Called with one line per trained setting (``None`` for silence).

    Returns:
        One :class:`Outcome` per (setting, seed), in grid order.

    Raises:
        MtlibInputError: ``grid`` not a list of :class:`Setting`, ``train`` / ``test`` not DataFrames with
            ``text`` and ``label``, ``pairs`` not one with text ``source`` and ``rewrite`` and ``direction``,
            ``seeds`` not a non-empty list of integers >= 0, ``context`` not a RunContext, ``head_settings`` not a
            :class:`~mtlib.models.ClassifierSettings`, ``finetune_settings`` not a mapping of them.
    """
    _check_run_inputs(grid, train, test, pairs, seeds, finetune_train, context, head_settings, finetune_settings)
    fit: Callable[..., Any] = build_classifier if classifier is None else classifier
    outcomes = []
    warm: set[str] = set()  # encoders whose frozen features are in the cache
    oov: dict[str, dict[str, dict[str, Any]]] = {}  # per encoder, its coverage of each part
    for setting in grid:
        for seed in [None] if setting.mode == "native" else seeds:
            t0 = time.perf_counter()
            if setting.mode == "native":
                model = fit(setting.encoder, None, how="native", context=context)
            elif setting.mode == "FB":
                on_frozen = dict(how="head", settings=head_settings, seed=seed, context=context)
                if setting.head == "mlp" and setting.encoder not in warm:
                    # the encoder's features first, with every thread (the Linear head does it too)
                    fit(setting.encoder, train, head="linear", **on_frozen)
                # the MLP head trains on tiny batches: one CPU thread (see mtlib.utils.threads)
                with limit_threads(cpu_threads(context.device) if setting.head == "mlp" else None):
                    model = fit(setting.encoder, train, head=setting.head, **on_frozen)
                warm.add(setting.encoder)
                if setting.encoder not in oov:
                    oov[setting.encoder] = coverage(getattr(model, "encoder", model), train, test, pairs)
            else:  # FT: an encoder without a block of its own trains with the factory's defaults
                model = fit(
                    setting.encoder,
                    finetune_train if finetune_train is not None else train,
                    how="finetune",
                    settings=finetune_settings.get(setting.encoder, ClassifierSettings()),
                    head=setting.head,
                    seed=seed,
                    context=context,
                )
            out = evaluate_setting(model, setting, test, pairs, seed=seed)
            out.info["seconds"] = time.perf_counter() - t0
            if setting.mode == "FB":
                out.info["oov"] = oov[setting.encoder]
            outcomes.append(out)
            if log:
                log(
                    f"{setting.key} seed={seed}: accuracy {out.accuracy:.3f} (majority {out.majority_baseline:.3f}), "
                    f"PSS {out.pss:.3f} on {len(out.table)} pairs, {out.info['seconds']:.1f} s"
                    + (" (cached)" if out.info.get("from_cache") else "")
                )
    return outcomes
