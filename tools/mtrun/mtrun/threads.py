"""How many threads a notebook run gets: the user's number if given, else the cores free now per job.

On an idle 2-core machine two threads win by about 1.4x; on a busy one two
threads spin against the other process and lose 2-5x (issue 29's measurements;
``benchmarks/bench_threads.py`` repeats them). So the runner gives each job the
cores that are free *now*, split among the jobs that run at once, with OpenMP's
passive waiting; ``--threads``, ``MTLIB_THREADS`` or ``OMP_NUM_THREADS`` set by
the user win over it. A kernel records what it ran with
(:func:`mtlib.utils.threads.kernel_threads`); :func:`mtlib.utils.threads.limit_threads`
limits a block inside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from mtlib.utils.threads import POOL_VARS, THREADS_ENV

__all__ = ["ThreadPlan", "busy_cores", "parse_threads", "plan_threads", "usable_cores"]


@dataclass(frozen=True)
class ThreadPlan:
    """Threads for one notebook run, and why.

    Attributes:
        threads: torch / BLAS / OpenMP threads of the kernel.
        why: How they were chosen, e.g. ``"MTLIB_THREADS=1"`` or ``"2 cores, 0.9 busy, 1 job"``.
    """

    threads: int
    why: str

    def env(self) -> dict[str, str]:
        """The kernel's environment for this plan: the pool sizes, ``MTLIB_THREADS`` and passive OpenMP waiting.

        Example:
            >>> ThreadPlan(2, "test").env()["OMP_NUM_THREADS"]
            '2'
        """
        out = {v: str(self.threads) for v in POOL_VARS}
        out[THREADS_ENV] = str(self.threads)
        # idle OpenMP threads sleep instead of spinning on a core another process needs
        out["OMP_WAIT_POLICY"] = os.environ.get("OMP_WAIT_POLICY", "PASSIVE")
        return out


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def busy_cores(seconds: float = 0.15, samples: int = 3) -> float:
    """Cores kept busy by other processes: the least of ``samples`` windows of ``seconds`` each.

    The least, not the mean: a process that holds a core holds it in every window, while a blip (a
    command that ends within the half second, the previous notebook's kernel shutting down) would
    otherwise give a whole notebook one thread on an idle machine (seen here, in a run under a sampling
    profiler: a short-lived command as notebook 02 started gave it one thread, and it took 94 s, against
    52-61 s with two threads in other runs). This process waits meanwhile.
    """
    import psutil

    cores = psutil.cpu_count() or 1
    return min(psutil.cpu_percent(interval=seconds) / 100.0 * cores for _ in range(max(1, samples)))


def parse_threads(value: object, source: str) -> int:
    """A thread count given by the user: a positive integer, else a clear error naming ``source``.

    Example:
        >>> parse_threads("2", "MTLIB_THREADS")
        2
    """
    try:
        n = int(str(value).strip())
    except ValueError:
        n = 0
    if n < 1 or str(value).strip() != str(n):
        raise ValueError(f"{source}={value!r}: expected a positive whole number of threads, e.g. 1 or 2")
    return n


def plan_threads(
    requested: int | str | None = None,
    *,
    jobs: int = 1,
    environ: Mapping[str, str] | None = None,
    cores: int | None = None,
    busy: float | None = None,
) -> ThreadPlan:
    """How many threads a notebook run gets: the user's number if given, else the cores free now per job.

    Order: ``requested`` (the runner's ``--threads``), then ``MTLIB_THREADS``,
    then ``OMP_NUM_THREADS`` in ``environ`` (default ``os.environ``); else
    ``max(1, (cores - round(busy)) // jobs)``, where ``busy`` is sampled
    (:func:`busy_cores`) unless given.

    Args:
        requested: An explicit count (``None``: not given).
        jobs: Notebook runs sharing this machine at once (Dask workers).
        environ: The environment to read; ``os.environ`` by default.
        cores: Usable cores (default :func:`usable_cores`).
        busy: Cores busy with other work (default: sampled).

    Raises:
        ValueError: a given count that is not a positive whole number, naming where it came from.

    Example:
        >>> plan_threads(environ={}, cores=2, busy=0.1).threads  # idle: both cores
        2
        >>> plan_threads(environ={}, cores=2, busy=1.2).threads  # another process holds a core
        1
        >>> plan_threads(environ={"MTLIB_THREADS": "1"}, cores=2, busy=0.0)
        ThreadPlan(threads=1, why='MTLIB_THREADS=1')
    """
    env = os.environ if environ is None else environ
    if requested is not None:
        return ThreadPlan(parse_threads(requested, "--threads"), f"--threads {requested}")
    for var in (THREADS_ENV, "OMP_NUM_THREADS"):
        if env.get(var, "").strip():
            return ThreadPlan(parse_threads(env[var], var), f"{var}={env[var].strip()}")
    n_cores = cores if cores is not None else usable_cores()
    load = busy if busy is not None else busy_cores()
    free = max(1, n_cores - round(load))
    jobs = max(1, jobs)
    return ThreadPlan(max(1, free // jobs), f"{n_cores} cores, {load:.1f} busy, {jobs} job(s)")
