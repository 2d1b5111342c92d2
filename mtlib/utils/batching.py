"""Batched inference: devices, length-sorted batches, autocast, progress.

Intuition: a transformer pads every text of a batch to the longest one, so a
batch that mixes a 5-token and a 60-token text wastes most of its work.
Sorting inputs by length and cutting batches by a *token budget* (batch size
times padded length) keeps padding small and lets short texts travel in large
batches. Outputs are put back in input order, so callers never see the sort.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

#: Create a progress bar when a call has at least this many inputs; in a notebook it renders only once
#: the work has lasted :data:`PROGRESS_DELAY_S` seconds, so quick calls stay silent.
PROGRESS_MIN_ITEMS = 256
#: Seconds before a live (notebook or terminal) bar first renders.
PROGRESS_DELAY_S = 2.0
#: Seconds between two lines of a text bar (``MTLIB_PROGRESS=text``): a stage logs about one final line.
TEXT_MININTERVAL_S = 60.0

#: Where :func:`report_progress` sends finished inputs: the bar of an enclosing call (see :func:`progress_sink`).
_SINK: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar("mtlib_progress", default=None)


def resolve_device(device: str = "auto") -> str:
    """Turn ``"auto"`` into the best available device: cuda, then mps, then cpu.

    Args:
        device: ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``.

    Raises:
        ValueError: a CUDA or MPS device was asked for but is not available.
    """
    import torch

    if device in ("", "auto", None):
        if torch.cuda.is_available():
            return "cuda"
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA GPU; use device='auto' or 'cpu'")
    if device == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError("device 'mps' asked for, but it is not available; use device='auto' or 'cpu'")
    return device


@contextlib.contextmanager
def inference_context(device: str, dtype: Any = None) -> Iterator[None]:
    """``torch.inference_mode``, with autocast to ``dtype`` when one is given (none by default: fp32).

    Mixed precision is a declared choice (:func:`mtlib.models.inference.numerics.precision_context` maps a
    model's ``precision`` to ``dtype``), never a device's default: on CUDA, bf16 autocast moved
    MiniLM's vectors by up to 1.5e-3 and swapped published orders of notebook 04.

    Args:
        device: A resolved device string (``"cpu"``, ``"cuda:0"``...); its class is autocast's device type.
        dtype: ``torch.bfloat16`` or ``torch.float16`` to autocast to, or ``None`` for none.
    """
    import torch

    with torch.inference_mode():
        if dtype is not None:
            with torch.autocast(str(device).split(":", 1)[0], dtype=dtype):
                yield
        else:
            yield


def length_sorted_batches(lengths: Sequence[int], *, max_tokens: int = 8192, max_batch: int = 256) -> list[np.ndarray]:
    """Split positions into batches of similar length under a token budget.

    Args:
        lengths: Length (in tokens, or any proxy) of each input, shape ``(n,)``.
        max_tokens: Budget for ``batch size x longest length`` in a batch.
        max_batch: Upper bound on the number of inputs in a batch.

    Returns:
        A list of index arrays, longest inputs first; together they are a
        permutation of ``range(n)``.
    """
    lens = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(-lens, kind="stable")
    batches: list[np.ndarray] = []
    start = 0
    while start < len(order):
        longest = max(int(lens[order[start]]), 1)
        size = int(max(1, min(max_batch, max_tokens // longest)))
        batches.append(order[start : start + size])
        start += size
    return batches


def to_device(batch: dict[str, Any], device: str) -> dict[str, Any]:
    """The tensors of a batch on ``device``; on CUDA from pinned memory with non-blocking copies.

    Pinned (page-locked) host memory lets the copy run asynchronously, so the
    GPU starts on the batch while the host prepares the next one; reading the
    result back (``.cpu()``) waits for it. Values that are not tensors pass as they are.
    """
    cuda = str(device).startswith("cuda")
    out = {}
    for key, value in batch.items():
        if not hasattr(value, "to"):
            out[key] = value
        elif cuda:
            out[key] = value.pin_memory().to(device, non_blocking=True)
        else:
            out[key] = value.to(device)
    return out


class Prefetcher:
    """Prepares the next part of a job in a background thread while the current part runs.

    Intuition: on a GPU, tokenising a chunk of texts can take longer than the
    forward passes of the chunk before it; one background thread tokenises
    chunk ``i + 1`` while chunk ``i`` runs (tokenizers release the GIL, torch
    does in its kernels). Preparation is per item, so a wrong guess of the next
    part only costs the items prepared for nothing: :meth:`take` prepares
    whatever the background thread did not.

    Args:
        prepare: Maps a list of items to one prepared value per item.
        key: A hashable key of an item (default: the item itself).
        enabled: ``False`` prepares everything in :meth:`take` (no thread): on a
            CPU the forward pass already uses every core.

    >>> with Prefetcher(lambda xs: [x * 2 for x in xs]) as pre:
    ...     pre.ahead([3, 4])
    ...     pre.take([1, 3, 4])
    [2, 6, 8]
    """

    def __init__(
        self, prepare: Callable[[list[Any]], list[Any]], key: Callable[[Any], Any] | None = None, enabled: bool = True
    ) -> None:
        self.prepare, self.key, self.enabled = prepare, key or (lambda item: item), enabled
        self._pool: Any = None
        self._future: Any = None

    def __enter__(self) -> Prefetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the background thread (after the part it prepares)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool, self._future = None, None

    def ahead(self, items: Sequence[Any]) -> None:
        """Start preparing ``items`` in the background (nothing when disabled or empty)."""
        if not self.enabled or not len(items):
            return
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mtlib-prefetch")
        items = list(items)
        self._future = self._pool.submit(lambda: dict(zip(map(self.key, items), self.prepare(items))))

    def take(self, items: Sequence[Any]) -> list[Any]:
        """The prepared values of ``items``: those prepared ahead, the rest prepared now, in order."""
        ready: dict[Any, Any] = self._future.result() if self._future is not None else {}
        self._future = None
        keys = [self.key(it) for it in items]
        todo = [i for i, k in enumerate(keys) if k not in ready]
        fresh = self.prepare([items[i] for i in todo]) if todo else []
        done = dict(zip((keys[i] for i in todo), fresh))
        return [ready[k] if k in ready else done[k] for k in keys]


def progress_bar(total: int, desc: str, enabled: bool | None = None):
    """A tqdm bar of ``total`` steps when the work may be long, else ``None``.

    ``enabled=None`` creates the bar for at least :data:`PROGRESS_MIN_ITEMS`
    inputs, unless the environment sets ``MTLIB_PROGRESS=0`` (which also wins
    over ``enabled=True``). In JupyterLab the bar is a live widget
    (``tqdm.auto``) that appears only once the work has lasted
    :data:`PROGRESS_DELAY_S` seconds and stays at its final state;
    ``MTLIB_PROGRESS=text`` (set by ``python -m mtrun`` for headless
    papermill runs, where no widget is ever rendered) gives a plain text bar
    redrawn at most every :data:`TEXT_MININTERVAL_S` seconds that ends on its
    final line: about one line per stage in the run's log.
    """
    mode = os.environ.get("MTLIB_PROGRESS", "1")
    if mode == "0":
        return None
    if enabled is None:
        enabled = total >= PROGRESS_MIN_ITEMS
    if not enabled:
        return None
    if mode == "text":
        from tqdm.std import tqdm as text_tqdm

        return text_tqdm(total=total, desc=desc, leave=True, mininterval=TEXT_MININTERVAL_S)
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=True, delay=PROGRESS_DELAY_S)


@contextlib.contextmanager
def progress_sink(advance: Callable[[int], None]) -> Iterator[None]:
    """Send the inputs finished by :func:`report_progress` inside the block to ``advance``.

    An outer call that owns a bar (e.g. :func:`~mtlib.utils.cache.cached_rows`,
    which computes in large chunks) opens a sink; the batched work it calls
    (:func:`run_batched`) reports each finished batch, so the bar moves per
    batch, not per chunk. The sink is per context (thread, task).

    >>> done = []
    >>> with progress_sink(done.append):
    ...     _ = report_progress(3)
    ...     _ = report_progress(2)
    >>> done, report_progress(1)
    ([3, 2], False)
    """
    token = _SINK.set(advance)
    try:
        yield
    finally:
        _SINK.reset(token)


def report_progress(n: int) -> bool:
    """Tell the enclosing :func:`progress_sink` that ``n`` more inputs are done; False when there is none."""
    sink = _SINK.get()
    if sink is None:
        return False
    sink(n)
    return True


def run_batched(
    items: Sequence[Any],
    fn: Callable[[list[Any]], np.ndarray],
    *,
    lengths: Sequence[int] | None = None,
    max_tokens: int = 8192,
    max_batch: int = 256,
    desc: str = "inference",
    show_progress: bool | None = None,
) -> np.ndarray:
    """Apply ``fn`` to length-sorted batches and return rows in input order.

    Args:
        items: Inputs (texts, pairs, ...), shape ``(n,)``.
        fn: Maps a batch (list of inputs) to an array of shape ``(batch, d)``.
        lengths: Length of each input; defaults to its character length / 4,
            a cheap proxy for tokens.
        max_tokens: Token budget per batch (see :func:`length_sorted_batches`).
        max_batch: Most inputs per batch.
        desc: Progress-bar label.
        show_progress: Force the progress bar on or off.

    Returns:
        Array of shape ``(n, d)``, row ``i`` computed from ``items[i]``.

    Inside a :func:`progress_sink` (an outer call's bar), each finished batch
    advances that bar and no bar of its own is made.
    """
    n = len(items)
    if n == 0:
        return np.zeros((0, 0), dtype=np.float32)
    if lengths is None:
        lengths = [max(1, len(str(it)) // 4) for it in items]
    batches = length_sorted_batches(lengths, max_tokens=max_tokens, max_batch=max_batch)
    out: np.ndarray | None = None
    outer = _SINK.get()
    bar = progress_bar(n, desc, show_progress) if outer is None else None
    try:
        for idx in batches:
            rows = np.asarray(fn([items[i] for i in idx]))
            if out is None:
                out = np.empty((n,) + rows.shape[1:], dtype=rows.dtype)
            out[idx] = rows
            if bar is not None:
                bar.update(len(idx))
            elif outer is not None:
                outer(len(idx))
    finally:
        if bar is not None:
            bar.close()
    assert out is not None
    return out


__all__ = ["resolve_device", "inference_context", "progress_bar", "run_batched"]
