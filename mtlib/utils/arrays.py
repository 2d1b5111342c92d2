"""The array namespace mtlib's kernels are written against: numpy on the host, torch on a device.

Intuition: the exact counts (and a linear head's Newton steps) are the same
algebra wherever they run, so :mod:`~mtlib.relations.kernels` (and
:mod:`~mtlib.models.training.logistic`) write each one once, against a namespace
``xp``, in the spirit of the Array API standard (which scikit-learn uses
through array-api-compat). numpy and torch already share what most of the
algebra needs: operators (``@``, ``*``, ``&``, ``~``, comparisons), slicing,
integer-array indexing and assignment, ``.T``, ``.sum(axis)``. A namespace
adds the few operations whose spelling differs (or which the standard lacks:
sums over groups of sorted values, a scatter), and the policy of each side:

- :class:`HostArrays` (``device=None``): numpy, int32 positions while they
  fit (half the memory traffic of the merge levels), int64 sums of counts;
- :class:`TorchArrays` (a torch device string): torch on that device, TF32
  switched off for the products (a TF32 product rounds its inputs to 10 bits
  of mantissa) and int64 positions; integer products run in float64 there
  (CUDA has no int64 matrix product), so their sums must stay below 2**53
  (:func:`mtlib.relations.exactness.check_float64_sums`).

Kernels take validated numpy inputs, move them in with :meth:`asarray` and
hand numpy back with :meth:`to_numpy`, so a result is the same object
whatever the device. torch is imported on first use of a torch namespace:
:mod:`mtlib.relations` still imports without it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from mtlib.utils.batching import resolve_device
from mtlib.utils.threads import limit_threads

__all__ = ["HostArrays", "TorchArrays", "namespace"]


class HostArrays:
    """numpy on the host: the namespace of ``device=None``."""

    name = "numpy"
    on_host = True
    #: Integer products (a count matrix times integer weights) run in int64: exact up to 2**63.
    int_products = True

    def __init__(self) -> None:
        self.int32, self.int64 = np.int32, np.int64
        self.float32, self.float64, self.bool = np.float32, np.float64, np.bool_

    def dtype(self, name: str) -> Any:
        """The dtype named ``"float32"``, ``"float64"``, ``"int32"`` or ``"int64"``."""
        return getattr(self, name)

    def index_dtype(self, n: int) -> Any:
        """The integer dtype of positions among ``n`` items."""
        return np.int32 if n < 2**31 else np.int64

    def asarray(self, x: Any, dtype: Any = None) -> np.ndarray:
        return np.asarray(x, dtype)

    def to_numpy(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def scores(self, x: np.ndarray) -> np.ndarray:
        """Validated scores, as given (only their order matters)."""
        return np.asarray(x)

    def astype(self, x: np.ndarray, dtype: Any) -> np.ndarray:
        return x.astype(dtype, copy=False)

    def zeros(self, shape: int | tuple[int, ...], dtype: Any) -> np.ndarray:
        return np.zeros(shape, dtype)

    def ones(self, shape: int | tuple[int, ...], dtype: Any) -> np.ndarray:
        return np.ones(shape, dtype)

    def arange(self, n: int, dtype: Any = np.int64) -> np.ndarray:
        return np.arange(n, dtype=dtype)

    def argsort(self, x: np.ndarray) -> np.ndarray:
        """Positions that sort ``x`` (equal values in any order: the kernels never rely on it)."""
        return np.argsort(x)

    def cumsum(self, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Inclusive prefix sums of 1-D ``x`` in its own dtype (into ``out`` when given)."""
        return np.cumsum(x, dtype=x.dtype, out=out)

    def diff(self, x: np.ndarray) -> np.ndarray:
        return np.diff(x)

    def repeat(self, x: np.ndarray, k: int) -> np.ndarray:
        """Each entry of 1-D ``x`` ``k`` times in a row."""
        return np.repeat(x, k)

    def where(self, cond: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``x`` where ``cond``, else 0."""
        return np.where(cond, x, 0)

    def vecdot(self, x: np.ndarray, y: np.ndarray, axis: int) -> Any:
        """Sums of ``x * y`` along ``axis`` of 1-D or 2-D arrays (no temporary product)."""
        if x.ndim == 1:
            return x @ y
        return np.einsum("kb,kb->b" if axis == 0 else "bk,bk->b", x, y)

    def scatter(self, values: np.ndarray, dest: np.ndarray) -> np.ndarray:
        """``values[t]`` moved to slot ``dest[t]`` (``dest`` a permutation)."""
        out = np.empty_like(values)
        out[dest] = values
        return out

    def group_sums(self, values: np.ndarray, first: np.ndarray) -> np.ndarray:
        """Sums of the runs of ``values`` along axis 0 that start where ``first`` is True (``first[0]`` is)."""
        return np.add.reduceat(values, np.flatnonzero(first), axis=0)

    @contextlib.contextmanager
    def exact_products(self) -> Iterator[None]:
        """numpy's products are always full precision."""
        yield

    # the dense solver ops of a Newton step (mtlib.models.training.logistic)

    def expit(self, x: np.ndarray) -> np.ndarray:
        """The logistic sigmoid ``1 / (1 + exp(-x))``."""
        from scipy.special import expit  # scipy, imported when a solver first runs

        return expit(x)

    def softplus(self, x: np.ndarray) -> np.ndarray:
        """``log(1 + exp(x))`` without overflow."""
        return np.logaddexp(0.0, x)

    def sqrt(self, x: np.ndarray) -> np.ndarray:
        return np.sqrt(x)

    def max_abs(self, x: np.ndarray) -> float:
        return float(np.max(np.abs(x)))

    def stack_columns(self, columns: list[np.ndarray]) -> np.ndarray:
        """Shape (n, k): the k columns side by side."""
        return np.stack(columns, 1)

    def add_diagonal(self, m: np.ndarray, value: float) -> None:
        """``m[i, i] += value`` for every i, in place."""
        m[np.diag_indices(min(m.shape))] += value

    def cholesky(self, m: np.ndarray) -> Any:
        """The lower Cholesky factor of symmetric positive definite ``m`` (which it may overwrite)."""
        from scipy.linalg import cho_factor  # scipy, imported when a solver first runs

        return cho_factor(m, lower=True, overwrite_a=True, check_finite=False)

    def cho_solve(self, factor: Any, rhs: np.ndarray) -> np.ndarray:
        """``m^-1 rhs`` from :meth:`cholesky`'s factor of ``m``."""
        from scipy.linalg import cho_solve  # scipy, imported when a solver first runs

        return cho_solve(factor, rhs, check_finite=False)

    def solver_threads(self) -> Any:
        """Small dense solves on one BLAS thread (two threads ran them 1.7x to 10x slower, bench_heads.py)."""
        return limit_threads(1, torch_too=False)


class TorchArrays:
    """torch on one device: the namespace of ``device="cpu"``, ``"cuda"``, ``"cuda:1"`` ...

    Args:
        device: A torch device string; refused in the run context's words when it is not there (no CUDA...).
    """

    name = "torch"
    on_host = False
    #: CUDA has no int64 matrix product: integer products run in float64, exact below 2**53.
    int_products = False

    def __init__(self, device: str) -> None:
        import torch  # a heavy package, imported when a count runs on a torch device

        self.torch = torch
        self.device = torch.device(resolve_device(str(device)))
        self.int32, self.int64 = torch.int32, torch.int64
        self.float32, self.float64, self.bool = torch.float32, torch.float64, torch.bool

    def dtype(self, name: str) -> Any:
        """The dtype named ``"float32"``, ``"float64"``, ``"int32"`` or ``"int64"``."""
        return getattr(self, name)

    def index_dtype(self, n: int) -> Any:
        """The integer dtype of positions (torch indexes with int64)."""
        return self.torch.int64

    def asarray(self, x: Any, dtype: Any = None) -> Any:
        if isinstance(x, np.ndarray) and dtype is not None and not isinstance(dtype, self.torch.dtype):
            x = x.astype(dtype)
            dtype = None
        return self.torch.as_tensor(x, dtype=dtype, device=self.device)

    def to_numpy(self, x: Any) -> np.ndarray:
        return x.cpu().numpy()

    def scores(self, x: np.ndarray) -> Any:
        """Validated scores as float64 on the device (torch sorts no unsigned or bool arrays)."""
        return self.torch.as_tensor(np.asarray(x, np.float64), device=self.device)

    def astype(self, x: Any, dtype: Any) -> Any:
        return x.to(dtype)

    def zeros(self, shape: int | tuple[int, ...], dtype: Any) -> Any:
        return self.torch.zeros(shape, dtype=dtype, device=self.device)

    def ones(self, shape: int | tuple[int, ...], dtype: Any) -> Any:
        return self.torch.ones(shape, dtype=dtype, device=self.device)

    def arange(self, n: int, dtype: Any = None) -> Any:
        return self.torch.arange(n, dtype=dtype or self.torch.int64, device=self.device)

    def argsort(self, x: Any) -> Any:
        """Positions that sort ``x`` (stable, though the kernels never rely on it)."""
        return self.torch.argsort(x, stable=True)

    def cumsum(self, x: Any, out: Any = None) -> Any:
        """Inclusive prefix sums of 1-D ``x`` in its own dtype (into ``out`` when given)."""
        if out is None:
            return self.torch.cumsum(x, 0, dtype=x.dtype)
        out.copy_(self.torch.cumsum(x, 0, dtype=x.dtype))
        return out

    def diff(self, x: Any) -> Any:
        return self.torch.diff(x)

    def repeat(self, x: Any, k: int) -> Any:
        """Each entry of 1-D ``x`` ``k`` times in a row."""
        return self.torch.repeat_interleave(x, k)

    def where(self, cond: Any, x: Any) -> Any:
        """``x`` where ``cond``, else 0."""
        return x * cond

    def vecdot(self, x: Any, y: Any, axis: int) -> Any:
        """Sums of ``x * y`` along ``axis``."""
        return (x * y).sum(axis)

    def scatter(self, values: Any, dest: Any) -> Any:
        """``values[t]`` moved to slot ``dest[t]`` (``dest`` a permutation)."""
        out = values.new_empty(values.shape)
        out[dest] = values
        return out

    def group_sums(self, values: Any, first: Any) -> Any:
        """Sums of the runs of ``values`` along axis 0 that start where ``first`` is True (``first[0]`` is)."""
        group = self.torch.cumsum(first.to(self.torch.int64), 0) - 1
        n_groups = int(group[-1]) + 1 if group.numel() else 0
        out = values.new_zeros((n_groups, *values.shape[1:]))
        return out.index_add_(0, group, values)

    @contextlib.contextmanager
    def exact_products(self) -> Iterator[None]:
        """Matrix products in full float32 (no TF32), without autograd, for the duration."""
        backends = self.torch.backends
        matmul, cudnn = backends.cuda.matmul.allow_tf32, backends.cudnn.allow_tf32
        backends.cuda.matmul.allow_tf32 = backends.cudnn.allow_tf32 = False
        try:
            with self.torch.inference_mode():
                yield
        finally:
            backends.cuda.matmul.allow_tf32, backends.cudnn.allow_tf32 = matmul, cudnn

    # the dense solver ops of a Newton step (mtlib.models.training.logistic)

    def expit(self, x: Any) -> Any:
        """The logistic sigmoid ``1 / (1 + exp(-x))``."""
        return self.torch.special.expit(x)

    def softplus(self, x: Any) -> Any:
        """``log(1 + exp(x))`` without overflow."""
        return self.torch.logaddexp(self.torch.zeros_like(x), x)

    def sqrt(self, x: Any) -> Any:
        return self.torch.sqrt(x)

    def max_abs(self, x: Any) -> float:
        return float(x.abs().max())

    def stack_columns(self, columns: list[Any]) -> Any:
        """Shape (n, k): the k columns side by side."""
        return self.torch.stack(columns, 1)

    def add_diagonal(self, m: Any, value: float) -> None:
        """``m[i, i] += value`` for every i, in place."""
        m.diagonal().add_(value)

    def cholesky(self, m: Any) -> Any:
        """The lower Cholesky factor of symmetric positive definite ``m``."""
        return self.torch.linalg.cholesky(m)

    def cho_solve(self, factor: Any, rhs: Any) -> Any:
        """``m^-1 rhs`` from :meth:`cholesky`'s factor of ``m``."""
        return self.torch.cholesky_solve(rhs, factor)

    def solver_threads(self) -> Any:
        """No autograd for the duration (the device decides its own threads)."""
        return self.torch.inference_mode()


def namespace(device: str | None) -> HostArrays | TorchArrays:
    """The arrays a count runs on: numpy on the host for None, else torch on ``device``.

    Example:
        >>> namespace(None).name
        'numpy'
    """
    return HostArrays() if device is None else TorchArrays(device)
