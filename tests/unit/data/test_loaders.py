"""Loader tests: small invented fixtures in the real formats, bad input, and the bundled files.

Every fixture is written to ``tmp_path`` by the test itself; the sentences and
words are made up for these tests (no lines from third-party datasets). The
formats follow ``DESIGN.md`` ("Real formats the loaders must read"):

- SST sentence files (``stsa.binary.*``, ``stsa.fine.*``) and PTB trees;
- NLI-XY ``contexts.tsv`` / ``insertions.tsv`` (trailing tabs, CRLF lines);
- CogALex-VI folders, the CogALex-V ``gold_task2.txt`` file, bundled pairs;
- the Montague word lists (``word<TAB>class``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mtlib.data import DataFormatError
from mtlib.data.adjectives import ADJECTIVE_TYPES, BUNDLED_WORDS, load_lexicon, load_words
from mtlib.data.cogalex import (
    COGALEX_V_MAPPING,
    RELATIONS_VI,
    load_cogalex_v,
    load_cogalex_vi,
    load_lexical_relations,
    stable_split,
)
from mtlib.data.monotonicity import compose, fill, load_contexts, load_insertions
from mtlib.data.sst import fine_to_binary, load_reviews, load_sst_sentences, load_sst_trees
from mtlib.data.trees import Tree, parse_tree


def write(path: Path, text: str, *, newline: str = "\n") -> Path:
    """Write ``text`` byte for byte (``newline`` replaces every ``\\n``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def assert_names(err: pytest.ExceptionInfo[DataFormatError], path: Path, line: int) -> str:
    """The error points at ``path`` and ``line`` (attributes and message); returns the message."""
    message = str(err.value)
    assert err.value.path == path
    assert err.value.line == line
    assert path.name in message
    if line:
        assert f"{path.name}:{line}:" in message
    return message


# --------------------------------------------------------------------------- SST sentence files

BINARY_TRAIN = (
    "1 it 's a bright , often touching little film .\n"
    "0 the plot wanders and the jokes fall flat .\n"
    "\n"
    "1 a warm surprise from start to finish .\n"
)

FINE_DEV = (
    "4 a dazzling , big-hearted piece of work .\n"
    "2 the film exists .\n"
    "0 a dreary slog with nothing to say .\n"
    "3 pleasant enough , if slight .\n"
    "1 mostly tedious .\n"
)


def test_sst_binary_file_gives_text_label_and_line_per_sentence(tmp_path: Path) -> None:
    path = write(tmp_path / "stsa.binary.train", BINARY_TRAIN)
    df = load_sst_sentences(path)
    assert list(df.columns) == ["text", "label", "line"]
    assert df["text"].tolist() == [
        "it 's a bright , often touching little film .",
        "the plot wanders and the jokes fall flat .",
        "a warm surprise from start to finish .",
    ]
    assert df["label"].tolist() == [1, 0, 1]
    assert df["label"].dtype.kind == "i"
    assert df["line"].tolist() == [1, 2, 4], "blank lines are skipped but still counted"


def test_sst_fine_file_is_recognised_by_its_name_and_keeps_labels_0_to_4(tmp_path: Path) -> None:
    path = write(tmp_path / "stsa.fine.dev", FINE_DEV)
    df = load_sst_sentences(path)
    assert df["label"].tolist() == [4, 2, 0, 3, 1]
    assert df["text"].iloc[1] == "the film exists ."


def test_sst_fine_labels_are_rejected_in_a_binary_file(tmp_path: Path) -> None:
    path = write(tmp_path / "stsa.binary.dev", FINE_DEV)
    with pytest.raises(DataFormatError) as err:
        load_sst_sentences(path)
    assert_names(err, path, 1)


def test_sst_explicit_fine_flag_overrides_the_file_name(tmp_path: Path) -> None:
    path = write(tmp_path / "my_sentences.txt", FINE_DEV)
    assert load_sst_sentences(path, fine=True)["label"].tolist() == [4, 2, 0, 3, 1]
    with pytest.raises(DataFormatError):
        load_sst_sentences(path, fine=False)


def test_sst_crlf_line_ends_are_tolerated(tmp_path: Path) -> None:
    path = write(tmp_path / "stsa.binary.test", BINARY_TRAIN, newline="\r\n")
    df = load_sst_sentences(path)
    assert df["text"].iloc[0] == "it 's a bright , often touching little film ."
    assert not df["text"].str.contains("\r").any()


@pytest.mark.parametrize(
    ("bad_line", "why"),
    [
        ("the label is missing here .", "missing label"),
        ("7 a label far outside 0 and 1 .", "label 7 in a binary file"),
        ("1", "label without a sentence"),
        ("1 ", "label and a space but no sentence"),
        ("-1 a negative label .", "negative label"),
    ],
)
def test_sst_malformed_line_names_file_and_line_counting_blank_lines(tmp_path: Path, bad_line: str, why: str) -> None:
    # Lines: 1 good, 2 blank, 3 good, 4 blank, 5 blank, 6 bad.
    text = "1 a fine little film .\n\n0 a dull one .\n\n   \n" + bad_line + "\n1 never reached .\n"
    path = write(tmp_path / "stsa.binary.train", text)
    with pytest.raises(DataFormatError) as err:
        load_sst_sentences(path)
    message = assert_names(err, path, 6)
    assert "[0, 1]" in message, why


def test_sst_label_5_is_rejected_in_a_fine_file(tmp_path: Path) -> None:
    path = write(tmp_path / "stsa.fine.train", "4 great .\n5 even greater .\n")
    with pytest.raises(DataFormatError) as err:
        load_sst_sentences(path)
    assert "[0, 1, 2, 3, 4]" in assert_names(err, path, 2)


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_sst_empty_file_is_an_error(tmp_path: Path, content: str) -> None:
    path = write(tmp_path / "stsa.binary.dev", content)
    with pytest.raises(DataFormatError) as err:
        load_sst_sentences(path)
    assert_names(err, path, 0)


def test_bundled_reviews_load_1200_rows_with_labels_0_and_1() -> None:
    df = load_reviews()
    assert len(df) == 1200
    assert set(df["label"]) == {0, 1}
    assert df["text"].str.len().gt(0).all()


def test_load_reviews_reads_any_file_in_the_sentence_format(tmp_path: Path) -> None:
    path = write(tmp_path / "mine.txt", BINARY_TRAIN)
    assert load_reviews(path)["label"].tolist() == [1, 0, 1]


# --------------------------------------------------------------------------- SST PTB trees

TREES = [
    "(3 (2 it) (4 (3 (2 's) (4 charming)) (2 .)))",  # positive (3)
    "(2 (2 the) (2 (2 film) (2 exists)))",  # neutral (2)
    "(0 (1 (2 a) (0 dreary)) (1 (2 slog) (2 .)))",  # very negative (0)
    "(4 (4 (4 superb) (2 acting)) (2 !))",  # very positive (4)
    "(1 (2 not) (1 (3 good) (2 enough)))",  # negative (1)
]


def test_sst_trees_binary_mode_drops_neutral_roots_and_maps_labels(tmp_path: Path) -> None:
    path = write(tmp_path / "train.txt", "\n".join(TREES) + "\n")
    df = load_sst_trees(path)
    assert list(df.columns) == ["text", "label", "fine_label", "tree", "line"]
    assert df["fine_label"].tolist() == [3, 0, 4, 1]
    assert df["label"].tolist() == [1, 0, 1, 0]
    assert df["line"].tolist() == [1, 3, 4, 5]
    assert "the film exists" not in df["text"].tolist()


def test_sst_trees_fine_mode_keeps_neutral_roots_and_0_to_4_labels(tmp_path: Path) -> None:
    path = write(tmp_path / "dev.txt", "\n".join(TREES) + "\n")
    df = load_sst_trees(path, binary=False)
    assert df["label"].tolist() == [3, 2, 0, 4, 1]
    assert df["fine_label"].tolist() == df["label"].tolist()
    assert df["text"].iloc[1] == "the film exists"


def test_sst_tree_text_is_the_joined_leaves(tmp_path: Path) -> None:
    path = write(tmp_path / "test.txt", "\n".join(TREES) + "\n")
    df = load_sst_trees(path, binary=False)
    assert df["text"].iloc[0] == "it 's charming ."
    for text, tree in zip(df["text"], df["tree"]):
        assert isinstance(tree, Tree)
        assert text == " ".join(tree.leaves())
        assert str(tree) in TREES


@pytest.mark.parametrize(("fine", "binary"), [(0, 0), (1, 0), (2, None), (3, 1), (4, 1)])
def test_fine_to_binary_follows_the_sst_convention(fine: int, binary: int | None) -> None:
    assert fine_to_binary(fine) == binary


def test_sst_unbalanced_tree_names_file_and_line(tmp_path: Path) -> None:
    text = TREES[0] + "\n\n" + "(3 (2 it) (4 (3 (2 's) (4 charming)) (2 .))\n" + TREES[3] + "\n"
    path = write(tmp_path / "train.txt", text)
    with pytest.raises(DataFormatError) as err:
        load_sst_trees(path)
    assert "PTB tree" in assert_names(err, path, 3)


def test_sst_root_label_outside_0_to_4_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "dev.txt", TREES[0] + "\n(9 (2 odd) (2 root))\n")
    with pytest.raises(DataFormatError) as err:
        load_sst_trees(path, binary=False)
    assert "0-4" in assert_names(err, path, 2)


