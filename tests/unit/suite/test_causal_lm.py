"""A suite tests a causal LM by name with a prompt template, through the API and the CLI (tiny Llama built here)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mtlib.relations import SingleInput
from mtlib.relations import transformations as T
from mtlib.relations.errors import MtlibInputError
from mtlib.suite import MFT, Suite, generate
from mtlib.suite.cli import main
from tests.unit.models.tiny_lm import make_tiny_lm

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def lm_dir(tmp_path_factory):
    return make_tiny_lm(tmp_path_factory.mktemp("tiny-lm"))


def small_suite() -> Suite:
    texts = generate.template("it was {adj} film", adj=["good", "bad", "great", "awful", "dull"])
    suite = Suite("lm", n_boot=50)
    suite.add("praise is positive", MFT("positive"), texts, threshold=1.0)
    suite.add("case keeps the label", SingleInput("case", "equivalence", T.Casing("upper")), texts, threshold=1.0)
    return suite


def test_a_suite_runs_a_causal_lm_by_name_with_a_template(lm_dir):
    result = small_suite().run(str(lm_dir), template="sentiment")
    assert result.passed and len(result.tests) == 2
    assert result.model_calls > 0
    from mtlib.suite.memo import ScoreMemo

    memo = ScoreMemo(str(lm_dir), template="sentiment")
    assert memo.labels == ["negative", "positive"] and memo.model.training.settings["calibration"] == "contextual"
    np.testing.assert_allclose(memo.model.classify(["N/A"])[0], [0.5, 0.5], atol=1e-6)


def test_a_template_for_a_model_that_is_not_a_causal_lm_is_refused():
    with pytest.raises(MtlibInputError, match="template='sentiment' is for a causal language model"):
        small_suite().run(lambda texts: np.full(len(texts), 0.5), template="sentiment")


def test_the_cli_runs_a_causal_lm_with_a_template(lm_dir, tmp_path):
    small_suite().save(tmp_path / "suite.json")
    out = tmp_path / "r.json"
    argv = ["run", str(tmp_path / "suite.json"), "--model", str(lm_dir), "--template", "sentiment", "--json", str(out)]
    assert main(argv) == 0
    assert {t["name"] for t in json.loads(out.read_text())["tests"]} == {"praise is positive", "case keeps the label"}


def test_paired_compares_a_causal_lm_s_per_item_results_with_an_encoder_s(lm_dir, tiny_bert_dir, tmp_path, capsys):
    from mtlib.models.factory import classifier
    from mtlib.paired.cli import main as paired

    suite = small_suite()
    lm = suite.run(str(lm_dir), template="sentiment")
    train = (["good film", "great film", "bad film", "awful film"] * 3, ["positive"] * 6 + ["negative"] * 6)
    encoder = classifier(str(tiny_bert_dir), train, heldout_fraction=0)
    enc = suite.run(encoder, name="tiny-bert head")
    lm.save(tmp_path / "lm.json")
    enc.save(tmp_path / "encoder.json")
    out = tmp_path / "paired.json"
    assert (
        paired([str(tmp_path / "encoder.json"), str(tmp_path / "lm.json"), "--n-boot", "200", "--json", str(out)]) == 0
    )
    rows = json.loads(out.read_text())["rows"]
    assert {r["task"] for r in rows} == {"praise is positive", "case keeps the label"}
    assert all(r["n_items"] == 5 for r in rows), rows  # the five source texts, paired item by item
