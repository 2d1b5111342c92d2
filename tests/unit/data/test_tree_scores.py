"""Tree Impurity and Weighted Node Switching worked by hand, and the bundled treebank they are read from."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from mtlib.data.errors import DataFormatError
from mtlib.data.sst import load_sst_trees
from mtlib.data.trees import parse_tree, tree_impurity, weighted_node_switching

TREES = Path(__file__).resolve().parents[3] / "data" / "trees"

COOL = "(3 (3 Cool) (2 ?))"
# root 4 over a neutral inner node and two pre-terminals: a ternary node
TERNARY = "(4 (2 (2 a) (2 b)) (2 c) (1 d))"
# a negation: "not good" flips 3 to 1; the sentence keeps the 1
NEG = "(1 (1 (2 not) (3 good)) (2 .))"


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
    assert len(texts) == len(set(texts))  # the fit-only train sentences never repeat a scored dev sentence
    dev = frames["dev"]
    assert set(dev.fine_label) == {0, 1, 2, 3, 4}
    ti = [tree_impurity(t) for t in dev.tree]
    wns = [weighted_node_switching(t) for t in dev.tree]
    assert sum(map(math.isnan, wns)) == sum(len(t.leaves()) == 1 for t in dev.tree)
    finite = [w for w in wns if not math.isnan(w)]
    assert _std(ti) > 0.2 and _std(finite) > 0.2  # trees differ in compositionality


def _std(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
