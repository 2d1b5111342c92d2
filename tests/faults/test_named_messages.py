"""The last raw or vague errors of the hostile harness (issue 55): each names the parameter or file, what was
given and what was expected. One test per message."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib import models
from mtlib import relations as R
from mtlib.models.inference.numerics import NonFiniteOutputError, check_finite
from mtlib.relations.pairwise import PairwiseCompositionality
from mtlib.suite.generate import template
from mtlib.suite.serialize import transformation_from_json
from mtlib.utils.inputs import MtlibInputError


def _result():
    return R.SingleInput("s", "order").check(np.zeros(20), np.r_[np.full(18, 1.0), np.full(2, -1.0)])


def test_to_html_on_a_folder_names_the_parameter_and_the_folder(tmp_path):
    # before: IsADirectoryError: [Errno 21] Is a directory: '<folder>'
    with pytest.raises(
        MtlibInputError, match=r"RelationResult.to_html: path '.*' is a folder; expected a file path"
    ) as err:
        _result().to_html(tmp_path)
    assert err.value.argument == "path" and str(tmp_path / "cases.html") in str(err.value)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(MtlibInputError, match=r"'.*a-file' is a file, not a folder"):
        _result().to_html(blocker / "cases.html")
    assert _result().to_html(tmp_path / "new" / "cases.html").is_file()  # a missing parent folder is made


def test_a_suite_report_on_a_folder_names_the_parameter(tmp_path):
    from mtlib.suite import Suite
    from mtlib.suite.mft import MFT

    class Constant:
        name, labels = "constant", ["negative", "positive"]

        def classify(self, texts):
            return np.tile([0.2, 0.8], (len(texts), 1))

    texts = ["one text", "another", "a third", "a fourth"]
    result = Suite("s").add("t", MFT("positive"), texts, threshold=0.5).run(models.wrap(Constant()))
    with pytest.raises(MtlibInputError, match=r"SuiteResult.to_html: path '.*' is a folder; expected a file path"):
        result.to_html(tmp_path)


def test_a_missing_direction_names_the_parameter_its_values_and_the_group():
    # before: no direction given for groups ['b']
    check = PairwiseCompositionality("p").check
    src, groups = np.array([0.1, 0.2, 0.3, 0.4]), ["a", "a", "b", "b"]
    with pytest.raises(MtlibInputError, match=r"direction has no entry for group\(s\) \['b'\] \(it gives \['a'\]\); "):
        check(src, src, groups, {"a": "same"})
    with pytest.raises(MtlibInputError, match=r"expected direction=\{group: 'same' or 'opposite'\}.*'b': 'same'"):
        check(src, src, groups, {"a": "same"})
    with pytest.raises(MtlibInputError, match=r"direction gives \{'b': 'up'\}; expected 'same' .* or 'opposite'"):
        check(src, src, groups, {"a": "same", "b": "up"})


def test_a_slot_without_fillers_says_how_to_give_them():
    # before: template 'The {adj} {noun}.': slots without fillers ['adj'], fillers for no slot []
    with pytest.raises(
        MtlibInputError, match=r"slot\(s\) \['adj'\] have no fillers \(fillers given for \['noun'\]\)"
    ) as e:
        template("The {adj} {noun}.", noun=["film"])
    assert "template('The {adj} {noun}.', ..., adj=[...])" in str(e.value) and "montague-adjectives" in str(e.value)
    assert e.value.argument == "fillers"
    with pytest.raises(MtlibInputError, match=r"fillers for \['verb'\], which the pattern has no slot for"):
        template("The {noun}.", noun=["film"], verb=["was"])


@pytest.mark.parametrize(
    ("what", "expected"),
    [
        ("class probabilities", "finite probabilities in [0, 1]"),
        ("logits", "finite scores (logits)"),
        ("embeddings", "finite vectors"),
        ("something else", "finite numbers"),
    ],
)
def test_a_non_finite_output_says_what_was_expected(what, expected):
    # before: m gave 1 non-finite value(s) in its class probabilities, in 1 of 2 input(s); the first is 'b'
    with pytest.raises(NonFiniteOutputError, match=r"the first is 'b'; expected (.*)") as err:
        check_finite(np.array([[0.5, 0.5], [np.nan, 1.0]]), "m", ["a", "b"], what=what)
    assert f"expected {expected}" in str(err.value)


def test_a_wrapped_classifier_giving_nan_says_probabilities_in_0_1_were_expected():
    class NanClassifier:
        classes_ = np.array(["negative", "positive"])

        def predict_proba(self, texts):
            return np.array([[np.nan, 1.0] for _ in texts])

    with pytest.raises(NonFiniteOutputError, match=r"nanny gave .*expected finite probabilities in \[0, 1\]"):
        models.wrap(NanClassifier(), name="nanny").classify(["a text"])


def test_an_unregistered_transformation_lists_the_registered_names():
    # before: transform: no transformation registered as 'os.system'; register it with mtlib.suite.register(...)
    with pytest.raises(MtlibInputError, match=r"transform: type 'os.system' is not a registered transformation; ") as e:
        transformation_from_json({"type": "os.system"})
    for name in ("Typos", "NameSwap", "NumberSwap", "Synonyms", "Punctuation", "Contractions", "Composed"):
        assert name in str(e.value)
    assert "mtlib.suite.register('os.system', ...)" in str(e.value)
