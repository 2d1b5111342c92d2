"""Deprecated: the torch counting engine is now the one kernel of :mod:`~mtlib.relations.kernels`.

Every exact count runs one kernel, written once for numpy and torch
(:mod:`~mtlib.relations.kernels` over :mod:`~mtlib.utils.arrays`); pass
``device=`` to :mod:`~mtlib.relations.counting` or
:mod:`~mtlib.relations.replicates` to run it on a torch device. Where the
statistics of a run go is the run context's :attr:`mtlib.utils.context.RunContext.stats_device`.
This module keeps :func:`statistics_device` for one release, with a
deprecation warning.
"""

from __future__ import annotations

import warnings

from mtlib.utils.batching import resolve_device
from mtlib.utils.context import RunContext

__all__ = ["statistics_device"]


def statistics_device(device: str | None) -> str | None:
    """Deprecated: use ``RunContext.resolve(device=...).stats_device`` (the one definition of the rule).

    Args:
        device: The models' device: ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``, or None.

    Returns:
        A CUDA device string, or None for numpy on the host.
    """
    warnings.warn(
        "mtlib.relations.statistics_device is deprecated and goes in the next release: "
        "use RunContext.resolve(device=...).stats_device",
        DeprecationWarning,
        stacklevel=2,
    )
    if device is None or str(device).split(":", 1)[0] in ("cpu", "mps", "host"):
        return None
    try:
        resolved = resolve_device(device)
    except ImportError:  # the core wheel: no torch, so no device but the host
        return None
    return RunContext(device=resolved).stats_device
