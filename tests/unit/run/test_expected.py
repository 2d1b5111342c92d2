"""The pinned-values checker: file format, comparisons, bad input, and the command line."""

from __future__ import annotations

import json

import pytest

from mtlib.run import expected
from mtlib.run.results import RunLayout

GOOD = """\
# header comment
"01":
  smoke:
    violation_rate/overall: {value: 0.25, tol: 1.0e-6}
    n_sources: {value: 60}
    dataset: {value: bundled}
  quick:
    accuracy: {value: 0.35, truncate: 2, source: "Table 1, somewhere"}
"04":
  quick:
    cell: {value: -0.12, truncate: 2}
"""


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "expected.yaml"
    path.write_text(GOOD)
    return path


def test_load_gives_every_entry_with_its_line(good):
    data = expected.load(good)
    assert set(data) == {"01", "04"} and set(data["01"]) == {"smoke", "quick"}
    entry = data["01"]["smoke"]["violation_rate/overall"]
    assert (entry.value, entry.tol, entry.truncate, entry.line) == (0.25, 1e-6, None, 4)
    assert data["01"]["quick"]["accuracy"].source == "Table 1, somewhere"
    assert expected.expectations("01_pairwise_anything", "smoke", path=good).keys() == {
        "violation_rate/overall", "n_sources", "dataset"}
    assert expected.expectations("02", "smoke", path=good) == {}


def test_check_tolerance_exact_truncation_and_missing_keys(good):
    ok = {"violation_rate/overall": 0.2500004, "n_sources": 60, "dataset": "bundled"}
    assert expected.check("01", "smoke", ok, path=good) == []
    bad = {"violation_rate/overall": 0.2500011, "n_sources": 61}
    found = {m.key: m for m in expected.check("01", "smoke", bad, path=good)}
    assert set(found) == {"violation_rate/overall", "n_sources", "dataset"}
    assert found["dataset"].missing and "missing from metrics.json" in str(found["dataset"])
    assert found["n_sources"].expected == 60 and found["n_sources"].actual == 61
    assert "±1e-06" in str(found["violation_rate/overall"]) and "line 4" in str(found["violation_rate/overall"])
    # truncation: 0.3599 and 0.35 (0.35 * 100 = 34.999... in binary) both print as 0.35; 0.36 does not
    for actual, ok in ((0.3599, True), (0.35, True), (0.36, False), (0.3499, False), (None, False)):
        assert (expected.check("01", "quick", {"accuracy": actual}, path=good) == []) is ok, actual
    # negative values truncate towards zero, as printed
    assert expected.check("04", "quick", {"cell": -0.1299}, path=good) == []
    assert expected.check("04", "quick", {"cell": -0.1301}, path=good) != []


@pytest.mark.parametrize("text, line, words", [
    ('"01":\n  smoke:\n    a: 0.5\n', 3, "a: {value"),
    ('"01":\n  smoke:\n    a: {tol: 0.1}\n', 3, "got fields ['tol']"),
    ('"01":\n  smoke:\n    a: {value: 1, tol: 0.1, truncate: 2}\n', 3, "not both"),
    ('"01":\n  smoke:\n    a: {value: x, tol: 0.1}\n', 3, "numeric value"),
    ('"01":\n  smoke:\n    a: {value: 0.1, truncate: 1.5}\n', 3, "whole number"),
    ('"01":\n  smoke:\n    a: {value: 0.1, tolerance: 1}\n', 3, "got fields"),
    ('"01":\n  - smoke\n', 2, "profiles of notebook '01'"),
    ('"01":\n  smoke: {a: {value: [1, 2}\n', 2, "not valid YAML"),
])
def test_a_malformed_file_names_its_line(tmp_path, text, line, words):
    path = tmp_path / "expected.yaml"
    path.write_text(text)
    with pytest.raises(expected.ExpectedFormatError) as info:
        expected.load(path)
    assert info.value.line == line and f"{path}, line {line}" in str(info.value) and words in str(info.value)


def _write_run(root, stem, profile, metrics):
    layout = RunLayout(root, profile, stem)
    layout.run_dir.mkdir(parents=True)
    layout.metrics_path.write_text(json.dumps(metrics))


def test_command_line_exit_status_lists_mismatches(tmp_path, good, capsys):
    out = tmp_path / "out"
    stem = "01_pairwise_sentiment_systematicity"
    _write_run(out, stem, "smoke", {"violation_rate/overall": 0.25, "n_sources": 60, "dataset": "bundled"})
    args = ["--profile", "smoke", "--out-dir", str(out), "--expected", str(good)]
    assert expected.main(args) == 0
    assert "1 of 1 notebook(s) reproduce" in capsys.readouterr().out
    RunLayout(out, "smoke", stem).metrics_path.write_text(json.dumps({"violation_rate/overall": 0.3}))
    assert expected.main(args) == 1
    text = capsys.readouterr().out
    assert "violation_rate/overall: expected 0.25" in text and "actual 0.3" in text and "n_sources" in text
    # a notebook with pinned values that was not run is a failure that says how to run it
    assert expected.main(["--profile", "quick", "--out-dir", str(out), "--expected", str(good), "--only", "01"]) == 1
    assert "no metrics.json" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text('"01":\n  smoke:\n    a: 1\n')
    assert expected.main(["--profile", "smoke", "--out-dir", str(out), "--expected", str(bad)]) == 2
    assert f"{bad}, line 3" in capsys.readouterr().err


def test_the_project_file_is_well_formed():
    data = expected.load()
    for number in ("01", "02", "03"):
        assert data[number]["smoke"], f"no smoke values pinned for notebook {number}"
