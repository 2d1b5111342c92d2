"""Tree Reconstruction Error (TRE): how well sentence vectors are rebuilt from word vectors along parse trees.

TRE (Andreas 2019; extended to sentences by Bhathena et al. §4) asks how well
an encoder's sentence vectors ``f(x)`` can be rebuilt from **one learned
vector per word type** (the primitives, shared by every sentence) composed
along the sentence's parse tree by a fixed rule. The primitives (and, for the
learned linear rule, its matrix) are trained with RMSProp to minimise
``Σ_x δ(f(x), compose(d(x)))`` with ``δ = 1 − cosine``; TRE(x) is δ after
training: near 0 when the encoder's vector of x is what its words add up to.

Composition rules: ``"add"`` (a node is the sum of its children: one sparse
bag-of-words product ``B @ E`` for every sentence at once) and ``"linear"``
(a node is ``W [a; b]``, ``W`` of shape ``(d, 2d)`` initialised to ``[I I]``;
a node with k > 2 children folds left to right, a unary node passes its child
on; evaluated level by level over all trees, one matrix product per height).
One optimisation covers the whole data set, with no Python loop over
sentences or nodes per step (:func:`fit_tre`). The naive per-sentence
recursion it is checked against lives in the tests.

With free primitives the fit can drive training TRE towards 0, so
:func:`fit_tre_heldout` fits on a training part and scores held-out sentences
with the trained primitives. A word never seen in the fit contributes the
zero vector (``unseen="zero"``; a held-out sentence of unseen words only gets
``nan``) or removes its sentence (``unseen="exclude"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch

from mtlib.data.trees import Tree
from mtlib.models.inference.oov import known_rows
from mtlib.relations.errors import check_count, refuse
from mtlib.utils.batching import resolve_device
from mtlib.utils.faces import renamed, renamed_attribute, renamed_keywords
from mtlib.utils.threads import limit_threads

__all__ = ["TREModel", "build_vocabulary", "encode_trees", "fit_tre_heldout", "heldout_split", "init_parameters"]

COMPOSITIONS = ("add", "linear")
UNSEEN = ("zero", "exclude")
EPS = 1e-12


def build_vocabulary(trees: Sequence[Tree]) -> list[str]:
    """The word types of ``trees``, sorted (row i of the primitives is word i)."""
    return sorted({w for t in trees for w in t.leaves()})


@dataclass
class EncodedTrees:
    """Trees as index arrays over one node table (built once, used at every step).

    The node table has the pre-terminals first (``leaf_ids`` rows), then the
    binary composition nodes level by level. Word id ``n_words`` stands for a
    word outside the vocabulary (its vector is zero).

    Attributes:
        leaf_ids: ``(n_leaves,)`` word id of every pre-terminal, all sentences.
        levels: Per level h = 1, 2, ...: ``(left, right)`` node-table indices
            of the children of the level's nodes, each ``(m_h,)``.
        roots: ``(n,)`` node-table index of each sentence's root.
        bow: ``(n, n_words)`` sparse word counts (seen words only).
        n_unseen: ``(n,)`` tokens outside the vocabulary per sentence.
        n_tokens: ``(n,)`` tokens per sentence.
    """

    leaf_ids: torch.Tensor
    levels: list[tuple[torch.Tensor, torch.Tensor]]
    roots: torch.Tensor
    bow: torch.Tensor
    n_unseen: np.ndarray
    n_tokens: np.ndarray
    n_words: int

    def to(self, device: Any) -> EncodedTrees:
        """The same trees with every index tensor on ``device`` (the counts stay numpy arrays)."""
        return EncodedTrees(
            self.leaf_ids.to(device),
            [(left.to(device), right.to(device)) for left, right in self.levels],
            self.roots.to(device),
            self.bow.to(device),
            self.n_unseen,
            self.n_tokens,
            self.n_words,
        )


def encode_trees(trees: Sequence[Tree], vocab: Sequence[str], dtype: torch.dtype = torch.float32) -> EncodedTrees:
    """Flatten ``trees`` into :class:`EncodedTrees` (one Python pass, done once)."""
    index = {w: i for i, w in enumerate(vocab)}
    unk = len(vocab)
    leaf_ids: list[int] = []
    nodes: list[tuple[int, tuple[str, int], tuple[str, int]]] = []  # (level, left ref, right ref)
    roots: list[tuple[str, int]] = []

    def visit(root: Tree) -> tuple[tuple[str, int], int]:
        """Return (reference, level) of a subtree; a reference is ('leaf', i) or ('node', k).

        Children are folded left to right (n-ary), a unary node passes its child on. Iterative, with
        an explicit stack of ``[node, next child, reference so far, level so far]``, so a tree of any
        depth is encoded without recursion, leaves and nodes numbered as a recursive walk would.
        """
        stack: list[list] = [[root, 0, None, 0]]
        done: tuple[tuple[str, int], int] | None = None  # what the frame just popped returned
        while stack:
            frame = stack[-1]
            t = frame[0]
            if t.word is not None:  # a leaf
                leaf_ids.append(index.get(t.word, unk))
                done = (("leaf", len(leaf_ids) - 1), 0)
                stack.pop()
                continue
            if done is not None:  # back from child frame[1] - 1
                cref, clevel = done
                done = None
                if frame[1] == 1:
                    frame[2], frame[3] = cref, clevel
                else:
                    frame[3] = 1 + max(frame[3], clevel)
                    nodes.append((frame[3], frame[2], cref))
                    frame[2] = ("node", len(nodes) - 1)
            if frame[1] < len(t.children):
                frame[1] += 1
                stack.append([t.children[frame[1] - 1], 0, None, 0])
                continue
            done = (frame[2], frame[3])
            stack.pop()
        assert done is not None
        return done

    rows, cols, n_unseen, n_tokens = [], [], [], []
    for i, t in enumerate(trees):
        words = t.leaves()
        ids = [index[w] for w in words if w in index]
        rows += [i] * len(ids)
        cols += ids
        n_unseen.append(len(words) - len(ids))
        n_tokens.append(len(words))
        roots.append(visit(t)[0])

    n_leaves = len(leaf_ids)
    order = sorted(range(len(nodes)), key=lambda k: nodes[k][0])  # stable: by level
    position = np.empty(len(nodes), dtype=np.int64)
    position[order] = n_leaves + np.arange(len(nodes))

    def resolve(ref: tuple[str, int]) -> int:
        return ref[1] if ref[0] == "leaf" else int(position[ref[1]])

    levels = []
    for level in sorted({lv for lv, _, _ in nodes}):
        members = [k for k in order if nodes[k][0] == level]
        levels.append(
            (
                torch.tensor([resolve(nodes[k][1]) for k in members], dtype=torch.long),
                torch.tensor([resolve(nodes[k][2]) for k in members], dtype=torch.long),
            )
        )
    values = torch.ones(len(rows), dtype=dtype)
    bow = torch.sparse_coo_tensor(
        torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1),
        values,
        (len(trees), len(vocab)),
        check_invariants=True,
    ).coalesce()
    return EncodedTrees(
        torch.tensor(leaf_ids, dtype=torch.long),
        levels,
        torch.tensor([resolve(r) for r in roots], dtype=torch.long),
        bow,
        np.array(n_unseen),
        np.array(n_tokens),
        len(vocab),
    )


def cosine_distance(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """δ = 1 − cos per row; ``pred``, ``target`` of shape ``(n, d)`` -> ``(n,)``."""
    dot = (pred * target).sum(-1)
    return 1.0 - dot / (pred.norm(dim=-1) * target.norm(dim=-1)).clamp_min(EPS)


def init_parameters(
    n_words: int,
    dim: int,
    *,
    composition: str = "add",
    seed: int = 0,
    init_scale: float = 1.0,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Primitives ``(n_words, dim)`` drawn from N(0, init_scale²) and, for ``"linear"``, ``W = [I I]``.

    The same call gives the batched fit and the naive reference identical starting points.
    """
    if composition not in COMPOSITIONS:
        raise ValueError(f"composition must be one of {COMPOSITIONS}, got {composition!r}")
    _check_positive(init_scale, "init_scale")
    gen = torch.Generator().manual_seed(seed)
    prim = (torch.randn(n_words, dim, generator=gen, dtype=torch.float64) * init_scale).to(dtype)
    weight = torch.cat([torch.eye(dim, dtype=dtype)] * 2, dim=1) if composition == "linear" else None
    return prim, weight


