"""Notebook 04's package: the phrase language, the embedding table, the paper's values (the tests themselves are
the notebook's cells; their relation, :class:`mtlib.relations.DistanceOrder`, is tested in tests/unit/relations)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.data import adjectives as adjective_lists
from mtlib.data import papers
from mtlib.data.errors import DataFormatError
from mtlib.experiments import montague as mg
from mtlib.experiments.montague import _embeddings as embeddings


def _table(vectors: dict[str, list[float]]) -> mg.EmbeddingTable:
    return mg.EmbeddingTable(list(vectors), np.array(list(vectors.values()), dtype=float))


def test_splits_of_a_three_term_phrase_are_sub_phrase_and_complement():
    assert mg.splits(["wild", "red", "dog"]) == [("wild", "red dog"), ("wild red", "dog"), ("wild dog", "red")]
    assert mg.splits(["red", "dog"]) == [("red", "dog")]
    four = mg.splits(["a", "b", "c", "d"])
    assert len(four) == 7 and ("a c", "b d") in four and len(set(four)) == 7


def test_embedding_table_gives_cosine_distances_by_index_in_chunks(monkeypatch):
    table = _table({"a": [1, 0], "n": [0, 1], "a n": [1, 1], "b": [3, 0]})
    rows = table.rows(np.array([["a n", "a"], ["b", "n"]], dtype=object))
    assert rows.tolist() == [[2, 0], [3, 1]]
    monkeypatch.setattr(embeddings, "DISTANCE_CHUNK", 1)  # one row per chunk: the same distances
    d = table.distance(rows[:, 0], rows[:, 1])
    assert d == pytest.approx([1 - 1 / np.sqrt(2), 1.0]) and table.distance([0], [3]) == pytest.approx([0.0])
    with pytest.raises(KeyError, match="not embedded"):
        table.rows(["red car"])


def test_embedding_table_marks_texts_without_a_vector_and_cases_that_need_them():
    table = mg.EmbeddingTable(
        ["a", "n", "a n", "b", "b n"], np.array([[1, 0], [0, 1], [1, 1], [np.nan, np.nan], [1, 2]], dtype=float)
    )
    assert table.valid.tolist() == [True, True, True, False, True]
    phrase, adj = table.rows(["a n", "b n"]), table.rows(["a", "b"])
    assert table.all_valid(phrase, adj).tolist() == [True, False]
    assert table.all_valid(table.rows(np.array([["a", "n"], ["b n", "n"]], dtype=object))).tolist() == [True, True]


def test_type_order_typed_columns_and_the_type_pair_matrix():
    frame = pd.DataFrame({"type1": ["A", "S-I", "X"], "type2": ["S-I", "S-I", "A"]})
    assert mg.type_order(["A", "X", "S-I", "B"]) == ["S-I", "A", "B", "X"]
    typed = mg.types_in_paper_order(frame, ["type1", "type2"])
    assert list(typed["type1"].cat.categories) == ["S-I", "A", "X"] and typed["type2"].tolist() == ["S-I", "S-I", "A"]
    scores = pd.DataFrame(
        {"E": [0.5, 1.0, 0.25]}, index=pd.MultiIndex.from_tuples([("A", "S-I"), ("S-I", "S-I"), ("S-I", "A")])
    )
    matrix = mg.type_pair_matrix(scores)
    assert list(matrix.index) == ["S-I", "A"] and matrix.loc["S-I", "A"] == 0.25 and np.isnan(matrix.loc["A", "A"])
    assert mg.join_terms(np.array([["wild", "red", "dog"]], dtype=object), [0, 2]).tolist() == ["wild dog"]


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


def test_a_users_words_come_first_so_the_caps_keep_them(tmp_path):
    mine = tmp_path / "mine.tsv"
    mine.write_text("# my words\nword\tclass\nglorious\tS-I\nfaux\tNS-Pr\nteapot\tnoun\n", encoding="utf-8")
    adjs, nouns = adjective_lists.load_lexicon([mine], bundled=True, max_per_type=2, max_nouns=3)
    assert adjs.groupby("type", sort=False)["word"].first().loc[["S-I", "NS-Pr"]].tolist() == ["glorious", "faux"]
    assert nouns[0] == "teapot" and len(nouns) == 3
    bundled, _ = adjective_lists.load_lexicon(bundled=True, max_per_type=2)
    assert "glorious" not in set(bundled["word"])


def test_a_word_list_without_its_header_is_refused_naming_file_line_and_header(tmp_path):
    headless = tmp_path / "headless.tsv"
    headless.write_text("glorious\tS-I\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"headless.tsv:1: expected the header 'word<TAB>class'"):
        adjective_lists.load_lexicon([headless], bundled=True)
