"""Relation families, transformations, statistics and diagrams."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtlib import relations as R
from mtlib.analysis import stats
from mtlib.relations import transformations as T
from tests.unit.relations.counting_naive import count_order_violations_naive, count_transitivity_violations_naive


def test_concatenation_positions_and_bad_position():
    assert T.Concatenation("Thank you.", "start")("Great film.") == "Thank you. Great film."
    assert T.Concatenation("Anyway.", "End")("Great film.") == "Great film. Anyway."
    with pytest.raises(ValueError, match=r"position must be one of \['start', 'end'\], got str 'middle'"):
        T.Concatenation("Hi.", "middle")


def test_pairwise_check_matches_the_naive_count_and_per_item_adds_up():
    rng = np.random.default_rng(1)
    src = rng.integers(0, 6, 80).astype(float)
    flw = src + rng.integers(-2, 3, 80)
    res = R.PairwiseSystematicity("p").check(src, flw, n_boot=50)
    naive = count_order_violations_naive(src, flw)
    assert (res.cases, res.violations) == (naive.cases, naive.violations)
    assert res.per_item["violations"].sum() == 2 * res.violations
    assert res.ci_low <= res.rate <= res.ci_high
    assert res.extra["pairs"] == 80 * 79 // 2


def test_check_many_pools_transformations():
    rng = np.random.default_rng(2)
    src = rng.normal(size=60)
    flws = {"a": src + rng.normal(scale=0.2, size=60), "b": rng.normal(size=60)}
    res = R.PairwiseSystematicity("p").check_many(src, flws, n_boot=20)
    singles = [R.count_order_violations(src, f) for f in flws.values()]
    assert res.violations == sum(s.violations for s in singles)
    assert list(res.groups.index) == ["a", "b"]
    assert res.groups.loc["a", "rate"] < res.groups.loc["b", "rate"]
    assert res.per_item["cases"].sum() == 2 * res.cases


def test_evaluate_scores_each_unique_text_once():
    calls = []

    def score(texts):
        calls.append(list(texts))
        return np.array([len(t) for t in texts], dtype=float)

    rel = R.PairwiseSystematicity("t", T.Concatenation("Thank you.", "start"))
    res = rel.evaluate(["a", "bb", "a", "cccc"], score, n_boot=0)
    assert len(calls) == 1 and len(calls[0]) == len(set(calls[0])) == 6  # 3 unique sources + follow-ups
    assert res.violations == 0


def test_compositionality_counts_pairs_inside_each_group_with_its_direction():
    rng = np.random.default_rng(3)
    groups = np.repeat(["up1", "down1", "up2"], 30)
    hid, out = rng.integers(0, 5, 90).astype(float), rng.integers(0, 5, 90).astype(float)
    direction = {"up1": "opposite", "up2": "opposite", "down1": "same"}
    items = np.tile(np.arange(30), 3)
    res = R.PairwiseCompositionality("c").check(hid, out, groups, direction, items=items, n_boot=20)
    expected_v = 0
    for g, d in direction.items():
        mask = groups == g
        expected_v += count_order_violations_naive(hid[mask], out[mask], expected=d).violations
    assert res.violations == expected_v
    assert res.groups.loc["down1", "expected"] == "same"
    assert res.per_item["violations"].sum() == 2 * res.violations
    with pytest.raises(ValueError, match="direction has no entry for group"):
        R.PairwiseCompositionality("c").check(hid, out, groups, {"up1": "same"})


def test_transitivity_exact_and_sampled():
    rng = np.random.default_rng(4)
    adj = rng.random((25, 25)) < 0.3
    res = R.ThreeWayTransitivity("t").check(adj, items=[f"w{i}" for i in range(25)], n_boot=20)
    naive = count_transitivity_violations_naive(adj)
    assert (res.cases, res.violations) == (naive.cases, naive.violations)
    assert res.per_item["violations"].sum() == 3 * res.violations
    sampled = R.ThreeWayTransitivity("t").check(adj, sample=20000, seed=1)
    again = R.ThreeWayTransitivity("t").check(adj, sample=20000, seed=1)
    assert sampled.extra["sampled"] and sampled.violations == again.violations
    assert abs(sampled.rate - res.rate) < 0.05


@pytest.mark.parametrize(
    "prop,src,flw,expected_violations",
    [
        ("equivalence", [[0.9, 0.1], [0.6, 0.4], [0.5, 0.5]], [[0.8, 0.2], [0.3, 0.7], [0.9, 0.1]], 2),
        ("order", [[0.1], [0.5], [0.9]], [[0.2], [0.4], [0.9]], 2),
        ("similarity", [[1, 0], [0, 1], [1, 1]], [[1, 0.1], [1, 0], [1, 1]], 1),
    ],
)
def test_single_input_properties(prop, src, flw, expected_violations):
    rel = R.SingleInput(prop, prop, threshold=0.9 if prop == "similarity" else None)
    res = rel.check(np.array(src).squeeze(), np.array(flw).squeeze())
    assert res.violations == expected_violations and res.cases == 3
    assert 0 <= res.ci_low <= res.rate <= res.ci_high <= 1


def test_single_input_rejects_bad_settings():
    with pytest.raises(ValueError, match="threshold"):
        R.SingleInput("s", "similarity")
    with pytest.raises(ValueError, match=r"prop must be one of \[.equivalence.*got str .entailment."):
        R.SingleInput("s", "entailment")


@pytest.mark.parametrize(
    "rel,circles,squares,grey",
    [
        (R.SingleInput("single", "order"), 2, 2, 1),
        (R.PairwiseSystematicity("pairwise"), 4, 4, 2),
        (R.PairwiseCompositionality("compositional"), 2, 4, 2),
        (R.ThreeWayTransitivity("transitive"), 6, 3, 3),
    ],
)
def test_every_relation_draws_its_structure(rel, circles, squares, grey):
    diagram = rel.structure()
    node_types = [n.node_type for n in diagram.nodes]
    assert node_types.count("text") == circles and node_types.count("number") == squares
    assert sum(n.source for n in diagram.nodes) == grey
    fig = rel.diagram()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue()[:4] == b"\x89PNG"


def test_wilson_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for k, n in [(0, 10), (3, 10), (50, 100), (99, 100)]:
        ours = stats.wilson_interval(k, n)
        ref = proportion_confint(k, n, method="wilson")
        np.testing.assert_allclose(ours, ref, atol=1e-9)
    assert np.isnan(stats.wilson_interval(0, 0)[0])


def test_bootstrap_is_seeded_and_covers_the_rate():
    rng = np.random.default_rng(5)
    src = rng.normal(size=200)
    flw = src + rng.normal(scale=0.5, size=200)
    a = stats.bootstrap_order_rate(src, flw, n_boot=100, seed=7)
    b = stats.bootstrap_order_rate(src, flw, n_boot=100, seed=7)
    rate = R.count_order_violations(src, flw).rate
    assert a == b and a[0] < rate < a[1]


def test_group_difference_tests_name_themselves_and_detect_a_real_difference():
    frame = pd.DataFrame(
        {"group": ["up"] * 20 + ["down"] * 20, "violations": [30] * 20 + [60] * 20, "cases": [100] * 40}
    )
    result = stats.compare_two_groups(frame, group="group", permutations=500)
    assert result.names == ["z_test", "permutation"] and "two-proportion" in result.z_test.test
    assert "permutation" in result.permutation.test and np.isnan(result.permutation.statistic)
    assert result.z_test.groups == "down - up" and result.z_test.difference == pytest.approx(0.3)
    assert result.z_test.p_value < 0.01 and result.permutation.p_value < 0.01
    table = result.table()
    assert list(table.columns) == list(stats.GROUP_COMPARISON_COLUMNS)
    assert table["p_value"].tolist() == [result.z_test.p_value, result.permutation.p_value]
    same = stats.compare_two_groups(frame.assign(violations=[45] * 40), group="group", permutations=200)
    assert min(t.p_value for t in same) > 0.5


def test_association_test_on_flagged_items():
    rng = np.random.default_rng(6)
    values = np.r_[rng.poisson(10, 100), rng.poisson(20, 20)]
    flag = np.r_[np.zeros(100, bool), np.ones(20, bool)]
    result = stats.association_test(values, flag)
    assert result.names == ["mann_whitney", "logistic"] and len(result) == 2
    assert result.mann_whitney.p_value < 0.001 and result.logistic.p_value < 0.001
    assert result.logistic.ci_low < result.logistic.effect < result.logistic.ci_high and result.logistic.ci_low > 1
    untested = stats.association_test(values, np.zeros(120, bool))
    assert len(untested) == 0 and untested.get("mann_whitney") is None and "mann_whitney" not in untested
    with pytest.raises(AttributeError, match=r"no test 'mann_whitney' in this result: it has \[\]"):
        untested.mann_whitney  # noqa: B018
    assert list(untested.table().columns) == list(stats.EFFECT_TEST_COLUMNS) and untested.table().empty


def test_one_sample_test_gives_the_mean_difference_with_its_interval():
    result = stats.one_sample_test(np.array([0.3, 0.35, 0.4, 0.32, 0.38, np.nan]), 0.5)
    t = result.t_test
    assert t.effect == pytest.approx(0.35 - 0.5) and t.ci_low < t.effect < t.ci_high < 0 and t.p_value < 0.01
    assert result.wilcoxon.effect == pytest.approx(0.35 - 0.5) and "5 clusters" in result.wilcoxon.test
    assert len(stats.one_sample_test(np.array([0.4]), 0.5)) == 0


def test_reading_a_result_by_row_position_still_works_for_one_release_with_a_warning():
    result = stats.one_sample_test(np.array([0.3, 0.35, 0.4]), 0.5)
    with pytest.warns(
        DeprecationWarning, match=r"read a test by name \(result.t_test.p_value, result.wilcoxon.p_value\)"
    ):
        assert result.loc[0, "p_value"] == result.t_test.p_value
    with pytest.warns(DeprecationWarning):
        assert result["p_value"].tolist() == [t.p_value for t in result]
    with pytest.warns(DeprecationWarning):
        assert result.iloc[1]["effect"] == result.wilcoxon.effect
    assert not result.empty and stats.TestResults.untested().empty


# ---------------------------------------------------------------------------
# One protocol: property tests against naive counts, a relation with only check
# ---------------------------------------------------------------------------

_tied_scores = st.lists(st.integers(0, 4), min_size=0, max_size=25)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_pairwise_check_equals_naive_count_with_ties(data):
    src = np.array(data.draw(_tied_scores), float)
    flw = np.array(data.draw(st.lists(st.integers(0, 4), min_size=len(src), max_size=len(src))), float)
    expected = data.draw(st.sampled_from(["same", "opposite"]))
    res = R.PairwiseSystematicity("p", expected=expected).check(src, flw, n_boot=0)
    naive = count_order_violations_naive(src, flw, expected=expected)
    assert (res.cases, res.violations) == (naive.cases, naive.violations)
    np.testing.assert_array_equal(res.per_item["violations"], naive.per_item)
    np.testing.assert_array_equal(res.per_item["cases"], naive.per_item_cases)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_compositionality_check_equals_naive_count_per_group(data):
    n = data.draw(st.integers(0, 30))
    src = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
    flw = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
    groups = np.array(data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)), dtype=object)
    direction = {"a": "same", "b": "opposite", "c": "same"}
    res = R.PairwiseCompositionality("c").check(src, flw, groups, direction, n_boot=0)
    cases = violations = 0
    for g, d in direction.items():
        m = groups == g
        naive = count_order_violations_naive(src[m], flw[m], expected=d)
        cases, violations = cases + naive.cases, violations + naive.violations
    assert (res.cases, res.violations) == (cases, violations)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(3, 9), st.floats(0.05, 0.9), st.integers(0, 10**6)
)  # fewer than 3 items: refused (test_degenerate_inputs)
def test_transitivity_check_equals_naive_count(n, p, seed):
    adj = np.random.default_rng(seed).random((n, n)) < p
    res = R.ThreeWayTransitivity("t").check(adj, n_boot=0)
    naive = count_transitivity_violations_naive(adj)
    assert (res.cases, res.violations) == (naive.cases, naive.violations)
    np.testing.assert_array_equal(res.per_item["violations"], naive.per_item)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_single_input_check_equals_naive_python_count(data):
    src = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=30))
    flw = data.draw(st.lists(st.integers(0, 3), min_size=len(src), max_size=len(src)))
    direction = data.draw(st.sampled_from(["increase", "decrease"]))
    res = R.SingleInput("o", "order", direction=direction).check(np.array(src, float), np.array(flw, float))
    naive = sum(not (f > s if direction == "increase" else f < s) for s, f in zip(src, flw))
    assert (res.cases, res.violations) == (len(src), naive)
    probs = [[a / 4, 1 - a / 4] for a in src], [[b / 4, 1 - b / 4] for b in flw]
    eq = R.SingleInput("e", "equivalence").check(np.array(probs[0]), np.array(probs[1]))
    naive_eq = 0
    for ys, yf in zip(*probs):
        top = max(range(2), key=lambda c: ys[c])
        strict = ys[top] > ys[1 - top] and yf[top] > yf[1 - top]
        naive_eq += not strict
    assert eq.violations == naive_eq


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["a", "bb", "ccc", "dddd", "ee", "f"]), min_size=2, max_size=12))
def test_evaluate_equals_check_on_precomputed_scores(texts):
    score = {"a": 1, "bb": 0, "ccc": 3, "dddd": 2, "ee": 0, "f": 5}
    shift = {"a": 2, "bb": 0, "ccc": 1, "dddd": 4, "ee": 1, "f": 3}
    t = T.FunctionTransformation(lambda s: s + "!", name="bang")
    fn = lambda xs: np.array([score[x] if x in score else shift[x[:-1]] for x in xs], float)  # noqa: E731
    rel = R.PairwiseSystematicity("p", t)
    res = rel.evaluate(texts, fn, n_boot=0)
    src, flw = fn(texts), fn([x + "!" for x in texts])
    naive = count_order_violations_naive(src, flw)
    assert (res.cases, res.violations, res.extra["skipped"]) == (naive.cases, naive.violations, 0)


class Louder(R.Relation):
    """A new relation with only ``check``: the score must not drop."""

    def check(self, src, flw):
        return np.asarray(flw) < np.asarray(src)


def test_a_relation_with_only_check_gets_evaluate_interval_and_diagram():
    rel = Louder("louder", [T.Punctuation("exclaim"), T.Casing("upper")])
    res = rel.check(np.array([1.0, 2.0, 3.0]), np.array([2.0, 1.0, 3.0]))
    assert isinstance(res, R.RelationResult) and (res.cases, res.violations) == (3, 1)
    assert 0 < res.ci_low < res.rate < res.ci_high < 1
    texts = ["Fine.", "BAD!", "ok then"]
    res = rel.evaluate(texts, lambda xs: np.array([x.count("!") + sum(c.isupper() for c in x) for x in xs], float))
    assert res.extra["skipped"] == 2  # "BAD!" ends with "!" and is upper case already
    assert res.cases == 4 and res.violations == 0 and np.isfinite(res.ci_high)
    assert list(res.groups.index) == ["punct_exclaim", "case_upper"]
    assert "louder" in rel.description and "end with '!'" in rel.description
    buf = io.BytesIO()
    rel.diagram().savefig(buf, format="png")
    assert buf.getvalue()[:4] == b"\x89PNG"


def test_per_item_counts_from_check_get_a_bootstrap():
    class ItemCounts(R.Relation):
        def check(self, src, flw, *, per_item=None, n_boot=100, seed=0):
            return np.asarray(src, int), np.asarray(flw, int)

    res = ItemCounts("counts").check(np.array([1, 0, 2, 1]), np.array([3, 3, 3, 3]), n_boot=200)
    assert (res.violations, res.cases) == (4, 12) and res.ci_low < res.rate < res.ci_high
    with pytest.raises(TypeError, match="must return"):
        type("Bad", (R.Relation,), {"check": lambda self, src, flw, **kw: 3.0})("b").check([1], [2])


def test_old_keyword_names_still_work_with_a_warning():
    with pytest.warns(DeprecationWarning, match="y_src"):
        a = R.SingleInput("s", "order").check(y_src=np.array([0.1, 0.5]), y_flw=np.array([0.2, 0.4]))
    with pytest.warns(DeprecationWarning, match="adj"):
        b = R.ThreeWayTransitivity("t").check(adj=np.ones((4, 4), bool), n_boot=0)
    with pytest.warns(DeprecationWarning, match="hid"):
        c = R.PairwiseCompositionality("c").check(
            hid=[1, 2, 3], out=[1, 3, 2], groups=["g"] * 3, direction={"g": "same"}, n_boot=0
        )
    assert (a.violations, b.violations, c.violations) == (1, 0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        R.SingleInput("s", "order").check(src=np.array([0.1]), flw=np.array([0.2]))


def test_negation_reverses_the_expected_order_and_skips_where_it_does_not_apply():
    rel = R.PairwiseSystematicity("neg", T.Negation())
    assert rel.expected == "opposite"
    texts = ["It is good.", "It was bad.", "Great!", "They are fine."]
    base = {"It is good.": 0.9, "It was bad.": 0.1, "Great!": 0.8, "They are fine.": 0.6}
    fn = lambda xs: np.array([base.get(x, 1 - base.get(x.replace(" not", ""), 0.5)) for x in xs])  # noqa: E731
    res = rel.evaluate(texts, fn, n_boot=0)
    assert res.extra["skipped"] == 1 and res.cases == 3 and res.violations == 0


def test_single_input_evaluate_reports_a_wilcoxon_test_beside_the_flip_rate():
    rng = np.random.default_rng(0)
    texts = [f"review number {i} is fine" for i in range(60)]
    base = dict(zip(texts, rng.random(60)))
    fn = lambda xs: np.array([base[x] if x in base else base[x.lower()] - 0.05 for x in xs])  # noqa: E731
    res = R.SingleInput("inv", "order", T.Casing("upper"), direction="decrease").evaluate(texts, fn)
    assert res.violations == 0 and res.extra["wilcoxon_p"] < 1e-6
    assert res.extra["median_change"] == pytest.approx(-0.05)
    assert "wilcoxon_p" in res.groups.columns


def test_compositionality_and_transitivity_evaluate_score_once_and_match_check():
    calls = []
    texts = [f"ctx{g} item{i}" for g in range(3) for i in range(8)]
    rng = np.random.default_rng(7)
    table = {t: rng.integers(0, 4, 2).astype(float) for t in texts}

    def both(xs):
        calls.append(len(xs))
        return np.array([table[x] for x in xs])

    groups = [t.split()[0] for t in texts]
    direction = {"ctx0": "same", "ctx1": "opposite", "ctx2": "same"}
    rel = R.PairwiseCompositionality("c")
    res = rel.evaluate(texts + texts[:3], both, groups=groups + groups[:3], direction=direction, n_boot=20)
    assert calls == [len(texts)]  # duplicates scored once
    scores = both(texts + texts[:3])
    ref = rel.check(scores[:, 0], scores[:, 1], groups + groups[:3], direction, n_boot=20)
    assert (res.cases, res.violations, res.ci_low) == (ref.cases, ref.violations, ref.ci_low)
    assert len(res.examples(3)) <= 3

    words = ["cat", "feline", "kitty", "dog"]
    syn = {("cat", "feline"), ("feline", "kitty"), ("cat", "kitty"), ("kitty", "dog"), ("feline", "dog")}
    tr = R.ThreeWayTransitivity("syn").evaluate(words, lambda pairs: np.array([p in syn for p in pairs]), n_boot=0)
    ex = tr.examples(5)
    assert (tr.cases, tr.violations) == (4, 2) and tuple(ex.loc[0, ["x1", "x2", "x3"]]) in {
        ("cat", "feline", "dog"),
        ("cat", "kitty", "dog"),
    }
    with pytest.warns(DeprecationWarning, match=r"relations.Concatenation moved to mtlib.relations.transformations"):
        assert R.Concatenation is T.Concatenation  # one face gives it; the old place warns for one release
    with pytest.warns(DeprecationWarning, match=r"relations.NotApplicable moved to mtlib.relations.transformations"):
        assert R.NotApplicable is T.NotApplicable


def test_cluster_permutation_leaves_out_shuffles_that_empty_a_group():
    # two clusters hold every case; a shuffle that puts both in one group has no difference (NaN) and
    # must not count as "less extreme" (which would shrink p): only defined shuffles form the null
    violations, cases = np.array([3.0, 0.0, 0.0, 0.0]), np.array([5.0, 5.0, 0.0, 0.0])
    labels = np.array(["a", "b", "a", "b"])
    out = stats.cluster_permutation_test(violations, cases, labels, permutations=400, seed=0)
    assert out["difference"] == pytest.approx(0.6)
    # of the defined shuffles, half put the violating cluster in group a (+0.6) and half in b (-0.6): p ~ 1
    assert out["p_value"] > 0.95
    undefined = stats.cluster_permutation_test(np.zeros(4), np.array([1.0, 1.0, 0.0, 0.0]), np.array([0, 0, 1, 1]))
    assert np.isnan(undefined["difference"]) and np.isnan(undefined["p_value"])


def test_a_relation_result_derives_its_rate_from_its_counts() -> None:
    """One constructor, by keyword: the rate is ``violations / cases`` (nan without cases) and cannot be passed."""
    frame = pd.DataFrame({"violations": [1, 0], "cases": [3, 1]})
    common = {"ci_low": 0.0, "ci_high": 1.0, "ci_method": "none", "per_item": frame}
    res = R.RelationResult(relation="r", cases=4, violations=1, **common)
    assert res.rate == 0.25 and res.summary()["rate"] == 0.25 and res.metrics()["violation_rate"] == 0.25
    empty = R.RelationResult(relation="r", cases=0, violations=0, **common)
    assert np.isnan(empty.rate) and "no case" in empty.no_cases
    with pytest.raises(TypeError):
        R.RelationResult(relation="r", cases=4, violations=1, rate=0.5, **common)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        R.RelationResult("r", 4, 1, 0.25, 0.0, 1.0, "none", frame)  # type: ignore[misc]
