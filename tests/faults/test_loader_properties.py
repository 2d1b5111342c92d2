"""Property: arbitrary file content either loads into a well-formed table or raises mtlib's own error naming
the file (and ``file:line`` when the problem has a line). Issue 36, "measure it", the loaders.

Hypothesis draws the content three ways for every loader: arbitrary bytes; arbitrary text built from the
characters that matter to the formats (tabs, brackets, digits, commas, line ends, ``nan``, a byte-order
mark, NUL); a valid file of the format with one line replaced by arbitrary text; and, exhaustively, every cell of a
valid file replaced by each of a list of hostile values (``nan``, ``inf``, an empty cell, a wrong label).
A well-formed table is
a non-empty DataFrame whose numbers are finite and whose text columns hold non-empty strings.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtlib.data import DataFormatError, adjectives, cogalex, med, monotonicity, sick, sst, yelp

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

SICK_HEADER = (
    "pair_ID\tsentence_A\tsentence_B\tentailment_label\trelatedness_score\tentailment_AB\tentailment_BA\t"
    "sentence_A_original\tsentence_B_original\tsentence_A_dataset\tsentence_B_dataset\tSemEval_set\n"
)
#: loader -> (load(path), file name, a valid file of its format, written here with invented words)
LOADERS: dict[str, tuple[Callable[[Path], Any], str, str]] = {
    "sst_sentences": (lambda p: sst.load_sst_sentences(p, fine=True), "stsa.fine.dev", "4 a warm film .\n0 dull .\n"),
    "sst_trees": (lambda p: sst.load_sst_trees(p, binary=False), "dev.txt", "(3 (2 a) (4 film))\n(1 (1 dull) (2 .))\n"),
    "contexts": (
        monotonicity.load_contexts,
        "contexts.tsv",
        "source\tcontext\tmonotonicity\toperator\tdistractor operator\tsingular\tmass\tplural\n"
        "m\tNo x slept.\tdown\tno\t\tx\tx\t\nm\tSome x ran.\tup\tsome\t\tx\t\tx\n",
    ),
    "insertions": (
        monotonicity.load_insertions,
        "insertions.tsv",
        "source\tx_grammar\tx\ty\ty_grammar\tinsertion_rel\nm\ts\tpoodle\tdog\ts\tleq\nm\tp\tcars\tvans\tp\tnone\n",
    ),
    "sick": (
        sick.load_sick,
        "SICK.txt",
        SICK_HEADER + "1\tA man sits\tA man is seated\tENTAILMENT\t4.5\tA_entails_B\tB_entails_A\tx\ty\tF\tF\tTRAIN\n",
    ),
    "med": (
        med.load_med,
        "MED.tsv",
        "genre\tsentence1\tsentence2\tgold_label\nup\tA dog ran.\tAn animal ran.\tentailment\n",
    ),
    "cogalex_pairs": (cogalex.read_pairs, "pairs.tsv", "poodle\tdog\tHYP\nhot\tcold\tANT\n"),
    "cogalex_v": (cogalex.load_cogalex_v, "gold_task2.txt", "hot\tcold\tANT\ncar\twheel\tPART_OF\n"),
    "word_list": (adjectives.load_words, "words.tsv", "word\tclass\nred\tS-I\nhouse\tnoun\n"),
    "wide_csv": (
        adjectives.load_wide_csv,
        "adjectives.csv",
        "Nouns,SYN Nouns,Ambiguous,SYN Ambiguous\nhouse,home,light,\ncar,,,\n",
    ),
    "yelp_sentences": (lambda p: yelp.read_sentences(p, 1), "sentiment.dev.1", "the soup was warm\nnice staff\n"),
    "yelp_reference": (
        lambda p: yelp.read_tab_pairs(p, "pos_to_neg"),
        "reference.1",
        "it was good\tit was bad\nwarm soup\tcold soup\n",
    ),
}
#: Columns of a loader's table that must hold a non-empty text.
TEXT_COLUMNS = ("text", "word", "word1", "word2", "source", "rewrite", "context", "sentence_A", "sentence_B")
#: The characters that matter to the formats.
ALPHABET = st.sampled_from(list("ab xé\t\t()(()))0123459-.,;:\n\n\r") + ["nan", "inf", "\ufeff", "\x00", "x"])


def well_formed(frame: Any) -> bool:
    """A non-empty DataFrame, every number finite, every text column a non-empty string."""
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        return False
    numbers = frame.select_dtypes("number").to_numpy(dtype=float)
    if numbers.size and not np.isfinite(numbers).all():
        return False
    texts = frame[[c for c in frame.columns if c in TEXT_COLUMNS]]
    return not texts.map(lambda v: not isinstance(v, str) or not v.strip()).to_numpy().any()


def check(loader: str, data: bytes) -> None:
    """Load ``data`` with ``loader``: a well-formed table, or a DataFormatError naming the file and line."""
    fn, name, _ = LOADERS[loader]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            frame = fn(path)
        except DataFormatError as err:
            assert err.path.name == name and name in str(err), str(err)
            if err.line:
                assert f"{name}:{err.line}" in str(err), str(err)
            assert "expected" in str(err)
            return
        assert well_formed(frame), f"{loader} loaded a table that is not well-formed from {data[:200]!r}:\n{frame}"


@pytest.mark.parametrize("loader", sorted(LOADERS))
@PROPERTY
@given(data=st.binary(max_size=600))
def test_arbitrary_bytes_load_or_name_the_file(loader, data):
    check(loader, data)


@pytest.mark.parametrize("loader", sorted(LOADERS))
@PROPERTY
@given(text=st.lists(ALPHABET, max_size=300).map("".join))
def test_arbitrary_text_loads_or_names_the_file_and_line(loader, text):
    check(loader, text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("loader", sorted(LOADERS))
@PROPERTY
@given(line=st.lists(ALPHABET, max_size=80).map("".join), where=st.integers(min_value=0, max_value=5))
def test_a_valid_file_with_one_line_replaced_loads_or_names_the_line(loader, line, where):
    _, _, valid = LOADERS[loader]
    lines = valid.splitlines(keepends=True)
    lines[where % len(lines)] = line + "\n"
    check(loader, "".join(lines).encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_the_valid_files_load(loader):
    fn, name, valid = LOADERS[loader]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(valid, encoding="utf-8")
        assert well_formed(fn(path))


#: Cells that break a format's values: non-finite numbers, empty cells, out-of-range numbers, wrong labels.
HOSTILE_CELLS = ("nan", "inf", "-inf", "NaN", "", " ", "7", "-1", "1e309", "x", "S-I", "noun", "leq", "é\x00", "(")


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_every_cell_of_a_valid_file_replaced_by_a_hostile_value_loads_or_names_the_line(loader):
    """Exhaustive: every cell of every line of the valid file, replaced by each of :data:`HOSTILE_CELLS`."""
    _, name, valid = LOADERS[loader]
    lines = valid.splitlines()
    sep = "," if name.endswith(".csv") else ("\t" if "\t" in valid else " ")
    for i, line in enumerate(lines):
        for j in range(len(line.split(sep))):
            for cell in HOSTILE_CELLS:
                fields = line.split(sep)
                fields[j] = cell
                changed = [*lines[:i], sep.join(fields), *lines[i + 1 :]]
                check(loader, ("\n".join(changed) + "\n").encode("utf-8", "surrogatepass"))