def test_sst_tree_crlf_lines_parse(tmp_path: Path) -> None:
    path = write(tmp_path / "train.txt", "\n".join(TREES) + "\n", newline="\r\n")
    assert len(load_sst_trees(path, binary=False)) == len(TREES)


# --------------------------------------------------------------------------- mtlib.data.trees.parse_tree


def test_parse_tree_gives_label_leaves_and_sentence() -> None:
    t = parse_tree(TREES[0])
    assert t.label == "3"
    assert t.leaves() == ["it", "'s", "charming", "."]
    assert t.sentence == "it 's charming ."
    assert not t.is_leaf
    assert t.children[0] == Tree("2", (), "it")
    assert t.children[0].is_leaf


def test_parse_tree_height_counts_edges_to_the_deepest_word() -> None:
    assert parse_tree("(2 word)").height == 1
    assert parse_tree("(3 (2 a) (4 b))").height == 2
    assert parse_tree(TREES[0]).height == 4


def test_parse_tree_subtrees_are_every_node_in_preorder() -> None:
    t = parse_tree(TREES[0])
    nodes = list(t.subtrees())
    assert len(nodes) == 7
    assert nodes[0] is t
    assert [n.label for n in nodes] == ["3", "2", "4", "3", "2", "4", "2"]
    assert sum(n.is_leaf for n in nodes) == len(t.leaves())


