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

The experiment of notebook 03 is one call per model: ``report = transitivity(model, load_data(languages))``
returns a :class:`LexicalTransitivityReport` (Table 5 in every language, the supervised contrast, the sampled
procedure, the words in most violations) that :meth:`mtlib.results.Run.record_report` records.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Union

import numpy as np
import pandas as pd

from mtlib import claims, papers, stats
from mtlib.counting import sample_triples
from mtlib.data.cogalex import stable_split
from mtlib.models.heads import pair_features, stable_features
from mtlib.relations import RelationResult, ThreeWayTransitivity

#: The two heads: short name -> relation label in the data.
RELATIONS: dict[str, str] = {"syn": "SYN", "hyp": "HYP"}

#: Manino et al. Table 5 (kept here as an alias; the table lives in :mod:`mtlib.papers`).
TABLE5: dict[str, tuple[float, float]] = papers.MANINO_TABLE5

TRAIN_SPLITS = ("train",)
TEST_SPLITS = ("test", "gold")


PairModel = Union["FrozenPairHeads", "FineTunedPairClassifier"]

# ---------------------------------------------------------------------------
# Data helpers
# ---------------------------------------------------------------------------


def table5_frame(dataset: str = "CogALex-VI") -> pd.DataFrame:
    """The paper's Table 5: index ``language``, columns ``syn`` and ``hyp``.

    The paper tested CogALex-VI; for another ``dataset`` (``attrs["dataset"]``
    of the loaded pairs) the frame is empty, so CogALex-V runs never show
    CogALex-VI numbers as their paper value. The bundled pairs stand in for
    CogALex-VI and keep the values, for reference.
    """
    rows = TABLE5 if dataset in ("CogALex-VI", "bundled", "") else {}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(RELATIONS))
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


