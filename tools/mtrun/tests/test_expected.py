"""The pinned-values checker: file format, comparisons, bad input, and the command line."""

from __future__ import annotations

import json

import pytest

from mtlib.run.results import RunLayout
from mtrun import expected

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
        "violation_rate/overall",
        "n_sources",
        "dataset",
    }
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


@pytest.mark.parametrize(
    "text, line, words",
    [
        ('"01":\n  smoke:\n    a: 0.5\n', 3, "a: {value"),
        ('"01":\n  smoke:\n    a: {tol: 0.1}\n', 3, "got fields ['tol']"),
        ('"01":\n  smoke:\n    a: {value: 1, tol: 0.1, truncate: 2}\n', 3, "not both"),
        ('"01":\n  smoke:\n    a: {value: x, tol: 0.1}\n', 3, "numeric value"),
        ('"01":\n  smoke:\n    a: {value: 0.1, truncate: 1.5}\n', 3, "whole number"),
        ('"01":\n  smoke:\n    a: {value: 0.1, tolerance: 1}\n', 3, "got fields"),
        ('"01":\n  - smoke\n', 2, "profiles of notebook '01'"),
        ('"01":\n  smoke: {a: {value: [1, 2}\n', 2, "not valid YAML"),
    ],
)
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


KINDED = """\
"02":
  smoke:
    exact:
      n_contexts: {value: 12}
      cell: {value: 0.98, truncate: 2}
    model:
      nli_accuracy: {value: 0.7, tol_items: 3, items: 343}
      probe_accuracy: {value: 0.9, tol_items: 2, per: probe_accuracy_n}
      spearman: {value: -0.1, tol: 0.05}
"""


@pytest.fixture
def typed_pins(tmp_path):
    path = tmp_path / "typed_pins.yaml"
    path.write_text(KINDED)
    return path


def test_exact_and_model_blocks_give_each_entry_its_pin_type_and_tolerance_in_items(typed_pins, good):
    block = expected.expectations("02", "smoke", path=typed_pins)
    assert {k: e.pin_type for k, e in block.items()} == {
        "n_contexts": "exact",
        "cell": "exact",
        "nli_accuracy": "model",
        "probe_accuracy": "model",
        "spearman": "model",
    }
    acc = block["nli_accuracy"]
    assert (acc.tol_items, acc.items, acc.per, acc.line) == (3, 343, None, 7)
    assert acc.tolerance == "±3 items of 343" and acc.absolute_tol() == pytest.approx(3 / 343)
    assert block["probe_accuracy"].tolerance == "±2 items of probe_accuracy_n"
    assert block["probe_accuracy"].absolute_tol({"probe_accuracy_n": 100}) == pytest.approx(0.02)
    # a flat block (no exact: / model:) reads as before: tol makes an entry model-dependent, the rest is exact
    flat = expected.expectations("01", "smoke", path=good)
    assert flat["violation_rate/overall"].pin_type == "model" and flat["n_sources"].pin_type == "exact"


def test_tolerance_in_items_over_a_number_or_a_metrics_key(typed_pins):
    base = {
        "n_contexts": 12,
        "cell": 0.989,
        "nli_accuracy": 0.7,
        "probe_accuracy": 0.9,
        "probe_accuracy_n": 100,
        "spearman": -0.1,
    }

    def keys(**changed):
        return [m.key for m in expected.check("02", "smoke", {**base, **changed}, path=typed_pins)]

    assert keys() == []
    assert keys(nli_accuracy=0.7 + 3 / 343) == []  # three items flipped: within
    assert keys(nli_accuracy=0.7 - 3 / 343) == []
    assert keys(nli_accuracy=0.7 + 4 / 343) == ["nli_accuracy"]  # four: not
    assert keys(probe_accuracy=0.92) == [] and keys(probe_accuracy=0.93) == ["probe_accuracy"]
    assert keys(probe_accuracy=0.92, probe_accuracy_n=200) == ["probe_accuracy"]  # the run's own denominator
    assert keys(spearman=-0.149) == [] and keys(spearman=-0.16) == ["spearman"]
    assert keys(n_contexts=13) == ["n_contexts"] and keys(cell=0.99) == ["cell"]
    # a missing denominator is a mismatch that says so
    missing = {k: v for k, v in base.items() if k != "probe_accuracy_n"}
    (m,) = expected.check("02", "smoke", missing, path=typed_pins)
    assert m.key == "probe_accuracy" and m.pin_type == "model" and "probe_accuracy_n missing" in str(m)
    (m,) = expected.check("02", "smoke", {**base, "nli_accuracy": 0.8}, path=typed_pins)
    assert "(model, ±3 items of 343 = ±0.00875)" in str(m) and "line 7" in str(m)