@pytest.mark.parametrize("text", TREES)
def test_parse_tree_str_round_trips(text: str) -> None:
    t = parse_tree(text)
    assert str(t) == text
    assert parse_tree(str(t)) == t


def test_parse_tree_tolerates_extra_whitespace() -> None:
    assert str(parse_tree("  (3  (2 it)\t(4 fine) ) ")) == "(3 (2 it) (4 fine))"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("(3 (2 it) (4 fine)) (2 more)", "after the tree"),
        ("(3 (2 it) (4 fine)) trailing", "after the tree"),
        ("((2 it) (4 fine))", "without a label"),
        ("(3 (2 it) ( ))", "without a label"),
        ("(3 (2 it) (4 fine)", "unbalanced"),
        ("(2 it", "')'"),
        ("(2 it dog)", "')'"),
        ("(3)", "neither children nor a word"),
        ("it (2 dog)", "'('"),
        ("", "empty"),
        ("   ", "empty"),
    ],
)
def test_parse_tree_rejects_malformed_input(text: str, fragment: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_tree(text)
    assert fragment in str(err.value)


# --------------------------------------------------------------------------- NLI-XY monotonicity

CONTEXT_HEADER = "source\tcontext\tmonotonicity\toperator\tdistractor operator\tsingular\tmass\tplural"
INSERTION_HEADER = "source\tx_grammar\tx\ty\ty_grammar\tinsertion_rel"


def contexts_file(tmp_path: Path) -> Path:
    """Four invented contexts; trailing tabs everywhere, CRLF on two lines."""
    lines = [
        CONTEXT_HEADER + "\t\n",
        "test\tThere was no x near the x-ray room.\tdown\tno\t\t1\t1\t0\t\t\r\n",  # singular/mass only
        "test\tSome x slept beside the xylophone.\tUP\tsome\t\t1\t0\t1\n",  # singular/plural
        "\n",
        "test\tSeveral x waited outside.\tup\tseveral\t\t0\t0\t1\t\r\n",  # plural only
        "test\tEvery x hummed a tune.\tdown\tevery\t\t1\t0\t0\n",  # singular only
    ]
    path = tmp_path / "contexts.tsv"
    path.write_bytes("".join(lines).encode("utf-8"))
    return path


def insertions_file(tmp_path: Path) -> Path:
    """Four invented insertion pairs with trailing tabs."""
    lines = [
        INSERTION_HEADER + "\t\t\n",
        "test\tsingular\tbeagle\thound\tsingular\tleq\t\n",
        "test\tsingular\tcreature\tbadger\tsingular\tGEQ\t\t\n",
        "test\tplural\ttulips\tflowers\tplural\tleq\n",
        "test\tsingular\tlamp\tspoon\tsingular\tnone\t\r\n",
    ]
    path = tmp_path / "insertions.tsv"
    path.write_bytes("".join(lines).encode("utf-8"))
    return path


def test_contexts_are_parsed_despite_trailing_tabs_and_crlf(tmp_path: Path) -> None:
    df = load_contexts(contexts_file(tmp_path))
    assert df["context_id"].tolist() == [0, 1, 2, 3]
    assert df["context"].tolist() == [
        "There was no x near the x-ray room.",
        "Some x slept beside the xylophone.",
        "Several x waited outside.",
        "Every x hummed a tune.",
    ]
    assert df["monotonicity"].tolist() == ["down", "up", "up", "down"], "monotonicity is lower-cased"
    assert df["operator"].tolist() == ["no", "some", "several", "every"]
    assert df["singular"].tolist() == [True, True, False, True]
    assert df["mass"].tolist() == [True, False, False, False]
    assert df["plural"].tolist() == [False, True, True, False]
    assert df["line"].tolist() == [2, 3, 5, 6]
    assert not df["context"].str.contains("[\r\t]").any()


def test_insertions_are_parsed_despite_trailing_tabs(tmp_path: Path) -> None:
    df = load_insertions(insertions_file(tmp_path))
    assert df["insertion_id"].tolist() == [0, 1, 2, 3]
    assert df["x"].tolist() == ["beagle", "creature", "tulips", "lamp"]
    assert df["y"].tolist() == ["hound", "badger", "flowers", "spoon"]
    assert df["x_grammar"].tolist() == ["singular", "singular", "plural", "singular"]
    assert df["y_grammar"].tolist() == ["singular", "singular", "plural", "singular"]
    assert df["relation"].tolist() == ["leq", "geq", "leq", "none"], "relations are lower-cased"
    assert df["line"].tolist() == [2, 3, 4, 5]


@pytest.fixture
def composed(tmp_path: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    contexts = load_contexts(contexts_file(tmp_path))
    insertions = load_insertions(insertions_file(tmp_path))
    return contexts, insertions, compose(contexts, insertions)


def test_compose_only_pairs_contexts_with_insertions_whose_number_fits(composed) -> None:
    contexts, insertions, nli = composed
    fitting = {
        (c.context_id, i.insertion_id)
        for c in contexts.itertuples()
        for i in insertions.itertuples()
        if getattr(c, i.x_grammar) and getattr(c, i.y_grammar)
    }
    assert set(zip(nli["context_id"], nli["insertion_id"])) == fitting
    assert len(nli) == len(fitting) == 3 + 4 + 1 + 3
    plural_ids = set(insertions.loc[insertions["x_grammar"] == "plural", "insertion_id"])
    singular_only = contexts.loc[contexts["singular"] & ~contexts["mass"] & ~contexts["plural"], "context_id"]
    assert not nli[nli["context_id"].isin(singular_only) & nli["insertion_id"].isin(plural_ids)].shape[0]
    plural_only = contexts.loc[contexts["plural"] & ~contexts["singular"], "context_id"]
    assert set(nli.loc[nli["context_id"].isin(plural_only), "insertion_id"]) == plural_ids


def test_compose_substitutes_x_in_premise_and_y_in_hypothesis(composed) -> None:
    _, _, nli = composed
    row = nli[(nli["context_id"] == 3) & (nli["x"] == "beagle")].iloc[0]
    assert row["premise"] == "Every beagle hummed a tune."
    assert row["hypothesis"] == "Every hound hummed a tune."
    row = nli[(nli["context_id"] == 2) & (nli["x"] == "tulips")].iloc[0]
    assert row["premise"] == "Several tulips waited outside."
    assert row["hypothesis"] == "Several flowers waited outside."


def test_compose_leaves_words_that_merely_contain_x_untouched(composed) -> None:
    _, _, nli = composed
    row = nli[(nli["context_id"] == 0) & (nli["x"] == "beagle")].iloc[0]
    assert row["premise"] == "There was no beagle near the x-ray room."
    assert row["hypothesis"] == "There was no hound near the x-ray room."
    row = nli[(nli["context_id"] == 1) & (nli["x"] == "lamp")].iloc[0]
    assert row["premise"] == "Some lamp slept beside the xylophone."
    assert row["hypothesis"] == "Some spoon slept beside the xylophone."


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ("The x sat down.", "The owl sat down."),
        ("x sat down.", "owl sat down."),
        ("They saw an x.", "They saw an owl."),
        ("The x's nest was empty.", "The owl's nest was empty."),
        ("The x near the x-ray room.", "The owl near the x-ray room."),
        ("A xylophone for the x.", "A xylophone for the owl."),
        ("An ox, a box and an x.", "An ox, a box and an owl."),
        ("The X-Men met the x.", "The X-Men met the owl."),
    ],
)
def test_fill_replaces_only_the_standalone_token_x(context: str, expected: str) -> None:
    assert fill(context, "owl") == expected


