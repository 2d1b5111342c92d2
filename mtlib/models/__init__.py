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

from mtlib.models.adapters import (
    ADAPTERS,
    GensimModel,
    HFClassifierModel,
    HFEncoderModel,
    LexiconModel,
    PackagedVectorsModel,
    SentenceTransformerModel,
    StaticVectorsModel,
    TransformerModel,
    WordPieceStaticModel,
)
from mtlib.models.base import Features, Model, label_position, log_odds, masked_mean, softmax
from mtlib.models.factory import (
    FineTunedClassifier,
    HeadClassifier,
    NativeClassifier,
    Training,
    classifier,
    frozen_features,
)
from mtlib.models.heads import LinearHead, MLPHead, pair_features
from mtlib.models.identity import file_digest, model_identity
from mtlib.models.registry import REGISTRY, ModelNotFoundError, ModelSpec, register
from mtlib.models.resolve import Resolved, available, folder_kind, resolve
from mtlib.models.spans import SpanRequest, find_substring, substring_token_mask

_LOADED: dict[tuple[str, str, bool], Model] = {}


def build(resolved: Resolved, device: str = "auto", *, use_cache: bool = True) -> Model:
    """A fresh model object from resolved weights, through its family's adapter (no in-process memo).

    Use :func:`load` in notebooks; ``build`` is for tests and benchmarks that
    need an object of their own (a cold cache, another device).
    """
    if resolved.kind not in ADAPTERS:
        raise ModelNotFoundError(f"no adapter for kind {resolved.kind!r} of {resolved.name!r}; "
                                 f"known kinds: {sorted(ADAPTERS)}")
    return ADAPTERS[resolved.kind](resolved, device, use_cache)


def load(name_or_path: str, device: str = "auto", *, use_cache: bool = True, allow_pickle: bool = False) -> Model:
    """Load a model by registry name, hub id or local path.

    Args:
        name_or_path: ``"minilm"``, ``"minilm-static"``, ``"vader"``,
            ``"glove-50d"``, any name of :func:`available`, a hub id
            (``"org/model"``), a local Hugging Face / sentence-transformers
            folder, or a word2vec/GloVe file.
        device: ``"auto"`` (cuda, then mps, then cpu), or an explicit device.
        use_cache: Cache outputs on disk (``$MTLIB_CACHE``).
        allow_pickle: Let gensim unpickle a ``.kv`` / ``.model`` file given
            as the path (it can run code; refused unless asked for, or
            ``$MTLIB_ALLOW_PICKLE=1``).

    Returns:
        A :class:`Model`; loading the same name twice in a process returns
        the same object.

    Raises:
        ModelNotFoundError: unknown name (the message lists the known ones),
            a hub model while offline (the message says how to get it), a
            path that is not a model, or a pickled file without the opt-in.
        DataFormatError: a word-vector file that is malformed (file and line).
    """
    key = (str(name_or_path), device, use_cache)
    if key in _LOADED:
        return _LOADED[key]
    resolved = resolve(str(name_or_path), allow_pickle=allow_pickle)
    model = build(resolved, device, use_cache=use_cache)
    _LOADED[key] = model
    return model


__all__ = [
    "ADAPTERS", "REGISTRY", "Features", "FineTunedClassifier", "HeadClassifier", "LinearHead", "MLPHead",
    "NativeClassifier", "Training", "classifier", "frozen_features", "pair_features", "GensimModel", "HFClassifierModel", "HFEncoderModel", "LexiconModel",
    "Model", "ModelNotFoundError", "ModelSpec", "PackagedVectorsModel", "Resolved", "SentenceTransformerModel",
    "SpanRequest", "StaticVectorsModel", "TransformerModel", "WordPieceStaticModel", "available", "build", "file_digest",
    "find_substring", "folder_kind", "label_position", "load", "log_odds", "masked_mean", "model_identity",
    "register", "resolve", "softmax", "substring_token_mask",
]
