"""One seeded training loop for every torch model mtlib trains.

Intuition: heads on frozen features (an MLP probe), fine-tuned encoders (a
lexical-relation pair classifier, later PSS and SETI) differ only in what a
batch is and how the loss is computed. :func:`fit` owns the rest: seeding,
shuffling, the optimiser, device placement, mixed precision on CUDA (fp32 weights, bf16
autocast: :data:`~mtlib.models.inference.numerics.MIXED_TRAINING`, in the cache key of what it trains), and a
per-epoch log, so every notebook trains the same way on CPU and GPU. The
seeded pieces around it live here too: :func:`seed_everything`, the epoch's
batches (:func:`length_bucketed_batches`) and the held-out split
(:func:`stratified_split`). Heads (:mod:`mtlib.models.training.heads`) and fine-tuned
networks (:mod:`mtlib.models.training.finetune`) both train through this module.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtlib.models.inference.numerics import MIXED_TRAINING, training_precision
from mtlib.utils.batching import resolve_device

__all__ = ["EarlyStopping", "TrainLog", "fit", "length_bucketed_batches", "seed_everything", "stratified_split"]


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch (CPU and CUDA)."""
    import torch

    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


@dataclass
class TrainLog:
    """Loss per epoch (mean over batches), the settings used and the seconds the loop took.

    With early stopping, ``curve`` holds ``[epoch, held-out score]`` per evaluation and ``best_epoch`` the epoch
    whose state was kept.
    """

    losses: list[float] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    curve: list[list[float]] = field(default_factory=list)
    best_epoch: float | None = None


@dataclass
class EarlyStopping:
    """Evaluate every ``every`` epochs, keep the best state, stop after ``patience`` evaluations without gain.

    Attributes:
        evaluate: ``evaluate(module) -> score`` (higher is better), called in eval mode without gradients.
        every: Epochs between evaluations (0.5: twice an epoch).
        patience: Evaluations without improvement before stopping (None: train every epoch asked).
    """

    evaluate: Callable[[Any], float]
    every: float
    patience: int | None = None

    def __post_init__(self) -> None:
        self.best, self.bad = -np.inf, 0
        self.best_epoch: float | None = None
        self.state: dict[str, Any] | None = None
        self.curve: list[list[float]] = []

    def check(self, module: Any, epoch: float) -> bool:
        """Evaluate now (``epoch`` trained so far); True when training should stop."""
        import torch

        module.eval()
        with torch.inference_mode():
            score = float(self.evaluate(module))
        module.train()
        self.curve.append([round(epoch, 4), score])
        if score > self.best:
            self.best, self.best_epoch, self.bad = score, round(epoch, 4), 0
            self.state = {k: v.detach().to("cpu", copy=True) for k, v in module.state_dict().items()}
        else:
            self.bad += 1
        return self.patience is not None and self.bad >= self.patience

    def restore(self, module: Any, log: TrainLog) -> None:
        """Load the best state into ``module`` and record the curve in ``log``."""
        if self.state is not None:
            module.load_state_dict(self.state)
        log.curve, log.best_epoch = self.curve, self.best_epoch