def _feature_head(head: Any, positive: Any) -> tuple[Any, int, tuple[np.ndarray, float] | None]:
    """``(predict_proba on pair features, positive column, linear parts or None)`` of any head.

    ``head`` is a :class:`mtlib.probes.Head`, a :class:`mtlib.models.HeadClassifier`
    (from :func:`mtlib.models.classifier`) or a bare
    :class:`mtlib.models.heads.LinearHead` / ``MLPHead`` (then ``positive`` is the column).
    """
    from mtlib.models import HeadClassifier
    from mtlib.models.base import label_position

    if isinstance(head, HeadClassifier):
        col = head.label_index(positive)
        return head.head.predict_proba, col, head.head.linear_parts(col)
    if hasattr(head, "classes_"):
        col = label_position(list(head.classes_), positive, "head")
        return head.predict_proba, col, head.linear_parts(positive)
    col = int(positive)
    return head.predict_proba, col, head.linear_parts(col)


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

    A binary linear head (logistic regression on standardised features, as
    :func:`mtlib.models.classifier` and :func:`mtlib.probes.train_head` build it)
    is evaluated in matrix form:
    with ``beta = [b1, b2, b3, b4]`` its weights on ``[u, v, |u - v|, u * v]``
    after folding in the scaler, the logit is ``c + W b1`` (a row term)
    ``+ W b2`` (a column term) ``+ (W * b4) @ W.T`` (a bilinear term)
    ``+ |w_i - w_j| . b3`` (computed in blocks with broadcasting). Any
    other head (an MLP) is called on all pairs of a block of rows at once.
    The diagonal is 0.

    Args:
        head: A head classifier from :func:`mtlib.models.classifier`, a
            :class:`mtlib.probes.Head`, or a bare head of :mod:`mtlib.models.heads`.
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
    predict_proba, col, parts = _feature_head(head, positive)
    if parts is not None:
        w, c = parts
        if w.shape != (4 * d,):
            raise ValueError(f"head has {w.shape[0]} weights; pair features of {d}-d vectors have {4 * d}")
        b1, b2, b3, b4 = w.reshape(4, d)
        # the head's own path rounds its features (stable_features); here the word vectors are rounded
        W = stable_features(W).astype(np.float32)  # exact: a 2**-16 grid
        W64 = W.astype(np.float64)
        logits = c + (W64 @ b1)[:, None] + (W64 @ b2)[None, :] + (W64 * b4) @ W64.T
        logits += _abs_difference_term(W, b3, block, tile)
        P = expit(logits)
    else:
        rows = max(1, (1 << 22) // max(1, n * 4 * d))
        P = np.empty((n, n), np.float64)
        for lo in range(0, n, rows):
            hi = min(lo + rows, n)
            X = pair_features(np.repeat(W[lo:hi], n, axis=0), np.tile(W, (hi - lo, 1)))
            P[lo:hi] = predict_proba(X)[:, col].reshape(hi - lo, n)
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
        heads: Relation (``syn``, ``hyp``) -> head classifier from
            :func:`mtlib.models.classifier` (labels ``False, True``).
        memo: Word -> vector, filled by :meth:`vectors` (one ``embed`` call
            per batch of new words).
    """

    name: str
    encoder: Any
    heads: dict[str, Any]
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
        return {rel: clf.head.predict_proba(X)[:, clf.label_index(True)] for rel, clf in self.heads.items()}

    def prediction_matrices(self, words: Sequence[str], threshold: float = 0.5) -> dict[str, np.ndarray]:
        """``{relation: (n, n) bool}`` in matrix form (:func:`prediction_matrix`)."""
        W = self.vectors(words)
        return {rel: prediction_matrix(head, W, threshold) for rel, head in self.heads.items()}


def train_frozen_heads(encoder: Any, train: pd.DataFrame, test: pd.DataFrame | None = None, *,
                       kind: str = "logreg", seed: int = 0, use_cache: bool = True,
                       device: str = "auto") -> FrozenPairHeads:
    """Train the two heads on the pair features ``[u, v, |u-v|, u*v]`` of an encoder's word vectors.

    Each head is :func:`mtlib.models.classifier` with ``how="head"`` on the
    word pairs (a frozen encoder, features from its cached ``embed``).

    Args:
        encoder: A :class:`mtlib.models.Model` (``embed``) or a registry name, e.g. ``minilm``.
        train: Training pairs (``word1, word2, relation``).
        test: Gold test pairs for the heads' held-out accuracy (``None``: a
            stratified 20% of ``train`` is held out instead).
        kind: ``"logreg"``/``"linear"`` (matrix-form predictions) or ``"mlp"``.
        seed: Seeds the heads.
        use_cache: Reload identical heads from the disk cache.
        device: Where an MLP head trains.

    Returns:
        The :class:`FrozenPairHeads`.
    """
    from mtlib import models as mt_models

    encoder = encoder if isinstance(encoder, mt_models.Model) else mt_models.load(str(encoder), device=device)
    model = FrozenPairHeads(encoder.name, encoder, {})
    model.vectors(vocabulary(train if test is None else pd.concat([train, test])))  # one embed call
    for rel in RELATIONS:
        valid = None if test is None else (list(test["word1"]), list(test["word2"]), relation_labels(test, rel))
        model.heads[rel] = mt_models.classifier(
            encoder, (list(train["word1"]), list(train["word2"]), relation_labels(train, rel)), how="head",
            head="linear" if kind in ("logreg", "linear") else kind, valid=valid, heldout_fraction=0.2, seed=seed,
            device=device, use_cache=use_cache)
    return model


# ---------------------------------------------------------------------------
# The paper's model: a fine-tuned pair classifier
# ---------------------------------------------------------------------------

#: Classes of the fine-tuned pair classifier: the two relations and everything else.
PAIR_CLASSES = ("SYN", "HYP", "OTHER")


@dataclass
class FineTunedPairClassifier:
    """A transformer fine-tuned on word pairs (a cross-encoder over ``w1``, ``w2``).

    One softmax over ``SYN, HYP, OTHER`` (the relations are exclusive in the
    data); ``v_syn`` and ``v_hyp`` are P(SYN) and P(HYP) above the threshold.

    Attributes:
        name: The base model's name or path.
        model: The classifier from :func:`mtlib.models.classifier` (``how="finetune"``);
            its predictions are batched by length and cached.
        relations: Head order.
        losses: Mean training loss per epoch.
    """

    name: str
    model: Any
    relations: tuple[str, ...] = tuple(RELATIONS)
    losses: list[float] = field(default_factory=list)

    def predict_pairs(self, words_i: Sequence[str], words_j: Sequence[str],
                      batch_size: int = 256) -> dict[str, np.ndarray]:
        """Probability of each relation for each pair, ``{relation: (m,)}``."""
        probs = self.model.classify(list(words_i), list(words_j))
        return {rel: probs[:, self.model.label_index(RELATIONS[rel])] for rel in self.relations}

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


def pair_classes(pairs: pd.DataFrame) -> np.ndarray:
    """The fine-tuned classifier's label of each pair: ``SYN``, ``HYP`` or ``OTHER``, shape ``(m,)``."""
    rel = pairs["relation"].to_numpy()
    return np.where(np.isin(rel, list(RELATIONS.values())), rel, "OTHER").astype(object)


