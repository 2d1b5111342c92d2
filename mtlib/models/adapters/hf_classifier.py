"""Hugging Face sequence classifiers (``AutoModelForSequenceClassification``), e.g. siebert, roberta-large-mnli."""

from __future__ import annotations

import json
from pathlib import Path

from mtlib.models.adapters.transformer import TransformerModel
from mtlib.models.capabilities import Capabilities, register_adapter

__all__ = ["HFClassifierModel"]


def is_classifier_folder(folder: Path) -> bool:
    """Whether a Hugging Face folder's config names an architecture ending in ``ForSequenceClassification``."""
    try:
        archs = json.loads((folder / "config.json").read_text()).get("architectures") or []
    except (OSError, ValueError, AttributeError):
        archs = []
    return any(str(a).endswith("ForSequenceClassification") for a in archs)


@register_adapter(is_classifier_folder, priority=10)
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