def test_fill_inserts_text_literally() -> None:
    assert fill("A x here.", r"back\1slash") == r"A back\1slash here."


def test_compose_gold_label_is_entailed_only_for_up_leq_and_down_geq(composed) -> None:
    _, _, nli = composed
    assert {"up", "down"} <= set(nli["monotonicity"])
    assert {"leq", "geq", "none"} <= set(nli["relation"])
    for row in nli.itertuples():
        expected = (row.monotonicity, row.relation) in {("up", "leq"), ("down", "geq")}
        assert row.entailed == expected, (row.monotonicity, row.relation)
    assert nli["entailed"].dtype == bool
    assert (nli["hypernym"] == (nli["relation"] == "geq")).all()


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ("test\tThe cat sat by the door.\tup\tthe\t\t1\t1\t1", "exactly once"),
        ("test\tThe x chased another x.\tup\tthe\t\t1\t1\t1", "exactly once"),
        ("test\tThe x-ray was blurry.\tup\tthe\t\t1\t1\t1", "exactly once"),
        ("test\tThe x sat still.\tsideways\tthe\t\t1\t1\t1", "monotonicity"),
        ("test\tThe x sat still.", "columns"),
        ("test\tThe x sat still.\tup\tthe\t\tmaybe\t1\t1", "singular"),
    ],
)
def test_bad_context_row_names_file_and_line(tmp_path: Path, row: str, fragment: str) -> None:
    text = CONTEXT_HEADER + "\n" + "test\tNo x barked.\tdown\tno\t\t1\t1\t1\n" + "\n" + row + "\t\n"
    path = write(tmp_path / "contexts.tsv", text)
    with pytest.raises(DataFormatError) as err:
        load_contexts(path)
    assert fragment in assert_names(err, path, 4)


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ("test\tsingular\tbeagle\thound\tsingular", "columns"),
        ("test\tsingular\tbeagle", "columns"),
        ("test\tsingular\t\thound\tsingular\tleq", "columns"),
        ("test\tsingular\tbeagle\thound\tsingular\tequal", "insertion_rel"),
        ("test\tdual\tbeagle\thound\tsingular\tleq", "x_grammar"),
        ("test\tsingular\tbeagle\thound\tsg\tleq", "y_grammar"),
    ],
)
def test_bad_insertion_row_names_file_and_line(tmp_path: Path, row: str, fragment: str) -> None:
    text = INSERTION_HEADER + "\n" + "test\tsingular\tbeagle\thound\tsingular\tleq\n" + row + "\t\t\n"
    path = write(tmp_path / "insertions.tsv", text)
    with pytest.raises(DataFormatError) as err:
        load_insertions(path)
    assert fragment in assert_names(err, path, 3)


