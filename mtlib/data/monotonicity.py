"""NLI-XY monotonicity data: contexts with a placeholder, insertion pairs, their composition.

Rozanova et al.'s format, used by Manino et al. §5.1:

- ``contexts.tsv``, header ``source context monotonicity operator
  distractor operator singular mass plural``: a sentence with the placeholder
  token ``x``; ``up`` or ``down`` monotone in x; which grammatical numbers
  fit the slot (``x`` for yes, empty for no; the old spelling 1/0 is read too);
  operators may be empty;
- ``insertions.tsv``, header ``source x_grammar x y y_grammar insertion_rel``:
  two insertions, their grammatical number (``s``, ``m``, ``p``; or spelled
  out ``singular``, ``mass``, ``plural``) and their lexical relation, ``leq``
  (x ⊆ y, x a hyponym of y), ``geq`` (x ⊇ y, x a hypernym of y) or ``none``.
  The real files hold essentially only ``leq`` and ``none`` rows: a pair
  stands for its reverse too, which :func:`with_reverses` adds.

The real files are named ``all_``, ``train_``, ``dev_``, ``test_`` +
``contexts.tsv`` / ``insertions.tsv``, with CRLF line ends and many trailing
tabs. Columns are found by name, so extra columns and trailing tabs are fine.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from mtlib.data.errors import DataFormatError, resolve_data_path
from mtlib.data.tsv import header_index, read_header

PLACEHOLDER = "x"
MONOTONICITIES = ("up", "down")
RELATIONS = ("leq", "geq", "none")
GRAMMAR = ("singular", "mass", "plural")
BUNDLED_CONTEXTS = "monotonicity/contexts.tsv"
BUNDLED_INSERTIONS = "monotonicity/insertions.tsv"

_SLOT = re.compile(r"(?<![\w-])x(?![\w-])")
_TRUE = {"x", "1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f", ""}
#: The real files' one-letter grammatical numbers.
GRAMMAR_CODES = {"s": "singular", "m": "mass", "p": "plural"}
REVERSE = {"leq": "geq", "geq": "leq", "none": "none"}


def _flag(path: Path, number: int, column: str, value: str) -> bool:
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise DataFormatError(path, number, f"column {column!r} to be 'x' (yes) or empty (no), or 1/0", value)


def load_contexts(path: str | os.PathLike = BUNDLED_CONTEXTS) -> pd.DataFrame:
    """Read NLI-XY contexts.

    Returns:
        DataFrame with ``context_id`` (0..), ``context``, ``monotonicity``
        (``up``/``down``), ``operator``, ``singular``, ``mass``, ``plural``
        (bool; all True when the file has no such columns) and ``line``.

    Raises:
        DataFormatError: missing columns, a context without the placeholder
            ``x`` (or with it twice), or an unknown monotonicity.
    """
    path = resolve_data_path(path)
    header, rows_iter = read_header(path, keep_trailing=True)
    col = header_index(path, header, ["context", "monotonicity"])
    width = max(col.values()) + 1
    rows = []
    for number, fields in rows_iter:
        if len(fields) < width:  # a cut row, not empty cells: those keep their tabs
            cut = header[len(fields) - 1] if fields else "nothing"
            raise DataFormatError(
                path,
                number,
                f"{width} tab-separated columns ({', '.join(header)}), empty cells "
                f"kept as empty fields; the row stops after column {cut!r}",
                "\t".join(fields),
            )
        while fields and not fields[-1]:
            fields.pop()
        if len(fields) <= max(col["context"], col["monotonicity"]):
            raise DataFormatError(
                path, number, f"at least {max(col.values()) + 1} tab-separated columns", "\t".join(fields)
            )
        context = fields[col["context"]]
        slots = len(_SLOT.findall(context))
        if slots != 1:
            raise DataFormatError(
                path,
                number,
                f"a context with the placeholder token {PLACEHOLDER!r} exactly once (found {slots} times)",
                context,
            )
        mono = fields[col["monotonicity"]].lower()
        if mono not in MONOTONICITIES:
            raise DataFormatError(path, number, f"monotonicity in {list(MONOTONICITIES)}", fields[col["monotonicity"]])
        row = {
            "context": context,
            "monotonicity": mono,
            "operator": fields[col["operator"]] if "operator" in col and col["operator"] < len(fields) else "",
            "line": number,
        }
        for g in GRAMMAR:
            # trailing empty cells (their tabs present) mean 0, as mid-row
            row[g] = _flag(path, number, g, fields[col[g]] if col[g] < len(fields) else "") if g in col else True
        rows.append(row)
    if not rows:
        raise DataFormatError(path, 0, "at least one context row")
    df = pd.DataFrame(rows)
    df.insert(0, "context_id", range(len(df)))
    return df


def load_insertions(path: str | os.PathLike = BUNDLED_INSERTIONS) -> pd.DataFrame:
    """Read NLI-XY insertion pairs.

    Returns:
        DataFrame with ``insertion_id``, ``x``, ``y``, ``x_grammar``,
        ``y_grammar``, ``relation`` (``leq``/``geq``/``none``) and ``line``.

    Raises:
        DataFormatError: a row with missing columns or an unknown relation.
    """
    path = resolve_data_path(path)
    header, rows_iter = read_header(path)
    need = ["x", "y", "insertion_rel"]
    col = header_index(path, header, need)
    width = max(col[c] for c in need + [c for c in ("x_grammar", "y_grammar") if c in col]) + 1
    rows = []
    for number, fields in rows_iter:
        if len(fields) < width or not all(fields[col[c]] for c in need):
            raise DataFormatError(
                path, number, f"{width} tab-separated columns ({', '.join(header)})", "\t".join(fields)
            )
        rel = fields[col["insertion_rel"]].lower()
        if rel not in RELATIONS:
            raise DataFormatError(path, number, f"insertion_rel in {list(RELATIONS)}", fields[col["insertion_rel"]])
        grammar = {}
        for g in ("x_grammar", "y_grammar"):
            value = fields[col[g]].lower() if g in col else "singular"
            value = GRAMMAR_CODES.get(value, value)
            if value not in GRAMMAR:
                raise DataFormatError(path, number, f"{g} in {list(GRAMMAR_CODES)} (or {list(GRAMMAR)})", value)
            grammar[g] = value
        rows.append({"x": fields[col["x"]], "y": fields[col["y"]], **grammar, "relation": rel, "line": number})
    if not rows:
        raise DataFormatError(path, 0, "at least one insertion row")
    df = pd.DataFrame(rows)
    df.insert(0, "insertion_id", range(len(df)))
    return df


def with_reverses(insertions: pd.DataFrame) -> pd.DataFrame:
    """Every insertion pair and its reverse, duplicates dropped.

    A pair (x, y) with x ⊆ y (``leq``) stands for (y, x) with y ⊇ x
    (``geq``), and an unrelated pair for its reverse (``none``). The real
    NLI-XY files list only one direction (``leq``/``none``), so without the
    reverses a hypernymy probe would see one class. Duplicates (same x, y
    and relation) keep their first occurrence: original rows first, in file
    order, then the new reverses in the order of their pairs.

    Args:
        insertions: Rows of :func:`load_insertions`.

    Returns:
        The same columns, ``insertion_id`` renumbered 0..; ``line`` of a
        reverse is its pair's line; ``reversed`` (bool) marks the added rows.
        ``attrs["n_file"]`` is the number of pairs read, ``attrs["n_added"]``
        the reverses added.
    """
    rev = insertions.rename(columns={"x": "y", "y": "x", "x_grammar": "y_grammar", "y_grammar": "x_grammar"})
    rev = rev.assign(relation=rev["relation"].map(REVERSE))
    both = pd.concat(
        [insertions.assign(reversed=False), rev[insertions.columns].assign(reversed=True)], ignore_index=True
    )
    out = both.drop_duplicates(subset=["x", "y", "relation"], keep="first").reset_index(drop=True)
    out["insertion_id"] = range(len(out))
    out.attrs.update(n_file=len(insertions), n_added=int(out["reversed"].sum()))
    return out


def fill(context: str, insertion: str) -> str:
    """Put an insertion in the context's placeholder slot."""
    return _SLOT.sub(lambda _: insertion, context, count=1)


