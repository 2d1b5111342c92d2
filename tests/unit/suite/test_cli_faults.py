"""``python -m mtlib.suite``: one exit code per sort of fault, whatever wraps the model; JUnit when CI cancels."""

from __future__ import annotations

import signal
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

from mtlib.relations import SingleInput
from mtlib.relations import transformations as T
from mtlib.suite import MFT, Suite, Template
from mtlib.suite.cli import main

GOOD, BAD = ["great", "wonderful", "excellent", "superb"], ["awful", "terrible", "boring", "dreadful"]
MODELS = """
import os, signal, time
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

GOOD, BAD = {good!r}, {bad!r}
train = [f"{{s}} {{w}}." for w in GOOD + BAD for s in ("It was", "What a")]
base = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(train, [w in GOOD for w in GOOD + BAD for _ in "ab"])


def one_nan(texts):
    return [float("nan")] + [0.7] * (len(texts) - 1)


def one_none(texts):
    return [None] + [0.7] * (len(texts) - 1)


def short(texts):
    return [0.7] * (len(texts) - 1)


class Proba:
    classes_ = np.array(["negative", "positive"])

    def __init__(self, fault):
        self.fault = fault

    def predict_proba(self, texts):
        p = base.predict_proba(texts).astype(object)
        p[0] = {{"nan": [np.nan, 0.5], "none": [None, None], "short": p[0]}}[self.fault]
        return p[:-1] if self.fault == "short" else p


p_nan, p_none, p_short = Proba("nan"), Proba("none"), Proba("short")


def cancel(texts, signum=signal.SIGTERM):
    os.kill(os.getpid(), signum)
    time.sleep(5)


def interrupt(texts):
    cancel(texts, signal.SIGINT)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("faults")
    table = {"adj": {**dict.fromkeys(GOOD, "positive"), **dict.fromkeys(BAD, "negative")}}
    template = Template(
        "{name} said the {noun} was {adj}.", {"name": "names", "noun": ["film"], "adj": GOOD + BAD}, label=table
    )
    for labels, stem in ((None, "plain"), (["negative", "positive"], "labels")):
        suite = Suite("demo", n_boot=20, labels=labels)
        suite.add("names", SingleInput("names", "equivalence", T.NameSwap()), template, threshold=0.1)
        suite.add("mft", MFT(), template, threshold=0.2)
        suite.save(root / f"{stem}.json")
    (root / "models.py").write_text(MODELS.format(good=GOOD, bad=BAD))
    return root


@pytest.mark.parametrize("suite", ["plain", "labels"])
@pytest.mark.parametrize(
    ("model", "words"),
    [
        ("one_nan", "returned NaN or infinite values for 1 of"),
        ("one_none", "got None for 1 of"),
        ("short", "returned shape"),
        ("p_nan", "gave 1 non-finite value"),
        ("p_none", "gave 2 non-finite value"),
        ("p_short", "model 'Proba': its class probabilities have shape"),
    ],
)
def test_bad_output_exits_2_whatever_wraps_the_model(project, suite, model, words, capsys):
    junit = project / f"{suite}-{model}.xml"
    assert (
        main(["run", str(project / f"{suite}.json"), "--model", f"{project}/models.py:{model}", "--junit", str(junit)])
        == 2
    )
    err = capsys.readouterr().err
    assert "Traceback" not in err and "test 'names'" in err and words in err
    assert "label names" not in err  # the hint for a classifier answering names is not given for a None
    (case,) = [c for c in ET.parse(junit).getroot().iter("testcase") if c.find("error") is not None]
    assert words in case.find("error").get("message")


def test_a_logit_with_labels_is_refused_with_its_file_and_line(project, capsys):
    texts = project / "texts.csv"
    assert main(["texts", str(project / "labels.json"), "-o", str(texts)]) == 0
    frame = pd.read_csv(texts).assign(score=0.6)
    frame.loc[3, "score"] = 3.2
    frame.to_csv(project / "pred.csv", index=False)
    assert main(["score", str(project / "labels.json"), str(project / "pred.csv")]) == 2
    assert "got 3.2 for" in (err := capsys.readouterr().err) and "pred.csv, line 5" in err


@pytest.mark.parametrize(("model", "code", "name"), [("cancel", 143, "SIGTERM"), ("interrupt", 130, "SIGINT")])
def test_a_cancelled_run_writes_its_junit_with_the_reason(project, model, code, name):
    junit = project / f"{model}.xml"
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    argv = ["run", str(project / "plain.json"), "--model", f"{project}/models.py:{model}", "--junit", str(junit)]
    assert main(argv) == code
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before  # handlers given back
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert cases[0].get("name") == "names" and name in cases[0].find("error").get("message")
    assert f"Cancelled: the run was cancelled by {name}" in cases[1].find("skipped").get("message")


def test_a_refused_command_line_gives_its_reason_in_junit(project):
    junit = project / "usage.xml"
    with pytest.raises(SystemExit):
        main(["run", str(project / "plain.json"), "--timeout", "-4", "--model", "x", "--junit", str(junit)])
    message = ET.parse(junit).getroot().find(".//error").get("message")
    assert "argument --timeout: expected a number of seconds > 0, got '-4'" in message


def test_help_says_how_the_gate_reads_the_interval(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "top of the 95% interval" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    "make", [lambda: T.Typos("swap", seed=-1), lambda: T.NameSwap(seed=-1), lambda: T.NumberSwap(seed=2**32)]
)
def test_transformation_seeds_follow_the_seed_rule(make):
    with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 2\*\*32 - 1\]"):
        make()


def test_a_suite_file_with_a_negative_seed_is_refused(project, capsys):
    path = project / "neg.json"
    path.write_text((project / "plain.json").read_text().replace('"seed": 0', '"seed": -5'))
    assert main(["run", str(path), "--model", f"{project}/models.py:short"]) == 2
    assert "seed must be an integer in [0, 2**32 - 1], got int -5" in capsys.readouterr().err


@pytest.mark.parametrize("digits", [20, 5000])
def test_number_swap_changes_huge_numbers(digits):
    text = f"It cost {'7' * digits} coins."
    out = T.NumberSwap()(text)
    assert out != text and len(out) == len(text)
