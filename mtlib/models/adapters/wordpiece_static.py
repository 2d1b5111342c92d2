"""Mean of a transformer's input word-piece embeddings: no context at all (``minilm-static``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtlib.models.base import Model
from mtlib.models.capabilities import Capabilities, register_adapter
from mtlib.models.inference.numerics import check_finite
from mtlib.models.weights.identity import model_identity
from mtlib.models.weights.registry import REGISTRY, ModelNotFoundError, ModelSpec
from mtlib.models.weights.resolve import Resolved, offline_status, resolve
from mtlib.utils.cache import cached_rows

__all__ = ["WordPieceStaticModel"]


def resolve_wordpiece_static(spec: ModelSpec, allow_pickle: bool = False) -> Resolved:
    """The weights of the transformer whose word pieces it averages (``spec.base``, default ``minilm``)."""
    base = resolve(spec.base or "minilm")
    return Resolved(spec.name, base.path, spec.kind, base.how, spec)


def wordpiece_static_status(spec: ModelSpec) -> str:
    """Where its base transformer resolves now."""
    return offline_status(REGISTRY[spec.base or "minilm"])


@register_adapter()
class WordPieceStaticModel(Model):
    """Mean of a transformer's input word-piece embeddings.

    ``minilm-static`` averages the rows of MiniLM's input embedding matrix for
    the word pieces of a text (no special tokens, no position embeddings).
    ``mtlib.models.classifier(..., how="finetune")`` tunes that table.
    """

    kind = "wordpiece-static"
    capabilities = Capabilities(
        resolves="wordpiece-static",
        resolve=resolve_wordpiece_static,
        offline_status=wordpiece_static_status,
        finetune="static-table",
        finetune_lr=1e-3,
        trains_word_embeddings=True,
    )

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:
        from safetensors.numpy import load_file
        from transformers import AutoTokenizer

        assert resolved.path is not None
        super().__init__(resolved.name, "static:" + model_identity(resolved), "cpu", use_cache)
        self.path = resolved.path
        self.tokenizer = AutoTokenizer.from_pretrained(resolved.path)
        weights = next(iter(sorted(resolved.path.glob("*.safetensors"))), None)
        if weights is None:
            raise ModelNotFoundError(f"{resolved.path} has no .safetensors weights to take embeddings from")
        tensors = load_file(str(weights))
        key = next((k for k in tensors if k.endswith("word_embeddings.weight")), None)
        if key is None:
            raise ModelNotFoundError(f"no word_embeddings.weight tensor in {weights}")
        self.matrix = tensors[key].astype(np.float32)
        self.max_length = 512

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Word-piece ids of each text, without special tokens."""
        return self.tokenizer(list(texts), add_special_tokens=False, truncation=True, max_length=self.max_length)[
            "input_ids"
        ]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.matrix.shape[1]), dtype=np.float32)

        def compute(batch: list[str]) -> np.ndarray:
            self.calls += 1
            out = np.zeros((len(batch), self.matrix.shape[1]), dtype=np.float32)
            for i, row in enumerate(self.token_ids(batch)):
                if row:
                    out[i] = self.matrix[row].mean(0)
            return out

        return check_finite(cached_rows(self._cache("embed"), texts, compute), self.name, texts, what="embeddings")
