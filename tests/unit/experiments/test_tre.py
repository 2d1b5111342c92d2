"""Tree Impurity, Weighted Node Switching and TRE: hand-worked values, batched == naive reference, bad input."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtlib.data.errors import DataFormatError
from mtlib.data.sst import load_sst_trees
from mtlib.data.trees import parse_tree, tree_impurity, weighted_node_switching
from mtlib.experiments import tre
from mtlib.run.results import RUN_KEYS
from mtlib.utils.context import RunContext

CPU = RunContext.resolve(device="cpu")

ROOT = Path(__file__).resolve().parents[3]
TREES = ROOT / "data" / "trees"

COOL = "(3 (3 Cool) (2 ?))"
# root 4 over a neutral inner node and two pre-terminals: a ternary node
TERNARY = "(4 (2 (2 a) (2 b)) (2 c) (1 d))"
# a negation: "not good" flips 3 to 1; the sentence keeps the 1
NEG = "(1 (1 (2 not) (3 good)) (2 .))"


# ---------------------------------------------------------------------------
# Tree Impurity and Weighted Node Switching, worked by hand
# ---------------------------------------------------------------------------


def test_tree_impurity_cool_is_one_third():
    # labels 3, 3, 2: mean 8/3, |3 - 8/3| = 1/3 (the paper prints 0.33)
    assert tree_impurity(parse_tree(COOL)) == pytest.approx(1 / 3)


def test_tree_impurity_ternary_and_negation():
    # labels 4, 2, 2, 2, 2, 1: mean 13/6, |4 - 13/6| = 11/6
    assert tree_impurity(parse_tree(TERNARY)) == pytest.approx(11 / 6)
    # labels 1, 1, 2, 3, 2: mean 9/5, |1 - 9/5| = 4/5
    assert tree_impurity(parse_tree(NEG)) == pytest.approx(4 / 5)


def test_pure_tree_has_zero_impurity_and_switching():
    t = parse_tree("(2 (2 (2 a) (2 b)) (2 c))")
    assert tree_impurity(t) == 0.0 and weighted_node_switching(t) == 0.0


def test_wns_cool_literal_reading():
    # one inner node (the root, height 2): |3 - (3 + 2)/2| = 0.5, weighted 2 -> 1.0, one node -> mean 1.0
    t = parse_tree(COOL)
    assert weighted_node_switching(t) == pytest.approx(1.0)
    assert weighted_node_switching(t, average="weighted") == pytest.approx(0.5)
    assert weighted_node_switching(t, weight="uniform") == pytest.approx(0.5)


def test_wns_ternary_all_variants():
    # root: |4 - (2 + 2 + 1)/3| = 7/3 at height 3 (depth 0); inner (2 a b): 0 at height 2 (depth 1)
    t = parse_tree(TERNARY)
    assert weighted_node_switching(t) == pytest.approx((3 * 7 / 3 + 0) / 2)
    assert weighted_node_switching(t, average="weighted") == pytest.approx(7 / 5)
    assert weighted_node_switching(t, average="sum") == pytest.approx(7.0)
    assert weighted_node_switching(t, weight="uniform") == pytest.approx(7 / 6)
    assert weighted_node_switching(t, weight="depth") == pytest.approx((3 * 7 / 3 + 2 * 0) / 2)


def test_wns_negation_nodes_near_root_weigh_more():
    # (1 (2 not) (3 good)): |1 - 2.5| = 1.5 at height 2; root: |1 - (1 + 2)/2| = 0.5 at height 3
    t = parse_tree(NEG)
    assert weighted_node_switching(t) == pytest.approx((2 * 1.5 + 3 * 0.5) / 2)
    # depth weighting: root weighs 3 (tree height), its child at depth 1 weighs 2
    assert weighted_node_switching(t, weight="depth") == pytest.approx((2 * 1.5 + 3 * 0.5) / 2)
    unbalanced = parse_tree("(4 (2 x) (3 (2 (2 a) (2 b)) (4 c)))")
    # nodes: root |4-2.5|=1.5 h4 d0; (3 ..): |3-3|=0 h3 d1; (2 a b): 0 h2 d2 -> height and depth agree here
    assert weighted_node_switching(unbalanced) == pytest.approx(4 * 1.5 / 3)


def test_one_word_sentence():
    t = parse_tree("(3 Cool)")
    assert tree_impurity(t) == 0.0
    assert math.isnan(weighted_node_switching(t))


def test_bad_labels_and_options():
    with pytest.raises(ValueError, match="not a number"):
        tree_impurity(parse_tree("(3 (x Cool) (2 ?))"))
    with pytest.raises(ValueError, match="weight must be one of"):
        weighted_node_switching(parse_tree(COOL), weight="width")
    with pytest.raises(ValueError, match="average must be one of"):
        weighted_node_switching(parse_tree(COOL), average="median")


@pytest.mark.parametrize("label", ["nan", "inf", "-inf", "NaN"])
def test_tree_impurity_and_wns_refuse_non_finite_labels(label):
    for text in (f"({label} (3 Cool) (2 ?))", f"(3 ({label} Cool) (2 ?))"):
        with pytest.raises(ValueError, match=rf"node label '{label}' is not a finite number .*Cool"):
            tree_impurity(parse_tree(text))
        with pytest.raises(ValueError, match="not a finite number"):
            weighted_node_switching(parse_tree(text))


def test_loader_rejects_missing_and_out_of_range_labels(tmp_path):
    bad_range = tmp_path / "range.txt"
    bad_range.write_text("(3 (3 Cool) (2 ?))\n(5 (3 Cool) (2 ?))\n")
    with pytest.raises(DataFormatError, match=r"range.txt:2: .*0-4"):
        load_sst_trees(bad_range, binary=False)
    missing = tmp_path / "missing.txt"
    missing.write_text("(3 (3 Cool) (2 ?))\n(3 (Cool) (2 ?))\n")
    with pytest.raises(DataFormatError, match=r"missing.txt:2: "):
        load_sst_trees(missing, binary=False)


def test_paper_examples_found_by_their_letters():
    trees = [parse_tree("(2 (2 Nothing) (2 else))"), parse_tree(COOL)]
    found = tre.find_paper_examples(trees).set_index("sentence")
    row = found.loc["Cool ?"]
    assert row["found"] and row["index"] == 1
    assert round(row["ti_ours"], 2) == row["ti_paper"] == 0.33
    assert found["found"].sum() == 1
    assert tre.paper_table2("bert-base") == -0.1997 and math.isnan(tre.paper_table2("minilm"))


# ---------------------------------------------------------------------------
# The bundled treebank
# ---------------------------------------------------------------------------


def test_generator_reproduces_committed_files(tmp_path):
    subprocess.run([sys.executable, str(TREES / "make_trees.py"), "--out-dir", str(tmp_path)], check=True)
    for split in ("train", "dev", "test"):
        assert (tmp_path / f"{split}.txt").read_bytes() == (TREES / f"{split}.txt").read_bytes(), split


def test_bundled_treebank_shape():
    frames = {s: load_sst_trees(TREES / f"{s}.txt", binary=False) for s in ("train", "dev", "test")}
    assert sum(len(f) for f in frames.values()) >= 1500
    words = {w for f in frames.values() for t in f.tree for w in t.leaves()}
    assert len(words) >= 2000
    texts = [x for f in frames.values() for x in f.text]
    assert len(texts) == len(set(texts))
    dev = frames["dev"]
    assert set(dev.fine_label) == {0, 1, 2, 3, 4}
    scores = tre.tree_scores(list(dev.tree))
    assert scores["wns"].isna().sum() == (scores["n_words"] == 1).sum()
    assert scores["ti"].std() > 0.2 and scores["wns"].std() > 0.2  # trees differ in compositionality


# ---------------------------------------------------------------------------
# TRE
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_trees():
    lines = (TREES / "dev.txt").read_text().splitlines()[:16]
    return [parse_tree(x) for x in lines] + [parse_tree(TERNARY), parse_tree("(3 Cool)")]


@pytest.mark.parametrize("composition", ["add", "linear"])
def test_batched_equals_naive_reference(small_trees, composition):
    rng = np.random.default_rng(1)
    targets = rng.normal(size=(len(small_trees), 8))
    kw = dict(composition=composition, steps=12, lr=0.02, init_scale=0.5, seed=3, dtype="float64")
    fast = tre.fit_tre(small_trees, targets, **kw).train_tre
    slow = tre.fit_tre_reference(small_trees, targets, **kw)
    np.testing.assert_allclose(fast, slow, atol=1e-5)
    initial = tre.fit_tre(small_trees, targets, **{**kw, "steps": 0}).train_tre
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
    vocab = tre.build_vocabulary(trees)
    index = {w: i for i, w in enumerate(vocab)}
    vectors = rng.normal(size=(len(vocab), 16))
    targets = np.stack([vectors[[index[w] for w in t.leaves()]].sum(0) for t in trees])
    per, model = tre.tre_by_split(trees, targets, heldout_fraction=0.2, unseen="zero", steps=600, lr=0.01, seed=0)
    assert per["tre"].max() < 2e-3, per["tre"].describe()  # train and held-out sentences alike
    assert model.losses[0] > 100 * model.losses[-1]
    random_targets = rng.normal(size=targets.shape)
    per_random, _ = tre.tre_by_split(
        trees, random_targets, heldout_fraction=0.2, unseen="zero", steps=600, lr=0.01, seed=0
    )
    assert per_random["tre"].mean() > 0.2


def test_heldout_split_and_unseen_words():
    trees = [parse_tree(x) for x in (TREES / "dev.txt").read_text().splitlines()[:120]]
    targets = np.random.default_rng(0).normal(size=(len(trees), 8))
    targets[5] = np.nan  # a sentence without a vector (word-vector model missing a word)
    per, model = tre.tre_by_split(trees, targets, heldout_fraction=0.25, unseen="zero", seed=0, steps=20)
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


def test_bad_targets():
    trees = [parse_tree(COOL), parse_tree(NEG)]
    with pytest.raises(ValueError, match="targets must be"):
        tre.fit_tre(trees, np.ones((3, 4)))
    with pytest.raises(ValueError, match="nan"):
        tre.fit_tre(trees, np.array([[1.0, np.nan], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="composition"):
        tre.fit_tre(trees, np.ones((2, 4)), composition="tensor")


# ---------------------------------------------------------------------------
# Correlations
# ---------------------------------------------------------------------------


def test_spearman_ci_and_partial():
    rng = np.random.default_rng(0)
    length = rng.integers(2, 30, size=400).astype(float)
    x = length + rng.normal(scale=3, size=400)
    y = length + rng.normal(scale=3, size=400)
    res = tre.spearman_ci(x, y, n_boot=300, seed=0)
    assert res["rho"] > 0.6 and res["ci_low"] < res["rho"] < res["ci_high"] and res["p_value"] < 1e-10
    part = tre.partial_spearman(x, y, length, n_boot=300, seed=0)
    assert abs(part["rho"]) < 0.15 and part["ci_low"] < part["rho"] < part["ci_high"]
    y_nan = y.copy()
    y_nan[:7] = np.nan
    assert tre.spearman_ci(x, y_nan, n_boot=0)["n_dropped"] == 7


def test_partial_spearman_matches_residual_definition():
    from scipy import stats

    rng = np.random.default_rng(2)
    z = rng.normal(size=200)
    x, y = z + rng.normal(size=200), -z + 0.5 * rng.normal(size=200)
    rx, ry, rz = (stats.rankdata(v) for v in (x, y, z))
    res_x = rx - np.polyval(np.polyfit(rz, rx, 1), rz)
    res_y = ry - np.polyval(np.polyfit(rz, ry, 1), rz)
    expected = np.corrcoef(res_x, res_y)[0, 1]
    assert tre.partial_spearman(x, y, z, n_boot=0)["rho"] == pytest.approx(expected, abs=1e-10)


#: The literal reading of WNS (notebook 06's defaults).
LITERAL_WNS = {"weight": "height", "average": "mean"}


def _fit(**changes) -> tre.FitSettings:
    """Notebook 06's fit settings with some changed."""
    return dataclasses.replace(tre.Spec().fit_settings(), **changes)


