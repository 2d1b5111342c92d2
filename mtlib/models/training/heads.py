"""Classifier heads on feature matrices, stored as arrays (never pickled).

Two heads, shared by :func:`mtlib.models.classifier` (heads on frozen
encoders) and :func:`mtlib.models.training.frozen.feature_head` (probes on any features):

- :class:`LinearHead` (``"linear"``): standardised features and a
  scikit-learn logistic regression; kept as ``mean, scale, coef,
  intercept`` arrays (``.npz``), predicted with NumPy;
- :class:`MLPHead` (``"mlp"``): a torch MLP with the given hidden sizes,
  trained by :func:`mtlib.models.training.loop.fit`; weights in ``safetensors``.

Both fit on class indices ``0..k-1`` (``y_idx``); the caller keeps the class
names. Both see their features through :func:`stable_features` (float64)
when fitting and when predicting, and train in float64 with deterministic
solvers: see there why. ``save(folder)`` / ``load_head(folder)`` write and
read a head atomically (arrays first, then the JSON that marks it complete).
"""

from __future__ import annotations

import copy
import io
import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.models.base import softmax
from mtlib.models.training.logistic import binary_logistic_dual
from mtlib.models.training.loop import fit, seed_everything
from mtlib.utils.cache import read_record, record_file, write_record
from mtlib.utils.faces import renamed_attribute, renamed_keywords
from mtlib.utils.inputs import check_seed
from mtlib.utils.threads import limit_threads, threads_for_device

__all__ = ["LinearHead", "MLPHead", "pair_features"]

HEADS = ("linear", "mlp")

#: Version of how heads are fitted and stored; part of every cache key, so a change retrains.
FORMAT = 6

#: Largest gradient entry (scikit-learn's scaling) at which a linear head's fit has converged.
TOL = 1e-10


def stable_features(X: np.ndarray) -> np.ndarray:
    """What every head sees of its features, fitting and predicting: float64.

    Intuition: float32 encoder outputs differ in their last bits between CPU
    kernel sets (AVX-512, AVX2, SSE; 1 or 2 threads: other summation orders).
    A head fitted in float32 by an iterative solver that stops at a loose
    tolerance amplified those bits into different weights, and borderline
    test items flipped (issue 24). Heads now fit in float64 to a tight
    optimum (Newton steps to a gradient of 1e-10 for the linear head), so a kernel
    difference reaches the weights unamplified. Rounding the features to a
    grid (2**-16) was tried and made things worse: a value that straddles a
    grid midpoint moves by a whole quantum, and notebook 01's smoke run then
    moved by 6 cases across kernel sets, against 0 without rounding
    (``benchmarks/pin_spread.py``). Items can still flip in principle:
    ``notebooks/profiles/expected.yaml`` pins model-dependent values with a
    tolerance in items.

    Args:
        X: Features, shape ``(n, d)`` (any float dtype).

    Returns:
        Shape ``(n, d)`` float64, always a new array (callers standardise it in place).

    Examples:
        >>> stable_features(np.ones((2, 3), dtype=np.float32)).dtype
        dtype('float64')
    """
    return np.array(X, dtype=np.float64)  # a copy: never the caller's array


