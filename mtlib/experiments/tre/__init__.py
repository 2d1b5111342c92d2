"""Tree Reconstruction Error (TRE) of sentence vectors, and its correlation with tree compositionality.

TRE (Andreas 2019; extended to sentences by Bhathena et al. §4) asks how well
an encoder's sentence vectors ``f(x)`` can be rebuilt from **one learned
vector per word type** (the primitives, shared by every sentence) composed
along the sentence's parse tree by a fixed rule. The primitives (and, for the
learned linear rule, its matrix) are trained with RMSProp to minimise

    Σ_x δ(f(x), compose(d(x)))      with δ = 1 − cosine,

and TRE(x) is δ after training: near 0 when the encoder's vector of x is
what its words add up to, larger when the sentence means more (or other)
than its parts as the encoder sees them.

Composition rules:

- ``"add"`` (default): a node is the sum of its children, so a sentence is
  the sum of its words' primitives whatever the tree; evaluated for every
  sentence at once as one sparse bag-of-words product ``B @ E`` with
  ``B`` of shape ``(n_sentences, n_words)``.
- ``"linear"``: a node is ``W [a; b]`` for its children ``a, b`` (``W`` of
  shape ``(d, 2d)``, learned, initialised to ``[I I]`` so training starts
  from addition); a node with k > 2 children folds left to right, a node
  with one child passes it on. Evaluated level by level over all trees at
  once: every node of height h is one row of a single matrix product.

Either way one optimisation covers the whole data set, with no Python loop
over sentences or nodes per step. :func:`fit_tre_reference` is the naive
per-sentence recursion (compose each tree in Python, sum the losses, one
step) kept for tests and the benchmark; both give the same TRE with the
same initialisation and steps.

**Held-out sentences and unseen words.** With free primitives the fit can
drive training TRE towards 0, so :func:`tre_by_split` fits on a training
part and also scores held-out sentences with the trained primitives. A word
never seen in training has no primitive: by default (``unseen="zero"``) it
contributes the zero vector (under addition it is simply left out), and a
held-out sentence whose words are all unseen gets TRE ``nan``;
``unseen="exclude"`` gives ``nan`` to every held-out sentence with an unseen
word. Both counts are reported.

The correlations of Table 2 (Spearman with a bootstrap interval, and a
partial Spearman controlling for sentence length) are at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch
from scipy import stats as sstats

from mtlib.utils.batching import resolve_device
from mtlib.data.papers import BHATHENA_TABLE2, BHATHENA_TABLE2_SOURCE, BHATHENA_TABLE4
from mtlib.utils.threads import limit_threads
from mtlib.data.trees import Tree, tree_impurity, weighted_node_switching

COMPOSITIONS = ("add", "linear")
UNSEEN = ("zero", "exclude")
EPS = 1e-12

# registry names (and hub ids) of our encoders that are a paper encoder
PAPER_ENCODERS = {"bert-base": "BERT", "bert-base-uncased": "BERT"}


def paper_table2(encoder: str) -> float:
    """The paper's Table 2 correlation for one of our encoders (``nan`` when the paper has none)."""
    return BHATHENA_TABLE2.get(PAPER_ENCODERS.get(encoder, encoder), float("nan"))


