"""One classifier factory: any model plus labelled texts -> a classifier :class:`Model`.

Intuition: an experiment needs "a classifier from this model" and should not
care how it is obtained. :func:`classifier` decides it once, for every
notebook:

- ``how="native"``: the model's own head (a Hugging Face classifier, VADER,
  TextBlob); nothing is trained, the data only measure its accuracy;
- ``how="head"``: the encoder stays frozen; its cached ``embed`` gives the
  features once (pairs: ``[u, v, |u - v|, u * v]``) and a linear
  (logistic-regression) or MLP head is trained on them;
- ``how="finetune"``: encoder and head are trained together through
  :func:`mtlib.models.training.fit`, seeded, with length-bucketed batches padded to
  their longest member; pairs go through the tokenizer's pair encoding.

Training is cached by (encoder identity, training-data hash, settings,
seed): a rerun reloads the head (``.npz`` / ``safetensors`` + JSON) or the
fine-tuned weights (``safetensors``) instead of training, and a fine-tuned
network is only rebuilt when a prediction is not in the output cache.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.utils.batching import inference_context, resolve_device, run_batched
from mtlib.utils.cache import (
    addressed_name,
    cache_root,
    cached_rows,
    read_record,
    record_file,
    sha256_hex,
    stable_hash,
    write_record,
)
from mtlib.models.base import Model, label_position, softmax
from mtlib.models.heads import FORMAT, HEADS, LinearHead, MLPHead, load_head, make_head, pair_features, save_head

HOWS = ("auto", "native", "head", "finetune")

#: Number of trainings run in this process (heads and fine-tunings); a cache hit adds nothing.
fits = 0

_MEMO: dict[str, Model] = {}


@dataclass
class Training:
    """How a classifier was obtained and how well it does on held-out data.

    Attributes:
        how: ``"native"``, ``"head"`` or ``"finetune"``.
        head: ``"linear"``, ``"mlp"`` or ``"native"`` (the model's own layer).
        settings: Every setting that went into the cache key.
        seed: Seeds the split, the initialisation and the batch order.
        heldout_accuracy: Accuracy on ``valid`` if given, else on the
            stratified ``heldout_fraction`` of ``train`` left out of training
            (``None`` without held-out data).
        majority_baseline: Share of the held-out set's most frequent label
            (the accuracy of always answering it); ``None`` likewise.
        train_log: Mean training loss per epoch (empty for a linear head or native).
        from_cache: True when the trained weights were reloaded, not trained.
        n_train, n_heldout: Examples trained on and evaluated on.
        key: The cache key.
        seconds: Time to train (0 when reloaded).
    """

    how: str
    head: str
    settings: dict[str, Any]
    seed: int
    heldout_accuracy: float | None
    majority_baseline: float | None
    train_log: list[float] = field(default_factory=list)
    from_cache: bool = False
    n_train: int = 0
    n_heldout: int = 0
    key: str = ""
    seconds: float = 0.0


# ---------------------------------------------------------------------------
# Input checking
# ---------------------------------------------------------------------------


def _parse(data: Any, what: str, model_name: str) -> tuple[list[str], list[str] | None, list[Any]]:
    """``(texts, text_pairs or None, labels)`` from a DataFrame or a tuple; clear errors otherwise."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        missing = [c for c in ("text", "label") if c not in data.columns]
        if missing:
            raise ValueError(f"classifier({model_name!r}): {what} needs columns 'text' and 'label' (and optionally "
                             f"'text_pair'); it lacks {missing} (columns: {list(data.columns)})")
        texts, labels = data["text"].tolist(), data["label"].tolist()
        pairs = data["text_pair"].tolist() if "text_pair" in data.columns else None
    elif isinstance(data, tuple) and len(data) in (2, 3):
        texts, labels = list(data[0]), list(data[-1])
        pairs = list(data[1]) if len(data) == 3 else None
    else:
        raise ValueError(f"classifier({model_name!r}): {what} must be a DataFrame with columns text, label "
                         f"[, text_pair] or a tuple (texts, labels) / (texts, text_pairs, labels); "
                         f"got {type(data).__name__}")
    if len(texts) != len(labels) or (pairs is not None and len(pairs) != len(texts)):
        sizes = f"{len(texts)} texts, " + (f"{len(pairs)} text_pairs, " if pairs is not None else "")
        raise ValueError(f"classifier({model_name!r}): {what} has {sizes}{len(labels)} labels; "
                         "each text needs exactly one label (and one text_pair for pairs)")
    if not texts:
        raise ValueError(f"classifier({model_name!r}): {what} is empty")
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise ValueError(f"classifier({model_name!r}): {what} row {bad[0]} has a non-text input {texts[bad[0]]!r}")
    labels = [x.item() if hasattr(x, "item") else x for x in labels]
    return [str(t) for t in texts], ([str(p) for p in pairs] if pairs is not None else None), labels


def _label_indices(labels: list[Any], classes: list[Any], what: str, model_name: str) -> np.ndarray:
    where = {c: i for i, c in enumerate(classes)}
    unknown = sorted({repr(x) for x in labels if x not in where})
    if unknown:
        raise ValueError(f"classifier({model_name!r}): {what} has labels {', '.join(unknown)} that are not in "
                         f"labels={classes}; pass labels= with every class, or fix the data")
    return np.array([where[x] for x in labels], dtype=np.int64)


def _majority(y_idx: np.ndarray) -> float:
    return float(np.bincount(y_idx).max() / len(y_idx))


def _json_safe(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=str))


