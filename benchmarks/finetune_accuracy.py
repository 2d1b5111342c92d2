"""Held-out accuracy of ``train_layers`` choices on the bundled tasks, across seeds (not run by ``make bench``).

A cheaper fine-tuning default must not cost accuracy: for each ``train_layers`` this
trains the quick profile's fine-tunes of MiniLM on the bundled data, once
per seed, and prints the mean held-out accuracy with its standard error
(sample standard deviation over seeds / sqrt(seeds)) and the majority
baseline:

- ``yelp``: notebook 05's FT condition (the first 500 training sentences of
  the bundled Yelp data, one epoch, lr 1e-4, batch 16, a linear head), tested
  on the bundled dev+test sentences;
- ``seti``: notebook 07's cross-encoder (128 training pairs of Task 1
  trivial, cg, two epochs, lr 5e-5, batch 16), tested on 256 pairs of its
  test set.

Values of ``train_layers`` compared (``--train-layers``; ``--settings`` is its
old name): ``all`` (every transformer block trained, the default before),
``half`` (the top half, the default now), or any number of top blocks. Each run has a fresh cache.

Usage: ``python benchmarks/finetune_accuracy.py [--seeds 0 1 2 3] [--tasks yelp seti] [--train-layers all half]``
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


def yelp_task():
    """``(train, test, kwargs)`` of notebook 05's quick FT condition on the bundled Yelp sentences."""
    from mtlib.data import yelp
    from mtlib.experiments import pss

    sentences = yelp.load_sentences(yelp.BUNDLED_DIR)
    train = pss.subsample(sentences[sentences["split"] == "train"], 0, 0)
    test = pss.subsample(sentences[sentences["split"] != "train"], 0, 0)
    return pss.subsample(train, 500, 0), test, {"lr": 1e-4, "epochs": 1, "batch_size": 16}


def seti_task(seed: int):
    """``(train, test, kwargs)`` of notebook 07's quick cross-encoder on Task 1 trivial, cg."""
    import numpy as np
    import pandas as pd

    from mtlib.data import seti_tasks, sick
    from mtlib.experiments import seti

    def stratified(frame, n, by):  # notebook 07's subsample: at most n rows, spread evenly over `by`
        order = frame.iloc[np.random.default_rng(seed).permutation(len(frame))]
        return order.iloc[np.argsort(order.groupby(by).cumcount().to_numpy(), kind="stable")[:n]].sort_index()

    def pairs(items):  # the factory's pair data, as notebook 07 builds it
        label = np.where(items["label"].to_numpy().astype(int) == 1, "entailment", "non-entailment")
        return pd.DataFrame(
            {"text": items["premise"].tolist(), "text_pair": items["hypothesis"].tolist(), "label": label}
        )

    found = seti.extract_natural_inferences(sick.load_sick(sick.BUNDLED_SICK))
    pool = seti.subsample_pool(found, 80, 30, seed=0)
    data = seti_tasks.build(1, "trivial", "cg", pool, seti.verb_table(), seed)
    train = pairs(stratified(data.train, 128, [seti_tasks.ITEM_TYPE, "rule"]))
    test = pairs(stratified(data.test, 256, "rule"))
    return train, test, {"lr": 5e-5, "epochs": 2, "batch_size": 16}


def accuracy(task: str, train_layers: str, seed: int) -> tuple[float, float, float]:
    """``(held-out accuracy, majority baseline, seconds)`` of one fine-tune."""
    import numpy as np

    from mtlib import models
    from mtlib.models.training.baseline import majority_baseline

    train, test, kwargs = yelp_task() if task == "yelp" else seti_task(seed)
    layers = train_layers if train_layers in ("all", "half") else int(train_layers)
    start = time.perf_counter()
    clf = models.classifier(
        "minilm",
        train,
        how="finetune",
        seed=seed,
        device="cpu",
        heldout_fraction=0.0 if task == "seti" else 0.1,
        train_layers=None if layers == "half" else layers,
        **kwargs,
    )
    labels = list(clf.labels)
    pairs = list(test["text_pair"]) if "text_pair" in test else None
    pred = np.asarray(clf.classify(list(test["text"]), pairs)).argmax(axis=1)
    gold = np.array([labels.index(v) for v in test["label"]])
    return float((pred == gold).mean()), majority_baseline(test["label"]), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--tasks", nargs="+", default=["yelp", "seti"], choices=["yelp", "seti"])
    parser.add_argument("--train-layers", "--settings", dest="train_layers", nargs="+", default=["all", "half"])
    args = parser.parse_args()
    os.environ["MTLIB_CACHE"] = tempfile.mkdtemp(prefix="mtlib-ft-accuracy-")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("MTLIB_PROGRESS", "0")
    import numpy as np

    for task in args.tasks:
        for layers in args.train_layers:
            runs = [accuracy(task, layers, seed) for seed in args.seeds]
            acc = np.array([r[0] for r in runs])
            se = float(acc.std(ddof=1) / np.sqrt(len(acc))) if len(acc) > 1 else float("nan")
            print(
                f"{task} train_layers={layers}: accuracy {acc.mean():.4f} ± {se:.4f} (SE over seeds "
                f"{args.seeds}: {', '.join(f'{a:.4f}' for a in acc)}), majority {runs[0][1]:.4f}, "
                f"{np.mean([r[2] for r in runs]):.1f} s per fine-tune"
            )
            print(
                json.dumps(
                    {
                        "bench": f"finetune_accuracy_{task}",
                        "figure": f"train_layers_{layers}",
                        "value": float(acc.mean()),
                        "se": se,
                        "per_seed": acc.tolist(),
                        "unit": "accuracy",
                    }
                )
            )


if __name__ == "__main__":
    main()