class _BagOfWords:
    """A stand-in encoder: fixed random vectors per word, summed (exactly additive, so TRE can reach 0)."""

    name = "bag"

    def __init__(self, dim: int = 8):
        self.dim, self.vectors = dim, {}

    def embed(self, texts):
        rng = np.random.default_rng(0)
        for w in sorted({w for t in texts for w in t.split()} - set(self.vectors)):
            self.vectors[w] = rng.normal(size=self.dim)
        return np.stack([sum(self.vectors[w] for w in t.split()) for t in texts]) if texts else np.zeros((0, self.dim))


def test_reports_record_the_one_key_scheme():
    truth = tre.ground_truth(str(TREES / "dev.txt"), max_sentences=60, **LITERAL_WNS)
    m = truth.metrics()
    assert m["n_sentences"] == 60 and m["n_fit_only"] == 0 and m["n_word_types"] > 0
    assert m["spearman_ti_wns"] == pytest.approx(tre.spearman_ci(truth.scores["ti"], truth.scores["wns"])["rho"])
    assert "paper_examples" in truth.tables()

    report = tre.tree_reconstruction(
        _BagOfWords(),
        truth,
        fit=_fit(steps=30, heldout_fraction=0.25),
        seed=0,
        n_boot=20,
        context=CPU,
    )
    m = report.metrics()
    assert report.split == "heldout" and report.headline == ["spearman_tre_wns/heldout"]
    assert m["sentences/train"] + m["sentences/heldout"] == 60
    assert m["tre_mean/train"] == pytest.approx(report.frame.loc[report.frame["split"] == "train", "tre"].mean())
    row = report.table.set_index("split").loc["heldout"]
    assert m["spearman_tre_wns/heldout"] == row["rho_tre_wns"]
    assert not any(k.startswith(("models/", "bag")) for k in m)  # the run adds the model prefix
    # the same fit and correlations as the functions it wraps
    per, _ = tre.tre_by_split(truth.trees, report.targets, seed=0, **_fit(steps=30, heldout_fraction=0.25).kwargs())
    np.testing.assert_array_equal(per["tre"].to_numpy(), report.frame["tre"].to_numpy())

    table = tre.table2_from({"bag": report})
    assert list(table["encoder"][:2]) == ["bag", "bag"] and table["encoder"].str.endswith("(paper)").sum() == 4
    sweep = tre.sweep(report, truth, steps=[10])
    assert set(sweep["setting"]) == {"steps"} and tre.sweep(report, truth).empty
    # TRE ends come from held-out sentences with every word seen (none among 60 short random sentences)
    assert len(tre.extreme_trees(truth, report, 1)) == 2 + 2 * min(1, len(report.seen_heldout()))
    assert list(tre.table4_examples(truth, {"bag": report}, 2).columns[-2:]) == ["tre bag", "split bag"]


