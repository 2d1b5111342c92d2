"""What the embedding benchmarks share (``bench_inference.py``, ``bench_onnx.py``).

- :func:`bench_environment`: a fresh, empty ``MTLIB_CACHE``, the hub offline, no progress bars;
- :func:`mixed_sentences` and :func:`length_summary`: the texts they encode, and one line about them;
- :func:`timed` and :func:`emit`: one timing, and one JSON line per figure after its human-readable line;
- :func:`load`: an idle machine, or one with a busy neighbour process (``bench_threads.py``, ``bench_training.py``).

Not a benchmark itself (``make bench`` runs ``benchmarks/bench_*.py``).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def bench_environment() -> str:
    """Point ``MTLIB_CACHE`` at a new empty folder (returned), keep the hub offline, silence progress bars.

    Call it before importing torch or mtlib's models.
    """
    cache = tempfile.mkdtemp(prefix="mtlib-bench-cache-")
    os.environ["MTLIB_CACHE"] = cache
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["MTLIB_PROGRESS"] = "0"
    return cache


def mixed_sentences(n: int, seed: int = 0) -> list[str]:
    """n distinct texts of 2 to ~120 words, built from the bundled reviews."""
    from mtlib.data.sst import load_reviews

    reviews = load_reviews()["text"].tolist()
    rng = random.Random(seed)
    out: list[str] = []
    seen = set()
    while len(out) < n:
        k = rng.choice([1, 1, 1, 2, 3, 5, 8])
        text = " ".join(rng.sample(reviews, k))
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def length_summary(texts: list[str]) -> str:
    """``"2000 sentences, 2-121 words (median 19)"``."""
    words = [len(t.split()) for t in texts]
    return f"{len(texts)} sentences, {min(words)}-{max(words)} words (median {int(np.median(words))})"


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """``fn()`` and its wall-clock seconds."""
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def emit(bench: str, figure: str, value: float, unit: str, **extra: Any) -> None:
    """One JSON line: ``{"bench", "figure", "value", "unit", **extra}``."""
    print(json.dumps({"bench": bench, "figure": figure, "value": value, "unit": unit, **extra}))


#: The busy neighbour: one thread of torch matrix products for an hour at most, standing in for a second job.
BUSY = r"""
import torch, time
torch.set_num_threads(1)
a = torch.randn(384, 384)
end = time.time() + 3600
while time.time() < end:
    a = torch.tanh(a @ a)
"""


@contextlib.contextmanager
def load(kind: str) -> Iterator[None]:
    """Run the block on this machine as it is (``"idle"``) or beside a :data:`BUSY` process (``"busy"``).

    The busy process computes for 2 s before the block starts, and is killed when it ends.
    """
    if kind not in ("idle", "busy"):
        raise ValueError(f"load must be 'idle' or 'busy', got {kind!r}")
    busy = subprocess.Popen([sys.executable, "-c", BUSY]) if kind == "busy" else None
    try:
        if busy is not None:
            time.sleep(2)
        yield
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
