"""CPU threads for small, many-times-repeated fits: one place that limits them.

Intuition: torch and the BLAS under numpy/scikit-learn each start one thread
per core. For large matrix products that is right; for the small fits the
notebooks repeat hundreds of times (an MLP head on 64 x d batches, a
logistic-regression head per SETI setting and seed, TRE's additive fit) the
threads mostly wait for each other, and on a shared 2-core machine two
spinning threads made such a fit up to 10x slower than one (one MLP head fit
took 39 s instead of 0.7 s under load 7-10). :func:`limit_threads` runs a
block with ``n`` threads in torch *and* in every BLAS/OpenMP pool
(threadpoolctl), and restores both afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from mtlib.utils.batching import resolve_device


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
        >>> with limit_threads(1):  # e.g. around models.classifier("minilm", train, how="head", head="mlp")
        ...     torch.get_num_threads()
        1
        >>> torch.get_num_threads() == before
        True
    """
    if n is None:
        yield
        return
    import torch
    from threadpoolctl import threadpool_limits

    before = torch.get_num_threads()
    if torch_too:
        torch.set_num_threads(n)
    try:
        with threadpool_limits(n):
            yield
    finally:
        torch.set_num_threads(before)


def cpu_threads(device: str, n: int = 1) -> int | None:
    """``n`` when ``device`` resolves to the CPU, else ``None`` (for :func:`limit_threads`).

    Example:
        >>> cpu_threads("cpu", 2)
        2
    """
    return n if resolve_device(device) == "cpu" else None


__all__ = ["limit_threads", "cpu_threads"]
