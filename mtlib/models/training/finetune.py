"""Fine-tuned classifiers (``how="finetune"``): encoder and head trained together, weights cached.

Intuition: :mod:`mtlib.models.training.networks` builds a trainable copy of a model
with a fresh head; :func:`finetune_network` trains it with the one seeded loop
(:func:`mtlib.models.training.loop.fit`) on length-bucketed batches padded to their
longest member; :class:`FineTunedClassifier` predicts with it, batched and
cached by input, and rebuilds the network from the saved ``safetensors``
weights only when a prediction is not in the output cache.
A model name ending in :data:`FINETUNE_SUFFIX` (``minilm-ft``) names its base
fine-tuned (:func:`parse_model_name`), in every notebook that fine-tunes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.models.base import Model, softmax
from mtlib.models.inference.numerics import PRECISIONS, check_finite, precision_context
from mtlib.models.training.labelled import Task
from mtlib.models.training.loop import EarlyStopping, TrainLog, fit, length_bucketed_batches, seed_everything
from mtlib.models.training.networks import Encoder, build_network, freeze_lower_layers, word_embeddings
from mtlib.models.training.resolved import ResolvedTraining
from mtlib.models.training.settings import Training
from mtlib.models.training.store import cached_training, evaluate, folder_of, read_entry, write_entry
from mtlib.utils.batching import run_batched
from mtlib.utils.cache import addressed_name, cached_rows, record_file, sha256_hex
from mtlib.utils.faces import renamed

__all__ = ["FineTunedClassifier", "parse_model_name"]

#: A model name ending in this suffix (``minilm-ft``) is its base model fine-tuned (its own row in a report).
FINETUNE_SUFFIX = "-ft"


def parse_model_name(name: str, how: str = "head") -> tuple[str, str, str]:
    """``(base model, how, row name)`` of a model name.

    A name ending in :data:`FINETUNE_SUFFIX` is its base fine-tuned whatever ``how`` says; a plain name with
    ``how="finetune"`` is fine-tuned too and its row gets the suffix, so frozen and fine-tuned rows never share
    a name.

    Args:
        name: Model name as a notebook gives it (``minilm``, ``minilm-ft``, ``vader``).
        how: ``"head"`` (a head on frozen features) or ``"finetune"``.

    Returns:
        The base model's name, ``"head"`` or ``"finetune"``, and the name of the model's row.

    Raises:
        ValueError: ``how`` is neither ``"head"`` nor ``"finetune"``.

    Examples:
        >>> parse_model_name("minilm-ft")
        ('minilm', 'finetune', 'minilm-ft')
        >>> parse_model_name("minilm", "finetune")
        ('minilm', 'finetune', 'minilm-ft')
        >>> parse_model_name("minilm")
        ('minilm', 'head', 'minilm')
        >>> parse_model_name("vader")
        ('vader', 'head', 'vader')
    """
    if how not in ("head", "finetune"):
        raise ValueError(f"how must be 'head' or 'finetune', got {how!r}")
    if name.endswith(FINETUNE_SUFFIX) and len(name) > len(FINETUNE_SUFFIX):
        return name[: -len(FINETUNE_SUFFIX)], "finetune", name
    return name, how, name + FINETUNE_SUFFIX if how == "finetune" else name


split_name = renamed(parse_model_name, "split_name")  # the old name, for one release


class FineTunedClassifier(Model):
    """A network trained end to end; predictions are batched by length and cached by input.

    The network is rebuilt from the base model and the saved weights only
    when a prediction is missing from the output cache.
    """

    kind = "finetuned-classifier"
    precisions = PRECISIONS

    def __init__(
        self,
        base: Model,
        folder: Path,
        labels: Sequence[Any],
        training: Training,
        device: str,
        use_cache: bool = True,
    ) -> None:
        super().__init__(f"{base.name}+finetuned", f"{base.identity}+finetune:{training.key}", device, use_cache)
        self.base, self.folder, self.labels, self.training = base, folder, list(labels), training
        #: The weights (content-addressed ``weights.<digest>.safetensors``, set from the cache record).
        self.weights_file = folder / "weights.safetensors"
        self.net: Any = None
        self.encoder: Any = None
        self.max_tokens = 65536 if device.startswith("cuda") else 2048
        #: Predictions run in the base model's precision (fp32 by default); their cache keys say so.
        self.set_precision(getattr(base, "precision", None) or "fp32")

    def _build(self) -> None:
        # the network's head from the record (``training.head`` says "native" for a model's own)
        plan = ResolvedTraining.from_record(self.training.recorded())
        self.net, self.encoder, _ = build_network(
            self.base,
            len(self.labels),
            self.labels,
            head=plan.head,
            hidden=plan.hidden,
            pooling=plan.pooling,
            pairs=plan.pairs,
            max_length=plan.max_length,
            architecture=plan.architecture,
        )

    @property
    def siamese(self) -> bool:
        """Whether each text of a pair is encoded on its own (``architecture="siamese"``)."""
        return self.training.architecture == "siamese"

    def head_module(self) -> Any:
        """The trained torch head (of a siamese network: on ``[u, v, |u - v|, u * v]`` of :meth:`embed` rows)."""
        self._ensure_net()
        return self.net.head

    def _ensure_net(self) -> None:
        if self.net is not None:
            return
        from safetensors.torch import load_file

        self._build()
        net: Any = self.net
        net.load_state_dict(load_file(str(self.weights_file)))
        net.to(self.device).eval()

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        texts = list(texts)
        pairs = list(text_pairs) if text_pairs is not None else None
        if pairs is not None and len(pairs) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(pairs)} text_pairs")
        if (pairs is not None) != self.training.pairs:
            trained = "text pairs" if self.training.pairs else "single texts"
            raise ValueError(f"{self.name} was trained on {trained}; call it the same way")
        if not texts:
            return np.zeros((0, len(self.labels)))
        items = [t if pairs is None else {"t": t, "p": p} for t, p in zip(texts, pairs or texts)]

        def compute(batch: list[Any]) -> np.ndarray:
            self._ensure_net()
            bt = [it if isinstance(it, str) else it["t"] for it in batch]
            bp = [it["p"] for it in batch] if pairs is not None else None
            examples = self.encoder.encode(bt, bp)
            return run_batched(
                examples,
                self._forward,
                lengths=[self.encoder.length(e) for e in examples],
                max_tokens=self.max_tokens,
                show_progress=False,
            )

        rows = cached_rows(
            self._cache("logits", f"pair={pairs is not None}", *self.numerics_parts()),
            items,
            compute,
            desc=f"classify {self.name}",
        )
        check_finite(rows, self.name, texts if pairs is None else list(zip(texts, pairs)), what="logits")
        return rows.astype(np.float64)

    def _forward(self, examples: list[dict[str, list[int]]]) -> np.ndarray:
        self.calls += 1
        batch = {k: v.to(self.device) for k, v in self.encoder.collate(examples).items()}
        with precision_context(self.device, self.precision or "fp32"):
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
            return run_batched(
                examples,
                self._pooled,
                lengths=[self.encoder.length(e) for e in examples],
                max_tokens=self.max_tokens,
                show_progress=False,
            )

        out = cached_rows(self._cache("embed", *self.numerics_parts()), texts, compute, desc=f"embed {self.name}")
        return check_finite(out, self.name, texts, what="embeddings")

    def _pooled(self, examples: list[dict[str, list[int]]]) -> np.ndarray:
        self.calls += 1
        batch = {k: v.to(self.device) for k, v in self.encoder.collate(examples).items()}
        with precision_context(self.device, self.precision or "fp32"):
            return self.net.pooled(**batch).float().cpu().numpy()


def finetune_network(
    model: Model,
    data: dict[str, Any],
    plan: ResolvedTraining,
    labels: list[Any],
    device: str,
    *,
    pad_to: int | None = None,
    bucketed: bool = True,
    init: FineTunedClassifier | None = None,
    fused: bool = True,
    held: dict[str, Any] | None = None,
) -> tuple[Any, Encoder, TrainLog]:
    """Train a fresh copy of ``model`` and a head; returns ``(network, encoder, log)``.

    The word-embedding matrix (:func:`mtlib.models.training.networks.word_embeddings`)
    stays frozen unless ``plan.train_embeddings``: no gradient, no AdamW
    state, bit-identical after training; so do the transformer blocks below
    the top ``plan.train_layers`` (:func:`mtlib.models.training.networks.freeze_lower_layers`). The log has
    the loss of every epoch and the seconds of the training loop.

    Args:
        model: The loaded model to copy (never modified).
        data: ``{"texts", "pairs", "y" (n,), "k"}``, the training part.
        plan: The resolved training (:class:`~mtlib.models.training.settings.ResolvedTraining`), read by
            attribute: ``head``, ``hidden``, ``pooling``, ``max_length``, ``epochs``, ``lr``, ``batch_size``,
            ``seed``, ``train_embeddings``, ``train_layers``... (a recorded dict:
            ``ResolvedTraining.from_record(settings)``).
        labels: The class order.
        device: A resolved torch device.
        pad_to, bucketed: ``pad_to=128, bucketed=False`` give the baseline of
            ``benchmarks/bench_training.py`` (every batch padded to a fixed length, batches in random order).
        init: Start from this classifier's trained weights instead of fresh ones.
        fused: The fused AdamW update where available (False: the ``foreach`` one, the
            benchmark's old setting).
        held: The held-out part ``{"texts", "pairs", "y"}`` that early stopping evaluates on (``plan.eval_every``;
            ``plan.select_by`` accuracy or macro-F1); ``plan.class_weight`` ``"balanced"`` weighs the loss by
            ``n / (k n_c)``; ``plan.head_lr`` is the fresh head's learning rate.

    Raises:
        ValueError: early stopping asked without held-out data.
    """
    import torch
    import torch.nn.functional as F

    seed_everything(plan.seed)
    net, encoder, _ = build_network(
        model,
        data["k"],
        labels,
        head=plan.head,
        hidden=plan.hidden,
        pooling=plan.pooling,
        pairs=data["pairs"] is not None,
        max_length=plan.max_length,
        architecture=plan.architecture,
    )
    if init is not None:
        init._ensure_net()
        net.load_state_dict(init.net.state_dict())
    freeze_lower_layers(net, plan.train_layers)
    word_embeddings(net).weight.requires_grad_(plan.train_embeddings)
    examples = encoder.encode(data["texts"], data["pairs"])
    lengths = [encoder.length(e) for e in examples]
    y = torch.as_tensor(data["y"], dtype=torch.long)
    weight = _class_weights(data["y"], data["k"]) if plan.class_weight == "balanced" else None

    def step_loss(module: Any, idx: np.ndarray, dev: str) -> Any:
        batch = encoder.collate([examples[i] for i in idx], pad_to)
        logits = module(**{k: v.to(dev) for k, v in batch.items()})
        return F.cross_entropy(logits.float(), y[idx].to(dev), weight=None if weight is None else weight.to(dev))

    def buckets(rng: np.random.Generator) -> list[np.ndarray]:
        return length_bucketed_batches(lengths, plan.batch_size, rng)

    log = fit(
        net,
        len(examples),
        step_loss,
        epochs=plan.epochs,
        batch_size=plan.batch_size,
        lr=plan.lr,
        weight_decay=0.01,
        seed=plan.seed,
        device=device,
        warmup_fraction=0.1,
        batches=buckets if bucketed else None,
        fused=fused,
        groups=_groups(net, plan.head_lr),
        stopping=_stopping(net, encoder, held, plan, device),
    )
    return net, encoder, log


def _class_weights(y: np.ndarray, k: int) -> Any:
    """Balanced class weights ``n / (k n_c)`` of the training labels, shape ``(k,)`` (1 for an absent class)."""
    import torch

    counts = np.bincount(np.asarray(y), minlength=k).astype(np.float64)
    weights = np.where(counts > 0, len(y) / (k * np.maximum(counts, 1)), 1.0)
    return torch.as_tensor(weights, dtype=torch.float32)


def _groups(net: Any, head_lr: float | None) -> list[dict[str, Any]] | None:
    """The fresh head at ``head_lr`` and the rest at the loop's ``lr``; None (one group) without ``head_lr``."""
    head = getattr(net, "head", None)
    if head_lr is None or head is None:
        return None
    mine = {id(p) for p in head.parameters()}
    return [
        {"params": list(head.parameters()), "lr": float(head_lr)},
        {"params": [p for p in net.parameters() if id(p) not in mine]},
    ]


def _stopping(
    net: Any, encoder: Encoder, held: dict[str, Any] | None, plan: ResolvedTraining, device: str
) -> EarlyStopping | None:
    """Early stopping on the held-out part when ``plan.eval_every`` asks for it (None otherwise)."""
    if plan.eval_every is None:
        return None
    if held is None:
        raise ValueError("eval_every (early stopping) needs held-out data: pass valid= or heldout_fraction > 0")
    examples = encoder.encode(held["texts"], held["pairs"])
    order = np.argsort([encoder.length(e) for e in examples], kind="stable")
    gold = np.asarray(held["y"])

    def score(module: Any) -> float:
        predicted = np.empty(len(examples), np.int64)
        for start in range(0, len(order), 256):
            part = order[start : start + 256]
            batch = encoder.collate([examples[i] for i in part])
            logits = module(**{k: v.to(device) for k, v in batch.items()})
            predicted[part] = logits.float().argmax(1).cpu().numpy()
        return held_score(gold, predicted, plan.select_by)

    return EarlyStopping(score, plan.eval_every, plan.patience)


def held_score(gold: np.ndarray, predicted: np.ndarray, select_by: str) -> float:
    """Accuracy, or macro-F1 over the classes present in ``gold`` or ``predicted``, of class indices ``(n,)``.

    Examples:
        >>> held_score(np.array([0, 0, 0, 1]), np.array([0, 0, 0, 0]), "accuracy")
        0.75
        >>> round(held_score(np.array([0, 0, 0, 1]), np.array([0, 0, 0, 0]), "macro_f1"), 4)
        0.4286
    """
    if select_by == "accuracy":
        return float(np.mean(gold == predicted))
    f1 = []
    for c in np.union1d(gold, predicted):
        tp = np.sum((gold == c) & (predicted == c))
        f1.append(2 * tp / (np.sum(gold == c) + np.sum(predicted == c)))
    return float(np.mean(f1))


def weights_bytes(net: Any) -> bytes:
    """The network's weights as ``safetensors`` bytes (stored with their SHA-256 in ``classifier.json``)."""
    from safetensors.torch import save

    state = {k: v.detach().cpu().contiguous().clone() for k, v in net.state_dict().items()}
    return save(state)


def finetuned_classifier(base: Model, task: Task, plan: ResolvedTraining, key: str, device: str) -> FineTunedClassifier:
    """``base`` fine-tuned on ``task`` as ``plan`` says: reloaded from the cache entry ``key``, else trained and stored.

    Args:
        base: The model to fine-tune (never modified).
        task: The prepared training and held-out parts.
        plan: The resolved training, made once by the factory (:meth:`ResolvedTraining.resolve`).
        key: Its cache key (:meth:`ResolvedTraining.cache_key` of ``task``'s data).
        device: A resolved torch device.
    """
    use_cache = plan.use_cache
    folder = folder_of(key, base.cache_dir)
    record = read_entry(folder) if use_cache else None
    if record is not None and "weights.safetensors" in record["files"]:  # its digest checked by read_entry
        clf = FineTunedClassifier(base, folder, task.classes, cached_training(record), device, use_cache)
        clf.weights_file = record_file(folder, record, "weights.safetensors")
        return clf
    start = time.perf_counter()
    held = task.held
    n_held = 0 if held is None else len(held["y"])
    training = Training(
        "finetune",
        plan.head,
        plan.keyed(),
        plan.seed,
        None,
        None,
        n_train=len(task.data["y"]),
        n_heldout=n_held,
        key=key,
    )
    given = plan.request.init if plan.request is not None else None
    init = given if isinstance(given, FineTunedClassifier) else None
    net, encoder, log = finetune_network(base, task.data, plan, task.classes, device, init=init, held=held)
    training.train_log = log.losses
    training.best_epoch, training.valid_curve = log.best_epoch, log.curve
    if base.capabilities.keeps_own_head:
        training.head = "native"
    weights = weights_bytes(net) if use_cache else b""
    clf = FineTunedClassifier(base, folder, task.classes, training, device, use_cache)
    clf.net, clf.encoder = net.eval(), encoder
    training.seconds = time.perf_counter() - start
    evaluate(clf, training, held)
    if use_cache:
        write_entry(folder, training, task.classes, base, {"weights.safetensors": weights})
        clf.weights_file = folder / addressed_name("weights.safetensors", sha256_hex(weights))
    return clf
