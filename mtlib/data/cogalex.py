"""Lexical-relation pairs: CogALex-VI, CogALex-V and the bundled files.

All three share one line format, ``word1<TAB>word2<TAB>REL``:

- CogALex-VI (Xiang et al. 2020): ``train_<lang>_data.txt``,
  ``validgold_<lang>_data.txt``, ``gold_<lang>_data.txt`` for english,
  german, chinese, italian; REL in SYN, ANT, HYP, RANDOM;
- CogALex-V (Santus et al. 2016): a training and a test ``gold_task2.txt``
  (distributed as ``CogALexV_train_v1/gold_task2.txt`` and
  ``CogALexV_test_v1/gold_task2.txt``; renamed copies such as
  ``train_gold_task2.txt`` / ``test_gold_task2.txt`` work too: a path with
  ``train`` in it trains, one with ``test`` tests); given as a folder, or as
  one file that is then split by a stable hash of the pair;
  REL in SYN, ANT, HYPER, PART_OF, RANDOM, mapped explicitly by
  :data:`COGALEX_V_MAPPING` (HYPER is hypernymy, HYP in CogALex-VI; PART_OF
  has no CogALex-VI counterpart and stays its own label);
- bundled ``data/lexical_relations/<lang>.tsv``, split into train and test
  by a stable hash of the pair (25% test).

``HYP`` means word2 is a hypernym of word1 (``poodle dog HYP``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from mtlib.data.errors import (
    DataArgumentError,
    DataFormatError,
    check_fraction,
    check_path,
    data_dir,
    path_component,
    resolve_data_path,
)
from mtlib.data.tsv import tsv_rows

RELATIONS_VI = ("SYN", "ANT", "HYP", "RANDOM")
RELATIONS_V = ("SYN", "ANT", "HYPER", "PART_OF", "RANDOM")
COGALEX_V_MAPPING: dict[str, str] = {
    "SYN": "SYN",
    "ANT": "ANT",
    "HYPER": "HYP",
    "PART_OF": "PART_OF",
    "RANDOM": "RANDOM",
}
SPLITS_VI = ("train", "validgold", "gold")
BUNDLED_DIR = "lexical_relations"
TEST_FRACTION = 0.25
#: Splits that hold test pairs (the gold test file, or the hashed test share).
TEST_SPLITS = ("gold", "test")


def read_pairs(
    path: str | os.PathLike, allowed: Sequence[str] = RELATIONS_VI, mapping: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Read ``word1<TAB>word2<TAB>REL`` lines.

    Args:
        path: The file.
        allowed: Relation labels accepted as written in the file.
        mapping: Optional relabelling applied after validation (e.g. HYPER -> HYP).

    Returns:
        DataFrame ``word1, word2, relation, line``.

    Raises:
        DataFormatError: a line without three columns or with a label outside
            ``allowed``; the message names file, line and the allowed labels.
    """
    path = Path(check_path(path, "read_pairs"))
    rows = []
    for number, fields in tsv_rows(path):
        if len(fields) != 3 or not fields[0] or not fields[1]:
            raise DataFormatError(
                path,
                number,
                f"3 tab-separated columns word1, word2, REL with REL in {list(allowed)}",
                "\t".join(fields),
            )
        rel = fields[2].upper()
        if rel not in allowed:
            raise DataFormatError(path, number, f"a relation label in {list(allowed)}", fields[2])
        rows.append((fields[0], fields[1], (mapping or {}).get(rel, rel), number))
    if not rows:
        raise DataFormatError(
            path, 0, f"at least one 'word1<TAB>word2<TAB>REL' line with REL in {list(allowed)}", "an empty file"
        )
    return pd.DataFrame(rows, columns=["word1", "word2", "relation", "line"])


def _languages_vi(folder: Path) -> list[str]:
    found = set()
    for p in folder.glob("*_data.txt"):
        m = re.fullmatch(r"(?:train|validgold|gold)_(\w+)_data\.txt", p.name)
        if m:
            found.add(m.group(1))
    return sorted(found)


