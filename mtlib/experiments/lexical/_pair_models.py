"""The two lexical-relation models of notebook 03, behind one interface.

Intuition: the test needs, from any model, the probability of each relation
(``syn``, ``hyp``) for word pairs. Two kinds of model give it:

- :class:`FrozenPairHeads`: word vectors from a frozen encoder and one
  logistic-regression head per relation on the pair features (its matrices in
  matrix form, :mod:`mtlib.experiments.lexical._matrix`);
- :class:`FineTunedPairClassifier`: a transformer fine-tuned on word pairs
  given as sentence pairs (the paper's model), one forward pass per pair.

:func:`predict_pairs`, :func:`prediction_matrices` and :func:`evaluate_heads`
(the supervised scores on gold pairs) take either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
import pandas as pd

from mtlib.experiments.lexical._data import RELATIONS, relation_labels, vocabulary
from mtlib.experiments.lexical._matrix import prediction_matrix
from mtlib.models.base import Model, softmax
from mtlib.models.factory import classifier
from mtlib.models.loading import load
from mtlib.models.training.finetune import FineTunedClassifier
from mtlib.models.training.heads import pair_features
from mtlib.models.training.settings import ClassifierSettings
from mtlib.models.training.siamese import pair_logit_matrix
from mtlib.utils.context import RunContext

#: Either model.
PairModel = Union["FrozenPairHeads", "FineTunedPairClassifier"]


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

    def predict_pairs(
        self, words_i: Sequence[str], words_j: Sequence[str], batch_size: int = 0
    ) -> dict[str, np.ndarray]:
        """Positive probability of each head for each pair, ``{relation: (m,)}``."""
        X = pair_features(self.vectors(words_i), self.vectors(words_j))
        return {rel: clf.head.predict_proba(X)[:, clf.label_index(True)] for rel, clf in self.heads.items()}

    def prediction_matrices(self, words: Sequence[str], threshold: float = 0.5) -> dict[str, np.ndarray]:
        """``{relation: (n, n) bool}`` in matrix form (:func:`prediction_matrix`)."""
        W = self.vectors(words)
        return {rel: prediction_matrix(head, W, threshold) for rel, head in self.heads.items()}


def train_frozen_heads(
    encoder: Any,
    train: pd.DataFrame,
    test: pd.DataFrame | None = None,
    *,
    settings: ClassifierSettings,
    seed: int,
    context: RunContext,
    use_cache: bool = True,
) -> FrozenPairHeads:
    """Train the two heads on the pair features ``[u, v, |u-v|, u*v]`` of an encoder's word vectors.

    Each head is :func:`mtlib.models.classifier` with ``how="head"`` on the
    word pairs (a frozen encoder, features from its cached ``embed``).

    Args:
        encoder: A :class:`mtlib.models.Model` (``embed``) or a registry name, e.g. ``minilm``.
        train: Training pairs (``word1, word2, relation``).
        test: Gold test pairs for the heads' held-out accuracy (``None``: a
            stratified 20% of ``train`` is held out instead).
        settings: The heads' settings (the spec's ``head_settings``): ``head`` ``"linear"`` (matrix-form
            predictions) or ``"mlp"``; a linear head's ``C`` (CogALex-VI English: C=0.1 beat C=1) and
            ``class_weight`` (``"balanced"`` weighs each class by the inverse of its frequency: a relation is
            a small minority of the pairs, and without it a logistic head drifts towards always-"no").
        seed: Seeds the heads.
        context: The run's context: the encoder loads and the heads train in it.
        use_cache: Reload identical heads from the disk cache.

    Returns:
        The :class:`FrozenPairHeads`.
    """
    encoder = encoder if isinstance(encoder, Model) else load(str(encoder), context=context)
    model = FrozenPairHeads(encoder.name, encoder, {})
    model.vectors(vocabulary(train if test is None else pd.concat([train, test])))  # one embed call
    for rel in RELATIONS:
        valid = None if test is None else (list(test["word1"]), list(test["word2"]), relation_labels(test, rel))
        model.heads[rel] = classifier(
            encoder,
            (list(train["word1"]), list(train["word2"]), relation_labels(train, rel)),
            how="head",
            settings=settings,
            valid=valid,
            heldout_fraction=0.2,
            seed=seed,
            context=context,
            use_cache=use_cache,
        )
    return model


# ---------------------------------------------------------------------------
# The paper's model: a fine-tuned pair classifier
# ---------------------------------------------------------------------------

#: Classes of the fine-tuned pair classifier: the two relations and everything else.
PAIR_CLASSES = ("SYN", "HYP", "OTHER")
#: The four classes of CogALex-VI (a 4-class model, as in the shared task); any other label counts as RANDOM.
COGALEX_CLASSES = ("SYN", "ANT", "HYP", "RANDOM")


@dataclass
class FineTunedPairClassifier:
    """A transformer fine-tuned on word pairs (a cross-encoder over ``w1``, ``w2``).

    One softmax over ``SYN, HYP, OTHER`` (the relations are exclusive in the
    data), or over the four CogALex-VI classes ``SYN, ANT, HYP, RANDOM``;
    ``v_syn`` and ``v_hyp`` are P(SYN) and P(HYP) above the threshold.

    Attributes:
        name: The base model's name or path.
        model: The classifier from :func:`mtlib.models.classifier` (``how="finetune"``);
            its predictions are batched by length and cached.
        relations: Head order.
        losses: Mean training loss per epoch.
        classes: The classifier's classes (:data:`PAIR_CLASSES` or :data:`COGALEX_CLASSES`).
    """

    name: str
    model: Any
    relations: tuple[str, ...] = tuple(RELATIONS)
    losses: list[float] = field(default_factory=list)
    classes: tuple[str, ...] = PAIR_CLASSES

    def class_probabilities(self, words_i: Sequence[str], words_j: Sequence[str]) -> dict[str, np.ndarray]:
        """Score of every class except ``OTHER`` for each pair, ``{short name: (m,)}`` (``syn``, ``ant``...).

        With :data:`PAIR_CLASSES` the class probability P(c). With :data:`COGALEX_CLASSES` (four classes, where
        no class may reach 0.5) P(c) against its strongest rival, ``P(c) / (P(c) + max_{d != c} P(d))``: above
        0.5 exactly when c is the most probable class, so ``v_c`` (score above 0.5) is the model's single-label
        answer, as the shared task scores it.
        """
        return self._class_scores(np.asarray(self.model.classify(list(words_i), list(words_j))))

    def _class_scores(self, probs: np.ndarray) -> dict[str, np.ndarray]:
        """The rule above on class probabilities of any leading shape, ``(..., k)`` -> ``{short name: (...)}``:
        one rule for the per-pair calls and the matrix form."""
        cols = {c: probs[..., self.model.label_index(c)] for c in self.classes}
        if "OTHER" in self.classes:
            return {c.lower(): p for c, p in cols.items() if c != "OTHER"}
        out = {}
        for c, p in cols.items():
            rival = np.max(np.stack([q for d, q in cols.items() if d != c]), axis=0)
            out[c.lower()] = p / (p + rival)
        return out

    def predict_pairs(
        self, words_i: Sequence[str], words_j: Sequence[str], batch_size: int = 256
    ) -> dict[str, np.ndarray]:
        """Score of each relation for each pair, ``{relation: (m,)}`` (see :meth:`class_probabilities`)."""
        scores = self.class_probabilities(words_i, words_j)
        return {rel: scores[rel] for rel in self.relations}

    @property
    def siamese(self) -> bool:
        """Whether each word is encoded on its own (then every ordered pair is scored in matrix form)."""
        return bool(getattr(self.model, "siamese", False))

    def logit_matrix(self, words: Sequence[str]) -> np.ndarray:
        """Logits of every ordered pair of a siamese model, ``(n, n, k)``: each word encoded once
        (``embed``, cached), the head in matrix form (:func:`mtlib.models.pair_logit_matrix`)."""
        return pair_logit_matrix(self.model.head_module(), self.model.embed(list(words)))

    def prediction_matrices(
        self, words: Sequence[str], threshold: float = 0.5, batch_size: int = 256
    ) -> dict[str, np.ndarray]:
        """``{relation: (n, n) bool}``: a siamese model in matrix form, else one prediction per ordered pair."""
        words = list(words)
        n = len(words)
        if self.siamese:
            return self._matrices_from_logits(self.logit_matrix(words), threshold)
        i, j = np.nonzero(~np.eye(n, dtype=bool))
        probs = self.predict_pairs([words[a] for a in i], [words[b] for b in j], batch_size)
        mats = {}
        for rel, p in probs.items():
            adj = np.zeros((n, n), bool)
            adj[i, j] = p > threshold
            mats[rel] = adj
        return mats

    def _matrices_from_logits(self, logits: np.ndarray, threshold: float) -> dict[str, np.ndarray]:
        """:meth:`class_probabilities`'s rule on ``(n, n, k)`` logits, per relation, diagonal False."""
        n, _, k = logits.shape
        scores = self._class_scores(softmax(logits.reshape(n * n, k)).reshape(n, n, k))
        mats = {}
        for rel in self.relations:
            adj = scores[rel] > threshold
            np.fill_diagonal(adj, False)
            mats[rel] = adj
        return mats


