"""Shared machinery of the three transformer families (pipeline, encoder, classifier).

Every transformer adapter tokenises, sorts inputs by token length, runs
batches under a token budget and caches rows by input. What differs per
family (how the folder is loaded, how a sentence is pooled, whether there
are logits) lives in the family's own module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mtlib.models.backends import BACKENDS, ONNX_MAX_TOKENS, OnnxEncoder, onnx_encoder, resolve_backend
from mtlib.models.base import Features, Model, masked_mean, softmax
from mtlib.models.identity import model_identity
from mtlib.models.resolve import Resolved
from mtlib.models.spans import SpanRequest, substring_token_mask
from mtlib.utils.batching import inference_context, resolve_device, run_batched
from mtlib.utils.cache import cached_rows

__all__ = ["TransformerModel"]


class TransformerModel(Model):
    """A Hugging Face model behind a fast tokenizer (base of the transformer families).

    Subclasses set ``tokenizer``, ``backbone`` (the module whose forward
    returns hidden states), ``head_model`` (``None`` or the module with
    logits) and implement :meth:`_load` (and :meth:`_encode` and
    :meth:`_embed_encoded` when a sentence is not the masked mean of the last layer).

    ``embed`` runs on :attr:`backend`: ``"torch"``, or ``"onnx"`` (the same
    function exported once into the cache and run by onnxruntime, fp32,
    :mod:`mtlib.models.backends`); everything else runs in torch.
    """

    can_finetune = True
    #: The fast tokenizer, the module returning hidden states and (classifiers) the module with logits.
    tokenizer: Any
    backbone: Any
    head_model: Any
    st: Any
    backends = BACKENDS

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:
        import torch  # noqa: F401  (fail early with a clear import error)

        device = resolve_device(device)
        super().__init__(resolved.name, model_identity(resolved), device, use_cache)
        assert resolved.path is not None
        self.path = resolved.path
        self.resolved = resolved
        self.st = None
        self.head_model = None
        self._load()
        self.max_length = int(min(getattr(self.tokenizer, "model_max_length", 512) or 512, 512))
        self.max_tokens = 65536 if device.startswith("cuda") else 2048  # measured best on a 2-core CPU
        self.backend = "torch"
        self._onnx: OnnxEncoder | None = None

    def set_backend(self, backend: str | None) -> None:
        """Run :meth:`embed` on ``backend`` (``"torch"``, ``"onnx"``, ``"auto"``; see :func:`resolve_backend`).

        Raises:
            ValueError: an unknown backend.
        """
        backend = resolve_backend(backend)
        if backend != self.backend:
            self.backend, self._onnx = backend, None

    @property
    def onnx(self) -> OnnxEncoder:
        """The ONNX encoder of :meth:`embed`: read from the cache, or exported there on first use."""
        if self._onnx is None:
            self._onnx = onnx_encoder(self, use_cache=self.use_cache)
        return self._onnx

    def _load(self) -> None:
        raise NotImplementedError

    @property
    def num_layers(self) -> int:
        """Number of transformer layers (``hidden_states`` has one more entry)."""
        cfg = self.backbone.config
        return int(getattr(cfg, "num_hidden_layers", getattr(cfg, "num_layers", 0)))

    @property
    def dim(self) -> int:
        """Width of :meth:`embed`'s vectors."""
        return int(self.backbone.config.hidden_size)

    # -- helpers -----------------------------------------------------------
    def _lengths(self, texts: Sequence[str], pairs: Sequence[str] | None = None) -> list[int]:
        enc = self.tokenizer(
            list(texts),
            list(pairs) if pairs is not None else None,
            add_special_tokens=True,
            truncation=True,
            max_length=self.max_length,
        )
        return [len(ids) for ids in enc["input_ids"]]

    def _to_device(self, batch: dict[str, Any]) -> dict[str, Any]:
        return {k: (v.to(self.device) if hasattr(v, "to") else v) for k, v in batch.items()}

    # -- embed -------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)

        budget = ONNX_MAX_TOKENS if self.backend == "onnx" else self.max_tokens  # the graph runs on the CPU

        def compute(batch_texts: list[str]) -> np.ndarray:
            return run_batched(
                batch_texts,
                self._embed_batch,
                lengths=self._lengths(batch_texts),
                max_tokens=budget,
                show_progress=False,
            )

        op = ("embed",) if self.backend == "torch" else ("embed", f"backend={self.backend}")
        return cached_rows(self._cache(*op), texts, compute, desc=f"embed {self.name}")

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.backend == "onnx":
            return self.onnx(self._encode(texts))
        with inference_context(self.device):
            return self._embed_encoded(self._to_device(self._encode(texts))).float().cpu().numpy()

    def _encode(self, texts: list[str]) -> Any:
        """One batch tokenised for :meth:`_embed_encoded`: torch tensors ``(b, t)`` by name (on the CPU)."""
        return self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")

    def _embed_encoded(self, enc: Any) -> Any:
        """Sentence embeddings ``(b, d)`` of one tokenised batch: masked mean of the last layer (torch).

        The function the ONNX backend exports, so both backends compute the same thing.
        """
        return masked_mean(self._backbone_hidden(enc, None)[0], enc["attention_mask"])

    def _backbone_hidden(self, enc: dict[str, Any], layer: int | None) -> tuple[Any, Any, Any]:
        """Run the model once; return (last hidden, layer hidden or None, logits or None)."""
        need_all = layer is not None or self.head_model is not None
        out = self.backbone(**enc, output_hidden_states=need_all, return_dict=True)
        if self.head_model is not None:
            hs = out.hidden_states
            return hs[-1], (hs[layer] if layer is not None else None), out.logits
        states: Any = out.hidden_states if need_all else None
        return out.last_hidden_state, (states[layer] if layer is not None else None), None

    # -- classify ----------------------------------------------------------
    def classify(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        if self.head_model is None:
            return super().classify(texts, text_pairs)
        probs = self.features(texts, text_pairs).probs
        assert probs is not None
        return probs

    def logits(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> np.ndarray:
        if self.head_model is None:
            return super().logits(texts, text_pairs)
        logits = self.features(texts, text_pairs).logits
        assert logits is not None
        return logits

    # -- features ----------------------------------------------------------
    def features(
        self,
        texts: Sequence[str],
        text_pairs: Sequence[str] | None = None,
        *,
        layer: int | None = None,
        spans: Sequence[Sequence[SpanRequest]] | None = None,
    ) -> Features:
        """Pooled output, probabilities and span states from one forward pass.

        Args:
            texts: First segments (e.g. premises), length ``n``.
            text_pairs: Optional second segments (hypotheses), length ``n``.
            layer: Index into the hidden states for the span vectors
                (0 = embeddings, ``num_layers`` = last; negative counts from
                the end, e.g. ``-2`` = second-to-last layer).
            spans: For each input, the same number ``m`` of substrings whose
                word pieces are mean-pooled at ``layer``.

        Returns:
            :class:`Features` with ``pooled (n, h)``, ``probs`` and ``logits``
            ``(n, k)`` when the model has a head, ``spans (n, m, h)`` when requested.

        Raises:
            ValueError: a substring is not in its text, or its tokens were
                cut by truncation; the message names the text and substring.
        """
        texts = list(texts)
        n = len(texts)
        pairs = list(text_pairs) if text_pairs is not None else None
        if pairs is not None and len(pairs) != n:
            raise ValueError(f"{n} texts but {len(pairs)} text_pairs")
        if spans is not None and len(spans) != n:
            raise ValueError(f"{n} texts but {len(spans)} span lists")
        m = len(spans[0]) if spans else 0
        if spans is not None and any(len(s) != m for s in spans):
            raise ValueError("every input needs the same number of spans")
        if spans and layer is None:
            raise ValueError("spans need a layer (e.g. layer=-2 for the second-to-last)")
        if layer is not None and not -(self.num_layers + 1) <= layer <= self.num_layers:
            raise ValueError(
                f"layer={layer}: {self.name} has {self.num_layers} layers, so the hidden-state index "
                f"(the notebooks' 'layer' parameter) must be in {-(self.num_layers + 1)}.."
                f"{self.num_layers} (0 = embeddings, -1 = last layer)"
            )
        if layer is not None and layer < 0:
            layer = self.num_layers + 1 + layer
        items = []
        for i in range(n):
            item: dict[str, Any] = {"t": texts[i]}
            if pairs is not None:
                item["p"] = pairs[i]
            if spans:
                item["s"] = [[s.substring, s.segment, s.occurrence] for s in spans[i]]
            items.append(item)
        hidden = int(self.backbone.config.hidden_size)
        k = len(self.labels) if self.head_model is not None else 0

        def compute(batch_items: list[dict[str, Any]]) -> np.ndarray:
            lengths = self._lengths(
                [it["t"] for it in batch_items], [it["p"] for it in batch_items] if pairs is not None else None
            )
            return run_batched(
                batch_items,
                lambda b: self._features_batch(b, layer, m),
                lengths=lengths,
                max_tokens=self.max_tokens,
                show_progress=False,
            )

        op = ("features", f"layer={layer}", f"spans={m}", f"pair={pairs is not None}", "logits")
        rows = (
            cached_rows(self._cache(*op), items, compute, desc=f"forward {self.name}")
            if n
            else np.zeros((0, hidden + k + m * hidden))
        )
        pooled = rows[:, :hidden]
        logits = rows[:, hidden : hidden + k].astype(np.float64) if k else None
        probs = softmax(logits) if logits is not None else None
        span_arr = rows[:, hidden + k :].reshape(n, m, hidden) if m else None
        return Features(pooled=pooled, probs=probs, spans=span_arr, labels=list(self.labels), logits=logits)

    def _features_batch(self, items: list[dict[str, Any]], layer: int | None, m: int) -> np.ndarray:
        import torch

        self.calls += 1
        texts = [it["t"] for it in items]
        pairs = [it["p"] for it in items] if "p" in items[0] else None
        enc = self.tokenizer(
            texts,
            pairs,
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
            return_offsets_mapping=m > 0,
        )
        token_masks: Any = None
        if m:
            token_masks = torch.zeros((len(items), m, enc["input_ids"].shape[1]))
            offsets = enc.pop("offset_mapping")
            for b, it in enumerate(items):
                seq_ids = enc.sequence_ids(b)
                for j, (sub, seg, occ) in enumerate(it["s"]):
                    text = it["t"] if seg == 0 else it["p"]
                    token_masks[b, j] = torch.as_tensor(
                        substring_token_mask(text, sub, offsets[b].tolist(), seq_ids, seg, occ)
                    )
        with inference_context(self.device):
            model_in = self._to_device({k: v for k, v in enc.items()})
            last, at_layer, logits = self._backbone_hidden(model_in, layer)
            parts = [masked_mean(last, model_in["attention_mask"]).float()]
            if self.head_model is not None:
                parts.append(logits.float())
            if m:
                masks = token_masks.to(at_layer.device)
                pooled = torch.einsum("bmt,bth->bmh", masks, at_layer.float()) / masks.sum(-1, keepdim=True)
                parts.append(pooled.reshape(len(items), -1))
            return torch.cat(parts, dim=1).cpu().numpy()
