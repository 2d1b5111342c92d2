"""Every transformation on Cyrillic, Greek, German (ß, umlauts), Chinese (no spaces) and Arabic text: a correct
result, or a refusal (NotApplicable) that says why, naming the script where the transformation has no rule for it.

Before issue 55, ``Typos("swap")`` refused "Этот фильм очень хороший" ("no word of 4+ letters": only ASCII
letters counted), and a listed word or name inside Chinese text was never found (``\\b`` needs a space)."""

from __future__ import annotations

from collections import Counter

import pytest

from mtlib.relations import transformations as T
from mtlib.relations.transformations.base import NotApplicable
from mtlib.relations.transformations.scripts import find_words, letter_clusters, word_pattern

RU = "Этот фильм очень хороший"
EL = "Η ταινία ήταν πολύ καλή"
DE = "Die Straße war schön, überall Grüße"
ZH = "这部电影非常好看"
AR = "هذا الفيلم جيد جدا"
TEXTS = {"cyrillic": RU, "greek": EL, "german": DE, "chinese": ZH, "arabic": AR}


def _one_typo(source: str, out: str, typo: str) -> None:
    """``out`` is ``source`` with two adjacent letters of one word swapped, or one letter deleted, not the first."""
    words = [w for w in letter_clusters(source) if len(w) >= 4]
    assert out != source
    if typo == "swap":
        assert len(out) == len(source) and Counter(out) == Counter(source)
        diff = [i for i, (a, b) in enumerate(zip(source, out, strict=True)) if a != b]
        assert len(diff) == 2 and diff[1] == diff[0] + 1 and source[diff[0]] == out[diff[1]]
    else:
        assert len(out) == len(source) - 1
        at = next(i for i, (a, b) in enumerate(zip(source, out)) if a != b)
        assert source[:at] + source[at + 1 :] == out
        diff = [at]
    # the change is inside a word of 4+ letters, never its first letter
    assert any(w[1][0] <= diff[0] < w[-1][1] for w in words), (source, out)


@pytest.mark.parametrize("typo", ["swap", "delete"])
@pytest.mark.parametrize("script", ["cyrillic", "greek", "german", "arabic"])
def test_typos_treat_every_spaced_scripts_letters_as_letters(script, typo):
    text = TEXTS[script]
    for seed in range(5):
        _one_typo(text, T.Typos(typo, seed=seed)(text), typo)


def test_typos_keep_an_arabic_vowel_sign_with_its_letter_and_refuse_chinese_naming_the_script():
    voweled = "فِيلْمٌ رائِعٌ"  # fatha/kasra/sukun/tanwin are combining marks after their letters
    out = T.Typos("swap", seed=0)(voweled)
    assert Counter(out) == Counter(voweled) and out != voweled
    assert all(not ("\u064b" <= out[i] <= "\u0652") or out[i - 1].isalpha() for i in range(1, len(out)))
    assert not ("\u064b" <= out[0] <= "\u0652")
    for typo in ("swap", "delete", "mixed"):
        with pytest.raises(NotApplicable, match=r"written in Han \(CJK ideographs\), which has no spaces between"):
            T.Typos(typo)(ZH)
    assert T.Typos("swap")("电影 wonderful") != "电影 wonderful"  # a Latin word beside Chinese still gets one


def test_typos_give_the_same_result_as_before_on_ascii_text():
    # the spots of an ASCII text are those of the old [A-Za-z]{4,} rule: a pinned result of that rule
    assert T.Typos("swap", seed=0)("A wonderful film.") == "A wonedrful film."
    assert T.Typos("delete", n=2, seed=1)("Anna thought the film was great.") == "Anna thought the flm was gret."


@pytest.mark.parametrize(
    ("script", "strip", "exclaim"),
    [
        ("cyrillic", "Этот фильм очень хороший", "Этот фильм «очень» хороший!"),
        ("greek", "Η ταινία ήταν καλή", "Η ταινία ήταν καλή!"),
        ("german", "Die Straße schön nicht wahr", "Die Straße — schön, nicht wahr!"),
        ("chinese", "这部电影非常好看", "这部电影，非常好看！"),
        ("arabic", "هذا الفيلم جيد جدا", "هذا الفيلم جيد، جدا!"),
    ],
)
def test_punctuation_knows_each_scripts_marks(script, strip, exclaim):
    source = {
        "cyrillic": "Этот фильм «очень» хороший.",
        "greek": "Η ταινία ήταν καλή;",  # the Greek question mark
        "german": "Die Straße — schön, nicht wahr?",
        "chinese": "这部电影，非常好看。",
        "arabic": "هذا الفيلم جيد، جدا؟",
    }[script]
    assert T.Punctuation("strip")(source) == strip
    assert T.Punctuation("exclaim")(source) == exclaim
    with pytest.raises(NotApplicable, match="no punctuation"):
        T.Punctuation("strip")(strip)


def test_exclaim_turns_a_spanish_question_into_an_exclamation_and_keeps_an_english_semicolon():
    assert T.Punctuation("exclaim")("¿Te gustó? ¿Sí?") == "¿Te gustó? ¡Sí!"
    assert T.Punctuation("exclaim")("这部电影好看") == "这部电影好看！"
    assert T.Punctuation("exclaim")("Good film;") == "Good film;!"
    assert T.Punctuation("strip")("Great, isn’t it?") == "Great isn’t it"  # the typographic apostrophe stays
    with pytest.raises(NotApplicable, match="already ends with '！'"):
        T.Punctuation("exclaim")("好看！")


