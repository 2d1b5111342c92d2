"""The data PSS is scored on: rewrite pairs cleaned by Appendix B's rules, and stratified subsamples.

Intuition: rewrites come from a style-transfer model, so some are copies of
their source and some only delete words (a removed ``not``); neither asks the
classifier to notice new polarity words. :func:`clean_pairs` drops both and
counts what each rule removed; :func:`clean` wraps the result as a report
beside the paper's 500 -> 353. :func:`subsample` draws the (smaller) training and
test sets of a quick run, stratified by label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from mtlib.data.papers import BHATHENA_PAIRS
from mtlib.data.yelp import DIRECTIONS
from mtlib.experiments.pss._checks import check_text_columns
from mtlib.relations.errors import check_count, check_frame

TOKENIZERS = ("whitespace", "words")
RULES = ("copy", "adds_no_word")
RULE_NAMES = {
    "copy": "rewrite identical to its source",
    "adds_no_word": "rewrite adds no word absent from its source (delete-only)",
}


_WORD = re.compile(r"\w+", re.UNICODE)


def tokens(texts: pd.Series, tokenize: str = "whitespace") -> pd.Series:
    """Lower-cased token lists, one per text.

    Args:
        texts: Strings, shape ``(n,)``.
        tokenize: ``"whitespace"`` (the Yelp files' own tokenisation: they are
            space-tokenised, ``it 's``, ``did n't``) or ``"words"`` (runs of
            letters and digits, for untokenised rewrites such as
            rpryzant's ``it's``; punctuation is ignored).
    """
    lower = pd.Series(texts, dtype="object").astype(str).str.lower()
    if tokenize == "whitespace":
        return lower.str.split()
    if tokenize == "words":
        return lower.str.findall(_WORD)
    raise ValueError(f"tokenize={tokenize!r}: expected one of {TOKENIZERS}")


def _adds_a_word(src: pd.Series, rew: pd.Series) -> np.ndarray:
    """Per pair: does the rewrite hold a token absent from its source? (vectorised through explode/merge)."""
    n = len(src)
    rew_tok = pd.DataFrame({"pair": np.arange(n), "tok": rew.to_numpy()}).explode("tok").dropna()
    src_tok = pd.DataFrame({"pair": np.arange(n), "tok": src.to_numpy()}).explode("tok").dropna()
    src_tok = src_tok.drop_duplicates().assign(in_source=True)
    merged = rew_tok.merge(src_tok, on=["pair", "tok"], how="left")
    new = merged[merged["in_source"].isna()]["pair"].to_numpy(dtype=np.int64)
    out = np.zeros(n, dtype=bool)
    out[new] = True
    return out


def clean_pairs(pairs: pd.DataFrame, *, tokenize: str = "whitespace") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Apply the Appendix B rules, in order, and count what each removes.

    Tokens are compared case-insensitively after the dataset's own
    tokenisation (``tokenize``, see :func:`tokens`):

    1. ``copy``: the rewrite's tokens equal the source's (identical up to case
       and spacing): no model can be expected to switch.
    2. ``adds_no_word``: the rewrite adds no token absent from the source (it
       only deletes, e.g. a removed ``not``, or reorders): kept pairs add words.

    Args:
        pairs: DataFrame with ``source``, ``rewrite``, ``direction`` (as
            :func:`mtlib.data.yelp.load_reference_pairs` returns), any extra
            columns kept.

    Returns:
        ``(kept, report)``: ``kept`` has the same columns (and the original
        index, so rows trace back to the file); ``report`` has one row per
        step (``before cleaning``, each rule, ``kept``) and one column per
        direction plus ``all``: pairs removed by the rule (remaining for the
        first and last rows). An empty ``kept`` is returned, not raised:
        :func:`cleaning_note` says so.

    Raises:
        KeyError: a required column is missing.
        ValueError: an unknown direction.
        MtlibInputError: ``pairs`` is not a DataFrame, or a ``source`` or ``rewrite`` is not a text (``None``,
            ``NaN``, a number): the message names the first such row (position and index) and column.
    """
    check_frame(pairs, "clean_pairs", "pairs")
    missing = [c for c in ("source", "rewrite", "direction") if c not in pairs]
    if missing:
        raise KeyError(f"pairs need columns source, rewrite, direction; missing {missing}")
    check_text_columns(pairs, "clean_pairs", "pairs", ["source", "rewrite"])
    bad = sorted(set(pairs["direction"]) - set(DIRECTIONS), key=str)
    if bad:
        raise ValueError(f"unknown direction(s) {bad}; expected {list(DIRECTIONS)}")
    src, rew = tokens(pairs["source"], tokenize), tokens(pairs["rewrite"], tokenize)
    copy = (src.str.join(" ") == rew.str.join(" ")).to_numpy()
    adds = _adds_a_word(src, rew)
    removed = {"copy": copy, "adds_no_word": ~copy & ~adds}
    keep = ~copy & adds
    directions = [d for d in DIRECTIONS if (pairs["direction"] == d).any()]
    report = {}
    for col in [*directions, "all"]:
        mask = np.ones(len(pairs), bool) if col == "all" else (pairs["direction"] == col).to_numpy()
        report[col] = [int(mask.sum()), *(int((removed[r] & mask).sum()) for r in RULES), int((keep & mask).sum())]
    index = ["before cleaning", *(RULE_NAMES[r] for r in RULES), "kept"]
    report_df = pd.DataFrame(report, index=pd.Index(index, name="step"))
    report_df.attrs["tokenize"] = tokenize
    return pairs[keep].copy(), report_df


