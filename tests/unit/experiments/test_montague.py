"""The Montague tests on hand-made 2-D vectors whose answers are known, and the relation against a naive count."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.data import adjectives as adjective_lists
from mtlib.data import papers
from mtlib.experiments import montague as mg
from mtlib.relations import Relation
from mtlib.run import results
from mtlib.utils.similarity import normalize_rows


def _table(vectors: dict[str, list[float]]) -> mg.EmbeddingTable:
    return mg.EmbeddingTable(list(vectors), np.array(list(vectors.values()), dtype=float))


def _holds(frame: pd.DataFrame) -> list[bool]:
    """Per case, through the relation (no items: each case is its own item)."""
    res = mg.INTERSECTIVITY.check(frame["near"], frame["far"], None, None, None, 0)
    return (res.per_item["violations"] == 0).tolist()


def test_splits_of_a_three_term_phrase_are_sub_phrase_and_complement():
    assert mg.splits(["wild", "red", "dog"]) == [("wild", "red dog"), ("wild red", "dog"), ("wild dog", "red")]
    assert mg.splits(["red", "dog"]) == [("red", "dog")]
    four = mg.splits(["a", "b", "c", "d"])
    assert len(four) == 7 and ("a c", "b d") in four and len(set(four)) == 7


def test_single_phrase_intersectivity_on_two_terms():
    table = _table(
        {
            "a": [1, 0],
            "n": [0, 1],
            "a n": [1, 1],  # d(p, a) = d(p, n) = 0.29 < d(a, n) = 1.0
            "b": [1, 0.5],
            "m": [0.5, 1],
            "b m": [1, -1],  # d(b, m) = 0.2 but d(p, b) = 0.68: fails
        }
    )
    phrases = pd.DataFrame({"phrase": ["a n", "b m"], "adj": ["a", "b"], "noun": ["n", "m"], "type": ["S-I", "A"]})
    strict = mg.intersectivity(table, phrases, ["adj", "noun"], max_split_distance=None)
    assert _holds(strict) == [True, False]
    # with the published reading, a split at distance >= 1 (a vs n) constrains nothing
    published = mg.intersectivity(table, phrases, ["adj", "noun"])
    assert published["far"].iloc[0] == np.inf and _holds(published) == [True, False]


def test_single_phrase_intersectivity_on_three_terms_uses_every_split():
    close = {"x": [1, 0.1], "y": [1, 0.2], "z": [1, 0.3], "x y z": [1, 0.2]}
    close |= {"x y": [1, 0.15], "x z": [1, 0.2], "y z": [1, 0.25]}
    table = _table(close)
    phrases = pd.DataFrame({"phrase": ["x y z"], "adj1": ["x"], "adj2": ["y"], "noun": ["z"]})
    frame = mg.intersectivity(table, phrases, ["adj1", "adj2", "noun"], max_split_distance=None)
    d = lambda a, b: table.distance(table.rows([a]), table.rows([b]))[0]  # noqa: E731
    assert frame["near"].item() == pytest.approx(max(d("x y z", t) for t in "xyz"))
    assert frame["far"].item() == pytest.approx(min(d("x", "y z"), d("x y", "z"), d("x z", "y")))
    table.unit[table.row["x y z"]] = normalize_rows(np.array([[0.0, 1.0]]))[0]  # move the phrase away
    assert _holds(mg.intersectivity(table, phrases, ["adj1", "adj2", "noun"], max_split_distance=None)) == [False]


def test_nonsubsectivity_asks_whether_the_adjective_pulls_the_phrase():
    table = _table(
        {"fake": [1, 0], "wall": [0, 1], "fake wall": [1, 0.2], "red": [1, 0], "car": [0, 1], "red car": [0.2, 1]}
    )
    an = pd.DataFrame(
        {"phrase": ["fake wall", "red car"], "adj": ["fake", "red"], "noun": ["wall", "car"], "type": ["NS-Pr", "S-I"]}
    )
    assert _holds(mg.nonsubsectivity(table, an)) == [True, False]


def test_phrase_pairs_compare_adjectives_on_the_same_noun_pairs():
    adjectives = pd.DataFrame({"word": ["canadian", "skilful"], "type": ["S-I", "S-NI"]})
    vectors = {
        "canadian": [1, 0],
        "skilful": [0, 1],
        "writer": [1, 1],
        "surgeon": [1, -1],
        "canadian writer": [1, 0.1],
        "canadian surgeon": [1, -0.1],  # close: share "Canadian"
        "skilful writer": [0.2, 1],
        "skilful surgeon": [1, -0.9],
    }  # far apart
    phrase_set = mg.build_phrases(adjectives, ["writer", "surgeon"], with_aan=False)
    cases = mg.intersective_pairs(_table(vectors), phrase_set)
    assert len(cases) == 2 and set(cases[["noun1", "noun2"]].itertuples(index=False)) == {("writer", "surgeon")}
    res = mg.PAIR_INTERSECTIVITY.check(
        cases["near"], cases["far"], cases[["adj1", "adj2"]], cases[["type1", "type2"]], None, 0
    )
    per_pair = res.per_item.set_index(["adj1", "adj2"])
    assert per_pair.loc[("canadian", "skilful"), ["violations", "cases"]].tolist() == [0, 1]
    assert per_pair.loc[("skilful", "canadian"), ["violations", "cases"]].tolist() == [1, 1]
    scores = mg.consistency(res)
    assert scores.loc[("S-I", "S-NI"), "E"] == 1.0 and scores.loc[("S-NI", "S-I"), "E"] == 0.0


def test_phrases_with_a_missing_vector_are_excluded():
    table = mg.EmbeddingTable(
        ["a", "n", "a n", "b", "b n"], np.array([[1, 0], [0, 1], [1, 1], [np.nan, np.nan], [1, 2]], dtype=float)
    )
    an = pd.DataFrame({"phrase": ["a n", "b n"], "adj": ["a", "b"], "noun": ["n", "n"], "type": ["S-I", "A"]})
    assert mg.nonsubsectivity(table, an)["phrase"].tolist() == ["a n"]


def test_phrase_generation_counts_match_the_paper():
    adjectives = pd.DataFrame({"word": [f"a{i}" for i in range(61)], "type": ["S-I"] * 61})
    phrase_set = mg.build_phrases(adjectives, [f"n{i}" for i in range(12)])
    assert (len(phrase_set.an), len(phrase_set.aan), phrase_set.n_phrases) == (732, 43920, 44652)
    assert not (phrase_set.aan["adj1"] == phrase_set.aan["adj2"]).any()
    assert phrase_set.counts()["n_phrases_aan"] == 43920


def test_bundled_lexicon_is_the_papers_appendix_and_subsamples_in_the_loader():
    adjs, nouns = adjective_lists.load_lexicon()
    assert len(adjs) == 61 and len(nouns) == 12
    assert adjs["type"].value_counts().to_dict() == {"S-I": 11, "S-NI": 6, "NS-Pl": 27, "NS-Pr": 14, "A": 3}
    small, few = adjective_lists.load_lexicon(max_per_type=2, max_nouns=3)
    assert len(small) == 10 and few == nouns[:3] and small["word"].tolist()[:2] == adjs["word"].tolist()[:2]
    with pytest.raises(ValueError, match="no word list"):
        adjective_lists.load_lexicon([])
    assert adjective_lists.load_lexicon([], bundled=True)[1] == nouns
    by_type = mg.build_phrases(small, few).adjectives_by_type()
    assert by_type.loc["NS-Pr", "name"] == adjective_lists.TYPE_NAMES["NS-Pr"]


def test_paper_tables_have_one_value_per_column():
    for table, width in (
        (papers.CARVALHO_TABLE1, 5),
        (papers.CARVALHO_TABLE6, 25),
        (papers.CARVALHO_TABLE7, 15),
        (papers.CARVALHO_TABLE8, 5),
    ):
        assert set(table) == set(papers.CARVALHO_TABLE6) and all(len(row) == width for row in table.values())
    # Table 7's diagonal is 0.5 for every model: each type against itself, counted both ways
    diagonal = [i for i, (a, b) in enumerate(papers.CARVALHO_TABLE7_COLUMNS) if a == b]
    assert all(row[i] == 0.5 for row in papers.CARVALHO_TABLE7.values() for i in diagonal)


def test_truncation_and_comparison_with_the_paper():
    assert mg.truncate(0.43209) == 0.4320 and mg.truncate(1.0) == 1.0
    paper = mg.paper_values(8, "minilm")
    cmp = mg.compare_with_paper(pd.Series([0.61363, 0.48611, 0.43209, 0.67857, 0.11111], index=paper.index), paper)
    assert cmp["match"].all()
    assert mg.paper_values(7, "minilm-hub") is not None and mg.paper_values(6, "my-model") is None


# ---------------------------------------------------------------------------
# DistanceOrder against a naive count
# ---------------------------------------------------------------------------


def _random_cases(rng: np.random.Generator, n: int) -> pd.DataFrame:
    words = np.array([f"w{i}" for i in range(9)])
    types = {w: ("S-I", "NS-Pr", "A")[i % 3] for i, w in enumerate(words)}
    a1 = rng.choice(words, n)
    a2 = rng.choice(words, n)
    # distances on a coarse grid, so near == far (a tie, which holds) is frequent
    return pd.DataFrame(
        {
            "adj1": a1,
            "adj2": a2,
            "type1": [types[w] for w in a1],
            "type2": [types[w] for w in a2],
            "near": rng.integers(0, 4, n) / 4,
            "far": rng.integers(0, 4, n) / 4,
        }
    ), types


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distance_order_counts_equal_a_naive_count_with_ties(seed):
    rng = np.random.default_rng(seed)
    cases, types = _random_cases(rng, 300)
    res = mg.DistanceOrder("toy").check(
        cases["near"], cases["far"], cases[["adj1", "adj2"]], cases[["type1", "type2"]], types, 200, seed
    )
    violated = [near > far for near, far in zip(cases["near"], cases["far"])]
    assert (res.cases, res.violations) == (len(cases), sum(violated))
    assert res.rate == sum(violated) / len(cases)
    for (t1, t2), row in res.groups.iterrows():
        mask = [(a, b) == (t1, t2) for a, b in zip(cases["type1"], cases["type2"])]
        assert (row["cases"], row["violations"]) == (sum(mask), sum(v for v, m in zip(violated, mask) if m))
        assert row["ci_low"] <= row["rate"] <= row["ci_high"]
    for row in res.per_item.itertuples():
        mask = [(a, b) == (row.adj1, row.adj2) for a, b in zip(cases["adj1"], cases["adj2"])]
        assert (row.cases, row.violations) == (sum(mask), sum(v for v, m in zip(violated, mask) if m))
        assert (row.type1, row.type2) == (types[row.adj1], types[row.adj2])
    assert res.ci_low <= res.rate <= res.ci_high and res.per_item["cases"].sum() == len(cases)
    scores = mg.consistency(res)
    assert (
        np.allclose(scores["E"], 1 - res.groups["rate"])
        and (scores["k"] + res.groups["violations"] == scores["n"]).all()
    )


def test_distance_order_interval_resamples_items_not_cases():
    # two adjectives, one always holding, one always violated: the rate over cases is 0.5 and the
    # interval over adjectives spans it widely; with one adjective per stratum each resample keeps both
    near = np.r_[np.zeros(50), np.ones(50)]
    far = np.full(100, 0.5)
    items = ["good"] * 50 + ["bad"] * 50
    free = mg.DistanceOrder("toy").check(near, far, items, None, None, 500, 0)
    assert free.rate == 0.5 and free.ci_low == 0.0 and free.ci_high == 1.0
    stratified = mg.DistanceOrder("toy").check(near, far, items, None, {"good": "a", "bad": "b"}, 500, 0)
    assert stratified.ci_low == stratified.ci_high == 0.5
    assert np.isnan(mg.DistanceOrder("toy").check(near, far, items, None, None, 0).ci_low)


def test_distance_order_is_a_relation_with_only_check():
    assert issubclass(mg.DistanceOrder, Relation)
    own = {k for k, v in vars(mg.DistanceOrder).items() if callable(v) and not k.startswith("__")}
    assert own == {"check"}
    with pytest.raises(ValueError, match="one length"):
        mg.DistanceOrder("toy").check(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="NaN"):
        mg.DistanceOrder("toy").check(np.zeros(3), np.array([0.0, np.nan, 1.0]))


# ---------------------------------------------------------------------------
# run_tests and the report
# ---------------------------------------------------------------------------


class _WordMeanModel:
    """Mean of fixed random word vectors; words outside ``vocab`` give NaN (like a static model)."""

    def __init__(self, vocab: list[str], name: str = "toy-static") -> None:
        rng = np.random.default_rng(0)
        self.name = name
        self.vectors = {w: rng.normal(size=8) for w in vocab}

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([np.mean([self.vectors.get(w, np.full(8, np.nan)) for w in t.split()], axis=0) for t in texts])


def test_run_tests_report_metrics_tables_and_record(tmp_path):
    adjs, nouns = adjective_lists.load_lexicon(max_per_type=2, max_nouns=3)
    phrases = mg.build_phrases(adjs, nouns)
    vocab = [w for w in [*adjs["word"], *nouns] if w != "red"]  # one adjective without a vector
    report = mg.run_tests(_WordMeanModel(vocab), phrases, n_boot=50, permutations=50)
    assert report.missing_words == ["red"]
    red = (phrases.an["adj"] == "red").sum() + ((phrases.aan["adj1"] == "red") | (phrases.aan["adj2"] == "red")).sum()
    assert report.excluded_phrases == red
    metrics = report.metrics()
    assert not any(k.startswith("models/") for k in metrics)
    an = report.consistency("intersective_an")
    assert metrics["intersective_an/S-I"] == an.loc["S-I", "E"] and metrics["intersective_an_cases/S-I"] == 3
    assert (
        metrics["intersective_aan_cases/S-I,S-NI"] == report.consistency("intersective_aan").loc[("S-I", "S-NI"), "n"]
    )
    assert metrics["nonsubsective_ci_low/overall"] <= metrics["nonsubsective/overall"]
    assert metrics["missing_words"] == 1 and set(report.headline) <= set(metrics)
    assert "paper_match/table6" not in metrics  # not a published model
    assert set(report.type_tests["test"]) == set(mg.TESTS)
    assert report.matrix("intersective_pairs").shape == (5, 5)
    per_phrase = report.cases["nonsubsective"]
    assert len(per_phrase) == len(phrases.an) - 3 and (per_phrase["near"] > per_phrase["far"]).sum() == (
        report.results["nonsubsective"].violations
    )
    run = results.Run("04_test", profile="smoke", out_dir=str(tmp_path))
    path_name = "/some/folder/my model"
    recorded = run.record_report(report, model=path_name, primary=False)
    slug = results.model_slug(path_name)
    assert f"models/{slug}/intersective_an/S-I" in recorded and "intersective_an/S-I" not in recorded
    assert (run.tables_dir / f"consistency_nonsubsective__{slug}.csv").exists()


def test_a_published_model_is_compared_with_the_paper():
    adjs, nouns = adjective_lists.load_lexicon(max_per_type=1, max_nouns=2)
    report = mg.run_tests(
        _WordMeanModel([*adjs["word"], *nouns], name="minilm"), mg.build_phrases(adjs, nouns), n_boot=0, permutations=0
    )
    fidelity = report.fidelity()
    assert fidelity["table"].tolist() == [1, 6, 8, 7] and fidelity["cells"].tolist() == [5, 25, 5, 15]
    assert "paper_match/table6" in report.headline and report.type_tests.empty
    table = mg.across_models({"minilm": report}, "nonsubsective")
    assert table.loc["minilm (paper, printed)"].tolist() == list(papers.CARVALHO_TABLE8["minilm"])


@pytest.mark.parametrize("gap,significant", [(0.0, False), (0.6, True)])
def test_type_difference_test_finds_a_real_difference_only(gap, significant):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(20)]
    types = pd.Series(["S-I"] * 10 + ["NS-Pr"] * 10, index=words)
    p = np.where(types.to_numpy() == "S-I", 0.2 + gap, 0.2)
    counts = pd.DataFrame({"adj": words, "k": rng.binomial(12, p), "n": 12})
    result = mg.type_difference_test(counts, unit=["adj"], types=types, permutations=400, seed=1)
    assert (result["p_permutation"] < 0.01) == significant
    assert "permutation" in result["method"] and result["dof"] == 1
