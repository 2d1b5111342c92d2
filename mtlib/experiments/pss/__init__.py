"""Polarity Sensitivity Scoring (Bhathena, Willis, Dass, §3, Table 1, Appendices B-C).

Intuition: a sentiment classifier built on a sentence encoder should notice
when a few words flip a review's polarity while its content stays the same.
Given pairs ``(s, s')`` where ``s'`` is a polarity-flipped rewrite of ``s``,
PSS is the share of pairs on which the classifier gets **both** labels right::

    PSS = (1/N) sum_n 1[y_hat(s) = y(s) and z_hat(s') = z(s')]
    relative PSS = PSS / test accuracy      (the paper shows it x 100)

A classifier that ignores the flip (one label for both sides) scores 0; a
coin toss scores 0.25. Rewrites come from a style-transfer model, so pairs are
cleaned first (:func:`clean_pairs`, Appendix B): a rewrite identical to its
source is dropped, and so is one that adds no word absent from its source
(delete-only rewrites).

This module holds the pure logic (cleaning, scoring, intervals, paired
tests, the paper's numbers) and the small driver that trains one classifier
per setting through :func:`mtlib.models.classifier` and scores it; the
notebook ``05_polarity_sensitivity`` only orchestrates.

Units: rates in tables, metrics and function results are fractions in [0, 1];
the paper's Table 1 (percent) is stored as fractions too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sstats

from mtlib.analysis import stats
from mtlib.data.yelp import DIRECTIONS
from mtlib.data.papers import BHATHENA_PAIRS, BHATHENA_TABLE1
from mtlib.utils.threads import cpu_threads, limit_threads

#: Head names: mtlib's (``mtlib.models.classifier``) to the paper's "Final Layers".
FINAL_LAYERS = {"linear": "Linear", "mlp": "DNN", "native": "native"}
#: The paper's DNN head: two hidden layers of 500 and 100 units.
DNN_HIDDEN = (500, 100)
MODES = ("FB", "FT", "native")
TOKENIZERS = ("whitespace", "words")
RULES = ("copy", "adds_no_word")
#: Factory settings a notebook may set per fine-tuned encoder.
FINETUNE_KEYS = ("lr", "epochs", "batch_size", "max_length", "pooling")
#: A prediction with no decision (both classes equally probable): wrong for either gold label.
ABSTAIN = -1
RULE_NAMES = {
    "copy": "rewrite identical to its source",
    "adds_no_word": "rewrite adds no word absent from its source (delete-only)",
}


# --------------------------------------------------------------------------
# Cleaning (Appendix B)
# --------------------------------------------------------------------------

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
    """
    missing = [c for c in ("source", "rewrite", "direction") if c not in pairs]
    if missing:
        raise KeyError(f"pairs need columns source, rewrite, direction; missing {missing}")
    bad = sorted(set(pairs["direction"]) - set(DIRECTIONS))
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
    note = (f"Cleaning kept {kept} of {before} pairs ({kept / before:.1%})" if before else "No pairs to clean")
    note += f"; removed: {'; '.join(parts)} (tokens compared case-insensitively, {tok} tokenisation)."
    note += f" The paper kept {BHATHENA_PAIRS['after']} of {BHATHENA_PAIRS['before']} ({BHATHENA_PAIRS['after'] / BHATHENA_PAIRS['before']:.1%})."
    if before and not kept:
        note += " Cleaning removed every pair: PSS is undefined (nan) for this data."
    return note


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------

