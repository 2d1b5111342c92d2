"""Sentence-transformers pipelines (transformer + pooling + dense/normalise modules), e.g. ``minilm``."""

from __future__ import annotations

from typing import Any

from mtlib.models.adapters.transformer import TransformerModel
from mtlib.models.capabilities import Capabilities, register_adapter

__all__ = ["SentenceTransformerModel"]


@register_adapter(lambda folder: (folder / "modules.json").exists(), priority=20)
class SentenceTransformerModel(TransformerModel):
    """A sentence-transformers folder (``modules.json``).

    ``embed`` runs the whole pipeline (the model's own pooling, dense and
    normalise modules), exactly as ``SentenceTransformer.encode``;
    ``features`` reads the underlying transformer's hidden states.
    """

    kind = "sentence-transformers"
    capabilities = Capabilities(finetune="pipeline")

    def _load(self) -> None:
        from sentence_transformers import SentenceTransformer

        self.st = SentenceTransformer(str(self.path), device=self.device)
        self.tokenizer = self.st.tokenizer
        self.backbone = self.st[0].auto_model

    @property
    def dim(self) -> int:
        getter = getattr(self.st, "get_embedding_dimension", None) or self.st.get_sentence_embedding_dimension
        return int(getter())

    def _encode(self, texts: list[str]) -> Any:
        prep = self.st.preprocess if hasattr(self.st, "preprocess") else self.st.tokenize
        return prep(texts)

    def _extras(self) -> dict[str, Any]:
        """The pipeline's non-tensor features (``modality``...), as its own preprocessing gives them."""
        import torch

        if not hasattr(self, "_extra_features"):
            probe = self._encode(["a"])
            self._extra_features = {k: v for k, v in probe.items() if not isinstance(v, torch.Tensor)}
        return dict(self._extra_features)

    def _embed_encoded(self, enc: Any) -> Any:
        return self.st(dict(enc))["sentence_embedding"]