def test_limit_threads_sets_and_restores_torch_and_blas_threads():
    import torch
    from threadpoolctl import threadpool_info

    from mtlib.utils.threads import cpu_threads, limit_threads

    before = torch.get_num_threads()
    with limit_threads(1):
        assert torch.get_num_threads() == 1
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
    assert torch.get_num_threads() == before
    with limit_threads(None):
        assert torch.get_num_threads() == before
    assert cpu_threads("cpu") == 1 and cpu_threads("cpu", 3) == 3


def test_fit_path_overlapping_the_heldout_sentences_is_counted_and_stated():
    truth = tre.ground_truth(str(TREES / "dev.txt"), max_sentences=40, **LITERAL_WNS)
    fit = dict(fit=_fit(steps=5, heldout_fraction=0.25), seed=0, n_boot=0, context=CPU)
    clean = tre.tree_reconstruction(_BagOfWords(), truth, **fit)
    assert clean.metrics()["fit_overlap_heldout"] == 0 and not clean.frame["in_fit_path"].any()
    assert not any("Caution" in line for line in tre.describe(tre.table2_from({"bag": clean})))
    assert "Caution" not in clean.summary()

    # fit_path repeats three scored sentences, two of them held out
    heldout = [i for i in clean.frame.index if clean.frame.at[i, "split"] == "heldout"]
    train = [i for i in clean.frame.index if clean.frame.at[i, "split"] == "train"]
    leaky = dataclasses.replace(truth, extra=[truth.trees[i] for i in (*heldout[:2], train[0])])
    report = tre.tree_reconstruction(_BagOfWords(), leaky, **fit)
    m = report.metrics()
    assert m["fit_overlap_heldout"] == 2 and report.frame["in_fit_path"].sum() == 3
    assert list(report.table["fit_overlap_heldout"]) == [0, 2]  # train row, held-out row
    lines = tre.describe(tre.table2_from({"bag": report}))
    assert [line for line in lines if "Caution" in line] == [
        "bag: Caution: 2 held-out sentences are also in fit_path, so the fit saw them: this held-out reading is "
        "not out of sample (remove them from fit_path)."
    ]
    assert "Caution: 2 held-out sentences" in report.summary()


