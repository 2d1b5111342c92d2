"""Linear heads: Newton steps on the examples' span against scikit-learn's Newton-Cholesky, same process.

A binary linear head with no more examples than features (SETI's heads:
1,536 pair features, up to 1,500 training pairs) is fitted by
:func:`mtlib.models.training.logistic.binary_logistic_dual`; before, by scikit-learn's
``LogisticRegression(solver="newton-cholesky", tol=1e-10)``. Both reach the
same optimum; this times both on standardised random problems of SETI's
shape (a planted linear rule plus noise), interleaved, medians of
``--repeats``, and prints the largest difference of their decision values.

Prints one line per size, then one JSON line per figure.

Usage: ``python benchmarks/bench_heads.py [--repeats 3] [--quick]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import warnings
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import emit as emit_figure  # noqa: E402
from benchmarks._common import timed  # noqa: E402

emit = partial(emit_figure, "heads")


def problem(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Standardised features ``(n, d)`` float64 and 0/1 labels from a planted linear rule with noise."""
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) / np.sqrt(d) + 0.5 * rng.standard_normal(n) > 0).astype(int)
    return StandardScaler().fit_transform(X), y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved timings of each solver (medians)")
    parser.add_argument("--quick", action="store_true", help="one repeat, the smaller size only")
    args = parser.parse_args()
    from sklearn.linear_model import LogisticRegression

    from mtlib.models.training.logistic import binary_logistic_dual

    repeats = 1 if args.quick else args.repeats
    sizes = [(300, 1536)] if args.quick else [(1500, 1536), (300, 1536)]
    for n, d in sizes:
        Z, y = problem(n, d)
        times: dict[str, list[float]] = {"sklearn": [], "dual": []}
        for _ in range(repeats):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref, t_ref = timed(
                    partial(LogisticRegression(solver="newton-cholesky", tol=1e-10, max_iter=2000).fit, Z, y)
                )
            (w, b, steps), t_dual = timed(partial(binary_logistic_dual, Z, y, 1.0))
            times["sklearn"].append(t_ref)
            times["dual"].append(t_dual)
        t_ref, t_dual = statistics.median(times["sklearn"]), statistics.median(times["dual"])
        gap = float(np.abs(Z @ ref.coef_[0] + ref.intercept_[0] - (Z @ w + b)).max())
        print(
            f"binary linear head, n={n} examples, d={d} features, C=1: Newton steps on the span {t_dual:.2f} s "
            f"({steps} steps) vs scikit-learn Newton-Cholesky {t_ref:.2f} s ({int(ref.n_iter_[0])} steps): "
            f"{t_ref / t_dual:.1f}x; largest |Δ decision value| {gap:.2g}"
        )
        common = {"n": n, "d": d, "repeats": repeats}
        emit(f"dual_vs_newton_cholesky_n{n}", t_ref / t_dual, "x", dual_s=t_dual, sklearn_s=t_ref, **common)
        emit(f"max_abs_delta_decision_n{n}", gap, "", **common)


if __name__ == "__main__":
    main()
