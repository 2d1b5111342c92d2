"""Model families: one adapter module per family, chosen from one ``kind -> class`` table.

A new family is one new module with a :class:`mtlib.models.Model` subclass
(constructor ``(resolved, device, use_cache)``) and one entry in
:data:`ADAPTERS`; :func:`mtlib.models.resolve` names the kind.
"""

from __future__ import annotations

from mtlib.models.adapters.hf_classifier import HFClassifierModel
from mtlib.models.adapters.hf_encoder import HFEncoderModel
from mtlib.models.adapters.lexicon import LexiconModel
from mtlib.models.adapters.sentence_transformers import SentenceTransformerModel
from mtlib.models.adapters.static_vectors import GensimModel, PackagedVectorsModel, StaticVectorsModel
from mtlib.models.adapters.transformer import TransformerModel
from mtlib.models.adapters.wordpiece_static import WordPieceStaticModel

#: Resolved kind -> adapter class.
ADAPTERS: dict[str, type] = {
    "sentence-transformers": SentenceTransformerModel,
    "hf-encoder": HFEncoderModel,
    "hf-classifier": HFClassifierModel,
    "wordpiece-static": WordPieceStaticModel,
    "gensim": GensimModel,
    "packaged-vectors": PackagedVectorsModel,
    "lexicon": LexiconModel,
}

__all__ = ["ADAPTERS", "GensimModel", "HFClassifierModel", "HFEncoderModel", "LexiconModel",
           "PackagedVectorsModel", "SentenceTransformerModel", "StaticVectorsModel", "TransformerModel",
           "WordPieceStaticModel"]