def sentence_key(text: str) -> str:
    """Letters and digits only, lower-cased: matches a printed sentence to its tokenised SST form."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def find_paper_examples(trees: Sequence[Tree], *, weight: str = "height", average: str = "mean") -> pd.DataFrame:
    """The paper's Table 4 / Figure 3 sentences found in ``trees``, our TI and WNS beside the printed ones.

    Returns:
        One row per paper sentence: ``source, sentence, found, index`` (row
        in ``trees``), ``ti_paper, ti_ours, wns_paper, wns_ours``.
    """
    where = {}
    for i, t in enumerate(trees):
        where.setdefault(sentence_key(t.sentence), i)
    rows = []
    for text, ti, wns, source in BHATHENA_TABLE4:
        i = where.get(sentence_key(text))
        t = trees[i] if i is not None else None
        rows.append({"source": source, "sentence": text, "found": t is not None, "index": i,
                     "ti_paper": ti, "ti_ours": tree_impurity(t) if t else np.nan,
                     "wns_paper": wns,
                     "wns_ours": weighted_node_switching(t, weight=weight, average=average) if t else np.nan})
    return pd.DataFrame(rows)


def tree_scores(trees: Sequence[Tree], *, weight: str = "height", average: str = "mean") -> pd.DataFrame:
    """Per sentence: ``text, n_words, label`` (root), ``ti``, ``wns`` (``nan`` for one-word sentences)."""
    return pd.DataFrame({
        "text": [t.sentence for t in trees],
        "n_words": [len(t.leaves()) for t in trees],
        "label": [t.label for t in trees],
        "ti": [tree_impurity(t) for t in trees],
        "wns": [weighted_node_switching(t, weight=weight, average=average) for t in trees],
    })


# ---------------------------------------------------------------------------
# Encoding trees once, for the batched objective
# ---------------------------------------------------------------------------


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


def encode_trees(trees: Sequence[Tree], vocab: Sequence[str], dtype: torch.dtype = torch.float32) -> EncodedTrees:
    """Flatten ``trees`` into :class:`EncodedTrees` (one Python pass, done once)."""
    index = {w: i for i, w in enumerate(vocab)}
    unk = len(vocab)
    leaf_ids: list[int] = []
    nodes: list[tuple[int, tuple[str, int], tuple[str, int]]] = []  # (level, left ref, right ref)
    roots: list[tuple[str, int]] = []

    def visit(t: Tree) -> tuple[tuple[str, int], int]:
        """Return (reference, level) of a subtree; a reference is ('leaf', i) or ('node', k)."""
        if t.is_leaf:
            leaf_ids.append(index.get(t.word, unk))
            return ("leaf", len(leaf_ids) - 1), 0
        ref, level = visit(t.children[0])
        for c in t.children[1:]:  # n-ary: fold left to right; unary: pass the child on
            cref, clevel = visit(c)
            level = 1 + max(level, clevel)
            nodes.append((level, ref, cref))
            ref = ("node", len(nodes) - 1)
        return ref, level

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
        levels.append((torch.tensor([resolve(nodes[k][1]) for k in members], dtype=torch.long),
                       torch.tensor([resolve(nodes[k][2]) for k in members], dtype=torch.long)))
    values = torch.ones(len(rows), dtype=dtype)
    bow = torch.sparse_coo_tensor(torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1), values,
                                  (len(trees), len(vocab)), check_invariants=True).coalesce()
    return EncodedTrees(torch.tensor(leaf_ids, dtype=torch.long), levels,
                        torch.tensor([resolve(r) for r in roots], dtype=torch.long), bow,
                        np.array(n_unseen), np.array(n_tokens), len(vocab))


# ---------------------------------------------------------------------------
# The objective
# ---------------------------------------------------------------------------


def cosine_distance(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """δ = 1 − cos per row; ``pred``, ``target`` of shape ``(n, d)`` -> ``(n,)``."""
    dot = (pred * target).sum(-1)
    return 1.0 - dot / (pred.norm(dim=-1) * target.norm(dim=-1)).clamp_min(EPS)


def init_parameters(n_words: int, dim: int, *, composition: str = "add", seed: int = 0, init_scale: float = 1.0,
                    dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Primitives ``(n_words, dim)`` drawn from N(0, init_scale²) and, for ``"linear"``, ``W = [I I]``.

    The same call gives the batched fit and the reference identical starting points.
    """
    if composition not in COMPOSITIONS:
        raise ValueError(f"composition must be one of {COMPOSITIONS}, got {composition!r}")
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


@dataclass
class TREModel:
    """Trained primitives (and composition matrix) with the loss curve.

    Attributes:
        vocab: Word types, row i of ``primitives`` is ``vocab[i]``.
        primitives: ``(n_words, d)``.
        weight: ``(d, 2d)`` for ``"linear"``, else ``None``.
        losses: Summed δ over the training sentences before each step, ``(steps,)``.
        train_tre: δ of each training sentence after the last step, ``(n_train,)``.
    """

    vocab: list[str]
    composition: str
    primitives: torch.Tensor
    weight: torch.Tensor | None
    losses: np.ndarray
    train_tre: np.ndarray
    settings: dict[str, Any] = field(default_factory=dict)

    def errors(self, trees: Sequence[Tree], targets: np.ndarray, *, unseen: str = "zero") -> np.ndarray:
        """TRE of any sentences under the trained primitives, ``(n,)`` (see the module docstring for unseen words)."""
        if unseen not in UNSEEN:
            raise ValueError(f"unseen must be one of {UNSEEN}, got {unseen!r}")
        enc = encode_trees(trees, self.vocab, self.primitives.dtype)
        with torch.no_grad():
            pred = compose_batched(enc, self.primitives, self.weight)
            tre = cosine_distance(pred, torch.as_tensor(np.asarray(targets), dtype=self.primitives.dtype))
        tre = tre.cpu().numpy().astype(float)
        empty = (pred.norm(dim=-1) == 0).cpu().numpy()
        tre[empty | ((enc.n_unseen > 0) if unseen == "exclude" else False)] = np.nan
        return tre


