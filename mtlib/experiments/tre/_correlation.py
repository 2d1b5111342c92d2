"""Correlations of Table 2: Spearman with a bootstrap interval, and a partial Spearman controlling for length.

Bootstrap resamples are ranked and correlated row-wise in matrix form
(:func:`_row_pearson` over ``(n_boot, n)`` rank arrays), no Python loop per resample.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sstats

from mtlib.data.papers import BHATHENA_TABLE2
from mtlib.experiments.tre._scores import PAPER_ENCODERS, paper_table2


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(-1, keepdims=True)
    b = b - b.mean(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))


def _partial(rxy: np.ndarray, rxz: np.ndarray, ryz: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rxy - rxz * ryz) / np.sqrt((1 - rxz**2) * (1 - ryz**2))


def _bootstrap_ranks(columns: Sequence[np.ndarray], n_boot: int, seed: int) -> list[np.ndarray]:
    """Average ranks of each column within each bootstrap resample, ``(n_boot, n)`` each."""
    n = len(columns[0])
    idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    return [sstats.rankdata(np.asarray(c, float)[idx], axis=1) for c in columns]


def spearman_ci(
    x: np.ndarray, y: np.ndarray, *, n_boot: int = 1000, seed: int = 0, alpha: float = 0.05
) -> dict[str, float]:
    """Spearman's ρ with its p-value and a percentile bootstrap interval (sentences resampled).

    Pairs with a ``nan`` are dropped first (their number is ``n_dropped``).

    Returns:
        ``{"rho", "p_value", "ci_low", "ci_high", "n", "n_dropped"}``.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    out = {
        "rho": np.nan,
        "p_value": np.nan,
        "ci_low": np.nan,
        "ci_high": np.nan,
        "n": int(keep.sum()),
        "n_dropped": int((~keep).sum()),
    }
    if len(x) < 3:
        return out
    res = sstats.spearmanr(x, y)
    out["rho"], out["p_value"] = float(res.statistic), float(res.pvalue)
    if n_boot:
        rx, ry = _bootstrap_ranks([x, y], n_boot, seed)
        reps = _row_pearson(rx, ry)
        reps = reps[np.isfinite(reps)]
        if len(reps):
            out["ci_low"], out["ci_high"] = (float(q) for q in np.quantile(reps, [alpha / 2, 1 - alpha / 2]))
    return out


def partial_spearman(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, *, n_boot: int = 1000, seed: int = 0, alpha: float = 0.05
) -> dict[str, float]:
    """Spearman correlation of ``x`` and ``y`` controlling for ``z`` (e.g. sentence length).

    The partial correlation of the ranks: (r_xy − r_xz r_yz) / sqrt((1 − r_xz²)(1 − r_yz²)),
    with a t-test on n − 3 degrees of freedom and a bootstrap interval.

    Returns:
        ``{"rho", "p_value", "ci_low", "ci_high", "n"}``.
    """
    x, y, z = (np.asarray(v, float) for v in (x, y, z))
    keep = np.isfinite(x) & np.isfinite(y) & np.isfinite(z)
    x, y, z = x[keep], y[keep], z[keep]
    out = {"rho": np.nan, "p_value": np.nan, "ci_low": np.nan, "ci_high": np.nan, "n": int(keep.sum())}
    if len(x) < 4:
        return out
    rx, ry, rz = (sstats.rankdata(v) for v in (x, y, z))
    rho = float(_partial(_row_pearson(rx, ry), _row_pearson(rx, rz), _row_pearson(ry, rz)))
    out["rho"] = rho
    if np.isfinite(rho) and abs(rho) < 1:
        t = rho * np.sqrt((len(x) - 3) / (1 - rho**2))
        out["p_value"] = float(2 * sstats.t.sf(abs(t), len(x) - 3))
    if n_boot:
        bx, by, bz = _bootstrap_ranks([x, y, z], n_boot, seed)
        reps = _partial(_row_pearson(bx, by), _row_pearson(bx, bz), _row_pearson(by, bz))
        reps = reps[np.isfinite(reps)]
        if len(reps):
            out["ci_low"], out["ci_high"] = (float(q) for q in np.quantile(reps, [alpha / 2, 1 - alpha / 2]))
    return out


def table2_row(frame: pd.DataFrame, *, tre: str = "tre", n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """One row of Table 2 from a per-sentence frame with ``tre``, ``wns``, ``ti`` and ``n_words``.

    Returns:
        ``n, n_dropped, rho_tre_wns, ci_low, ci_high, p_value, partial_rho_length,
        partial_ci_low, partial_ci_high, partial_p_value, rho_tre_ti, rho_tre_ti_p``
        (rows with a ``nan`` TRE or WNS, e.g. one-word sentences, are dropped and counted).
    """
    main = spearman_ci(frame[tre], frame["wns"], n_boot=n_boot, seed=seed)
    part = partial_spearman(frame[tre], frame["wns"], frame["n_words"], n_boot=n_boot, seed=seed)
    ti = spearman_ci(frame[tre], frame["ti"], n_boot=0)
    return {
        "n": main["n"],
        "n_dropped": main["n_dropped"],
        "rho_tre_wns": main["rho"],
        "ci_low": main["ci_low"],
        "ci_high": main["ci_high"],
        "p_value": main["p_value"],
        "partial_rho_length": part["rho"],
        "partial_ci_low": part["ci_low"],
        "partial_ci_high": part["ci_high"],
        "partial_p_value": part["p_value"],
        "rho_tre_ti": ti["rho"],
        "rho_tre_ti_p": ti["p_value"],
        "rho_tre_length": spearman_ci(frame[tre], frame["n_words"], n_boot=0)["rho"],
        "rho_wns_length": spearman_ci(frame["wns"], frame["n_words"], n_boot=0)["rho"],
    }


def table2(
    frames: dict[str, pd.DataFrame], *, n_boot: int = 1000, seed: int = 0, paper_rows: bool = True
) -> pd.DataFrame:
    """Table 2 layout: one row per (encoder, split) with the paper's value beside it.

    Args:
        frames: Encoder -> per-sentence frame with ``split``, ``tre``, ``wns``, ``ti``, ``n_words``.
        paper_rows: Append the paper's encoders we did not run (ELMo, USE), with their printed value only.

    Returns:
        Columns ``encoder, split`` + :func:`table2_row`'s + ``paper``.
    """
    rows = []
    for name, frame in frames.items():
        for split in ("train", "heldout"):
            part = frame[frame["split"] == split]
            if len(part):
                rows.append(
                    {
                        "encoder": name,
                        "split": split,
                        **table2_row(part, n_boot=n_boot, seed=seed),
                        "paper": paper_table2(name),
                    }
                )
    if paper_rows:
        rows += _paper_rows(frames)
    return pd.DataFrame(rows)


def _paper_rows(encoders: Iterable[str]) -> list[dict[str, Any]]:
    """Table 2 rows of the paper's encoders not among ``encoders`` (their printed value only)."""
    ran = {PAPER_ENCODERS.get(name, name) for name in encoders}
    return [
        {"encoder": f"{enc} (paper)", "split": "SST dev", "paper": value}
        for enc, value in BHATHENA_TABLE2.items()
        if enc not in ran
    ]