def finetune_pair_classifier(name_or_path: Any, train: pd.DataFrame, *, epochs: int = 3, batch_size: int = 32,
                             lr: float = 2e-5, seed: int = 0, device: str = "auto", pooling: str = "first",
                             max_length: int = 32, use_cache: bool = True) -> FineTunedPairClassifier:
    """Fine-tune a transformer on word pairs given as sentence pairs (Wachowiak et al. 2020).

    :func:`mtlib.models.classifier` with ``how="finetune"``: the pair is the
    tokenizer's pair encoding (``<s> w1 </s></s> w2 </s>`` for XLM-R), the
    first token's last hidden state (or the mean of all tokens) feeds a linear
    layer, trained with cross-entropy over ``SYN, HYP, OTHER`` through
    :func:`mtlib.training.fit` (seeded, AdamW, 10% warm-up, length-bucketed
    batches); cached like every classifier.

    Args:
        name_or_path: Registry name, hub id, local folder or loaded model.
        train: Training pairs (``word1, word2, relation``).
        epochs, batch_size, lr: Training settings.
        seed: Seeds the head's initialisation, dropout and batch order.
        device: ``"auto"`` or an explicit device.
        pooling: ``"first"`` (first token) or ``"mean"``.
        max_length: Truncation length of a tokenised pair.
        use_cache: Reload an identical fine-tuning from the disk cache.

    Returns:
        The :class:`FineTunedPairClassifier`.
    """
    from mtlib import models as mt_models

    clf = mt_models.classifier(name_or_path, (list(train["word1"]), list(train["word2"]), pair_classes(train)),
                               how="finetune", labels=list(PAIR_CLASSES), heldout_fraction=0, epochs=epochs,
                               batch_size=batch_size, lr=lr, seed=seed, device=device, pooling=pooling,
                               max_length=max_length, use_cache=use_cache)
    return FineTunedPairClassifier(str(getattr(name_or_path, "name", name_or_path)), clf,
                                   losses=list(clf.training.train_log))


def pair_model(name: Any, train: pd.DataFrame, test: pd.DataFrame | None = None, *, how: str = "head",
               head: str = "logreg", seed: int = 0, device: str = "auto", epochs: int = 3, batch_size: int = 32,
               lr: float = 2e-5, pooling: str = "first") -> PairModel:
    """A lexical-relation model of either kind from one call (both through :func:`mtlib.models.classifier`).

    Args:
        name: Registry name, path or loaded model.
        train: Training pairs; ``test``: gold pairs for the frozen heads' accuracy.
        how: ``"head"`` (frozen word vectors, one head per relation) or
            ``"finetune"`` (the paper's fine-tuned pair classifier).
        head: Head of frozen vectors: ``"logreg"`` or ``"mlp"``.
        seed, device: As everywhere.
        epochs, batch_size, lr, pooling: Fine-tuning settings.
    """
    if how == "finetune":
        return finetune_pair_classifier(name, train, epochs=epochs, batch_size=batch_size, lr=lr, seed=seed,
                                        device=device, pooling=pooling)
    if how != "head":
        raise ValueError(f"pair_model: how must be 'head' or 'finetune', got {how!r}")
    return train_frozen_heads(name, train, test, kind=head, seed=seed, device=device)


# ---------------------------------------------------------------------------
# One interface for both models
# ---------------------------------------------------------------------------



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

    headline: ClassVar[tuple[str, ...]] = tuple(f"violation_rate/{rel}" for rel in RELATIONS)

    #: Metric name -> column of :attr:`table`; each gives ``<metric>/<relation>``.
    COLUMNS: ClassVar[dict[str, str]] = {
        "violation_rate": "rate", "cases": "cases", "violations": "violations", "triples": "triples",
        "positive_rate": "positive_rate", "method": "method", "sampled_rate": "sampled_rate",
        "sampled_cases": "sampled_cases", "count_seconds": "count_seconds"}

    def metrics(self) -> dict[str, Any]:
        """Flat metrics ``<metric>/<relation>`` (``violation_rate/syn``, its ``_ci_low``/``_ci_high``...)."""
        out: dict[str, Any] = {"predict_seconds": self.predict_seconds}
        for rel, row in self.table.iterrows():
            out.update({f"{key}/{rel}": row[col] for key, col in self.COLUMNS.items() if col in row.index})
            out.update({f"violation_rate/{rel}_ci_low": row["ci_low"], f"violation_rate/{rel}_ci_high": row["ci_high"]})
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"transitivity": self.table}


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
            res = ThreeWayTransitivity(rel).check(mats[rel], per_item=words, n_boot=n_boot, seed=seed)
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



