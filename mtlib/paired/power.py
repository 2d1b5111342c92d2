"""How small a difference a paired comparison can detect, and how many items a given difference needs.

Both at two-sided ``alpha = 0.05`` and 80% power by default, from what the comparison observed:

- **0/1 metric on independent items (McNemar).** Only discordant items carry information. With ``psi`` the share of
  discordant items (observed, and assumed to stay what it is) and ``delta = p10 - p01`` the difference of the two
  accuracies, :func:`mcnemar_power` is the exact power of the exact test the comparison runs (no normal
  approximation: the approximation of Connor 1987 overstates it, 0.8 nominal for 0.77 real at 400 items and ``psi
  = 0.2``); :func:`mcnemar_mde` and :func:`mcnemar_items` solve it for ``delta`` and for ``n``. Checked against a
  seeded simulation of the exact test (``tests/unit/paired/test_power.py``).
- **any other metric, or groups of items (paired t).** On the ``G`` per-group differences with standard deviation
  ``sd``, the two-sided paired t-test's power at a true difference ``delta`` is ``P(|T| > t_{1-a/2, G-1})`` for ``T``
  noncentral t with ``G - 1`` degrees of freedom and noncentrality ``delta sqrt(G) / sd``. :func:`paired_t_mde` and
  :func:`paired_t_items` solve it for ``delta`` and for ``G``; checked against statsmodels' ``TTestPower``
  (``solve_power``) in the same test file.

Intuition: the MDE is the interval's reach. Two models that disagree on few items can be told apart at small
differences; a comparison whose MDE is 0.08 cannot call a 0.02 difference "equivalent" or "better", whatever the
point estimate says, and ``--items-for 0.02`` says how many items it would take.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import optimize, stats

__all__ = ["mcnemar_items", "mcnemar_mde", "mcnemar_power", "paired_t_items", "paired_t_mde", "power_columns"]


def _mcnemar_power_of(n_items: int, psi: float, alpha: float) -> Callable[[float], float]:
    """The power of the exact test as a function of ``delta`` at fixed ``n`` and ``psi`` (the binomial weights of
    the discordant counts and their critical values computed once)."""
    spread = 9 * math.sqrt(n_items * psi * (1 - psi)) + 9  # the discordant counts with weight above ~1e-19
    m = np.arange(max(0, int(n_items * psi - spread)), min(n_items, int(n_items * psi + spread)) + 1)
    weight = stats.binom.pmf(m, n_items, psi)
    c = stats.binom.ppf(alpha / 2, m, 0.5) - 1  # the largest c with 2 P(X <= c) < alpha (-1: never rejects)
    keep = c >= 0
    m, weight, c = m[keep], weight[keep], c[keep]

    def power(delta: float) -> float:
        q = (psi + abs(delta)) / (2 * psi)
        return float(np.sum(weight * (stats.binom.cdf(c, m, q) + stats.binom.sf(m - c - 1, m, q))))

    return power


def mcnemar_power(delta: float, n_items: int, discordant_share: float, *, alpha: float = 0.05) -> float:
    """The exact power of McNemar's exact test (:func:`mtlib.analysis.paired_tests.mcnemar_test`, rejecting at
    ``p < alpha``) for an accuracy difference ``delta`` on ``n_items`` with discordant share ``psi``.

    The discordant count ``m`` is binomial ``(n, psi)``; given ``m``, the items only the better model gets right are
    binomial ``(m, (psi + |delta|) / (2 psi))``, and the test rejects when the smaller count is at most ``c_m``, the
    largest ``c`` with ``2 P(Bin(m, 1/2) <= c) < alpha``. Summed over ``m``: no approximation.
    """
    psi = discordant_share
    if n_items < 1 or not 0 < psi <= 1 or not abs(delta) <= psi:
        return float("nan")
    return _mcnemar_power_of(n_items, psi, alpha)(delta)


def mcnemar_mde(n_items: int, discordant_share: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest accuracy difference McNemar's exact test detects with ``power`` on ``n_items`` with discordant
    share ``psi`` (:func:`mcnemar_power` solved for ``delta`` in ``(0, psi]``); nan when no item is discordant or
    even ``delta = psi`` (one model right on every discordant item) is out of reach.

    Example:
        >>> round(mcnemar_mde(400, 0.2), 4)
        0.0644
    """
    psi = discordant_share
    if n_items < 1 or not 0 < psi <= 1:
        return float("nan")
    of = _mcnemar_power_of(n_items, psi, alpha)
    if of(psi) < power:
        return float("nan")
    return float(optimize.brentq(lambda d: of(d) - power, 0.0, psi, xtol=1e-9))


