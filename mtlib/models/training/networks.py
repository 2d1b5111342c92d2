"""Trainable torch networks built from a loaded model, for ``classifier(..., how="finetune")``.

Intuition: fine-tuning trains the encoder and a fresh head together. What
the encoder is differs per family, what the loop does does not:

- a sentence-transformers pipeline runs its transformer and its own pooling
  (and normalisation), then the head;
- a Hugging Face encoder pools its last layer (masked mean, or the first
  token), then the head;
- a Hugging Face sequence classifier keeps its own classification layer
  (re-initialised when the task's labels differ from its own);
- a word-piece static model (``minilm-static``) tunes its embedding table,
  mean-pools the word pieces, then the head.

Text pairs are one input through the tokenizer's pair encoding (a
cross-encoder) for transformers, or, with ``architecture="siamese"``, each
text encoded on its own by the same transformer (masked mean of its last
layer, no normalisation) and the head on ``[u, v, |u - v|, u * v]``; a static
model has no attention across the two texts, so it always pools each and uses
those features. A siamese network scores a whole vocabulary's ordered pairs
from one vector per word (:mod:`mtlib.models.training.siamese`).

:class:`Encoder` pre-tokenises examples once (ids per example) and collates
batches padded to their longest member (dynamic padding) or to a fixed
length (the benchmark's baseline).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mtlib.models.base import Model, label_position, masked_mean
from mtlib.models.training.heads import mlp

__all__ = [
    "Encoder",
    "build_network",
    "pair_features_torch",
    "freeze_lower_layers",
    "transformer_layers",
    "word_embeddings",
]


class Encoder:
    """Tokenises texts (or pairs) once and pads batches for one network.

    Args:
        tokenizer: The model's fast tokenizer.
        max_length: Truncation length in tokens.
        static: Word pieces without special tokens, each text of a pair on its own.
        siamese: Each text of a pair tokenised on its own, with special tokens (keys of the second text end
            in ``_2``), for a siamese transformer.
    """

    def __init__(self, tokenizer: Any, max_length: int, static: bool, siamese: bool = False) -> None:
        self.tokenizer, self.max_length, self.static, self.siamese = tokenizer, max_length, static, siamese

    def encode(self, texts: Sequence[str], pairs: Sequence[str] | None) -> list[dict[str, list[int]]]:
        """One dict of token lists per example."""
        if self.static:
            ids = self.tokenizer(list(texts), add_special_tokens=False, truncation=True, max_length=self.max_length)[
                "input_ids"
            ]
            if pairs is None:
                return [{"input_ids": row} for row in ids]
            ids2 = self.tokenizer(list(pairs), add_special_tokens=False, truncation=True, max_length=self.max_length)[
                "input_ids"
            ]
            return [{"input_ids": a, "input_ids_2": b} for a, b in zip(ids, ids2)]
        if self.siamese and pairs is not None:
            first, second = self.encode(texts, None), self.encode(pairs, None)
            return [{**a, **{f"{k}_2": v for k, v in b.items()}} for a, b in zip(first, second)]
        enc = self.tokenizer(
            list(texts), list(pairs) if pairs is not None else None, truncation=True, max_length=self.max_length
        )
        keys = [k for k in ("input_ids", "attention_mask", "token_type_ids") if k in enc]
        return [{k: enc[k][i] for k in keys} for i in range(len(texts))]

    @staticmethod
    def length(example: dict[str, list[int]]) -> int:
        """Tokens of an example (the longer text of a static pair)."""
        return max(len(example["input_ids"]), len(example.get("input_ids_2", [])))

    def collate(self, examples: list[dict[str, list[int]]], pad_to: int | None = None) -> dict[str, Any]:
        """Tensors of one batch, padded to its longest example (or to ``pad_to`` tokens)."""
        import torch

        if self.static:
            out = {}
            for key, mask_key in (("input_ids", "mask"), ("input_ids_2", "mask_2")):
                if key not in examples[0]:
                    continue
                width = pad_to or max(1, max(len(e[key]) for e in examples))
                ids = torch.zeros((len(examples), width), dtype=torch.long)
                mask = torch.zeros((len(examples), width))
                for i, e in enumerate(examples):
                    row = e[key][:width]
                    ids[i, : len(row)] = torch.as_tensor(row, dtype=torch.long)
                    mask[i, : len(row)] = 1.0
                out[key], out[mask_key] = ids, mask
            return out
        padding = "max_length" if pad_to else "longest"
        if self.siamese and "input_ids_2" in examples[0]:
            out = self.collate([{k: v for k, v in e.items() if not k.endswith("_2")} for e in examples], pad_to)
            second = self.collate([{k[:-2]: v for k, v in e.items() if k.endswith("_2")} for e in examples], pad_to)
            return {**out, **{f"{k}_2": v for k, v in second.items()}}
        return dict(self.tokenizer.pad(examples, padding=padding, max_length=pad_to, return_tensors="pt"))


def _head_module(d_in: int, k: int, head: str, hidden: Sequence[int], dropout: float):
    return mlp(d_in, tuple(hidden) if head == "mlp" else (), k, dropout=dropout)


def build_network(
    model: Model,
    k: int,
    labels: Sequence[Any],
    *,
    head: str,
    hidden: Sequence[int],
    pooling: str,
    pairs: bool,
    max_length: int = 128,
    architecture: str = "cross",
) -> tuple[Any, Encoder, str]:
    """A fresh trainable copy of ``model`` with a ``k``-class head.

    The loaded model is never modified: weights are read again from its
    folder (or copied, for the static table). ``architecture="siamese"`` with
    ``pairs`` encodes each text of a pair on its own (a transformer encoder or
    pipeline; a static table always does).

    Returns:
        ``(network, encoder, head_used)``; ``network(**batch) -> logits (b, k)``;
        ``head_used`` is ``"native"`` when a classifier keeps its own layer.
    """
    way = model.capabilities.finetune  # how its family fine-tunes, declared by its adapter
    adapter: Any = model  # its family's attributes: matrix, tokenizer, dim
    max_length = int(min(max_length, getattr(model, "max_length", 512)))
    if way == "static-table":
        net = _static_network(adapter.matrix, k, head, hidden, pairs)
        return net, Encoder(adapter.tokenizer, max_length, static=True), head
    path = getattr(model, "path", None)
    if path is None or way is None:
        raise ValueError(f"{model.name} ({model.kind}) cannot be fine-tuned: {model.capabilities.why_not_finetune}")
    siamese = architecture == "siamese" and pairs
    encoder = Encoder(adapter.tokenizer, max_length, static=False, siamese=siamese)
    if siamese and way in ("pipeline", "encoder"):
        return (
            _siamese_network(path, k, head=head, hidden=hidden, pooling=pooling, pipeline=way == "pipeline"),
            encoder,
            head,
        )
    if siamese:
        raise ValueError(f"{model.name} ({model.kind}) has no separate encoder for architecture='siamese'")
    if way == "classifier":
        return _classifier_network(model, path, k, labels), encoder, "native"
    network = _encoder_network(adapter, path, k, head=head, hidden=hidden, pooling=pooling, pipeline=way == "pipeline")
    return network, encoder, head


def word_embeddings(net: Any) -> Any:
    """The word-embedding module of a network from :func:`build_network` (weight ``(vocabulary, d)``).

    A static network's table, else the input embeddings of the first Hugging
    Face model inside (a sentence-transformers pipeline's transformer, an
    encoder, a sequence classifier's body). Freezing it (``requires_grad``
    False) is what ``train_embeddings=False`` does: for MiniLM it is 11.7M of
    22.7M weights, and a short fine-tune moves it little.

    Raises:
        ValueError: ``net`` holds no word-embedding matrix.
    """
    from transformers import PreTrainedModel

    table = getattr(net, "embedding", None)
    if table is not None:
        return table
    for module in net.modules():
        if isinstance(module, PreTrainedModel):
            return module.get_input_embeddings()
    raise ValueError(f"net: no word-embedding matrix in {type(net).__name__}")


def transformer_layers(net: Any) -> tuple[Any, Any] | None:
    """``(embeddings module, layer list)`` of the first Hugging Face transformer in ``net``, else None.

    The layer list is the ``nn.ModuleList`` of as many blocks as the model's ``config.num_hidden_layers``
    (``encoder.layer`` in BERT, RoBERTa, XLM-R, MiniLM); the embeddings module is the model's
    ``embeddings`` (words, positions, token types and their LayerNorm). A static network has neither.
    """
    from torch import nn
    from transformers import PreTrainedModel

    for module in net.modules():
        if isinstance(module, PreTrainedModel):
            depth = getattr(module.config, "num_hidden_layers", None)
            base = getattr(module, module.base_model_prefix, module)
            for child in base.modules():
                if isinstance(child, nn.ModuleList) and len(child) == depth:
                    return getattr(base, "embeddings", None), child
            return None
    return None


def freeze_lower_layers(net: Any, train_layers: int | str) -> tuple[int, int]:
    """Freeze every transformer block below the top ``train_layers`` (``"all"``: freeze none).

    Intuition: the backward pass of a fine-tune costs about twice its forward pass; blocks below the
    lowest trained one need no backward at all (autograd records nothing where no input or weight wants
    a gradient). Training the top 3 of MiniLM's 6 blocks made a CPU fine-tune 1.5 times faster than
    training all 6 (``benchmarks/bench_training.py``), but on notebook 05's Yelp task it cost 8 points of
    held-out accuracy (``benchmarks/finetune_accuracy.py``): a trade a user may choose, so the default
    trains every block. The embeddings module below the blocks (positions, token types, their LayerNorm)
    is frozen with them unless every block trains, the word-embedding matrix too: call it before
    ``train_embeddings`` decides that matrix (as :func:`mtlib.models.training.finetune.finetune_network` does).

    Args:
        net: A network from :func:`build_network`.
        train_layers: Top blocks to train (at least 1; the depth or more trains them all), or ``"all"``.

    Returns:
        ``(blocks trained, blocks in all)``; ``(0, 0)`` for a network without transformer blocks.
    """
    found = transformer_layers(net)
    if found is None:
        return 0, 0
    embeddings, layers = found
    depth = len(layers)
    trained = depth if train_layers == "all" else max(1, min(int(train_layers), depth))
    if trained < depth:
        for module in ([embeddings] if embeddings is not None else []) + list(layers[: depth - trained]):
            for weight in module.parameters():
                weight.requires_grad_(False)
    return trained, depth


def _static_network(table: Any, k: int, head: str, hidden: Sequence[int], pairs: bool) -> Any:
    """A tunable copy of a word-piece table ``(vocabulary, d)``, mean-pooled, then the head (pairs: 4 d inputs)."""
    import torch
    from torch import nn

    matrix = torch.as_tensor(np.array(table, dtype=np.float32))

    class StaticNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding.from_pretrained(matrix, freeze=False)
            self.head = _head_module(matrix.shape[1] * (4 if pairs else 1), k, head, hidden, 0.0)

        def _pool(self, ids: Any, mask: Any) -> Any:
            return masked_mean(self.embedding(ids), mask)

        def pooled(self, input_ids: Any, mask: Any, **_: Any) -> Any:
            """Sentence embeddings ``(b, d)``: the mean of the tuned word-piece vectors."""
            return self._pool(input_ids, mask)

        def forward(self, input_ids: Any, mask: Any, input_ids_2: Any = None, mask_2: Any = None) -> Any:
            u = self._pool(input_ids, mask)
            if input_ids_2 is None:
                return self.head(u)
            v = self._pool(input_ids_2, mask_2)
            return self.head(pair_features_torch(u, v))

    return StaticNet()


def _classifier_network(model: Model, path: Any, k: int, labels: Sequence[Any]) -> Any:
    """A Hugging Face sequence classifier keeping its own layer (columns in ``labels`` order), or a fresh one."""
    import torch
    from torch import nn
    from transformers import AutoModelForSequenceClassification

    own = list(model.labels)
    try:
        perm = [label_position(own, lab, model.name) for lab in labels]
        same = sorted(perm) == list(range(len(own)))
    except KeyError:
        same = False
    if same:
        body = AutoModelForSequenceClassification.from_pretrained(path)
    else:
        perm = list(range(k))
        body = AutoModelForSequenceClassification.from_pretrained(
            path,
            num_labels=k,
            ignore_mismatched_sizes=True,
            id2label={i: str(lab) for i, lab in enumerate(labels)},
            label2id={str(lab): i for i, lab in enumerate(labels)},
        )
    index = torch.as_tensor(perm, dtype=torch.long)

    class ClassifierNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = body

        def forward(self, **batch: Any) -> Any:
            return self.body(**batch).logits[:, index.to(batch["input_ids"].device)]

        def pooled(self, **batch: Any) -> Any:
            """Sentence embeddings ``(b, h)``: masked mean of the last hidden layer."""
            hidden_states = self.body(**batch, output_hidden_states=True).hidden_states[-1]
            return masked_mean(hidden_states, batch["attention_mask"])

    return ClassifierNet()


def _encoder_network(
    adapter: Any, path: Any, k: int, *, head: str, hidden: Sequence[int], pooling: str, pipeline: bool
) -> Any:
    """A sentence-transformers pipeline (own pooling) or a Hugging Face encoder (mean or first token), and a head."""
    from torch import nn

    if pipeline:
        from sentence_transformers import SentenceTransformer

        st = SentenceTransformer(str(path), device="cpu")
        width = int(adapter.dim)

        def embed(body: Any, batch: dict[str, Any]) -> Any:
            return body(dict(batch))["sentence_embedding"]
    else:
        from transformers import AutoModel

        st = AutoModel.from_pretrained(path)
        width = int(st.config.hidden_size)

        def embed(body: Any, batch: dict[str, Any]) -> Any:
            hidden_states = body(**batch).last_hidden_state
            return hidden_states[:, 0] if pooling == "first" else masked_mean(hidden_states, batch["attention_mask"])

    class EncoderNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = st
            self.head = _head_module(width, k, head, hidden, 0.1)

        def forward(self, **batch: Any) -> Any:
            return self.head(embed(self.body, batch))

        def pooled(self, **batch: Any) -> Any:
            """Sentence embeddings ``(b, d)`` of the tuned encoder (the head's input)."""
            return embed(self.body, batch)

    return EncoderNet()


def pair_features_torch(u: Any, v: Any) -> Any:
    """``[u, v, |u - v|, u * v]`` of two ``(b, d)`` tensors, shape ``(b, 4 d)`` (the siamese head's input)."""
    import torch

    return torch.cat([u, v, (u - v).abs(), u * v], dim=-1)


def _siamese_network(path: Any, k: int, *, head: str, hidden: Sequence[int], pooling: str, pipeline: bool) -> Any:
    """One transformer encodes each text of a pair; a head on ``[u, v, |u - v|, u * v]`` of the pooled vectors.

    Pooling is the masked mean of the last layer (or the first token), without a pipeline's normalisation
    (a sentence-transformers folder contributes its transformer only): CogALex-VI's measured recipe.
    """
    from torch import nn

    if pipeline:
        from sentence_transformers import SentenceTransformer

        body = SentenceTransformer(str(path), device="cpu")[0].auto_model
    else:
        from transformers import AutoModel

        body = AutoModel.from_pretrained(path)
    width = int(body.config.hidden_size)

    class SiameseNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = body
            self.head = _head_module(4 * width, k, head, hidden, 0.1)

        def pooled(self, **batch: Any) -> Any:
            """Vectors ``(b, h)`` of the first text of each example (every text has one, alone)."""
            side = {key: value for key, value in batch.items() if not key.endswith("_2")}
            states = self.body(**side).last_hidden_state
            return states[:, 0] if pooling == "first" else masked_mean(states, side["attention_mask"])

        def forward(self, **batch: Any) -> Any:
            u = self.pooled(**batch)
            if "input_ids_2" not in batch:
                raise ValueError("a siamese network classifies text pairs: both texts are needed")
            v = self.pooled(**{key[:-2]: value for key, value in batch.items() if key.endswith("_2")})
            return self.head(pair_features_torch(u, v))

    return SiameseNet()
