"""Plain Hugging Face encoders (``AutoModel``): a sentence is the mean of its last-layer token states."""

from __future__ import annotations

from mtlib.models.adapters.transformer import TransformerModel
from mtlib.models.capabilities import Capabilities, register_adapter

__all__ = ["HFEncoderModel"]


@register_adapter(lambda folder: True, priority=0)  # any other model folder: a plain encoder
class HFEncoderModel(TransformerModel):
    """A Hugging Face encoder folder without a task head (e.g. ``bert-base-uncased``).

    ``embed`` is the masked mean of the last layer's token embeddings.
    """

    kind = "hf-encoder"
    capabilities = Capabilities(finetune="encoder")

    def _load(self) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(self.path)
        self.backbone = AutoModel.from_pretrained(self.path).to(self.device).eval()
