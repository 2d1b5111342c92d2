"""How long a block took, without a pair of ``perf_counter`` calls around it.

Example:
    >>> with stopwatch() as clock:
    ...     total = sum(range(1000))
    >>> clock.seconds >= 0.0
    True
    >>> since_start = Clock()  # a clock that runs across cells: since_start.elapsed at the end
    >>> since_start.elapsed >= 0.0
    True
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["Clock", "stopwatch"]


@dataclass
class Clock:
    """The seconds a :func:`stopwatch` block took (``nan`` while it runs); ``elapsed``: seconds since it started."""

    seconds: float = float("nan")
    started: float = field(default_factory=time.perf_counter, repr=False)

    @property
    def elapsed(self) -> float:
        """Wall-clock seconds since the clock was made (a :func:`stopwatch` block: since the block began)."""
        return time.perf_counter() - self.started


@contextlib.contextmanager
def stopwatch() -> Iterator[Clock]:
    """Time the block: ``with stopwatch() as clock: ...`` then ``clock.seconds`` (wall clock, also on error)."""
    clock = Clock()
    try:
        yield clock
    finally:
        clock.seconds = clock.elapsed