def pair_classes(pairs: pd.DataFrame, classes: Sequence[str] = PAIR_CLASSES) -> np.ndarray:
    """The fine-tuned classifier's label of each pair, shape ``(m,)``.

    With :data:`PAIR_CLASSES`: ``SYN``, ``HYP`` or ``OTHER``; with :data:`COGALEX_CLASSES`: the pair's own
    relation, any label outside them (``PART_OF`` of CogALex-V) counted as ``RANDOM``.
    """
    rel = pairs["relation"].to_numpy()
    if tuple(classes) == PAIR_CLASSES:
        return np.where(np.isin(rel, list(RELATIONS.values())), rel, "OTHER").astype(object)
    if tuple(classes) == COGALEX_CLASSES:
        return np.where(np.isin(rel, list(COGALEX_CLASSES)), rel, "RANDOM").astype(object)
    raise ValueError(f"classes must be {PAIR_CLASSES} or {COGALEX_CLASSES}, got {tuple(classes)}")


def finetune_pair_classifier(
    name_or_path: Any,
    train: pd.DataFrame,
    *,
    settings: ClassifierSettings,
    seed: int,
    context: RunContext,
    use_cache: bool = True,
    classes: Sequence[str] = PAIR_CLASSES,
    valid: pd.DataFrame | None = None,
    heldout_fraction: float,
) -> FineTunedPairClassifier:
    """Fine-tune a transformer on word pairs given as sentence pairs (Wachowiak et al. 2020).

    :func:`mtlib.models.classifier` with ``how="finetune"``: the pair is the
    tokenizer's pair encoding (``<s> w1 </s></s> w2 </s>`` for XLM-R), the
    first token's last hidden state (or the mean of all tokens) feeds a linear
    layer, trained with cross-entropy over ``SYN, HYP, OTHER`` through
    :func:`mtlib.models.training.loop.fit` (seeded, AdamW, 10% warm-up, length-bucketed
    batches); cached like every classifier.

    Args:
        name_or_path: Registry name, hub id, local folder or loaded model.
        train: Training pairs (``word1, word2, relation``).
        settings: Training settings (the spec's ``finetune_settings``: epochs, batch_size, lr, pooling
            ``"first"`` token or ``"mean"``, max_length of a tokenised pair, ...).
        seed: Seeds the head's initialisation, dropout and batch order.
        context: The run's context: the base loads and the classifier trains in it.
        use_cache: Reload an identical fine-tuning from the disk cache.
        classes: :data:`PAIR_CLASSES` (``SYN, HYP, OTHER``) or :data:`COGALEX_CLASSES` (the 4-class model).
        valid: Validation pairs (CogALex-VI ``validgold``) for early stopping (``settings.eval_every``); None or
            empty: the stratified ``heldout_fraction`` of ``train`` is held out instead. Without
            ``eval_every`` every training pair trains and nothing is held out.
        heldout_fraction: Share of ``train`` held out for early stopping when there is no ``valid``.

    Returns:
        The :class:`FineTunedPairClassifier`.
    """
    held: dict[str, Any] = {"heldout_fraction": 0}
    if settings.eval_every is not None:
        held = (
            {"valid": (list(valid["word1"]), list(valid["word2"]), pair_classes(valid, classes))}
            if valid is not None and len(valid)
            else {"heldout_fraction": heldout_fraction}
        )
    clf = classifier(
        name_or_path,
        (list(train["word1"]), list(train["word2"]), pair_classes(train, classes)),
        how="finetune",
        settings=settings,
        labels=list(classes),
        seed=seed,
        context=context,
        use_cache=use_cache,
        **held,
    )
    assert isinstance(clf, FineTunedClassifier)
    return FineTunedPairClassifier(
        str(getattr(name_or_path, "name", name_or_path)),
        clf,
        losses=list(clf.training.train_log),
        classes=tuple(classes),
    )


