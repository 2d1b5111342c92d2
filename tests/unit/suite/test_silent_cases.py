"""Issue 37's and 36's silent and unclear cases of the suite, one test each: now a clear error or an honest result.

Before (the same calls on the previous code): an MFT passed a model answering
only NaN (rate 0.0) or infinity; ``None`` and bytes were scored as ``"None"``
and ``"b'...'"``; a test without inputs ran and showed only ``gate bound nan``;
``compare`` of two RelationResults raised ``AttributeError``; a model answering
label strings raised ``could not convert string to float: 'pos'``; a tampered
saved suite raised ``TypeError: string indices must be integers``; a template
of 10^9 rows ran the process out of memory.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from mtlib.relations import MtlibInputError, PairwiseSystematicity, SingleInput
from mtlib.relations import transformations as T
from mtlib.suite import MFT, ScoreMemo, Suite, SuiteResult, Template, TooFewInputs, compare, generate, inputs_needed

TEXTS = [f"The film number {i} was great." for i in range(80)]


def suite_of(*tests) -> Suite:
    suite = Suite("s")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TooFewInputs)
        for name, rel, inputs in tests:
            suite.add(name, rel, inputs, threshold=0.2)
    return suite


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
def test_an_mft_refuses_non_finite_scores_with_the_test_the_count_and_the_first_text(bad):
    suite = suite_of(("praise", MFT("positive"), TEXTS))

    def broken(texts):
        out = np.full(len(texts), 0.9)
        out[[i for i, t in enumerate(texts) if "number 7 " in t or "number 9 " in t]] = bad
        return out

    with pytest.raises(
        MtlibInputError, match=r"test 'praise'.*NaN or infinite values for 2 of 80 texts; the first: 'The film number 7"
    ):
        suite.run(broken)


def test_a_relation_test_refuses_nan_scores_too_also_from_a_classifier():
    class Nan:
        name, labels = "nan-model", ["negative", "positive"]

        def classify(self, texts):
            return np.full((len(texts), 2), np.nan)

    suite = suite_of(("typos", SingleInput("typos", "equivalence", T.Typos()), TEXTS))
    with pytest.raises(MtlibInputError, match=r"test 'typos': model 'nan-model'.*for 160 of 160 texts"):
        suite.run(Nan())


@pytest.mark.parametrize("bad", [None, b"bytes", 3, 2.5], ids=["None", "bytes", "int", "float"])
def test_non_texts_among_the_inputs_are_refused_at_add(bad):
    with pytest.raises(MtlibInputError, match=r"inputs\[1\] must be a text \(str\)"):
        Suite("s").add("t", MFT("positive"), ["fine", bad])
    with pytest.raises(MtlibInputError, match=r"inputs\['text'\]\[1\] must be a text"):
        Suite("s").add("t", MFT("positive"), pd.DataFrame({"text": ["fine", bad]}))


@pytest.mark.parametrize(
    "rel, inputs, needs",
    [
        (MFT("positive"), [], "at least 1 input text, got 0"),
        (SingleInput("c", "equivalence", T.Casing()), [], "at least 1 input text, got 0"),
        (PairwiseSystematicity("p", T.Casing()), ["only one"], "no pairs to compare.*at least 2 input texts, got 1"),
        (MFT("positive"), Template("It was {w}.", {"w": ["good"]}, sample=0), "got 0"),
    ],
)
def test_a_test_with_too_few_inputs_is_refused_at_add_never_a_nan_rate(rel, inputs, needs):
    with pytest.raises(MtlibInputError, match=needs):
        Suite("s").add("t", rel, inputs)


def test_a_test_that_counts_nothing_fails_and_says_why():
    suite = suite_of(("names", SingleInput("names", "equivalence", T.NameSwap()), TEXTS))  # no name in any input
    result = suite.run(lambda texts: np.full(len(texts), 0.9))
    t = result["names"]
    assert t.cases == 0 and not t.passed and "applied to none of the 80 input(s)" in t.note
    assert result.summary().loc["names", "note"] == t.note
    with pytest.raises(AssertionError, match="names"):
        result.assert_passes()


def test_compare_takes_two_relation_results_and_refuses_what_it_cannot_pair():
    rel = PairwiseSystematicity("bang", T.Punctuation("exclaim"))
    a = rel.evaluate(TEXTS[:30], lambda t: np.array([len(x) + ("!" in x) for x in t], float), n_boot=50)
    b = rel.evaluate(TEXTS[:30], lambda t: np.array([len(x) - ("!" in x) * 5 for x in t], float), n_boot=50)
    table = compare(a, b, n_boot=100)
    assert list(table.index) == ["bang"] and table.loc["bang", "rate_b"] == b.rate
    assert table.loc["bang", "passed_a"] is None  # a RelationResult has no threshold
    other = rel.evaluate(TEXTS[30:60], lambda t: np.array([float(x.split()[3]) for x in t]), n_boot=50)
    with pytest.raises(ValueError, match="different inputs"):
        compare(a, other)
    with pytest.raises(MtlibInputError, match="result_b must be a SuiteResult .* a RelationResult"):
        compare(a, "not a result")
    assert list(compare({"x": a}, {"x": b}, n_boot=0).index) == ["x"]


@pytest.mark.parametrize(
    "answer, says",
    [
        (lambda t: ["pos"] * len(t), "must return numbers .* such as 'pos'"),
        (lambda t: [None] * len(t), "must return numbers"),
        (lambda t: np.zeros(len(t) + 1), r"returned shape \(81,\) for 80 texts"),
        (lambda t: np.zeros((len(t), 2)), r"returned shape \(80, 2\) for 80 texts"),
    ],
)
def test_a_model_answering_something_else_than_scores_is_refused_clearly(answer, says):
    with pytest.raises(MtlibInputError, match=says):
        suite_of(("praise", MFT("positive"), TEXTS)).run(answer)


@pytest.mark.parametrize(
    "tamper, says",
    [
        (lambda d: d["tests"].__setitem__(0, "oops"), r"tests\[0\]: expected a JSON object, got str"),
        (lambda d: d["tests"][0].pop("threshold"), r"tests\[0\]\.threshold: missing"),
        (lambda d: d["tests"][0]["inputs"].__setitem__(2, 5), r"tests\[0\]\.inputs\[2\]: expected a text"),
        (lambda d: d["tests"][0]["relation"].__setitem__("family", "Magic"), "unknown relation family 'Magic'"),
        (
            lambda d: d["tests"][1]["relation"]["transforms"][0].__setitem__("type", "Nope"),
            "type 'Nope' is not a registered transformation; expected one of Casing",
        ),
        (
            lambda d: d["tests"][1]["relation"]["transforms"][0]["params"].__setitem__("n", "2"),
            "Typos: n must be an integer",
        ),
        (lambda d: d["tests"][0].__setitem__("threshold", 7), r"threshold must be a number in \[0, 1\]"),
        (lambda d: d.__setitem__("tests", {}), r"suite\.tests: expected list"),
    ],
)
def test_a_tampered_saved_suite_is_refused_naming_the_file_and_the_key(tmp_path, tamper, says):
    path = suite_of(
        ("praise", MFT("positive"), TEXTS), ("typos", SingleInput("t", "equivalence", T.Typos()), TEXTS)
    ).save(tmp_path / "s.json")
    data = json.loads(path.read_text())
    tamper(data)
    path.write_text(json.dumps(data))
    with pytest.raises(MtlibInputError, match=says) as err:
        Suite.load(path)
    assert str(path) in str(err.value)


def test_a_file_that_is_not_json_or_not_a_suite_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "mtlib.suite/1", "name": ')
    with pytest.raises(MtlibInputError, match="not valid JSON .line 1"):
        Suite.load(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(MtlibInputError, match="is not a saved suite"):
        Suite.load(bad)
    with pytest.raises(MtlibInputError, match="cannot read the suite"):
        Suite.load(tmp_path / "missing.json")


def test_a_template_product_of_10_to_the_9_rows_is_refused_with_the_number_and_sampled_lazily():
    thousand = [str(i) for i in range(1000)]
    big = Template("{a} {b} {c}", {"a": thousand, "b": thousand, "c": thousand})
    assert big.size() == 10**9
    with pytest.raises(MtlibInputError, match=r"makes 1,000,000,000 rows \(1,000 x 1,000 x 1,000 fillers\).*sample="):
        big.frame()
    sample = generate.template("{a} {b} {c}", a=thousand, b=thousand, c=thousand, sample=5, seed=0)
    assert len(sample) == 5 and sample["text"].is_unique
    with pytest.raises(MtlibInputError, match="more than max_rows"):
        generate.template("{a} {b}", a=thousand, b=thousand, max_rows=10)


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"pattern": 5, "fillers": {}}, "pattern must be a text"),
        ({"pattern": "{a}", "fillers": {"a": [1, 2]}}, "a filler must be a text"),
        ({"pattern": "{a}", "fillers": {"a": []}}, "a must be a non-empty list"),
        ({"pattern": "{a}", "fillers": {"a": ["x"]}, "sample": -1}, "sample must be an integer >= 0"),
        ({"pattern": "{a}", "fillers": {"a": ["x"]}, "seed": "0"}, "seed must be an integer"),
        ({"pattern": "{a", "fillers": {"a": ["x"]}}, "literal brace"),
    ],
)
def test_a_template_built_wrong_says_which_argument(kwargs, says):
    with pytest.raises(MtlibInputError, match=says):
        Template(**kwargs).frame()


def test_too_few_inputs_for_the_threshold_warns_with_the_number_needed():
    assert inputs_needed(0.05) == 73 and inputs_needed(0.10) == 35 and inputs_needed(0.0) is None
    with pytest.warns(TooFewInputs, match=r"40 inputs cannot pass threshold 0.05: .* 0\.0876; at least 73"):
        Suite("s").add("t", MFT("positive"), TEXTS[:40], threshold=0.05)
    with pytest.warns(TooFewInputs, match="no number of inputs can reach a threshold of 0"):
        Suite("s").add("t", MFT("positive"), TEXTS, threshold=0.0)
    assert inputs_needed(2.2e-309) is None  # 3.84 / 2.2e-309 overflows: more inputs than any suite holds
    with pytest.warns(TooFewInputs, match=r"more than 2\*\*53 inputs"):
        Suite("s").add("t", MFT("positive"), TEXTS, threshold=2.2e-309)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Suite("s").add("t", MFT("positive"), TEXTS[:73], threshold=0.05)  # enough: no warning
    # the bound the warning quotes is the one a perfect model gets
    perfect = Suite("s")
    with pytest.warns(TooFewInputs):
        perfect.add("t", MFT("positive"), TEXTS[:40], threshold=0.05)
    assert round(perfect.run(lambda t: np.full(len(t), 0.9))["t"].gate_bound, 4) == 0.0876


def test_run_names_the_model_and_a_saved_result_keeps_rule_and_note(tmp_path):
    suite = suite_of(("praise", MFT("positive", ties="first"), TEXTS))
    result = suite.run(lambda t: np.full(len(t), 0.9), name="constant 0.9")
    assert result.model == "constant 0.9" and result["praise"].rule == "argmax (a tie: the first class)"
    again = SuiteResult.load(result.save(tmp_path / "r.json"))
    assert again.summary().equals(result.summary())
    with pytest.raises(MtlibInputError, match="name must be a non-empty text"):
        suite.run(lambda t: np.ones(len(t)), name="")


# -- issue 43: the last mile ------------------------------------------------------------------------------------------
# Before (main at de6e801): empty and blank texts were accepted (an MFT counted them, an invariance test skipped
# them), booleans were read as scores, a score of 1.7 was read as a probability, an MFT label the model lacked was
# refused only after the model had run, a function returning (n, 2) was refused with "expected a 1-D array", a
# hanging model hung the run, and a test failing only for too few inputs did not say so once built.


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"], ids=["empty", "spaces", "whitespace"])
def test_empty_and_blank_texts_are_refused_where_inputs_enter(blank):
    with pytest.raises(MtlibInputError, match=r"Suite.add\('t'\): inputs\[1\] must be a non-blank text"):
        Suite("s").add("t", MFT("positive"), ["fine", blank])
    with pytest.raises(MtlibInputError, match=r"inputs\['text'\]\[0\] must be a non-blank text"):
        Suite("s").add("t", SingleInput("typos", "equivalence", T.Typos()), pd.DataFrame({"text": [blank, "ok"]}))
    with pytest.raises(MtlibInputError, match="makes a blank text"):  # refused at add, the rows not written out
        Suite("s").add("t", MFT("positive"), Template("{a}{b}", {"a": [blank, "x"], "b": ["", "y"]}))
    template = Template("{a} film", {"a": [blank]})  # the pattern's own words make every row non-blank
    assert template.frame()["text"].str.strip().tolist() == ["film"]


def test_a_blank_text_is_refused_at_the_model_entry_too():
    memo = ScoreMemo(lambda t: np.full(len(t), 0.9))
    with pytest.raises(MtlibInputError, match=r"model <lambda>: texts\[1\] must be a non-blank text"):
        memo.score(["fine", " "])
    assert memo.batches == 0  # the model never saw it


def test_booleans_are_refused_not_read_as_scores():
    suite = suite_of(("praise", MFT("positive"), TEXTS))
    with pytest.raises(MtlibInputError, match=r"test 'praise': .*returned booleans \(True/False\) for 80 texts"):
        suite.run(lambda t: [True] * len(t))
    with pytest.raises(MtlibInputError, match="booleans"):
        suite_of(("t", SingleInput("t", "order", T.Casing()), TEXTS)).run(lambda t: np.ones(len(t), bool))


@pytest.mark.parametrize("value", [1.7, -0.3, -3.2], ids=["above-1", "negative", "logit"])
def test_a_score_read_as_a_probability_must_lie_in_0_1(value):
    suite = suite_of(("praise", MFT("positive"), TEXTS))
    with pytest.raises(
        MtlibInputError, match=rf"must lie in \[0, 1\]; the scores of 80 of 80 texts lie outside, the first {value:g}"
    ):
        suite.run(lambda t: np.full(len(t), value))
    # an order relation reads any score: no probability there
    order = suite_of(("order", SingleInput("o", "order", T.Punctuation("exclaim")), TEXTS))
    assert order.run(lambda t: np.full(len(t), value) + np.array(["!" in x for x in t]))["order"].cases == 80


def test_an_mft_label_the_model_lacks_is_refused_at_add_when_known_else_before_any_model_call():
    with pytest.raises(MtlibInputError, match=r"Suite.add\('t'\): the MFT expects label 'neutral', which is not"):
        Suite("s", labels=["negative", "positive"]).add("t", MFT("neutral"), TEXTS)
    labelled = Template("It was {w}.", {"w": ["good", "bad"]}, label={"w": {"good": "pos", "bad": "negative"}})
    with pytest.raises(MtlibInputError, match="expects label 'pos'"):
        Suite("s", labels=["negative", "positive"]).add("t", MFT(), labelled)
    calls = []

    def model(texts):
        calls.append(len(texts))
        return np.full(len(texts), 0.9)

    suite = suite_of(("praise", MFT("positive"), TEXTS), ("neutral", MFT("neutral"), TEXTS))
    with pytest.raises(MtlibInputError, match=r"test 'neutral': the MFT expects label 'neutral', .* of model 'model'"):
        suite.run(model)
    assert calls == []  # refused before the model ran
    assert Suite.load(Suite("s", labels=["a", "b"]).save(tmp_json := TEXTS_DIR / "labels.json")).labels == ["a", "b"]
    tmp_json.unlink()


TEXTS_DIR = __import__("pathlib").Path(__import__("tempfile").gettempdir())


def test_a_function_returning_class_probabilities_needs_their_labels():
    two = lambda t: np.tile([0.2, 0.8], (len(t), 1))  # noqa: E731
    with pytest.raises(MtlibInputError, match=r"shape \(80, 2\).*give their labels: suite.run\(model, labels="):
        suite_of(("praise", MFT("positive"), TEXTS)).run(two)
    suite = suite_of(("praise", MFT("pos"), TEXTS))
    with pytest.raises(MtlibInputError, match=r"expects label 'pos'.*a function's score is read as .*give labels="):
        suite.run(lambda t: np.full(len(t), 0.9))
    assert suite.run(two, labels=["neg", "pos"])["praise"].violations == 0
    assert Suite("s", labels=["neg", "pos"]).add("p", MFT("pos"), TEXTS).run(two)["p"].violations == 0
    with pytest.raises(MtlibInputError, match="labels= names the columns of a plain function only"):
        suite.run(_Classifier(), labels=["neg", "pos"])
    with pytest.raises(MtlibInputError, match="labels must be a list of two or more class names"):
        suite.run(two, labels="pos")
    # a 1-D score with two labels is the second label's probability
    assert suite.run(lambda t: np.full(len(t), 0.9), labels=["neg", "pos"])["praise"].violations == 0
    with pytest.raises(MtlibInputError, match="read as the probability of 'pos' and must lie in \\[0, 1\\]; got 1.9"):
        suite.run(lambda t: np.full(len(t), 1.9), labels=["neg", "pos"])


class _Classifier:
    name, labels = "clf", ["negative", "positive"]

    def classify(self, texts):
        return np.tile([0.2, 0.8], (len(texts), 1))


def test_a_model_call_past_the_timeout_is_abandoned_and_named():
    import threading
    import time

    release = threading.Event()

    def hangs(texts):
        release.wait(30)
        return np.full(len(texts), 0.9)

    suite = suite_of(("quick", MFT("positive"), TEXTS[:5]), ("slow", MFT("positive"), TEXTS))
    start = time.monotonic()
    with pytest.raises(TimeoutError, match=r"test 'quick': model 'hangs' .* within the time limit of 0.3 s") as err:
        suite.run(hangs, timeout=0.3)
    assert time.monotonic() - start < 5
    assert err.value.suite_result.meta["stopped_at"] == "quick" and err.value.suite_result.tests == []
    release.set()
    assert suite.run(lambda t: np.full(len(t), 0.9), timeout=5).passed is False  # "quick": too few inputs
    for bad in (0, -1, float("nan"), "5", True):
        with pytest.raises(MtlibInputError, match="timeout must be a"):
            suite.run(hangs, timeout=bad)


def test_a_test_failing_for_too_few_inputs_says_so_in_its_result_and_again_at_load(tmp_path):
    suite = suite_of(("few", MFT("positive"), TEXTS[:10]))
    suite.tests[0].threshold = 0.05
    result = suite.run(lambda t: np.full(len(t), 0.9))
    t = result["few"]
    assert t.violations == 0 and not t.passed
    assert t.warning == "too few inputs: needs at least 73 inputs for the gate at 0.05; has 10"
    assert result.summary().loc["few", "warning"] == t.warning
    with pytest.raises(AssertionError, match="too few inputs: needs at least 73"):
        result.assert_passes()
    assert SuiteResult.load(result.save(tmp_path / "r.json"))["few"].warning == t.warning
    path = suite.save(tmp_path / "few.json")
    with pytest.warns(TooFewInputs, match=r"few.json: test 'few': 10 inputs cannot pass threshold 0.05"):
        Suite.load(path)
    enough = suite_of(("many", MFT("positive"), TEXTS)).run(lambda t: np.full(len(t), 0.1))
    assert enough["many"].warning == ""  # it fails on its violations, not for want of inputs
