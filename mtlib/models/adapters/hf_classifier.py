"""Hugging Face sequence classifiers (``AutoModelForSequenceClassification``), e.g. siebert, roberta-large-mnli."""

from __future__ import annotations

from mtlib.models.adapters.transformer import TransformerModel
from mtlib.models.capabilities import Capabilities

__all__ = ["HFClassifierModel"]


class HFClassifierModel(TransformerModel):
    """A Hugging Face classifier folder: ``classify`` uses its own head, labels from ``config.id2label``.

    ``embed`` and ``features(...).pooled`` are the masked mean of the last
    hidden layer, from the same forward pass as the logits.
    """

    kind = "hf-classifier"
    capabilities = Capabilities(finetune="classifier", keeps_own_head=True)

    def _load(self) -> None:
        from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

        config = AutoConfig.from_pretrained(self.path)
        self.tokenizer = AutoTokenizer.from_pretrained(self.path)
        self.head_model = AutoModelForSequenceClassification.from_pretrained(self.path).to(self.device).eval()
        self.backbone = self.head_model
        self.labels = [config.id2label[i] for i in range(config.num_labels)]
