"""The real datasets' formats, on fixtures written for mtlib (``tests/fixtures/real_formats/``).

Each real format of issue 12 and DESIGN.md ("Real formats the loaders must
read") has a fixture here and a bad variant: an SST tree with U+00A0 inside a
leaf; fine-grained SST sentence lines; NLI-XY rows with ``x`` marks, ``s``/
``m``/``p``, empty operators, trailing tabs and CRLF; the authors' wide
adjective CSV with ragged columns; a CogALex-V training/test pair of files.
The last tests run notebooks 02, 03 and 04 on them through the runner with
``--profile`` pointing at a profile file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mtrun as runner
from mtlib.analysis import claims
from mtlib.data import DataFormatError, adjectives, cogalex, monotonicity, sst
from mtlib.data.trees import parse_tree
from mtlib.experiments import lexical

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT / "tests" / "fixtures" / "real_formats"
PROFILE = FIX / "real_formats.yaml"


def write(path: Path, text: str, newline: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


# --------------------------------------------------------------------------- SST


def test_nbsp_inside_a_leaf_belongs_to_the_word_and_every_tree_prints_back_to_its_line() -> None:
    path = FIX / "trees_nbsp.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert "\u00a0" in lines[0]
    for line in lines:
        assert str(parse_tree(line)) == line
    df = sst.load_sst_trees(path, binary=False)
    assert df["tree"].iloc[0].leaves()[3] == "8\u00a01\\/2"
    assert len(df["tree"].iloc[0].leaves()) == 6


def test_ascii_whitespace_still_separates_tokens_and_nbsp_alone_is_not_a_separator() -> None:
    assert parse_tree("(2 (2 a)\t(2\nb))").leaves() == ["a", "b"]
    with pytest.raises(ValueError, match="expected '\\)' after word"):
        parse_tree("(2 (2 a b))")
    # a U+00A0 between label and word glues them into one label token: no word, a malformed node
    with pytest.raises(ValueError):
        parse_tree("(2 (2\u00a0a))")


def test_tree_file_with_nbsp_reports_dropped_neutral_roots() -> None:
    df = sst.load_sentiment(FIX / "trees_nbsp.txt")
    assert df["label"].tolist() == [1, 0, 1] and df["fine_label"].tolist() == [3, 1, 4]
    assert df.attrs["dropped_neutral"] == 1


def test_fine_grained_sentence_file_is_mapped_to_binary_and_counts_the_neutral_ones() -> None:
    df = sst.load_sentiment(FIX / "stsa.fine.dev")
    assert df["label"].tolist() == [1, 1, 0, 0]
    assert df["fine_label"].tolist() == [4, 3, 1, 0]
    assert df["line"].tolist() == [1, 2, 4, 5]
    assert df.attrs["dropped_neutral"] == 2


def test_fine_labels_in_a_file_not_named_fine_are_recognised(tmp_path: Path) -> None:
    path = write(tmp_path / "sst5_test.txt", "4 superb .\n2 it exists .\n0 awful .\n")
    df = sst.load_sentiment(path)
    assert df["label"].tolist() == [1, 0] and df.attrs["dropped_neutral"] == 1


def test_binary_file_keeps_its_labels_and_drops_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "stsa.binary.dev", "1 good .\n0 bad .\n")
    df = sst.load_sentiment(path)
    assert df["label"].tolist() == [1, 0] and df.attrs["dropped_neutral"] == 0


@pytest.mark.parametrize(
    ("name", "body", "line"),
    [
        ("stsa.fine.dev", "4 fine .\n5 too high .\n", 2),
        ("stsa.binary.dev", "1 good .\n3 a fine label in a binary file .\n", 2),
        ("stsa.fine.dev", "4 fine .\nnolabel here\n", 2),
    ],
)
def test_bad_sentence_lines_name_file_and_line(tmp_path: Path, name: str, body: str, line: int) -> None:
    path = write(tmp_path / name, body)
    with pytest.raises(DataFormatError) as err:
        sst.load_sentiment(path)
    assert err.value.line == line and f"{name}:{line}:" in str(err.value)


def test_a_fine_file_of_neutral_sentences_only_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match="non-neutral"):
        sst.load_sentiment(write(tmp_path / "stsa.fine.dev", "2 it exists .\n2 so does this .\n"))


# --------------------------------------------------------------------------- NLI-XY


def test_real_spelling_contexts_x_marks_empty_flags_and_empty_operators() -> None:
    df = monotonicity.load_contexts(FIX / "nli-xy" / "all_contexts.tsv")
    assert len(df) == 10 and df["monotonicity"].value_counts().to_dict() == {"down": 5, "up": 5}
    assert df.loc[0, ["singular", "mass", "plural"]].tolist() == [True, False, False]
    assert df.loc[2, ["singular", "mass", "plural"]].tolist() == [True, True, True]
    assert df.loc[4, ["singular", "mass", "plural"]].tolist() == [False, False, True]
    assert df.loc[5, "operator"] == "" and df.loc[6, "operator"] == "some"
    assert not df["context"].str.contains("[\r\t]").any()


def test_real_spelling_insertions_grammar_letters_and_reverses_with_duplicates_dropped() -> None:
    df = monotonicity.load_insertions(FIX / "nli-xy" / "all_insertions.tsv")
    assert set(df["relation"]) == {"leq", "none"}
    assert set(df["x_grammar"]) == {"singular", "plural"}
    both = monotonicity.with_reverses(df)
    # 11 rows, one repeated: 10 distinct pairs, each reversed -> 20
    assert len(df) == 11 and len(both) == 20 and both.attrs == {"n_file": 11, "n_added": 10}
    assert both["relation"].value_counts().to_dict() == {"leq": 7, "geq": 7, "none": 6}
    rev = both[(both["x"] == "dog") & (both["y"] == "terrier")]
    assert rev["relation"].tolist() == ["geq"] and rev["reversed"].tolist() == [True]
    assert both["insertion_id"].tolist() == list(range(20))
    items = monotonicity.compose(monotonicity.load_contexts(FIX / "nli-xy" / "all_contexts.tsv"), both)
    assert items["hypernym"].any() and not items["hypernym"].all(), "the probe gets two classes"


def test_reverses_of_a_file_that_already_lists_them_add_nothing_new(tmp_path: Path) -> None:
    text = (
        "source\tx_grammar\tx\ty\ty_grammar\tinsertion_rel\n"
        "t\ts\tbeagle\thound\ts\tleq\nt\ts\thound\tbeagle\ts\tgeq\nt\tm\trice\tsand\tm\tnone\n"
        "t\tm\tsand\trice\tm\tnone\n"
    )
    df = monotonicity.load_insertions(write(tmp_path / "insertions.tsv", text, "\r\n"))
    assert df["x_grammar"].tolist() == ["singular", "singular", "mass", "mass"]
    assert len(monotonicity.with_reverses(df)) == 4


def test_old_spelling_is_still_read(tmp_path: Path) -> None:
    ctx = write(
        tmp_path / "contexts.tsv",
        "source\tcontext\tmonotonicity\toperator\tdistractor operator\tsingular"
        "\tmass\tplural\nt\tNo x barked.\tdown\tno\t\t1\t0\t1\n",
    )
    assert monotonicity.load_contexts(ctx).loc[0, ["singular", "mass", "plural"]].tolist() == [True, False, True]


@pytest.mark.parametrize(
    ("which", "row", "fragment"),
    [
        ("contexts", "t\tNo x barked.\tdown\tno\t\tX?\t\t", "'x' (yes) or empty"),
        ("contexts", "t\tNo x barked.\tdown\tno\t\tyes please\t\t", "singular"),
        ("insertions", "t\tq\tbeagle\thound\ts\tleq\t\t", "x_grammar"),
        ("insertions", "t\ts\tbeagle\thound\tsg\tleq", "y_grammar"),
        ("insertions", "t\ts\tbeagle\thound\ts\tlt\t", "insertion_rel"),
    ],
)
def test_bad_real_spelling_rows_name_file_and_line(tmp_path: Path, which: str, row: str, fragment: str) -> None:
    header = (
        "source\tcontext\tmonotonicity\toperator\tdistractor operator\tsingular\tmass\tplural"
        if which == "contexts"
        else "source\tx_grammar\tx\ty\ty_grammar\tinsertion_rel"
    )
    good = "t\tSome x slept.\tup\tsome\t\tx\t\t" if which == "contexts" else "t\ts\toak\ttree\ts\tleq"
    path = write(tmp_path / f"all_{which}.tsv", f"{header}\t\n{good}\t\t\n{row}\n", "\r\n")
    loader = monotonicity.load_contexts if which == "contexts" else monotonicity.load_insertions
    with pytest.raises(DataFormatError) as err:
        loader(path)
    assert err.value.line == 3 and fragment in str(err.value)


def test_bundled_nli_xy_files_are_in_the_real_spelling() -> None:
    data = ROOT / "data" / "monotonicity"
    ctx = (data / "contexts.tsv").read_text().splitlines()[1:]
    assert {v for line in ctx for v in line.split("\t")[5:]} <= {"x", ""}
    ins = (data / "insertions.tsv").read_text().splitlines()[1:]
    assert {line.split("\t")[1] for line in ins} | {line.split("\t")[4] for line in ins} <= {"s", "m", "p"}
    both = monotonicity.with_reverses(monotonicity.load_insertions())
    assert both.attrs["n_file"] == 154 and len(both) == 158


# --------------------------------------------------------------------------- Montague wide CSV


def test_wide_csv_gives_the_bundled_words_in_the_same_order() -> None:
    wide = adjectives.load_words(FIX / "montague" / "adjectives.csv")
    bundled = adjectives.load_words()
    assert wide[["word", "class"]].values.tolist() == bundled[["word", "class"]].values.tolist()
    syn = adjectives.load_wide_csv(FIX / "montague" / "adjectives.csv")
    assert syn.set_index("word").loc["red", "synonym"] == "crimson"


def test_wide_csv_beside_the_bundled_list_is_accepted_as_the_same_words() -> None:
    adjs, nouns = adjectives.load_lexicon([adjectives.BUNDLED_WORDS, FIX / "montague" / "adjectives.csv"])
    assert len(adjs) == 61 and len(nouns) == 12


def test_wide_csv_ragged_columns_read_column_by_column(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mine.csv",
        "Subsective (Intersective),SYN Subsective (Intersective),Nouns,SYN Nouns\nteal,bluish,kettle,\nnimble,agile\n",
        "\r\n",
    )
    df = adjectives.load_words(path)
    assert df[["word", "class", "line"]].values.tolist() == [
        ["teal", "S-I", 2],
        ["nimble", "S-I", 3],
        ["kettle", "noun", 2],
    ]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("Subsective (Intersective),SYN Subsective (Intersective),Colours,SYN Colours\nteal,,red,\n", 1, "Colours"),
        ("Subsective (Intersective),Nouns,SYN Nouns\nteal,kettle,\n", 1, "SYN Subsective"),
        ("Nouns,SYN Nouns\nkettle,\n,pot\n", 3, "beside its synonym"),
        ("Nouns,SYN Nouns\nkettle,\nkettle,\n", 3, "each word once"),
    ],
)
def test_bad_wide_csv_names_file_and_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = write(tmp_path / "bad.csv", text)
    with pytest.raises(DataFormatError) as err:
        adjectives.load_words(path)
    assert err.value.line == line and fragment in str(err.value)


def test_a_word_repeated_with_another_class_across_lists_is_still_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "mine.csv", "Nouns,SYN Nouns\nwild,\n")
    with pytest.raises(DataFormatError, match="wild"):
        adjectives.load_lexicon([adjectives.BUNDLED_WORDS, path])


# --------------------------------------------------------------------------- CogALex-V


def test_cogalex_v_folder_gives_the_official_train_and_test_split() -> None:
    df = cogalex.load_lexical_relations("english", FIX / "cogalex-v")
    assert df.attrs["dataset"] == "CogALex-V" and not df.attrs["note"]
    train, test = lexical.split_pairs(df)
    assert (len(train), len(test)) == (207, 59)
    assert "HYPER" not in set(df["relation"]) and "PART_OF" in set(test["relation"])


def test_cogalex_v_renamed_files_in_one_folder(tmp_path: Path) -> None:
    write(tmp_path / "train_gold_task2.txt", "owl\tbird\tHYPER\ncar\tauto\tSYN\n", "\r\n")
    write(tmp_path / "test_gold_task2.txt", "wren\tbird\tHYPER\t\n")
    train, test = lexical.split_pairs(cogalex.load_lexical_relations("english", tmp_path))
    assert train["word1"].tolist() == ["owl", "car"] and test["word1"].tolist() == ["wren"]


def test_a_single_cogalex_v_file_is_split_and_says_so() -> None:
    df = cogalex.load_lexical_relations("english", FIX / "cogalex-v" / "CogALexV_train_v1" / "gold_task2.txt")
    assert set(df["split"]) == {"train", "test"}
    assert "single CogALex-V file" in df.attrs["note"] and "split" in df.attrs["note"]


def test_no_test_pairs_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path / "train_english_data.txt", "owl\tbird\tHYP\n")
    with pytest.raises(DataFormatError, match="test pairs for 'english'"):
        cogalex.load_lexical_relations("english", tmp_path)


def test_cogalex_v_files_whose_role_cannot_be_told_are_an_error(tmp_path: Path) -> None:
    write(tmp_path / "a" / "gold_task2.txt", "owl\tbird\tHYPER\n")
    write(tmp_path / "b" / "gold_task2.txt", "wren\tbird\tHYPER\n")
    with pytest.raises(DataFormatError, match="'train' or 'test'"):
        cogalex.load_lexical_relations("english", tmp_path)


def test_bad_cogalex_v_label_names_file_and_line(tmp_path: Path) -> None:
    write(tmp_path / "CogALexV_train_v1" / "gold_task2.txt", "owl\tbird\tHYPER\n")
    bad = write(tmp_path / "CogALexV_test_v1" / "gold_task2.txt", "wren\tbird\tHYPER\nfin\tfish\tHYP\n")
    with pytest.raises(DataFormatError) as err:
        cogalex.load_lexical_relations("english", tmp_path)
    assert err.value.path == bad and err.value.line == 2


def test_paper_rates_are_not_shown_for_cogalex_v() -> None:
    assert lexical.table5_frame("CogALex-V").empty
    assert lexical.table5_frame("CogALex-VI").loc["english", "syn"] == pytest.approx(0.809)


# --------------------------------------------------------------------------- claims


def test_accuracy_beside_its_majority_baseline_and_sentence() -> None:
    gold = np.array([False] * 6 + [True] * 4)
    always_no = claims.accuracy_vs_baseline(gold, np.zeros(10, bool), {False: "not entailed"})
    assert always_no.accuracy == always_no.majority_baseline == 0.6 and always_no.balanced_accuracy == 0.5
    assert "not above the baseline" in always_no.sentence("x") and "not entailed" in always_no.sentence("x")
    perfect = claims.accuracy_vs_baseline(np.tile(gold, 5), np.tile(gold, 5))
    assert perfect.beats_baseline and perfect.p_above_baseline == pytest.approx(0.6**50)
    keys = perfect.metrics("nli_accuracy")
    assert set(keys) == {
        "nli_accuracy",
        "nli_accuracy_majority_baseline",
        "nli_accuracy_balanced",
        "nli_accuracy_p_above_baseline",
        "nli_accuracy_n",
    }


# --------------------------------------------------------------------------- runner on the fixtures


def test_profile_file_and_overrides_reach_the_notebooks() -> None:
    jobs = runner.build_jobs(str(PROFILE), only=["02"], root=ROOT, overrides=["02.layer=-3", "seed=4"])
    params = jobs[0].parameters
    assert params["profile"] == "real_formats" and params["layer"] == -3 and params["seed"] == 4
    assert params["insertions_path"].endswith("all_insertions.tsv")
    # headless runs: no third-party widget bars frozen at 0%, mtlib's own bars as text (tests switch them off)
    assert jobs[0].env["HF_HUB_DISABLE_PROGRESS_BARS"] == "1" and jobs[0].env["MTLIB_PROGRESS"] == "0"
    assert runner.missing_inputs(params, ROOT, ROOT / "notebooks") == []
    missing = runner.missing_inputs(
        {"data_dir": "external/nowhere", "out_dir": "x", "word_lists": ["a.csv"]}, ROOT, ROOT / "notebooks"
    )
    assert len(missing) == 2 and missing[0].startswith("data_dir = external/nowhere")


def test_real_profile_names_the_missing_file_without_running(tmp_path: Path, capsys) -> None:
    status = runner.main(
        [
            "--profile",
            "real",
            "--only",
            "02",
            "--root",
            str(ROOT),
            "--out-dir",
            str(tmp_path),
            "-p",
            "02.contexts_path=external/definitely-missing/all_contexts.tsv",
        ]
    )
    out = capsys.readouterr().out
    assert status == 1 and "not run, missing input" in out and "definitely-missing/all_contexts.tsv" in out
    assert not (tmp_path / "papermill_runs" / "real" / "02_nli_probe_compositionality" / "metrics.json").exists()


def test_bad_profile_arguments() -> None:
    with pytest.raises(SystemExit, match="no profile file"):
        runner.build_jobs("missing.yaml", root=ROOT)
    with pytest.raises(SystemExit, match="NN.key=value"):
        runner.apply_overrides({}, ["02.layer"])


@pytest.mark.notebook
@pytest.mark.parametrize("number", ["02", "03", "04"])
@pytest.mark.slow
def test_notebooks_run_on_real_format_fixtures_through_a_profile_file(number: str, tmp_path: Path) -> None:
    status = runner.main(["--profile", str(PROFILE), "--only", number, "--root", str(ROOT), "--out-dir", str(tmp_path)])
    runs = tmp_path / "papermill_runs" / "real_formats"
    assert status == 0, (runs / "REPORT.md").read_text()
    stem = next(p.name for p in runs.iterdir() if p.name.startswith(number))
    metrics = json.loads((runs / stem / "metrics.json").read_text())
    if number == "02":
        assert metrics["n_insertion_pairs_file"] == 11 and metrics["n_insertion_pairs_with_reverses"] == 20
        for key in ("nli_accuracy", "probe_accuracy"):
            assert 0 <= metrics[key] <= 1 and 0.5 <= metrics[f"{key}_majority_baseline"] <= 1
            assert math.isfinite(metrics[f"{key}_balanced"])
    elif number == "03":
        assert metrics["dataset"] == "CogALex-V" and metrics["test_pairs/english"] == 59
        assert 0.5 <= metrics["accuracy/english/syn_majority_baseline"] <= 1
        table5 = pd.read_csv(runs / stem / "tables" / "table5_violation_rate.csv")
        assert table5["paper_rate"].isna().all(), "no CogALex-VI numbers for CogALex-V data"
    else:
        assert metrics["n_adjectives"] == 10 and metrics["n_nouns"] == 3


def test_progress_bars_are_text_in_headless_runs_and_auto_otherwise(monkeypatch) -> None:
    from tqdm.std import tqdm as text_tqdm

    from mtlib.utils.batching import progress_bar

    monkeypatch.setenv("MTLIB_PROGRESS", "text")
    bar = progress_bar(10, "embed", enabled=True)
    assert type(bar) is text_tqdm and bar.leave
    bar.close()
    monkeypatch.setenv("MTLIB_PROGRESS", "0")
    assert progress_bar(10**6, "embed") is None
