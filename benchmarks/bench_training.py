"""Fine-tuning throughput: frozen word embeddings and fused AdamW; length bucketing; the disk cache.

Every figure trains one epoch on short NLI-length sentence pairs (the
bundled monotonicity premises and hypotheses), batch 32, and times the
training loop alone (not building the network), in this process.

First figure (MiniLM), on an idle machine and beside a busy process (one
thread of torch matrix products, ``_common.load``):
``classifier(..., how="finetune")``'s default (the word-embedding matrix
frozen, 11.7M of MiniLM's 22.7M weights: no gradient, no AdamW state; the
fused AdamW update) against the old configuration (every weight trained with the
``foreach`` AdamW update), and the option ``train_layers=3`` (only the top 3
of the 6 blocks trained: the backward pass stops there; it costs accuracy,
see ``finetune_accuracy.py``). All length-bucketed; runs interleaved (old,
default, top3, old...), tokens per second (real tokens, not padding) as the
median over ``--repeats`` runs of each.

Second figure: length-bucketed dynamic padding (batches of similar length,
each padded to its longest member) against random batches padded to 128
tokens, as the SETI paper does, on a tiny BERT built from a config and on
MiniLM (one run each).

Third figure: a second ``classifier`` call with the same inputs and
settings (in-process memo cleared, so it reads the disk cache as a new
process would) against the first call that trained.

Usage: ``python benchmarks/bench_training.py [--n 128] [--repeats 3] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import load as machine_load  # noqa: E402


def nli_pairs(n: int):
    """``(premises, hypotheses, labels)``: the first ``n`` bundled NLI inputs (short sentences)."""
    from mtlib.data import monotonicity

    items = monotonicity.compose(
        monotonicity.load_contexts(monotonicity.BUNDLED_CONTEXTS),
        monotonicity.load_insertions(monotonicity.BUNDLED_INSERTIONS),
    )
    items = items.sample(n=min(n, len(items)), random_state=0)
    return list(items["premise"]), list(items["hypothesis"]), items["entailed"].astype(bool).tolist()


def tiny_bert(folder: Path) -> str:
    """A 2-layer, 64-wide BERT with MiniLM's (BERT's uncased WordPiece) tokenizer, saved to ``folder``."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from mtlib.models.weights.resolve import resolve

    tokenizer = AutoTokenizer.from_pretrained(resolve("minilm").path)
    torch.manual_seed(0)
    BertModel(
        BertConfig(
            vocab_size=len(tokenizer),
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=128,
            max_position_embeddings=512,
        )
    ).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def loop_seconds(
    model, data: dict, settings: dict, labels: list, *, bucketed: bool = True, fused: bool = True
) -> float:
    """Seconds of the training loop of one fine-tune (bucketed+dynamic or random+padded to 128)."""
    from mtlib.models.training.finetune import finetune_network
    from mtlib.models.training.settings import ResolvedTraining

    pad_to = None if bucketed else 128
    plan = ResolvedTraining.from_record(settings)  # the recorded form of these settings, read by attribute
    return finetune_network(model, data, plan, labels, "cpu", pad_to=pad_to, bucketed=bucketed, fused=fused)[2].seconds


#: The three configurations timed on MiniLM: the old one (before issue 29), the default (the word-embedding matrix
#: frozen, the fused AdamW update), and the default with only the top 3 of the 6 blocks trained (an option).
CONFIGS = {
    "old": ({"train_embeddings": True}, False),
    "default": ({"train_embeddings": False}, True),
    "top3": ({"train_embeddings": False, "train_layers": 3}, True),
}