# ---------------------------------------------------------------------------
# Trained classifiers as models
# ---------------------------------------------------------------------------


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


class HeadClassifier(Model):
    """A frozen encoder and a trained head on its (cached) sentence embeddings.

    Attributes:
        encoder: The frozen model (its ``embed`` is cached on disk).
        head: A :class:`~mtlib.models.heads.LinearHead` or :class:`~mtlib.models.heads.MLPHead`.
    """

    kind = "head-classifier"

    def __init__(self, encoder: Model, head: LinearHead | MLPHead, labels: Sequence[Any], training: Training) -> None:
        super().__init__(f"{encoder.name}+{head.kind}", f"{encoder.identity}+head:{training.key}", encoder.device,
                         False)
        self.encoder, self.head, self.labels, self.training = encoder, head, list(labels), training

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.encoder.embed(texts)

    def features(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        """The head's input: embeddings ``(n, d)``, or pair features ``(n, 4d)``."""
        return frozen_features(self.encoder, list(texts), list(text_pairs) if text_pairs is not None else None)

    def _check_pairs(self, text_pairs: Sequence[str] | None) -> None:
        if (text_pairs is not None) != self.training.settings["pairs"]:
            trained = "text pairs" if self.training.settings["pairs"] else "single texts"
            raise ValueError(f"{self.name} was trained on {trained}; call it the same way")

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        self._check_pairs(text_pairs)
        texts = list(texts)
        return self.head.predict_proba(self.features(texts, text_pairs)) if texts else np.zeros((0, len(self.labels)))

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        self._check_pairs(text_pairs)
        texts = list(texts)
        return self.head.logits(self.features(texts, text_pairs)) if texts else np.zeros((0, len(self.labels)))

    def linear_parts(self, label: Any) -> tuple[np.ndarray, float] | None:
        """Raw-feature weights and bias of ``label``'s logit when the head is binary and linear, else None."""
        return self.head.linear_parts(self.label_index(label))


class FineTunedClassifier(Model):
    """A network trained end to end; predictions are batched by length and cached by input.

    The network is rebuilt from the base model and the saved weights only
    when a prediction is missing from the output cache.
    """

    kind = "finetuned-classifier"

    def __init__(self, base: Model, folder: Path, labels: Sequence[Any], training: Training, device: str,
                 use_cache: bool = True) -> None:
        super().__init__(f"{base.name}+finetuned", f"{base.identity}+finetune:{training.key}", device, use_cache)
        self.base, self.folder, self.labels, self.training = base, folder, list(labels), training
        #: The weights (content-addressed ``weights.<digest>.safetensors``, set from the cache record).
        self.weights_file = folder / "weights.safetensors"
        self.net: Any = None
        self.encoder: Any = None
        self.max_tokens = 65536 if device.startswith("cuda") else 2048

    def _build(self) -> None:
        from mtlib.models.finetune import build_network

        s = self.training.settings
        self.net, self.encoder, _ = build_network(self.base, len(self.labels), self.labels, head=s["head"],
                                                  hidden=s["hidden"], pooling=s["pooling"], pairs=s["pairs"],
                                                  max_length=s["max_length"])

    def _ensure_net(self) -> None:
        if self.net is not None:
            return
        from safetensors.torch import load_file

        self._build()
        self.net.load_state_dict(load_file(str(self.weights_file)))
        self.net.to(self.device).eval()

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        texts = list(texts)
        pairs = list(text_pairs) if text_pairs is not None else None
        if pairs is not None and len(pairs) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(pairs)} text_pairs")
        if (pairs is not None) != self.training.settings["pairs"]:
            trained = "text pairs" if self.training.settings["pairs"] else "single texts"
            raise ValueError(f"{self.name} was trained on {trained}; call it the same way")
        if not texts:
            return np.zeros((0, len(self.labels)))
        items = [t if pairs is None else {"t": t, "p": p} for t, p in zip(texts, pairs or texts)]

        def compute(batch: list[Any]) -> np.ndarray:
            self._ensure_net()
            bt = [it if isinstance(it, str) else it["t"] for it in batch]
            bp = [it["p"] for it in batch] if pairs is not None else None
            examples = self.encoder.encode(bt, bp)
            return run_batched(examples, self._forward, lengths=[self.encoder.length(e) for e in examples],
                               max_tokens=self.max_tokens, show_progress=False)

        rows = cached_rows(self._cache("logits", f"pair={pairs is not None}"), items, compute,
                           desc=f"classify {self.name}")
        return rows.astype(np.float64)

    def _forward(self, examples: list[dict[str, list[int]]]) -> np.ndarray:
        self.calls += 1
        batch = {k: v.to(self.device) for k, v in self.encoder.collate(examples).items()}
        with inference_context(self.device):
            return self.net(**batch).float().cpu().numpy()

    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        return softmax(self.logits(texts, text_pairs))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence embeddings of the fine-tuned encoder (the head's input for single texts), cached.

        Shape ``(n, d)``: a frozen-vs-fine-tuned comparison reads both encoders the same way.
        """
        texts = list(texts)

        def compute(batch: list[str]) -> np.ndarray:
            self._ensure_net()
            examples = self.encoder.encode(batch, None)
            return run_batched(examples, self._pooled, lengths=[self.encoder.length(e) for e in examples],
                               max_tokens=self.max_tokens, show_progress=False)

        return cached_rows(self._cache("embed"), texts, compute, desc=f"embed {self.name}")

    def _pooled(self, examples: list[dict[str, list[int]]]) -> np.ndarray:
        self.calls += 1
        batch = {k: v.to(self.device) for k, v in self.encoder.collate(examples).items()}
        with inference_context(self.device):
            return self.net.pooled(**batch).float().cpu().numpy()


# ---------------------------------------------------------------------------
# Features and training
# ---------------------------------------------------------------------------


def frozen_features(model: Model, texts: list[str], pairs: list[str] | None) -> np.ndarray:
    """Head input from a frozen model's cached ``embed``: ``(n, d)``, or ``[u, v, |u-v|, u*v]`` ``(n, 4d)`` for pairs.

    Raises:
        ValueError: a text has no embedding (out-of-vocabulary words of static
            vectors), naming the model, the text and the words.
    """
    if pairs is None:
        X = np.asarray(model.embed(texts), dtype=np.float32)
    else:
        E = np.asarray(model.embed(texts + pairs), dtype=np.float32)  # one call; each unique text once
        X = pair_features(E[:len(texts)], E[len(texts):])
    bad = np.flatnonzero(np.isnan(X).any(axis=1)) if len(X) else []
    if len(bad):
        i = int(bad[0])
        missing = getattr(model, "missing_words", lambda t: {})([texts[i]] + ([pairs[i]] if pairs else []))
        raise ValueError(f"{model.name} has no vector for {len(bad)} input(s), e.g. {texts[i]!r} (missing words: "
                         f"{sorted({w for ws in missing.values() for w in ws})}); drop those inputs or use a "
                         "model with word pieces such as 'minilm'")
    return X


def _train_head(model: Model, data: dict[str, Any], s: dict[str, Any], device: str,
                init: MLPHead | None = None) -> tuple[Any, list[float]]:
    X = frozen_features(model, data["texts"], data["pairs"])
    params = {"hidden": tuple(s["hidden"]), "epochs": s["epochs"], "lr": s["lr"], "batch_size": s["batch_size"],
              "device": device} if s["head"] == "mlp" else {}
    head = make_head(s["head"], s["seed"], **params)
    if isinstance(head, MLPHead):
        head.fit(X, data["y"], data["k"], init=init)
        return head, head.losses
    return head.fit(X, data["y"]), []


def _finetune(model: Model, data: dict[str, Any], s: dict[str, Any], labels: list[Any], device: str, *,
              pad_to: int | None = None, bucketed: bool = True, init: Any = None) -> tuple[Any, Any, list[float]]:
    """Train a fresh copy of ``model`` and a head; returns ``(network, encoder, losses)``.

    ``init`` (a :class:`FineTunedClassifier`) starts from its trained weights instead of fresh ones.

    ``pad_to``/``bucketed=False`` give the baseline of ``benchmarks/bench_training.py``
    (every batch padded to a fixed length, batches in random order).
    """
    import torch
    import torch.nn.functional as F

    from mtlib.models.finetune import build_network
    from mtlib.models.training import fit, length_bucketed_batches, seed_everything

    seed_everything(s["seed"])
    net, encoder, _ = build_network(model, data["k"], labels, head=s["head"], hidden=s["hidden"],
                                    pooling=s["pooling"], pairs=data["pairs"] is not None, max_length=s["max_length"])
    if init is not None:
        init._ensure_net()
        net.load_state_dict(init.net.state_dict())
    examples = encoder.encode(data["texts"], data["pairs"])
    lengths = [encoder.length(e) for e in examples]
    y = torch.as_tensor(data["y"], dtype=torch.long)

    def step_loss(module: Any, idx: np.ndarray, dev: str) -> Any:
        batch = encoder.collate([examples[i] for i in idx], pad_to)
        logits = module(**{k: v.to(dev) for k, v in batch.items()})
        return F.cross_entropy(logits.float(), y[idx].to(dev))

    batches = (lambda rng: length_bucketed_batches(lengths, s["batch_size"], rng)) if bucketed else None
    log = fit(net, len(examples), step_loss, epochs=s["epochs"], batch_size=s["batch_size"], lr=s["lr"],
              weight_decay=0.01, seed=s["seed"], device=device, warmup_fraction=0.1, batches=batches)
    return net, encoder, log.losses


def _weights_bytes(net: Any) -> bytes:
    """The network's weights as ``safetensors`` bytes (stored with their SHA-256 in ``classifier.json``)."""
    from safetensors.torch import save

    state = {k: v.detach().cpu().contiguous().clone() for k, v in net.state_dict().items()}
    return save(state)


def _defaults(how: str, head: str, kind: str, epochs: int | None, lr: float | None,
              batch_size: int | None) -> tuple[int, float, int]:
    if how == "finetune":
        return (epochs or 3, lr or (1e-3 if kind == "wordpiece-static" else 2e-5), batch_size or 32)
    if head == "mlp":
        return (epochs or 30, lr or 1e-3, batch_size or 64)
    return (0, 0.0, 0)


# ---------------------------------------------------------------------------
# The factory
# ---------------------------------------------------------------------------


def classifier(
    model: str | Model,
    train: Any = None,
    *,
    how: str = "auto",
    head: str = "linear",
    hidden: Sequence[int] = (500, 100),
    labels: Sequence[Any] | None = None,
    valid: Any = None,
    heldout_fraction: float = 0.1,
    seed: int = 0,
    epochs: int | None = None,
    lr: float | None = None,
    batch_size: int | None = None,
    max_length: int = 128,
    device: str = "auto",
    pooling: str = "mean",
    use_cache: bool = True,
    init: Model | None = None,
) -> Model:
    """A classifier from any model, by its own head, a head on frozen features, or fine-tuning.

    Args:
        model: A registry name, hub id or path, or a loaded :class:`Model`.
        train: Labelled data: a DataFrame with columns ``text``, ``label`` and
            optionally ``text_pair``, or a tuple ``(texts, labels)`` /
            ``(texts, text_pairs, labels)``. Labels are any hashable values.
            Optional for ``how="native"`` (then it only measures accuracy).
        how: ``"native"`` (the model's own head), ``"head"`` (frozen encoder,
            trained head), ``"finetune"`` (encoder and head trained together)
            or ``"auto"`` (native if the model has its own head, else head).
        head: ``"linear"`` (logistic regression on standardised features) or
            ``"mlp"`` (torch MLP with ``hidden`` layer sizes).
        hidden: Hidden sizes of the MLP head.
        labels: Class order (the columns of ``classify``); default: sorted
            unique training labels.
        valid: Held-out data in the same form as ``train``; when given, all of
            ``train`` trains and ``valid`` measures accuracy.
        heldout_fraction: Without ``valid``, this stratified fraction of
            ``train`` is held out for the accuracy (0: none).
        seed: Seeds the split, the head's initialisation and the batch order.
        epochs, lr, batch_size: Training settings (defaults: MLP head 30
            epochs, lr 1e-3, batch 64; fine-tuning 3 epochs, lr 2e-5, or 1e-3
            for a static embedding table, batch 32, 10% warm-up).
        max_length: Truncation length in tokens when fine-tuning.
        device: ``"auto"`` or an explicit torch device.
        pooling: Fine-tuning a Hugging Face encoder: ``"mean"`` of the last
            layer or ``"first"`` token.
        use_cache: Reload an identical training from the disk cache.
        init: Continue training this classifier (from the factory, same ``model``, ``how`` and labels) on
            ``train`` instead of starting afresh: a fine-tuned network (``how="finetune"``) or an MLP head
            (``how="head", head="mlp"``; it keeps its feature scaling). ``train`` may then hold one class
            only. Cached by the init's identity. A logistic-regression head cannot continue (a refit from
            scratch forgets the first data): use ``head="mlp"`` or ``how="finetune"``.

    Returns:
        A :class:`Model` with ``classify(texts, text_pairs=None) -> (n, k)``,
        ``score``, ``log_odds``, ``labels`` and ``training`` (a :class:`Training`).

    Raises:
        ValueError: one class, texts and labels of different lengths, an
            unknown ``how`` or ``head``, a label outside ``labels`` or the
            model's own labels, or fine-tuning / a head asked of a model that
            cannot have one; each message names the model and what would work.
    """
    global fits

    from mtlib import models as _models

    if how not in HOWS:
        raise ValueError(f"classifier({getattr(model, 'name', model)!r}): unknown how={how!r}; choose one of {HOWS}")
    if head not in HEADS:
        raise ValueError(f"classifier({getattr(model, 'name', model)!r}): unknown head={head!r}; choose one of "
                         f"{HEADS}")
    if pooling not in ("mean", "first"):
        raise ValueError(f"pooling must be 'mean' or 'first', got {pooling!r}")
    if not 0 <= heldout_fraction < 1:
        raise ValueError(f"heldout_fraction must be in [0, 1), got {heldout_fraction}")
    base = model if isinstance(model, Model) else _models.load(str(model), device=device)
    name = base.name
    if how == "auto":
        how = "native" if base.labels else "head"

    if how == "native":
        return _native(base, train, valid, labels)
    if train is None:
        raise ValueError(f"classifier({name!r}, how={how!r}) needs training data: train=(texts, labels) or a "
                         "DataFrame with text, label [, text_pair]")
    if how == "head" and not base.has_embeddings:
        raise ValueError(f"classifier({name!r}, how='head'): {name} ({base.kind}) has no sentence embeddings to "
                         f"train a head on; use how='native' for its own scores, or an encoder such as 'minilm'")
    if how == "finetune" and not base.can_finetune:
        what = ("a lexicon scorer has no trainable weights" if base.kind == "lexicon"
                else "static word vectors are a lookup table without a tokenizer to train through")
        raise ValueError(f"classifier({name!r}, how='finetune'): {name} ({base.kind}) cannot be fine-tuned: {what}. "
                         "Fine-tune a transformer (e.g. 'minilm', a Hugging Face folder) or 'minilm-static', or "
                         f"use how='head'" + (" with an encoder" if base.kind == "lexicon" else f" on {name}"))

    texts, pairs, train_labels = _parse(train, "train", name)
    if init is not None:
        labels = _check_init(init, base, how, head, labels, pairs is not None)
    if labels is None:
        try:
            classes = sorted(set(train_labels))
        except TypeError as err:
            raise ValueError(f"classifier({name!r}): labels of mixed types cannot be sorted; pass labels= "
                             f"in the order you want") from err
    else:
        classes = list(labels)
        if len(set(classes)) != len(classes):
            raise ValueError(f"classifier({name!r}): labels={classes} repeats a class")
    y = _label_indices(train_labels, classes, "train", name)
    present = sorted({classes[i] for i in y}, key=classes.index)
    if len(present) < 2 and init is None:
        raise ValueError(f"classifier({name!r}): train has a single class {present}; a classifier needs examples "
                         "of at least two classes")

    if valid is not None:
        v_texts, v_pairs, v_labels = _parse(valid, "valid", name)
        if (v_pairs is None) != (pairs is None):
            raise ValueError(f"classifier({name!r}): train and valid must both be single texts or both pairs")
        v_y = _label_indices(v_labels, classes, "valid", name)
        tr = np.arange(len(texts))
        held = {"texts": v_texts, "pairs": v_pairs, "y": v_y}
        valid_hash = stable_hash([v_texts, v_pairs, v_labels], 24)
    elif heldout_fraction > 0:
        from mtlib.models.probes import stratified_split

        tr, te = stratified_split(y, heldout_fraction, seed)
        held = {"texts": [texts[i] for i in te], "pairs": [pairs[i] for i in te] if pairs is not None else None,
                "y": y[te]}
        valid_hash = None
    else:
        tr, held, valid_hash = np.arange(len(texts)), None, None
    data = {"texts": [texts[i] for i in tr], "pairs": [pairs[i] for i in tr] if pairs is not None else None,
            "y": y[tr], "k": len(classes)}
    if len(set(data["y"].tolist())) < 2 and init is None:
        raise ValueError(f"classifier({name!r}): the training part has a single class after holding out "
                         f"{heldout_fraction:.0%}; add examples or pass valid=")

    n_epochs, n_lr, n_batch = _defaults(how, head, base.kind, epochs, lr, batch_size)
    settings = {"how": how, "head": head, "hidden": list(hidden) if head == "mlp" else [], "epochs": n_epochs,
                "lr": n_lr, "batch_size": n_batch, "labels": _json_safe(classes), "pairs": pairs is not None,
                "heldout_fraction": heldout_fraction if valid is None else None, "valid": valid_hash,
                "max_length": max_length if how == "finetune" else None,
                "pooling": pooling if how == "finetune" else None, "seed": seed, "format": FORMAT}
    if init is not None:  # continue: the init's architecture, and its identity in the cache key
        keep = ("head", "hidden", "pooling", "max_length") if how == "finetune" else ("hidden",)
        settings.update({k: init.training.settings[k] for k in keep}, init=init.identity)
    key = stable_hash([base.identity, stable_hash([texts, pairs, _json_safe(train_labels)], 32), settings], 24)
    if use_cache and key in _MEMO:
        return _MEMO[key]
    folder = cache_root() / "classifiers" / key
    device = resolve_device(device)

    record = _read_record(folder) if use_cache else None
    if record is not None:
        training = Training(**{**record["training"], "from_cache": True})
        if how == "head":
            loaded = load_head(folder)
            if loaded is not None:
                clf: Model = HeadClassifier(base, loaded[0], classes, training)
                _MEMO[key] = clf
                return clf
        elif "weights.safetensors" in record["files"]:  # its digest checked by read_record
            clf = FineTunedClassifier(base, folder, classes, training, device, use_cache)
            clf.weights_file = record_file(folder, record, "weights.safetensors")
            _MEMO[key] = clf
            return clf

    start = time.perf_counter()
    fits += 1
    if how == "head":  # every input's features in one embed call (then cached): the same batches as one call
        frozen_features(base, texts + (held["texts"] if valid is not None else []),
                        None if pairs is None else pairs + (held["pairs"] if valid is not None else []))
    training = Training(how, head, settings, seed, None, None, [], False, len(data["y"]),
                        0 if held is None else len(held["y"]), key)
    if how == "head":
        est, losses = _train_head(base, data, settings, device, init.head if init is not None else None)
        training.train_log = losses
        clf = HeadClassifier(base, est, classes, training)
    else:
        net, encoder, losses = _finetune(base, data, settings, classes, device, init=init)
        training.train_log = losses
        if base.kind == "hf-classifier":
            training.head = "native"
        weights = _weights_bytes(net) if use_cache else None
        clf = FineTunedClassifier(base, folder, classes, training, device, use_cache)
        clf.net, clf.encoder = net.eval(), encoder
    training.seconds = time.perf_counter() - start
    if held is not None:
        predicted = np.asarray(clf.classify(held["texts"], held["pairs"])).argmax(1)
        training.heldout_accuracy = float(np.mean(predicted == held["y"]))
        training.majority_baseline = _majority(held["y"])
    if use_cache:
        meta = {"training": _json_safe(asdict(training)), "labels": _json_safe(classes), "model": name,
                "identity": base.identity}
        if how == "head":
            save_head(clf.head, folder, {"labels": meta["labels"]})
        write_record(folder / "classifier.json", meta, {"weights.safetensors": weights} if how != "head" else None)
        if how != "head":
            clf.weights_file = folder / addressed_name("weights.safetensors", sha256_hex(weights))
        _MEMO[key] = clf
    return clf


def _check_init(init: Model, base: Model, how: str, head: str, labels: Sequence[Any] | None,
                pairs: bool) -> list[Any]:
    """The classes of a classifier to continue from (``init=``); clear errors when it cannot continue."""
    name = base.name
    kind = {"finetune": FineTunedClassifier, "head": HeadClassifier}.get(how)
    if kind is None or not isinstance(init, kind):
        raise ValueError(f"classifier({name!r}, how={how!r}, init=...): init must be a classifier from "
                         f"classifier(..., how={how!r}) to continue from; got {type(init).__name__}. Continuing "
                         "works for how='finetune' and for how='head' with head='mlp'")
    if how == "head" and (head != "mlp" or not isinstance(init.head, MLPHead)):
        raise ValueError(f"classifier({name!r}, how='head', head={head!r}, init=...): only an MLP head continues "
                         f"training (init has a {init.head.kind} head); a logistic-regression head refits from "
                         "scratch. Use head='mlp' or how='finetune'")
    owner = init.encoder if how == "head" else init.base
    if owner.identity != base.identity:
        raise ValueError(f"classifier({name!r}, init=...): init was trained on {owner.name}, not {name}")
    if init.training.settings["pairs"] != pairs:
        raise ValueError(f"classifier({name!r}, init=...): init was trained on "
                         f"{'text pairs' if init.training.settings['pairs'] else 'single texts'}; train the same way")
    if labels is not None and list(labels) != list(init.labels):
        raise ValueError(f"classifier({name!r}, init=...): labels={list(labels)} differ from init's {init.labels}")
    return list(init.labels)


def _read_record(folder: Path) -> dict[str, Any] | None:
    """``classifier.json`` with every digest checked (a damaged entry warns and retrains)."""
    return read_record(folder / "classifier.json")


def _native(base: Model, train: Any, valid: Any, labels: Sequence[Any] | None) -> Model:
    """The model's own head; ``valid`` (else ``train``) measures its accuracy, nothing trains."""
    name = base.name
    if not base.labels:
        raise ValueError(f"classifier({name!r}, how='native'): {name} ({base.kind}) has no classification head of "
                         "its own; use how='head' (a head on its frozen embeddings) or how='finetune'")
    order = list(labels) if labels is not None else list(base.labels)
    for lab in order:
        try:
            label_position(base.labels, lab, name)
        except KeyError as err:
            raise ValueError(f"classifier({name!r}, how='native'): {name} has no label {lab!r}; its labels are "
                             f"{list(base.labels)}. Name its labels, or train your own with how='head'") from err
    training = Training("native", "native", {"how": "native", "labels": _json_safe(order)}, 0, None, None)
    clf = NativeClassifier(base, order, training)
    data = valid if valid is not None else train
    if data is not None:
        texts, pairs, gold = _parse(data, "valid" if valid is not None else "train", name)
        try:
            gold_idx = np.array([label_position(order, g, name) for g in gold])
        except KeyError as err:
            raise ValueError(f"classifier({name!r}, how='native'): a gold label is not one of {name}'s labels "
                             f"{order} ({err}); map your labels to these names, or use how='head'") from err
        predicted = clf.classify(texts, pairs).argmax(1)
        training.heldout_accuracy = float(np.mean(predicted == gold_idx))
        training.majority_baseline = _majority(gold_idx)
        training.n_heldout = len(gold_idx)
    return clf