def cleaning_report_with_paper(report: pd.DataFrame) -> pd.DataFrame:
    """The cleaning report beside the paper's 500 -> 353 (the paper gives no per-rule counts) and the kept share."""
    out = report.copy()
    out["paper (all)"] = [BHATHENA_PAIRS["before"]] + [np.nan] * len(RULES) + [BHATHENA_PAIRS["after"]]
    before = report.loc["before cleaning", "all"]
    out["share of all"] = report["all"] / before if before else np.nan
    return out


def cleaning_note(report: pd.DataFrame) -> str:
    """One sentence from the report: how many pairs each rule removed, and how many remain."""
    before, kept = int(report.loc["before cleaning", "all"]), int(report.loc["kept", "all"])
    parts = [f"{int(report.loc[RULE_NAMES[r], 'all'])} {RULE_NAMES[r]}" for r in RULES]
    tok = report.attrs.get("tokenize", "whitespace")
    note = f"Cleaning kept {kept} of {before} pairs ({kept / before:.1%})" if before else "No pairs to clean"
    note += f"; removed: {'; '.join(parts)} (tokens compared case-insensitively, {tok} tokenisation)."
    paper_after, paper_before = cast(int, BHATHENA_PAIRS["after"]), cast(int, BHATHENA_PAIRS["before"])
    note += f" The paper kept {paper_after} of {paper_before} ({paper_after / paper_before:.1%})."
    if before and not kept:
        note += " Cleaning removed every pair: PSS is undefined (nan) for this data."
    return note


@dataclass
class CleaningReport:
    """The pairs kept by the Appendix B rules (:func:`clean`), and what each rule removed.

    Attributes:
        pairs: The kept pairs (capped per direction when asked), ``source, rewrite, direction``.
        report: :func:`clean_pairs`'s per-rule counts.
    """

    pairs: pd.DataFrame
    report: pd.DataFrame
    headline: tuple[str, ...] = ()

    def metrics(self) -> dict[str, Any]:
        """``pairs_before_cleaning``, ``pairs_after_cleaning`` (the pairs scored) and ``pairs_removed/<rule>``."""
        r = self.report
        return {
            "pairs_before_cleaning": int(r.loc["before cleaning", "all"]),
            "pairs_after_cleaning": len(self.pairs),
            **{f"pairs_removed/{rule}": int(r.loc[RULE_NAMES[rule], "all"]) for rule in RULES},
        }

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"cleaning_report": cleaning_report_with_paper(self.report)}

    @property
    def note(self) -> str:
        """One sentence: what the rules removed (:func:`cleaning_note`)."""
        return cleaning_note(self.report)


def clean(pairs: pd.DataFrame, *, tokenize: str, n_pairs: int) -> CleaningReport:
    """:func:`clean_pairs`, then at most ``n_pairs`` kept pairs per direction (0 keeps all), as a report.

    Args:
        pairs: ``source, rewrite, direction``.
        tokenize: Tokens the rules compare (:data:`TOKENIZERS`; notebook 05's ``clean_tokens``).
        n_pairs: Most kept pairs per direction (0 keeps all).

    Raises:
        MtlibInputError: as :func:`clean_pairs`, or ``n_pairs`` not an integer >= 0.
    """
    check_count(n_pairs, "clean", "n_pairs")
    kept, report = clean_pairs(pairs, tokenize=tokenize)
    if n_pairs:
        kept = kept.groupby("direction", sort=False).head(n_pairs)
    return CleaningReport(kept, report)


def subsample(frame: pd.DataFrame, n: int, seed: int = 0, by: str = "label") -> pd.DataFrame:
    """A stratified sample of ``n`` rows (all rows when ``n`` is 0 or at least ``len(frame)``).

    Raises:
        MtlibInputError: ``frame`` not a DataFrame with column ``by``, ``n`` or ``seed`` not an integer >= 0.
    """
    check_frame(frame, "subsample", "frame", [by])
    check_count(n, "subsample", "n")
    check_count(seed, "subsample", "seed")
    if not n or n >= len(frame):
        return frame
    share = n / len(frame)
    parts = [g.sample(n=max(1, round(len(g) * share)), random_state=seed) for _, g in frame.groupby(by)]
    return pd.concat(parts).sort_index()
