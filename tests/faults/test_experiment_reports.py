"""Issue 36 in the Montague (04) and TRE (06) experiments: what their reports skip, the parameters they refuse,
and trees of any depth.

- notebook 04 with ``n_boot=0`` wrote hundreds of NaN interval keys: now those keys are declared skipped with
  their reason (the report's ``skipped()``), so ``metrics.json`` holds no NaN (notebook 06 declares its own
  skipped keys in its cells, with :func:`mtlib.analysis.rank_correlation.undefined_reason`);
- ``run_tests`` and ``fit_tre`` refuse parameters out of range with the argument named;
- TRE's encoding and scores of a very deep tree need no recursion.

An encoder stand-in gives each text a hashed vector (no model, invented words).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest

from mtlib.analysis.tree_reconstruction import build_vocabulary, encode_trees, fit_tre
from mtlib.data.adjectives import load_lexicon
from mtlib.data.trees import parse_tree, tree_impurity, weighted_node_switching
from mtlib.experiments import montague
from mtlib.relations import MtlibInputError
from mtlib.run import results


class HashEncoder:
    name = "hash-encoder"

    def embed(self, texts):
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) for t in texts]
        return np.stack(rows).astype(np.float32) - 128 if rows else np.zeros((0, 8), np.float32)


@pytest.fixture(scope="module")
def phrases():
    adjectives, nouns = load_lexicon(bundled=True, max_per_type=2, max_nouns=3)
    return montague.build_phrases(adjectives, nouns)


def _recorded(tmp_path: Path, report, stem: str, model: str | None = "hash-encoder") -> dict:
    run = results.Run(stem, profile="t", out_dir=str(tmp_path), params={})
    run.record_report(report, model=model)
    return json.loads(run.metrics_path.read_text())


def test_montague_without_bootstrap_skips_its_intervals_with_the_reason(tmp_path, phrases):
    report = montague.run_tests(HashEncoder(), phrases, n_boot=0, permutations=10)
    skipped = report.skipped()
    intervals = [k for k in report._values() if "_ci_" in k]
    assert intervals and set(skipped) == set(intervals)
    assert set(skipped.values()) == {"n_boot=0: no bootstrap intervals"}
    assert not set(report.metrics()) & set(skipped)
    metrics = _recorded(tmp_path, report, "04_montague_adjectives")
    assert len(metrics["_skipped"]) == 2 * len(intervals)  # the primary keys and the models/<slug>/ keys
    assert all(v is not None for v in metrics.values()) and metrics["intersective_an/overall"] >= 0


def test_montague_with_a_bootstrap_skips_nothing(phrases):
    report = montague.run_tests(HashEncoder(), phrases, n_boot=20, permutations=10)
    assert report.skipped() == {} and report.metrics() == report._values()
    assert all(math.isfinite(v) for v in report.metrics().values() if isinstance(v, float))


def test_montague_without_a_case_for_a_test_says_why():
    adjectives, nouns = load_lexicon(bundled=True, max_per_type=1, max_nouns=1)  # one noun: no phrase pairs
    report = montague.run_tests(HashEncoder(), montague.build_phrases(adjectives, nouns), n_boot=10, permutations=5)
    skipped = report.skipped()
    assert "no intersective_pairs case for overall" in skipped["intersective_pairs/overall"]
    assert all(not (isinstance(v, float) and math.isnan(v)) for v in report.metrics().values())


@pytest.mark.parametrize(
    ("argument", "value"), [("n_boot", -1), ("permutations", 2.5), ("max_split_distance", math.nan)]
)
def test_montague_refuses_parameters_out_of_range(phrases, argument, value):
    with pytest.raises(MtlibInputError, match=f"run_tests: {argument} must be"):
        montague.run_tests(HashEncoder(), phrases, **{"n_boot": 10, "permutations": 10, argument: value})


@pytest.mark.parametrize(
    ("argument", "value"), [("lr", math.nan), ("lr", math.inf), ("lr", 0), ("steps", -3), ("init_scale", math.inf)]
)
def test_tre_fit_refuses_parameters_out_of_range(argument, value):
    trees = [parse_tree(t) for t in ("(3 (2 a) (3 film))", "(1 (2 the) (1 plot))", "(4 (4 great) (2 cast))")]
    with pytest.raises(MtlibInputError, match=f"fit_tre: {argument} must be"):
        fit_tre(trees, HashEncoder().embed(["a", "b", "c"]), **{"steps": 2, argument: value})


def test_tre_encodes_and_fits_a_tree_of_any_depth():
    deep = parse_tree("(1 " * 3000 + "(3 good) (1 bad)" + ")" * 3000, max_depth=5000)
    flat = parse_tree("(3 (3 good) (2 (2 film) (1 bad)))")
    vocab = build_vocabulary([deep, flat])
    enc = encode_trees([deep, flat], vocab)
    assert enc.leaf_ids.tolist() == [vocab.index(w) for w in [*deep.leaves(), *flat.leaves()]]  # left to right
    # the unary chain passes its child on: one node of level 1 in the deep tree, two levels in the other
    assert len(enc.levels) == 2 and enc.roots.tolist() == [5, 7]
    fit = fit_tre([deep, flat], HashEncoder().embed(["x", "y"]), steps=2)
    assert np.isfinite(fit.train_tre).all()
    assert np.isfinite([tree_impurity(deep), weighted_node_switching(deep)]).all()
