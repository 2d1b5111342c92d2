"""Templates and named lexicons; minimum-functionality tests read like relation results."""

from __future__ import annotations

import numpy as np
import pytest

from mtlib.relations import RelationResult
from mtlib.suite import LEXICONS, MFT, Template, generate


def test_template_writes_every_combination_in_slot_order():
    frame = generate.template("The {adj} film was {verb}.", adj=["good", "bad"], verb=["long", "short", "new"])
    assert list(frame.columns) == ["text", "adj", "verb"] and len(frame) == 6
    assert frame["text"].tolist()[:3] == [
        "The good film was long.",
        "The good film was short.",
        "The good film was new.",
    ]
    assert (frame["text"] == frame.apply(lambda r: f"The {r.adj} film was {r.verb}.", axis=1)).all()


def test_a_sample_is_seeded_distinct_and_in_product_order():
    full = generate.template("{a} {b}", a=list("abcdef"), b=list("123456"))
    s1 = generate.template("{a} {b}", a=list("abcdef"), b=list("123456"), sample=10, seed=3)
    s2 = generate.template("{a} {b}", a=list("abcdef"), b=list("123456"), sample=10, seed=3)
    s3 = generate.template("{a} {b}", a=list("abcdef"), b=list("123456"), sample=10, seed=4)
    assert s1.equals(s2) and not s1.equals(s3) and s1["text"].is_unique
    assert set(s1["text"]) <= set(full["text"])
    order = {t: i for i, t in enumerate(full["text"])}
    assert [order[t] for t in s1["text"]] == sorted(order[t] for t in s1["text"])
    with pytest.raises(ValueError, match="37"):
        generate.template("{a} {b}", a=list("abcdef"), b=list("123456"), sample=37)


def test_slots_and_fillers_must_match():
    with pytest.raises(ValueError, match=r"slot\(s\) \['verb'\] have no fillers"):
        generate.template("The {adj} film was {verb}.", adj=["good"])
    with pytest.raises(ValueError, match=r"fillers for \['noun'\], which the pattern has no slot for"):
        generate.template("The {adj} film.", adj=["good"], noun=["x"])
    with pytest.raises(ValueError, match="plain names"):
        generate.template("The {0} film.")


def test_named_lexicons_come_from_the_bundled_word_lists():
    assert {"montague-subsective", "montague-nouns", "names", "manino-table1"} <= set(LEXICONS)
    sub = generate.lexicon("montague-subsective")
    assert len(sub) == len(set(sub)) > 5 and set(generate.lexicon("montague-intersective")) < set(sub)
    assert not set(sub) & set(generate.lexicon("montague-non-subsective"))
    assert generate.lexicon("manino-table1")[3] == "Thank you."
    frame = generate.template("A {adj} {noun}.", adj="montague-privative", noun="montague-nouns")
    assert len(frame) == len(generate.lexicon("montague-privative")) * len(generate.lexicon("montague-nouns"))
    with pytest.raises(ValueError, match="known"):  # MtlibInputError, a ValueError
        generate.lexicon("no-such-list")


def test_template_round_trips_through_json():
    t = Template("The {adj} film.", {"adj": "montague-ambiguous"}, sample=2, seed=1)
    assert Template.from_json(t.to_json()) == t and t.frame().equals(Template.from_json(t.to_json()).frame())


def test_mft_counts_inputs_whose_expected_label_is_not_the_strict_argmax():
    probs = np.array([[0.1, 0.9], [0.8, 0.2], [0.5, 0.5], [0.3, 0.7]])
    res = MFT("positive", name="praise").check(probs, labels=["negative", "positive"], texts=list("abcd"))
    assert isinstance(res, RelationResult)
    assert (res.violations, res.cases, res.rate) == (2, 4, 0.5)  # a tie is not a pass
    assert res.ci_method.startswith("Wilson") and res.ci_low < 0.5 < res.ci_high
    assert res.examples()["src_text"].tolist() == ["b", "c"]  # worst first
    assert not res.passes(0.3) and res.interval(0.5)[1] < res.ci_high
    three = MFT(["a", "b"], name="per item").check(np.array([[0.2, 0.5, 0.3], [0.1, 0.2, 0.7]]), labels=["a", "b", "c"])
    assert three.violations == 2
    assert MFT("POSITIVE").check(np.array([0.9, 0.6])).violations == 0  # a 1-D score is P(positive)
    with pytest.raises(KeyError, match="labels"):
        MFT("neutral").check(np.array([[0.5, 0.5]]), labels=["negative", "positive"])
    with pytest.raises(ValueError, match="3 expected labels for 2 inputs"):
        MFT(["a", "b", "c"]).check(np.zeros((2, 3)), labels=["a", "b", "c"])
