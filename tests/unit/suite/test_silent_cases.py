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
from mtlib.suite import MFT, Suite, SuiteResult, Template, TooFewInputs, compare, generate, inputs_needed

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
            "no transformation registered as 'Nope'",
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