def interleaved_tokens_per_second(
    model, data: dict, settings: dict, labels: list, tokens: int, repeats: int
) -> dict[str, float]:
    """Median tokens/s of each of :data:`CONFIGS`, run interleaved (old, frozen_words, default, old, ...)."""
    import numpy as np

    seconds: dict[str, list[float]] = {name: [] for name in CONFIGS}
    for _ in range(repeats):
        for name, (extra, fused) in CONFIGS.items():
            seconds[name].append(loop_seconds(model, data, {**settings, **extra}, labels, fused=fused))
    return {name: tokens / float(np.median(values)) for name, values in seconds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=128, help="training pairs per run")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs of each MiniLM configuration")
    parser.add_argument("--quick", action="store_true", help="n = 64, 2 repeats")
    args = parser.parse_args()
    os.environ["MTLIB_CACHE"] = tempfile.mkdtemp(prefix="mtlib-bench-cache-")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import numpy as np

    from mtlib import models
    from mtlib.models.training import store

    n = 64 if args.quick else args.n
    repeats = 2 if args.quick else args.repeats
    premises, hypotheses, gold = nli_pairs(n)
    encoder_dir = tiny_bert(Path(tempfile.mkdtemp(prefix="tiny-bert-")))
    labels = [False, True]
    data = {"texts": premises, "pairs": hypotheses, "y": np.array([labels.index(g) for g in gold]), "k": 2}
    settings = {
        "head": "linear",
        "hidden": [],
        "epochs": 1,
        "lr": 2e-5,
        "batch_size": 32,
        "pooling": "mean",
        "max_length": 128,
        "seed": 0,
    }
    figures = []
    minilm = models.load("minilm", device="cpu")
    tokens = sum(len(ids) for ids in minilm.tokenizer(premises, hypotheses)["input_ids"]) * settings["epochs"]
    for kind in ("idle", "busy"):
        with machine_load(kind):
            speed = interleaved_tokens_per_second(minilm, data, settings, labels, tokens, repeats)
        new, old, top3 = speed["default"], speed["old"], speed["top3"]
        print(
            f"minilm, {kind} machine: fine-tuning {n} NLI pairs ({tokens} tokens), one epoch, batch 32, "
            f"length-bucketed, median of {repeats} interleaved runs: the default (word embeddings frozen, fused "
            f"AdamW) {new:.0f} tokens/s vs all weights + foreach AdamW (before issue 29) {old:.0f} tokens/s: "
            f"{new / old:.2f}x; with train_layers=3 (top 3 of 6 blocks, an option that costs accuracy) "
            f"{top3:.0f} tokens/s, {top3 / old:.2f}x",
            flush=True,
        )
        figures += [
            ("finetune_minilm", f"{kind}_default_tokens_per_second", new, "tokens/s"),
            ("finetune_minilm", f"{kind}_trained_foreach_tokens_per_second", old, "tokens/s"),
            ("finetune_minilm", f"{kind}_top3_tokens_per_second", top3, "tokens/s"),
            ("finetune_minilm", f"{kind}_default_speedup", new / old, "x"),
            ("finetune_minilm", f"{kind}_top3_speedup", top3 / old, "x"),
        ]
    for name in (encoder_dir, "minilm"):
        model = minilm if name == "minilm" else models.load(name, device="cpu")
        label = "tiny-bert" if name == encoder_dir else name
        lengths = [len(ids) for ids in model.tokenizer(premises, hypotheses)["input_ids"]]
        padded = n / loop_seconds(model, data, settings, labels, bucketed=False)
        bucketed = n / loop_seconds(model, data, settings, labels, bucketed=True)
        print(
            f"{label}: fine-tuning {n} NLI pairs (mean {np.mean(lengths):.1f}, max {max(lengths)} tokens), one "
            f"epoch, batch 32: length-bucketed dynamic padding {bucketed:.1f} ex/s vs padded to 128 "
            f"{padded:.1f} ex/s: {bucketed / padded:.1f}x"
        )
        figures += [
            (f"finetune_{label}", "bucketed_examples_per_second", bucketed, "ex/s"),
            (f"finetune_{label}", "padded128_examples_per_second", padded, "ex/s"),
            (f"finetune_{label}", "speedup", bucketed / padded, "x"),
        ]

    train = (premises, hypotheses, gold)
    for how, name in (("finetune", encoder_dir), ("head", encoder_dir)):
        label = "tiny-bert" if name == encoder_dir else name
        start = time.perf_counter()
        models.classifier(name, train, how=how, epochs=1, device="cpu")
        first = time.perf_counter() - start
        store._MEMO.clear()  # as a new process: only the disk cache remains
        start = time.perf_counter()
        again = models.classifier(name, train, how=how, epochs=1, device="cpu")
        second = time.perf_counter() - start
        assert again.training.from_cache  # reloaded, not trained
        print(
            f"classifier({label}, how={how!r}) on {n} pairs: first call {first:.2f} s (trains), second "
            f"{second * 1000:.1f} ms (reloads): {100 * second / first:.2f}% of the first"
        )
        figures += [
            (f"classifier_{how}_{label}", "first_call_seconds", first, "s"),
            (f"classifier_{how}_{label}", "second_call_seconds", second, "s"),
            (f"classifier_{how}_{label}", "second_over_first", second / first, "ratio"),
        ]
    for bench, figure, value, unit in figures:
        print(json.dumps({"bench": bench, "figure": figure, "value": value, "unit": unit, "n": n}))


if __name__ == "__main__":
    main()
