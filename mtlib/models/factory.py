"""One classifier factory: any model plus labelled texts -> a classifier :class:`Model`.

Intuition: an experiment needs "a classifier from this model" and should not
care how it is obtained. :func:`classifier` decides it once, for every
notebook, and hands over to one small builder per way:

- ``how="native"`` (:mod:`mtlib.models.training.native`): the model's own head (a
  Hugging Face classifier, VADER, TextBlob); nothing is trained, the data only
  measure its accuracy;
- ``how="head"`` (:mod:`mtlib.models.training.frozen`): the encoder stays frozen; its
  cached ``embed`` gives the features once (pairs: ``[u, v, |u - v|, u * v]``)
  and a linear (logistic-regression) or MLP head is trained on them;
- ``how="prompt"`` (:mod:`mtlib.models.training.prompt`): a causal language model answers a prompt
  per input; each label's verbaliser log-probability, calibrated, gives the class probabilities. A causal
  LM asked for ``auto``, ``native`` or ``head`` gets this way too (it has neither a head nor sentence
  embeddings), and its ``training.how`` says ``"prompt"``;
- ``how="finetune"`` (:mod:`mtlib.models.training.finetune`): encoder and head are trained
  together through :func:`mtlib.models.training.loop.fit`, seeded, with
  length-bucketed batches padded to their longest member; pairs go through the
  tokenizer's pair encoding.

Training is cached (:mod:`mtlib.models.training.store`) by (encoder identity,
training-data hash, settings, seed; for a head, the encoder's backend when it is
not torch; the numerics, :func:`numerics_key`): a rerun reloads the head (``.npz`` /
``safetensors`` + JSON) or the fine-tuned weights (``safetensors``) instead of
training, and a fine-tuned network is only rebuilt when a prediction is not in
the output cache. Whether a classifier was trained or reloaded is in its
``training.from_cache``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np

from mtlib.models.base import Model
from mtlib.models.inference.numerics import device_class, numerics_tag, training_precision
from mtlib.models.loading import load, load_context
from mtlib.models.training.finetune import FineTunedClassifier, finetuned_classifier
from mtlib.models.training.frozen import (
    FEATURE_HEAD_OPTIONS,
    KINDS,
    Head,
    HeadClassifier,
    feature_head,
    head_classifier,
)
from mtlib.models.training.frozen import frozen_features as frozen_features
from mtlib.models.training.heads import MLPHead
from mtlib.models.training.labelled import parse_labelled, prepare
from mtlib.models.training.native import NativeClassifier as NativeClassifier
from mtlib.models.training.native import native_classifier
from mtlib.models.training.prompt import PromptClassifier as PromptClassifier
from mtlib.models.training.prompt import prompt_classifier
from mtlib.models.training.resolved import ResolvedTraining
from mtlib.models.training.settings import CLASSIFIER_HELDOUT, HOWS, OLD_HEADS, ClassifierSettings
from mtlib.models.training.settings import Training as Training
from mtlib.models.training.store import _MEMO as _MEMO  # the in-process memo; tests clear it through this name
from mtlib.models.training.store import data_digest, memo, remember
from mtlib.utils.context import RunContext
from mtlib.utils.inputs import check_seed

# An import "as" itself is a re-export: other modules import that name from here (it is not on the face).
__all__ = ["classifier", "train_head"]


@overload
def classifier(
    model: np.ndarray,
    train: Any = None,
    *,
    how: str = "auto",
    settings: ClassifierSettings | None = None,
    context: RunContext | None = None,
    **options: Any,
) -> Head: ...


@overload
def classifier(
    model: str | Model,
    train: Any = None,
    *,
    how: str = "auto",
    settings: ClassifierSettings | None = None,
    context: RunContext | None = None,
    **options: Any,
) -> Model: ...


def classifier(
    model: str | Model | np.ndarray,
    train: Any = None,
    *,
    how: str = "auto",
    settings: ClassifierSettings | None = None,
    context: RunContext | None = None,
    **options: Any,
) -> Model | Head:
    """A classifier from any model, by its own head, a head on frozen features, or fine-tuning.

    A feature matrix in place of a model gives a head on those features (a probe, what ``train_head`` gave):
    ``classifier(X, y, how="head", head="linear", seed=0)`` (it holds out
    :data:`~mtlib.models.training.settings.CLASSIFIER_HELDOUT`, else ``heldout_fraction``), or ``valid=(X_test,
    y_test)``; its head settings (``C``, ``class_weight``, ``hidden``, ``epochs``, ``lr``, ``batch_size``,
    ``device``, and ``standardize``, ``max_iter`` of a linear head) go to the head as given. It returns a
    :class:`~mtlib.models.training.frozen.Head` (``predict_proba``, ``accuracy``, ``key``...).

    Args:
        model: A registry name, hub id or path, a loaded :class:`Model`, or a feature matrix ``(n, d)``
            (then ``train`` is its labels ``(n,)``).
        train: Labelled data: a DataFrame with columns ``text``, ``label`` and
            optionally ``text_pair``, or a tuple ``(texts, labels)`` /
            ``(texts, text_pairs, labels)``. Labels are any hashable values.
            Optional for ``how="native"`` (then it only measures accuracy).
        how: ``"native"`` (the model's own head), ``"head"`` (frozen encoder,
            trained head), ``"finetune"`` (encoder and head trained together),
            ``"prompt"`` (a causal LM answering a prompt; options ``template``, ``calibration``,
            ``shots``, ``verbalisers``, ``chat``) or ``"auto"`` (prompt for a causal LM, native if the
            model has its own head, else head).
        settings: A :class:`~mtlib.models.training.settings.ClassifierSettings`; keyword ``options`` override
            its fields.
        context: The run's :class:`~mtlib.utils.context.RunContext`: the device training runs on and where a
            model given by name loads. None: a loaded model's own context, else one resolved from the
            environment. An explicit ``device`` setting takes over its device, for the load and the training.
        **options: Any field of :class:`~mtlib.models.training.settings.ClassifierSettings` (``head``,
            ``seed``, ``epochs``, ``lr``, ``heldout_fraction``, ``valid``, ``init``...), each documented
            and defaulted there, once; the defaults that depend on ``how`` and the model family (epochs,
            learning rate, batch size) are :func:`~mtlib.models.training.settings.resolved_hyper`'s. What
            a training ends up using is its :class:`~mtlib.models.training.resolved.ResolvedTraining`.

    Returns:
        A :class:`Model` with ``classify(texts, text_pairs=None) -> (n, k)``,
        ``score``, ``log_odds``, ``labels`` and ``training`` (a :class:`Training`).

    Raises:
        ValueError: one class, texts and labels of different lengths, an
            unknown ``how`` or ``head``, a label outside ``labels`` or the
            model's own labels, or fine-tuning / a head asked of a model that
            cannot have one; each message names the model and what would work.
        TypeError: an unknown option.
    """
    if isinstance(model, np.ndarray):
        return _feature_head(model, train, how, settings, context, options)
    name = str(getattr(model, "name", model))
    s = ClassifierSettings.from_options(name, options, settings)
    _check_choices(name, how, s)
    # resolved once: the run's context, else a loaded model's own, else the environment's; an explicit device wins
    ctx = load_context(context or getattr(model, "context", None), s.device)
    base = model if isinstance(model, Model) else load(str(model), context=ctx)
    name = base.name
    if base.capabilities.prompts and how in ("auto", "native", "head"):
        how = "prompt"  # a causal LM has no head and no sentence embeddings: it answers a prompt
    if how == "auto":
        how = "native" if base.labels else "head"
    if how == "prompt":
        return prompt_classifier(base, train, s)
    if how == "native":
        return native_classifier(base, train, s.valid, s.labels)
    _check_trainable(base, how, train)
    parsed = parse_labelled(train, "train", name)
    labels = _check_init(s.init, base, how, s.head, s.labels, parsed[1] is not None) if s.init is not None else s.labels
    task = prepare(parsed, s, name, labels, every_class=how == "head" and s.head == "linear")
    device = ctx.device
    # the one resolved training: every default applied, the cache key computed from it, handed down as it is
    plan = ResolvedTraining.resolve(
        s,
        how,
        base.capabilities,
        task.classes,
        task.pairs is not None,
        task.valid_hash,
        backend=base.backend if how == "head" and base.backend not in (None, "torch") else None,
        numerics=numerics_key(base, how, s.head, device),
    )
    digest = data_digest(task.texts, task.pairs, task.labels)
    key = plan.cache_key(base.identity, digest)
    known = memo(key) if s.use_cache else None
    if known is not None:
        return known
    build = head_classifier if how == "head" else finetuned_classifier
    clf = build(base, task, plan, key, device)
    clf.run_in(base.context)  # on its own device, in its encoder's numerics and cache folder
    clf.training.data_sha256 = digest
    return remember(key, clf) if s.use_cache else clf


def _feature_head(
    X: np.ndarray,
    y: Any,
    how: str,
    settings: ClassifierSettings | None,
    context: RunContext | None,
    options: dict[str, Any],
) -> Head:
    """``classifier(X, y, how="head", ...)`` on a feature matrix: the options checked once, then the head trained."""
    where = f"features {tuple(X.shape)}"
    if how not in ("auto", "head"):
        raise ValueError(f"classifier({where}, how={how!r}): a feature matrix takes how='head' (or 'auto')")
    if y is None:
        raise ValueError(f"classifier({where}): give the labels as train, shape ({len(X)},)")
    own = ("head", "seed", "heldout_fraction", "valid", "use_cache")
    unknown = sorted(set(options) - set(own) - set(FEATURE_HEAD_OPTIONS))
    if unknown:
        raise TypeError(
            f"classifier({where}): unknown option(s) {unknown} for a head on features; the options are "
            f"{sorted(own + FEATURE_HEAD_OPTIONS)}"
        )
    checked = {k: v for k, v in options.items() if k not in ("max_iter", "standardize")}
    if settings is None:  # a probe's held-out share is the notebooks' one value, as train_head's was
        checked.setdefault("heldout_fraction", CLASSIFIER_HELDOUT)
    s = ClassifierSettings.from_options(where, checked, settings)  # checked once, here
    params = {k: options[k] for k in FEATURE_HEAD_OPTIONS if k in options}  # each one given keys the cache
    return feature_head(
        X,
        y,
        head=s.head,
        seed=s.seed,
        heldout_fraction=s.heldout_fraction,
        valid=s.valid,
        use_cache=s.use_cache,
        cache_dir=context.cache_dir if context is not None else None,
        params=params,
    )


def train_head(
    X: np.ndarray,
    y: np.ndarray,
    *,
    kind: str = "logreg",
    seed: int = 0,
    test_size: float = 0.2,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    use_cache: bool = True,
    cache_dir: str | Path | None = None,
    **params: Any,
) -> Head:
    """Deprecated: ``classifier(X, y, how="head", head=..., heldout_fraction=..., valid=(X_test, y_test))``.

    Warns a DeprecationWarning and calls the classifier factory (:func:`mtlib.models.classifier`), which
    trains the same head under the same cache key: ``kind`` is now ``head`` (``"logreg"`` is ``"linear"``),
    ``test_size`` is ``heldout_fraction``, ``X_test, y_test`` are ``valid``, ``cache_dir`` is the
    ``context``'s.

    Raises:
        ValueError: fewer than two classes, mismatched lengths, an unknown kind, or a seed outside
            [0, 2**32 - 1] (naming ``seed``).
    """
    warnings.warn(
        f"train_head(X, y, kind={kind!r}, test_size=...) is deprecated: use mtlib.models.classifier(X, y, "
        f"how='head', head={OLD_HEADS.get(kind, kind)!r}, heldout_fraction=...); train_head goes in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    if kind not in KINDS:
        raise ValueError(f"unknown head kind {kind!r}; choose one of {KINDS}")
    check_seed(seed, "train_head")  # named after the call the user made (the factory checks it again, cheaply)
    options: dict[str, Any] = {**params, "head": OLD_HEADS.get(kind, kind), "seed": seed, "heldout_fraction": test_size}
    if X_test is not None or y_test is not None:
        options["valid"] = (X_test, y_test)
    context = RunContext.resolve(device="cpu", cache_dir=cache_dir) if cache_dir is not None else None
    return classifier(X, y, how="head", use_cache=use_cache, context=context, **options)


def numerics_key(base: Model, how: str, head: str, device: str) -> dict[str, dict[str, str]]:
    """The numerics a trained classifier depends on, for its cache key: empty for fp32 on a CPU throughout.

    ``features``: what the frozen encoder's embeddings were computed in (a head; nothing for the ONNX
    backend, which runs fp32 on the CPU). ``training``: where and how the weights were trained, a
    fine-tune or an MLP head (mixed precision on CUDA, :func:`~mtlib.models.inference.numerics.training_precision`).

    Example:
        >>> numerics_key(Model("toy", "toy@1"), "finetune", "linear", "cuda")
        {'training': {'device': 'cuda', 'precision': 'bf16-mixed'}}
    """
    key: dict[str, dict[str, str]] = {}
    if how == "head" and base.precision is not None and base.backend != "onnx":
        features = numerics_tag(base.device, base.precision)
        if features:
            key["features"] = features
    if how == "finetune" or (how == "head" and head == "mlp"):
        training = numerics_tag(device, training_precision(device))
        if training:
            key["training"] = training
    elif how == "head" and device_class(device) == "cuda":  # a linear head's Newton steps on the card (float64)
        key["training"] = {"device": "cuda", "precision": "fp64"}
    return key


def _check_choices(name: str, how: str, s: ClassifierSettings) -> None:
    """A clear error for a ``how`` outside its choices (the settings checked themselves)."""
    if how not in HOWS:
        raise ValueError(f"classifier({name!r}): unknown how={how!r}; choose one of {HOWS}")


def _check_trainable(base: Model, how: str, train: Any) -> None:
    """Clear errors when ``base`` cannot be trained ``how``, or there is nothing to train on."""
    name = base.name
    if train is None:
        raise ValueError(
            f"classifier({name!r}, how={how!r}) needs training data: train=(texts, labels) or a "
            "DataFrame with text, label [, text_pair]"
        )
    if how == "head" and not base.has_embeddings:
        raise ValueError(
            f"classifier({name!r}, how='head'): {name} ({base.kind}) has no sentence embeddings to "
            f"train a head on; use how='native' for its own scores, or an encoder such as 'minilm'"
        )
    if how == "finetune" and not base.can_finetune:
        what = base.capabilities.why_not_finetune
        raise ValueError(
            f"classifier({name!r}, how='finetune'): {name} ({base.kind}) cannot be fine-tuned: {what}. "
            "Fine-tune a transformer (e.g. 'minilm', a Hugging Face folder) or 'minilm-static', or "
            "use how='head'" + (f" on {name}" if base.has_embeddings else " with an encoder")
        )


def _check_init(init: Model, base: Model, how: str, head: str, labels: Sequence[Any] | None, pairs: bool) -> list[Any]:
    """The classes of a classifier to continue from (``init=``); clear errors when it cannot continue."""
    name = base.name
    if how == "finetune" and isinstance(init, FineTunedClassifier):
        owner = init.base
    elif how == "head" and isinstance(init, HeadClassifier):
        if head != "mlp" or not isinstance(init.head, MLPHead):
            raise ValueError(
                f"classifier({name!r}, how='head', head={head!r}, init=...): only an MLP head continues "
                f"training (init has a {init.head.head} head); a logistic-regression head refits from "
                "scratch. Use head='mlp' or how='finetune'"
            )
        owner = init.encoder
    else:
        raise ValueError(
            f"classifier({name!r}, how={how!r}, init=...): init must be a classifier from "
            f"classifier(..., how={how!r}) to continue from; got {type(init).__name__}. Continuing "
            "works for how='finetune' and for how='head' with head='mlp'"
        )
    if owner.identity != base.identity:
        raise ValueError(f"classifier({name!r}, init=...): init was trained on {owner.name}, not {name}")
    trained_pairs = init.training.pairs
    if trained_pairs != pairs:
        raise ValueError(
            f"classifier({name!r}, init=...): init was trained on "
            f"{'text pairs' if trained_pairs else 'single texts'}; train the same way"
        )
    if labels is not None and list(labels) != list(init.labels):
        raise ValueError(f"classifier({name!r}, init=...): labels={list(labels)} differ from init's {init.labels}")
    return list(init.labels)
