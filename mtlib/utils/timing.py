"""How long a block took, without a pair of ``perf_counter`` calls around it.

Example:
    >>> with stopwatch() as clock:
    ...     total = sum(range(1000))
    >>> clock.seconds >= 0.0
    True
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Clock", "stopwatch"]


@dataclass
class Clock:
    """The seconds a :func:`stopwatch` block took (``nan`` while it runs)."""

    seconds: float = float("nan")


@contextlib.contextmanager
def stopwatch() -> Iterator[Clock]:
    """Time the block: ``with stopwatch() as clock: ...`` then ``clock.seconds`` (wall clock, also on error)."""
    clock, start = Clock(), time.perf_counter()
    try:
        yield clock
    finally:
        clock.seconds = time.perf_counter() - start
