"""Three-way transitivity of a lexical-relation model (Manino et al. 2022, §6.1).

Intuition: a model that reads lexical relations off word pairs predicts, for
every ordered pair ``(x_i, x_j)`` of a vocabulary, two Boolean outputs:
``v_syn`` (x_i and x_j are synonyms) and ``v_hyp`` (x_j is a hypernym of
x_i). Both relations are transitive in language, so an internally consistent
model obeys ``v(x_i, x_j) and v(x_j, x_k) => v(x_i, x_k)`` on every ordered
triple of distinct words. No gold label is needed: the model's own
predictions are tested against each other.

Everything the test needs is the ``n x n`` Boolean *prediction matrix* of each
relation; :mod:`mtlib.counting` then counts all ``n (n - 1) (n - 2)`` triples
exactly with matrix products. This module builds those matrices for two kinds
of model:

- the quick model (:class:`FrozenPairHeads`): word vectors from a frozen
  encoder and one logistic-regression head per relation on the pair features
  ``[u, v, |u - v|, u * v]``. Its matrix is computed in matrix form, never by
  ``n^2`` head calls (:func:`prediction_matrix`): the head's logit splits into
  a row term, a column term, a bilinear term and an ``|u - v|`` term;
- the paper's model (:class:`FineTunedPairClassifier`): a transformer
  fine-tuned on word pairs given as sentence pairs (Wachowiak et al. 2020
  fine-tuned ``xlm-roberta-large``), with two binary heads on a shared
  encoder. Its matrix costs one forward pass per ordered pair, so it is built
  only when ``n (n - 1) <= max_pairs``; otherwise the paper's sampled
  procedure (:func:`sampled_transitivity`) predicts only the pairs that random
  triples need.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
import pandas as pd

from mtlib import stats
from mtlib.counting import sample_triples
from mtlib.data.cogalex import stable_split
from mtlib.models.heads import pair_features
from mtlib.probes import Head, train_head
from mtlib.relations import RelationResult, ThreeWayTransitivity

#: The two heads: short name -> relation label in the data.
RELATIONS: dict[str, str] = {"syn": "SYN", "hyp": "HYP"}

#: Manino et al. Table 5: proportion of violated triples (fine-tuned XLM-R, CogALex-VI test words).
TABLE5: dict[str, tuple[float, float]] = {
    "english": (0.809, 0.723),
    "german": (0.760, 0.713),
    "chinese": (0.610, 0.606),
    "italian": (0.659, 0.741),
}

TRAIN_SPLITS = ("train",)
TEST_SPLITS = ("test", "gold")


# ---------------------------------------------------------------------------
# Data helpers
# ---------------------------------------------------------------------------


def table5_frame() -> pd.DataFrame:
    """The paper's Table 5: index ``language``, columns ``syn`` and ``hyp``."""
    frame = pd.DataFrame.from_dict(TABLE5, orient="index", columns=list(RELATIONS))
    frame.index.name = "language"
    return frame