def mcnemar_items(delta: float, discordant_share: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Items McNemar's exact test needs to detect an accuracy difference ``delta`` at discordant share ``psi``.

    Starts from the normal approximation (Connor 1987: ``(z_{1-a/2} sqrt(psi) + z_{power} sqrt(psi -
    delta^2))^2 / delta^2``), then walks to the smallest ``n`` whose exact :func:`mcnemar_power` reaches ``power``
    (found by bisection; the exact power saws up and down a little with ``n``, so the size returned also holds for
    the next nine). nan when ``delta`` is 0 or larger than ``psi``.

    Example:
        >>> mcnemar_items(0.05, 0.2)  # the normal approximation says 626
        658.0
    """
    d, psi = abs(delta), discordant_share
    if not (0 < d <= psi <= 1):
        return float("nan")
    za, zb = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    n = max(2, math.ceil((za * math.sqrt(psi) + zb * math.sqrt(max(psi - d * d, 0.0))) ** 2 / (d * d)))

    def reaches(k: int) -> bool:
        return mcnemar_power(d, k, psi, alpha=alpha) >= power

    hi = n
    while not reaches(hi):
        hi *= 2
    lo = max(1, hi // 4)
    while lo > 1 and reaches(lo):
        lo //= 2
    while hi - lo > 1:  # the power rises with n but for a small saw-tooth: bisect, then step past the teeth
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reaches(mid) else (mid, hi)
    n = hi
    while not all(reaches(n + j) for j in range(1, 10)):
        n += 1
    return float(n)


def paired_t_power(delta: float, sd: float, n: float, *, alpha: float = 0.05) -> float:
    """Two-sided paired t-test power at a true mean difference ``delta`` over ``n`` pairs (groups) of spread ``sd``.

    ``P(|T| > t_crit)``, ``T`` noncentral t (``n - 1`` degrees of freedom, noncentrality ``delta sqrt(n) / sd``):
    statsmodels' ``TTestPower().power(delta / sd, n, alpha)``.
    """
    if n < 2 or not sd > 0:
        return float("nan")
    df, nc = n - 1, abs(delta) * math.sqrt(n) / sd
    crit = stats.t.ppf(1 - alpha / 2, df)
    return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))


def paired_t_mde(sd: float, n: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest mean difference the paired t-test detects over ``n`` pairs of spread ``sd`` (nan: none).

    ``sd`` 0 (every pair differs by the same amount) gives nan: the t approximation has nothing to say.

    Example:
        >>> round(paired_t_mde(1.0, 100), 4)  # about 2.8 standard errors
        0.2829
    """
    if n < 2 or not sd > 0:
        return float("nan")
    hi = (stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)) * sd / math.sqrt(n)  # the normal approximation
    while paired_t_power(hi, sd, n, alpha=alpha) < power:  # the t needs a little more (much more for n = 2)
        hi *= 1.5
    return float(optimize.brentq(lambda d: paired_t_power(d, sd, n, alpha=alpha) - power, 0.0, hi, xtol=1e-12 * sd))


def paired_t_items(delta: float, sd: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Pairs (groups) the paired t-test needs to detect ``delta`` at spread ``sd`` (not rounded; nan: none).

    Example:
        >>> round(paired_t_items(0.2829, 1.0))
        100
    """
    if delta == 0 or not sd > 0:
        return float("nan")
    if paired_t_power(delta, sd, 2, alpha=alpha) >= power:
        return 2.0
    hi = 4.0
    while paired_t_power(delta, sd, hi, alpha=alpha) < power:
        hi *= 2
        if hi > 1e12:
            return float("nan")
    return float(optimize.brentq(lambda n: paired_t_power(delta, sd, n, alpha=alpha) - power, 2, hi, xtol=1e-6))


def power_columns(table: pd.DataFrame, items_for: float | None = None) -> pd.DataFrame:
    """Per comparison row: ``mde`` (the smallest difference it detects, 80% power, two-sided 0.05), ``mde_test``
    (``McNemar exact`` or ``paired t``), and with ``items_for`` D, ``items_for`` (the items needed to detect D).

    A row compared with McNemar (0/1 on independent items) uses :func:`mcnemar_mde` / :func:`mcnemar_items` at its
    observed discordant share ``(a_only + b_only) / n_items``; any other row the paired t on its ``n_groups``
    per-group differences (``sd_diff``), its groups turned into items at the row's items per group.

    Args:
        table: Rows of :func:`mtlib.paired.stats.paired_stats`.
        items_for: The difference D (None: no ``items_for`` column).
    """
    out = pd.DataFrame(index=table.index)
    mde, how, need = [], [], []
    for _, r in table.iterrows():
        if r["test"] == "McNemar exact":
            psi = (r["a_only"] + r["b_only"]) / r["n_items"]
            mde.append(mcnemar_mde(int(r["n_items"]), psi))
            how.append("McNemar exact")
            need.append(mcnemar_items(items_for, psi) if items_for else float("nan"))
        else:
            mde.append(paired_t_mde(r["sd_diff"], int(r["n_groups"])))
            how.append("paired t")
            groups = paired_t_items(items_for, r["sd_diff"]) if items_for else float("nan")
            need.append(math.ceil(groups) * r["n_items"] / r["n_groups"] if np.isfinite(groups) else float("nan"))
    out["mde"], out["mde_test"] = mde, how
    if items_for is not None:
        out["items_for"] = np.ceil(need)
    return out