# ---------------------------------------------------------------------------
# The experiment of notebook 03: every language, one report per model
# ---------------------------------------------------------------------------


@dataclass
class LexicalData:
    """Word pairs of each language: training pairs, gold test pairs and the vocabulary under test.

    Attributes:
        splits: Language -> ``{"train": pairs, "test": pairs, "words": list}``.
        dataset: ``CogALex-VI``, ``CogALex-V``, ``bundled`` or ``pairs`` (decides whether Table 5 applies).
        note: How a single file was split (empty otherwise).
    """

    splits: dict[str, dict[str, Any]]
    dataset: str
    note: str = ""

    @property
    def languages(self) -> list[str]:
        return list(self.splits)

    def metrics(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dataset": self.dataset}
        for lang, d in self.splits.items():
            out.update({f"vocabulary/{lang}": len(d["words"]), f"train_pairs/{lang}": len(d["train"]),
                        f"test_pairs/{lang}": len(d["test"])})
        return out

    def overview(self) -> pd.DataFrame:
        """Pairs per split and relation, vocabulary size and ordered triples, one column per language."""
        rows = {}
        for lang, d in self.splits.items():
            n = len(d["words"])
            rows[lang] = {"train pairs": len(d["train"]), "test pairs": len(d["test"]),
                          **{f"test {r}": int((d["test"]["relation"] == r).sum())
                             for r in sorted(d["test"]["relation"].unique())},
                          "vocabulary n": n, "ordered triples n(n-1)(n-2)": n * (n - 1) * (n - 2)}
        return pd.DataFrame(rows).fillna(0).astype(int)


def load_data(languages: Sequence[str], data_dir: str = "", *, vocabulary_split: str = "test",
              max_vocabulary: int = 0, seed: int = 0) -> LexicalData:
    """Pairs of every language (:func:`mtlib.data.cogalex.load_lexical_relations`), split, and their vocabulary.

    Args:
        languages: Languages to load.
        data_dir: Empty for the bundled pairs, a CogALex-VI folder or a CogALex-V file.
        vocabulary_split: ``test``: words of the gold test pairs (the paper); ``all``: of every pair.
        max_vocabulary: Keep a random subset of this many words per language (0 keeps all).
        seed: Seeds the subset.
    """
    from mtlib.data import cogalex

    if vocabulary_split not in ("test", "all"):
        raise ValueError(f"vocabulary_split must be 'test' or 'all', got {vocabulary_split!r}")
    splits, attrs = {}, {}
    for lang in languages:
        pairs = cogalex.load_lexical_relations(lang, data_dir)
        train, test = split_pairs(pairs)
        words = vocabulary(test if vocabulary_split == "test" else pairs, max_vocabulary, seed)
        splits[lang] = {"train": train, "test": test, "words": words}
        attrs = attrs or dict(pairs.attrs)
    return LexicalData(splits, attrs.get("dataset", "bundled"), attrs.get("note", ""))


@dataclass
class LexicalTransitivityReport:
    """Three-way transitivity of one model in every language, beside its supervised accuracy (§6.1).

    A report for :meth:`mtlib.results.Run.record_report`: metric keys
    ``<metric>/<language>/<relation>`` (``violation_rate/english/syn``,
    ``accuracy/english/hyp``...), tables and :attr:`headline` (the first
    language's rates).

    Attributes:
        model: Model name.
        data: The pairs and vocabularies.
        reports: Language -> :class:`TransitivityReport`.
        scores: Language -> :func:`evaluate` on the gold test pairs.
        finetuned: Whether the model was fine-tuned on word pairs (else frozen vectors and heads).
        train_seconds: Language -> time to build the model and score the test pairs.
        n_top: Words per language and relation in the ranking of violations.
    """

    model: str
    data: LexicalData
    reports: dict[str, TransitivityReport]
    scores: dict[str, pd.DataFrame]
    finetuned: bool = False
    train_seconds: dict[str, float] = field(default_factory=dict)
    n_top: int = 10

    @property
    def relation(self) -> ThreeWayTransitivity:
        """The relation checked (its diagram is the paper's Figure 5)."""
        return ThreeWayTransitivity(r"three-way transitivity of $v_{syn}$ and $v_{hyp}$")

    @property
    def headline(self) -> list[str]:
        lang = self.data.languages[0]
        return [f"violation_rate/{lang}/{rel}" for rel in RELATIONS]

    @cached_property
    def table5(self) -> pd.DataFrame:
        """Table 5: one row per (language, relation) with the paper's rate where it applies."""
        table = pd.concat({lang: r.table for lang, r in self.reports.items()}, names=["language"])
        paper = table5_frame(self.data.dataset)
        table["paper_rate"] = [paper.loc[lang, rel] if lang in paper.index else float("nan")
                               for lang, rel in table.index]
        return table

    @cached_property
    def accuracy(self) -> pd.DataFrame:
        """Supervised scores of each head on each language's gold test pairs."""
        return pd.concat(self.scores, names=["language"])

    @cached_property
    def heads(self) -> dict[tuple[str, str], claims.AccuracyReport]:
        """(language, relation) -> the head's accuracy beside its majority-class baseline."""
        return {(lang, rel): rep for lang, frame in self.scores.items()
                for rel, rep in claims.binary_scores_report(frame).items()}

    @cached_property
    def sampled_vs_exhaustive(self) -> pd.DataFrame:
        """The paper's sampled procedure beside the exact count (``difference`` = sampled - exact)."""
        cols = ["method", "rate", "ci_low", "ci_high", "cases", "sampled_rate", "sampled_ci_low", "sampled_ci_high",
                "sampled_cases", "sampled_triples"]
        compare = self.table5[[c for c in cols if c in self.table5]].copy()
        if "sampled_rate" in compare:
            compare["difference"] = compare["sampled_rate"] - compare["rate"]
        return compare

    @cached_property
    def top_words(self) -> dict[str, pd.DataFrame]:
        """Language -> the ``n_top`` words in the most violated triples per relation (languages with an exact
        count)."""
        return {lang: most_violating_words(r.results, self.n_top) for lang, r in self.reports.items() if r.results}

    def rates(self) -> pd.Series:
        """Violation rate per (language, relation)."""
        return self.table5["rate"]

    def metrics(self) -> dict[str, Any]:
        """Flat metrics without a model prefix: ``<metric>/<language>/<relation>`` and the data sizes."""
        out: dict[str, Any] = dict(self.data.metrics())
        for lang, rep in self.reports.items():
            for key, value in rep.metrics().items():
                head, _, tail = key.partition("/")
                out[f"{head}/{lang}/{tail}" if tail else f"{head}/{lang}"] = value
            if lang in self.train_seconds:
                out[f"train_seconds/{lang}"] = self.train_seconds[lang]
        for (lang, rel), head in self.heads.items():
            out.update(head.metrics(f"accuracy/{lang}/{rel}"))
            out[f"f1/{lang}/{rel}"] = self.scores[lang].loc[rel, "f1"]
        for lang, top in self.top_words.items():
            out[f"top_words/{lang}"] = {rel: top[top["relation"] == rel]["word"].tolist() for rel in RELATIONS}
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """Table 5, the supervised accuracy, sampled against exhaustive, and each language's top words."""
        return {"table5_violation_rate": self.table5, "supervised_accuracy": self.accuracy,
                "sampled_vs_exhaustive": self.sampled_vs_exhaustive,
                **{f"top_words_{lang}": top for lang, top in self.top_words.items()}}

    def summary(self) -> str:
        """One line per language: how the rates were counted, and in what time."""
        lines = []
        for lang, rep in self.reports.items():
            n = len(self.data.splits[lang]["words"])
            if not rep.results:
                lines.append(f"{self.model}, {lang}: n = {n} words, n(n-1) = {n * (n - 1):,} ordered pairs: too many "
                             "for an exhaustive count, the sampled procedure only")
                continue
            counts = ", ".join(f"{rel} {r.extra['count_seconds']:.3f} s" for rel, r in rep.results.items())
            lines.append(f"{self.model}, {lang}: {n} words, {n * (n - 1):,} ordered pairs predicted in "
                         f"{rep.predict_seconds:.2f} s; {n * (n - 1) * (n - 2):,} ordered triples counted exactly "
                         f"({counts})")
        return "\n".join(lines)

    def sentence(self) -> str:
        """Does an accurate head still break transitivity? Stated from this run (Markdown)."""
        return claims.transitivity_contrast(self.table5, self.heads)

    def _bars(self) -> pd.DataFrame:
        """Table 5 with a ``label`` column ``language · relation`` for bar charts."""
        bars = self.table5.reset_index()
        bars["label"] = bars["language"] + " · " + bars["relation"]
        return bars

    def figure_table5(self):
        """Violation rate per language and relation, with bootstrap intervals."""
        from mtlib import plots

        bars = self._bars()
        return plots.rate_bars(bars, label="label", hue="relation", xlim=(0, 1),
                               title=f"Three-way transitivity violations ({self.model}"
                                     f"{', fine-tuned' if self.finetuned else ''})",
                               xlabel="proportion of violated triples among cases (95% bootstrap interval over words)")

    def figure_vs_paper(self):
        """The same rates beside Table 5 (languages the paper did not test have no paper bar)."""
        from mtlib import plots

        bars = self._bars()
        side = pd.concat([bars.assign(source=f"mtlib: {self.model}")[["label", "rate", "source"]],
                          bars.assign(source="Manino et al. Table 5", rate=bars["paper_rate"])[
                              ["label", "rate", "source"]]])
        return plots.grouped_bars(side.dropna(), x="label", y="rate", hue="source",
                                  title="Violation rate: ours and the paper's", ylabel="proportion of violated triples")


def transitivity(model: str, data: LexicalData, *, finetune: bool = False, head_kind: str = "logreg",
                 epochs: int = 5, batch_size: int = 32, lr: float = 1e-5, pooling: str = "first",
                 predict_batch_size: int = 512, max_pairs: int = 5_000_000, n_sample: int = 200_000,
                 n_boot: int = 1000, n_top: int = 10, seed: int = 0,
                 device: str = "auto") -> LexicalTransitivityReport:
    """Three-way transitivity of a lexical-relation model in every language of ``data``.

    Frozen (``finetune=False``): one head per relation on the model's word
    vectors, trained per language. Fine-tuned: one pair classifier trained on
    every language's training pairs (the paper's multilingual model). Then
    :func:`check_transitivity` per language (exhaustive count through
    :class:`mtlib.relations.ThreeWayTransitivity`, and the sampled procedure)
    and :func:`evaluate` on the gold test pairs.

    Args:
        model: Registry name or path.
        data: :func:`load_data`.
        finetune: Fine-tune the model on word pairs instead of heads on frozen vectors.
        head_kind: Head on frozen vectors: ``logreg`` or ``mlp``.
        epochs, batch_size, lr, pooling: Fine-tuning settings.
        predict_batch_size: Word pairs per forward pass of a fine-tuned model.
        max_pairs: Most ordered pairs a fine-tuned model predicts for the exhaustive count.
        n_sample: Random triples of the sampled procedure.
        n_boot: Bootstrap replicates over words.
        n_top: Words per language and relation in the ranking of violations.
        seed, device: As everywhere.
    """
    settings = dict(head=head_kind, seed=seed, device=device, epochs=epochs, batch_size=batch_size, lr=lr,
                    pooling=pooling)
    shared = None
    if finetune:
        train_all = pd.concat([d["train"] for d in data.splits.values()], ignore_index=True)
        shared = pair_model(model, train_all, None, how="finetune", **settings)
    reports, scores, seconds = {}, {}, {}
    for lang, d in data.splits.items():
        start = time.perf_counter()
        fitted = shared if shared is not None else pair_model(model, d["train"], d["test"], how="head", **settings)
        scores[lang] = evaluate(fitted, d["test"], batch_size=predict_batch_size)
        seconds[lang] = time.perf_counter() - start
        reports[lang] = check_transitivity(fitted, d["words"], max_pairs=max_pairs, n_sample=n_sample, n_boot=n_boot,
                                           seed=seed, batch_size=predict_batch_size)
    return LexicalTransitivityReport(str(model), data, reports, scores, finetune, seconds, n_top)