def _check(trees: Sequence[Tree], targets: np.ndarray, steps: int, lr: float) -> np.ndarray:
    targets = np.asarray(targets)
    if targets.ndim != 2 or len(targets) != len(trees):
        raise ValueError(f"targets must be (n_sentences, dim) = ({len(trees)}, d), got {targets.shape}")
    if not np.isfinite(targets).all():
        raise ValueError("targets contain nan/inf (e.g. a word-vector model without some words): drop those "
                         "sentences first (tre_by_split does and counts them)")
    if steps < 0 or lr <= 0:
        raise ValueError(f"need steps >= 0 and lr > 0, got steps={steps}, lr={lr}")
    return targets


def fit_tre(trees: Sequence[Tree], targets: np.ndarray, *, composition: str = "add", steps: int = 400,
            lr: float = 0.01, init_scale: float = 1.0, seed: int = 0, dtype: str = "float32",
            device: str = "cpu", num_threads: int | None = None) -> TREModel:
    """Learn primitives for all ``trees`` at once (batched; see the module docstring).

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
    targets = _check(trees, targets, steps, lr)
    tdtype = getattr(torch, dtype)
    device = resolve_device(device)
    vocab = build_vocabulary(trees)
    enc = encode_trees(trees, vocab, tdtype)
    prim, weight = init_parameters(len(vocab), targets.shape[1], composition=composition, seed=seed,
                                   init_scale=init_scale, dtype=tdtype)
    with limit_threads(num_threads or (1 if composition == "add" else None)):
        return _fit(enc, vocab, prim, weight, targets, composition, steps, lr, device, tdtype,
                    dict(composition=composition, steps=steps, lr=lr, init_scale=init_scale, seed=seed, dtype=dtype))


def _fit(enc: EncodedTrees, vocab: list[str], prim: torch.Tensor, weight: torch.Tensor | None, targets: np.ndarray,
         composition: str, steps: int, lr: float, device: str, tdtype: torch.dtype,
         settings: dict[str, Any]) -> TREModel:
    """The RMSProp loop of :func:`fit_tre`."""
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
    return TREModel(vocab, composition, params[0].detach().cpu(), None if w is None else w.detach().cpu(),
                    losses, train_tre, settings)


def fit_tre_reference(trees: Sequence[Tree], targets: np.ndarray, *, composition: str = "add", steps: int = 400,
                      lr: float = 0.01, init_scale: float = 1.0, seed: int = 0,
                      dtype: str = "float32") -> np.ndarray:
    """The naive per-sentence recursion (for tests and the benchmark): same objective, same steps.

    Each step composes every tree recursively in Python, sums the per-sentence
    losses and takes one RMSProp step. Returns the training TRE ``(n,)``.
    """
    targets = _check(trees, targets, steps, lr)
    tdtype = getattr(torch, dtype)
    vocab = build_vocabulary(trees)
    index = {w: i for i, w in enumerate(vocab)}
    prim, weight = init_parameters(len(vocab), targets.shape[1], composition=composition, seed=seed,
                                   init_scale=init_scale, dtype=tdtype)
    params = [p.requires_grad_() for p in (prim, weight) if p is not None]
    tgt = [torch.as_tensor(row, dtype=tdtype) for row in targets]

    def compose(t: Tree) -> torch.Tensor:
        if t.is_leaf:
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
        loss = sum(delta(t, f) for t, f in zip(trees, tgt))
        loss.backward()
        opt.step()
    with torch.no_grad():
        return np.array([float(delta(t, f)) for t, f in zip(trees, tgt)])


def tre_by_split(trees: Sequence[Tree], targets: np.ndarray, *, heldout_fraction: float = 0.3, seed: int = 0,
                 unseen: str = "zero", extra_trees: Sequence[Tree] = (), extra_targets: np.ndarray | None = None,
                 **fit_kwargs: Any) -> tuple[pd.DataFrame, TREModel]:
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
    if not 0.0 <= heldout_fraction < 1.0:
        raise ValueError(f"heldout_fraction must be in [0, 1), got {heldout_fraction}")
    targets = np.asarray(targets, dtype=np.float64)
    ok = np.isfinite(targets).all(axis=1)
    rng = np.random.default_rng(seed)
    held = np.zeros(len(trees), dtype=bool)
    usable = np.flatnonzero(ok)
    held[rng.permutation(usable)[: int(round(heldout_fraction * len(usable)))]] = True
    train = ok & ~held
    if not train.any():
        raise ValueError("no training sentence left (every target is nan, or the held-out part is everything)")
    out = pd.DataFrame({"split": np.where(~ok, "no target", np.where(held, "heldout", "train")),
                        "tre": np.nan, "n_unseen": 0}, index=pd.RangeIndex(len(trees)))
    tr = np.flatnonzero(train)
    fit_trees, fit_targets = [trees[i] for i in tr], targets[tr]
    if len(extra_trees):
        extra_targets = np.asarray(extra_targets, dtype=np.float64)
        keep = np.flatnonzero(np.isfinite(extra_targets).all(axis=1))
        fit_trees += [extra_trees[i] for i in keep]
        fit_targets = np.concatenate([fit_targets, extra_targets[keep]])
    model = fit_tre(fit_trees, fit_targets, seed=seed, **fit_kwargs)
    out.loc[tr, "tre"] = model.train_tre[: len(tr)]
    ho = np.flatnonzero(held)
    if len(ho):
        ho_trees = [trees[i] for i in ho]
        out.loc[ho, "tre"] = model.errors(ho_trees, targets[ho], unseen=unseen)
        vocab = set(model.vocab)
        out.loc[ho, "n_unseen"] = [sum(w not in vocab for w in t.leaves()) for t in ho_trees]
    return out, model


# ---------------------------------------------------------------------------
# Correlations (Table 2)
# ---------------------------------------------------------------------------


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


def spearman_ci(x: np.ndarray, y: np.ndarray, *, n_boot: int = 1000, seed: int = 0,
                alpha: float = 0.05) -> dict[str, float]:
    """Spearman's ρ with its p-value and a percentile bootstrap interval (sentences resampled).

    Pairs with a ``nan`` are dropped first (their number is ``n_dropped``).

    Returns:
        ``{"rho", "p_value", "ci_low", "ci_high", "n", "n_dropped"}``.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    out = {"rho": np.nan, "p_value": np.nan, "ci_low": np.nan, "ci_high": np.nan, "n": int(keep.sum()),
           "n_dropped": int((~keep).sum())}
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