def compose(contexts: pd.DataFrame, insertions: pd.DataFrame) -> pd.DataFrame:
    """Every NLI input (C(x), C(y)) whose grammatical numbers fit the context.

    Gold labels follow natural logic: Up(⊆) and Down(⊇) are entailed, every
    other combination is not.

    Returns:
        One row per (context, insertion pair): ``context_id``,
        ``insertion_id``, ``monotonicity``, ``relation``, ``premise``,
        ``hypothesis``, ``x``, ``y``, ``entailed`` (bool gold label) and
        ``hypernym`` (bool: x is a hypernym of y, the probe's target).
    """
    pairs = contexts.merge(insertions, how="cross", suffixes=("", "_ins"))
    fits = pd.Series(True, index=pairs.index)
    for side in ("x_grammar", "y_grammar"):
        for g in GRAMMAR:
            fits &= ~((pairs[side] == g) & ~pairs[g].astype(bool))
    pairs = pairs[fits].reset_index(drop=True)
    out = pd.DataFrame(
        {
            "context_id": pairs["context_id"],
            "insertion_id": pairs["insertion_id"],
            "monotonicity": pairs["monotonicity"],
            "relation": pairs["relation"],
            "context": pairs["context"],
            "x": pairs["x"],
            "y": pairs["y"],
        }
    )
    out["premise"] = [fill(c, a) for c, a in zip(pairs["context"], pairs["x"])]
    out["hypothesis"] = [fill(c, b) for c, b in zip(pairs["context"], pairs["y"])]
    out["entailed"] = ((out["monotonicity"] == "up") & (out["relation"] == "leq")) | (
        (out["monotonicity"] == "down") & (out["relation"] == "geq")
    )
    out["hypernym"] = out["relation"] == "geq"
    return out


__all__ = [
    "PLACEHOLDER",
    "MONOTONICITIES",
    "RELATIONS",
    "GRAMMAR",
    "BUNDLED_CONTEXTS",
    "BUNDLED_INSERTIONS",
    "GRAMMAR_CODES",
    "REVERSE",
    "load_contexts",
    "load_insertions",
    "with_reverses",
    "fill",
    "compose",
]
