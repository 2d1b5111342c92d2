"""Issue 36 in the Montague (04) and TRE (06) experiments: what their reports skip, the parameters they refuse,
and trees of any depth.

- notebook 04 with ``n_boot=0`` wrote hundreds of NaN interval keys; notebook 06 without held-out sentences
  wrote a NaN rho: now those keys are declared skipped with their reason (the report's ``skipped()``), so
  ``metrics.json`` holds no NaN, and a headline that cannot be computed fails with its key;
- notebook 04's spec and relation, ``fit_tre`` and ``ground_truth`` refuse parameters out of range with the argument
  named;
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
from mtlib.relations import DistanceOrder, MtlibInputError, consistency
from mtlib.run import results
from mtlib.utils.context import RunContext
from mtlib.utils.rules import ParameterError


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


def _nonsubsective(phrase_set, n_boot: int):
    """Notebook 04's Eq. 7 cases of the hash encoder, checked by the relation (the notebook's cells, in brief)."""
    table = montague.EmbeddingTable.from_model(HashEncoder(), phrase_set.texts)
    p, a, n = (table.rows(phrase_set.an[c].to_numpy(dtype=object)) for c in ("phrase", "adj", "noun"))
    types = phrase_set.adjectives.set_index("word")["type"]
    groups = montague.typed_columns(phrase_set.an, ["type"])
    return DistanceOrder("toy").check(
        table.distance(p, a), table.distance(p, n), phrase_set.an[["adj"]], groups, types, n_boot
    )


def test_montague_without_bootstrap_has_no_intervals_and_says_so(phrases):
    """Notebook 04 with ``n_boot=0`` declares its interval keys skipped (never NaN in metrics.json): the relation
    leaves them NaN and records that no bootstrap ran."""
    result = _nonsubsective(phrases, 0)
    scores = consistency(result)
    assert result.extra["n_boot"] == 0 and np.isnan([result.ci_low, result.ci_high]).all()
    assert scores[["ci_low", "ci_high"]].isna().all().all() and scores["E"].notna().all()


def test_montague_with_a_bootstrap_has_every_interval(phrases):
    scores = consistency(_nonsubsective(phrases, 20))
    assert np.isfinite(scores[["E", "ci_low", "ci_high"]].to_numpy()).all()


def test_montague_without_a_case_for_a_test_gives_no_rate():
    """One noun: no phrase pair, so Eq. 5 has no case; its E is not a number (the notebook skips it with why)."""
    adjectives, nouns = load_lexicon(bundled=True, max_per_type=1, max_nouns=1)
    result = DistanceOrder("toy").check(np.zeros(0), np.zeros(0), n_boot=10)
    assert result.cases == 0 and math.isnan(result.rate) and len(montague.build_phrases(adjectives, nouns).an) == 5


@pytest.mark.parametrize(
    ("argument", "value"), [("n_boot", -1), ("permutations", 2.5), ("max_split_distance", math.nan)]
)
def test_montague_refuses_parameters_out_of_range(argument, value):
    with pytest.raises(ParameterError, match=argument):
        montague.Spec(**{argument: value})
    if argument == "n_boot":
        with pytest.raises(MtlibInputError, match="DistanceOrder.check: n_boot must be"):
            DistanceOrder("toy").check(np.zeros(2), np.ones(2), n_boot=value)


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