def pair_features(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Features of text pairs from their vectors: ``[u, v, |u - v|, u * v]``.

    Args:
        U: First texts' vectors, shape ``(m, d)``.
        V: Second texts' vectors, shape ``(m, d)``.

    Returns:
        Shape ``(m, 4 d)`` float32.
    """
    U, V = np.asarray(U, np.float32), np.asarray(V, np.float32)
    if U.shape != V.shape or U.ndim != 2:
        raise ValueError(f"U and V must both be (m, d); got {U.shape} and {V.shape}")
    return np.concatenate([U, V, np.abs(U - V), U * V], axis=1)


class LinearHead:
    """Logistic regression on standardised features, as plain arrays (float64).

    Args:
        C: Inverse regularisation strength.
        max_iter: Newton iterations at most (it converges in a few dozen).
        standardize: Scale features to zero mean, unit variance first.
        seed: Passed to scikit-learn.
        class_weight: ``"balanced"`` (weights inversely proportional to class frequencies) or None.
        device: Where a binary head's Newton steps run: a CUDA device (a GPU run) solves there in float64, any
            other device with numpy on the host (the pinned CPU results); multi-class heads, and heads with more
            examples than features, are solved by scikit-learn on the host.
    """

    head = "linear"
    kind = renamed_attribute("LinearHead.kind", "head")

    def __init__(
        self,
        C: float = 1.0,
        max_iter: int = 2000,
        standardize: bool = True,
        seed: int = 0,
        class_weight: str | None = None,
        device: str | None = None,
    ) -> None:
        self.C, self.max_iter, self.standardize, self.seed = float(C), int(max_iter), bool(standardize), seed
        self.class_weight = class_weight
        self.device = device if device is not None and str(device).startswith("cuda") else None
        self.mean_: Any = None
        self.scale_: Any = None
        self.coef_: Any = None
        self.intercept_: Any = None

    def settings(self) -> dict[str, Any]:
        extra = {"class_weight": self.class_weight} if self.class_weight is not None else {}
        return {"C": self.C, "max_iter": self.max_iter, "standardize": self.standardize, "seed": self.seed, **extra}

    def fit(self, X: np.ndarray, y_idx: np.ndarray) -> LinearHead:
        """Fit on ``X (n, d)`` and class indices ``y_idx (n,)`` (every class present).

        Fitted on :func:`stable_features` (float64), standardised, to scikit-learn's ``LogisticRegression``
        optimum with a gradient of at most 1e-10 (deterministic, and the optimum rather than wherever a looser
        tolerance stopped), then kept as its arrays; predictions repeat scikit-learn's float64 arithmetic.
        A binary head with no more examples than features is solved by Newton steps on the examples' span
        (:func:`mtlib.models.training.logistic.binary_logistic_dual`: the same optimum, each step ``n^3 / 3`` instead
        of ``n d^2``; 6-19x faster on SETI's 1,536 pair features, benchmarks/bench_heads.py); otherwise
        scikit-learn's Newton-Cholesky.
        """
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler
        from sklearn.utils.class_weight import compute_sample_weight

        X = stable_features(X)
        if self.standardize:
            scaler = StandardScaler().fit(X)
            self.mean_, self.scale_ = scaler.mean_, scaler.scale_
            X = scaler.transform(X)
        else:
            self.mean_, self.scale_ = np.zeros(X.shape[1]), np.ones(X.shape[1])
        y_idx = np.asarray(y_idx)
        k = int(y_idx.max()) + 1 if len(y_idx) else 0
        if k == 2 and X.shape[0] <= X.shape[1]:
            weights = compute_sample_weight(self.class_weight, y_idx) if self.class_weight is not None else None
            w, b, _ = binary_logistic_dual(
                X, y_idx, self.C, weights, tol=TOL, max_iter=self.max_iter, device=self.device
            )
            self.coef_, self.intercept_ = w[None, :], np.array([b])
            return self
        lr = LogisticRegression(
            C=self.C,
            max_iter=self.max_iter,
            random_state=self.seed,
            solver="newton-cholesky",
            tol=TOL,
            class_weight=self.class_weight,
        ).fit(X, y_idx)
        self.coef_, self.intercept_ = lr.coef_, lr.intercept_
        return self

    def _standardised(self, X: np.ndarray) -> np.ndarray:
        z = stable_features(X)
        z -= self.mean_
        z /= self.scale_
        return z

    def decision(self, X: np.ndarray) -> np.ndarray:
        """scikit-learn's ``decision_function`` on :func:`stable_features`.

        Returns:
            ``(n,)`` for a binary head, else ``(n, k)``.
        """
        d = self._standardised(X) @ self.coef_.T + self.intercept_
        return d.ravel() if self.coef_.shape[0] == 1 else d

    def logits(self, X: np.ndarray) -> np.ndarray:
        """Class scores ``(n, k)`` float64; a binary head gives ``[0, d]`` with d its decision function."""
        d = self.decision(X).astype(np.float64)
        return np.stack([np.zeros_like(d), d], axis=1) if d.ndim == 1 else d

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities ``(n, k)`` (binary: the logistic of the decision function)."""
        from scipy.special import expit
        from sklearn.utils.extmath import softmax as sk_softmax

        d = self.decision(X)
        if d.ndim == 1:
            p = expit(d)
            return np.vstack([1 - p, p]).T
        return sk_softmax(d, copy=False)

    def linear_parts(self, column: int) -> tuple[np.ndarray, float] | None:
        """Weights on the raw features and bias of the logit of ``column`` vs the rest (binary heads), else None.

        (Applied to :func:`stable_features` of the features they give :meth:`logits`.) With
        ``z = (f - mean) / scale`` the logit ``w . z + b`` is ``(w / scale) . f + b - (w / scale) . mean``.
        """
        if self.coef_ is None or self.coef_.shape[0] != 1:
            return None
        w = self.coef_[0] / self.scale_
        b = float(self.intercept_[0] - w @ self.mean_)
        return (w, b) if column == 1 else (-w, -b)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"mean": self.mean_, "scale": self.scale_, "coef": self.coef_, "intercept": self.intercept_}

    def set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        self.mean_, self.scale_ = arrays["mean"], arrays["scale"]
        self.coef_, self.intercept_ = arrays["coef"], arrays["intercept"]


#: An MLP head's training defaults (epochs, learning rate, batch size): written here once, read by
#: :func:`mtlib.models.training.settings.resolved_hyper` for the classifier factory.
MLP_EPOCHS, MLP_LR, MLP_BATCH = 30, 1e-3, 64


class MLPHead:
    """A torch MLP (ReLU between ``hidden`` layers) on standardised :func:`stable_features`, in float64.

    Args:
        hidden: Hidden layer sizes, e.g. ``(500, 100)``.
        epochs, batch_size, lr, weight_decay: Settings of :func:`mtlib.models.training.loop.fit`.
        seed: Seeds initialisation and shuffling.
        device: Where to train (predictions run on CPU). On the CPU, :meth:`fit` trains with one thread in
            torch and in the BLAS pools (:func:`~mtlib.utils.threads.limit_threads`): its many tiny steps only
            wait for each other on more, up to 10x slower on a busy machine; the caller limits nothing.
    """

    head = "mlp"
    kind = renamed_attribute("MLPHead.kind", "head")

    def __init__(
        self,
        hidden: tuple[int, ...] = (500, 100),
        epochs: int = MLP_EPOCHS,
        batch_size: int = MLP_BATCH,
        lr: float = MLP_LR,
        weight_decay: float = 1e-4,
        seed: int = 0,
        device: str = "auto",
    ) -> None:
        self.hidden, self.epochs, self.batch_size = tuple(int(h) for h in hidden), int(epochs), int(batch_size)
        self.lr, self.weight_decay, self.seed, self.device = float(lr), float(weight_decay), seed, device
        self.net: Any = None
        self.mean_: Any = None
        self.scale_: Any = None
        self.k = 0
        self.losses: list[float] = []

    def settings(self) -> dict[str, Any]:
        return {
            "hidden": list(self.hidden),
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "lr": self.lr,
            "weight_decay": self.weight_decay,
            "seed": self.seed,
        }

    def _build(self, d: int, k: int):
        return mlp(d, self.hidden, k).double()

    def fit(self, X: np.ndarray, y_idx: np.ndarray, k: int | None = None, init: MLPHead | None = None) -> MLPHead:
        """Train on ``X (n, d)`` and class indices ``y_idx (n,)``.

        ``init``: continue from this fitted head (its weights, classes and feature scaling) instead of a
        fresh network; ``y_idx`` may then hold one class only.
        """

        import torch
        import torch.nn.functional as F

        X = stable_features(X)
        if init is not None:
            if init.net is None or init.mean_ is None or len(init.mean_) != X.shape[1]:
                raise ValueError(f"MLPHead.fit(init=...): init must be a fitted head on {X.shape[1]} features")
            self.k, self.mean_, self.scale_ = init.k, init.mean_, init.scale_
        else:
            self.k = int(k or (int(np.max(y_idx)) + 1))
            self.mean_, self.scale_ = X.mean(0), X.std(0) + 1e-6
        Xs = torch.as_tensor((X - self.mean_) / self.scale_, dtype=torch.float64)
        yt = torch.as_tensor(np.asarray(y_idx), dtype=torch.long)
        seed_everything(self.seed)
        self.net = copy.deepcopy(init.net) if init is not None else self._build(X.shape[1], self.k)

        def step_loss(net, idx, device):
            return F.cross_entropy(net(Xs[idx].to(device)), yt[idx].to(device))

        with limit_threads(threads_for_device(self.device)):  # many tiny steps: one thread on a CPU, none on a GPU
            log = fit(
                self.net,
                len(Xs),
                step_loss,
                epochs=self.epochs,
                batch_size=self.batch_size,
                lr=self.lr,
                weight_decay=self.weight_decay,
                seed=self.seed,
                device=self.device,
            )
        self.losses = log.losses
        self.net.to("cpu")
        return self

    def logits(self, X: np.ndarray) -> np.ndarray:
        import torch

        if self.net is None:
            raise RuntimeError("MLPHead used before fit or load")
        with torch.inference_mode():
            x = torch.as_tensor((stable_features(X) - self.mean_) / self.scale_, dtype=torch.float64)
            return self.net(x).numpy()

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return softmax(self.logits(X))

    def linear_parts(self, column: int) -> None:
        return None

    def arrays(self) -> dict[str, np.ndarray]:
        return {"mean": self.mean_, "scale": self.scale_}

    def set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        self.mean_, self.scale_ = arrays["mean"], arrays["scale"]


def mlp(d_in: int, hidden: tuple[int, ...], k: int, dropout: float = 0.0):
    """``Linear -> ReLU`` for each hidden size, then ``Linear(k)``; a plain linear layer when ``hidden`` is empty."""
    import torch.nn as nn

    layers: list[Any] = [nn.Dropout(dropout)] if dropout else []
    for h in hidden:
        layers += [nn.Linear(d_in, h), nn.ReLU()]
        d_in = h
    layers.append(nn.Linear(d_in, k))
    return nn.Sequential(*layers)


@renamed_keywords(kind="head")
def make_head(head: str, seed: int = 0, **params: Any) -> LinearHead | MLPHead:
    """A fresh head, ``head`` ``"linear"`` (or its old name ``"logreg"``) or ``"mlp"``, with its settings.

    ``kind=`` is the old keyword of ``head`` (a DeprecationWarning; it goes in the next release).

    Raises:
        ValueError: an unknown head, naming the known ones; a seed outside [0, 2**32 - 1] (naming ``seed``).
    """
    seed = check_seed(seed, "make_head")
    if head in ("linear", "logreg"):
        allowed = {"C", "max_iter", "standardize", "class_weight", "device"}
        return LinearHead(seed=seed, **{k: v for k, v in params.items() if k in allowed})
    if head == "mlp":
        allowed = {"hidden", "epochs", "batch_size", "lr", "weight_decay", "device"}
        return MLPHead(seed=seed, **{k: v for k, v in params.items() if k in allowed})
    raise ValueError(f"unknown head {head!r}; choose one of {HEADS} ('logreg' is an alias of 'linear')")


def save_head(head: LinearHead | MLPHead, folder: Path, meta: dict[str, Any]) -> None:
    """Write ``head.npz`` (+ ``head.safetensors`` for an MLP), then ``head.json`` with their SHA-256.

    The array files are content-addressed (``head.<digest>.npz``; see :func:`mtlib.utils.cache.write_record`).

    Every file is written atomically and ``head.json`` (meta, settings, the
    digests; :func:`mtlib.utils.cache.write_record`) last, so it marks the head complete.
    """
    buf = io.BytesIO()
    arrays: dict[str, Any] = {k: np.asarray(v) for k, v in head.arrays().items()}
    np.savez(buf, **arrays)
    files = {"head.npz": buf.getvalue()}
    if isinstance(head, MLPHead):
        from safetensors.torch import save

        files["head.safetensors"] = save({k: v.detach().cpu().contiguous() for k, v in head.net.state_dict().items()})
    record = {"kind": head.head, "settings": head.settings(), "k": getattr(head, "k", 0), **meta}
    write_record(folder / "head.json", json.loads(json.dumps(record, default=str)), files)


def load_head(folder: Path) -> tuple[LinearHead | MLPHead, dict[str, Any]] | None:
    """Read a head written by :func:`save_head`; None when absent, incomplete or damaged (with a warning).

    Every file's SHA-256 is checked against ``head.json`` first: a flipped
    byte in the coefficients means a retrained head, never other numbers.
    """

    record = read_record(folder / "head.json")
    if record is None:
        return None
    try:
        with np.load(record_file(folder, record, "head.npz"), allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as err:
        warnings.warn(f"mtlib cache: damaged head {folder} ({err}); retraining", stacklevel=2)
        return None
    settings = dict(record["settings"])
    if record["kind"] == "linear":  # the key a saved head has always had (its files are read, not renamed)
        head: LinearHead | MLPHead = LinearHead(**settings)
    else:
        from safetensors.torch import load_file

        head = MLPHead(**{**settings, "hidden": tuple(settings["hidden"])})
        head.k = int(record["k"])
        head.net = head._build(len(arrays["mean"]), head.k)
        try:
            head.net.load_state_dict(load_file(str(record_file(folder, record, "head.safetensors"))))
        except (OSError, RuntimeError, ValueError) as err:
            warnings.warn(f"mtlib cache: damaged head {folder} ({err}); retraining", stacklevel=2)
            return None
        head.net.eval()
    head.set_arrays(arrays)
    return head, record