def fit(
    module: Any,
    n_examples: int,
    step_loss: Callable[[Any, np.ndarray, str], Any],
    *,
    epochs: int = 10,
    batch_size: int = 32,
    lr: float = 1e-3,
    weight_decay: float = 0.0,
    seed: int = 0,
    device: str = "auto",
    warmup_fraction: float = 0.0,
    params: Sequence[Any] | None = None,
    batches: Callable[[np.random.Generator], list[np.ndarray]] | None = None,
    fused: bool = False,
    groups: Sequence[dict[str, Any]] | None = None,
    stopping: EarlyStopping | None = None,
) -> TrainLog:
    """Train ``module`` with AdamW on shuffled mini-batches.

    Args:
        module: A ``torch.nn.Module``; moved to ``device`` and left there in
            eval mode when training ends.
        n_examples: Size of the training set; batches are index arrays into it.
        step_loss: ``step_loss(module, batch_indices, device) -> loss tensor``:
            builds the batch (features, tokenised texts...) and returns the
            scalar loss. Keeping data access in the caller lets the same loop
            train a probe on arrays and fine-tune a transformer on texts.
        epochs: Passes over the data.
        batch_size: Examples per step.
        lr: Peak learning rate.
        weight_decay: AdamW weight decay.
        seed: Seeds shuffling and initialisation-independent randomness.
        device: ``"auto"`` or an explicit device.
        warmup_fraction: Linear warm-up over this fraction of steps, then
            linear decay to zero (0 = constant learning rate).
        params: Parameters to optimise (default: all of ``module``'s); those that
            do not require a gradient (frozen) are left out, so they get no
            optimiser state and no weight decay and stay bit-identical.
        batches: ``batches(rng) -> [index arrays]``, one epoch's batches
            (e.g. :func:`length_bucketed_batches`); default: shuffled slices
            of ``batch_size``.
        fused: Update every parameter in one fused AdamW kernel (about ten
            times faster than the ``foreach`` update on CPU for MiniLM's
            weights; results differ in the last bits), where this torch
            build has one for the device; otherwise the ``foreach`` update.
        groups: Parameter groups ``[{"params": [...], "lr": ...}]`` with their own peak learning rates
            (a fresh head faster than the encoder); overrides ``params``, ``lr`` is then the default.
        stopping: Early stopping (:class:`EarlyStopping`), the best state restored; ``epochs`` is then the most
            trained (the schedule decays over all of them, as without stopping).

    Returns:
        A :class:`TrainLog` with the mean loss of every epoch.
    """
    import torch

    device = resolve_device(device)
    seed_everything(seed)
    module.to(device).train()
    if groups is None:
        groups = [{"params": list(params if params is not None else module.parameters())}]
    trainable = [{**g, "params": [p for p in g["params"] if p.requires_grad]} for g in groups]
    optim = _adamw([g for g in trainable if g["params"]], lr=lr, weight_decay=weight_decay, fused=fused)
    rng = np.random.default_rng(seed)
    if batches is None:

        def batches(gen: np.random.Generator) -> list[np.ndarray]:
            order = gen.permutation(n_examples)
            return [order[start : start + batch_size] for start in range(0, n_examples, batch_size)]

    plan = [batches(rng) for _ in range(epochs)]
    sched = torch.optim.lr_scheduler.LambdaLR(optim, _warmup_then_decay(sum(len(p) for p in plan), warmup_fraction))
    precision = training_precision(device)  # bf16 autocast on CUDA for speed, recorded as such
    use_amp = precision == MIXED_TRAINING
    log = TrainLog(
        settings={
            "precision": precision,
            "epochs": epochs,
            "batch_size": batch_size,
            "lr": lr,
            "seed": seed,
            "device": device,
            "weight_decay": weight_decay,
        }
    )
    start = time.perf_counter()

    def step(idx: np.ndarray) -> float:
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_amp):
            loss = step_loss(module, idx, device)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        optim.step()
        sched.step()
        return float(loss.detach())

    _run_plan(plan, step, module, stopping, log)
    log.seconds = time.perf_counter() - start
    module.eval()
    return log


def _run_plan(
    plan: list[list[np.ndarray]],
    step: Callable[[np.ndarray], float],
    module: Any,
    stopping: EarlyStopping | None,
    log: TrainLog,
) -> None:
    """Every epoch's batches through ``step`` (mean loss per epoch into ``log``), with early stopping if given."""
    per_epoch = max(1, len(plan[0]) if plan else 1)
    every = max(1, round(stopping.every * per_epoch)) if stopping is not None else 0
    total, done, stop = sum(len(p) for p in plan), 0, False
    for epoch_batches in plan:
        epoch_loss, steps = 0.0, 0
        for idx in epoch_batches:
            epoch_loss += step(idx)
            steps, done = steps + 1, done + 1
            if stopping is not None and (done % every == 0 or done == total):
                stop = stopping.check(module, done / per_epoch)
                if stop:
                    break
        log.losses.append(epoch_loss / max(1, steps))
        if stop:
            break
    if stopping is not None:
        stopping.restore(module, log)


