"""The naive per-sentence TRE fit, for the tests and the benchmark (``benchmarks/bench_tre.py``).

Each step composes every tree recursively in Python, sums the per-sentence
losses and takes one RMSProp step: the approach of the reference TRE
implementation (Andreas 2019) extended to trees. Same objective, same
initialisation (:func:`mtlib.analysis.tree_reconstruction.init_parameters`) and
steps as the batched :func:`~mtlib.analysis.tree_reconstruction.fit_tre`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import torch

from mtlib.analysis.tree_reconstruction import build_vocabulary, cosine_distance, init_parameters
from mtlib.data.trees import Tree


def fit_tre_reference(
    trees: Sequence[Tree],
    targets: np.ndarray,
    *,
    composition: str = "add",
    steps: int = 400,
    lr: float = 0.01,
    init_scale: float = 1.0,
    seed: int = 0,
    dtype: str = "float32",
) -> np.ndarray:
    """The naive per-sentence recursion: same objective, same steps. Returns the training TRE ``(n,)``."""
    targets = np.asarray(targets)
    tdtype = getattr(torch, dtype)
    vocab = build_vocabulary(trees)
    index = {w: i for i, w in enumerate(vocab)}
    prim, weight = init_parameters(
        len(vocab), targets.shape[1], composition=composition, seed=seed, init_scale=init_scale, dtype=tdtype
    )
    params = [p.requires_grad_() for p in (prim, weight) if p is not None]
    tgt = [torch.as_tensor(row, dtype=tdtype) for row in targets]

    def compose(t: Tree) -> torch.Tensor:
        if t.word is not None:  # a leaf
            return prim[index[t.word]]
        out = compose(t.children[0])
        for c in t.children[1:]:
            out = out + compose(c) if weight is None else weight @ torch.cat([out, compose(c)])
        return out

    def delta(t: Tree, f: torch.Tensor) -> torch.Tensor:
        return cosine_distance(compose(t)[None], f[None])[0]

    opt = torch.optim.RMSprop(params, lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        loss = cast(torch.Tensor, sum(delta(t, f) for t, f in zip(trees, tgt)))
        loss.backward()
        opt.step()
    with torch.no_grad():
        return np.array([float(delta(t, f)) for t, f in zip(trees, tgt)])
