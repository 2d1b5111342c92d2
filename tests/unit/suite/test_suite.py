"""Suites: one score per unique text per run, JSON save/load, reports, the CI gate, reruns from cache."""

from __future__ import annotations

import json
import warnings
from collections import Counter
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from mtlib import models
from mtlib.models.base import Model
from mtlib.relations import PairwiseSystematicity, SingleInput
from mtlib.relations import transformations as T
from mtlib.suite import MFT, NotSerializable, Suite, SuiteFailure, SuiteResult, Template, generate, register

GOOD = ["great", "wonderful", "excellent", "superb"]
BAD = ["awful", "terrible", "boring", "bad"]


class CountingModel(Model):
    """A fake two-class model that counts how often it sees each text (no cache of its own)."""

    def __init__(self) -> None:
        super().__init__("counting", "counting-v1", "cpu", use_cache=False)
        self.labels = ["negative", "positive"]
        self.seen: Counter[str] = Counter()

    def classify(self, texts, text_pairs=None):
        self.calls += 1
        self.seen.update(texts)
        p = np.array([0.9 if any(w in t.lower() for w in GOOD) else 0.2 for t in texts])
        p = p + np.array([len(t) * 1e-4 + t.count("!") * 0.01 for t in texts])  # distinct; '!' raises it
        return np.stack([1 - p, p], axis=1)


def five_tests(name: str = "sentiment") -> Suite:
    """The README's five tests: an MFT, invariance under two transformations, a directional and a pairwise test."""
    pos = Template(
        "The {adj} {noun} was {verb}.", {"adj": ["new", "long", "French"], "noun": ["film", "show"], "verb": GOOD}
    )
    both = generate.template(
        "The {adj} {noun} was {verb}.", adj=["new", "long", "French"], noun=["film", "show"], verb=GOOD + BAD
    )
    suite = Suite(name, n_boot=100)
    suite.add("praise is positive", MFT("positive"), pos, threshold=0.2)
    suite.add("typos keep the label", SingleInput("typos", "equivalence", T.Typos("swap")), both, threshold=0.6)
    suite.add("case keeps the label", SingleInput("case", "equivalence", T.Casing("lower")), both, threshold=0.2)
    suite.add("! raises praise", SingleInput("exclaim", "order", T.Punctuation("exclaim")), pos, threshold=0.3)
    suite.add("Table 1 keeps the order", PairwiseSystematicity("table 1", T.manino_table1()), both, threshold=0.2)
    return suite


def test_every_unique_text_is_scored_once_per_run():
    model = CountingModel()
    suite = five_tests()
    result = suite.run(model)
    assert len(result.tests) == 5 and result.model == "counting"
    assert max(model.seen.values()) == 1  # shared texts (the template sentences) are scored once
    assert result.scored == len(model.seen) and result.model_calls == model.calls == result.batches
    texts = {t for test in suite.tests for t in test.texts()}
    assert texts <= set(model.seen)
    again = suite.run(model)  # a new run has a new memo: the model (no cache) sees each text once more
    assert set(model.seen.values()) == {2}
    pd.testing.assert_frame_equal(result.summary(), again.summary())


def test_summary_gate_and_failure_message_list_every_failing_test():
    suite = five_tests()
    suite.add("praise is negative", MFT("negative"), generate.template("It was {w}.", w=GOOD), threshold=0.1)
    suite.add("scorn is positive", MFT("positive"), generate.template("It was {w}.", w=BAD), threshold=0.1)
    result = suite.run(CountingModel())
    summary = result.summary()
    assert list(summary.index)[-2:] == ["praise is negative", "scorn is positive"]
    assert {"rate", "ci_low", "ci_high", "threshold", "passed", "n_items", "gate_bound"} <= set(summary.columns)
    assert result.failing() == ["praise is negative", "scorn is positive"]
    assert (
        summary.loc["praise is negative", "worst"].startswith("It was ")
        and summary.loc["case keeps the label", "worst"] == ""
    )
    with pytest.raises(SuiteFailure) as err:
        result.assert_passes()
    msg = str(err.value)
    assert "2 of 7 tests" in msg and "praise is negative" in msg and "scorn is positive" in msg
    assert isinstance(err.value, AssertionError) and err.value.failing == result.failing()
    ok = five_tests().run(CountingModel())
    assert ok.assert_passes() is ok and ok.passed
    mft = result["praise is negative"]
    assert mft.rate == 1.0 and mft.n_items == 4 and len(mft.examples) == 4