def gold_labels(direction: Sequence[str] | pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Gold labels of source and rewrite from the direction: ``neg_to_pos`` -> (0, 1).

    Returns:
        ``(y_source, y_rewrite)``, int arrays of shape ``(n,)``.
    """
    d = np.asarray(direction, dtype=object)
    bad = sorted(set(d.tolist()) - set(DIRECTIONS))
    if bad:
        raise ValueError(f"unknown direction(s) {bad}; expected {list(DIRECTIONS)}")
    y_source = (d == "pos_to_neg").astype(np.int64)
    return y_source, 1 - y_source


def _binary(values: Any, what: str, abstain: bool = False) -> np.ndarray:
    """Labels as int64, checked: 0 or 1 (and -1, "undecided", where ``abstain``)."""
    arr = np.asarray(values)
    if arr.dtype == bool:
        return arr.astype(np.int64)
    allowed = [0, 1, ABSTAIN] if abstain else [0, 1]
    if arr.size and not np.isin(arr, allowed).all():
        bad = sorted(set(np.unique(arr[~np.isin(arr, allowed)]).tolist()))[:5]
        extra = f" (or {ABSTAIN}, undecided)" if abstain else ""
        raise ValueError(f"{what}: labels must be 0 (negative) or 1 (positive){extra}; got {bad}")
    return arr.astype(np.int64)


def prediction_table(pairs: pd.DataFrame, pred_source: Any, pred_rewrite: Any) -> pd.DataFrame:
    """One row per pair: gold and predicted labels of both sides, and whether each is right.

    Args:
        pairs: ``direction`` column (and ``source``/``rewrite``, copied when present), ``n`` rows.
        pred_source, pred_rewrite: Predicted labels 0/1 (or -1, undecided, which is
            never right), shape ``(n,)``.

    Returns:
        ``direction, y_source, y_rewrite, pred_source, pred_rewrite,
        source_right, rewrite_right, both_right`` (plus ``source``, ``rewrite``),
        index of ``pairs``.

    Raises:
        ValueError: a label other than 0/1, or lengths that differ.
    """
    ps, pr = _binary(pred_source, "pred_source", True), _binary(pred_rewrite, "pred_rewrite", True)
    if not len(ps) == len(pr) == len(pairs):
        raise ValueError(f"{len(pairs)} pairs but {len(ps)} source and {len(pr)} rewrite predictions")
    ys, yr = gold_labels(pairs["direction"])
    out = pd.DataFrame({"direction": pairs["direction"].to_numpy(), "y_source": ys, "y_rewrite": yr,
                        "pred_source": ps, "pred_rewrite": pr}, index=pairs.index)
    for c in ("source", "rewrite"):
        if c in pairs:
            out.insert(0 if c == "source" else 1, c, pairs[c].to_numpy())
    out["source_right"] = out["pred_source"] == out["y_source"]
    out["rewrite_right"] = out["pred_rewrite"] == out["y_rewrite"]
    out["both_right"] = out["source_right"] & out["rewrite_right"]
    return out


def pss(table: pd.DataFrame | np.ndarray) -> float:
    """PSS: the share of pairs with both sides right (``nan`` for no pairs)."""
    both = table["both_right"].to_numpy() if isinstance(table, pd.DataFrame) else np.asarray(table)
    return float(both.mean()) if len(both) else float("nan")


def relative_pss(pss_value: float, accuracy: float) -> float:
    """PSS / test accuracy (the paper's "Relative" column divided by 100)."""
    return float(pss_value / accuracy) if accuracy and np.isfinite(accuracy) else float("nan")


def bootstrap_mean(values: np.ndarray, *, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """Bootstrap replicates of a mean over independent items, shape ``(n_boot,)`` (vectorised).

    Args:
        values: Per item, shape ``(n,)`` (0/1 outcomes, or a mean over seeds).
    """
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return np.full(n_boot, np.nan)
    w = stats.bootstrap_weights(len(values), n_boot, seed)
    return w @ values / len(values)


def pss_interval(both_right: np.ndarray, *, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of PSS, resampling pairs (each pair has its own source)."""
    return stats.percentile_interval(bootstrap_mean(both_right, n_boot=n_boot, seed=seed))


def accuracy_interval(correct: float, n: int) -> tuple[float, float]:
    """Wilson 95% interval of an accuracy (``correct`` may be a mean count over seeds)."""
    return stats.wilson_interval(correct, n)


def mcnemar(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """McNemar's exact test on paired binary outcomes (the same pairs scored by two settings).

    Args:
        a, b: Per pair, did setting A (B) get both sides right; shape ``(n,)``.

    Returns:
        ``test, a_only, b_only, difference, p_value``: ``a_only`` pairs only A
        gets right, ``b_only`` only B; the exact two-sided binomial test of
        ``a_only`` among the discordant pairs (p = 1 when there are none);
        ``difference`` = PSS(A) - PSS(B).
    """
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    if a.shape != b.shape:
        raise ValueError(f"paired outcomes differ in shape: {a.shape} vs {b.shape}")
    a_only, b_only = int((a & ~b).sum()), int((~a & b).sum())
    n = a_only + b_only
    p = float(sstats.binomtest(a_only, n, 0.5).pvalue) if n else 1.0
    diff = float(a.mean() - b.mean()) if len(a) else float("nan")
    return {"test": "McNemar exact (binomial on discordant pairs)", "a_only": a_only, "b_only": b_only,
            "difference": diff, "p_value": p}


# --------------------------------------------------------------------------
# Settings and their outcomes
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Setting:
    """One row of Table 1: an encoder, its final layers, and the training mode.

    Attributes:
        encoder: Registry name, hub id or path.
        head: ``"linear"``, ``"mlp"`` (the paper's DNN) or ``"native"`` (the
            model's own output, no training).
        mode: ``"FB"`` (frozen encoder, head trained), ``"FT"`` (encoder and
            head trained together) or ``"native"``.
    """

    encoder: str
    head: str
    mode: str

    @property
    def key(self) -> str:
        """The setting's name in tables: ``<encoder>/<head>/<mode>``."""
        return f"{self.encoder}/{self.head}/{self.mode}"

    @property
    def group(self) -> str:
        """The setting within its encoder, in metric keys: ``<head>/<mode>``, or ``native``."""
        return "native" if self.mode == "native" else f"{self.head}/{self.mode}"


def settings_grid(encoders: Sequence[str], heads: Sequence[str], finetune: Sequence[str] = (),
                  native: Sequence[str] = (), finetune_heads: Mapping[str, Sequence[str]] | None = None
                  ) -> list[Setting]:
    """Table 1's crossing: every encoder x head in FB, the ``finetune`` encoders also in FT, natives alone.

    Args:
        finetune_heads: Per fine-tuned encoder, the heads to fine-tune (an
            encoder not named gets every head of ``heads``); fine-tuning a
            transformer is the expensive part of a CPU run.

    Raises:
        ValueError: an unknown head, or a fine-tuned encoder not among ``encoders``.
    """
    finetune_heads = dict(finetune_heads or {})
    bad = [h for h in [*heads, *(h for hs in finetune_heads.values() for h in hs)] if h not in ("linear", "mlp")]
    if bad:
        raise ValueError(f"heads {bad}: expected 'linear' and/or 'mlp'")
    stray = [e for e in [*finetune, *finetune_heads] if e not in encoders]
    if stray:
        raise ValueError(f"finetune lists {stray}, which are not in encoders {list(encoders)}")
    grid = [Setting(e, h, "FB") for e in encoders for h in heads]
    grid += [Setting(e, h, "FT") for e in finetune for h in finetune_heads.get(e, heads)]
    grid += [Setting(m, "native", "native") for m in native]
    return grid


@dataclass
class Outcome:
    """One trained (or native) classifier scored on the test sentences and the pairs.

    Attributes:
        setting: What was trained.
        seed: Training seed (``None`` for native models).
        test_correct: Per test sentence, was it classified right; shape ``(n_test,)``.
        table: :func:`prediction_table` over the kept pairs.
        majority_baseline: Accuracy of always predicting the test set's majority class.
        info: Training facts from the model (held-out accuracy, from cache, seconds).
    """

    setting: Setting
    seed: int | None
    test_correct: np.ndarray
    table: pd.DataFrame
    majority_baseline: float
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return float(self.test_correct.mean()) if len(self.test_correct) else float("nan")

    @property
    def pss(self) -> float:
        return pss(self.table)


def positive_column(labels: Sequence[Any]) -> int:
    """Which column of ``classify`` is the positive class (label 1, ``positive``, ``POSITIVE``, ``pos``).

    Raises:
        ValueError: no label reads as positive.
    """
    names = [str(x).strip().lower() for x in labels]
    for want in ("1", "positive", "pos", "label_1"):
        if want in names:
            return names.index(want)
    raise ValueError(f"cannot tell the positive class among labels {list(labels)}")


def predict_labels(model: Any, texts: Sequence[str]) -> np.ndarray:
    """Labels from any mtlib classifier: 1 positive, 0 negative, -1 undecided (a tie).

    A tie happens for lexicon models on a text with no sentiment word (VADER
    and TextBlob give polarity 0, i.e. probabilities 0.5/0.5); it counts as
    wrong whatever the gold label, rather than being given to one class by
    an arbitrary tie-break. Each unique text goes through the model once.

    Returns:
        Shape ``(n,)``, int64.
    """
    texts = list(texts)
    if not texts:
        return np.zeros(0, np.int64)
    unique, inverse = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    probs = np.asarray(model.classify(list(unique)), dtype=np.float64)
    pos = positive_column(getattr(model, "labels", [0, 1]))
    p_pos = probs[:, pos]
    p_other = np.delete(probs, pos, axis=1).max(axis=1)
    pred = np.where(p_pos > p_other, 1, np.where(p_pos < p_other, 0, ABSTAIN)).astype(np.int64)
    return pred[inverse.reshape(-1)]


def evaluate(model: Any, setting: Setting, test: pd.DataFrame, pairs: pd.DataFrame,
             seed: int | None = None) -> Outcome:
    """Score one classifier: accuracy on ``test`` (``text``, ``label``) and the pair table.

    Test sentences, sources and rewrites are classified in one call (each unique text once).
    """
    texts = [*test["text"], *pairs["source"], *pairs["rewrite"]]
    pred = predict_labels(model, texts)
    n_test, n_pairs = len(test), len(pairs)
    y = _binary(test["label"].to_numpy(), "test labels")
    table = prediction_table(pairs, pred[n_test:n_test + n_pairs], pred[n_test + n_pairs:])
    majority = float(max(y.mean(), 1 - y.mean())) if len(y) else float("nan")
    training = getattr(model, "training", None)
    facts = training if isinstance(training, dict) else vars(training) if training is not None else {}
    info = {k: facts[k] for k in ("heldout_accuracy", "majority_baseline", "from_cache") if k in facts}
    info["undecided"] = int((pred == ABSTAIN).sum())
    return Outcome(setting, seed, pred[:n_test] == y, table, majority, info)


def subsample(frame: pd.DataFrame, n: int, seed: int = 0, by: str = "label") -> pd.DataFrame:
    """A stratified sample of ``n`` rows (all rows when ``n`` is 0 or at least ``len(frame)``)."""
    if not n or n >= len(frame):
        return frame
    share = n / len(frame)
    parts = [g.sample(n=max(1, round(len(g) * share)), random_state=seed) for _, g in frame.groupby(by)]
    return pd.concat(parts).sort_index()


def run_settings(
    grid: Sequence[Setting],
    train: pd.DataFrame,
    test: pd.DataFrame,
    pairs: pd.DataFrame,
    *,
    seeds: Sequence[int] = (0,),
    finetune_train: pd.DataFrame | None = None,
    device: str = "auto",
    head_lr: float | None = None,
    finetune_settings: Mapping[str, Mapping[str, Any]] | None = None,
    classifier: Callable[..., Any] | None = None,
    log: Callable[[str], None] | None = print,
) -> list[Outcome]:
    """Train (or load from cache) one classifier per setting and seed and score it.

    Frozen-encoder heads share the encoder's cached features: they are
    computed once per encoder and reused by both heads and every seed (the
    factory's feature cache). Native models run once (they have no seed).

    Args:
        grid: Settings from :func:`settings_grid`.
        train: ``text, label`` for the heads.
        test: ``text, label`` for accuracy (the paper: dev and test combined).
        pairs: Cleaned pairs (``source, rewrite, direction``).
        seeds: Training seeds.
        finetune_train: The (smaller) training set of FT settings; ``train`` when ``None``.
        head_lr: Learning rate of the FB MLP heads (``None``: the factory's default).
        finetune_settings: Per fine-tuned encoder, factory settings such as
            ``{"lr": 1e-4, "epochs": 1, "batch_size": 32}``; keys not given
            keep the factory's defaults.
        classifier: The factory, ``mtlib.models.classifier`` by default (tests pass a counting one).
        log: Called with one line per trained setting (``None`` for silence).

    Returns:
        One :class:`Outcome` per (setting, seed), in grid order.
    """
    if classifier is None:
        from mtlib.models import classifier
    outcomes = []
    warm: set[str] = set()  # encoders whose frozen features are in the cache
    for setting in grid:
        for seed in ([None] if setting.mode == "native" else seeds):
            t0 = time.perf_counter()
            if setting.mode == "native":
                model = classifier(setting.encoder, None, how="native", device=device)
            elif setting.mode == "FB":
                kw = {"hidden": DNN_HIDDEN} if setting.head == "mlp" else {}
                if setting.head == "mlp" and setting.encoder not in warm:
                    # the encoder's features first, with every thread (the Linear head does it too)
                    classifier(setting.encoder, train, how="head", head="linear", seed=seed, device=device)
                # the MLP head trains on tiny batches: one CPU thread (see mtlib.utils.threads)
                with limit_threads(cpu_threads(device) if setting.head == "mlp" else None):
                    model = classifier(setting.encoder, train, how="head", head=setting.head, seed=seed,
                                       lr=head_lr, device=device, **kw)
                warm.add(setting.encoder)
            else:
                kw = {"hidden": DNN_HIDDEN} if setting.head == "mlp" else {}
                kw.update((finetune_settings or {}).get(setting.encoder, {}))
                model = classifier(setting.encoder, finetune_train if finetune_train is not None else train,
                                   how="finetune", head=setting.head, seed=seed, device=device, **kw)
            out = evaluate(model, setting, test, pairs, seed=seed)
            out.info["seconds"] = time.perf_counter() - t0
            outcomes.append(out)
            if log:
                log(f"{setting.key} seed={seed}: accuracy {out.accuracy:.3f} (majority {out.majority_baseline:.3f}), "
                    f"PSS {out.pss:.3f} on {len(out.table)} pairs, {out.info['seconds']:.1f} s"
                    + (" (cached)" if out.info.get("from_cache") else ""))
    return outcomes


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------

def _groups(outcomes: Iterable[Outcome]) -> dict[Setting, list[Outcome]]:
    groups: dict[Setting, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(o.setting, []).append(o)
    return groups


def table1(outcomes: Sequence[Outcome], *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 1 in the paper's layout, one row per setting, means over seeds with spread and intervals.

    Intervals: accuracy by Wilson on the test sentences (the seed-mean count
    over the real ``n``); PSS by a bootstrap over pairs of the per-pair
    seed-mean outcome; relative PSS by the same pair bootstrap divided by an
    independent bootstrap of the test sentences.

    Returns:
        Columns ``encoder, final_layers, mode, seeds, accuracy, accuracy_low,
        accuracy_high, accuracy_sd, majority_baseline, pss, pss_low, pss_high,
        pss_sd, relative, relative_low, relative_high, n_pairs, n_test, source``
        (``source`` = ``"ours"``), index ``<encoder>/<head>/<mode>``.
    """
    rows = []
    for setting, outs in _groups(outcomes).items():
        accs = np.array([o.accuracy for o in outs])
        psss = np.array([o.pss for o in outs])
        per_pair = np.mean([o.table["both_right"].to_numpy(float) for o in outs], axis=0)
        per_test = np.mean([o.test_correct.astype(float) for o in outs], axis=0)
        n_test, n_pairs = len(per_test), len(per_pair)
        acc_lo, acc_hi = accuracy_interval(per_test.sum(), n_test)
        boot_p = bootstrap_mean(per_pair, n_boot=n_boot, seed=seed)
        boot_a = bootstrap_mean(per_test, n_boot=n_boot, seed=seed + 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rel_lo, rel_hi = stats.percentile_interval(boot_p / boot_a)
        p_lo, p_hi = stats.percentile_interval(boot_p)
        acc = float(per_test.mean()) if n_test else float("nan")
        pval = float(per_pair.mean()) if n_pairs else float("nan")
        rows.append({"setting": setting.key, "encoder": setting.encoder,
                     "final_layers": FINAL_LAYERS[setting.head], "mode": setting.mode, "seeds": len(outs),
                     "accuracy": acc, "accuracy_low": acc_lo, "accuracy_high": acc_hi,
                     "accuracy_sd": float(accs.std(ddof=1)) if len(outs) > 1 else np.nan,
                     "majority_baseline": outs[0].majority_baseline,
                     "pss": pval, "pss_low": p_lo, "pss_high": p_hi,
                     "pss_sd": float(psss.std(ddof=1)) if len(outs) > 1 else np.nan,
                     "relative": relative_pss(pval, acc), "relative_low": rel_lo, "relative_high": rel_hi,
                     "n_pairs": n_pairs, "n_test": n_test, "source": "ours"})
    return pd.DataFrame(rows).set_index("setting")


def paper_table1() -> pd.DataFrame:
    """The paper's Table 1 (:data:`mtlib.data.papers.BHATHENA_TABLE1`) as fractions, in :func:`table1`'s columns."""
    rows = [{"setting": f"paper:{e}/{h}/{m}", "encoder": e, "final_layers": h, "mode": m, "accuracy": a / 100,
             "pss": p / 100, "relative": r / 100, "source": "paper (Table 1)"} for e, h, m, a, p, r in BHATHENA_TABLE1]
    return pd.DataFrame(rows).set_index("setting")


def table1_layout(ours: pd.DataFrame, *, with_paper: bool = True) -> pd.DataFrame:
    """Ours (and the paper's rows) in percent, ``mean ± sd [low, high]``, in the paper's column order."""
    both = pd.concat([ours] + ([paper_table1()] if with_paper else []))

    def cell(r: dict, col: str, interval: bool = True) -> str:
        v = r.get(col)
        if v is None or not np.isfinite(v):
            return ""
        s = f"{100 * v:.1f}"
        sd = r.get(f"{col}_sd")
        if sd is not None and np.isfinite(sd):
            s += f" ± {100 * sd:.1f}"
        lo, hi = r.get(f"{col}_low"), r.get(f"{col}_high")
        if interval and lo is not None and np.isfinite(lo):
            s += f" [{100 * lo:.1f}, {100 * hi:.1f}]"
        return s

    rows = []
    for key, r in both.iterrows():
        r = {k: (float(v) if isinstance(v, (int, float, np.number)) else v) for k, v in r.items() if pd.notna(v)}
        rows.append({"setting": key, "Encoder": r["encoder"], "Final Layers": r["final_layers"],
                     "Finetune mode": r["mode"], "Test Accuracy": cell(r, "accuracy"),
                     "Majority baseline": cell(r, "majority_baseline"), "PSS": cell(r, "pss"),
                     "Relative": cell(r, "relative"), "source": r["source"]})
    return pd.DataFrame(rows).set_index("setting")


def by_direction(outcomes: Sequence[Outcome], *, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Appendix C: PSS per direction of the switch (neg->pos vs pos->neg), per setting, seed-mean.

    Returns:
        Columns ``setting, direction, n_pairs, pss, pss_low, pss_high,
        source_right, rewrite_right`` (the last two: share of each side right).
    """
    rows = []
    for setting, outs in _groups(outcomes).items():
        direction = outs[0].table["direction"].to_numpy()
        for d in DIRECTIONS:
            mask = direction == d
            if not mask.any():
                continue
            both = np.mean([o.table["both_right"].to_numpy(float)[mask] for o in outs], axis=0)
            lo, hi = pss_interval(both, n_boot=n_boot, seed=seed)
            rows.append({"setting": setting.key, "direction": d, "n_pairs": int(mask.sum()), "pss": float(both.mean()),
                         "pss_low": lo, "pss_high": hi,
                         "source_right": float(np.mean([o.table["source_right"].to_numpy()[mask] for o in outs])),
                         "rewrite_right": float(np.mean([o.table["rewrite_right"].to_numpy()[mask] for o in outs]))})
    return pd.DataFrame(rows, columns=["setting", "direction", "n_pairs", "pss", "pss_low", "pss_high",
                                       "source_right", "rewrite_right"])


def direction_tests(outcomes: Sequence[Outcome]) -> pd.DataFrame:
    """Does PSS differ between the two directions? Fisher's exact test per setting and seed.

    The two directions hold different pairs, so the test is for independent
    samples (not McNemar).
    """
    rows = []
    for o in outcomes:
        t = o.table
        counts = [[int(t.loc[t["direction"] == d, "both_right"].sum()),
                   int((~t.loc[t["direction"] == d, "both_right"]).sum())] for d in DIRECTIONS]
        if min(sum(c) for c in counts) == 0:
            continue
        p = float(sstats.fisher_exact(counts).pvalue)
        rows.append({"setting": o.setting.key, "seed": o.seed,
                     "pss_neg_to_pos": counts[0][0] / sum(counts[0]), "pss_pos_to_neg": counts[1][0] / sum(counts[1]),
                     "test": "Fisher exact (directions are different pairs)", "p_value": p})
    return pd.DataFrame(rows, columns=["setting", "seed", "pss_neg_to_pos", "pss_pos_to_neg", "test", "p_value"])


def paired_tests(outcomes: Sequence[Outcome]) -> pd.DataFrame:
    """FB vs FT (same encoder and head) and Linear vs DNN (same encoder and mode), McNemar per seed.

    Both settings of a comparison are scored on the same pairs; seed ``s`` of
    one is paired with seed ``s`` of the other.

    Returns:
        Columns ``comparison, encoder, held_fixed, seed, a, b, pss_a, pss_b,
        a_only, b_only, difference, test, p_value``.
    """
    by_key = {(o.setting, o.seed): o for o in outcomes}
    rows = []
    for (setting, seed), a in by_key.items():
        s = setting
        pairs = []
        if s.mode == "FB":
            pairs.append(("FB vs FT", Setting(s.encoder, s.head, "FT"), FINAL_LAYERS[s.head]))
        if s.head == "linear" and s.mode in ("FB", "FT"):
            pairs.append(("Linear vs DNN", Setting(s.encoder, "mlp", s.mode), s.mode))
        for name, other, fixed in pairs:
            b = by_key.get((other, seed))
            if b is None:
                continue
            t = mcnemar(a.table["both_right"].to_numpy(), b.table["both_right"].to_numpy())
            rows.append({"comparison": name, "encoder": s.encoder, "held_fixed": fixed, "seed": seed,
                         "a": s.key, "b": other.key, "pss_a": a.pss, "pss_b": b.pss,
                         "a_only": t["a_only"], "b_only": t["b_only"], "difference": t["difference"],
                         "test": t["test"], "p_value": t["p_value"]})
    return pd.DataFrame(rows, columns=["comparison", "encoder", "held_fixed", "seed", "a", "b", "pss_a", "pss_b",
                                       "a_only", "b_only", "difference", "test", "p_value"])


def hardest_flips(outcomes: Sequence[Outcome], k: int = 10) -> pd.DataFrame:
    """Like the paper's Table 3: the flips most model runs get wrong.

    Returns:
        The ``k`` pairs with most runs failing (not both sides right):
        ``source, rewrite, direction, wrong, runs, source_wrong, rewrite_wrong``
        (the last two: runs that got that side wrong), ties kept in file order.
    """
    if not outcomes:
        return pd.DataFrame(columns=["source", "rewrite", "direction", "wrong", "runs", "source_wrong",
                                     "rewrite_wrong"])
    base = outcomes[0].table
    wrong = np.sum([~o.table["both_right"].to_numpy() for o in outcomes], axis=0)
    src_wrong = np.sum([~o.table["source_right"].to_numpy() for o in outcomes], axis=0)
    rew_wrong = np.sum([~o.table["rewrite_right"].to_numpy() for o in outcomes], axis=0)
    out = pd.DataFrame({"source": base.get("source"), "rewrite": base.get("rewrite"), "direction": base["direction"],
                        "wrong": wrong, "runs": len(outcomes), "source_wrong": src_wrong,
                        "rewrite_wrong": rew_wrong}, index=base.index)
    return out.sort_values("wrong", ascending=False, kind="stable").head(k)


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
        return {"pairs_before_cleaning": int(r.loc["before cleaning", "all"]), "pairs_after_cleaning": len(self.pairs),
                **{f"pairs_removed/{rule}": int(r.loc[RULE_NAMES[rule], "all"]) for rule in RULES}}

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"cleaning_report": cleaning_report_with_paper(self.report)}

    @property
    def note(self) -> str:
        """One sentence: what the rules removed (:func:`cleaning_note`)."""
        return cleaning_note(self.report)


def clean(pairs: pd.DataFrame, *, tokenize: str = "whitespace", n_pairs: int = 0) -> CleaningReport:
    """:func:`clean_pairs`, then at most ``n_pairs`` kept pairs per direction (0 keeps all), as a report."""
    kept, report = clean_pairs(pairs, tokenize=tokenize)
    if n_pairs:
        kept = kept.groupby("direction", sort=False).head(n_pairs)
    return CleaningReport(kept, report)


@dataclass
class ModelReport:
    """One encoder's (or native model's) settings of :func:`polarity_sensitivity`.

    Metric keys (no model prefix; ``<group>`` is :attr:`Setting.group`, ``linear/FB`` or ``native``):
    ``pss/<group>``, ``accuracy/<group>``, ``relative_pss/<group>``,
    ``majority_baseline/<group>``, ``pss_ci/<group>``, ``accuracy_ci/<group>``
    (seed means and 95% intervals), ``pss/<group>/seed<k>`` and
    ``accuracy/<group>/seed<k>``, ``pss_direction/<group>/<direction>``,
    ``mcnemar_p/<comparison>/<group>/seed<k>`` and ``train_seconds``.
    """

    model: str
    outcomes: list[Outcome]
    table: pd.DataFrame
    tests: pd.DataFrame
    directions: pd.DataFrame

    @property
    def headline(self) -> list[str]:
        return list(dict.fromkeys(f"pss/{o.setting.group}" for o in self.outcomes))

    def metrics(self) -> dict[str, Any]:
        groups = {o.setting.key: o.setting.group for o in self.outcomes}
        out: dict[str, Any] = {}
        for key, r in self.table.iterrows():
            g = groups[key]
            out.update({f"pss/{g}": r["pss"], f"accuracy/{g}": r["accuracy"], f"relative_pss/{g}": r["relative"],
                        f"majority_baseline/{g}": r["majority_baseline"], f"pss_ci/{g}": [r["pss_low"], r["pss_high"]],
                        f"accuracy_ci/{g}": [r["accuracy_low"], r["accuracy_high"]]})
        for o in self.outcomes:
            if o.seed is not None:
                out[f"pss/{o.setting.group}/seed{o.seed}"] = o.pss
                out[f"accuracy/{o.setting.group}/seed{o.seed}"] = o.accuracy
        out.update({f"pss_direction/{groups[r.setting]}/{r.direction}": r.pss for r in self.directions.itertuples()})
        out.update({f"mcnemar_p/{r.comparison.replace(' ', '_')}/{groups[r.a]}/seed{r.seed}": r.p_value
                    for r in self.tests.itertuples()})
        out["train_seconds"] = float(sum(o.info.get("seconds", 0.0) for o in self.outcomes))
        return out


@dataclass
class PSSReport:
    """Everything :func:`polarity_sensitivity` measured, across models.

    Attributes:
        outcomes: One :class:`Outcome` per setting and seed.
        table: :func:`table1` (ours; fractions, intervals, seed spread).
        tests: :func:`paired_tests` (McNemar, FB vs FT and Linear vs DNN).
        directions: :func:`by_direction` (Appendix C).
        direction_tests: :func:`direction_tests` (Fisher).
        hardest: :func:`hardest_flips`.
        models: Per encoder (then native model), its :class:`ModelReport`; the
            first is the primary model.
    """

    outcomes: list[Outcome]
    table: pd.DataFrame
    tests: pd.DataFrame
    directions: pd.DataFrame
    direction_tests: pd.DataFrame
    hardest: pd.DataFrame
    models: dict[str, ModelReport]
    headline: tuple[str, ...] = ()

    @property
    def primary(self) -> str | None:
        """The first model (its values also go under plain keys)."""
        return next(iter(self.models), None)

    @property
    def layout(self) -> pd.DataFrame:
        """Table 1 in the paper's layout, the paper's rows below ours (:func:`table1_layout`)."""
        return table1_layout(self.table)

    @property
    def direction_table(self) -> pd.DataFrame:
        """PSS per setting (rows) and direction (columns), with the number of pairs."""
        d = self.directions
        return d.pivot(index="setting", columns="direction", values="pss").join(
            d.groupby("setting")["n_pairs"].sum().rename("pairs"))

    def metrics(self) -> dict[str, Any]:
        """Run-level counts: ``n_settings`` and ``n_runs`` (settings x seeds, native models once)."""
        return {"n_settings": len({o.setting for o in self.outcomes}), "n_runs": len(self.outcomes)}

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"table1_pss": self.table, "table1_pss_paper_layout": self.layout,
                "paired_tests_mcnemar": self.tests, "pss_by_direction": self.directions,
                "direction_tests_fisher": self.direction_tests, "hardest_flips": self.hardest}

    def conclusions(self, alpha: float = 0.05) -> list[str]:
        """Sentences read off this run's tables (:func:`conclusions`)."""
        return conclusions(self.table, self.tests, self.direction_tests, alpha=alpha)

    def figures(self) -> dict[str, Any]:
        """``pss_vs_accuracy`` (:func:`pss_vs_accuracy`) and ``table1_pss_bars`` (:func:`table1_bars`)."""
        return {"pss_vs_accuracy": pss_vs_accuracy(self.table, title="PSS against test accuracy "
                                                   "(ours filled, paper hollow)"),
                "table1_pss_bars": table1_bars(self.table)}


def polarity_sensitivity(grid: Sequence[Setting], train: pd.DataFrame, test: pd.DataFrame, pairs: pd.DataFrame, *,
                         seeds: Sequence[int] = (0,), n_boot: int = 1000, seed: int = 0, n_hardest: int = 10,
                         **kwargs: Any) -> PSSReport:
    """Table 1 and its tests: train and score every setting (:func:`run_settings`), then tabulate.

    Args:
        grid: Settings from :func:`settings_grid` (encoders first, then native models).
        train, test, pairs: As for :func:`run_settings`.
        seeds: Training seeds.
        n_boot: Bootstrap replicates of the intervals.
        seed: Seeds the bootstraps.
        n_hardest: Rows of the hardest-flips table.
        **kwargs: Passed to :func:`run_settings` (``finetune_train``, ``device``, ``head_lr``,
            ``finetune_settings``, ``classifier``, ``log``).
    """
    outcomes = run_settings(grid, train, test, pairs, seeds=seeds, **kwargs)
    return report_from(outcomes, n_boot=n_boot, seed=seed, n_hardest=n_hardest)


def report_from(outcomes: Sequence[Outcome], *, n_boot: int = 1000, seed: int = 0, n_hardest: int = 10) -> PSSReport:
    """The :class:`PSSReport` of scored outcomes: Table 1, the tests, and one :class:`ModelReport` per encoder."""
    outcomes = list(outcomes)
    table = table1(outcomes, n_boot=n_boot, seed=seed)
    tests = paired_tests(outcomes)
    directions = by_direction(outcomes, n_boot=n_boot, seed=seed)
    models: dict[str, ModelReport] = {}
    for name in dict.fromkeys(o.setting.encoder for o in outcomes):
        outs = [o for o in outcomes if o.setting.encoder == name]
        keys = {o.setting.key for o in outs}
        models[name] = ModelReport(name, outs, table[table.index.isin(keys)], tests[tests["encoder"] == name],
                                   directions[directions["setting"].isin(keys)])
    return PSSReport(outcomes, table, tests, directions, direction_tests(outcomes),
                     hardest_flips(outcomes, k=n_hardest), models)


# --------------------------------------------------------------------------
# Figure
# --------------------------------------------------------------------------

def pss_vs_accuracy(ours: pd.DataFrame, *, with_paper: bool = True,
                    relatives: Sequence[float] = (0.6, 0.7, 0.8, 0.9, 1.0), title: str = ""):
    """PSS against test accuracy, one point per setting, with iso-lines of relative PSS.

    Points on one dashed line share a relative PSS (PSS = r x accuracy);
    ours are filled, the paper's hollow; error bars are the 95% intervals.

    Returns:
        A matplotlib ``Figure``.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, ax = plt.subplots(figsize=(7.2, 5.4))
    frames = [ours.assign(source="ours")] + ([paper_table1()] if with_paper else [])
    both = pd.concat(frames)
    lo_x = float(np.nanmin(both["accuracy"])) if len(both) else 0.5
    xs = np.linspace(min(0.45, lo_x - 0.05), 1.0, 50)
    for r in relatives:
        ax.plot(xs, r * xs, ls="--", lw=0.8, color="0.6", zorder=0)
        ax.annotate(f"relative {r:.0%}", (xs[0] + 0.005, r * (xs[0] + 0.005)), fontsize=7, color="0.4",
                    ha="left", va="bottom")
    encoders = list(dict.fromkeys(both["encoder"]))
    colors = dict(zip(encoders, sns.color_palette("colorblind", n_colors=max(1, len(encoders)))))
    markers = {"FB": "o", "FT": "^", "native": "s"}
    for r in ours.itertuples():
        xerr = [[r.accuracy - r.accuracy_low], [r.accuracy_high - r.accuracy]]
        yerr = [[r.pss - r.pss_low], [r.pss_high - r.pss]]
        if np.isfinite(r.pss) and np.isfinite(r.pss_low):
            ax.errorbar(r.accuracy, r.pss, xerr=np.clip(xerr, 0, None), yerr=np.clip(yerr, 0, None), fmt="none",
                        ecolor=colors[r.encoder], alpha=0.5, lw=1)
        ax.scatter(r.accuracy, r.pss, color=colors[r.encoder], marker=markers.get(r.mode, "o"), s=55,
                   edgecolor="black", lw=0.6, zorder=3)
        ax.annotate(f"{r.encoder} {r.final_layers} {r.mode}", (r.accuracy, r.pss), xytext=(4, 3),
                    textcoords="offset points", fontsize=6.5)
    if with_paper:
        for r in paper_table1().itertuples():
            ax.scatter(r.accuracy, r.pss, facecolor="none", edgecolor=colors[r.encoder],
                       marker=markers.get(r.mode, "o"), s=55, lw=1.2, zorder=2)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colors[e], marker="o", ls="", label=e) for e in encoders]
    handles += [Line2D([], [], color="0.3", marker=m, ls="", label=k, markerfacecolor="0.7")
                for k, m in markers.items() if k in set(both["mode"])]
    if with_paper:
        handles.append(Line2D([], [], color="0.3", marker="o", ls="", markerfacecolor="none",
                              label="hollow: paper, Table 1"))
    ax.legend(handles=handles, fontsize=7, loc="lower right", frameon=True)
    ax.set_xlabel("test accuracy (dev + test sentences; 95% Wilson)")
    ax.set_ylabel("PSS (share of pairs with both sides right; 95% bootstrap)")
    ax.set_xlim(xs[0], 1.01)
    ax.set_ylim(0, 1.0)
    ax.set_title(title or "PSS against test accuracy")
    fig.tight_layout()
    return fig


def table1_bars(ours: pd.DataFrame, *, with_paper: bool = True):
    """Table 1 as horizontal bars: PSS per setting with its 95% interval, ours and the paper's.

    Returns:
        A matplotlib ``Figure``.
    """
    from mtlib.analysis import plots

    bars = pd.concat([ours] + ([paper_table1()] if with_paper else [])).reset_index()
    bars["label"] = bars["encoder"] + " · " + bars["final_layers"] + " · " + bars["mode"]
    bars = bars.rename(columns={"pss_low": "ci_low", "pss_high": "ci_high"})
    bars = bars.fillna({"ci_low": bars["pss"], "ci_high": bars["pss"]})
    return plots.rate_bars(bars, label="label", rate="pss", hue="source", xlabel="PSS (95% bootstrap interval)",
                           title="Table 1 as bars: PSS per setting", xlim=(0, 1))


# --------------------------------------------------------------------------
# Parameters and conclusions of the notebook
# --------------------------------------------------------------------------

def validate_parameters(*, encoders: Sequence[str], heads: Sequence[str], finetune: Sequence[str],
                        native: Sequence[str], seeds: Sequence[int], reference_format: str, clean_tokens: str,
                        n_boot: int, finetune_heads: Mapping[str, Sequence[str]] | None = None,
                        finetune_settings: Mapping[str, Mapping[str, Any]] | None = None,
                        **sizes: int) -> None:
    """Check the notebook's parameters once, before any work.

    Raises:
        ValueError: naming the parameter, what it holds and what is allowed.
    """
    from mtlib.data.yelp import REFERENCE_FORMATS

    problems = []
    if not encoders and not native:
        problems.append("encoders and native are both empty: nothing to score")
    if encoders and not heads:
        problems.append("heads is empty: choose 'linear' and/or 'mlp'")
    if [h for h in heads if h not in ("linear", "mlp")]:
        problems.append(f"heads={list(heads)}: allowed values are 'linear' and 'mlp'")
    if [e for e in finetune if e not in encoders]:
        problems.append(f"finetune={list(finetune)} must be a subset of encoders={list(encoders)}")
    for enc, hs in (finetune_heads or {}).items():
        if enc not in finetune or isinstance(hs, str) or [h for h in hs if h not in heads]:
            problems.append(f"finetune_heads[{enc!r}]={hs!r}: keys must be in finetune={list(finetune)} and values "
                            f"lists of heads from heads={list(heads)}")
    if (encoders or finetune) and not seeds:
        problems.append("seeds is empty: trained settings need at least one seed")
    if any(not isinstance(s, int) for s in seeds):
        problems.append(f"seeds={list(seeds)}: integers expected")
    for enc, kw in (finetune_settings or {}).items():
        if enc not in finetune or not isinstance(kw, Mapping) or set(kw) - set(FINETUNE_KEYS):
            problems.append(f"finetune_settings[{enc!r}]={kw!r}: keys must be in finetune={list(finetune)} and "
                            f"values dicts with keys among {list(FINETUNE_KEYS)}")
    if reference_format not in REFERENCE_FORMATS:
        problems.append(f"reference_format={reference_format!r}: allowed {list(REFERENCE_FORMATS)}")
    if clean_tokens not in TOKENIZERS:
        problems.append(f"clean_tokens={clean_tokens!r}: allowed {list(TOKENIZERS)}")
    if n_boot < 1:
        problems.append(f"n_boot={n_boot}: at least 1")
    problems += [f"{k}={v}: must be >= 0" for k, v in sizes.items() if v < 0]
    if problems:
        raise ValueError("invalid parameters: " + "; ".join(problems))


def conclusions(table: pd.DataFrame, tests: pd.DataFrame, directions: pd.DataFrame, *,
                alpha: float = 0.05) -> list[str]:
    """Sentences read off this run's tables (nothing asserted in advance).

    Args:
        table: :func:`table1` (ours).
        tests: :func:`paired_tests`.
        directions: :func:`direction_tests`.
    """
    lines = []
    scored = table[np.isfinite(table["pss"])]
    if scored.empty:
        return ["No setting has a PSS (no pairs survived cleaning, or nothing was scored)."]
    best = scored["pss"].idxmax()
    b = scored.loc[best]
    lines.append(f"Highest PSS: {best} with {b['pss']:.3f} [{b['pss_low']:.3f}, {b['pss_high']:.3f}] at test accuracy "
                 f"{b['accuracy']:.3f} (majority baseline {b['majority_baseline']:.3f}); relative PSS "
                 f"{b['relative']:.3f}.")
    best_rel = scored["relative"].idxmax()
    lines.append(f"Highest relative PSS: {best_rel} ({scored.loc[best_rel, 'relative']:.3f}); lowest: "
                 f"{scored['relative'].idxmin()} ({scored['relative'].min():.3f}).")
    for name in ("FB vs FT", "Linear vs DNN"):
        part = tests[tests["comparison"] == name]
        if part.empty:
            lines.append(f"{name}: no pair of settings to compare in this run.")
            continue
        for (a, b_), g in part.groupby(["a", "b"], sort=False):
            sig = int((g["p_value"] < alpha).sum())
            d = g["difference"].mean()
            higher = "the first is higher" if d > 0 else "the second is higher" if d < 0 else "equal"
            lines.append(f"{name}, {a} vs {b_}: mean PSS difference {d:+.3f} ({higher}); "
                         f"McNemar p < {alpha} in {sig} of {len(g)} seed(s) "
                         f"(p = {', '.join(f'{p:.3g}' for p in g['p_value'])}).")
    if not directions.empty:
        sig = int((directions["p_value"] < alpha).sum())
        gap = (directions["pss_neg_to_pos"] - directions["pss_pos_to_neg"]).mean()
        lines.append(f"Direction of the switch (Appendix C): PSS(neg->pos) - PSS(pos->neg) averages {gap:+.3f} over "
                     f"{len(directions)} runs; Fisher's exact test p < {alpha} in {sig} of them.")
    return lines