def test_contexts_header_without_required_columns_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "contexts.tsv", "source\tsentence\tmonotonicity\ntest\tNo x barked.\tdown\n")
    with pytest.raises(DataFormatError) as err:
        load_contexts(path)
    assert "context" in assert_names(err, path, 1)


@pytest.mark.parametrize("loader", [load_contexts, load_insertions])
def test_empty_or_header_only_nli_xy_file_is_an_error(tmp_path: Path, loader) -> None:
    empty = write(tmp_path / "empty.tsv", "")
    with pytest.raises(DataFormatError) as err:
        loader(empty)
    assert_names(err, empty, 0)
    header = CONTEXT_HEADER if loader is load_contexts else INSERTION_HEADER
    only_header = write(tmp_path / "header.tsv", header + "\n")
    with pytest.raises(DataFormatError) as err:
        loader(only_header)
    assert_names(err, only_header, 0)


def test_bundled_nli_xy_files_compose_to_both_monotonicities() -> None:
    contexts, insertions = load_contexts(), load_insertions()
    assert len(contexts) > 0 and len(insertions) > 0
    nli = compose(contexts, insertions)
    assert len(nli) > 0
    assert set(nli["monotonicity"]) == {"up", "down"}
    assert nli["entailed"].any() and not nli["entailed"].all()
    assert not nli["premise"].str.contains(r"(?<![\w-])x(?![\w-])").any()
    assert (nli["premise"] != nli["hypothesis"]).all()


