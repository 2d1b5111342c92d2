"""Yelp sentiment-transfer loader on invented fixtures in both real formats, and the bundled files.

Fixture sentences are made up for these tests; the formats are Li et al.'s
(``sentiment.*``, tab-separated ``reference.0/1``) and the rpryzant
delete-retrieve-generate variant (``reference.test.0`` beside
``reference.test.1``, one sentence per line, line-aligned).
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mtlib.data import DataFormatError, yelp
from mtlib.experiments import pss

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = ROOT / "data" / "yelp_style"


def write(path: Path, text: str, newline: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def li_folder(tmp_path: Path) -> Path:
    for split in yelp.SPLITS:
        write(tmp_path / f"sentiment.{split}.0", "the soup was cold .\nour waiter ignored us .\n")
        write(tmp_path / f"sentiment.{split}.1", "the soup was hot .\n\nour waiter was lovely .\n")
    write(
        tmp_path / "reference.0",
        "the soup was cold .\tthe soup was hot .\nour waiter ignored us .\tour waiter was lovely .\n",
    )
    write(tmp_path / "reference.1", "the soup was hot .\tthe soup was cold .\n", newline="\r\n")
    return tmp_path


def test_load_sentences_li_format(tmp_path):
    df = yelp.load_sentences(li_folder(tmp_path))
    assert list(df.columns) == ["text", "label", "split", "file", "line"]
    assert len(df) == 12 and Counter(df["label"]) == {0: 6, 1: 6}
    pos = df[(df["split"] == "dev") & (df["label"] == 1)]
    assert pos["line"].tolist() == [1, 3]  # the blank line is skipped, numbering kept
    assert yelp.load_sentences(tmp_path, splits=["test"])["split"].unique().tolist() == ["test"]


def test_load_reference_pairs_li_format(tmp_path):
    pairs = yelp.load_reference_pairs(li_folder(tmp_path))
    assert list(pairs.columns) == ["source", "rewrite", "direction", "file", "line"]
    assert pairs["direction"].tolist() == ["neg_to_pos", "neg_to_pos", "pos_to_neg"]
    assert pairs.loc[2, "rewrite"] == "the soup was cold ."  # CRLF stripped
    assert yelp.reference_format(tmp_path) == "li"


def test_load_reference_pairs_rpryzant_format(tmp_path):
    write(tmp_path / "reference.test.0", "The soup was cold.\nOur waiter ignored us.\n")
    write(tmp_path / "reference.test.1", "The soup was hot.\nOur waiter was lovely. \n")
    assert yelp.reference_format(tmp_path) == "rpryzant"
    pairs = yelp.load_reference_pairs(tmp_path)
    assert pairs[["source", "rewrite", "direction"]].values.tolist() == [
        ["The soup was cold.", "The soup was hot.", "neg_to_pos"],
        ["Our waiter ignored us.", "Our waiter was lovely.", "neg_to_pos"],
    ]
    kept, report = pss.clean_pairs(pairs, tokenize="words")
    assert len(kept) == 2 and report.loc["kept", "all"] == 2


@pytest.mark.parametrize(
    "line, found",
    [
        ("the soup was cold . the soup was hot .", "the soup was cold"),  # missing tab
        ("the soup was cold .\t", "the soup was cold"),  # empty rewrite
        ("\tthe soup was hot .", "the soup was hot"),  # empty source
        ("a\tb\tc", "a\tb\tc"),  # two tabs
    ],
)
def test_reference_line_errors_name_file_line_and_format(tmp_path, line, found):
    li_folder(tmp_path)
    write(tmp_path / "reference.1", f"the soup was hot .\tthe soup was cold .\n{line}\n")
    with pytest.raises(DataFormatError) as err:
        yelp.load_reference_pairs(tmp_path)
    assert err.value.path.name == "reference.1" and err.value.line == 2
    assert "source<TAB>rewrite" in str(err.value) and "reference.1:2" in str(err.value)


def test_rpryzant_files_of_different_length_or_with_empty_lines(tmp_path):
    write(tmp_path / "reference.test.0", "a b .\nc d .\ne f .\n")
    write(tmp_path / "reference.test.1", "a x .\nc y .\n")
    with pytest.raises(DataFormatError, match=r"reference.test.1:3: expected one rewrite per line"):
        yelp.load_reference_pairs(tmp_path)
    write(tmp_path / "reference.test.1", "a x .\n\ne z .\n")
    with pytest.raises(DataFormatError, match=r"reference.test.1:2: expected one non-empty sentence"):
        yelp.load_reference_pairs(tmp_path)


def test_read_aligned_pairs_for_a_transfer_model_output(tmp_path):
    src = write(tmp_path / "inputs.txt", "the soup was hot .\n")
    out = write(tmp_path / "outputs.txt", "the soup was cold .\n")
    pairs = yelp.read_aligned_pairs(src, out, "pos_to_neg")
    assert pairs.iloc[0][["source", "rewrite", "direction"]].tolist() == [
        "the soup was hot .",
        "the soup was cold .",
        "pos_to_neg",
    ]
    with pytest.raises(ValueError, match="direction"):
        yelp.read_aligned_pairs(src, out, "up")


def test_sentence_file_errors(tmp_path):
    li_folder(tmp_path)
    write(tmp_path / "sentiment.dev.1", "fine .\nthe soup\twas hot .\n")
    with pytest.raises(DataFormatError, match=r"sentiment.dev.1:2: expected one sentence per line, no tab"):
        yelp.load_sentences(tmp_path)
    li_folder(tmp_path)
    write(tmp_path / "sentiment.dev.2", "neutral .\n")
    with pytest.raises(DataFormatError, match="label suffix 0 .negative. or 1"):
        yelp.load_sentences(tmp_path)
    (tmp_path / "sentiment.dev.2").unlink()
    (tmp_path / "sentiment.test.1").unlink()
    with pytest.raises(FileNotFoundError, match=r"sentiment.test.1: missing"):
        yelp.load_sentences(tmp_path)
    write(tmp_path / "sentiment.test.1", "\n\n")
    with pytest.raises(DataFormatError, match="at least one sentence"):
        yelp.load_sentences(tmp_path)


def test_missing_reference_files(tmp_path):
    li_folder(tmp_path)
    (tmp_path / "reference.1").unlink()
    with pytest.raises(FileNotFoundError, match="reference.1: missing"):
        yelp.load_reference_pairs(tmp_path)
    (tmp_path / "reference.0").unlink()
    with pytest.raises(FileNotFoundError, match="no reference pairs"):
        yelp.load_reference_pairs(tmp_path)
    with pytest.raises(ValueError, match="fmt must be one of"):
        yelp.load_reference_pairs(tmp_path, fmt="csv")


# --------------------------------------------------------------------------
# The bundled Yelp-style data
# --------------------------------------------------------------------------


def test_generator_reproduces_the_committed_files(tmp_path):
    subprocess.run(
        [sys.executable, str(BUNDLED / "make_yelp_style.py"), "--out", str(tmp_path)], check=True, capture_output=True
    )
    for path in BUNDLED.iterdir():
        if path.name.startswith(("sentiment.", "reference.")):
            assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_bundled_sizes_and_format():
    df = yelp.load_sentences()
    sizes = df.groupby("split").size()
    assert sizes["train"] >= 4000 and sizes["dev"] + sizes["test"] >= 1000
    assert df["text"].is_unique
    assert (df["text"] == df["text"].str.lower()).all()
    assert Counter(df.loc[df["split"] == "train", "label"]) == {0: 2000, 1: 2000}
    pairs = yelp.load_reference_pairs()
    counts = pairs.groupby("direction").size()
    assert counts["neg_to_pos"] >= 300 and counts["pos_to_neg"] >= 300
    # sources are the test sentences, as in Li et al.
    test = df[df["split"] == "test"]
    for label, direction in zip(yelp.LABELS, yelp.DIRECTIONS):
        assert set(pairs.loc[pairs["direction"] == direction, "source"]) == set(
            test.loc[test["label"] == label, "text"]
        )


def test_bundled_references_exercise_every_cleaning_rule():
    sys.path.insert(0, str(BUNDLED))
    try:
        import make_yelp_style
    finally:
        sys.path.remove(str(BUNDLED))
    files = make_yelp_style.generate()
    kinds = files["kinds.0"] + files["kinds.1"]
    pairs = yelp.load_reference_pairs()
    kept, report = pss.clean_pairs(pairs)
    for rule in pss.RULES:
        assert report.loc[pss.RULE_NAMES[rule], "all"] > 20
    assert any(p.startswith("the") and " not " in p for p in pairs["source"])
    # copies go by rule 1, deletions by rule 2, the content-changing rewrites survive (as in the paper)
    by_kind = Counter(k for k, keep in zip(kinds, pairs.index.isin(kept.index)) if keep)
    assert by_kind["copy"] == 0 and by_kind["delete"] == 0
    assert by_kind["content"] > 20 and by_kind["swap"] > 300
    assert report.loc[pss.RULE_NAMES["copy"], "all"] == Counter(kinds)["copy"]
    # a few swaps only delete too ("would never recommend" -> "would recommend"): rule 2 takes them as well
    assert report.loc[pss.RULE_NAMES["adds_no_word"], "all"] >= Counter(kinds)["delete"]