def partial_spearman(x: np.ndarray, y: np.ndarray, z: np.ndarray, *, n_boot: int = 1000, seed: int = 0,
                     alpha: float = 0.05) -> dict[str, float]:
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
    return {"n": main["n"], "n_dropped": main["n_dropped"], "rho_tre_wns": main["rho"],
            "ci_low": main["ci_low"], "ci_high": main["ci_high"], "p_value": main["p_value"],
            "partial_rho_length": part["rho"], "partial_ci_low": part["ci_low"],
            "partial_ci_high": part["ci_high"], "partial_p_value": part["p_value"],
            "rho_tre_ti": ti["rho"], "rho_tre_ti_p": ti["p_value"],
            "rho_tre_length": spearman_ci(frame[tre], frame["n_words"], n_boot=0)["rho"],
            "rho_wns_length": spearman_ci(frame["wns"], frame["n_words"], n_boot=0)["rho"]}


def table2(frames: dict[str, pd.DataFrame], *, n_boot: int = 1000, seed: int = 0,
           paper_rows: bool = True) -> pd.DataFrame:
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
                rows.append({"encoder": name, "split": split, **table2_row(part, n_boot=n_boot, seed=seed),
                             "paper": paper_table2(name)})
    if paper_rows:
        rows += _paper_rows(frames)
    return pd.DataFrame(rows)