def _warmup_then_decay(steps: int, warmup_fraction: float) -> Callable[[int], float]:
    """Learning-rate factor per step: linear warm-up over ``warmup_fraction`` of ``steps``, then linear decay to 0."""
    total = max(1, steps)
    warm = int(total * warmup_fraction)

    def schedule(step: int) -> float:
        if warm == 0:
            return 1.0
        if step < warm:
            return (step + 1) / warm
        return max(0.0, (total - step) / max(1, total - warm))

    return schedule


def _adamw(params: list[Any], *, lr: float, weight_decay: float, fused: bool) -> Any:
    """AdamW over ``params``: the fused kernel if asked and available for their device, else ``foreach``."""
    import torch

    if fused and params:
        try:
            return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, fused=True)
        except (RuntimeError, TypeError, ValueError):  # no fused kernel for this device or dtype
            pass
    return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, foreach=True)


def length_bucketed_batches(
    lengths: Sequence[int], batch_size: int, rng: np.random.Generator, *, pool_batches: int = 50
) -> list[np.ndarray]:
    """One epoch of batches whose members have similar lengths, in random order.

    Intuition: a batch is padded to its longest member, so batching texts of
    similar length wastes little work. Inputs are shuffled, cut into pools of
    ``pool_batches * batch_size``, each pool is sorted by length and cut into
    batches, and the batches are shuffled: still random from epoch to epoch,
    but with little padding.

    Args:
        lengths: Length in tokens of each example, shape ``(n,)``.
        batch_size: Examples per batch.
        rng: Seeded generator (the epoch's randomness).
        pool_batches: Batches per sorted pool.

    Returns:
        Index arrays that together are a permutation of ``range(n)``.
    """
    lens = np.asarray(lengths)
    order = rng.permutation(len(lens))
    pool = max(1, pool_batches * batch_size)
    out: list[np.ndarray] = []
    for start in range(0, len(order), pool):
        part = order[start : start + pool]
        part = part[np.argsort(lens[part], kind="stable")]
        out.extend(part[i : i + batch_size] for i in range(0, len(part), batch_size))
    return [out[i] for i in rng.permutation(len(out))]


def stratified_split(y: np.ndarray, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded train and held-out positions, stratified by ``y`` when it can be.

    Stratified when every class has two examples and each side gets at least one position per class (with few
    examples, e.g. 4 of 2 classes held out at 0.2, one held-out position cannot hold both classes); otherwise a
    plain seeded split.

    Args:
        y: Labels, shape ``(n,)``.
        fraction: Share of positions held out, in ``(0, 1)``.
        seed: Seeds the split.

    Returns:
        ``(train positions, held-out positions)``, together a permutation of ``range(n)``.

    Raises:
        ValueError: fewer than two positions, so one side would be empty.
    """
    from sklearn.model_selection import train_test_split

    idx = np.arange(len(y))
    if len(y) < 2:
        raise ValueError(
            f"stratified_split: {len(y)} labelled example(s); expected at least 2 (one to train on, one held out)"
        )
    classes, counts = np.unique(y, return_counts=True)
    n_held = max(1, min(len(y) - 1, int(np.ceil(fraction * len(y)))))
    fits = n_held >= len(classes) and len(y) - n_held >= len(classes)
    stratify = y if np.min(counts) >= 2 and fits else None
    tr, te = train_test_split(idx, test_size=n_held, random_state=seed, stratify=stratify)
    return tr, te