# --------------------------------------------------------------------------- CogALex

VI_TRAIN_EN = "quill\tpen\tHYP\nhappy\tglad\tSYN\nheavy\tlight\tANT\t\nladder\tsoup\tRANDOM\n"
VI_GOLD_EN = "sparrow\tbird\tHYP\r\nswift\tfast\tSYN\r\n"
VI_TRAIN_DE = "Amsel\tVogel\tHYP\nwarm\tkalt\tANT\n"


@pytest.fixture
def vi_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "cogalex_vi"
    write(folder / "train_english_data.txt", VI_TRAIN_EN)
    write(folder / "gold_english_data.txt", VI_GOLD_EN)
    write(folder / "train_german_data.txt", VI_TRAIN_DE)
    return folder


def test_cogalex_vi_loads_every_split_of_a_language_with_a_split_column(vi_folder: Path) -> None:
    df = load_cogalex_vi(vi_folder, "english")
    assert list(df.columns) == ["word1", "word2", "relation", "line", "split"]
    assert df["split"].tolist() == ["train"] * 4 + ["gold"] * 2
    assert df["word1"].tolist() == ["quill", "happy", "heavy", "ladder", "sparrow", "swift"]
    assert df["word2"].tolist() == ["pen", "glad", "light", "soup", "bird", "fast"]
    assert df["relation"].tolist() == ["HYP", "SYN", "ANT", "RANDOM", "HYP", "SYN"]
    assert df["line"].tolist() == [1, 2, 3, 4, 1, 2]
    assert set(df["relation"]) <= set(RELATIONS_VI)


def test_cogalex_vi_loads_a_language_with_only_a_train_file(vi_folder: Path) -> None:
    df = load_cogalex_vi(vi_folder, "german")
    assert df["split"].tolist() == ["train", "train"]
    assert df["word1"].tolist() == ["Amsel", "warm"]


def test_load_lexical_relations_dispatches_a_vi_folder_to_load_cogalex_vi(vi_folder: Path) -> None:
    pd.testing.assert_frame_equal(load_lexical_relations("english", vi_folder), load_cogalex_vi(vi_folder, "english"))


@pytest.mark.parametrize(
    "load", [lambda f: load_cogalex_vi(f, "italian"), lambda f: load_lexical_relations("italian", f)]
)
def test_cogalex_vi_language_without_files_lists_the_languages_found(vi_folder: Path, load) -> None:
    with pytest.raises(FileNotFoundError) as err:
        load(vi_folder)
    assert "italian" in str(err.value)
    assert "english, german" in str(err.value)