def test_bundled_fit_path_does_not_overlap_the_scored_sentences():
    truth = tre.ground_truth(str(TREES / "dev.txt"), fit_path=str(TREES / "train.txt"), max_sentences=40, **LITERAL_WNS)
    assert truth.metrics()["n_fit_only"] == 40
    report = tre.tree_reconstruction(
        _BagOfWords(),
        truth,
        fit=_fit(steps=5, heldout_fraction=0.25),
        seed=0,
        n_boot=0,
        context=CPU,
    )
    assert report.metrics()["fit_overlap_heldout"] == 0


def test_run_of_a_small_spec_gives_what_the_notebook_records(tmp_path, monkeypatch):
    import json

    from mtlib.run.results import Run, _jsonable
    from mtlib.utils.keys import timing_key

    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "cache"))
    spec = tre.Spec(
        profile="smoke",
        models=["minilm-static"],
        data_path=str(TREES / "dev.txt"),
        max_sentences=40,
        steps=20,
        heldout_fraction=0.25,
        n_boot=20,
        out_dir=str(tmp_path / "out"),
    )
    assert spec.fit_settings() == tre.FitSettings("add", 20, 0.01, 1.0, 0.25, "zero")
    outcome = tre.run(spec)
    assert list(outcome.reports) == ["minilm-static"] and outcome.parts == [outcome.data]
    truth, report = outcome.data, outcome.report
    assert len(truth.trees) == 40 and report.settings["steps"] == 20 and report.settings["heldout_fraction"] == 0.25
    metrics = outcome.metrics()
    assert metrics["n_sentences"] == 40
    assert metrics["spearman_tre_wns/heldout"] == metrics["models/minilm-static/spearman_tre_wns/heldout"]
    # the same numbers as the functions it wraps
    direct = tre.tree_reconstruction(
        "minilm-static", truth, fit=spec.fit_settings(), seed=0, n_boot=20, context=spec.context()
    )
    np.testing.assert_array_equal(direct.frame["tre"].to_numpy(), report.frame["tre"].to_numpy())
    run = Run.from_spec(spec)
    run.record_outcome(outcome)
    recorded = json.loads(run.metrics_path.read_text())
    expected = {timing_key(k): _jsonable(v) for k, v in metrics.items()}
    assert json.dumps({k: recorded[k] for k in expected}, sort_keys=True) == json.dumps(expected, sort_keys=True)
    extra = {k for k in recorded if k not in expected and not k.startswith("timing/")}
    assert extra - {"_skipped"} == set(RUN_KEYS) and recorded["_headline"] == ["spearman_tre_wns/heldout"]
    # what the small run could not compute is declared skipped, with why, and nothing else
    assert set(recorded.get("_skipped", {})) >= set(outcome.report.skipped())