def test_suite_and_result_save_as_json_and_load_identical(tmp_path):
    suite = five_tests()
    path = suite.save(tmp_path / "suite.json")
    data = json.loads(path.read_text())
    assert data["tests"][1]["relation"]["transforms"] == [
        {"type": "Typos", "params": {"typo": "swap", "n": 1, "seed": 0}}
    ]
    assert "template" in data["tests"][0] and "inputs" in data["tests"][1]
    loaded = Suite.load(path)
    assert [t.name for t in loaded.tests] == [t.name for t in suite.tests]
    assert [t.texts() for t in loaded.tests] == [t.texts() for t in suite.tests]
    a, b = suite.run(CountingModel()), loaded.run(CountingModel())
    pd.testing.assert_frame_equal(a.summary(), b.summary())
    saved = SuiteResult.load(a.save(tmp_path / "result.json"))
    pd.testing.assert_frame_equal(a.summary(), saved.summary())
    for x, y in zip(a.tests, saved.tests):
        pd.testing.assert_frame_equal(x.examples, y.examples)
        pd.testing.assert_frame_equal(x.per_item, y.per_item)
        if x.groups is not None:
            pd.testing.assert_frame_equal(x.groups, y.groups)
    assert "NaN" not in (tmp_path / "result.json").read_text()  # strict JSON
    with pytest.raises(ValueError, match="not a saved suite"):
        Suite.load(tmp_path / "result.json")
    # a suite written before Typos' "kind" was renamed "typo" loads the same, without a warning
    path.write_text(path.read_text().replace('"typo": "swap"', '"kind": "swap"'))
    assert '"kind": "swap"' in path.read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        old = Suite.load(path)
    assert [t.texts() for t in old.tests] == [t.texts() for t in suite.tests]


def test_an_anonymous_transformation_cannot_be_saved_but_a_registered_function_can(tmp_path):
    suite = Suite("s").add("shout", SingleInput("shout", "equivalence", lambda x: x.upper()), ["a b"])
    with pytest.raises(NotSerializable, match="lambda.*register"):
        suite.save(tmp_path / "s.json")
    assert not (tmp_path / "s.json").exists()
    register("test_suite.shout", _shout)
    suite = Suite("s").add("shout", SingleInput("shout", "equivalence", _shout), ["a b"])
    loaded = Suite.load(suite.save(tmp_path / "s.json"))
    assert loaded.tests[0].relation.transforms[0]("a b") == "A B!"


def _shout(text: str) -> str:
    return text.upper() + "!"


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_html_report_escapes_every_value_and_wraps_long_texts(tmp_path):
    nasty = ["<script>alert(1)</script> was great", "<b>bold</b> & " + "very " * 80 + "awful"]
    suite = Suite("<i>s</i>").add("<img> test", MFT("negative"), nasty, threshold=0.1)
    suite.add("typos", SingleInput("typos", "equivalence", T.Typos("swap")), nasty, threshold=0.1)
    path = suite.run(CountingModel()).to_html(tmp_path / "report.html")
    page = path.read_text()
    parser = _Cells()
    parser.feed(page)
    assert "script" not in parser.tags and "img" not in parser.tags and "b" not in parser.tags
    assert "i" not in parser.tags
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img&gt; test" in page
    assert "overflow-wrap:anywhere" in page and "Per transformation" in page and "Worst examples" in page


def test_a_rerun_from_the_disk_cache_makes_no_model_call_and_gives_identical_results(tmp_path):
    # The five-test suite saves, reloads, reruns on a fresh VADER object from the disk cache: 0 model calls.
    suite = five_tests()
    first = suite.run(models.build(models.resolve("vader")))
    assert first.model_calls and first.model_calls > 0
    loaded = Suite.load(suite.save(tmp_path / "suite.json"))
    fresh = models.build(models.resolve("vader"))
    again = loaded.run(fresh)
    assert fresh.calls == 0 and again.model_calls == 0
    saved = SuiteResult.load(first.save(tmp_path / "first.json"))
    pd.testing.assert_frame_equal(saved.summary(), again.summary())
    for x, y in zip(saved.tests, again.tests):
        pd.testing.assert_frame_equal(x.per_item, y.per_item)
        pd.testing.assert_frame_equal(x.examples, y.examples)


def test_add_checks_names_thresholds_and_inputs():
    suite = Suite("s").add("a", MFT("positive"), ["x"])
    with pytest.raises(ValueError, match="already has a test named 'a'"):
        suite.add("a", MFT("positive"), ["y"])
    with pytest.raises(ValueError, match="threshold"):
        suite.add("b", MFT("positive"), ["y"], threshold=5)
    with pytest.raises(ValueError, match="'text' column"):
        suite.add("c", MFT("positive"), pd.DataFrame({"sentence": ["y"]}))
    with pytest.raises(ValueError, match="list of texts"):  # MtlibInputError, a ValueError
        suite.add("d", MFT("positive"), "one string")
    result = suite.run(lambda texts: np.full(len(texts), 0.7))  # a scoring function works too
    assert result["a"].rate == 0.0 and result["a"].n_items == 1
