"""Issue 36, data side: arguments out of range, names that would become paths, paths that are not paths, trees.

Families: *parameters out of range accepted* (``max_per_type=-1``, ``max_nouns=-2``, Yelp label 7 or
direction ``sideways``, SICK relatedness ``nan``/``inf``, a wide CSV with duplicate columns, and the others
of the same family: ``subsample``, CogALex test fractions, splits); *a language name with ``../`` reads a
file outside the data folder* (every name that becomes a path is one safe component); *unclear errors*
from the tree parser (``None``, bytes, an empty text, a very deep tree). Each error names the function,
the argument or the file, and what was expected. Words in the data are invented.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from mtlib.data import DataFormatError, adjectives, cogalex, sick, yelp
from mtlib.data.errors import DataArgumentError, check_choice, check_count, path_component
from mtlib.data.sample import subsample
from mtlib.data.sst import load_sst_sentences, load_sst_trees
from mtlib.data.trees import parse_tree, tree_impurity, weighted_node_switching


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- parameters out of range


@pytest.mark.parametrize(
    ("argument", "value"),
    [("max_per_type", -1), ("max_nouns", -2), ("max_per_type", 1.5), ("max_nouns", True), ("max_per_type", math.nan)],
)
def test_load_lexicon_refuses_counts_out_of_range(argument, value):
    with pytest.raises(DataArgumentError, match=rf"load_lexicon: {argument} must be an integer >= 0") as err:
        adjectives.load_lexicon(bundled=True, **{argument: value})
    assert err.value.argument == argument


def test_load_lexicon_still_takes_zero_and_positive_counts_and_refuses_a_bare_path():
    adjs, nouns = adjectives.load_lexicon(bundled=True, max_per_type=1, max_nouns=2)
    assert adjs.groupby("type").size().max() == 1 and len(nouns) == 2
    assert len(adjectives.load_lexicon(bundled=True, max_nouns=0)[1]) > 2
    with pytest.raises(DataArgumentError, match="paths must be a list of word-list paths"):
        adjectives.load_lexicon(adjectives.BUNDLED_WORDS)


def test_yelp_label_and_direction_must_be_known(tmp_path):
    sentences = _write(tmp_path / "sentiment.dev.0", "the soup was cold\n")
    pairs = _write(tmp_path / "reference.0", "it was bad\tit was good\n")
    for label in (7, -1, True, 1.0, "1"):
        with pytest.raises(DataArgumentError, match=r"read_sentences: label must be one of \[0, 1\]"):
            yelp.read_sentences(sentences, label)
    assert yelp.read_sentences(sentences, 1)["label"].tolist() == [1]
    with pytest.raises(DataArgumentError, match="read_tab_pairs: direction must be one of"):
        yelp.read_tab_pairs(pairs, "sideways")
    with pytest.raises(DataArgumentError, match="read_aligned_pairs: direction must be one of"):
        yelp.read_aligned_pairs(sentences, sentences, "sideways")


SICK_HEADER = (
    "pair_ID\tsentence_A\tsentence_B\tentailment_label\trelatedness_score\tentailment_AB\tentailment_BA\t"
    "sentence_A_original\tsentence_B_original\tsentence_A_dataset\tsentence_B_dataset\tSemEval_set\n"
)


@pytest.mark.parametrize("score", ["nan", "inf", "-inf", "NaN", "7.5", "0.99"])
def test_sick_relatedness_must_be_a_number_from_1_to_5(tmp_path, score):
    good = "1\tA man sits\tA man is seated\tENTAILMENT\t4.5\tA_entails_B\tB_entails_A\tx\ty\tF\tF\tTRAIN\n"
    path = _write(tmp_path / "SICK.txt", SICK_HEADER + good + good.replace("4.5", score).replace("1\t", "2\t", 1))
    with pytest.raises(DataFormatError, match=r"SICK.txt:3: expected a relatedness_score from 1 to 5") as err:
        sick.load_sick(path)
    assert err.value.line == 3 and err.value.found == score


def test_sick_relatedness_ends_of_the_range_load(tmp_path):
    rows = "".join(
        f"{i}\tA man sits\tA man is seated\tNEUTRAL\t{s}\tA_neutral_B\tB_neutral_A\tx\ty\tF\tF\tTEST\n"
        for i, s in enumerate(("1", "5.0", "3.2"), start=1)
    )
    assert sick.load_sick(_write(tmp_path / "SICK.txt", SICK_HEADER + rows))["relatedness_score"].tolist() == [
        1.0,
        5.0,
        3.2,
    ]


@pytest.mark.parametrize(
    "header",
    [
        "Nouns,SYN Nouns,Nouns,SYN Nouns",  # a class column twice: its words would be merged silently
        "Ambiguous,SYN Ambiguous,SYN Ambiguous",  # a synonym column twice
        "Nouns,SYN Nouns,nouns,SYN nouns",  # the same name in another case
    ],
)
def test_wide_csv_refuses_a_column_named_twice(tmp_path, header):
    path = _write(tmp_path / "adjectives.csv", header + "\nhouse,,garden,\n")
    with pytest.raises(DataFormatError, match=r"adjectives.csv:1: expected each column named once") as err:
        adjectives.load_wide_csv(path)
    assert err.value.line == 1


@pytest.mark.parametrize(("kwargs", "argument"), [({"n": -1}, "n"), ({"n": 2.5}, "n"), ({"n": 2, "by": "nope"}, "by")])
def test_subsample_refuses_bad_sizes_and_unknown_columns(kwargs, argument):
    frame = pd.DataFrame({"text": list("abcdef"), "label": [0, 1] * 3})
    with pytest.raises(DataArgumentError, match=rf"subsample: {argument} must be") as err:
        subsample(frame, **kwargs)
    assert err.value.argument == argument
    assert len(subsample(frame, 0)) == 6 and len(subsample(frame, 2, by="label")) == 2


@pytest.mark.parametrize("fraction", [-0.1, 1.5, math.nan, math.inf, True, "0.25"])
def test_cogalex_test_fraction_must_be_a_share(fraction):
    with pytest.raises(DataArgumentError, match="stable_split: test_fraction must be a number in"):
        cogalex.stable_split("hot", "cold", fraction)
    pairs = pd.DataFrame({"word1": ["hot"], "word2": ["cold"], "relation": ["ANT"], "line": [1]})
    with pytest.raises(DataArgumentError, match="split_single_file: test_fraction"):
        cogalex.split_single_file(pairs, Path("gold_task2.txt"), fraction)


def test_the_checks_compare_kinds_not_only_values():
    assert check_choice(1, (0, 1), "f", "label") == 1
    with pytest.raises(DataArgumentError, match="got bool True"):
        check_choice(True, (0, 1), "f", "label")
    assert check_count(0, "f", "n") == 0
    with pytest.raises(DataArgumentError, match=r"f: n must be an integer >= 1, got int 0"):
        check_count(0, "f", "n", minimum=1)


# ------------------------------------------------------------------------------- names that become paths


def _lexical(tmp_path: Path) -> Path:
    folder = tmp_path / "data" / "lexical_relations"
    _write(folder / "english.tsv", "poodle\tdog\tHYP\nhot\tcold\tANT\ncar\tvan\tSYN\nlamp\tlight\tSYN\n")
    _write(tmp_path / "secret.tsv", "private\tsecret\tSYN\nhidden\tword\tANT\n" * 8)  # outside the data folder
    return folder


@pytest.mark.parametrize("language", ["../../secret", "../secret", "..", ".", "", "a/b", "a\\b", "en\x00", None, 3])
def test_a_language_is_one_file_name_part_never_a_path_out_of_the_data_folder(tmp_path, monkeypatch, language):
    folder = _lexical(tmp_path)
    monkeypatch.setenv("MTLIB_DATA", str(tmp_path / "data"))
    with pytest.raises(DataArgumentError, match="load_lexical_relations: language must be a name without") as err:
        cogalex.load_lexical_relations(language)  # the bundled layout: <data>/lexical_relations/<language>.tsv
    assert err.value.argument == "language"
    with pytest.raises(DataArgumentError, match="language must be a name"):
        cogalex.load_lexical_relations(language, source=str(folder))
    with pytest.raises(DataArgumentError, match="load_cogalex_vi: language"):
        cogalex.load_cogalex_vi(folder, language)
    assert set(cogalex.load_lexical_relations("english")["word1"]) == {"poodle", "hot", "car", "lamp"}


@pytest.mark.parametrize("splits", [["../train"], ["dev/../dev"], "dev", []])
def test_split_names_are_file_name_parts_too(tmp_path, splits):
    folder = tmp_path / "yelp"
    for split in ("train", "dev", "test"):
        for label in (0, 1):
            _write(folder / f"sentiment.{split}.{label}", "the soup was cold\n")
    with pytest.raises(DataArgumentError, match="load_sentences: splits"):
        yelp.load_sentences(folder, splits=splits)
    with pytest.raises(DataArgumentError, match="load_cogalex_vi: splits"):
        cogalex.load_cogalex_vi(folder, "english", splits=splits)
    assert len(yelp.load_sentences(folder, splits=["dev"])) == 2


def test_path_component_accepts_ordinary_names():
    for name in ("english", "train", "stsa.binary", "my data", "ünïcode"):
        assert path_component(name, "f", "name") == name


@pytest.mark.parametrize("path", [None, b"dev.txt", "", "   ", 42])
@pytest.mark.parametrize(
    "loader",
    [
        lambda p: load_sst_sentences(p),
        lambda p: load_sst_trees(p),
        lambda p: cogalex.read_pairs(p),
        lambda p: cogalex.load_cogalex_v(p),
        lambda p: sick.load_sick(p),
        lambda p: adjectives.load_words(p),
        lambda p: yelp.read_sentences(p, 0),
    ],
    ids=["sst_sentences", "sst_trees", "cogalex_pairs", "cogalex_v", "sick", "words", "yelp"],
)
def test_a_path_that_is_not_a_path_is_refused_by_name(loader, path):
    with pytest.raises(DataArgumentError, match=r": path must be the path of a file"):
        loader(path)


def test_a_folder_given_as_a_data_file_names_it(tmp_path):
    folder = tmp_path / "dev.txt"
    folder.mkdir()
    with pytest.raises(DataFormatError, match=r"dev.txt: expected a data file, got 'a folder'"):
        load_sst_trees(folder)


# ------------------------------------------------------------------------------------------------- trees


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        (None, TypeError, "text must be one bracketed tree as a str"),
        (b"(3 (2 a) (3 film))", TypeError, "decode bytes first"),
        (["(3 a)"], TypeError, "got list"),
        ("", ValueError, "got an empty text"),
        ("  \t ", ValueError, "got an empty text"),
    ],
)
def test_parse_tree_names_what_it_expected(text, error, words):
    with pytest.raises(error, match="parse_tree: ") as err:
        parse_tree(text)
    assert words in str(err.value)


@pytest.mark.parametrize(("bound", "value", "error"), [("max_depth", 0, ValueError), ("max_tokens", 2.5, TypeError)])
def test_parse_tree_bounds_are_positive_integers(bound, value, error):
    with pytest.raises(error, match=f"parse_tree: {bound} must be a positive integer"):
        parse_tree("(3 (2 a) (3 film))", **{bound: value})


def test_scores_of_a_very_deep_tree_need_no_recursion():
    deep = parse_tree("(1 " * 4000 + "(3 good) (1 bad)" + ")" * 4000, max_depth=5000)
    assert deep.height == 4001
    # one node with two labelled children: |1 - 2| * height 2; every unary node above: |1 - 1| = 0
    assert weighted_node_switching(deep, average="sum") == pytest.approx(2.0)
    assert weighted_node_switching(deep, weight="uniform", average="sum") == pytest.approx(1.0)
    assert tree_impurity(deep) >= 0


def _wns_recursive(tree, weight: str, average: str) -> float:
    """The definition of Weighted Node Switching written recursively (the reference for the iterative one)."""
    nodes: list[tuple[float, int, int]] = []

    def visit(t, depth: int) -> int:
        if t.is_leaf:
            return 1
        height = 1 + max(visit(c, depth + 1) for c in t.children)
        labels = [float(c.label) for c in t.children]
        nodes.append((abs(float(t.label) - sum(labels) / len(labels)), height, depth))
        return height

    top = visit(tree, 0)
    if not nodes:
        return math.nan
    w = {"height": [h for _, h, _ in nodes], "depth": [top - d for _, _, d in nodes], "uniform": [1] * len(nodes)}
    total = sum(wi * s for wi, (s, _, _) in zip(w[weight], nodes))
    return total if average == "sum" else total / (sum(w[weight]) if average == "weighted" else len(nodes))


def test_iterative_wns_equals_the_recursive_definition_on_the_bundled_trees():
    trees = list(load_sst_trees("trees/dev.txt", binary=False)["tree"])[:150]
    assert weighted_node_switching(parse_tree("(3 (3 Cool) (2 ?))")) == 1.0  # the paper's example
    for weight in ("height", "depth", "uniform"):
        for average in ("mean", "weighted", "sum"):
            for tree in trees:
                want = _wns_recursive(tree, weight, average)
                got = weighted_node_switching(tree, weight=weight, average=average)
                assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, abs=1e-12)