def _paper_rows(encoders: Sequence[str]) -> list[dict[str, Any]]:
    """Table 2 rows of the paper's encoders not among ``encoders`` (their printed value only)."""
    ran = {PAPER_ENCODERS.get(name, name) for name in encoders}
    return [{"encoder": f"{enc} (paper)", "split": "SST dev", "paper": value}
            for enc, value in BHATHENA_TABLE2.items() if enc not in ran]


def sensitivity(trees: Sequence[Tree], targets: np.ndarray, scores: pd.DataFrame, sweeps: dict[str, Sequence],
                *, n_boot: int = 0, seed: int = 0, **settings: Any) -> pd.DataFrame:
    """How ρ(TRE, WNS) moves with the fit's settings, one setting at a time around ``settings``.

    Args:
        trees, targets: As for :func:`tre_by_split` (``extra_trees``/``extra_targets`` go in ``settings``).
        scores: :func:`tree_scores` of the same trees.
        sweeps: Setting name (``steps``, ``lr``, ``init_scale``) -> values to try.
        n_boot: Bootstrap resamples per interval (0: no intervals, faster).
        **settings: The base settings (``heldout_fraction``, ``composition``, ``steps`` ...).

    Returns:
        One row per (setting, value, split): ``setting, value, split, rho_tre_wns,
        ci_low, ci_high, partial_rho_length, tre_mean``.
    """
    rows = []
    for name, values in sweeps.items():
        for value in values:
            per, _ = tre_by_split(trees, targets, seed=seed, **{**settings, name: value})
            frame = scores.join(per)
            for split in ("train", "heldout"):
                part = frame[frame["split"] == split]
                if len(part) < 4:
                    continue
                r = table2_row(part, n_boot=n_boot, seed=seed)
                rows.append({"setting": name, "value": value, "split": split, "rho_tre_wns": r["rho_tre_wns"],
                             "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                             "partial_rho_length": r["partial_rho_length"], "tre_mean": part["tre"].mean()})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# The experiment of notebook 06, as reports
# ---------------------------------------------------------------------------


@dataclass
class GroundTruth:
    """The trees of a run and their ground-truth compositionality scores (:func:`ground_truth`).

    Attributes:
        trees: The scored sentences.
        extra: Sentences that only join the TRE fit (``fit_path``).
        scores: :func:`tree_scores` of ``trees`` (``text, n_words, label, ti, wns``).
        examples: :func:`find_paper_examples` (the paper's Table 4 / Figure 3 sentences).
        source: Where the trees come from (for sentences).
    """

    trees: list[Tree]
    extra: list[Tree]
    scores: pd.DataFrame
    examples: pd.DataFrame
    source: str = ""
    headline: tuple[str, ...] = ()

    def metrics(self) -> dict[str, Any]:
        """Counts, mean TI and WNS, and rho(TI, WNS), rho(WNS, length) (no model involved)."""
        sc = self.scores
        return {"n_sentences": len(self.trees), "n_word_types": len(build_vocabulary(self.trees)),
                "n_one_word": int(sc["wns"].isna().sum()), "n_fit_only": len(self.extra),
                "ti_mean": sc["ti"].mean(), "wns_mean": sc["wns"].mean(),
                "spearman_ti_wns": spearman_ci(sc["ti"], sc["wns"], n_boot=0)["rho"],
                "spearman_wns_length": spearman_ci(sc["wns"], sc["n_words"], n_boot=0)["rho"],
                "paper_examples_found": int(self.examples["found"].sum())}

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"paper_examples": self.examples}

    def summary(self) -> str:
        """Two sentences on the data and on how TI, WNS and length relate."""
        m, sc = self.metrics(), self.scores
        return (f"{m['n_sentences']} sentences, {m['n_word_types']} word types, {sc['n_words'].mean():.1f} words on "
                f"average; {m['n_one_word']} one-word sentences have no WNS; {m['n_fit_only']} more sentences for "
                f"the fit.\nrho(TI, WNS) = {m['spearman_ti_wns']:+.3f}; rho(WNS, length) = "
                f"{m['spearman_wns_length']:+.3f}")

    def figure(self):
        """Histograms of TI, WNS and sentence length."""
        from mtlib.analysis import plots

        return plots.histograms(self.scores, ["ti", "wns", "n_words"], labels=["Tree Impurity",
                                "Weighted Node Switching", "words"],
                                title=f"Ground-truth scores of {len(self.trees)} sentences")

    def examples_note(self) -> str:
        found = int(self.examples["found"].sum())
        return f"{found} of {len(self.examples)} paper sentences are in {self.source} ({BHATHENA_TABLE2_SOURCE})"

    def examples_view(self) -> pd.DataFrame:
        """The paper sentences found (rounded), or the list of them when none is in the data."""
        found = self.examples[self.examples["found"]]
        return found.round(2) if len(found) else self.examples[["source", "sentence", "ti_paper", "wns_paper"]]


def ground_truth(data_path: str, *, fit_path: str = "", max_sentences: int = 0, weight: str = "height",
                 average: str = "mean") -> GroundTruth:
    """Load a PTB tree file (and optional fit-only trees) and score every tree's TI and WNS.

    Args:
        data_path: Tree file, absolute or relative to ``data/`` (``trees/dev.txt``, SST's ``dev.txt``).
        fit_path: Optional second tree file whose sentences only join the TRE fit.
        max_sentences: Keep at most this many sentences of each file, in file order (0 keeps all).
        weight, average: WNS variant (:func:`mtlib.data.trees.weighted_node_switching`).
    """
    from mtlib.data.sst import load_sst_trees

    trees = list(load_sst_trees(data_path, binary=False)["tree"])[: max_sentences or None]
    extra = list(load_sst_trees(fit_path, binary=False)["tree"])[: max_sentences or None] if fit_path else []
    return GroundTruth(trees, extra, tree_scores(trees, weight=weight, average=average),
                       find_paper_examples(trees, weight=weight, average=average), str(data_path))


@dataclass
class TREReport:
    """One encoder's TRE on a :class:`GroundTruth` and its Table 2 rows (:func:`tree_reconstruction`).

    Metric keys (no model prefix): ``tre_mean/<split>``, ``sentences/<split>`` (``train``, ``heldout``,
    ``no_target``),
    ``heldout_with_unseen``, ``tre_mean_all_seen/heldout``, and per split
    (``train``, ``heldout``) ``spearman_tre_wns/<split>``,
    ``spearman_tre_ti/<split>``, ``partial_spearman_tre_wns/<split>``,
    ``spearman_tre_wns_p/<split>``; ``fit_seconds``.

    Attributes:
        model: The encoder's name.
        frame: Per sentence: the ground truth's scores with ``split``, ``tre``, ``n_unseen``.
        fit: The trained primitives.
        targets, extra_targets: The encoder's vectors of the scored and of the fit-only sentences.
        table: Table 2 rows of this encoder (:func:`table2_row` per split, ``paper``).
        settings: The fit's settings (``composition``, ``steps``, ``heldout_fraction`` ...).
        seconds: Duration of the fit.
    """

    model: str
    frame: pd.DataFrame
    fit: TREModel
    targets: np.ndarray
    extra_targets: np.ndarray
    table: pd.DataFrame
    settings: dict[str, Any]
    seconds: float = 0.0

    @property
    def split(self) -> str:
        """The split the headline correlation is read on: held-out sentences when there are any."""
        return "heldout" if (self.frame["split"] == "heldout").any() else "train"

    @property
    def headline(self) -> list[str]:
        return [f"spearman_tre_wns/{self.split}"]

    def seen_heldout(self) -> pd.Series:
        """TRE of the held-out sentences whose every word was seen in the fit."""
        f = self.frame
        return f.loc[(f["split"] == "heldout") & (f["n_unseen"] == 0), "tre"]

    def metrics(self) -> dict[str, Any]:
        f = self.frame
        out: dict[str, Any] = {f"tre_mean/{s}": float(f.loc[f["split"] == s, "tre"].mean()) for s in ("train", "heldout")}
        out.update({f"sentences/{s.replace(' ', '_')}": int(n) for s, n in f["split"].value_counts().items()})
        out["heldout_with_unseen"] = int((f["n_unseen"] > 0).sum())
        out["tre_mean_all_seen/heldout"] = float(self.seen_heldout().mean())
        for r in self.table.dropna(subset=["rho_tre_wns"]).itertuples():
            out.update({f"spearman_tre_wns/{r.split}": r.rho_tre_wns, f"spearman_tre_ti/{r.split}": r.rho_tre_ti,
                        f"partial_spearman_tre_wns/{r.split}": r.partial_rho_length,
                        f"spearman_tre_wns_p/{r.split}": r.p_value})
        out["fit_seconds"] = self.seconds
        return out

    def summary(self) -> str:
        """Mean TRE per split, the held-out mean over sentences with every word seen, the final loss."""
        f, seen = self.frame, self.seen_heldout()
        return (f"{self.model}: mean TRE train {f.loc[f['split'] == 'train', 'tre'].mean():.5f}, held-out "
                f"{f.loc[f['split'] == 'heldout', 'tre'].mean():.5f}, held-out with every word seen "
                f"{seen.mean():.5f} (n={len(seen)}); final training loss "
                f"{self.fit.losses[-1] if len(self.fit.losses) else float('nan'):.4f}; fit {self.seconds:.1f} s")


def tree_reconstruction(model: Any, truth: GroundTruth, *, seed: int = 0, n_boot: int = 1000,
                        device: str = "auto", **settings: Any) -> TREReport:
    """TRE of one encoder on ``truth``'s trees and its correlation with WNS and TI (Table 2).

    Args:
        model: Registry name, hub id or path (loaded with :func:`mtlib.models.load`), or a loaded model.
        truth: :func:`ground_truth`.
        seed: Seeds the split, the initialisation and the bootstraps.
        n_boot: Bootstrap resamples of each correlation interval.
        device: Torch device of the encoder and of the fit.
        **settings: The fit's settings for :func:`tre_by_split` (``composition``, ``steps``, ``lr``,
            ``init_scale``, ``unseen``, ``heldout_fraction``).
    """
    import time

    import mtlib

    name = model if isinstance(model, str) else getattr(model, "name", type(model).__name__)
    encoder = mtlib.models.load(model, device=device) if isinstance(model, str) else model
    targets = encoder.embed(list(truth.scores["text"]))
    extra_targets = encoder.embed([t.sentence for t in truth.extra])
    t0 = time.perf_counter()
    per, fit = tre_by_split(truth.trees, targets, seed=seed, extra_trees=truth.extra, extra_targets=extra_targets,
                            device=device, **settings)
    seconds = time.perf_counter() - t0
    frame = truth.scores.join(per)
    table = table2({name: frame}, n_boot=n_boot, seed=seed, paper_rows=False)
    return TREReport(name, frame, fit, np.asarray(targets), np.asarray(extra_targets), table,
                     {**settings, "device": device, "seed": seed}, seconds)


def table2_from(reports: Mapping[str, TREReport], *, paper_rows: bool = True) -> pd.DataFrame:
    """Table 2 of several encoders: their rows, then the paper's encoders not run (printed value only)."""
    rows = [r.table for r in reports.values()]
    if paper_rows:
        rows.append(pd.DataFrame(_paper_rows(list(reports))))
    return pd.concat([r for r in rows if len(r)], ignore_index=True)


def scatter_figure(reports: Mapping[str, TREReport]):
    """TRE against WNS, one panel per encoder, coloured by split, with the held-out rho in each panel."""
    from mtlib.analysis import plots

    long = pd.concat([r.frame.assign(encoder=name) for name, r in reports.items()]).query("split != 'no target'")
    notes = {name: f"held-out rho {row.rho_tre_wns:+.3f}" for name, r in reports.items()
             for row in r.table.query("split == 'heldout'").itertuples()}
    return plots.scatter_panels(long, x="wns", y="tre", panel="encoder", hue="split", notes=notes,
                                title="TRE against Weighted Node Switching", xlabel="WNS", ylabel="TRE (1 - cos)")


def sweep(report: TREReport, truth: GroundTruth, *, steps: Sequence[int] = (), lr: Sequence[float] = (),
          init_scale: Sequence[float] = ()) -> pd.DataFrame:
    """:func:`sensitivity` around ``report``'s fit: one setting at a time (empty lists are skipped).

    Reuses the report's encoder vectors, so no model is called.
    """
    sweeps = {k: list(v) for k, v in (("steps", steps), ("lr", lr), ("init_scale", init_scale)) if len(v)}
    base = {k: v for k, v in report.settings.items() if k != "seed"}
    return sensitivity(truth.trees, report.targets, truth.scores, sweeps, seed=report.settings.get("seed", 0),
                       extra_trees=truth.extra, extra_targets=report.extra_targets, **base)


def sweep_figure(table: pd.DataFrame, model: str):
    """rho(TRE, WNS) against each swept setting (:func:`sweep`), one line per split."""
    from mtlib.analysis import plots

    return plots.sweep_lines(table, x="value", y="rho_tre_wns", hue="split", panel="setting",
                             title=f"rho(TRE, WNS) against the fit's settings ({model})", ylabel="Spearman rho")


def extreme_trees(truth: GroundTruth, report: TREReport, n: int = 1) -> list[tuple[str, Tree, str]]:
    """The ``n`` trees at each end by WNS and by ``report``'s TRE (held-out sentences with every word seen,
    when there are held-out sentences), as ``(name, tree, title)`` for :func:`mtlib.analysis.plots.tree_drawing`."""
    sc, first = truth.scores, report.frame
    pool = first.loc[report.seen_heldout().index] if report.split == "heldout" else first
    picks = {"wns_high": sc["wns"].nlargest(n).index, "wns_low": sc["wns"].nsmallest(n).index,
             "tre_high": pool["tre"].nlargest(n).index, "tre_low": pool["tre"].nsmallest(n).index}
    return [(f"tree_{tag}_{k}", truth.trees[i],
             f"{tag}: TI {sc.at[i, 'ti']:.2f}, WNS {sc.at[i, 'wns']:.2f}, TRE ({report.model}) {first.at[i, 'tre']:.3f}")
            for tag, index in picks.items() for k, i in enumerate(index)]


def table4_examples(truth: GroundTruth, reports: Mapping[str, TREReport], n: int = 4) -> pd.DataFrame:
    """Table 4 style: the ``n`` sentences with the highest and lowest WNS and TI, with each encoder's TRE and split."""
    sc = truth.scores
    ends = [sc[c].nlargest(n).index for c in ("wns", "ti")] + [sc[c].nsmallest(n).index for c in ("wns", "ti")]
    out = sc.loc[ends[0].append(ends[1:]).unique(), ["text", "n_words", "ti", "wns"]]
    for name, r in reports.items():
        out[f"tre {name}"] = r.frame.loc[out.index, "tre"]
        out[f"split {name}"] = r.frame.loc[out.index, "split"]
    return out


def describe(table: pd.DataFrame) -> list[str]:
    """Sentences that state what a Table 2 (from :func:`table2_row` rows with ``encoder``, ``split``) shows.

    The direction is read from the 95% interval: below 0, above 0, or containing 0.
    """
    out = []
    for r in table.itertuples():
        if str(r.encoder).endswith("(paper)"):
            continue
        if not np.isfinite(r.rho_tre_wns):
            out.append(f"{r.encoder} ({r.split}): no correlation (fewer than 3 usable sentences).")
            continue
        where = ("negative (the interval lies below 0: in the paper's reading, compositional)" if r.ci_high < 0
                 else "positive (the interval lies above 0)" if r.ci_low > 0 else "not distinguishable from 0")
        paper = f"; the paper reports {r.paper:+.3f}" if np.isfinite(r.paper) else ""
        out.append(f"{r.encoder} ({r.split}, n={int(r.n)}): ρ(TRE, WNS) = {r.rho_tre_wns:+.3f} "
                   f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}], {where}; controlling for length "
                   f"{r.partial_rho_length:+.3f}; ρ(TRE, TI) = {r.rho_tre_ti:+.3f}{paper}.")
    return out


__all__ = [
    "COMPOSITIONS", "EncodedTrees", "GroundTruth", "TREModel", "TREReport", "extreme_trees", "ground_truth",
    "scatter_figure", "sweep", "sweep_figure", "table2_from", "table4_examples", "tree_reconstruction",
    "build_vocabulary", "compose_batched", "cosine_distance", "describe", "encode_trees", "find_paper_examples",
    "fit_tre", "fit_tre_reference", "init_parameters", "paper_table2", "partial_spearman", "sensitivity",
    "sentence_key", "spearman_ci", "table2", "table2_row", "tre_by_split", "tree_scores",
]