def pair_model(
    name: Any,
    train: pd.DataFrame,
    test: pd.DataFrame | None = None,
    *,
    how: str,
    settings: ClassifierSettings,
    seed: int,
    context: RunContext,
    classes: Sequence[str] = PAIR_CLASSES,
    valid: pd.DataFrame | None = None,
    heldout_fraction: float,
) -> PairModel:
    """A lexical-relation model of either kind from one call (both through :func:`mtlib.models.classifier`).

    Args:
        name: Registry name, path or loaded model.
        train: Training pairs; ``test``: gold pairs for the frozen heads' accuracy.
        how: ``"head"`` (frozen word vectors, one head per relation) or
            ``"finetune"`` (the paper's fine-tuned pair classifier).
        settings: The heads' settings (``how="head"``, :func:`train_frozen_heads`) or the fine-tuning's.
        seed, context: As everywhere.
        classes: Classes of the fine-tuned classifier (:data:`PAIR_CLASSES` or :data:`COGALEX_CLASSES`).
        valid, heldout_fraction: Validation pairs of a fine-tuned classifier's early stopping, else the share
            of ``train`` held out for it (:func:`finetune_pair_classifier`).
    """
    if how == "finetune":
        return finetune_pair_classifier(
            name,
            train,
            settings=settings,
            seed=seed,
            context=context,
            classes=classes,
            valid=valid,
            heldout_fraction=heldout_fraction,
        )
    if how != "head":
        raise ValueError(f"pair_model: how must be 'head' or 'finetune', got {how!r}")
    return train_frozen_heads(name, train, test, settings=settings, seed=seed, context=context)


