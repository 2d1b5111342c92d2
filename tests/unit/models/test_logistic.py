"""The dual Newton solver of binary logistic regression reaches scikit-learn's optimum."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from mtlib.models.training.heads import LinearHead
from mtlib.models.training.logistic import binary_logistic_dual


def _problem(n: int, d: int, seed: int, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) / np.sqrt(d) + 0.5 * rng.standard_normal(n) > shift).astype(int)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize(
    ("n", "d", "C", "balanced", "shift"),
    [
        (60, 200, 1.0, False, 0.0),  # n < d: separable, the penalty bounds the weights
        (120, 120, 0.1, True, 0.8),  # n = d, unbalanced classes, balanced weights
        (40, 300, 100.0, False, 0.0),  # weak penalty: large margins, tiny logistic variances
        (300, 20, 1.0, False, 0.3),  # n > d works too (LinearHead uses scikit-learn there)
    ],
)
def test_dual_newton_reaches_scikit_learns_optimum(n: int, d: int, C: float, balanced: bool, shift: float) -> None:
    Z, y = _problem(n, d, seed=n + d, shift=shift)
    weights = (n / (2.0 * np.bincount(y)))[y] if balanced else None
    ref = LogisticRegression(
        C=C, solver="newton-cholesky", tol=1e-12, max_iter=500, class_weight="balanced" if balanced else None
    ).fit(Z, y)
    w, b, steps = binary_logistic_dual(Z, y, C, weights, tol=1e-12)
    scale = max(1.0, float(np.abs(ref.coef_).max()))
    assert np.abs(w - ref.coef_[0]).max() <= 1e-8 * scale
    assert abs(b - ref.intercept_[0]) <= 1e-8 * scale
    assert 1 <= steps <= 60
    # the gradient of the objective C * sum s_i loss_i + |w|^2 / 2 vanishes
    s = np.ones(n) if weights is None else weights
    p = 1.0 / (1.0 + np.exp(-(Z @ w + b)))
    grad = C * Z.T @ (s * (p - y)) + w
    assert np.abs(grad).max() <= 1e-8 * C * s.sum()


def test_linear_head_takes_the_dual_path_and_predicts_as_scikit_learn() -> None:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 150)).astype(np.float32) * rng.uniform(0.1, 5.0, 150).astype(np.float32)
    y = (X[:, :5].sum(axis=1) > 0).astype(int)
    head = LinearHead(C=0.5).fit(X, y)
    Z = StandardScaler().fit_transform(X.astype(np.float64))  # the head standardises float64 features
    ref = LogisticRegression(C=0.5, solver="newton-cholesky", tol=1e-10).fit(Z, y)
    assert head.coef_.shape == (1, 150) and head.intercept_.shape == (1,)
    assert np.allclose(head.coef_, ref.coef_, atol=1e-8)
    assert np.allclose(head.decision(X), ref.decision_function(Z), atol=1e-8)


def test_running_out_of_steps_is_said() -> None:
    Z, y = _problem(50, 80, seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        binary_logistic_dual(Z, y, 1.0, max_iter=1)
    assert any("no convergence" in str(w.message) for w in caught)


def test_the_linear_solver_takes_the_same_newton_steps_in_torch() -> None:
    """A GPU run solves a binary linear head in torch float64: on the CPU device it matches numpy to 1e-12."""
    pytest.importorskip("torch")

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(120, 300))
    y = (Z[:, 0] + rng.normal(size=120) > 0).astype(int)
    weights = np.where(y == 1, 2.0, 0.5)
    for sample_weight in (None, weights):
        w_np, b_np, steps_np = binary_logistic_dual(Z, y, 0.1, sample_weight)
        w_t, b_t, steps_t = binary_logistic_dual(Z, y, 0.1, sample_weight, device="cpu")
        assert steps_t == steps_np
        np.testing.assert_allclose(w_t, w_np, atol=1e-12)
        assert abs(b_t - b_np) < 1e-12