def compose_batched(enc: EncodedTrees, prim: torch.Tensor, weight: torch.Tensor | None) -> torch.Tensor:
    """Every sentence's composed vector, ``(n, d)``: one sparse product, or one matmul per tree level."""
    if weight is None:
        return torch.sparse.mm(enc.bow, prim)
    table = torch.cat([prim, prim.new_zeros(1, prim.shape[1])])[enc.leaf_ids]
    for left, right in enc.levels:
        new = torch.cat([table[left], table[right]], dim=1) @ weight.T
        table = torch.cat([table, new])
    return table[enc.roots]


@renamed_keywords(settings="options")
@dataclass
class TREModel:
    """Trained primitives (and composition matrix) with the loss curve.

    Attributes:
        vocab: Word types, row i of ``primitives`` is ``vocab[i]``.
        primitives: ``(n_words, d)``.
        weight: ``(d, 2d)`` for ``"linear"``, else ``None``.
        losses: Summed δ over the training sentences before each step, ``(steps,)``.
        train_tre: δ of each training sentence after the last step, ``(n_train,)``.
        options: The fit's options (composition, steps, lr, init_scale, seed, dtype); ``settings`` is its
            deprecated name, as a keyword and an attribute (a :class:`DeprecationWarning`; goes in the next release).
    """

    vocab: list[str]
    composition: str
    primitives: torch.Tensor
    weight: torch.Tensor | None
    losses: np.ndarray
    train_tre: np.ndarray
    options: dict[str, Any] = field(default_factory=dict)

    settings = renamed_attribute("TREModel.settings", "options")

    def errors(self, trees: Sequence[Tree], targets: np.ndarray, *, unseen: str = "zero") -> np.ndarray:
        """TRE of any sentences under the trained primitives, ``(n,)`` (see the module docstring for unseen words)."""
        if unseen not in UNSEEN:
            raise ValueError(f"unseen must be one of {UNSEEN}, got {unseen!r}")
        enc = encode_trees(trees, self.vocab, self.primitives.dtype)
        with torch.no_grad():
            pred = compose_batched(enc, self.primitives, self.weight)
            delta = cosine_distance(pred, torch.as_tensor(np.asarray(targets), dtype=self.primitives.dtype))
        tre = delta.cpu().numpy().astype(float)
        empty = (pred.norm(dim=-1) == 0).cpu().numpy()
        tre[empty | ((enc.n_unseen > 0) if unseen == "exclude" else False)] = np.nan
        return tre


