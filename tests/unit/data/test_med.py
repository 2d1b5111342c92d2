"""The MED loader (:mod:`mtlib.data.med`) on a small file in the real layout, and its bad-input cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtlib.data import DataFormatError, med

ROOT = Path(__file__).resolve().parents[3]
MED = ROOT / "tests" / "fixtures" / "real_formats" / "med" / "MED.tsv"


def _lines() -> list[str]:
    return MED.read_text(encoding="utf-8").splitlines()


def _write(tmp_path: Path, lines: list[str], newline: str = "\n") -> Path:
    path = tmp_path / "MED.tsv"
    path.write_bytes((newline.join(lines) + newline).encode("utf-8"))
    return path


def test_reads_the_real_layout():
    frame = med.load_med(MED)
    assert len(frame) == 6
    assert {"index", "promptID", "pairID", "genre", "sentence1", "sentence2", "gold_label", "entailed", "line"} <= set(
        frame.columns
    )
    assert frame.loc[0, "sentence1"] == "Every workman left"
    assert frame.loc[0, "genre"] == "paper:FraCaS_GQ:downward_monotone"
    assert frame["entailed"].tolist() == [True, True, False, True, False, True]
    assert frame["line"].tolist() == [2, 3, 4, 5, 6, 7]


def test_crlf_and_label_columns_left_empty(tmp_path):
    frame = med.load_med(_write(tmp_path, _lines(), "\r\n"))
    assert len(frame) == 6 and frame.loc[1, "label2"] == "" and frame.loc[5, "gold_label"] == "entailment"


def test_missing_column_names_the_header(tmp_path):
    lines = _lines()
    lines[0] = lines[0].replace("gold_label", "label6")
    with pytest.raises(DataFormatError) as err:
        med.load_med(_write(tmp_path, lines))
    assert err.value.line == 1 and "gold_label" in str(err.value)


def test_unknown_gold_label_names_line_and_allowed_values(tmp_path):
    lines = _lines()
    lines[3] = lines[3].rsplit("\t", 1)[0] + "\tcontradicts"
    with pytest.raises(DataFormatError) as err:
        med.load_med(_write(tmp_path, lines))
    assert err.value.line == 4 and "entailment" in err.value.expected and err.value.found == "contradicts"
    assert str(tmp_path / "MED.tsv") in str(err.value)


def test_short_row_and_empty_sentence(tmp_path):
    lines = _lines()
    lines[2] = "\t".join(lines[2].split("\t")[:9])
    with pytest.raises(DataFormatError) as err:
        med.load_med(_write(tmp_path, lines))
    assert err.value.line == 3 and "columns" in err.value.expected
    lines = _lines()
    fields = lines[5].split("\t")
    fields[9] = ""
    lines[5] = "\t".join(fields)
    with pytest.raises(DataFormatError) as err:
        med.load_med(_write(tmp_path, lines))
    assert err.value.line == 6 and "sentence2" in err.value.expected


def test_header_only_and_empty_files(tmp_path):
    with pytest.raises(DataFormatError, match="at least one pair"):
        med.load_med(_write(tmp_path, _lines()[:1]))
    (tmp_path / "empty.tsv").write_bytes(b"")
    with pytest.raises(DataFormatError, match="header"):
        med.load_med(tmp_path / "empty.tsv")