@pytest.mark.parametrize(
    "text, line, words",
    [
        ('"01":\n  smoke:\n    a: {value: 0.5, tol: .inf}\n', 3, "finite number >= 0"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol: .nan}\n', 3, "finite number >= 0"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol: -1.0e-6}\n', 3, "finite number >= 0"),
        (
            '"01":\n  smoke:\n    a: {value: 0.5, tol: 1.0e-6}\n    b: {value: 1}\n    a: {value: 0.6, tol: 1.0e-6}\n',
            5,
            "'a' is given twice in '01' / 'smoke' (first at line 3)",
        ),
        (
            '"01":\n  smoke:\n    exact:\n      a: {value: 1}\n'
            "    model:\n      a: {value: 0.5, tol_items: 1, items: 9}\n",
            6,
            "'a' is given twice",
        ),
        (
            '"01":\n  smoke:\n    model:\n      a: {value: 0.5, tol_items: 1, items: 9}\n'
            "      a: {value: 0.5, tol: 0.1}\n",
            5,
            "given twice",
        ),
        ('"01":\n  smoke:\n    a: {value: 1}\n  smoke:\n    b: {value: 1}\n', 4, "'smoke' is given twice"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol_items: -1, items: 9}\n', 3, "whole number of items >= 0"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol_items: .inf, items: 9}\n', 3, "whole number of items >= 0"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol_items: 1.5, items: 9}\n', 3, "whole number of items >= 0"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol_items: 1}\n', 3, "needs its denominator"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol_items: 1, items: 9, per: n}\n', 3, "one of the two"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol_items: 1, items: 0}\n', 3, "whole number > 0"),
        ('"01":\n  smoke:\n    a: {value: 0.5, tol_items: 1, items: 9, tol: 0.1}\n', 3, "not both"),
        ('"01":\n  smoke:\n    a: {value: 0.5, items: 9}\n', 3, "only go with tol_items"),
        ('"01":\n  smoke:\n    exact:\n      a: {value: 0.5, tol: 0.1}\n', 4, "'exact' block"),
        ('"01":\n  smoke:\n    model:\n      a: {value: 0.5}\n', 4, "a 'model' entry needs tol_items"),
        ('"01":\n  smoke:\n    model:\n      a: {value: 0.5, truncate: 2}\n', 4, "'model' block"),
    ],
)
def test_bad_tolerances_and_keys_pinned_twice_are_refused_with_their_line(tmp_path, text, line, words):
    path = tmp_path / "expected.yaml"
    path.write_text(text)
    with pytest.raises(expected.ExpectedFormatError) as info:
        expected.load(path)
    assert info.value.line == line and f"{path}, line {line}" in str(info.value) and words in str(info.value)


def test_command_line_fails_when_it_checks_nothing(tmp_path, good, capsys):
    out = tmp_path / "out"
    _write_run(
        out,
        "01_pairwise_sentiment_systematicity",
        "smoke",
        {"violation_rate/overall": 0.25, "n_sources": 60, "dataset": "bundled"},
    )
    base = ["--out-dir", str(out), "--expected", str(good)]
    assert expected.main(["--profile", "smoke", *base]) == 0
    assert "(2 exact, 1 model-dependent within their tolerance)" in capsys.readouterr().out
    assert expected.main(["--profile", "smoek", *base]) == 2  # a misspelt profile
    assert "checked nothing" in capsys.readouterr().err
    assert expected.main(["--profile", "smoke", "--only", "99", *base]) == 2  # no pins for that notebook
    assert "notebook(s) 99 have no pinned 'smoke' values" in capsys.readouterr().err
    assert expected.main(["--profile", "smoke", "--only", "01,99", *base]) == 2


def test_the_project_file_says_what_each_value_depends_on():
    """Every profile block of the project file is split into exact: and model:; model values tolerate items."""
    import yaml

    raw = yaml.safe_load(expected.project_root().joinpath(expected.EXPECTED_FILE).read_text())
    for number, profiles in raw.items():
        for profile, block in profiles.items():
            assert set(block) <= set(expected.PIN_TYPES), f"{number}/{profile}: keys outside exact:/model: {set(block)}"
    for number, profiles in expected.load().items():
        for profile, block in profiles.items():
            for key, exp in block.items():
                if exp.pin_type == "model" and exp.tol_items is None:
                    assert exp.tol is not None and exp.tol > 0, (number, profile, key)
