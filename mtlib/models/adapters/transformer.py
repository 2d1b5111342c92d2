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

from mtlib.models.adapters.tokens import TokenRow, pad_rows, same_batches, span_masks, tokenise
from mtlib.models.base import Features, Model, masked_mean, softmax
from mtlib.models.capabilities import Capabilities
from mtlib.models.inference.backends import BACKENDS, ONNX_MAX_TOKENS, OnnxEncoder, onnx_encoder, resolve_backend
from mtlib.models.inference.numerics import PRECISIONS, check_finite, device_class, precision_context, resolve_precision
from mtlib.models.inference.spans import SpanRequest
from mtlib.models.weights.identity import model_identity
from mtlib.models.weights.resolve import Resolved
from mtlib.utils.batching import Prefetcher, resolve_device, run_batched, to_device
from mtlib.utils.cache import CHUNK_SIZE, cached_rows, input_key

__all__ = ["TransformerModel"]

#: What :meth:`TransformerModel.features` outputs, as a non-finite refusal names it.
FEATURES = "forward-pass outputs (pooled states, logits, spans)"


class TransformerModel(Model):
    """A Hugging Face model behind a fast tokenizer (base of the transformer families).

    Subclasses set ``tokenizer``, ``backbone`` (the module whose forward
    returns hidden states), ``head_model`` (``None`` or the module with
    logits) and implement :meth:`_load` (and :meth:`_encode` and
    :meth:`_embed_encoded` when a sentence is not the masked mean of the last layer).

    ``embed`` runs on :attr:`backend`: ``"torch"``, or ``"onnx"`` (the same
    function exported once into the cache and run by onnxruntime, fp32,
    :mod:`mtlib.models.inference.backends`); everything else runs in torch. Every torch
    forward pass runs in :attr:`precision` (fp32 unless asked,
    :mod:`mtlib.models.inference.numerics`), and the cache keys of its outputs say so.

    Each input is tokenised once per call (:mod:`~mtlib.models.adapters.tokens`):
    its ids give its length, the batches are cut by a token budget over the
    sorted lengths, and each batch is padded from the ids. On a GPU the next
    chunk is tokenised in a background thread (:attr:`prefetch`) while the
    current one runs, and batches travel from pinned memory.
    """

    capabilities = Capabilities(finetune="encoder")
    #: The fast tokenizer, the module returning hidden states and (classifiers) the module with logits.
    tokenizer: Any
    backbone: Any
    head_model: Any
    st: Any
    backends = BACKENDS
    precisions = PRECISIONS

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
        #: Tokenise the next chunk in a background thread (on a GPU; a CPU's forward pass uses every core).
        self.prefetch = device_class(device) != "cpu"
        self._onnx: OnnxEncoder | None = None
        self._one_pass: dict[str, bool] = {}

    def set_backend(self, backend: str | None) -> None:
        """Run :meth:`embed` on ``backend`` (``"torch"``, ``"onnx"``, ``"auto"``; see :func:`resolve_backend`).

        Raises:
            ValueError: an unknown backend, or ``"onnx"`` for a model whose precision is not fp32.
        """
        backend = resolve_backend(backend)
        if backend == "onnx" and self.precision != "fp32":
            raise ValueError(
                f"{self.name}: backend='onnx' runs an fp32 graph; precision={self.precision!r} needs backend='torch'"
            )
        if backend != self.backend:
            super().set_backend(backend)
            self._onnx = None

    def set_precision(self, precision: str | None) -> None:
        """Run every forward pass in ``precision`` (``"fp32"``, ``"tf32"``, ``"bf16"``, ``"fp16"``, ``"auto"``).

        Raises:
            ValueError: an unknown precision (:func:`~mtlib.models.inference.numerics.resolve_precision`), or one
                other than fp32 while :meth:`embed` runs on the ONNX backend.
        """
        precision = resolve_precision(precision)
        if precision != "fp32" and self.backend == "onnx":
            raise ValueError(f"{self.name}: precision={precision!r} needs backend='torch' (the ONNX graph is fp32)")
        super().set_precision(precision)

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

    # -- tokens ------------------------------------------------------------
    def _lengths(self, texts: Sequence[str], pairs: Sequence[str] | None = None) -> list[int]:
        """Tokens of each text (pair), truncated to :attr:`max_length`."""
        return [len(r["input_ids"]) for r in tokenise(self.tokenizer, texts, pairs, self.max_length)]

    def _to_device(self, batch: dict[str, Any]) -> dict[str, Any]:
        return to_device(batch, self.device)

    def _reference(self, texts: list[str], pairs: list[str] | None) -> Any:
        """One batch tokenised and padded by the tokenizer itself (what :func:`pad_rows` must equal)."""
        return self.tokenizer(
            texts, pairs, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        )

    def _fast(self, what: str) -> bool:
        """Whether one-pass encoding gives this model's own batches (``"embed"`` or ``"features"``), checked once."""
        if what not in self._one_pass:
            ref = (lambda t, p: self._encode(t)) if what == "embed" else self._reference
            try:
                self._one_pass[what] = same_batches(self.tokenizer, ref, self.max_length, pairs=what == "features")
            except Exception:  # noqa: BLE001 - e.g. a tokenizer without a pad token: per batch, as it always was
                self._one_pass[what] = False
        return self._one_pass[what]

    def _rows(self, texts: list[str], pairs: list[str] | None, offsets: bool = False) -> list[TokenRow]:
        """The inputs tokenised once: ids (their lengths cut the batches) and the inputs themselves."""
        rows = tokenise(self.tokenizer, texts, pairs, self.max_length, offsets)
        for i, row in enumerate(rows):
            row["text"] = texts[i]
        return rows

    def _batches(self, rows: list[TokenRow], fn: Any, budget: int) -> np.ndarray:
        """``fn`` over length-sorted batches of ``rows`` under ``budget`` tokens, rows back in order."""
        lengths = [len(r["input_ids"]) for r in rows]
        return run_batched(rows, fn, lengths=lengths, max_tokens=budget, show_progress=False)

    # -- embed -------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)

        budget = ONNX_MAX_TOKENS if self.backend == "onnx" else self.max_tokens  # the graph runs on the CPU
        following = _following(texts, lambda t: t)
        op = ("embed", *self.numerics_parts()) if self.backend == "torch" else ("embed", f"backend={self.backend}")
        # decided before any background tokenising: a tokenizer's call sets its padding and truncation state
        fast = self._fast("embed")
        if fast:
            self._extras()  # a pipeline's own preprocessing, run (and kept) before the background thread starts
        with Prefetcher(lambda part: self._rows(part, None), enabled=self.prefetch and fast) as ahead:

            def compute(batch_texts: list[str]) -> np.ndarray:
                rows = ahead.take(batch_texts)
                ahead.ahead(following(batch_texts))
                out = self._batches(rows, self._embed_batch, budget)
                return check_finite(out, self.name, batch_texts, what="embeddings")  # refused before it is cached

            out = cached_rows(self._cache(*op), texts, compute, desc=f"embed {self.name}")
        return check_finite(out, self.name, texts, what="embeddings")

    def _embed_batch(self, rows: list[TokenRow]) -> np.ndarray:
        self.calls += 1
        texts = [r["text"] for r in rows]
        batch = {**pad_rows(rows, self.tokenizer), **self._extras()} if self._fast("embed") else self._encode(texts)
        if self.backend == "onnx":
            return self.onnx(batch)
        with precision_context(self.device, self.precision or "fp32"):
            return self._embed_encoded(self._to_device(batch)).float().cpu().numpy()

    def _extras(self) -> dict[str, Any]:
        """What :meth:`_encode` gives besides tensors (a pipeline's ``modality``...), sent with padded batches."""
        return {}

    def _encode(self, texts: list[str]) -> Any:
        """One batch tokenised for :meth:`_embed_encoded`: torch tensors ``(b, t)`` by name (on the CPU)."""
        return self._reference(texts, None)

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
            NonFiniteOutputError: the model gave NaN or infinite values (naming the first input).
        """
        texts = list(texts)
        n = len(texts)
        pairs = list(text_pairs) if text_pairs is not None else None
        layer, m = self._check_features(n, pairs, layer, spans)
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

        def prepare(part: list[dict[str, Any]]) -> list[TokenRow]:
            second = [it["p"] for it in part] if pairs is not None else None
            rows = self._rows([it["t"] for it in part], second, offsets=m > 0)
            for row, it in zip(rows, part):
                row["item"] = it
            return rows

        following = _following(items, input_key)
        op = ("features", f"layer={layer}", f"spans={m}", f"pair={pairs is not None}", "logits")
        fast = self._fast("features")  # before any background tokenising, as in embed
        with Prefetcher(prepare, key=input_key, enabled=self.prefetch and fast) as ahead:

            def compute(batch_items: list[dict[str, Any]]) -> np.ndarray:
                rows = ahead.take(batch_items)
                ahead.ahead(following(batch_items))
                out = self._batches(rows, lambda b: self._features_batch(b, layer, m), self.max_tokens)
                return check_finite(out, self.name, [_shown(it) for it in batch_items], what=FEATURES)

            rows = (
                cached_rows(self._cache(*op, *self.numerics_parts()), items, compute, desc=f"forward {self.name}")
                if n
                else np.zeros((0, hidden + k + m * hidden))
            )
        check_finite(rows, self.name, [_shown(it) for it in items], what=FEATURES)
        pooled = rows[:, :hidden]
        logits = rows[:, hidden : hidden + k].astype(np.float64) if k else None
        probs = softmax(logits) if logits is not None else None
        span_arr = rows[:, hidden + k :].reshape(n, m, hidden) if m else None
        return Features(pooled=pooled, probs=probs, spans=span_arr, labels=list(self.labels), logits=logits)

    def _check_features(
        self, n: int, pairs: list[str] | None, layer: int | None, spans: Sequence[Sequence[SpanRequest]] | None
    ) -> tuple[int | None, int]:
        """The hidden-state index (negative counted from the end) and spans per input, after checking the request."""
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
        return layer, m

    def _features_batch(self, rows: list[TokenRow], layer: int | None, m: int) -> np.ndarray:
        import torch

        self.calls += 1
        items = [r["item"] for r in rows]
        if self._fast("features"):
            enc = pad_rows(rows, self.tokenizer)
            left = getattr(self.tokenizer, "padding_side", "right") == "left"
            token_masks = span_masks(rows, items, enc["input_ids"].shape[1], left) if m else None
        else:
            enc, token_masks = self._features_reference(items, m)
        with precision_context(self.device, self.precision or "fp32"):
            model_in = self._to_device(enc)
            last, at_layer, logits = self._backbone_hidden(model_in, layer)
            parts = [masked_mean(last, model_in["attention_mask"]).float()]
            if self.head_model is not None:
                parts.append(logits.float())
            if m:
                assert token_masks is not None
                masks = token_masks.to(at_layer.device)
                pooled = torch.einsum("bmt,bth->bmh", masks, at_layer.float()) / masks.sum(-1, keepdim=True)
                parts.append(pooled.reshape(len(items), -1))
            return torch.cat(parts, dim=1).cpu().numpy()

    def _features_reference(self, items: list[dict[str, Any]], m: int) -> tuple[dict[str, Any], Any]:
        """One batch tokenised and padded by the tokenizer, and its span masks (a tokenizer that pads otherwise)."""
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
        if not m:
            return dict(enc), None
        offsets = enc.pop("offset_mapping")
        rows = [
            {"input_ids": enc["input_ids"][b], "offsets": offsets[b].tolist(), "sequence_ids": enc.sequence_ids(b)}
            for b in range(len(items))
        ]
        return dict(enc), span_masks(rows, items, enc["input_ids"].shape[1], left=False)


def _shown(item: dict[str, Any]) -> Any:
    """An input of :meth:`TransformerModel.features` as a message shows it: the text, or (text, pair)."""
    return (item["t"], item["p"]) if "p" in item else item["t"]


def _following(items: Sequence[Any], key: Any) -> Any:
    """``following(part)``: the unique items after ``part``'s last one, as many as a cache chunk holds.

    The guess of the part :func:`~mtlib.utils.cache.cached_rows` computes next (exact on a cold cache; a
    cached item in it is tokenised for nothing), which a :class:`~mtlib.utils.batching.Prefetcher` prepares.
    """
    unique: dict[Any, Any] = {}
    for item in items:
        unique.setdefault(key(item), item)
    order = list(unique.values())
    position = {k: i for i, k in enumerate(unique)}

    def following(part: Sequence[Any]) -> list[Any]:
        if not part:
            return []
        start = position.get(key(part[-1]), len(order)) + 1
        return order[start : start + CHUNK_SIZE]

    return following
