"""The Montague adjective and noun lists (Carvalho et al., Appendix A).

Two file formats, told apart by the header:

- ``data/montague/words.tsv``: ``#`` comment lines, a header
  ``word<TAB>class``, then one word per line with its class: an adjective
  type ``S-I``, ``S-NI``, ``NS-Pl``, ``NS-Pr``, ``A``, or ``noun``;
- the authors' wide CSV: one column per class, a ``SYN <class>`` column of
  synonyms beside each (header ``Subsective (Intersective),SYN Subsective
  (Intersective),Subsective (Non-Intersective),...,Nouns,SYN Nouns``), one
  word per cell, columns of different lengths (empty cells at the bottom).
  Words are read column by column, top to bottom; synonyms are kept in
  ``synonym``, not used as words.

A user's own list in either format can extend or replace the bundled one.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from mtlib.data.errors import DataArgumentError, DataFormatError, check_count, resolve_data_path
from mtlib.data.tsv import nonblank_lines, text_lines

ADJECTIVE_TYPES = ("S-I", "S-NI", "NS-Pl", "NS-Pr", "A")
#: Each type's name, for tables (Carvalho et al. §2.2, Table 5).
TYPE_NAMES = {
    "S-I": "subsective intersective",
    "S-NI": "subsective non-intersective",
    "NS-Pl": "plain non-subsective",
    "NS-Pr": "privative non-subsective",
    "A": "ambiguous",
}
CLASSES = (*ADJECTIVE_TYPES, "noun")
BUNDLED_WORDS = "montague/words.tsv"
#: Column names of the authors' wide CSV, one per class.
WIDE_COLUMNS = {
    "Subsective (Intersective)": "S-I",
    "Subsective (Non-Intersective)": "S-NI",
    "Plain Non-Subsective": "NS-Pl",
    "Privative Non-Subsective": "NS-Pr",
    "Ambiguous": "A",
    "Nouns": "noun",
}


def _first_line(path: Path) -> str:
    for _, line in nonblank_lines(path):
        if not line.lstrip().startswith("#"):
            return line
    return ""


def load_wide_csv(path: str | os.PathLike) -> pd.DataFrame:
    """Read the authors' wide CSV (one column per class, ``SYN <class>`` beside each).

    Returns:
        DataFrame ``word, class, line, synonym`` (``line``: the file line of
        the cell), column by column in header order, top to bottom.

    Raises:
        DataFormatError: an unknown column name, a column named twice, a class
            column without its ``SYN`` column, a synonym without a word, or a
            word listed twice.
    """
    path = resolve_data_path(path)
    table = list(csv.reader(line + "\n" for _, line in text_lines(path)))
    if not table:
        raise DataFormatError(path, 0, "a header of class columns", "an empty file")
    header = [h.strip() for h in table[0]]
    expected = f"columns from {list(WIDE_COLUMNS)}, each followed by 'SYN <column>'"
    first: dict[str, int] = {}
    for i, name in enumerate(header):
        if name and name.upper() in first:
            raise DataFormatError(
                path, 1, f"each column named once ({name!r} is column {first[name.upper()] + 1} and {i + 1})", name
            )
        first.setdefault(name.upper(), i)
    classes = {}
    for i, name in enumerate(header):
        if not name or name.upper().startswith("SYN "):
            continue
        if name not in WIDE_COLUMNS:
            raise DataFormatError(path, 1, expected, name)
        syn = i + 1 if i + 1 < len(header) and header[i + 1].upper() == f"SYN {name}".upper() else None
        if syn is None:
            raise DataFormatError(path, 1, f"a column 'SYN {name}' right after {name!r}", ",".join(header))
        classes[i] = (WIDE_COLUMNS[name], syn)
    if not classes:
        raise DataFormatError(path, 1, expected, ",".join(header))
    rows: list[tuple[str | int, ...]] = []
    seen: dict[str, int] = {}
    for i, (cls, syn) in classes.items():
        for number, cells in enumerate(table[1:], start=2):
            word = cells[i].strip() if i < len(cells) else ""
            synonym = cells[syn].strip() if syn < len(cells) else ""
            if not word:
                if synonym:
                    raise DataFormatError(path, number, f"a word in column {header[i]!r} beside its synonym", synonym)
                continue
            if word in seen:
                raise DataFormatError(path, number, f"each word once ({word!r} is already on line {seen[word]})", word)
            seen[word] = number
            rows.append((word, cls, number, synonym))
    if not rows:
        raise DataFormatError(path, 0, "at least one word below the header", "no words")
    return pd.DataFrame(rows, columns=["word", "class", "line", "synonym"])


def load_words(path: str | os.PathLike = BUNDLED_WORDS) -> pd.DataFrame:
    """Read a word list: ``word<TAB>class`` lines, or the authors' wide CSV.

    Returns:
        DataFrame ``word, class, line`` in file order.

    Raises:
        DataFormatError: a missing header, a line without two columns, an
            unknown class, or a word listed twice (file and line given).
    """
    path = resolve_data_path(path)
    first = _first_line(path)
    if "," in first and "\t" not in first and first.split(",")[0].strip() in WIDE_COLUMNS:
        return load_wide_csv(path)[["word", "class", "line"]]
    rows: list[tuple[str | int, ...]] = []
    seen: dict[str, int] = {}
    header_seen = False
    for number, line in text_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        while fields and not fields[-1]:
            fields.pop()
        if not header_seen:
            if fields[:2] != ["word", "class"]:
                raise DataFormatError(path, number, "the header 'word<TAB>class'", line)
            header_seen = True
            continue
        if len(fields) != 2 or not fields[0]:
            raise DataFormatError(path, number, "two tab-separated columns: word, class", line)
        word, cls = fields
        if cls not in CLASSES:
            raise DataFormatError(path, number, f"a class in {list(CLASSES)}", cls)
        if word in seen:
            raise DataFormatError(path, number, f"each word once ({word!r} is already on line {seen[word]})", line)
        seen[word] = number
        rows.append((word, cls, number))
    if not header_seen:
        raise DataFormatError(path, 0, "the header 'word<TAB>class'", "no header")
    if not rows:
        raise DataFormatError(path, 0, "at least one 'word<TAB>class' line after the header", "no words")
    return pd.DataFrame(rows, columns=["word", "class", "line"])


def load_lexicon(
    paths: Sequence[str | os.PathLike] = (BUNDLED_WORDS,),
    *,
    bundled: bool = False,
    max_per_type: int = 0,
    max_nouns: int = 0,
) -> tuple[pd.DataFrame, list[str]]:
    """Adjectives (with types) and nouns from word lists (by default the bundled one).

    Later files add words. A word repeated across files with the same class
    is kept once (so the authors' full list can be given beside the bundled
    one); with another class it is an error naming both files. With
    ``bundled=True`` the words of ``paths`` come **first** in the result, so
    that ``max_per_type`` and ``max_nouns`` keep a user's words and the
    bundled list fills the rest (a cap that kept the bundled words first
    would drop the user's without a word).

    Args:
        paths: Word lists in either format (see the module docstring): a tab-separated file whose first
            line that is not a ``#`` comment is the header ``word<TAB>class``, then one ``word<TAB>class``
            per line (class one of ``S-I``, ``S-NI``, ``NS-Pl``, ``NS-Pr``, ``A``, ``noun``); or the authors'
            wide CSV. A wrong header is refused naming the file, the line and the header expected.
        bundled: Read the bundled Appendix A list (:data:`BUNDLED_WORDS`) before ``paths``
            (``load_lexicon(user_lists, bundled=True)``: the bundled list extended by a user's).
        max_per_type: Keep at most this many adjectives of each type, in file order (0 keeps all).
        max_nouns: Keep at most this many nouns (0 keeps all).

    Returns:
        ``(adjectives, nouns)``: a DataFrame ``word, type`` in file order and a
        list of nouns.

    Raises:
        ValueError: no word list at all (no ``paths`` and ``bundled=False``).
        DataArgumentError: ``max_per_type`` or ``max_nouns`` is not an integer >= 0, or ``paths`` is a
            bare string (give a list of paths).
    """
    max_per_type = check_count(max_per_type, "load_lexicon", "max_per_type")
    max_nouns = check_count(max_nouns, "load_lexicon", "max_nouns")
    if isinstance(paths, (str, bytes)):
        raise DataArgumentError("load_lexicon", "paths", "a list of word-list paths", paths)
    paths = [*([BUNDLED_WORDS] if bundled else []), *paths]
    if not paths:
        raise ValueError("no word list: give paths, or bundled=True for the bundled Appendix A list")
    frames = []
    origin: dict[str, tuple[str, str]] = {}
    for p in paths:
        df = load_words(p)
        repeated = []
        for word, cls, line in zip(df["word"], df["class"], df["line"]):
            if word in origin:
                if origin[word][1] != cls:
                    raise DataFormatError(
                        Path(p),
                        int(line),
                        f"a word not already listed in {origin[word][0]} (there as {origin[word][1]})",
                        word,
                    )
                repeated.append(word)
                continue
            origin[word] = (f"{p}", cls)
        frames.append(df[~df["word"].isin(repeated)])
    if bundled:  # the user's words first: the caps below keep them
        frames = [*frames[1:], frames[0]]
    words = pd.concat(frames, ignore_index=True)
    adjectives = words[words["class"] != "noun"].rename(columns={"class": "type"})[["word", "type"]]
    if max_per_type:
        adjectives = adjectives.groupby("type", sort=False).head(max_per_type)
    nouns = words.loc[words["class"] == "noun", "word"].tolist()
    return adjectives.reset_index(drop=True), nouns[:max_nouns] if max_nouns else nouns


__all__ = [
    "ADJECTIVE_TYPES",
    "TYPE_NAMES",
    "CLASSES",
    "BUNDLED_WORDS",
    "WIDE_COLUMNS",
    "load_wide_csv",
    "load_words",
    "load_lexicon",
]
