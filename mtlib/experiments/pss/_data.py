"""The data PSS is scored on: the Yelp sentences, the rewrite pairs cleaned by Appendix B's rules.

Intuition: rewrites come from a style-transfer model, so some are copies of
their source and some only delete words (a removed ``not``); neither asks the
classifier to notice new polarity words. :func:`clean_pairs` drops both and
counts what each rule removed, beside the paper's 500 -> 353
(:func:`cleaning_report_with_paper`). :func:`subsample` draws the (smaller)
training and test sets of a quick run, stratified by label; :func:`load` reads
what notebook 05's parameters name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from mtlib.data import yelp
from mtlib.data.papers import BHATHENA_PAIRS
from mtlib.data.yelp import DIRECTIONS
from mtlib.experiments.pss.spec import Spec
from mtlib.relations.errors import MtlibInputError, check_count, check_frame

TOKENIZERS = ("whitespace", "words")
RULES = ("copy", "adds_no_word")
RULE_NAMES = {
    "copy": "rewrite identical to its source",
    "adds_no_word": "rewrite adds no word absent from its source (delete-only)",
}


_WORD = re.compile(r"\w+", re.UNICODE)


def _check_text_columns(frame: pd.DataFrame, where: str, argument: str, columns: Sequence[str]) -> None:
    """Every value of ``columns`` is a ``str``; else the error names the first bad row and column.

    >>> _check_text_columns(pd.DataFrame({"rewrite": ["ok", 5]}), "clean_pairs", "pairs", ["rewrite"])
    Traceback (most recent call last):
    ...
    mtlib.utils.inputs.MtlibInputError: clean_pairs: pairs row 1 (index 1), column 'rewrite' must be a text \
(str), got int 5 (1 such row)
    """
    for column in columns:
        values = frame[column].to_numpy(dtype=object)
        bad = np.flatnonzero([not isinstance(v, str) for v in values])
        if len(bad):
            i = int(bad[0])
            value, label = values[i], frame.index[i]
            label = label.item() if isinstance(label, np.generic) else label
            raise MtlibInputError(
                f"{where}: {argument} row {i} (index {label!r}), column {column!r} must be a text (str), "
                f"got {type(value).__name__} {value!r} ({len(bad)} such row{'s' if len(bad) > 1 else ''})",
                argument=f"{argument}[{column!r}]",
                expected="a text (str)",
            )


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
    _check_text_columns(pairs, "clean_pairs", "pairs", ["source", "rewrite"])
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


@dataclass
class PSSData:
    """What notebook 05 runs on.

    Attributes:
        sentences: Every labelled sentence read (``text, label, split``).
        train: The FB heads' training sentences (``text, label``; ``n_train`` of them, stratified).
        finetune_train: The FT conditions' training sentences (``n_finetune`` of ``train``).
        test: The dev and test sentences that measure accuracy (``n_test`` of them).
        raw_pairs: The reference pairs as read (``source, rewrite, direction, file, line``), before cleaning.
    """

    sentences: pd.DataFrame
    train: pd.DataFrame
    finetune_train: pd.DataFrame
    test: pd.DataFrame
    raw_pairs: pd.DataFrame

    def summary(self) -> str:
        """Sizes in one line."""
        return (
            f"{len(self.train):,} training sentences ({len(self.finetune_train):,} for FT), {len(self.test):,} "
            f"dev+test sentences, {len(self.raw_pairs):,} reference pairs"
        )


def load(spec: Spec) -> PSSData:
    """The sentences and reference pairs the spec names (bundled, or the Yelp files), subsampled, not yet cleaned."""
    sentences = yelp.load_sentences(spec.data_dir or yelp.BUNDLED_DIR)
    train = subsample(sentences[sentences["split"] == "train"], spec.n_train, spec.seed)
    test = subsample(sentences[sentences["split"] != "train"], spec.n_test, spec.seed)
    finetune_train = subsample(train, spec.n_finetune, spec.seed)
    raw_pairs = yelp.load_reference_pairs(
        spec.reference_dir or spec.data_dir or yelp.BUNDLED_DIR, spec.reference_format
    )
    return PSSData(sentences, train, finetune_train, test, raw_pairs)
