"""Binary L2 logistic regression solved exactly in the span of the examples (dual Newton).

Intuition: a linear head must reach the optimum of its objective, not
wherever a loose tolerance stopped, so that float differences between CPU
kernel sets stay in the last bits of the weights (see
:func:`mtlib.models.training.heads.stable_features`). scikit-learn's Newton-Cholesky
solver does that, but each of its steps forms and factors the
``(d + 1) x (d + 1)`` Hessian: for SETI's pair features (d = 1,536) a fit
took 1.4 s for 300 examples and 2.2 s for 1,500 on two CPU cores.

With an L2 penalty the optimal weights lie in the span of the examples,
``w = Z^T a`` (the representer theorem; the unpenalised intercept does not
change that), so every Newton step can be taken on ``n`` coefficients
through the Gram matrix ``K = Z Z^T``, formed once. A step factors the
``n x n`` matrix ``I + D^1/2 K D^1/2`` (``D`` the weighted logistic
variances), which is well conditioned whatever ``D`` is; the intercept is
eliminated through its Schur complement. It is the same Newton iteration as
scikit-learn's in other coordinates, so it reaches the same optimum: with
``n < d`` each step costs ``n^3 / 3`` instead of about ``n d^2`` (0.36 s and
0.06 s for those two fits, ``benchmarks/bench_heads.py``).

The objective is scikit-learn's ``LogisticRegression(C, class_weight)``:
``C * sum_i s_i * log(1 + exp(-y'_i z_i)) + |w|^2 / 2`` with ``z = Z w + b``
(``s`` the sample weights, ``y'`` the labels as -1/+1), and convergence is
its criterion, the largest gradient entry of that objective divided by
``C * sum(s)`` at most ``tol``, followed by one more full Newton step.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from mtlib.utils.arrays import HostArrays, TorchArrays, namespace

__all__ = ["binary_logistic_dual"]


def binary_logistic_dual(
    Z: np.ndarray,
    y: np.ndarray,
    C: float,
    sample_weight: np.ndarray | None = None,
    *,
    tol: float = 1e-10,
    max_iter: int = 200,
    device: str | None = None,
) -> tuple[np.ndarray, float, int]:
    """Weights and intercept of binary L2 logistic regression, by Newton steps on the examples' span.

    Args:
        Z: Features, shape ``(n, d)`` float64 (standardised by the caller).
        y: Labels 0/1, shape ``(n,)``; both present.
        C: Inverse regularisation strength (scikit-learn's ``C``).
        sample_weight: Per-example weights ``(n,)`` (e.g. balanced class weights); default all 1.
        tol: Stop when the largest entry of the (scikit-learn-scaled) gradient is at most ``tol``.
        max_iter: Newton steps at most; a ``RuntimeWarning`` says when they ran out.
        device: None to solve with numpy and scipy on the host; a torch device string (a GPU run's card) to
            take the same Newton steps there in float64 (one solver for both,
            :func:`mtlib.utils.arrays.namespace`; the same optimum, other last bits).

    Returns:
        ``(w (d,), b, steps)``.

    Examples:
        >>> Z = np.array([[-2.0, 0.5], [-1.0, -0.3], [1.0, 0.2], [2.0, -0.1]])
        >>> w, b, _ = binary_logistic_dual(Z, np.array([0, 0, 1, 1]), C=1.0)
        >>> from sklearn.linear_model import LogisticRegression
        >>> ref = LogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12).fit(Z, [0, 0, 1, 1])
        >>> bool(np.allclose(w, ref.coef_[0], atol=1e-9) and abs(b - ref.intercept_[0]) < 1e-9)
        True
    """
    xp = namespace(device)
    Z = xp.asarray(np.asarray(Z, dtype=np.float64))
    y = xp.asarray(np.asarray(y, dtype=np.float64))
    n = Z.shape[0]
    s = xp.ones(n, xp.float64) if sample_weight is None else xp.asarray(np.asarray(sample_weight, dtype=np.float64))
    cs = float(C) * s
    scale = float(C) * float(s.sum())  # scikit-learn's objective is ours divided by C * sum(s)
    K = Z @ Z.T
    # the Newton loop on one BLAS thread on the host: its n x n Cholesky and matrix-vector products ran 1.7x
    # (n = 1,500) to 10x (n = 300) slower on two threads than on one here (benchmarks/bench_heads.py); the Gram
    # matrix above is one large product and keeps every thread
    with xp.solver_threads():
        a, b, steps = _newton(xp, K, Z, y, cs, scale, tol, max_iter)
        w = xp.to_numpy(Z.T @ a)
    return w, b, steps


def _newton(
    xp: HostArrays | TorchArrays, K: Any, Z: Any, y: Any, cs: Any, scale: float, tol: float, max_iter: int
) -> tuple[Any, float, int]:
    """The Newton steps on the span coefficients ``a`` (n,) and the intercept, to scikit-learn's criterion.

    Args:
        xp: The array namespace (numpy on the host, torch on a device).
        K: The Gram matrix ``Z Z^T``, shape (n, n).
        Z: Features (n, d), for the gradient ``Z^T g``.
        y: Labels 0/1 (n,) float64.
        cs: ``C`` times the sample weights (n,).
        scale: ``C * sum(sample weights)``.
        tol: Gradient tolerance.
        max_iter: Newton steps at most.

    Returns:
        ``(a (n,), b, steps)``.
    """
    n = K.shape[0]
    a, b, Ka, ones = xp.zeros(n, xp.float64), 0.0, xp.zeros(n, xp.float64), xp.ones(n, xp.float64)

    def objective(Ka_: Any, a_: Any, b_: float) -> float:
        z = Ka_ + b_
        return float(cs @ (xp.softplus(z) - y * z) + 0.5 * (a_ @ Ka_))

    f = objective(Ka, a, b)
    steps, extra_done = 0, False
    while True:
        p = xp.expit(Ka + b)
        r = cs * (p - y)  # d loss / d z
        g, r_sum = r + a, float(r.sum())  # the gradient is Z^T g (weights) and r_sum (intercept)
        converged = xp.max_abs(Z.T @ g) / scale <= tol and abs(r_sum) / scale <= tol
        if converged and extra_done:
            break
        if steps >= max_iter:
            warnings.warn(
                f"binary_logistic_dual: no convergence to tol={tol} in {max_iter} Newton steps",
                RuntimeWarning,
                stacklevel=3,
            )
            break
        dsq = xp.sqrt(cs * p * (1.0 - p))
        M = K * dsq[:, None]
        M *= dsq[None, :]
        xp.add_diagonal(M, 1.0)
        factor = xp.cholesky(M)
        v = -(K @ g)
        # E x = D^1/2 M^-1 D^1/2 x for x = 1 and x = v, in one solve
        E1, Ev = (dsq[:, None] * xp.cho_solve(factor, dsq[:, None] * xp.stack_columns([ones, v]))).T
        db = float((-r_sum - E1 @ v) / E1.sum())
        delta = -g - (Ev + db * E1)
        Kdelta = K @ delta
        slope = float(g @ Kdelta + r_sum * db)  # gradient . step (negative)
        t = 1.0
        for _ in range(40):  # backtracking (Armijo), as scikit-learn's line search
            f_new = objective(Ka + t * Kdelta, a + t * delta, b + t * db)
            if f_new <= f + 1e-4 * t * slope or converged or f_new - f <= 1e-14 * abs(f):
                break
            t *= 0.5
        a, b, Ka, f = a + t * delta, b + t * db, Ka + t * Kdelta, f_new
        steps += 1
        extra_done = converged
    return a, b, steps
