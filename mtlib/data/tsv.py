"""Text reading shared by every loader: UTF-8 checked line by line, line numbers, trailing tabs, headers.

One reader, :func:`text_lines`, serves every loader, so every loader treats
encodings the same way: UTF-8, with or without a byte-order mark; any other
encoding (Latin-1, UTF-16, random bytes) is a :class:`DataFormatError`
naming the file, the line and the byte that is not UTF-8. A line longer than
:data:`MAX_LINE_CHARS` is refused after reading at most that many characters
of it (no record of these formats comes near it: SST's longest tree is under
2,000 characters), so a file of one runaway line costs milliseconds and
bounded memory instead of the whole line in memory before any check.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from mtlib.data.errors import DataFormatError, check_path
from mtlib.utils.provenance import record_input

_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

#: Longest line (in characters) any reader accepts; a longer one is refused before it is read whole.
MAX_LINE_CHARS = 1_000_000


def _not_utf8(path: Path, number: int, line: str) -> DataFormatError:
    raw = line.encode("utf-8", "surrogateescape")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return DataFormatError(
            path,
            number,
            "UTF-8 text (save the file as UTF-8)",
            f"byte 0x{raw[err.start]:02x} at column {err.start + 1}, not UTF-8",
        )
    return DataFormatError(path, number, "UTF-8 text (save the file as UTF-8)")  # pragma: no cover


def text_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, line)`` for every line, line ends (``\\n``, ``\\r\\n``, ``\\r``) stripped.

    The file must be UTF-8; a leading byte-order mark is dropped. Lines are
    decoded one at a time, so the error points at the first line that is
    not UTF-8.

    Raises:
        DataFormatError: a folder given for the file, a UTF-16 byte-order mark (line 1), a line
            that is not valid UTF-8 (naming the offending byte), or a line longer than
            :data:`MAX_LINE_CHARS`; the message names the file and the line.
    """
    path = Path(check_path(path, "text_lines"))
    if path.is_dir():
        raise DataFormatError(path, 0, "a data file", "a folder")
    with open(path, "rb") as fh:
        if fh.read(2) in _UTF16_BOMS:
            raise DataFormatError(path, 1, "UTF-8 text (save the file as UTF-8)", "a UTF-16 byte-order mark")
    record_input(path)  # the run's manifest lists every file a loader read (mtlib.utils.provenance)
    with open(path, encoding="utf-8-sig", errors="surrogateescape") as fh:
        for number, raw in enumerate(iter(lambda: fh.readline(MAX_LINE_CHARS + 1), ""), start=1):
            line = raw.rstrip("\r\n")
            if len(line) > MAX_LINE_CHARS:
                raise DataFormatError(
                    path,
                    number,
                    f"lines of at most {MAX_LINE_CHARS:,} characters (no record of this format is longer)",
                    f"more than {MAX_LINE_CHARS:,} characters",
                )
            try:
                line.encode("utf-8")
            except UnicodeEncodeError:
                raise _not_utf8(path, number, line) from None
            if "\x00" in line:
                raise DataFormatError(
                    path,
                    number,
                    "UTF-8 text (save the file as UTF-8)",
                    f"a NUL byte at column {line.index(chr(0)) + 1} (UTF-16 or binary data?)",
                )
            yield number, line


def nonblank_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """:func:`text_lines` without the blank lines."""
    return ((n, line) for n, line in text_lines(path) if line.strip())


def tsv_rows(path: str | os.PathLike, *, keep_trailing: bool = False) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` for non-empty lines, trailing empty fields dropped.

    Real files (NLI-XY, CogALex) carry stray trailing tabs and CRLF line ends;
    both are tolerated here, once, for every loader.

    Args:
        keep_trailing: Keep trailing empty fields (to tell a row cut short
            from one whose last cells are empty).
    """
    for number, line in nonblank_lines(path):
        fields = line.split("\t")
        if not keep_trailing:
            while fields and fields[-1].strip() == "":
                fields.pop()
        yield number, [f.strip() for f in fields]


def header_index(path: Path, header: Sequence[str], required: Sequence[str]) -> dict[str, int]:
    """Column positions by name.

    Raises:
        DataFormatError: a required column is missing, or a column is named twice.
    """
    index: dict[str, int] = {}
    for i, name in enumerate(header):
        if not name:
            continue
        if name in index:
            raise DataFormatError(
                path,
                1,
                f"each column named once ({name!r} is column {index[name] + 1} and column {i + 1})",
                "\t".join(header),
            )
        index[name] = i
    missing = [c for c in required if c not in index]
    if missing:
        raise DataFormatError(path, 1, f"a header with columns {list(required)} (missing {missing})", "\t".join(header))
    return index


def read_header(path: Path, *, keep_trailing: bool = False) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """The header fields of a TSV file and an iterator over the rows after it.

    Raises:
        DataFormatError: the file is empty.
    """
    rows = tsv_rows(path, keep_trailing=keep_trailing)
    try:
        _, header = next(rows)
    except StopIteration:
        raise DataFormatError(path, 0, "a header line", "an empty file") from None
    while header and not header[-1]:
        header.pop()
    return header, rows


__all__ = ["MAX_LINE_CHARS", "text_lines", "nonblank_lines", "tsv_rows", "header_index", "read_header"]