def load_cogalex_vi(folder: str | os.PathLike, language: str, splits: Sequence[str] = SPLITS_VI) -> pd.DataFrame:
    """Read the CogALex-VI files of one language.

    Returns:
        ``word1, word2, relation, line, split`` for every split file present
        (``train``, ``validgold``, ``gold``).

    Raises:
        DataArgumentError: ``language`` or a split is not one file-name part (``../x``), or ``splits``
            is a bare string or empty.
        FileNotFoundError: no file for the language; the message lists the
            languages found in the folder.
    """
    folder = check_path(folder, "load_cogalex_vi", "folder")
    language = path_component(language, "load_cogalex_vi", "language")
    if isinstance(splits, (str, bytes)) or not len(splits):
        raise DataArgumentError(
            "load_cogalex_vi", "splits", f"a non-empty list of splits from {list(SPLITS_VI)}", splits
        )
    splits = [path_component(s, "load_cogalex_vi", "splits") for s in splits]
    folder = Path(folder)
    frames = []
    for split in splits:
        path = folder / f"{split}_{language}_data.txt"
        if path.exists():
            frames.append(read_pairs(path).assign(split=split))
    if not frames:
        raise FileNotFoundError(
            f"no CogALex-VI files for language {language!r} in {folder}; "
            f"languages found: {', '.join(_languages_vi(folder)) or 'none'}"
        )
    return pd.concat(frames, ignore_index=True)


def load_cogalex_v(path: str | os.PathLike, mapping: Mapping[str, str] = COGALEX_V_MAPPING) -> pd.DataFrame:
    """Read a CogALex-V task-2 file (``gold_task2.txt``), labels mapped by ``mapping``."""
    path = Path(check_path(path, "load_cogalex_v"))
    split = "train" if path.name.startswith("train") else "gold"
    return read_pairs(path, RELATIONS_V, mapping).assign(split=split)


def _task2_files(folder: Path) -> list[Path]:
    """CogALex-V ``*task2*.txt`` files in ``folder`` or one level below it."""
    found = [*folder.glob("*task2*.txt"), *folder.glob("*/*task2*.txt")]
    return sorted(p for p in found if p.is_file())


def _task2_role(folder: Path, path: Path) -> str:
    rel = str(path.relative_to(folder)).lower()
    return "train" if "train" in rel else ("gold" if "test" in rel else "")


def load_cogalex_v_folder(folder: str | os.PathLike, mapping: Mapping[str, str] = COGALEX_V_MAPPING) -> pd.DataFrame:
    """Read the CogALex-V training and test gold files of a folder.

    A file whose path (below ``folder``) contains ``train`` gives the
    ``train`` split, one containing ``test`` the ``gold`` (test) split. A
    folder with a single task-2 file is split like a single file
    (:func:`split_single_file`).

    Raises:
        FileNotFoundError: no ``*task2*.txt`` file.
        DataFormatError: several files whose role (train or test) cannot be
            told from their path.
    """
    folder = Path(check_path(folder, "load_cogalex_v_folder", "folder"))
    files = _task2_files(folder)
    if not files:
        raise FileNotFoundError(f"{folder}: no CogALex-V *task2*.txt file")
    if len(files) == 1:
        return split_single_file(load_cogalex_v(files[0], mapping), files[0])
    frames = []
    for path in files:
        role = _task2_role(folder, path)
        if not role:
            raise DataFormatError(
                path,
                0,
                "'train' or 'test' in the path of each CogALex-V file of the folder, "
                "to tell the training file from the test file",
                path.name,
            )
        frames.append(read_pairs(path, RELATIONS_V, mapping).assign(split=role))
    out = pd.concat(frames, ignore_index=True)
    out.attrs.update(dataset="CogALex-V", note="")
    return out