def split_pairs(pairs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training pairs and gold test pairs of one language.

    CogALex-VI: ``train`` trains, ``gold`` tests (``validgold`` is unused);
    bundled data: ``train`` / ``test``. A file with test pairs only (a
    CogALex-V ``gold_task2.txt``) is split by the stable pair hash of
    :func:`mtlib.data.cogalex.stable_split`, 75% train.

    Args:
        pairs: ``word1, word2, relation, split`` as returned by
            :func:`mtlib.data.cogalex.load_lexical_relations`.

    Returns:
        ``(train, test)``, each with a fresh index.
    """
    train = pairs[pairs["split"].isin(TRAIN_SPLITS)]
    test = pairs[pairs["split"].isin(TEST_SPLITS)]
    if train.empty:
        hashed = np.array([stable_split(a, b) for a, b in zip(pairs["word1"], pairs["word2"])])
        train, test = pairs[hashed == "train"], pairs[hashed == "test"]
    return train.reset_index(drop=True), test.reset_index(drop=True)


def vocabulary(pairs: pd.DataFrame, max_words: int = 0, seed: int = 0) -> list[str]:
    """The distinct words of a set of pairs, in order of first appearance.

    Args:
        pairs: Frame with ``word1`` and ``word2``.
        max_words: Keep a random subset of this many words (0 keeps all);
            the subset keeps the order of first appearance.
        seed: Seeds the subset.

    Returns:
        The words, shape ``(n,)`` as a list.
    """
    words = list(dict.fromkeys(w for pair in zip(pairs["word1"], pairs["word2"]) for w in pair))
    if max_words and max_words < len(words):
        keep = np.sort(np.random.default_rng(seed).choice(len(words), size=max_words, replace=False))
        words = [words[i] for i in keep]
    return words


def relation_labels(pairs: pd.DataFrame, relation: str) -> np.ndarray:
    """Binary gold labels of one head: ``relation`` is ``"syn"`` or ``"hyp"``.

    Every other label (RANDOM, ANT, PART_OF, the other relation) is negative.

    Returns:
        Shape ``(m,)`` bool.
    """
    return (pairs["relation"] == RELATIONS[relation]).to_numpy()


# ---------------------------------------------------------------------------
# Prediction matrices from pair features
# ---------------------------------------------------------------------------


def _positive_column(classes: np.ndarray, positive: Any) -> int:
    where = np.flatnonzero(np.asarray(classes) == positive)
    if len(where) == 0:
        raise KeyError(f"head has no class {positive!r}; classes are {list(classes)}")
    return int(where[0])


def _linear_parts(head: Any, positive: Any) -> tuple[np.ndarray, float] | None:
    """Weights on the raw pair features and the bias of a binary linear head, or None.

    ``head`` is a :class:`mtlib.probes.Head`, a classifier from
    :func:`mtlib.models.classifier` (its ``head``), or a bare
    :class:`mtlib.models.heads.LinearHead` (then ``positive`` is the column).
    """
    if hasattr(head, "linear_parts") and hasattr(head, "classes_"):
        return head.linear_parts(positive)
    if hasattr(head, "linear_parts"):
        return head.linear_parts(int(positive))
    return None


def _abs_difference_term(W: np.ndarray, beta: np.ndarray, block: int, tile: int) -> np.ndarray:
    """``D[i, j] = |W[i] - W[j]| . beta`` for all pairs, shape ``(n, n)`` float64.

    Row blocks of ``block`` rows against column tiles of ``tile`` columns keep
    the ``(block, tile, d)`` buffer in cache; ``D`` is symmetric, so only
    tiles on or above the diagonal are computed and then mirrored.
    """
    n, d = W.shape
    W = np.ascontiguousarray(W, np.float32)
    beta32 = beta.astype(np.float32)
    D = np.zeros((n, n), np.float64)
    buf = np.empty((block, tile, d), np.float32)
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        for c in range(lo, n, tile):
            ce = min(c + tile, n)
            diff = buf[: hi - lo, : ce - c]
            np.subtract(W[lo:hi, None, :], W[None, c:ce, :], out=diff)
            np.abs(diff, out=diff)
            D[lo:hi, c:ce] = diff @ beta32
    return np.triu(D) + np.triu(D, 1).T


def pair_probability_matrix(head: Any, W: np.ndarray, *, positive: Any = True, block: int = 4,
                            tile: int = 256) -> np.ndarray:
    """``P[i, j] = P(positive | pair_features(w_i, w_j))`` for every ordered pair.

    A binary logistic head (optionally behind StandardScalers, as
    :func:`mtlib.probes.train_head` builds it) is evaluated in matrix form:
    with ``beta = [b1, b2, b3, b4]`` its weights on ``[u, v, |u - v|, u * v]``
    after folding in the scaler, the logit is ``c + W b1`` (a row term)
    ``+ W b2`` (a column term) ``+ (W * b4) @ W.T`` (a bilinear term)
    ``+ |w_i - w_j| . b3`` (computed in blocks with broadcasting). Any
    other head (an MLP) is called on all pairs of a block of rows at once.
    The diagonal is 0.

    Args:
        head: A :class:`mtlib.probes.Head`, or a fitted scikit-learn
            estimator with ``predict_proba`` and ``classes_``.
        W: Word vectors, shape ``(n, d)``.
        positive: The class whose probability is returned.
        block: Rows per block.
        tile: Columns per tile of the ``|u - v|`` term.

    Returns:
        Shape ``(n, n)`` float64.
    """
    from scipy.special import expit

    W = np.asarray(W, np.float32)
    n, d = W.shape
    parts = _linear_parts(head, positive)
    if parts is not None:
        w, c = parts
        if w.shape != (4 * d,):
            raise ValueError(f"head has {w.shape[0]} weights; pair features of {d}-d vectors have {4 * d}")
        b1, b2, b3, b4 = w.reshape(4, d)
        W64 = W.astype(np.float64)
        logits = c + (W64 @ b1)[:, None] + (W64 @ b2)[None, :] + (W64 * b4) @ W64.T
        logits += _abs_difference_term(W, b3, block, tile)
        P = expit(logits)
    else:
        col = _positive_column(head.classes_, positive)
        rows = max(1, (1 << 22) // max(1, n * 4 * d))
        P = np.empty((n, n), np.float64)
        for lo in range(0, n, rows):
            hi = min(lo + rows, n)
            X = pair_features(np.repeat(W[lo:hi], n, axis=0), np.tile(W, (hi - lo, 1)))
            P[lo:hi] = head.predict_proba(X)[:, col].reshape(hi - lo, n)
    np.fill_diagonal(P, 0.0)
    return P


def prediction_matrix(head: Any, W: np.ndarray, threshold: float = 0.5, *, positive: Any = True,
                      block: int = 4, tile: int = 256) -> np.ndarray:
    """The Boolean prediction matrix ``adj[i, j] = P(head | w_i, w_j) > threshold``.

    See :func:`pair_probability_matrix` for how it is computed (n = 2,000
    words of d = 384 in about a second on two CPU cores).

    Args:
        head: A binary head on :func:`pair_features`.
        W: Word vectors, shape ``(n, d)``.
        threshold: Decision threshold on the positive probability.

    Returns:
        Shape ``(n, n)`` bool, diagonal False.
    """
    adj = pair_probability_matrix(head, W, positive=positive, block=block, tile=tile) > threshold
    np.fill_diagonal(adj, False)
    return adj


# ---------------------------------------------------------------------------
# The quick model: frozen word vectors and one head per relation
# ---------------------------------------------------------------------------


@dataclass
class FrozenPairHeads:
    """Word vectors from a frozen encoder and one binary head per relation.

    Attributes:
        name: The encoder's name.
        encoder: A :class:`mtlib.models.Model` with ``embed``.
        heads: Relation (``syn``, ``hyp``) -> trained :class:`mtlib.probes.Head`.
        memo: Word -> vector, filled by :meth:`vectors` (one ``embed`` call
            per batch of new words).
    """

    name: str
    encoder: Any
    heads: dict[str, Head]
    memo: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def vectors(self, words: Sequence[str]) -> np.ndarray:
        """Word vectors, shape ``(n, d)``; each unique word is encoded once."""
        words = list(words)
        new = [w for w in dict.fromkeys(words) if w not in self.memo]
        if new:
            self.memo.update(zip(new, np.asarray(self.encoder.embed(new), np.float32)))
        if not words:
            return np.zeros((0, next(iter(self.memo.values())).shape[0] if self.memo else 0), np.float32)
        return np.stack([self.memo[w] for w in words])

    def predict_pairs(self, words_i: Sequence[str], words_j: Sequence[str],
                      batch_size: int = 0) -> dict[str, np.ndarray]:
        """Positive probability of each head for each pair, ``{relation: (m,)}``."""
        X = pair_features(self.vectors(words_i), self.vectors(words_j))
        return {rel: head.score(X, True) for rel, head in self.heads.items()}

    def prediction_matrices(self, words: Sequence[str], threshold: float = 0.5) -> dict[str, np.ndarray]:
        """``{relation: (n, n) bool}`` in matrix form (:func:`prediction_matrix`)."""
        W = self.vectors(words)
        return {rel: prediction_matrix(head, W, threshold) for rel, head in self.heads.items()}


def train_frozen_heads(encoder: Any, train: pd.DataFrame, test: pd.DataFrame | None = None, *,
                       kind: str = "logreg", seed: int = 0, **params: Any) -> FrozenPairHeads:
    """Train the two heads on the pair features of an encoder's word vectors.

    Args:
        encoder: A :class:`mtlib.models.Model` (``embed``), e.g. ``minilm``.
        train: Training pairs (``word1, word2, relation``).
        test: Gold test pairs for the heads' held-out accuracy (``None``: a
            stratified 20% of ``train`` is held out instead).
        kind: ``"logreg"`` (matrix-form predictions) or ``"mlp"``.
        seed: Seeds the heads.
        **params: Passed to :func:`mtlib.probes.train_head` (e.g. ``C=0.5``).

    Returns:
        The :class:`FrozenPairHeads`.
    """
    model = FrozenPairHeads(getattr(encoder, "name", "encoder"), encoder, {})
    model.vectors(vocabulary(train if test is None else pd.concat([train, test])))  # one embed call
    X = pair_features(model.vectors(train["word1"]), model.vectors(train["word2"]))
    X_te = None if test is None else pair_features(model.vectors(test["word1"]), model.vectors(test["word2"]))
    for rel in RELATIONS:
        y_te = None if test is None else relation_labels(test, rel)
        model.heads[rel] = train_head(X, relation_labels(train, rel), kind=kind, seed=seed, X_test=X_te,
                                      y_test=y_te, **params)
    return model


# ---------------------------------------------------------------------------
# The paper's model: a fine-tuned pair classifier with two binary heads
# ---------------------------------------------------------------------------


def _pair_module(encoder: Any, n_heads: int, pooling: str) -> Any:
    """A torch module: shared encoder, pooled representation, one logit per head."""
    import torch
    from torch import nn

    class PairClassifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.dropout = nn.Dropout(0.1)
            self.heads = nn.Linear(encoder.config.hidden_size, n_heads)

        def forward(self, **enc: Any) -> torch.Tensor:
            """Logits, shape ``(batch, n_heads)``."""
            hidden = self.encoder(**enc).last_hidden_state  # (batch, tokens, hidden)
            if pooling == "first":
                pooled = hidden[:, 0]
            else:
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
            return self.heads(self.dropout(pooled))

    return PairClassifier()


@dataclass
class FineTunedPairClassifier:
    """A transformer fine-tuned on word pairs, with two binary heads.

    Attributes:
        name: The base model's name or path.
        module: The torch module (encoder + heads), in eval mode.
        tokenizer: The base model's tokenizer; a pair is ``tokenizer(w1, w2)``.
        device: Where the module lives.
        relations: Head order of the logits.
        max_length: Truncation length in tokens.
        losses: Mean training loss per epoch.
    """

    name: str
    module: Any
    tokenizer: Any
    device: str
    relations: tuple[str, ...] = tuple(RELATIONS)
    max_length: int = 32
    losses: list[float] = field(default_factory=list)

    def _encode(self, words_i: Sequence[str], words_j: Sequence[str]) -> dict[str, Any]:
        enc = self.tokenizer(list(words_i), list(words_j), padding=True, truncation=True,
                             max_length=self.max_length, return_tensors="pt")
        return {k: v.to(self.device) for k, v in enc.items()}

    def predict_pairs(self, words_i: Sequence[str], words_j: Sequence[str],
                      batch_size: int = 256) -> dict[str, np.ndarray]:
        """Positive probability of each head for each pair, ``{relation: (m,)}``, in batches."""
        import torch

        from mtlib.batching import inference_context, progress_bar

        words_i, words_j = list(words_i), list(words_j)
        m = len(words_i)
        out = np.zeros((m, len(self.relations)), np.float32)
        bar = progress_bar(m, f"pairs {self.name}")
        self.module.eval()
        for lo in range(0, m, batch_size):
            hi = min(lo + batch_size, m)
            with inference_context(self.device):
                logits = self.module(**self._encode(words_i[lo:hi], words_j[lo:hi]))
                out[lo:hi] = torch.sigmoid(logits.float()).cpu().numpy()
            if bar is not None:
                bar.update(hi - lo)
        if bar is not None:
            bar.close()
        return {rel: out[:, r] for r, rel in enumerate(self.relations)}

    def prediction_matrices(self, words: Sequence[str], threshold: float = 0.5,
                            batch_size: int = 256) -> dict[str, np.ndarray]:
        """``{relation: (n, n) bool}`` from one prediction per ordered pair ``i != j``."""
        words = list(words)
        n = len(words)
        i, j = np.nonzero(~np.eye(n, dtype=bool))
        probs = self.predict_pairs([words[a] for a in i], [words[b] for b in j], batch_size)
        mats = {}
        for rel, p in probs.items():
            adj = np.zeros((n, n), bool)
            adj[i, j] = p > threshold
            mats[rel] = adj
        return mats


def finetune_pair_classifier(name_or_path: str, train: pd.DataFrame, *, epochs: int = 3, batch_size: int = 32,
                             lr: float = 2e-5, seed: int = 0, device: str = "auto", pooling: str = "first",
                             max_length: int = 32, warmup_fraction: float = 0.1) -> FineTunedPairClassifier:
    """Fine-tune a transformer on word pairs with two binary heads (syn, hyp).

    The Wachowiak et al. (2020) setup: the pair is a sentence pair
    (``<s> w1 </s></s> w2 </s>`` for XLM-R), the first token's last hidden
    state (or the mean of all tokens) feeds a linear layer with one logit per
    relation, and the loss is the binary cross-entropy summed over the two
    heads. Training is :func:`mtlib.training.fit` (seeded, AdamW, warm-up).

    Args:
        name_or_path: Registry name, hub id or local folder (resolved offline
            first by :func:`mtlib.models.resolve`); loaded fresh, so the
            shared model of :func:`mtlib.models.load` is never modified.
        train: Training pairs (``word1, word2, relation``).
        epochs, batch_size, lr, warmup_fraction: Training settings.
        seed: Seeds the heads' initialisation, dropout and shuffling.
        device: ``"auto"`` or an explicit device.
        pooling: ``"first"`` (first token) or ``"mean"``.
        max_length: Truncation length of a tokenised pair.

    Returns:
        The trained :class:`FineTunedPairClassifier` (in eval mode on ``device``).
    """
    import torch
    import torch.nn.functional as F
    from transformers import AutoModel, AutoTokenizer

    from mtlib.batching import resolve_device
    from mtlib.models import resolve
    from mtlib.training import fit, seed_everything

    if pooling not in ("first", "mean"):
        raise ValueError(f"pooling must be 'first' or 'mean', got {pooling!r}")
    path = resolve(name_or_path).path
    device = resolve_device(device)
    tokenizer = AutoTokenizer.from_pretrained(path)
    seed_everything(seed)
    module = _pair_module(AutoModel.from_pretrained(path), len(RELATIONS), pooling)
    clf = FineTunedPairClassifier(str(name_or_path), module, tokenizer, device, max_length=max_length)
    words1, words2 = list(train["word1"]), list(train["word2"])
    targets = torch.as_tensor(np.stack([relation_labels(train, r) for r in RELATIONS], 1), dtype=torch.float32)

    def step_loss(net: Any, idx: np.ndarray, dev: str) -> Any:
        logits = net(**clf._encode([words1[i] for i in idx], [words2[i] for i in idx]))
        loss = F.binary_cross_entropy_with_logits(logits.float(), targets[idx].to(dev), reduction="none")
        return loss.mean(0).sum()  # summed over the two heads

    log = fit(module, len(train), step_loss, epochs=epochs, batch_size=batch_size, lr=lr, seed=seed,
              device=device, warmup_fraction=warmup_fraction)
    clf.losses = log.losses
    return clf


# ---------------------------------------------------------------------------
# One interface for both models
# ---------------------------------------------------------------------------

PairModel = Union[FrozenPairHeads, FineTunedPairClassifier]


def predict_pairs(model: PairModel, words_i: Sequence[str], words_j: Sequence[str],
                  batch_size: int = 256) -> dict[str, np.ndarray]:
    """Positive probability of each head for each pair ``(words_i[k], words_j[k])``.

    Returns:
        ``{relation: (m,) float}``.
    """
    return model.predict_pairs(words_i, words_j, batch_size)


def prediction_matrices(model: PairModel, words: Sequence[str], *, max_pairs: int = 1_000_000,
                        threshold: float = 0.5, batch_size: int = 256) -> dict[str, np.ndarray] | None:
    """The ``(n, n)`` Boolean prediction matrix of each relation, or None when too costly.

    Frozen heads always give their matrices (matrix form, no per-pair call).
    A fine-tuned model needs one forward pass per ordered pair: it predicts
    them in batches when ``n (n - 1) <= max_pairs`` and returns None
    otherwise (then use :func:`sampled_transitivity`).

    Returns:
        ``{relation: (n, n) bool}`` with a False diagonal, or None.
    """
    if isinstance(model, FrozenPairHeads):
        return model.prediction_matrices(words, threshold)
    n = len(words)
    if n * (n - 1) > max_pairs:
        return None
    return model.prediction_matrices(words, threshold, batch_size)


def evaluate(model: PairModel, test: pd.DataFrame, threshold: float = 0.5, batch_size: int = 256) -> pd.DataFrame:
    """Supervised scores of each head on gold pairs (the paper's contrast).

    Returns:
        One row per relation: ``accuracy, precision, recall, f1, gold_positive,
        predicted_positive, pairs``.
    """
    probs = predict_pairs(model, test["word1"], test["word2"], batch_size)
    rows = {}
    for rel, p in probs.items():
        pred, gold = p > threshold, relation_labels(test, rel)
        tp = int((pred & gold).sum())
        precision = tp / pred.sum() if pred.sum() else float("nan")
        recall = tp / gold.sum() if gold.sum() else float("nan")
        f1 = 2 * tp / (pred.sum() + gold.sum()) if pred.sum() + gold.sum() else float("nan")
        rows[rel] = {"accuracy": float((pred == gold).mean()) if len(gold) else float("nan"),
                     "precision": precision, "recall": recall, "f1": f1, "gold_positive": int(gold.sum()),
                     "predicted_positive": int(pred.sum()), "pairs": len(gold)}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "relation"
    return frame


def sampled_transitivity(source: PairModel | Mapping[str, np.ndarray], words: Sequence[str], n_sample: int, *,
                         seed: int = 0, threshold: float = 0.5, batch_size: int = 256) -> pd.DataFrame:
    """The paper's sampled procedure: random triples, keep those whose premise holds.

    ``n_sample`` ordered triples of distinct words are drawn; a triple is a
    case of a relation when ``v(x1, x2) and v(x2, x3)``, and violated when
    moreover ``not v(x1, x3)``. From a model, only the pairs the triples need
    are predicted (``(x1, x3)`` only for cases).

    Args:
        source: Prediction matrices ``{relation: (n, n) bool}`` or a model.
        words: The vocabulary, shape ``(n,)``.
        n_sample: Triples to draw.
        seed: Seeds the draw (the same triples for every relation).

    Returns:
        One row per relation: ``triples, cases, violations, rate, ci_low,
        ci_high`` (Wilson over the cases).
    """
    words = list(words)
    i, j, k = sample_triples(len(words), n_sample, seed)  # the counting engine's own draw

    def predict(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
        if isinstance(source, Mapping):
            return {rel: np.asarray(adj, bool)[a, b] for rel, adj in source.items()}
        codes, inverse = np.unique(a * len(words) + b, return_inverse=True)
        ua, ub = np.divmod(codes, len(words))
        probs = predict_pairs(source, [words[x] for x in ua], [words[x] for x in ub], batch_size)
        return {rel: (p > threshold)[inverse] for rel, p in probs.items()}

    first, second = predict(i, j), predict(j, k)
    any_case = np.zeros(len(i), bool)
    for rel in first:
        any_case |= first[rel] & second[rel]
    third = predict(i[any_case], k[any_case])
    rows = {}
    for rel in first:
        case = first[rel] & second[rel]
        closed = np.zeros(len(i), bool)
        closed[any_case] = third[rel]
        cases, violations = int(case.sum()), int((case & ~closed).sum())
        low, high = stats.wilson_interval(violations, cases)
        rows[rel] = {"triples": len(i), "cases": cases, "violations": violations,
                     "rate": violations / cases if cases else float("nan"), "ci_low": low, "ci_high": high}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "relation"
    return frame


@dataclass
class TransitivityReport:
    """Three-way transitivity of one model on one vocabulary, both relations.

    Attributes:
        table: One row per relation: ``method`` (``exhaustive`` or
            ``sampled``), ``rate, ci_low, ci_high, cases, violations,
            triples`` of that method, ``positive_rate`` (share of ordered
            pairs predicted true), ``independent_baseline`` (``1 -
            positive_rate``: the violation rate if the positive predictions
            were scattered independently), ``count_seconds`` and the sampled
            procedure's ``sampled_rate, sampled_ci_low, sampled_ci_high,
            sampled_cases, sampled_triples``.
        results: Relation -> exhaustive :class:`RelationResult` (per-word
            counts in ``per_item``); empty when only the sample was affordable.
        matrices: Relation -> ``(n, n)`` bool, or None.
        predict_seconds: Time to build the matrices.
    """

    table: pd.DataFrame
    results: dict[str, RelationResult]
    matrices: dict[str, np.ndarray] | None
    predict_seconds: float


def check_transitivity(model: PairModel, words: Sequence[str], *, max_pairs: int = 1_000_000,
                       n_sample: int = 100_000, n_boot: int = 200, seed: int = 0, threshold: float = 0.5,
                       batch_size: int = 256) -> TransitivityReport:
    """Exhaustive count when the matrices are affordable, and the paper's sampled procedure.

    Args:
        model: Frozen heads or a fine-tuned pair classifier.
        words: The vocabulary, shape ``(n,)``.
        max_pairs: Most ordered pairs a fine-tuned model predicts for the matrices.
        n_sample: Random triples of the sampled procedure (0 skips it).
        n_boot: Bootstrap replicates over words for the exhaustive interval.
        seed: Seeds the bootstrap and the sample.

    Returns:
        A :class:`TransitivityReport`.
    """
    words = list(words)
    n = len(words)
    start = time.perf_counter()
    mats = prediction_matrices(model, words, max_pairs=max_pairs, threshold=threshold, batch_size=batch_size)
    predict_seconds = time.perf_counter() - start
    sampled = (sampled_transitivity(mats if mats is not None else model, words, n_sample, seed=seed,
                                    threshold=threshold, batch_size=batch_size) if n_sample else None)
    rows, results = {}, {}
    for rel in RELATIONS:
        row: dict[str, Any] = {}
        if mats is not None:
            res = ThreeWayTransitivity(rel).check(mats[rel], items=words, n_boot=n_boot, seed=seed)
            results[rel] = res
            positive = mats[rel].sum() / max(1, n * (n - 1))
            row.update(method="exhaustive", rate=res.rate, ci_low=res.ci_low, ci_high=res.ci_high, cases=res.cases,
                       violations=res.violations, triples=res.extra["triples"], positive_rate=positive,
                       independent_baseline=1 - positive, count_seconds=res.extra["count_seconds"])
        elif sampled is not None:
            s = sampled.loc[rel]
            row.update(method="sampled", rate=s["rate"], ci_low=s["ci_low"], ci_high=s["ci_high"],
                       cases=int(s["cases"]), violations=int(s["violations"]), triples=int(s["triples"]),
                       positive_rate=np.nan, independent_baseline=np.nan, count_seconds=np.nan)
        if sampled is not None:
            s = sampled.loc[rel]
            row.update(sampled_rate=s["rate"], sampled_ci_low=s["ci_low"], sampled_ci_high=s["ci_high"],
                       sampled_cases=int(s["cases"]), sampled_triples=int(s["triples"]))
        rows[rel] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "relation"
    return TransitivityReport(table, results, mats, predict_seconds)


def most_violating_words(per_item: Mapping[str, pd.DataFrame | RelationResult], k: int = 10) -> pd.DataFrame:
    """The ``k`` words taking part in the most violated triples, per relation.

    Args:
        per_item: Relation -> a :class:`RelationResult` or its ``per_item``
            frame (``item, violations, cases, rate``; ``item`` is the word).

    Returns:
        Rows ``relation, rank, word, violations, cases, rate``.
    """
    frames = []
    for rel, frame in per_item.items():
        frame = getattr(frame, "per_item", frame)
        top = stats.rank_items(frame, by="violations").head(k).rename(columns={"item": "word"})
        frames.append(top.assign(relation=rel)[["relation", "rank", "word", "violations", "cases", "rate"]])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["relation", "rank", "word", "violations", "cases", "rate"])