@pytest.mark.parametrize(
    ("bad_line", "fragment"),
    [
        ("owl\tbird", "3 tab-separated columns"),
        ("owl\tbird\tHYPER", "relation label"),
        ("owl\tbird\tHYP\textra", "3 tab-separated columns"),
    ],
)
def test_cogalex_vi_bad_line_names_file_line_and_allowed_labels(vi_folder: Path, bad_line: str, fragment: str) -> None:
    path = write(vi_folder / "gold_english_data.txt", "sparrow\tbird\tHYP\n\n" + bad_line + "\n")
    with pytest.raises(DataFormatError) as err:
        load_cogalex_vi(vi_folder, "english")
    message = assert_names(err, path, 3)
    assert fragment in message
    for label in RELATIONS_VI:
        assert repr(label) in message


V_GOLD = "maple\ttree\tHYPER\nwheel\tcar\tPART_OF\nquiet\tsilent\tSYN\t\nrise\tfall\tANT\npencil\tcloud\tRANDOM\n"


def test_cogalex_v_maps_hyper_to_hyp_and_keeps_part_of(tmp_path: Path) -> None:
    path = write(tmp_path / "gold_task2.txt", V_GOLD)
    df = load_cogalex_v(path)
    assert df["relation"].tolist() == ["HYP", "PART_OF", "SYN", "ANT", "RANDOM"]
    assert "HYPER" not in set(df["relation"])
    assert set(df["split"]) == {"gold"}
    assert COGALEX_V_MAPPING["HYPER"] == "HYP"


def test_cogalex_v_rejects_a_cogalex_vi_label(tmp_path: Path) -> None:
    path = write(tmp_path / "gold_task2.txt", V_GOLD + "owl\tbird\tHYP\n")
    with pytest.raises(DataFormatError) as err:
        load_cogalex_v(path)
    assert "HYPER" in assert_names(err, path, 6)


def test_load_lexical_relations_reads_a_single_cogalex_v_file_and_splits_it_by_pair_hash(tmp_path: Path) -> None:
    path = write(tmp_path / "gold_task2.txt", V_GOLD)
    df, single = load_lexical_relations("english", path), load_cogalex_v(path)
    pd.testing.assert_frame_equal(df.drop(columns="split"), single.drop(columns="split"))
    assert df["split"].tolist() == [stable_split(a, b) for a, b in zip(df["word1"], df["word2"])]
    assert "split by a stable hash" in df.attrs["note"]


def test_load_lexical_relations_reads_a_folder_of_language_files_with_a_stable_split(tmp_path: Path) -> None:
    write(tmp_path / "english.tsv", "quill\tpen\tHYP\nhappy\tglad\tSYN\nmug\tinsect\tRANDOM\n")
    df = load_lexical_relations("english", tmp_path)
    assert df["word1"].tolist() == ["quill", "happy", "mug"]
    assert df["split"].tolist() == [stable_split("quill", "pen"), stable_split("happy", "glad"), "test"]
    write(tmp_path / "train_only" / "english.tsv", "quill\tpen\tHYP\nhappy\tglad\tSYN\n")
    with pytest.raises(DataFormatError, match="test pairs"):
        load_lexical_relations("english", tmp_path / "train_only")
    with pytest.raises(FileNotFoundError, match="english"):
        load_lexical_relations("german", tmp_path)


@pytest.mark.parametrize("language", ["english", "german"])
def test_bundled_lexical_relations_have_train_and_test_splits(language: str) -> None:
    df = load_lexical_relations(language)
    assert len(df) >= 500
    assert set(df["split"]) == {"train", "test"}
    assert set(df["relation"]) <= set(RELATIONS_VI)
    assert abs((df["split"] == "test").mean() - 0.25) < 0.06


def test_bundled_split_is_deterministic() -> None:
    first, second = load_lexical_relations("english"), load_lexical_relations("english")
    assert first["split"].tolist() == second["split"].tolist()
    pairs = list(zip(first["word1"], first["word2"]))[:50]
    assert [stable_split(a, b) for a, b in pairs] == [stable_split(a, b) for a, b in pairs]
    assert [stable_split(a, b) for a, b in pairs] == first["split"].tolist()[:50]


def test_stable_split_respects_the_test_fraction() -> None:
    assert stable_split("quill", "pen", test_fraction=0.0) == "train"
    assert stable_split("quill", "pen", test_fraction=1.0) == "test"


