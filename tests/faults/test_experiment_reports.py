"""Issue 36 in the Montague (04) and TRE (06) experiments: what their reports skip, the parameters they refuse,
and trees of any depth.

- notebook 04 with ``n_boot=0`` wrote hundreds of NaN interval keys; notebook 06 without held-out sentences
  wrote a NaN rho: now those keys are declared skipped with their reason (the report's ``skipped()``), so
  ``metrics.json`` holds no NaN, and a headline that cannot be computed fails with its key;
- ``run_tests``, ``fit_tre`` and ``ground_truth`` refuse parameters out of range with the argument named;
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

from mtlib.data.adjectives import load_lexicon
from mtlib.data.trees import parse_tree
from mtlib.experiments import montague, tre
from mtlib.experiments.tre._encoding import build_vocabulary, encode_trees
from mtlib.relations import MtlibInputError
from mtlib.run import results
from mtlib.utils.context import RunContext


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


def _trees(tmp_path: Path, n: int = 24) -> str:
    """``n`` trees of two or three words: one or two words of each in it alone, one shared, labels at random."""
    labels = np.random.default_rng(0).integers(0, 5, size=(n, 5))
    lines = [
        f"({a} ({b} w{i}a) ({c} ({d} w{i}b) ({e} film)))" if i % 2 else f"({a} ({b} w{i}a) ({e} film))"
        for i, (a, b, c, d, e) in enumerate(labels)
    ]
    path = tmp_path / "trees.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _truth(path: str, max_sentences: int = 0) -> tre.GroundTruth:
    """The trees at ``path`` scored with the spec's default WNS (the literal reading)."""
    spec = tre.Spec()
    return tre.ground_truth(path, max_sentences=max_sentences, weight=spec.wns_weight, average=spec.wns_average)


def _tre(truth: tre.GroundTruth, heldout_fraction: float) -> tre.TREReport:
    """TRE of the hash encoder with the spec's fit settings, 3 steps, 10 bootstrap resamples."""
    fit = tre.Spec(steps=3, heldout_fraction=heldout_fraction).fit_settings()
    return tre.tree_reconstruction(
        HashEncoder(), truth, fit=fit, seed=0, n_boot=10, context=RunContext.resolve(device="cpu")
    )


def test_tre_without_held_out_sentences_skips_the_held_out_keys(tmp_path):
    truth = _truth(_trees(tmp_path))
    report = _tre(truth, 0.0)
    assert report.skipped() == {
        "tre_mean/heldout": "no held-out sentences (heldout_fraction=0.0)",
        "tre_mean_all_seen/heldout": "no held-out sentences (heldout_fraction=0.0)",
    }
    metrics = _recorded(tmp_path, report, "06_tree_reconstruction_error")
    assert metrics["_headline"] == ["spearman_tre_wns/train"] and math.isfinite(metrics["spearman_tre_wns/train"])
    assert "tre_mean/heldout" not in metrics and "models/hash-encoder/tre_mean/heldout" in metrics["_skipped"]


def test_tre_held_out_sentences_with_unseen_words_skip_the_all_seen_mean(tmp_path):
    truth = _truth(_trees(tmp_path))
    report = _tre(truth, 0.25)
    assert report.skipped() == {
        "tre_mean_all_seen/heldout": "none of the 6 held-out sentences has every word seen in the fit"
    }
    assert math.isfinite(_recorded(tmp_path, report, "06_tree_reconstruction_error")["spearman_tre_wns/heldout"])


def test_tre_on_two_sentences_fails_with_the_headline_key_and_why(tmp_path):
    truth = _truth(_trees(tmp_path), max_sentences=2)
    assert set(truth.skipped()) == {"spearman_ti_wns", "spearman_wns_length"}
    _recorded(tmp_path, truth, "06_tree_reconstruction_error", model=None)  # skipped, not NaN
    report = _tre(truth, 0.0)
    with pytest.raises(ValueError, match=r"headline metric\(s\) spearman_tre_wns/train \(only 2 train sentences"):
        _recorded(tmp_path / "r", report, "06_tree_reconstruction_error")


@pytest.mark.parametrize(
    ("argument", "value"), [("lr", math.nan), ("lr", math.inf), ("lr", 0), ("steps", -3), ("init_scale", math.inf)]
)
def test_tre_fit_refuses_parameters_out_of_range(argument, value):
    trees = [parse_tree(t) for t in ("(3 (2 a) (3 film))", "(1 (2 the) (1 plot))", "(4 (4 great) (2 cast))")]
    with pytest.raises(MtlibInputError, match=f"fit_tre: {argument} must be"):
        tre.fit_tre(trees, HashEncoder().embed(["a", "b", "c"]), **{"steps": 2, argument: value})


def test_ground_truth_refuses_a_negative_number_of_sentences(tmp_path):
    with pytest.raises(MtlibInputError, match="ground_truth: max_sentences must be an integer >= 0"):
        _truth(_trees(tmp_path), max_sentences=-2)


def test_tre_encodes_and_fits_a_tree_of_any_depth():
    deep = parse_tree("(1 " * 3000 + "(3 good) (1 bad)" + ")" * 3000, max_depth=5000)
    flat = parse_tree("(3 (3 good) (2 (2 film) (1 bad)))")
    vocab = build_vocabulary([deep, flat])
    enc = encode_trees([deep, flat], vocab)
    assert enc.leaf_ids.tolist() == [vocab.index(w) for w in [*deep.leaves(), *flat.leaves()]]  # left to right
    # the unary chain passes its child on: one node of level 1 in the deep tree, two levels in the other
    assert len(enc.levels) == 2 and enc.roots.tolist() == [5, 7]
    fit = tre.fit_tre([deep, flat], HashEncoder().embed(["x", "y"]), steps=2)
    assert np.isfinite(fit.train_tre).all()
    assert np.isfinite(tre.tree_scores([deep])[["ti", "wns"]].to_numpy()).all()
