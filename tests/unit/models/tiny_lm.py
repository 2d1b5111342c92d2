"""A tiny causal LM made here: a 2-layer Llama from a config and a word-level tokenizer with a chat template.

No hub, no download: its weights are random (seeded), so its predictions mean nothing, but every code path
of :mod:`mtlib.models.adapters.causal_lm` (batching, left padding, the prefix's key/value cache, the cache
of scores) runs on it exactly as on a real model.
"""

from __future__ import annotations

from pathlib import Path

#: ChatML, as SmolLM2's (a system turn first when none is given).
CHAT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a tiny model<|im_end|>\\n' }}{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
WORDS = (
    "system you are a tiny model user assistant is the sentiment of movie review positive or negative answer with "
    "one word does premise entail hypothesis yes no maybe good bad film great awful plot dull luminous it was "
    'not very and but : ? . , " kind part opposite mean same two words question about dog poodle animal cat '
    "text shot"
).split()


def make_tiny_lm(folder: Path, *, chat: bool = True, seed: int = 0, layers: int = 2) -> Path:
    """Write a tiny ``LlamaForCausalLM`` and its tokenizer into ``folder``; returns the folder."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<unk>", "<pad>", "<|im_start|>", "<|im_end|>"]
    vocab = {w: i for i, w in enumerate(dict.fromkeys([*specials, *WORDS]))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<|im_end|>", bos_token="<|im_start|>"
    )
    fast.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    if chat:
        fast.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        pad_token_id=vocab["<pad>"],
        bos_token_id=vocab["<|im_start|>"],
        eos_token_id=vocab["<|im_end|>"],
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder
