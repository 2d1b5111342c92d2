"""CI gates, worst examples and the HTML browser of failing cases."""

from __future__ import annotations

from html.parser import HTMLParser
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from mtlib import relations as R
from mtlib.relations import transformations as T
from mtlib.relations.result import worst_partners
from mtlib.testing import RelationGateError, assert_relation, gate_decision


def test_gate_uses_the_upper_end_of_the_interval():
    # 4 violations in 100 independent cases: rate 0.04, Wilson upper end ~0.098.
    src, flw = np.zeros(100), np.r_[np.full(96, 1.0), np.full(4, -1.0)]
    res = R.SingleInput("s", "order").check(src, flw)
    assert res.rate == 0.04 and 0.09 < res.ci_high < 0.10
    assert res.passes(max_rate=0.10) and not res.passes(max_rate=0.05)
    assert not res.passes(max_rate=0.10, confidence=0.999)  # a wider interval crosses 0.10
    # the same rate on 10 cases is too noisy to pass
    small = R.SingleInput("s", "order").check(np.zeros(10), np.r_[np.ones(10)])
    assert small.rate == 0 and not small.passes(max_rate=0.10) and small.passes(max_rate=0.35)


def test_pairwise_gate_on_hand_made_scores():
    src = np.arange(40, dtype=float)
    good = R.PairwiseSystematicity("p").check(src, src * 2, n_boot=200)
    bad = R.PairwiseSystematicity("p").check(src, -src, n_boot=200)
    assert good.violations == 0 and good.passes(0.10)
    assert not good.passes(0.01)  # 40 items cannot show a rate below 1%: Wilson over items, 0 of 40, reaches 0.088
    assert bad.rate == 1.0 and not bad.passes(0.5)
    with pytest.raises(ValueError, match="n_boot"):
        R.PairwiseSystematicity("p").check(src, src, n_boot=0).passes()
    assert not R.SingleInput("s", "order").check(np.zeros(0), np.zeros(0)).passes()  # no cases never pass


def test_interval_at_another_confidence_comes_from_the_same_replicates():
    rng = np.random.default_rng(0)
    src = rng.normal(size=80)
    res = R.PairwiseSystematicity("p").check(src, src + rng.normal(scale=0.5, size=80), n_boot=300)
    lo90, hi90 = res.interval(0.90)
    lo99, hi99 = res.interval(0.99)
    assert lo99 <= res.ci_low <= lo90 <= res.rate <= hi90 <= res.ci_high <= hi99


def test_assert_relation_fails_with_rate_interval_description_and_worst_inputs():
    texts = ["alpha good", "beta bad", "gamma fine", "delta poor", "epsilon ok"]
    base = {"alpha good": 0.9, "beta bad": 0.1, "gamma fine": 0.7, "delta poor": 0.2, "epsilon ok": 0.5}
    flipped = lambda xs: np.array([base[x] if x in base else 1 - base[x.lower()] for x in xs])  # noqa: E731
    rel = R.PairwiseSystematicity("upper case keeps order", T.Casing("upper"))
    with pytest.raises(RelationGateError) as err:
        assert_relation(flipped, rel, texts, max_rate=0.2, n_boot=100)
    msg = str(err.value)
    assert "violation rate 1.0000 (10 of 10 cases)" in msg and "95% interval [" in msg
    assert "upper case" in msg and "ALPHA GOOD" in msg  # description and the worst follow-up text
    assert isinstance(err.value, AssertionError) and err.value.result.violations == 10
    kept = lambda xs: np.array([base[x] if x in base else base[x.lower()] for x in xs])  # noqa: E731
    with pytest.raises(RelationGateError):  # 10 pairs of 5 items: too few to pass at 5%
        assert_relation(kept, rel, texts, max_rate=0.05, n_boot=100)
    many = [f"text {i}" for i in range(60)]
    score = {t: i / 60 for i, t in enumerate(many)}
    res = assert_relation(lambda xs: np.array([score[x.lower()] for x in xs]), rel, many, max_rate=0.07, n_boot=100)
    assert res.violations == 0 and res.ci_high == 0.0  # the bootstrap collapses; the gate bound does not
    assert res.gate_bound() > 0.05


def _naive_worst_margin(src, flw, expected="same"):
    worst = -np.inf
    d = 1 if expected == "same" else -1
    for i, j in combinations(range(len(src)), 2):
        if src[i] == src[j]:
            continue
        hi, lo = (i, j) if src[i] > src[j] else (j, i)
        if not d * (flw[hi] - flw[lo]) > 0:
            worst = max(worst, d * (flw[lo] - flw[hi]))
    return worst


@pytest.mark.parametrize("expected", ["same", "opposite"])
def test_worst_partners_find_the_worst_violated_pair(expected):
    rng = np.random.default_rng(3)
    for _ in range(20):
        src, flw = rng.integers(0, 6, 30).astype(float), rng.integers(0, 6, 30).astype(float)
        i, j, margin = worst_partners(src, flw, expected)
        if len(margin):
            assert margin.max() == _naive_worst_margin(src, flw, expected)
            assert (src[i] > src[j]).all()
        else:
            assert _naive_worst_margin(src, flw, expected) == -np.inf


def test_examples_give_texts_and_scores_of_the_worst_cases():
    texts = [f"review {i}" for i in range(30)]
    rng = np.random.default_rng(1)
    base = dict(zip(texts, rng.random(30)))
    noise = dict(zip(texts, rng.normal(scale=0.2, size=30)))
    fn = lambda xs: np.array([base[x] if x in base else base[x[:-2]] + noise[x[:-2]] for x in xs])  # noqa: E731
    rel = R.PairwiseSystematicity("p", T.FunctionTransformation(lambda s: s + " !", name="bang"))
    res = rel.evaluate(texts, fn, n_boot=50)
    ex = res.examples(5)
    assert len(ex) == 5 and ex["margin"].is_monotonic_decreasing
    src, flw = fn(texts), fn([t + " !" for t in texts])
    assert ex["margin"].iloc[0] == pytest.approx(_naive_worst_margin(src, flw))
    row = ex.iloc[0]
    assert row["flw_text_1"] == row["src_text_1"] + " !"
    assert row["src_1"] > row["src_2"] and row["flw_1"] <= row["flw_2"]
    assert set(res.tables()) == {"examples"}
    html = res._repr_html_()
    assert "<table" in html and row["src_text_1"] in html


def test_transitivity_examples_are_violated_triples():
    rng = np.random.default_rng(2)
    adj = rng.random((12, 12)) < 0.4
    words = [f"w{i}" for i in range(12)]
    res = R.ThreeWayTransitivity("t").check(adj, per_item=words, n_boot=0)
    ex = res.examples(4)
    idx = {w: i for i, w in enumerate(words)}
    for _, r in ex.iterrows():
        a, b, c = idx[r["x1"]], idx[r["x2"]], idx[r["x3"]]
        assert len({a, b, c}) == 3 and adj[a, b] and adj[b, c] and not adj[a, c]


class _Table(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.cells, self.scripts, self.errors = [], [], 0, []

    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "input", "br"):
            self.stack.append(tag)
        self.scripts += tag == "script" and not dict(attrs).get("src")
        if tag in ("script", "link") and (dict(attrs).get("src") or dict(attrs).get("href")):
            self.errors.append(f"external {tag}")

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(f"unbalanced </{tag}>")

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "td":
            self.cells.append(data)


def test_html_is_valid_self_contained_and_holds_the_worst_example(tmp_path):
    texts = [f"It was film <{i}> & more" for i in range(40)]
    rng = np.random.default_rng(4)
    base = dict(zip(texts, rng.random(40)))
    lower = {t.lower(): t for t in texts}
    fn = lambda xs: np.array([base[x] if x in base else 1 - base[lower[x]] for x in xs])  # noqa: E731
    res = R.SingleInput("lower", "order", T.Casing("lower"), direction="increase").evaluate(texts, fn)
    path = res.to_html(tmp_path / "cases.html")
    page = path.read_text()
    parser = _Table()
    parser.feed(page)
    parser.close()
    assert not parser.errors and not parser.stack and parser.scripts == 1
    worst = res.examples(1).iloc[0]
    assert worst["src_text"] in parser.cells and "oninput=" in page and "&lt;" in page


def test_single_input_examples_on_class_probabilities():
    src = np.array([[0.9, 0.1], [0.6, 0.4], [0.2, 0.8]])
    flw = np.array([[0.8, 0.2], [0.1, 0.9], [0.45, 0.55]])
    res = R.SingleInput("eq", "equivalence").check(src, flw, per_item=["a", "b", "c"])
    ex = res.examples(5)
    assert list(ex["item"]) == ["b"] and ex["margin"].iloc[0] == pytest.approx(0.8)  # c keeps class 1
    assert isinstance(res.metrics(prefix="eq"), dict) and res.metrics("eq")["eq/violations"] == 1
    assert isinstance(pd.DataFrame(res.metrics(), index=[0]), pd.DataFrame)


def test_the_gate_message_says_which_bound_decided_and_why():
    texts = ["alpha good", "beta bad", "gamma fine", "delta poor", "epsilon ok"]
    base = {"alpha good": 0.9, "beta bad": 0.1, "gamma fine": 0.7, "delta poor": 0.2, "epsilon ok": 0.5}
    kept = lambda xs: np.array([base[x] if x in base else base[x.lower()] for x in xs])  # noqa: E731
    rel = R.PairwiseSystematicity("upper case keeps order", T.Casing("upper"))
    with pytest.raises(RelationGateError) as err:  # no violation, but 5 items: the Wilson bound decides
        assert_relation(kept, rel, texts, max_rate=0.05, n_boot=100)
    msg = str(err.value)
    assert "95% interval [0.0000, 0.0000]" in msg
    assert "item-level Wilson upper bound" in msg and "over 5 source items" in msg and "by luck" in msg
    assert "gate fails: the item-level Wilson bound decided" in msg and "> max_rate 0.0500" in msg
    res = err.value.result
    assert gate_decision(res, 0.99)[-1].startswith("gate passes: the item-level Wilson bound decided")
