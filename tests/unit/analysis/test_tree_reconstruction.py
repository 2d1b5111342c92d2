"""TRE (mtlib.analysis.tree_reconstruction): batched == naive reference, exact reconstruction, held-out scoring."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from mtlib.analysis.tree_reconstruction import build_vocabulary, encode_trees, fit_tre, fit_tre_heldout, heldout_split
from mtlib.data.trees import parse_tree
from tests.unit.analysis.tre_reference import fit_tre_reference

TREES = Path(__file__).resolve().parents[3] / "data" / "trees"

COOL = "(3 (3 Cool) (2 ?))"
# root 4 over a neutral inner node and two pre-terminals: a ternary node
TERNARY = "(4 (2 (2 a) (2 b)) (2 c) (1 d))"
NEG = "(1 (1 (2 not) (3 good)) (2 .))"


@pytest.fixture(scope="module")
def small_trees():
    lines = (TREES / "dev.txt").read_text().splitlines()[:16]
    return [parse_tree(x) for x in lines] + [parse_tree(TERNARY), parse_tree("(3 Cool)")]


@pytest.mark.parametrize("composition", ["add", "linear"])
def test_batched_equals_naive_reference(small_trees, composition):
    rng = np.random.default_rng(1)
    targets = rng.normal(size=(len(small_trees), 8))
    kw = dict(composition=composition, steps=12, lr=0.02, init_scale=0.5, seed=3, dtype="float64")
    fast = fit_tre(small_trees, targets, **kw).train_tre
    slow = fit_tre_reference(small_trees, targets, **kw)
    np.testing.assert_allclose(fast, slow, atol=1e-5)
    initial = fit_tre(small_trees, targets, **{**kw, "steps": 0}).train_tre
    assert np.abs(fast - initial).max() > 0.1  # the steps moved the fit: not a trivial agreement


def _random_tree(rng, n_words: int, vocab: int) -> str:
    """A random binary tree over ``n_words`` words drawn from ``vocab`` types (labels irrelevant here)."""
    if n_words == 1:
        return f"(2 w{rng.integers(vocab)})"
    k = int(rng.integers(1, n_words))
    return f"(2 {_random_tree(rng, k, vocab)} {_random_tree(rng, n_words - k, vocab)})"


def test_exactly_additive_targets_give_zero_tre():
    # 40 word types, 16 dimensions, 300 sentences: more constraints than free parameters
    rng = np.random.default_rng(0)
    trees = [parse_tree(_random_tree(rng, int(rng.integers(2, 12)), 40)) for _ in range(300)]
    vocab = build_vocabulary(trees)
    index = {w: i for i, w in enumerate(vocab)}
    vectors = rng.normal(size=(len(vocab), 16))
    targets = np.stack([vectors[[index[w] for w in t.leaves()]].sum(0) for t in trees])
    per, model = fit_tre_heldout(trees, targets, heldout_fraction=0.2, unseen="zero", steps=600, lr=0.01, seed=0)
    assert per["tre"].max() < 2e-3, per["tre"].describe()  # train and held-out sentences alike
    assert model.losses[0] > 100 * model.losses[-1]
    random_targets = rng.normal(size=targets.shape)
    per_random, _ = fit_tre_heldout(
        trees, random_targets, heldout_fraction=0.2, unseen="zero", steps=600, lr=0.01, seed=0
    )
    assert per_random["tre"].mean() > 0.2


def test_heldout_split_and_unseen_words():
    trees = [parse_tree(x) for x in (TREES / "dev.txt").read_text().splitlines()[:120]]
    targets = np.random.default_rng(0).normal(size=(len(trees), 8))
    targets[5] = np.nan  # a sentence without a vector (word-vector model missing a word)
    per, model = fit_tre_heldout(trees, targets, heldout_fraction=0.25, unseen="zero", seed=0, steps=20)
    assert (per["split"] == "no target").sum() == 1 and np.isnan(per.loc[5, "tre"])
    held = per[per["split"] == "heldout"]
    assert len(held) == 30 and (held["n_unseen"] > 0).any()
    assert per.loc[per["split"] == "train", "tre"].notna().all()
    # unseen words: zero vectors by default, or the whole sentence excluded
    held_trees = [trees[i] for i in held.index]
    excl = model.errors(held_trees, targets[held.index], unseen="exclude")
    assert np.isnan(excl[held["n_unseen"].to_numpy() > 0]).all()
    assert np.isfinite(excl[held["n_unseen"].to_numpy() == 0]).all()
    only_unseen = model.errors([parse_tree("(2 (2 Zzzq) (2 Qqqz))")], np.ones((1, 8)))
    assert np.isnan(only_unseen).all()
    with pytest.raises(ValueError, match="unseen must be"):
        model.errors(held_trees, targets[held.index], unseen="drop")


def test_extra_trees_join_the_fit_only():
    trees = [parse_tree(x) for x in (TREES / "dev.txt").read_text().splitlines()[:40]]
    extra = [parse_tree(x) for x in (TREES / "train.txt").read_text().splitlines()[:40]]
    rng = np.random.default_rng(0)
    targets, extra_targets = rng.normal(size=(40, 8)), rng.normal(size=(40, 8))
    extra_targets[3] = np.nan  # left out of the fit
    per, model = fit_tre_heldout(
        trees,
        targets,
        heldout_fraction=0.25,
        unseen="zero",
        seed=0,
        steps=5,
        extra_trees=extra,
        extra_targets=extra_targets,
    )
    assert len(per) == 40 and len(model.train_tre) == 30 + 39  # the training part, then the fit-only sentences
    assert set(model.vocab) == set(
        build_vocabulary([trees[i] for i in per.index[per["split"] == "train"]] + extra[:3] + extra[4:])
    )


def test_bad_targets_and_settings():
    trees = [parse_tree(COOL), parse_tree(NEG)]
    with pytest.raises(ValueError, match="targets must be"):
        fit_tre(trees, np.ones((3, 4)))
    with pytest.raises(ValueError, match="nan"):
        fit_tre(trees, np.array([[1.0, np.nan], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="composition"):
        fit_tre(trees, np.ones((2, 4)), composition="tensor")
    with pytest.raises(ValueError, match="heldout_fraction must be in"):
        fit_tre_heldout(trees, np.ones((2, 4)), heldout_fraction=1.0, seed=0, unseen="zero")


def test_limit_threads_sets_and_restores_torch_and_blas_threads():
    import torch
    from threadpoolctl import threadpool_info

    from mtlib.utils.threads import limit_threads, threads_for_device

    before = torch.get_num_threads()
    with limit_threads(1):
        assert torch.get_num_threads() == 1
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
    assert torch.get_num_threads() == before
    with limit_threads(None):
        assert torch.get_num_threads() == before
    assert threads_for_device("cpu") == 1 and threads_for_device("cpu", 3) == 3


def test_heldout_split_draws_the_held_out_part_and_marks_sentences_without_a_target():
    targets = np.arange(20, dtype=float).reshape(10, 2)
    targets[3] = np.nan
    split = heldout_split(targets, 0.25, seed=1)
    assert split[3] == "no target"
    assert (split == "heldout").sum() == round(0.25 * 9) and (split == "train").sum() == 9 - round(0.25 * 9)
    assert (heldout_split(targets, 0.25, seed=1) == split).all() and (
        heldout_split(targets, 0.0, seed=1) != "heldout"
    ).all()
    with pytest.raises(ValueError, match="heldout_fraction must be in"):
        heldout_split(targets, 1.0, seed=0)
    with pytest.raises(ValueError, match="no training sentence left"):
        heldout_split(np.full((2, 2), np.nan), 0.0, seed=0)


def test_encoded_trees_move_to_a_device_whole():
    trees = [parse_tree("(2 (2 a) (2 (2 b) (2 c)))"), parse_tree("(1 (1 a) (1 d))")]
    enc = encode_trees(trees, build_vocabulary(trees))
    moved = enc.to("cpu")
    assert moved is not enc and moved.n_words == enc.n_words and len(moved.levels) == len(enc.levels)
    assert torch.equal(moved.roots, enc.roots) and torch.equal(moved.bow.to_dense(), enc.bow.to_dense())


def test_tremodel_settings_is_the_deprecated_name_of_options():
    from mtlib.analysis.tree_reconstruction import TREModel

    model = TREModel(["a"], "add", torch.zeros(1, 2), None, np.zeros(1), np.zeros(1), {"steps": 1})
    assert model.options == {"steps": 1}
    with pytest.warns(DeprecationWarning, match="TREModel.settings is renamed TREModel.options"):
        assert model.settings is model.options
