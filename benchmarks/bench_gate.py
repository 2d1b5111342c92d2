"""Benchmark of a CI gate: 1,000 inputs, 6 transformations, cold and warm cache.

Usage: ``python benchmarks/bench_gate.py [--model vader|minilm] [--n 1000] [--n-boot 200]``

Figures, all measured in this process:

1. pairwise systematicity gate (``assert_relation``) over the six Table 1
   concatenations: cold (empty output cache; the model is loaded, and a head
   trained, before the timing, its time printed apart) and warm (the same
   call again: every text comes from the cache); the
   target is warm < 2 s, counting and the bootstrap interval included.
2. invariance gate (single-input equivalence) over
   ``transformations.robustness_suite()`` (six perturbations), cold and warm.
3. the pooled bootstrap interval of figure 1 by the dense quadratic form
   against recounting every replicate with integer weights (the engine the
   dense form replaces): same interval, and the speed-up.

``--model minilm`` gates MiniLM with a logistic-regression head trained on
the other bundled reviews (training is in the cold time). Each figure is a
human-readable line and one JSON line per number.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from typing import Any

import numpy as np

from mtlib import models
from mtlib import relations as R
from mtlib.analysis import stats
from mtlib.data.sst import load_reviews
from mtlib.relations import transformations as T
from mtlib.relations.pairwise import _order_segments_boot
from mtlib.testing import RelationGateError, assert_relation


def emit(figure: str, value: float, unit: str, **extra: Any) -> None:
    """Print one JSON line for one figure."""
    print(json.dumps({"bench": "gate", "figure": figure, "value": value, "unit": unit, **extra}))


def make_scorer(name: str, texts: list[str], train: Any) -> Any:
    """The model to gate: a registry name as is (vader), or an encoder with a trained head."""
    if name == "vader":
        return models.load("vader")
    return models.classifier(name, (train["text"].tolist(), train["label"].tolist()), how="head", head="linear")


def gate(scorer: Any, relation: R.Relation, texts: list[str], n_boot: int) -> tuple[float, R.RelationResult]:
    start = time.perf_counter()
    try:
        res = assert_relation(scorer, relation, texts, max_rate=1.0, n_boot=n_boot)
    except RelationGateError as err:  # max_rate=1.0 fails only without cases
        res = err.result
    return time.perf_counter() - start, res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="vader")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--n-boot", type=int, default=200)
    args = ap.parse_args()
    os.environ.setdefault("MTLIB_PROGRESS", "0")
    reviews = load_reviews()
    texts, train = reviews["text"].tolist()[: args.n], reviews.iloc[args.n :]
    relations = {
        "pairwise Table 1": R.PairwiseSystematicity("Table 1", T.manino_table1()),
        "invariance suite": R.SingleInput("robustness", "equivalence", T.robustness_suite()),
    }
    with tempfile.TemporaryDirectory() as cache:
        os.environ["MTLIB_CACHE"] = cache
        start = time.perf_counter()
        scorer = make_scorer(args.model, texts, train)
        load_s = time.perf_counter() - start
        print(f"model {args.model}: loaded (and head trained) in {load_s:.2f} s; {len(texts)} inputs, B={args.n_boot}")
        for label, rel in relations.items():
            cold, res = gate(scorer, rel, texts, args.n_boot)
            warm, again = gate(scorer, rel, texts, args.n_boot)
            assert (again.cases, again.violations) == (res.cases, res.violations)
            count_s = res.extra.get("count_seconds")  # None for single-input relations (no pair count)
            print(
                f"{label}: {len(rel.transforms)} transformations, {res.cases:,} cases, rate {res.rate:.4f} "
                f"(gate bound {res.gate_bound():.4f}); cold {cold:.2f} s, warm {warm:.2f} s, "
                f"cold/warm {cold / warm:.1f}x"
            )
            emit(f"{label} cold", cold, "s", model=args.model, n=len(texts), n_boot=args.n_boot)
            emit(
                f"{label} warm",
                warm,
                "s",
                model=args.model,
                n=len(texts),
                n_boot=args.n_boot,
                target_s=2.0,
                count_seconds=count_s,
            )
            emit(f"{label} cold/warm", cold / warm, "ratio", model=args.model)
        # 3. the pooled bootstrap: dense quadratic form vs per-replicate recount.
        res = relations["pairwise Table 1"].evaluate(texts, scorer, n_boot=0)
        segs = res.details["segments"]
        start = time.perf_counter()
        dense, _ = _order_segments_boot(segs, len(texts), args.n_boot, 0)
        dense_s = time.perf_counter() - start
        start = time.perf_counter()
        slow = stats.bootstrap_order_rate(
            [s["src"] for s in segs], [s["flw"] for s in segs], n_boot=args.n_boot, seed=0
        )
        slow_s = time.perf_counter() - start
        same = np.allclose(stats.percentile_interval(dense), slow, rtol=0, atol=1e-12)
        print(
            f"pooled bootstrap interval (B={args.n_boot}): dense {dense_s:.2f} s, per-replicate recount "
            f"{slow_s:.2f} s, speed-up {slow_s / dense_s:.1f}x, same interval: {same}"
        )
        emit("bootstrap dense vs recount", slow_s / dense_s, "speed-up", same_interval=bool(same))


if __name__ == "__main__":
    main()
