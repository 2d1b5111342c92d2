"""Progress bars: created for long work, advanced per batch, silenced by ``MTLIB_PROGRESS=0``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mtlib.utils import batching, cache
from mtlib.utils.batching import run_batched
from mtlib.utils.cache import ArrayCache, cached_rows


class FakeBar:
    """Records every update; stands in for tqdm."""

    made: list[FakeBar] = []

    def __init__(self, total: int, desc: str) -> None:
        self.total, self.desc, self.updates, self.closed = total, desc, [], False
        FakeBar.made.append(self)

    def update(self, n: int) -> None:
        self.updates.append(n)

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def bars(monkeypatch: pytest.MonkeyPatch) -> list[FakeBar]:
    """Replace tqdm by :class:`FakeBar` wherever :func:`progress_bar` would make one (rules kept)."""
    FakeBar.made = []
    real = batching.progress_bar

    def fake(total: int, desc: str, enabled: bool | None = None) -> Any:
        return None if real(total, desc, enabled) is None else FakeBar(total, desc)

    monkeypatch.setattr(batching, "progress_bar", fake)
    monkeypatch.setattr(cache, "progress_bar", fake)
    monkeypatch.setenv("MTLIB_PROGRESS", "1")
    return FakeBar.made


def batched_compute(batch_size: int):
    """A compute function that works in batches of ``batch_size`` through :func:`run_batched`."""

    def compute(items: list[str]) -> np.ndarray:
        return run_batched(
            items,
            lambda b: np.array([[float(len(t))] for t in b]),
            lengths=[1] * len(items),
            max_tokens=batch_size,
            max_batch=batch_size,
            show_progress=False,
        )

    return compute


def test_cached_rows_bar_advances_per_batch_and_rows_are_unchanged(bars: list[FakeBar], tmp_path) -> None:
    texts = [f"text {i}" for i in range(1000)]
    rows = cached_rows(ArrayCache(("t", "p"), root=tmp_path), texts, batched_compute(50), chunk_size=400)
    assert len(bars) == 1 and bars[0].total == 1000 and bars[0].closed
    assert bars[0].updates == [50] * 20  # one update per batch of 50, not one per chunk of 400
    np.testing.assert_array_equal(rows[:, 0], [len(t) for t in texts])
    # entries stay stored per chunk: a fresh cache finds every row with no compute call
    again = cached_rows(ArrayCache(("t", "p"), root=tmp_path), texts, lambda _: 1 / 0)
    np.testing.assert_array_equal(again, rows)
    assert len(list(ArrayCache(("t", "p"), root=tmp_path).folder.glob("shard-*.npz"))) == 3


def test_compute_that_reports_nothing_advances_per_chunk(bars: list[FakeBar]) -> None:
    texts = [f"t{i}" for i in range(600)]
    cached_rows(None, texts, lambda items: np.ones((len(items), 2)), chunk_size=256)
    assert bars[0].updates == [256, 256, 88]


def test_over_reporting_never_overshoots_the_chunk(bars: list[FakeBar]) -> None:
    def compute(items: list[str]) -> np.ndarray:
        for _ in range(3):
            batching.report_progress(len(items))
        return np.ones((len(items), 1))

    cached_rows(None, [f"t{i}" for i in range(300)], compute)
    assert sum(bars[0].updates) == 300


def test_short_work_makes_no_bar_and_progress_0_disables_it(bars: list[FakeBar], monkeypatch) -> None:
    cached_rows(None, [f"t{i}" for i in range(batching.PROGRESS_MIN_ITEMS - 1)], batched_compute(10))
    assert bars == []
    monkeypatch.setenv("MTLIB_PROGRESS", "0")
    cached_rows(None, [f"t{i}" for i in range(5000)], batched_compute(10))
    run_batched([f"t{i}" for i in range(5000)], lambda b: np.ones((len(b), 1)), show_progress=True)
    assert bars == []
    assert batching.progress_bar(10**6, "embed", enabled=True) is None


def test_run_batched_alone_keeps_its_own_bar(bars: list[FakeBar]) -> None:
    run_batched([f"t{i}" for i in range(300)], lambda b: np.ones((len(b), 1)), lengths=[1] * 300, max_batch=100)
    assert [b.updates for b in bars] == [[100, 100, 100]]


def test_live_bar_waits_two_seconds_and_text_bar_leaves_its_last_line(monkeypatch) -> None:
    monkeypatch.setenv("MTLIB_PROGRESS", "1")
    live = batching.progress_bar(batching.PROGRESS_MIN_ITEMS, "embed")
    assert live is not None and live.delay == batching.PROGRESS_DELAY_S
    live.close()
    monkeypatch.setenv("MTLIB_PROGRESS", "text")
    text = batching.progress_bar(batching.PROGRESS_MIN_ITEMS, "embed")
    assert text is not None and text.leave and text.mininterval == batching.TEXT_MININTERVAL_S
    text.close()