def test_unknown_bundled_language_lists_the_bundled_ones() -> None:
    with pytest.raises(FileNotFoundError) as err:
        load_lexical_relations("klingon")
    assert "english, german" in str(err.value)


def test_missing_source_path_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_lexical_relations("english", tmp_path / "nowhere")


# --------------------------------------------------------------------------- Montague word lists


def test_bundled_lexicon_has_the_61_adjectives_of_appendix_a_in_order() -> None:
    adjectives, _ = load_lexicon()
    assert list(adjectives.columns) == ["word", "type"]
    assert len(adjectives) == 61
    counts = adjectives["type"].value_counts().to_dict()
    assert counts == {"S-I": 11, "S-NI": 6, "NS-Pl": 27, "NS-Pr": 14, "A": 3}
    assert adjectives["word"].iloc[0] == "wild"
    assert "ex-" in set(adjectives["word"])
    assert adjectives.loc[adjectives["word"] == "ex-", "type"].item() == "NS-Pr"
    groups = [t for i, t in enumerate(adjectives["type"]) if i == 0 or adjectives["type"].iloc[i - 1] != t]
    assert groups == list(ADJECTIVE_TYPES), "types come in Appendix A order, one block each"
    assert adjectives["word"].is_unique


def test_bundled_lexicon_has_12_nouns_with_the_papers_spelling() -> None:
    _, nouns = load_lexicon()
    assert len(nouns) == 12
    assert "occurence" in nouns
    assert "occurrence" not in nouns


USER_WORDS = "# my own additions\n\nword\tclass\t\nglittering\tS-I\t\n"


def test_user_file_extends_the_bundled_lexicon(tmp_path: Path) -> None:
    user = write(tmp_path / "mine.tsv", USER_WORDS)
    adjectives, nouns = load_lexicon([BUNDLED_WORDS, user])
    assert len(adjectives) == 62
    assert adjectives.iloc[-1].tolist() == ["glittering", "S-I"]
    assert len(nouns) == 12


def test_user_file_alone_replaces_the_bundled_lexicon(tmp_path: Path) -> None:
    user = write(tmp_path / "mine.tsv", USER_WORDS + "teapot\tnoun\n")
    adjectives, nouns = load_lexicon([user])
    assert adjectives["word"].tolist() == ["glittering"]
    assert nouns == ["teapot"]


def test_load_words_keeps_file_order_and_line_numbers(tmp_path: Path) -> None:
    path = write(tmp_path / "w.tsv", "# c\nword\tclass\n\nglittering\tS-I\nteapot\tnoun\r\n")
    df = load_words(path)
    assert df.values.tolist() == [["glittering", "S-I", 4], ["teapot", "noun", 5]]


@pytest.mark.parametrize(
    ("body", "line", "fragment"),
    [
        ("glittering\tS-I\nteapot\tgadget\n", 5, "class"),
        ("glittering\tS-I\n\nglittering\tS-NI\n", 6, "line 4"),
        ("glittering\n", 4, "two tab-separated columns"),
        ("glittering\tS-I\tmore\n", 4, "two tab-separated columns"),
    ],
)
def test_bad_word_list_line_names_file_and_line(tmp_path: Path, body: str, line: int, fragment: str) -> None:
    path = write(tmp_path / "mine.tsv", "# comment\n\nword\tclass\n" + body)
    with pytest.raises(DataFormatError) as err:
        load_words(path)
    assert fragment in assert_names(err, path, line)


def test_word_list_without_header_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "mine.tsv", "# comment\nglittering\tS-I\n")
    with pytest.raises(DataFormatError) as err:
        load_lexicon([path])
    assert "word<TAB>class" in assert_names(err, path, 2)
    only_comments = write(tmp_path / "comments.tsv", "# nothing here\n\n")
    with pytest.raises(DataFormatError) as err:
        load_words(only_comments)
    assert_names(err, only_comments, 0)


def test_word_repeated_across_files_names_the_later_file_and_line(tmp_path: Path) -> None:
    user = write(tmp_path / "mine.tsv", "word\tclass\nglittering\tS-I\nwild\tS-NI\n")
    with pytest.raises(DataFormatError) as err:
        load_lexicon([BUNDLED_WORDS, user])
    message = assert_names(err, user, 3)
    assert "wild" in message
    assert "words.tsv" in message