def split_single_file(pairs: pd.DataFrame, path: Path, test_fraction: float = TEST_FRACTION) -> pd.DataFrame:
    """One CogALex-V file split into ``train`` and ``test`` by :func:`stable_split`; ``attrs["note"]`` says so.

    Raises:
        DataArgumentError: ``test_fraction`` is not a number in [0, 1].
    """
    test_fraction = check_fraction(test_fraction, "split_single_file", "test_fraction")
    out = pairs.assign(split=[stable_split(a, b, test_fraction) for a, b in zip(pairs["word1"], pairs["word2"])])
    n_test = int((out["split"] == "test").sum())
    out.attrs.update(
        dataset="CogALex-V",
        note=(
            f"{path.name} is a single CogALex-V file: split by a stable hash of each pair into "
            f"{len(out) - n_test} training and {n_test} test pairs ({test_fraction:.0%} test). Give the folder with "
            "both the training and the test gold files to use the official split."
        ),
    )
    return out


def stable_split(word1: str, word2: str, test_fraction: float = TEST_FRACTION) -> str:
    """``"train"`` or ``"test"`` from a hash of the pair: the same on every machine.

    Raises:
        DataArgumentError: ``test_fraction`` is not a number in [0, 1] (NaN would put every pair in train).
    """
    test_fraction = check_fraction(test_fraction, "stable_split", "test_fraction")
    digest = hashlib.sha256(f"{word1}\t{word2}".encode()).digest()
    return "test" if int.from_bytes(digest[:4], "big") / 2**32 < test_fraction else "train"


def load_lexical_relations(language: str, source: str | os.PathLike = "") -> pd.DataFrame:
    """Pairs of one language from any of the three layouts.

    Args:
        language: ``english``, ``german``, ... (ignored for a CogALex-V file).
        source: Empty for the bundled data; a CogALex-VI folder; a CogALex-V
            folder (training and test gold files); a folder with
            ``<lang>.tsv``; or one CogALex-V file, split by the pair hash
            (absolute, or relative to the bundled ``data/`` folder).

    Returns:
        ``word1, word2, relation, line, split`` with ``split`` in
        ``train``/``validgold``/``gold`` (CogALex-VI, CogALex-V folder) or
        ``train``/``test`` (hashed). ``attrs["dataset"]`` is ``CogALex-VI``,
        ``CogALex-V``, ``bundled`` or ``pairs``; ``attrs["note"]`` says how a
        single file was split (else empty).

    Raises:
        DataArgumentError: ``language`` is not one file-name part (``../x``, ``a/b``, empty).
        FileNotFoundError: no data for the language; the message lists the
            languages found.
        DataFormatError: no test pairs (e.g. a CogALex-VI language with a
            training file only).
    """
    language = path_component(language, "load_lexical_relations", "language")
    src = resolve_data_path(source) if source else data_dir() / BUNDLED_DIR
    if src.is_file():
        df = split_single_file(load_cogalex_v(src), src)
    elif not src.is_dir():
        raise FileNotFoundError(f"{src}: no such folder or file")
    elif _languages_vi(src):
        df = load_cogalex_vi(src, language)
        df.attrs.update(dataset="CogALex-VI", note="")
    elif _task2_files(src):
        df = load_cogalex_v_folder(src)
    else:
        path = src / f"{language}.tsv"
        if not path.exists():
            found = sorted(p.stem for p in src.glob("*.tsv"))
            raise FileNotFoundError(
                f"no file for language {language!r} in {src}; languages found: {', '.join(found) or 'none'}"
            )
        df = read_pairs(path)
        df["split"] = [stable_split(a, b) for a, b in zip(df["word1"], df["word2"])]
        df.attrs.update(dataset="bundled" if not source else "pairs", note="")
    if not df["split"].isin(TEST_SPLITS).any():
        raise DataFormatError(
            src,
            0,
            f"test pairs for {language!r} (a split in {list(TEST_SPLITS)}): without them "
            "there is no vocabulary and no accuracy to report",
            f"splits {sorted(set(df['split']))}",
        )
    return df


__all__ = [
    "RELATIONS_VI",
    "RELATIONS_V",
    "COGALEX_V_MAPPING",
    "SPLITS_VI",
    "BUNDLED_DIR",
    "TEST_FRACTION",
    "TEST_SPLITS",
    "read_pairs",
    "load_cogalex_vi",
    "load_cogalex_v",
    "load_cogalex_v_folder",
    "split_single_file",
    "stable_split",
    "load_lexical_relations",
]