def _check_inputs(trees: Sequence[Tree], targets: np.ndarray, steps: int, lr: float) -> np.ndarray:
    """``targets`` as an array if it is ``(len(trees), d)`` and finite, ``steps`` a count and ``lr`` > 0."""
    targets = np.asarray(targets)
    if targets.ndim != 2 or len(targets) != len(trees):
        raise ValueError(f"targets must be (n_sentences, dim) = ({len(trees)}, d), got {targets.shape}")
    if not np.isfinite(targets).all():
        raise ValueError(
            "targets contain nan/inf (e.g. a word-vector model without some words): drop those "
            "sentences first (fit_tre_heldout does and counts them)"
        )
    check_count(steps, "fit_tre", "steps")
    _check_positive(lr, "lr")
    return targets


def _check_positive(value: Any, argument: str) -> float:
    """A finite number above 0 (``nan`` and ``inf`` would make every TRE ``nan`` without a word)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise refuse("fit_tre", argument, "a finite number > 0", value)
    if not (np.isfinite(value) and value > 0):
        raise refuse("fit_tre", argument, "a finite number > 0", value)
    return float(value)


def fit_tre(
    trees: Sequence[Tree],
    targets: np.ndarray,
    *,
    composition: str = "add",
    steps: int = 400,
    lr: float = 0.01,
    init_scale: float = 1.0,
    seed: int = 0,
    dtype: str = "float32",
    device: str = "auto",
    num_threads: int | None = None,
) -> TREModel:
    """Learn primitives for all ``trees`` at once (batched full-batch RMSProp; see the module docstring).

    Args:
        trees: Parsed sentences.
        targets: Sentence vectors ``(n, d)``, one per tree.
        composition: ``"add"`` or ``"linear"``.
        steps: RMSProp steps (full batch).
        lr: RMSProp learning rate (``alpha=0.99``, ``eps=1e-8``: torch's defaults).
        init_scale: Standard deviation of the normal initialisation.
        seed: Seeds the initialisation.
        dtype: ``"float32"`` or ``"float64"``.
        device: Torch device for the optimisation (``"auto"``: cuda, then mps, then cpu).
        num_threads: CPU threads during the fit; ``None`` uses 1 for ``"add"`` (its
            operations are small: on a busy 2-core machine, two threads made each step
            about 10x slower than one) and torch's setting for ``"linear"``.

    Returns:
        A :class:`TREModel` (parameters moved back to the CPU).
    """
    targets = _check_inputs(trees, targets, steps, lr)
    tdtype = getattr(torch, dtype)
    device = resolve_device(device)
    vocab = build_vocabulary(trees)
    enc = encode_trees(trees, vocab, tdtype)
    prim, weight = init_parameters(
        len(vocab), targets.shape[1], composition=composition, seed=seed, init_scale=init_scale, dtype=tdtype
    )
    options = dict(composition=composition, steps=steps, lr=lr, init_scale=init_scale, seed=seed, dtype=dtype)
    with limit_threads(num_threads or (1 if composition == "add" else None)):
        params = [p.to(device).requires_grad_() for p in (prim, weight) if p is not None]
        enc.bow, enc.leaf_ids, enc.roots = enc.bow.to(device), enc.leaf_ids.to(device), enc.roots.to(device)
        enc.levels = [(a.to(device), b.to(device)) for a, b in enc.levels]
        tgt = torch.as_tensor(targets, dtype=tdtype, device=device)
        opt = torch.optim.RMSprop(params, lr=lr)
        losses = np.zeros(steps)
        w = params[1] if composition == "linear" else None
        for step in range(steps):
            opt.zero_grad()
            loss = cosine_distance(compose_batched(enc, params[0], w), tgt).sum()
            loss.backward()
            opt.step()
            losses[step] = loss.item()
        with torch.no_grad():
            train_tre = cosine_distance(compose_batched(enc, params[0], w), tgt).cpu().numpy().astype(float)
        primitives, weight_out = params[0].detach().cpu(), None if w is None else w.detach().cpu()
        return TREModel(vocab, composition, primitives, weight_out, losses, train_tre, options)


def heldout_split(targets: np.ndarray, heldout_fraction: float, seed: int) -> np.ndarray:
    """Which sentences train the primitives and which are held out and scored with them.

    A sentence whose target vector has nan/inf (a word-vector encoder that knows none of its words) gets
    ``"no target"``; of the others, ``round(heldout_fraction * n)`` drawn at random (seeded) are ``"heldout"``,
    the rest ``"train"``.

    Args:
        targets: Sentence vectors ``(n, d)``.
        heldout_fraction: Share of the usable sentences held out, in [0, 1) (0: the paper's protocol).
        seed: Seeds the draw.

    Returns:
        ``(n,)`` array of ``"train"``, ``"heldout"`` or ``"no target"``.

    Raises:
        ValueError: ``heldout_fraction`` outside [0, 1), or no training sentence left.

    Example:
        >>> heldout_split(np.array([[1.0], [2.0], [np.nan], [3.0]]), 0.5, seed=0).tolist()
        ['heldout', 'train', 'no target', 'heldout']
    """
    if not 0.0 <= heldout_fraction < 1.0:
        raise ValueError(f"heldout_fraction must be in [0, 1), got {heldout_fraction}")
    ok = known_rows(np.asarray(targets, dtype=np.float64))
    held = np.zeros(len(ok), dtype=bool)
    usable = np.flatnonzero(ok)
    held[np.random.default_rng(seed).permutation(usable)[: int(round(heldout_fraction * len(usable)))]] = True
    if not (ok & ~held).any():
        raise ValueError("no training sentence left (every target is nan, or the held-out part is everything)")
    return np.where(~ok, "no target", np.where(held, "heldout", "train"))


def fit_tre_heldout(
    trees: Sequence[Tree],
    targets: np.ndarray,
    *,
    heldout_fraction: float,
    seed: int,
    unseen: str,
    extra_trees: Sequence[Tree] = (),
    extra_targets: np.ndarray | None = None,
    **fit_kwargs: Any,
) -> tuple[pd.DataFrame, TREModel]:
    """Fit TRE on a random training part and score the held-out part with the trained primitives.

    Sentences whose target has nan/inf (a word-vector model missing a word)
    are left out with split ``"no target"``.

    Args:
        trees, targets: All sentences and their vectors ``(n, d)``.
        heldout_fraction: Share of sentences held out (0 fits and scores all, the paper's protocol).
        seed: Seeds the split and the initialisation.
        unseen: ``"zero"`` or ``"exclude"`` for held-out words never seen in training.
        extra_trees, extra_targets: More sentences that only join the fit (e.g. SST train when
            ``trees`` is SST dev), so that more held-out words have a primitive; not returned.
        **fit_kwargs: Passed to :func:`fit_tre` (composition, steps, lr, init_scale, dtype, device).

    Returns:
        ``(per_sentence, model)``: ``per_sentence`` indexed like ``trees``
        with ``split`` (train / heldout / no target), ``tre`` and ``n_unseen``.
    """
    targets = np.asarray(targets, dtype=np.float64)
    split = heldout_split(targets, heldout_fraction, seed)
    held = split == "heldout"
    out = pd.DataFrame({"split": split, "tre": np.nan, "n_unseen": 0}, index=pd.RangeIndex(len(trees)))
    tr = np.flatnonzero(split == "train")
    fit_trees, fit_targets = [trees[int(i)] for i in tr], targets[tr]
    if len(extra_trees):
        extra_targets = np.asarray(extra_targets, dtype=np.float64)
        keep = np.flatnonzero(known_rows(extra_targets))
        fit_trees += [extra_trees[int(i)] for i in keep]
        fit_targets = np.concatenate([fit_targets, extra_targets[keep]])
    model = fit_tre(fit_trees, fit_targets, seed=seed, **fit_kwargs)
    out.loc[tr, "tre"] = model.train_tre[: len(tr)]
    ho = np.flatnonzero(held)
    if len(ho):
        ho_trees = [trees[int(i)] for i in ho]
        out.loc[ho, "tre"] = model.errors(ho_trees, targets[ho], unseen=unseen)
        vocab = set(model.vocab)
        out.loc[ho, "n_unseen"] = [sum(w not in vocab for w in t.leaves()) for t in ho_trees]
    return out, model


tre_by_split = renamed(fit_tre_heldout, "tre_by_split")  # the old name, for one release
