"""Transformations: golden outputs on fixed inputs and seeds, NotApplicable, composition."""

from __future__ import annotations

import pytest

from mtlib.relations import transformations as T

X = "The movie was great, but John said it cannot beat the 2 others."


@pytest.mark.parametrize(
    "t,expected",
    [
        (T.Typos("swap"), "The movie was great, but Jonh said it cannot beat the 2 others."),
        (T.Typos("delete"), "The movie was great, but Jon said it cannot beat the 2 others."),
        (T.Typos("mixed", n=3, seed=5), "The move was great, but John sid it cannto beat the 2 others."),
        (T.Contractions("contract"), "The movie was great, but John said it can't beat the 2 others."),
        (T.NameSwap(), "The movie was great, but Michael said it cannot beat the 2 others."),
        (T.NumberSwap(), "The movie was great, but John said it cannot beat the 6 others."),
        (T.Negation(), "The movie was not great, but John said it cannot beat the 2 others."),
        (T.Punctuation("strip"), "The movie was great but John said it cannot beat the 2 others"),
        (T.Punctuation("exclaim"), "The movie was great, but John said it cannot beat the 2 others!"),
        (T.Casing("lower"), "the movie was great, but john said it cannot beat the 2 others."),
        (T.Casing("upper"), "THE MOVIE WAS GREAT, BUT JOHN SAID IT CANNOT BEAT THE 2 OTHERS."),
        (
            T.Synonyms({"movie": "film", "great": ["superb", "excellent"]}),
            "The film was superb, but John said it cannot beat the 2 others.",
        ),
        (T.Concatenation("Thank you.", "start"), "Thank you. " + X),
        (
            T.Negation() >> T.Contractions("contract"),
            "The movie wasn't great, but John said it can't beat the 2 others.",
        ),
    ],
)
def test_golden_outputs(t, expected):
    assert t(X) == expected
    assert t(X) == expected  # deterministic
    assert t.name and t.description


def test_other_golden_cases():
    assert (
        T.Contractions("expand")("I don't think it's bad, and we can't stay. Don't go.")
        == "I do not think it is bad, and we cannot stay. Do not go."
    )
    assert T.Negation()("It does work.") == "It does not work."
    assert T.Negation()("We can win.") == "We cannot win."
    assert T.NumberSwap(seed=1)("Two of 10 stars") == "Five of 18 stars"
    assert T.Concatenation("Anyway.", "End")("Great film.") == "Great film. Anyway."


def test_seeded_per_input_not_per_batch():
    t = T.Typos("mixed", n=2, seed=3)
    texts = [f"Sentence number {i} is rather wonderful." for i in range(20)]
    forward = [t(x) for x in texts]
    backward = [t(x) for x in reversed(texts)][::-1]
    assert forward == backward
    assert (
        T.Typos("mixed", n=2, seed=4)(texts[0]) != forward[0] or T.Typos("mixed", n=2, seed=5)(texts[0]) != forward[0]
    )


@pytest.mark.parametrize(
    "t,x",
    [
        (T.Negation(), "Good."),
        (T.Negation(), "It is not good."),
        (T.Negation(), "It isn't good."),
        (T.Negation(), "Is it good?"),
        (T.NameSwap(), "no names here"),
        (T.Typos(), "a b c"),
        (T.Casing("lower"), "lower"),
        (T.NumberSwap(), "no digits"),
        (T.Punctuation("strip"), "ok"),
        (T.Punctuation("exclaim"), "Wow!"),
        (T.Contractions("expand"), X),
        (T.Synonyms({"cat": "feline"}), X),
        (T.Typos() >> T.Negation(), "Good film."),
    ],
)
def test_not_applicable_is_said_never_silent(t, x):
    with pytest.raises(T.NotApplicable):
        t(x)


def test_apply_marks_skipped_inputs():
    follow, applied = T.apply(T.Negation(), ["It is good.", "Good.", "They were late."])
    assert follow == ["It is not good.", None, "They were not late."]
    assert applied.tolist() == [True, False, True]


def test_expected_relation_and_composition():
    assert T.Negation().expected == "opposite" and T.Typos().expected == "same"
    assert (T.Negation() >> T.Negation()).expected == "same"
    c = T.Typos() >> T.Casing("upper") >> (lambda s: s + "!")
    assert len(c.parts) == 3 and c.name == "typos_swap1>>case_upper>><lambda>"
    assert c("Hello world") == "HLELO WORLD!"


def test_presets_and_bad_settings():
    table = T.manino_table1()
    assert [t.name for t in table] == ["T1", "T2", "T3", "T4", "T5", "T6"]
    assert table[3]("Great.") == "Thank you. Great."
    assert len({t.name for t in T.robustness_suite()}) == 6
    with pytest.raises(ValueError, match=r"position must be one of \['start', 'end'\], got str 'middle'"):
        T.Concatenation("Hi.", "middle")
    with pytest.raises(ValueError, match="typo"):
        T.Typos("insert")
    with pytest.raises(ValueError, match="word list"):
        T.Synonyms({})


def test_typos_old_keyword_kind_still_works_for_one_release_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"Typos\(\): kind= is renamed typo="):
        old = T.Typos(kind="delete", seed=2)
    assert old == T.Typos("delete", seed=2) and old.typo == "delete"
    with pytest.warns(DeprecationWarning, match=r"Typos\.typo"):
        assert old.kind == "delete"