def test_casing_follows_unicode_case_and_refuses_scripts_without_case():
    assert T.Casing("upper")(RU) == "ЭТОТ ФИЛЬМ ОЧЕНЬ ХОРОШИЙ"
    assert T.Casing("lower")("ΟΔΟΣ") == "οδος"[:-1] + "ς"  # a final sigma
    assert T.Casing("upper")(DE) == "DIE STRASSE WAR SCHÖN, ÜBERALL GRÜSSE"
    assert T.Casing("title")("straße über") == "Straße Über"
    with pytest.raises(NotApplicable, match=r"written in Han \(CJK ideographs\), which has no letter case"):
        T.Casing("upper")(ZH)
    with pytest.raises(NotApplicable, match="written in Arabic, which has no letter case"):
        T.Casing("lower")(AR)
    with pytest.raises(NotApplicable, match="already lower case"):
        T.Casing("lower")("этот фильм")


@pytest.mark.parametrize("script", list(TEXTS))
def test_the_english_contractions_and_negation_refuse_other_languages(script):
    text = TEXTS[script]
    for mode in ("contract", "expand"):
        with pytest.raises(NotApplicable, match=f"nothing to {mode}"):
            T.Contractions(mode)(text)
    says = "no auxiliary" if script == "german" else "Negation is an English rule; .* is written in"
    with pytest.raises(NotApplicable, match=says):
        T.Negation()(text)


def test_a_contraction_table_of_your_own_works_in_any_script():
    assert T.Contractions("contract", {"zu dem": "zum"})("Ich ging ZU DEM Kino.") == "Ich ging ZUM Kino."
    assert T.Contractions("contract", {"в общем": "вообщем"})("В общем, хорошо.") == "Вообщем, хорошо."
    assert T.Contractions("expand")("They don’t care.") == "They do not care."  # a typographic apostrophe
    with pytest.raises(NotApplicable, match="already negated"):
        T.Negation()("They don’t care, it is fine.")


@pytest.mark.parametrize(
    ("names", "text", "expected"),
    [
        (("Анна", "Иван"), "Анна смотрела фильм, Аннушка нет.", "Иван смотрела фильм, Аннушка нет."),
        (("Νίκος", "Μαρία"), "Ο Νίκος είδε την ταινία.", "Ο Μαρία είδε την ταινία."),
        (("Jürgen", "Bärbel"), "Jürgen fand die Straße schön.", "Bärbel fand die Straße schön."),
        (("张伟", "李娜"), "张伟说这部电影非常好看", "李娜说这部电影非常好看"),
        (("أحمد", "فاطمة"), "قال أحمد إن الفيلم جيد", "قال فاطمة إن الفيلم جيد"),
    ],
)
def test_name_swap_finds_names_in_any_script(names, text, expected):
    assert T.NameSwap(names)(text) == expected
    with pytest.raises(NotApplicable, match="no listed name"):
        T.NameSwap()(text)  # the default names are Latin-script first names


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Я смотрел его 3 раза", "3"),
        ("Την είδα 2 φορές", "2"),
        ("Ich sah ihn 3 Mal über Ostern", "3"),
        ("我看了3次", "3"),
        ("شاهدته ٣ مرات", "٣"),
        ("मैंने इसे ३ बार देखा", "३"),
    ],
)
def test_number_swap_changes_digits_of_any_script_in_the_same_script(text, number):
    out = T.NumberSwap(seed=0)(text)
    before, after = text.split(number, 1)
    assert out.startswith(before) and out.endswith(after)
    new = out[len(before) : len(out) - len(after)]
    assert new.isdecimal() and new != number and int(new) > int(number)
    assert {c.isascii() for c in new} == {number.isascii()}  # written with the same script's digits


def test_number_swap_refuses_number_words_it_does_not_know_and_digits_glued_to_a_word():
    for text in ("Три раза", "δύο φορές", "drei Mal", "三次", "ثلاث مرات", "an mp3 file"):
        with pytest.raises(NotApplicable, match=r"no number in .*digits of any script, or the English words"):
            T.NumberSwap()(text)


@pytest.mark.parametrize(
    ("table", "text", "expected"),
    [
        ({"фильм": "кино"}, "Этот фильм, не фильмы", "Этот кино, не фильмы"),
        ({"καλός": "ωραίος"}, "Ήταν ΚΑΛΌΣ", "Ήταν ΩΡΑΊΟΣ"),
        ({"straße": "Gasse", "schön": "hübsch"}, "Die STRASSE war schön", "Die GASSE war hübsch"),
        ({"straße": "Gasse"}, "Die Straße", "Die Gasse"),
        ({"电影": "影片"}, "这部电影非常好看", "这部影片非常好看"),
        ({"الفيلم": "السينما"}, "هذا الفيلم جيد", "هذا السينما جيد"),
    ],
)
def test_synonyms_match_whole_words_in_any_script(table, text, expected):
    assert T.Synonyms(table)(text) == expected
    with pytest.raises(NotApplicable, match="no listed word"):
        T.Synonyms({"film": "movie"})(text)


@pytest.mark.parametrize("script", list(TEXTS))
def test_concatenation_joins_with_a_space_except_between_unspaced_scripts(script):
    text = TEXTS[script]
    assert T.Concatenation("Thank you.", "start")(text) == f"Thank you. {text}"
    assert T.Concatenation("Спасибо.", "end")(text) == f"{text} Спасибо."
    joined = T.Concatenation("谢谢。", "start")(text)
    assert joined == (f"谢谢。{text}" if script == "chinese" else f"谢谢。 {text}")


def test_whole_words_are_found_in_any_script():
    pattern = word_pattern(["Анна", "电影", "Anna"])
    found = [m.group(0) for m in find_words(pattern, "Аннушка, Анна; 这部电影; 我和Anna去; Annabel")]
    assert found == ["Анна", "电影", "Anna"]