# ---------------------------------------------------------------------------
# One interface for both models
# ---------------------------------------------------------------------------


def predict_pairs(
    model: PairModel, words_i: Sequence[str], words_j: Sequence[str], batch_size: int = 256
) -> dict[str, np.ndarray]:
    """Positive probability of each head for each pair ``(words_i[k], words_j[k])``.

    Returns:
        ``{relation: (m,) float}``.
    """
    return model.predict_pairs(words_i, words_j, batch_size)


def prediction_matrices(
    model: PairModel, words: Sequence[str], *, max_pairs: int, threshold: float = 0.5, batch_size: int = 256
) -> dict[str, np.ndarray] | None:
    """The ``(n, n)`` Boolean prediction matrix of each relation, or None when too costly.

    Frozen heads always give their matrices (matrix form, no per-pair call).
    A fine-tuned model needs one forward pass per ordered pair: it predicts
    them in batches when ``n (n - 1) <= max_pairs`` and returns None
    otherwise (then use :func:`sampled_transitivity`).

    Returns:
        ``{relation: (n, n) bool}`` with a False diagonal, or None.
    """
    if isinstance(model, FrozenPairHeads) or getattr(model, "siamese", False):  # matrix form: no per-pair call
        return model.prediction_matrices(words, threshold)
    n = len(words)
    if n * (n - 1) > max_pairs:
        return None
    return model.prediction_matrices(words, threshold, batch_size)


def evaluate_heads(model: PairModel, test: pd.DataFrame, threshold: float = 0.5, batch_size: int = 256) -> pd.DataFrame:
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
        rows[rel] = {
            "accuracy": float((pred == gold).mean()) if len(gold) else float("nan"),
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "gold_positive": int(gold.sum()),
            "predicted_positive": int(pred.sum()),
            "pairs": len(gold),
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "relation"
    return frame


def relation_probabilities(model: PairModel, test: pd.DataFrame, batch_size: int = 256) -> dict[str, np.ndarray]:
    """Probability of every relation the model predicts for each gold pair: ``syn``, ``hyp`` for frozen heads and
    the 3-class model, ``syn``, ``ant``, ``hyp``, ``random`` for the 4-class model; each shape ``(m,)``."""
    if isinstance(model, FineTunedPairClassifier) and "OTHER" not in model.classes:
        return model.class_probabilities(test["word1"], test["word2"])
    return predict_pairs(model, test["word1"], test["word2"], batch_size)
