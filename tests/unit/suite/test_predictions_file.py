"""Predictions files (``python -m mtlib.suite score``): CSV and JSON Lines, every refusal naming the file and line.

Before (main at de6e801): class probabilities summing to 1.8 and a ``score`` of 1.7 read by an MFT were
accepted, a JSONL file got "the predictions need a 'text' column; the header has ['{\"text\": ...", a file
whose only value column was not ``score`` got "the model has no label 'positive'", NaN was reported as "the
model returned NaN" without the line, and a non-UTF-8 byte by its position in a decoded chunk.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mtlib.relations import MtlibInputError
from mtlib.suite import MFT, Suite, read_predictions
from mtlib.suite.predictions import SUM_TOLERANCE, PredictedScores, PredictionsModel


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_csv_and_jsonl_give_the_same_model(tmp_path):
    csv = read_predictions(write(tmp_path / "p.csv", 'text,negative,positive\na,0.1,0.9\n"b, c",0.6,0.4\n'))
    lines = '{"text": "a", "negative": 0.1, "positive": 0.9}\n\n{"text": "b, c", "negative": 0.6, "positive": 0.4}\n'
    jsonl = read_predictions(write(tmp_path / "p.jsonl", lines))
    for model in (csv, jsonl):
        assert isinstance(model, PredictionsModel) and model.labels == ["negative", "positive"]
        np.testing.assert_allclose(model.classify(["b, c", "a"]), [[0.6, 0.4], [0.1, 0.9]])
    scores = read_predictions(write(tmp_path / "s.ndjson", '{"text": "a", "score": 3}\n'))
    assert isinstance(scores, PredictedScores) and scores(["a"]).tolist() == [3.0]


def test_a_jsonl_file_named_csv_is_recognised(tmp_path):
    model = read_predictions(write(tmp_path / "p.csv", '{"text": "a", "score": 0.4}\n{"text": "b", "score": 0.6}\n'))
    assert model(["b", "a"]).tolist() == [0.6, 0.4]


@pytest.mark.parametrize(
    "name, content, says",
    [
        (
            "sum.csv",
            "text,negative,positive\na,0.1,0.9\nb,0.9,0.9\n",
            r"sum.csv, line 3: the class probabilities .*sum to 1.8",
        ),
        ("neg.csv", "text,negative,positive\na,-0.5,1.5\n", r"line 2: class probabilities must lie in \[0, 1\]"),
        (
            "bool.csv",
            "text,score\na,0.5\nb,True\n",
            r"line 3: column 'score' must hold numbers, got the boolean 'True'",
        ),
        (
            "bool.jsonl",
            '{"text": "a", "score": false}\n',
            "line 1: column 'score' must hold numbers, got the boolean false",
        ),
        ("nan.csv", "text,score\na,0.5\nb,nan\n", r"nan.csv, line 3: column 'score' .*got 'nan'.*finite"),
        ("inf.jsonl", '{"text": "a", "score": Infinity}\n', "line 1: .*finite number"),
        ("null.jsonl", '{"text": "a", "score": null}\n', r"line 1: .*an empty value \(null\)"),
        ("empty.csv", "text,score\na,\n", r"line 2: .*an empty value \(an empty cell\)"),
        ("word.csv", "text,score\na,high\n", "line 2: column 'score' must hold numbers, got 'high'"),
        ("str.jsonl", '{"text": "a", "score": "high"}\n', "line 1: column 'score' must hold numbers, got 'high'"),
        ("prob.csv", "text,prob\na,0.5\n", r"prob.csv: no 'score' column: the only value column is 'prob'"),
        ("notext.csv", "sentence,score\na,0.5\n", "need a 'text' column; the header has"),
        ("notext.jsonl", '{"sentence": "a", "score": 0.5}\n', r"line 1: each JSON object needs a 'text' key"),
        ("blank.csv", "text,score\n  ,0.5\n", "line 2: the 'text' column must hold a non-blank text"),
        (
            "broken.jsonl",
            '{"text": "a", "score": 0.5}\n{"text": "b" "score": 1}\n',
            r"line 2: not valid JSON at column 14 \(Expecting .,. delimiter\)",
        ),
        ("list.jsonl", "[1, 2]\n", "line 1: expected a JSON object per line"),
        ("short.jsonl", '{"text": "a", "score": 1}\n{"text": "b"}\n', r"line 2: the object lacks \['score'\]"),
        ("fields.csv", "text,score\na,0.5,7\n", "line 2: expected 2 fields"),
        ("twice.csv", "text,score\na,0.5\nb,0.1\na,0.6\n", "line 4: text 'a' has two different predictions .*line 2"),
        ("nothing.csv", "\n\n", "the file is empty"),
        ("dup.csv", "text,score,score\na,1,2\n", r"line 1: the header names \['score'\] twice"),
    ],
)
def test_a_bad_predictions_file_is_refused_naming_the_file_and_the_line(tmp_path, name, content, says):
    with pytest.raises(MtlibInputError, match=says) as err:
        read_predictions(write(tmp_path / name, content))
    assert name in str(err.value)


def test_a_byte_that_is_not_utf8_is_named_by_its_line(tmp_path):
    rows = b"".join(b"t%d,0.5\n" % i for i in range(3000))
    path = write(tmp_path / "latin.csv", b"text,score\n" + rows + b"caf\xe9,0.5\n")
    with pytest.raises(MtlibInputError, match=r"latin.csv:3002: expected UTF-8 .*byte 0xe9 at column 4"):
        read_predictions(path)
    with pytest.raises(MtlibInputError, match="cannot read the predictions"):
        read_predictions(tmp_path / "missing.csv")


def test_line_numbers_count_a_quoted_text_over_two_lines(tmp_path):
    path = write(tmp_path / "multi.csv", 'text,score\n"two\nlines",0.5\nb,x\n')
    with pytest.raises(MtlibInputError, match="line 4: column 'score' must hold numbers, got 'x'"):
        read_predictions(path)
    assert read_predictions(write(tmp_path / "ok.csv", 'text,score\n"two\nlines",0.5\n'))(["two\nlines"])[0] == 0.5


def test_rounding_within_the_tolerance_is_accepted(tmp_path):
    assert SUM_TOLERANCE == 0.02
    model = read_predictions(write(tmp_path / "r.csv", "text,a,b,c\nx,0.33,0.33,0.33\ny,0.335,0.335,0.335\n"))
    assert model.classify(["x"]).sum() == pytest.approx(0.99)


def test_a_score_read_as_a_probability_names_the_file_line(tmp_path):
    path = write(tmp_path / "logits.csv", "text,score\nfine,0.5\ngood,1.7\nbad,-3.2\n")
    suite = Suite("s").add("praise", MFT("positive"), ["fine", "good", "bad"] * 30, threshold=0.9)
    with pytest.raises(
        MtlibInputError,
        match=r"the scores of 2 of 3 texts lie outside, the first 1.7 for 'good' \(.*logits.csv, line 3\)",
    ):
        suite.run(read_predictions(path))
    assert json.loads(json.dumps(read_predictions(path)(["bad"]).tolist())) == [-3.2]  # an order relation may read it
