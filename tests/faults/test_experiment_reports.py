"""Issue 36 in the Montague (04) and TRE (06) experiments: what their reports skip, the parameters they refuse,
and trees of any depth.

- notebook 04 with ``n_boot=0`` wrote hundreds of NaN interval keys; notebook 06 without held-out sentences
  wrote a NaN rho: now the notebooks declare those keys skipped with their reason, so ``metrics.json`` holds no
  NaN (06 with :func:`mtlib.analysis.rank_correlation.undefined_reason`);
- notebook 04's spec and relation, and ``fit_tre``, refuse parameters out of range with the argument named;
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
from mtlib.relations import DistanceOrder, MtlibInputError, consistency_scores
from mtlib.run import results
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
    groups = montague.types_in_paper_order(phrase_set.an, ["type"])
    return DistanceOrder("toy").check(
        table.distance(p, a), table.distance(p, n), phrase_set.an[["adj"]], groups, types, n_boot
    )


def test_montague_without_bootstrap_has_no_intervals_and_says_so(phrases):
    """Notebook 04 with ``n_boot=0`` declares its interval keys skipped (never NaN in metrics.json): the relation
    leaves them NaN and records that no bootstrap ran."""
    result = _nonsubsective(phrases, 0)
    scores = consistency_scores(result)
    assert result.extra["n_boot"] == 0 and np.isnan([result.ci_low, result.ci_high]).all()
    assert scores[["ci_low", "ci_high"]].isna().all().all() and scores["E"].notna().all()


def test_montague_with_a_bootstrap_has_every_interval(phrases):
    scores = consistency_scores(_nonsubsective(phrases, 20))
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
