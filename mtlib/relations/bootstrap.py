"""Intervals for violation rates: Wilson over independent cases, bootstraps over source items.

Intuition: a pairwise or three-way test case shares its source items with many
other cases, so cases are *not* independent and a binomial interval over 56M
pairs would be absurdly narrow. The honest unit of resampling is the source
item: :func:`bootstrap_order_rate` and :func:`bootstrap_transitivity_rates`
draw multinomial item weights and recount exactly (a resample with repeated
items is just integer weights to the counting engine). Wilson intervals are
for rates over genuinely independent cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mtlib.relations.counting import _as_adjacency
from mtlib.relations.errors import check_count
from mtlib.relations.replicates import ReplicateCounts, order_replicates, transitivity_replicates
from mtlib.utils.faces import renamed
from mtlib.utils.inputs import check_seed

__all__ = [
    "bootstrap_order_rate",
    "bootstrap_rate",
    "bootstrap_rates",
    "bootstrap_transitivity_rates",
    "bootstrap_weights",
    "check_resampling",
    "percentile_interval",
    "with_wilson_rates",
    "rate_text",
    "weight_blocks",
    "wilson_interval",
]

# Bytes of one block of replicate weights (int64): memory stays bounded whatever n_boot is.
_BLOCK_BYTES = 64 * 2**20


def check_resampling(
    n_boot: Any, seed: Any, where: str, *, argument: str = "n_boot", skip: bool = False
) -> tuple[int, int]:
    """The one check of a resampling's arguments (bootstraps, replicates, permutation tests).

    Args:
        n_boot: The replicate (or permutation) count: an integer >= 1, or >= 0 with ``skip`` (0 skips the
            interval).
        seed: An integer seed per :data:`mtlib.utils.inputs.SEED_RULE`.
        where: The public function, named in the error.
        argument: The count's name in that function.
        skip: Whether 0 is allowed.

    Returns:
        ``(n_boot, seed)`` as ints.

    Raises:
        MtlibInputError: naming ``where``, the argument and what was expected.

    Example:
        >>> check_resampling(0, 1, "bootstrap_rate")
        Traceback (most recent call last):
        ...
        mtlib.utils.inputs.MtlibInputError: bootstrap_rate: n_boot must be an integer >= 1, got int 0
    """
    return check_count(n_boot, where, argument, 0 if skip else 1), check_seed(seed, where)


def wilson_interval(k: Any, n: Any, alpha: float = 0.05) -> tuple[Any, Any]:
    """Wilson score interval for a proportion ``k / n`` (vectorised).

    Returns:
        ``(low, high)``; ``nan`` where ``n == 0``.
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    from scipy.special import ndtri  # the normal quantile (what scipy.stats.norm.ppf computes), imported on use

    z = ndtri(1 - alpha / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
        low, high = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
    low, high = np.where(k <= 0, 0.0, low), np.where(k >= n, 1.0, high)  # exact ends, not 1e-17 off them
    low, high = np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def rate_text(rate: float, low: float, high: float, digits: int = 4) -> str:
    """A rate and its interval as text: ``0.1277 [0.1101, 0.1460]``."""
    return f"{rate:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def weight_blocks(
    n_items: int,
    n_boot: int,
    seed: int,
    *,
    rows: int | None = None,
    where: str = "bootstrap_weights",
    multiplicity: Any = None,
) -> Iterator[np.ndarray]:
    """The rows of :func:`bootstrap_weights`, ``rows`` at a time (by default a block of about 64 MB).

    One generator draws the blocks one after another, so they are the same replicates as one draw of
    ``size=n_boot``, and memory stays bounded whatever ``n_boot`` is.

    Yields:
        Blocks of shape ``(rows, n_items)`` int64 (``(rows, k)`` with a ``multiplicity`` of ``k`` groups), the
        last one shorter.
    """
    n_boot, seed = check_resampling(n_boot, seed, where)
    n_items = check_count(n_items, where, "n_items")
    counts = np.ones(n_items) if multiplicity is None else np.asarray(multiplicity, dtype=float)
    rows = rows or max(1, _BLOCK_BYTES // (8 * max(counts.size, 1)))
    rng = np.random.default_rng(seed)
    p = counts / max(n_items, 1)
    for lo in range(0, n_boot, rows):
        size = min(rows, n_boot - lo)
        if counts.size and n_items:
            yield rng.multinomial(n_items, p, size=size).astype(np.int64)
        else:
            yield np.zeros((size, counts.size), np.int64)


def bootstrap_weights(n_items: int, n_boot: int, seed: int, *, multiplicity: Any = None) -> np.ndarray:
    """Multinomial resampling weights, shape ``(n_boot, n_items)``, each row summing to ``n_items``.

    With ``multiplicity`` (shape ``(k,)`` positive integers summing to ``n_items``: how many items share each of
    ``k`` identical values), the weights of the ``k`` groups of identical items, shape ``(n_boot, k)``: the item
    weights summed within each group, drawn directly (a multinomial summed over categories is the multinomial of
    the sums), so ``n_boot`` replicates of 100,000 items in four groups cost ``n_boot x 4`` draws. All ones gives
    the same numbers as without. Drawn in blocks (:func:`weight_blocks`): the same replicates as one draw.

    Example:
        >>> w = bootstrap_weights(5, 3, 0, multiplicity=[3, 2])
        >>> w.shape, w.sum(1).tolist()
        ((3, 2), [5, 5, 5])
    """
    return np.concatenate(list(weight_blocks(n_items, n_boot, seed, multiplicity=multiplicity)))


def _blocked(n_items: int, n_boot: int, seed: int, where: str, count: Callable[[np.ndarray], Any]) -> Any:
    """``count`` (a block of weights to ReplicateCounts, or to an array) over every block, joined in order."""
    parts = [count(w) for w in weight_blocks(n_items, n_boot, seed, where=where)]
    if isinstance(parts[0], ReplicateCounts):
        return ReplicateCounts(*(np.concatenate([getattr(r, k) for r in parts]) for k in ("violations", "cases")))
    return np.concatenate(parts)


def percentile_interval(samples: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    """Percentile interval of bootstrap replicates, ignoring ``nan`` (no cases in a replicate)."""
    samples = np.asarray(samples, dtype=float)
    samples = samples[np.isfinite(samples)]
    if samples.size == 0:
        return float("nan"), float("nan")
    return float(np.quantile(samples, alpha / 2)), float(np.quantile(samples, 1 - alpha / 2))


def bootstrap_rates(
    count: Callable[[np.ndarray], tuple[int, int]],
    n_items: int,
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> np.ndarray:
    """Bootstrap replicates of a violation rate, resampling source items.

    Args:
        count: Maps integer item weights ``(n_items,)`` to ``(violations, cases)``
            counted on the weighted resample.
        n_items: Number of source items.
        n_boot: Replicates.
        seed: Seeds the resampling.

    Returns:
        Shape ``(n_boot,)`` rates, ``nan`` for a replicate without cases.
    """
    rates = []
    for block in weight_blocks(n_items, n_boot, seed, where="bootstrap_rates"):
        for w in block:
            v, c = count(w)
            rates.append(v / c if c else np.nan)
    return np.array(rates, dtype=float)


def bootstrap_rate(
    count: Callable[[np.ndarray], tuple[int, int]],
    n_items: int,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float]:
    """Percentile interval of :func:`bootstrap_rates` (``alpha`` = 1 - coverage)."""
    return percentile_interval(bootstrap_rates(count, n_items, n_boot=n_boot, seed=seed), alpha)


def bootstrap_order_rate(
    src: np.ndarray | Sequence[np.ndarray],
    flw: np.ndarray | Sequence[np.ndarray],
    *,
    expected: str | Sequence[str] = "same",
    n_boot: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    device: str | None = None,
) -> tuple[float, float]:
    """Interval of a pairwise (order) violation rate, resampling the source items.

    Several (src, flw) arrays over the *same* items (e.g. one per
    transformation) are pooled: one weight vector per replicate is applied to
    all of them, so the interval is for the overall rate. The replicates are
    counted together (:func:`~mtlib.relations.replicates.order_replicates`),
    on ``device`` when given (None: numpy on the host).
    """
    srcs = [src] if isinstance(src, np.ndarray) else list(src)
    flws = [flw] if isinstance(flw, np.ndarray) else list(flw)
    exps = [expected] * len(srcs) if isinstance(expected, str) else list(expected)
    n = len(srcs[0]) if srcs else 0

    def count(weights: np.ndarray) -> ReplicateCounts:
        violations, cases = np.zeros(len(weights), np.int64), np.zeros(len(weights), np.int64)
        for s, f, e in zip(srcs, flws, exps):
            counts = order_replicates(s, f, weights, expected=e, device=device)
            violations += counts.violations
            cases += counts.cases
        return ReplicateCounts(violations, cases)

    return percentile_interval(_blocked(n, n_boot, seed, "bootstrap_order_rate", count).rates, alpha)


def bootstrap_transitivity_rates(
    adj: np.ndarray, *, n_boot: int = 200, seed: int = 0, device: str | None = None
) -> np.ndarray:
    """Replicates ``(n_boot,)`` of a three-way transitivity violation rate, resampling words (items).

    The weights are drawn once by the seeded generator (:func:`bootstrap_weights`)
    and all replicates are counted together
    (:func:`~mtlib.relations.replicates.transitivity_replicates`), on ``device``
    when given (None: numpy on the host): the same replicates wherever they run.

    Example:
        >>> a = np.ones((10, 10), bool)  # a complete relation: never violated
        >>> bootstrap_transitivity_rates(a, n_boot=3).tolist()
        [0.0, 0.0, 0.0]
    """
    a = _as_adjacency(adj)  # a NaN or a 2 is refused, not cast to an edge
    where = "bootstrap_transitivity_rates"
    return _blocked(len(a), n_boot, seed, where, lambda w: transitivity_replicates(a, w, device=device)).rates


def with_wilson_rates(frame: pd.DataFrame, *, violations: str = "violations", cases: str = "cases") -> pd.DataFrame:
    """Add ``rate`` and Wilson ``ci_low``/``ci_high`` columns (cases treated as independent)."""
    out = frame.copy()
    v, c = out[violations].to_numpy(float), out[cases].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["rate"] = np.where(c > 0, v / np.where(c > 0, c, 1), np.nan)
    out["ci_low"], out["ci_high"] = wilson_interval(v, c)
    return out


rate_table = renamed(with_wilson_rates, "rate_table")  # the old name, for one release
