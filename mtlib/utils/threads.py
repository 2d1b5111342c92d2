"""CPU threads for small, many-times-repeated fits: one place that limits them.

Intuition: torch and the BLAS under numpy/scikit-learn each start one thread
per core. For large matrix products that is right; for the small fits the
notebooks repeat hundreds of times (an MLP head on 64 x d batches, a
logistic-regression head per SETI task setup and seed, TRE's additive fit) the
threads mostly wait for each other, and on a shared 2-core machine two
spinning threads made such a fit up to 10x slower than one (one MLP head fit
took 39 s instead of 0.7 s under load 7-10). :func:`limit_threads` runs a
block with ``n`` threads in torch *and* in every BLAS/OpenMP pool
(threadpoolctl), and restores both afterwards. The code that runs such a fit
calls it itself, where it knows the fit is small: the MLP head's training
(:meth:`mtlib.models.training.heads.MLPHead.fit`, one thread on a CPU); no
notebook limits threads by hand.

How many threads a whole notebook run gets is a separate choice,
``mtrun.threads.plan_threads``, made by the runner before each notebook starts (the
environment of its kernel): on an idle 2-core machine two threads win by about
1.4x, on a busy one two threads spin against the other process and lose 2-5x
(issue 29's measurements; ``benchmarks/bench_threads.py`` repeats them). So
the plan gives each job the cores that are free *now*, split among the jobs
that run at once, with OpenMP's passive waiting; ``--threads``,
``MTLIB_THREADS`` or ``OMP_NUM_THREADS`` set by the user win over it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from mtlib.utils.batching import resolve_device
from mtlib.utils.faces import renamed


@contextlib.contextmanager
def limit_threads(n: int | None = 1, *, torch_too: bool = True) -> Iterator[None]:
    """Run a block with at most ``n`` CPU threads in torch and in the BLAS/OpenMP pools.

    Args:
        n: Threads inside the block; ``None`` changes nothing (e.g. on a GPU,
            or for fits large enough to use every core).
        torch_too: Also limit torch's intra-op threads. ``False`` for a block
            that fits a small scikit-learn head but also encodes texts with a
            transformer (SETI's heads): the encoder keeps every core.

    Example:
        >>> import torch
        >>> before = torch.get_num_threads()
        >>> with limit_threads(1):  # e.g. around an MLP head's training loop (MLPHead.fit does so)
        ...     torch.get_num_threads()
        1
        >>> torch.get_num_threads() == before
        True
    """
    if n is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    if not torch_too:  # the BLAS/OpenMP pools only (torch is not even imported)
        with threadpool_limits(n):
            yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        with threadpool_limits(n):
            yield
    finally:
        torch.set_num_threads(before)


def threads_for_device(device: str, n: int = 1) -> int | None:
    """``n`` when ``device`` resolves to the CPU, else ``None`` (for :func:`limit_threads`).

    Example:
        >>> threads_for_device("cpu", 2)
        2
    """
    return n if resolve_device(device) == "cpu" else None


cpu_threads = renamed(threads_for_device, "cpu_threads")  # the old name, for one release


#: The variable that fixes the threads of every notebook run (the runner's ``--threads`` sets it).
THREADS_ENV = "MTLIB_THREADS"
#: Thread-pool sizes read by torch (OpenMP), MKL and OpenBLAS when they load.
POOL_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def kernel_threads() -> dict[str, object]:
    """What this process runs with, for ``metrics.json``: torch's threads (if torch is loaded) and the plan's values."""
    import sys

    out: dict[str, object] = {
        v: os.environ[v] for v in (THREADS_ENV, "OMP_NUM_THREADS", "OMP_WAIT_POLICY") if v in os.environ
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        out["torch"] = int(torch.get_num_threads())
    return out


__all__ = ["threads_for_device", "limit_threads"]
