"""Models: registry, offline resolution, one adapter per family, and the classifier factory.

One name (``"minilm"``, ``"vader"``, ``"roberta-large-mnli"``, a hub id or a
local path) resolves to weights on disk (:mod:`~mtlib.models.resolve`) and
loads through its family's adapter (:mod:`~mtlib.models.adapters`). Every
loaded model is a :class:`Model` with the operations a notebook needs, each
batched, length-sorted and cached on disk (one model call per unique input,
ever):

- ``embed(texts)``: sentence embeddings, shape ``(n, d)``;
- ``classify(texts, text_pairs=None)``: class probabilities ``(n, k)`` with
  named labels (``model.labels``); ``score`` and ``log_odds`` of one label;
- ``features(texts, text_pairs=None, layer=..., spans=...)`` (transformers):
  from one forward pass, the pooled last layer, the class probabilities and,
  for each requested substring, the mean of its word pieces' hidden states.

:func:`classifier` turns any model into a classifier for a task, with its
own head (``native``), a head on frozen features (``head``) or by training
the model itself (``finetune``).
"""

from __future__ import annotations

# ruff: noqa: I001 (the imports go by dependency level, lowest first, not by name)
# level 0: the registry, resolution and what every model is
from mtlib.models.registry import REGISTRY, ModelNotFoundError, ModelSpec, register
from mtlib.models.resolve import Resolved, folder_kind, registered, resolve
from mtlib.models.base import Features, Model, label_position, log_odds, masked_mean, softmax
from mtlib.models.identity import file_digest, model_identity
from mtlib.models.spans import SpanRequest, find_substring, substring_token_mask

# level 1: one adapter per family, and loading by name
from mtlib.models.adapters import (
    ADAPTERS,
    OBJECT_ADAPTERS,
    GensimModel,
    HFClassifierModel,
    HFEncoderModel,
    LexiconModel,
    PackagedVectorsModel,
    SentenceTransformerModel,
    StaticVectorsModel,
    TransformerModel,
    WordPieceStaticModel,
    wrap,
)
from mtlib.models.loading import build, load

# level 2: heads, the training loop, the majority baseline
from mtlib.models.baseline import majority_baseline
from mtlib.models.heads import LinearHead, MLPHead, pair_features

# level 3: the classifier factory and its ways (native, frozen features + head, fine-tuned)
from mtlib.models.settings import ClassifierSettings, Training
from mtlib.models.native import NativeClassifier
from mtlib.models.frozen import HeadClassifier, frozen_features
from mtlib.models.tuned import FineTunedClassifier
from mtlib.models.siamese import pair_logit_matrix
from mtlib.models.factory import classifier
from mtlib.models.catalog import available

__all__ = [
    "pair_logit_matrix",
    "ADAPTERS",
    "OBJECT_ADAPTERS",
    "ClassifierSettings",
    "Features",
    "FineTunedClassifier",
    "GensimModel",
    "HFClassifierModel",
    "HFEncoderModel",
    "HeadClassifier",
    "LexiconModel",
    "LinearHead",
    "MLPHead",
    "Model",
    "ModelNotFoundError",
    "ModelSpec",
    "NativeClassifier",
    "PackagedVectorsModel",
    "REGISTRY",
    "Resolved",
    "SentenceTransformerModel",
    "SpanRequest",
    "StaticVectorsModel",
    "Training",
    "TransformerModel",
    "WordPieceStaticModel",
    "available",
    "build",
    "classifier",
    "file_digest",
    "find_substring",
    "folder_kind",
    "frozen_features",
    "label_position",
    "load",
    "log_odds",
    "majority_baseline",
    "masked_mean",
    "model_identity",
    "pair_features",
    "register",
    "registered",
    "resolve",
    "softmax",
    "substring_token_mask",
    "wrap",
]
