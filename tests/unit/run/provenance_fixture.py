"""A notebook in miniature for the manifest and diff tests: read a data file, embed with a model, record.

:func:`fixture_run` does what a notebook does through the same code (a :class:`mtlib.run.results.Run`,
a loader of :mod:`mtlib.data`, :func:`mtlib.models.load`), in a second or two instead of a smoke run's
minute. ``python -m tests.unit.run.provenance_fixture OUT DATA MODEL SEED`` runs it in a fresh process,
for what only a new process can change (the CPU kernel set torch picks when it starts).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mtlib import models
from mtlib.data import cogalex
from mtlib.run.results import Run

STEM = "provenance_fixture"


def fixture_run(out: Path, data: Path, model: str, seed: int) -> Path:
    """Run the miniature notebook; returns its run folder (``metrics.json`` and ``manifest.json``)."""
    run = Run(STEM, profile="smoke", out_dir=str(out), params={"seed": seed, "data": str(data), "model": model})
    pairs = cogalex.read_pairs(data)
    words = sorted({*pairs["word1"], *pairs["word2"]})
    vectors = models.load(model, device="cpu").embed(words)
    pick = np.random.default_rng(seed).choice(len(words), size=3, replace=False)
    run.record({"n_pairs": len(pairs), "n_words": len(words)})
    run.record({"picked": [words[i] for i in pick], "picked_sum": float(vectors[pick].sum())})
    return run.run_dir


if __name__ == "__main__":
    out_dir, data_file, model_name, seed_text = sys.argv[1:5]
    print(fixture_run(Path(out_dir), Path(data_file), model_name, int(seed_text)))
