"""Every ordered pair of a vocabulary through a siamese head, in matrix form.

Intuition: a siamese network (``architecture="siamese"``) encodes each text on
its own, so a vocabulary of ``n`` words needs ``n`` encoder passes, not
``n (n - 1)``; only its head sees pairs. A linear head on
``[u, v, |u - v|, u * v]`` splits, for class ``c`` with weights
``[a_c, b_c, d_c, p_c]``, into a row term ``W a_c + bias_c``, a column term
``W b_c``, a bilinear term ``(W * p_c) W^T`` and an ``|w_i - w_j| . d_c`` term
computed in row blocks: the ``(n, n, k)`` logits of 2.5 million pairs cost a
few matrix products (seconds on a CPU). Any other head (an MLP) is called on
the pair features of a block of rows at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtlib.models.training.networks import pair_features_torch

__all__ = ["pair_logit_matrix"]


def linear_layer(head: Any) -> Any:
    """The one ``nn.Linear`` of a head that is linear once dropout is off, else None."""
    from torch import nn

    layers = list(head) if isinstance(head, nn.Sequential) else [head]
    linear = [m for m in layers if isinstance(m, nn.Linear)]
    others = [m for m in layers if not isinstance(m, (nn.Linear, nn.Dropout))]
    return linear[0] if len(linear) == 1 and not others else None


def pair_logit_matrix(head: Any, W: np.ndarray, *, block: int = 32) -> np.ndarray:
    """``L[i, j] = head([w_i, w_j, |w_i - w_j|, w_i * w_j])`` for every ordered pair, shape ``(n, n, k)`` float32.

    Args:
        head: A torch module on ``4 d`` pair features giving ``k`` logits (a siamese classifier's
            :meth:`~mtlib.models.training.finetune.FineTunedClassifier.head_module`); read on the CPU in eval
            mode, never moved.
        W: One vector per word, shape ``(n, d)`` (the classifier's ``embed``).
        block: Rows per block (the ``(block, n, d)`` difference buffer bounds the memory).

    Returns:
        The logits of every ordered pair, the diagonal (a word with itself) included.
    """
    import copy

    import torch

    X = torch.as_tensor(np.asarray(W, np.float32))
    n, d = X.shape
    out = np.empty((n, n, 0), np.float32)
    linear = linear_layer(head)
    with torch.inference_mode():
        if linear is not None:
            weight, bias = linear.weight.detach().float().cpu(), linear.bias.detach().float().cpu()
            if weight.shape[1] != 4 * d:
                raise ValueError(f"head has {weight.shape[1]} inputs; pair features of {d}-d vectors have {4 * d}")
            a, b, dd, p = weight[:, :d], weight[:, d : 2 * d], weight[:, 2 * d : 3 * d], weight[:, 3 * d :]
            rows, cols = X @ a.T + bias, X @ b.T  # (n, k) each
            out = np.empty((n, n, weight.shape[0]), np.float32)
            for lo in range(0, n, block):
                hi = min(lo + block, n)
                bilinear = torch.einsum("id,kd,jd->ijk", X[lo:hi], p, X)
                diff = (X[lo:hi, None, :] - X[None, :, :]).abs() @ dd.T
                out[lo:hi] = (rows[lo:hi, None, :] + cols[None, :, :] + bilinear + diff).numpy()
            return out
        head = copy.deepcopy(head).float().cpu().eval()  # the classifier's own head stays where it is
        for lo in range(0, n, block):
            hi = min(lo + block, n)
            u = X[lo:hi, None, :].expand(hi - lo, n, d)
            v = X[None, :, :].expand(hi - lo, n, d)
            logits = head(pair_features_torch(u, v)).float().numpy()
            if out.shape[2] != logits.shape[2]:
                out = np.empty((n, n, logits.shape[2]), np.float32)
            out[lo:hi] = logits
    return out
