"""The cases of ``benchmarks/hostile.py``: every family of issues 36 and 43, each a function ``case(tmp) -> outcome``.

Not a benchmark itself. Each case builds its hostile input in ``tmp`` (a fresh folder, the working
directory of the case's process, with its own ``MTLIB_CACHE``) from invented words, calls mtlib's public
functions as a user would, and judges what came back with the helpers below. Only names that existed before
issue 36 are called, so the same cases run on an older checkout (the "before" column); a function that a
checkout lacks makes its case ``unclear``.

``owner`` says which part of the work on issue 36 each family belongs to (``suite``: relations, suite and
transformations; ``numerics``: non-finite model outputs; ``reliability``: the rest).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

Outcome = tuple[str, str]


@dataclass(frozen=True)
class Case:
    """One hostile case: its family, a name, the function, the outcome wanted once issue 36 is fixed."""

    family: str
    name: str
    fn: Callable[[Path], Outcome]
    wanted: str
    owner: str


CASES: list[Case] = []


def case(family: str, name: str, wanted: str = "clear", owner: str = "reliability") -> Callable:
    """Register ``fn`` as a case."""

    def register(fn: Callable[[Path], Outcome]) -> Callable[[Path], Outcome]:
        CASES.append(Case(family, name, fn, wanted, owner))
        return fn

    return register


# ------------------------------------------------------------------------------------------------ judges


def _message(err: BaseException) -> str:
    return str(err.code) if isinstance(err, SystemExit) else str(err)


def _own(err: BaseException) -> bool:
    """An error class of mtlib (``DataFormatError``, ``MtlibInputError``, ...)."""
    return any(c.__module__.startswith("mtlib") for c in type(err).__mro__)


def _names(message: str, names: Iterable[str | tuple[str, ...]]) -> bool:
    """Whether ``message`` holds every name (a tuple: any one of its alternatives), case-insensitively."""
    low = message.lower()
    return all(any(a.lower() in low for a in ((n,) if isinstance(n, str) else n)) for n in names)


def judge_error(err: BaseException, names: Iterable[str | tuple[str, ...]] = ()) -> Outcome:
    """``clear``: mtlib's own error, or a ValueError/TypeError/OSError/SystemExit naming ``names``."""
    kind, message = type(err).__name__, _message(err)
    detail = f"{kind}: {message[:240]}"
    if isinstance(err, MemoryError):
        return "hang", detail
    if isinstance(err, (RecursionError, UnicodeDecodeError)):
        return "unclear", detail
    if _own(err):
        return "clear", detail
    if isinstance(err, (ValueError, TypeError, OSError, LookupError, SystemExit)) and _names(message, names):
        return "clear", detail
    return "unclear", detail


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


def refused(fn: Callable[[], Any], *names: str | tuple[str, ...]) -> Outcome:
    """A hostile input that must be refused: a result is ``silent``; an error is judged."""
    try:
        result = fn()
    except BaseException as err:  # noqa: BLE001 - every error is judged by its class and message
        return judge_error(err, names)
    return "silent", f"accepted: {short(result)}"


def either(fn: Callable[[], Any], good: Callable[[Any], bool], *names: str | tuple[str, ...]) -> Outcome:
    """An input that may give a result (``works`` when ``good(result)``, else ``silent``) or be refused."""
    try:
        result = fn()
    except BaseException as err:  # noqa: BLE001
        return judge_error(err, names)
    try:
        ok = good(result)
    except Exception as err:  # noqa: BLE001 - a result that cannot even be inspected is not well-formed
        return "silent", f"result not well-formed ({type(err).__name__}: {err}): {short(result)}"
    return ("works", short(result)) if ok else ("silent", short(result))


def finite(value: Any) -> bool:
    """No NaN or infinity anywhere in a number, array, list, dict or DataFrame."""
    if isinstance(value, (float, np.floating)):
        return math.isfinite(float(value))
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "fc" or bool(np.isfinite(value).all())
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(finite(v) for v in value)
    if hasattr(value, "select_dtypes"):
        return bool(np.isfinite(value.select_dtypes("number").to_numpy(float)).all())
    return True


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def hashed(texts: Any, d: int = 8) -> np.ndarray:
    """A deterministic ``(n, d)`` vector per text, what an encoder would give (invented, no model)."""
    rows = [np.frombuffer(hashlib.sha256(str(t).encode()).digest()[:d], dtype=np.uint8) for t in texts]
    return np.stack(rows).astype(np.float32) - 128.0 if rows else np.zeros((0, d), np.float32)


class HashEncoder:
    """An encoder stand-in: ``embed(texts) -> (n, 8)`` hashed vectors."""

    name = "hash-encoder"

    def embed(self, texts: Any) -> np.ndarray:
        return hashed(list(texts))


def positive_score(texts: Any) -> np.ndarray:
    """A sentiment stand-in: P(positive) from the words 'good'/'great' (deterministic, in [0, 1])."""
    return np.array([0.9 if ("good" in t or "great" in t) else 0.2 + 0.001 * (len(t) % 50) for t in texts])


REVIEWS = [
    "a good film with a warm cast",
    "the plot was dull and long",
    "great acting by Anna and Tom",
    "the ending was flat",
    "a great script and good music",
    "a slow start but a good finish",
    "the film was too long by 20 minutes",
    "Maria said the show was good",
]


# ------------------------------------------------------------------------------ degenerate inputs (suite)


def _gate_fails(result: Any) -> bool:
    """A relation result that measured nothing must say so: no cases and a gate that fails, never a bare NaN
    shown as its rate (the issue's wording)."""
    if getattr(result, "cases", 1) == 0:
        if "nan" in repr(result).lower():
            return False
        try:
            return result.passes(max_rate=0.5) is False
        except ValueError:
            return True
    return finite([result.rate, result.ci_low, result.ci_high])


def _relations():
    from mtlib import relations as R
    from mtlib.relations import transformations as T

    return R, T


def _pair_scorer(pairs: Any) -> np.ndarray:
    return np.array([0.9 if a < b else 0.1 for a, b in pairs])


for _n in (0, 1):

    @case("degenerate", f"single_input_on_{_n}_texts", "works", "suite")
    def _single(tmp: Path, n: int = _n) -> Outcome:
        R, T = _relations()
        rel = R.SingleInput("excl", "order", T.Concatenation("Wow!", "start"))
        return either(lambda: rel.evaluate(REVIEWS[:n], positive_score, n_boot=20), _gate_fails, ("texts", "inputs"))

    @case("degenerate", f"pairwise_systematicity_on_{_n}_texts", "works", "suite")
    def _pairwise(tmp: Path, n: int = _n) -> Outcome:
        R, T = _relations()
        rel = R.PairwiseSystematicity("excl", T.Concatenation("Wow!", "start"))
        return either(lambda: rel.evaluate(REVIEWS[:n], positive_score, n_boot=20), _gate_fails, ("texts", "pairs"))


for _n in (0, 1, 2):

    @case("degenerate", f"transitivity_on_{_n}_items", "works", "suite")
    def _transitivity(tmp: Path, n: int = _n) -> Outcome:
        R, _ = _relations()
        words = ["poodle", "dog", "animal"][:n]
        rel = R.ThreeWayTransitivity("hyp")
        return either(lambda: rel.evaluate(words, _pair_scorer, n_boot=20), _gate_fails, ("items", "triples", "texts"))


@case("degenerate", "pairwise_scores_all_tied", "works", "suite")
def _tied(tmp: Path) -> Outcome:
    R, T = _relations()
    rel = R.PairwiseSystematicity("excl", T.Concatenation("Wow!", "start"))
    return either(
        lambda: rel.evaluate(REVIEWS, lambda t: np.full(len(t), 0.5), n_boot=20), _gate_fails, ("ties", "scores")
    )


@case("degenerate", "suite_test_without_inputs", "clear", "suite")
def _suite_empty(tmp: Path) -> Outcome:
    from mtlib.suite import MFT, Suite

    def run() -> Any:
        result = Suite("empty").add("praise", MFT("positive"), [], threshold=0.1).run(positive_score)
        row = result.summary().iloc[0]
        return {"passed": bool(row["passed"]), "rate": float(row["rate"])}

    outcome = refused(run, ("inputs", "texts"))
    if outcome[0] == "silent" and "'passed': False" in outcome[1] and "nan" not in outcome[1]:
        return "works", outcome[1]
    return outcome


@case("degenerate", "check_with_empty_arrays", "works", "suite")
def _check_empty(tmp: Path) -> Outcome:
    R, _ = _relations()
    rel = R.PairwiseSystematicity("excl")
    return either(lambda: rel.check(np.array([]), np.array([]), n_boot=20), _gate_fails, ("scores", "pairs", "src"))


# ---------------------------------------------------------------------- NaN recorded by a run (reliability)


def _recorded(tmp: Path, report: Any, stem: str, model: str | None = "hash-encoder") -> Outcome:
    """Record ``report`` in a fresh run; ``silent`` if metrics.json holds a null/NaN that ``_skipped`` does not name."""
    from mtlib.run.results import Run

    run = Run(stem, profile="hostile", out_dir=str(tmp / "out"), params={})
    try:
        run.record_report(report, model=model)
    except BaseException as err:  # noqa: BLE001
        return judge_error(err, ())
    metrics = json.loads(run.metrics_path.read_text())
    skipped = metrics.get("_skipped", {})
    bad = [k for k, v in metrics.items() if k not in skipped and k != "_skipped" and not _written_finite(v)]
    return ("silent", f"{len(bad)} null/NaN keys, e.g. {bad[:3]}") if bad else ("works", f"{len(skipped)} skipped")


def _written_finite(value: Any) -> bool:
    """No null (how NaN was written), NaN or infinity anywhere in a value read back from metrics.json."""
    if value is None:
        return False
    if isinstance(value, dict):
        return all(_written_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_written_finite(v) for v in value)
    return finite(value)


@case("nan-metrics", "montague_n_boot_0_intervals", "works")
def _m04(tmp: Path) -> Outcome:
    """Notebook 04 with ``n_boot=0`` skips its interval keys: the relation leaves them NaN and says no bootstrap ran."""
    import numpy as np

    from mtlib.relations import DistanceOrder

    result = DistanceOrder("toy").check(np.zeros(4), np.ones(4), ["a", "a", "b", "b"], None, None, 0)
    ok = result.extra["n_boot"] == 0 and np.isnan([result.ci_low, result.ci_high]).all() and result.rate == 0.0
    return ("works", "intervals NaN, n_boot=0 recorded") if ok else ("silent", f"{result.ci_low}, {result.extra}")


@case("nan-metrics", "relation_result_n_boot_0_recorded", "works")
def _relation_n_boot_0(tmp: Path) -> Outcome:
    R, T = _relations()
    result = R.SingleInput("excl", "order", T.Concatenation("Wow!", "start")).evaluate(
        REVIEWS, positive_score, n_boot=0
    )
    return _recorded(tmp, result, "not_a_notebook")


for _what, _value in (("nan", float("nan")), ("inf", float("inf")), ("nan_in_list", [0.5, float("nan")])):

    @case("nan-metrics", f"record_plain_{_what}", "clear")
    def _plain(tmp: Path, value: Any = _value) -> Outcome:
        return _recorded(tmp, {"violation_rate/overall": value}, "not_a_notebook", model=None)


# ---------------------------------------------------------------------- non-finite model outputs (numerics)


def _nan_probs(texts: Any) -> np.ndarray:
    return np.full(len(texts), np.nan)


@case("non-finite-outputs", "mft_on_nan_probabilities", "clear", "numerics")
def _mft_nan(tmp: Path) -> Outcome:
    from mtlib.suite import MFT, Suite

    suite = Suite("nan").add("praise", MFT("positive"), REVIEWS, threshold=0.5)
    return refused(lambda: suite.run(_nan_probs).summary()[["rate", "passed"]].to_dict("records"), ("nan", "finite"))


@case("non-finite-outputs", "order_relation_on_infinite_scores", "clear", "numerics")
def _inf_scores(tmp: Path) -> Outcome:
    R, T = _relations()
    rel = R.SingleInput("excl", "order", T.Concatenation("Wow!", "start"))
    return refused(lambda: rel.evaluate(REVIEWS, lambda t: np.full(len(t), np.inf), n_boot=20), ("inf", "finite"))


@case("non-finite-outputs", "pairwise_on_nan_scores", "clear", "numerics")
def _nan_pairwise(tmp: Path) -> Outcome:
    R, T = _relations()
    rel = R.PairwiseSystematicity("excl", T.Concatenation("Wow!", "start"))
    return refused(lambda: rel.evaluate(REVIEWS, _nan_probs, n_boot=20), ("nan", "finite"))


for _bad in ("nan", "inf", "-inf"):

    @case("non-finite-outputs", f"word_vectors_with_{_bad}", "clear", "numerics")
    def _vectors(tmp: Path, bad: str = _bad) -> Outcome:
        from mtlib import models

        path = write(tmp / "vectors.txt", f"red 0.5 {bad}\ncar 0.25 -0.5\nblue 0.1 0.2\n")
        return refused(lambda: models.load(str(path), use_cache=False).embed(["red car"]), "vectors.txt")


# --------------------------------------------------------------------------- non-strings as text (suite)

for _what, _value in (("none", None), ("bytes", b"a good film"), ("int", 7)):

    @case("non-strings", f"suite_input_{_what}", "clear", "suite")
    def _suite_nonstr(tmp: Path, value: Any = _value) -> Outcome:
        from mtlib.suite import MFT, Suite

        def add_and_run() -> Any:
            suite = Suite("s").add("praise", MFT("positive"), [REVIEWS[0], value], threshold=0.5)
            return suite.run(positive_score).summary()["rate"].tolist()

        return refused(add_and_run, ("text", "str"))

    @case("non-strings", f"relation_input_{_what}", "clear", "suite")
    def _relation_nonstr(tmp: Path, value: Any = _value) -> Outcome:
        R, T = _relations()
        rel = R.PairwiseSystematicity("excl", T.Concatenation("Wow!", "start"))
        return refused(lambda: rel.evaluate([*REVIEWS[:3], value], positive_score, n_boot=10).rate, ("text", "str"))


@case("non-strings", "relation_given_a_bare_string", "clear", "suite")
def _bare_relation(tmp: Path) -> Outcome:
    R, T = _relations()
    rel = R.PairwiseSystematicity("excl", T.Concatenation("Wow!", "start"))
    return refused(lambda: rel.evaluate("a good film", positive_score, n_boot=10).cases, ("text", "str", "list"))


@case("non-strings", "classify_a_bare_string", "clear", "suite")
def _bare_classify(tmp: Path) -> Outcome:
    from mtlib import models

    model = models.load("vader")
    return refused(lambda: np.asarray(model.classify("a bare string")).shape, ("text", "str", "list"))


# ------------------------------------------------------------------------- parameters out of range (mixed)


def _lexicon(**kw: Any) -> Callable[[], Any]:
    from mtlib.data.adjectives import load_lexicon

    return lambda: tuple(map(len, load_lexicon(bundled=True, **kw)))


for _arg, _value in (
    ("max_per_type", -1),
    ("max_nouns", -2),
    ("max_per_type", 1.5),
    ("max_nouns", True),
    ("max_per_type", float("nan")),
):

    @case("out-of-range", f"load_lexicon_{_arg}_{_value}")
    def _lex(tmp: Path, arg: str = _arg, value: Any = _value) -> Outcome:
        return refused(_lexicon(**{arg: value}), arg)


@case("out-of-range", "yelp_label_7")
def _yelp_label(tmp: Path) -> Outcome:
    from mtlib.data import yelp

    path = write(tmp / "sentiment.dev.0", "the soup was cold\n")
    return refused(lambda: yelp.read_sentences(path, 7)["label"].tolist(), "label")


@case("out-of-range", "yelp_direction_sideways")
def _yelp_direction(tmp: Path) -> Outcome:
    from mtlib.data import yelp

    path = write(tmp / "reference.0", "it was bad\tit was good\n")
    return refused(lambda: yelp.read_tab_pairs(path, "sideways")["direction"].tolist(), "direction")


@case("out-of-range", "yelp_aligned_direction_sideways")
def _yelp_aligned(tmp: Path) -> Outcome:
    from mtlib.data import yelp

    a, b = write(tmp / "src.txt", "it was bad\n"), write(tmp / "rew.txt", "it was good\n")
    return refused(lambda: yelp.read_aligned_pairs(a, b, "sideways"), "direction")


SICK_HEADER = (
    "pair_ID\tsentence_A\tsentence_B\tentailment_label\trelatedness_score\tentailment_AB\tentailment_BA\t"
    "sentence_A_original\tsentence_B_original\tsentence_A_dataset\tsentence_B_dataset\tSemEval_set\n"
)

for _score in ("nan", "inf", "-inf", "7.5", "0"):

    @case("out-of-range", f"sick_relatedness_{_score}")
    def _sick(tmp: Path, score: str = _score) -> Outcome:
        from mtlib.data.sick import load_sick

        row = f"1\tA man is in a cafe\tA man is inside\tENTAILMENT\t{score}\tA_entails_B\tB_neutral_A\t"
        row += "x\ty\tF\tF\tTRAIN\n"
        path = write(tmp / "SICK.txt", SICK_HEADER + row)
        return refused(lambda: load_sick(path)["relatedness_score"].tolist(), "SICK.txt:2")


@case("out-of-range", "wide_csv_duplicate_columns")
def _wide_dup(tmp: Path) -> Outcome:
    from mtlib.data.adjectives import load_wide_csv

    text = "Nouns,SYN Nouns,Nouns,SYN Nouns\nhouse,,garden,\ncar,,boat,\n"
    path = write(tmp / "adjectives.csv", text)
    return refused(lambda: load_wide_csv(path)["word"].tolist(), "adjectives.csv:1")


@case("out-of-range", "wide_csv_duplicate_syn_columns")
def _wide_dup_syn(tmp: Path) -> Outcome:
    from mtlib.data.adjectives import load_wide_csv

    text = "Ambiguous,SYN Ambiguous,SYN Ambiguous\nlight,bright,pale\n"
    path = write(tmp / "adjectives.csv", text)
    return refused(lambda: load_wide_csv(path)[["word", "synonym"]].values.tolist(), "adjectives.csv:1")


for _arg, _value in (("n", -1), ("n", 2.5), ("by", "no_such_column")):

    @case("out-of-range", f"subsample_{_arg}_{_value}")
    def _subsample(tmp: Path, arg: str = _arg, value: Any = _value) -> Outcome:
        import pandas as pd

        from mtlib.data.sample import subsample

        frame = pd.DataFrame({"text": REVIEWS, "label": [1, 0] * 4})
        kw = {"n": value} if arg == "n" else {"n": 3, "by": value}
        return refused(lambda: len(subsample(frame, **kw)), arg)


for _value in (-0.1, 1.5, float("nan"), float("inf")):

    @case("out-of-range", f"cogalex_test_fraction_{_value}")
    def _fraction(tmp: Path, value: float = _value) -> Outcome:
        from mtlib.data.cogalex import stable_split

        return refused(lambda: stable_split("hot", "cold", value), "test_fraction")


for _arg, _value in (("n_boot", -1), ("permutations", -5), ("max_split_distance", float("nan"))):

    @case("out-of-range", f"montague_{_arg}_{_value}")
    def _montague_arg(tmp: Path, arg: str = _arg, value: Any = _value) -> Outcome:
        import numpy as np
        import pandas as pd

        from mtlib.analysis.type_difference import type_difference_test
        from mtlib.experiments import montague
        from mtlib.relations import DistanceOrder

        if arg == "n_boot":
            return refused(lambda: DistanceOrder("toy").check(np.zeros(2), np.ones(2), n_boot=value), arg)
        if arg == "permutations":
            counts = pd.DataFrame({"adj": ["a", "b"], "k": [1, 2], "n": [3, 3]})
            types = pd.Series(["S-I", "A"], index=["a", "b"])
            return refused(lambda: type_difference_test(counts, unit=["adj"], types=types, permutations=value), arg)
        return refused(lambda: montague.Spec(max_split_distance=value), arg)


for _arg, _value in (("lr", float("nan")), ("lr", float("inf")), ("steps", -3), ("init_scale", float("inf"))):

    @case("out-of-range", f"tre_fit_{_arg}_{_value}")
    def _tre_arg(tmp: Path, arg: str = _arg, value: Any = _value) -> Outcome:
        from mtlib.analysis.tree_reconstruction import fit_tre
        from mtlib.data.trees import parse_tree

        trees = [parse_tree(t) for t in ("(3 (2 a) (3 film))", "(1 (2 the) (1 plot))", "(4 (4 great) (2 cast))")]
        kw = {"steps": 3, "lr": 0.01, arg: value}
        return refused(lambda: fit_tre(trees, hashed(["a", "b", "c"]), **kw).train_tre.tolist(), arg)


@case("out-of-range", "tre_load_trees_max_sentences_-2")
def _tre_max(tmp: Path) -> Outcome:
    from mtlib.experiments import tre

    path = write(tmp / "trees.txt", "(3 (2 a) (3 film))\n(1 (2 the) (1 plot))\n(4 (4 great) (2 cast))\n")
    return refused(lambda: len(tre.load_trees(str(path), max_sentences=-2)[0]), "max_sentences")


@case("out-of-range", "parse_tree_max_depth_0")
def _tree_bound(tmp: Path) -> Outcome:
    from mtlib.data.trees import parse_tree

    return refused(lambda: str(parse_tree("(3 (2 a) (3 film))", max_depth=0)), "max_depth")


for _value in (float("nan"), 1.5, -1.5):  # a cosine threshold lies in [-1, 1)

    @case("out-of-range", f"similarity_threshold_{_value}", "clear", "suite")
    def _threshold(tmp: Path, value: float = _value) -> Outcome:
        R, T = _relations()
        return refused(lambda: R.SingleInput("s", "similarity", T.Casing("lower"), threshold=value), "threshold")


for _name, _make in (
    ("concatenation_empty_text", lambda T: T.Concatenation("", "end")),
    ("concatenation_empty_name", lambda T: T.Concatenation("Wow!", "end", name=" ")),
    ("name_swap_empty_name", lambda T: T.NameSwap(names=("", "Anna"))),
    ("synonyms_empty_key", lambda T: T.Synonyms({"": "fine"})),
    ("synonyms_empty_synonym", lambda T: T.Synonyms({"good": ""})),
):

    @case("out-of-range", f"transformation_{_name}", "clear", "suite")
    def _transformation(tmp: Path, make: Callable = _make) -> Outcome:
        _, T = _relations()

        def build_and_apply() -> Any:
            t = make(T)
            return [t(x) for x in ("Anna saw a good film", "a good plot")]

        return refused(build_and_apply, ("text", "name", "synonym", "empty", "key"))


@case("out-of-range", "punctuation_strip_to_empty", "clear", "suite")
def _punct_empty(tmp: Path) -> Outcome:
    _, T = _relations()
    return refused(lambda: T.Punctuation("strip")("?!..."), ("empty", "punctuation"))


# ------------------------------------------------------------------------------ runner options (reliability)

PARAMS = 'profile: str = "quick"  # profile\nout_dir: str = ""  # output root\nn_boot: int = 10  # replicates | >= 1\n'
BODY = (
    'from mtlib.run import results\nrun = results.Run.from_notebook("{stem}", globals())\nrun.record("value", n_boot)\n'
)


def project(root: Path, stems: tuple[str, ...] = ("01_a",), body: str = BODY, params: str = PARAMS) -> Path:
    """A throw-away project: notebooks of two cells, a profile ``t``, a rule table, a ``data/`` folder."""
    import nbformat

    (root / "mtlib").mkdir(parents=True)
    (root / "data").mkdir()
    nb_dir = root / "notebooks"
    (nb_dir / "profiles").mkdir(parents=True)
    for stem in stems:
        cell = nbformat.v4.new_code_cell(params)
        cell.metadata["tags"] = ["parameters"]
        nb = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_code_cell(body.format(stem=stem))])
        nb.metadata["kernelspec"] = {"name": "mtlib", "display_name": "Python (mtlib)", "language": "python"}
        nbformat.write(nb, nb_dir / f"{stem}.ipynb")
    (nb_dir / "profiles" / "t.yaml").write_text("notebooks: {}\n")
    return root


def main_of_runner(argv: list[str]) -> int:
    """``mtrun``'s ``main(argv)``; an ``argparse`` refusal (exit status 2, message on stderr) becomes a
    ``SystemExit`` holding that message, as a user reads it."""
    import contextlib
    import io

    import mtrun as runner

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            return runner.main(argv)
    except SystemExit as stop:
        if isinstance(stop.code, int) and err.getvalue().strip():
            raise SystemExit(err.getvalue().strip().splitlines()[-1]) from None
        raise


def _runner(tmp: Path, args: list[str], *names: str | tuple[str, ...]) -> Outcome:
    """``python -m mtrun --list`` on a throw-away project: an exit status 0 accepted the options."""
    root = project(tmp / "p")

    def call() -> Any:
        status = main_of_runner(["--profile", "t", "--root", str(root), "--list", *args])
        if status != 0:
            raise SystemExit(f"exit status {status}")
        return f"exit status 0; folders in data/: {sorted(p.name for p in (root / 'data').iterdir())}"

    return refused(call, *names)


for _name, _args, _words in (
    ("workers_without_dask", ["--workers", "3"], ("--workers",)),
    ("retries_without_dask", ["--retries", "2"], ("--retries",)),
    ("connect_timeout_without_dask", ["--connect-timeout", "5"], ("--connect-timeout",)),
    ("scheduler_without_dask", ["--scheduler", "tcp://127.0.0.1:9"], ("--scheduler",)),
    ("fan_out_without_dask", ["--fan-out", "models"], ("--fan-out",)),
    (
        "workers_with_a_scheduler",
        ["--executor", "dask", "--workers", "3", "--scheduler", "tcp://127.0.0.1:9"],
        ("--workers",),
    ),
    ("out_dir_empty", ["--out-dir", ""], ("--out-dir",)),
    ("out_dir_blank", ["--out-dir", "  "], ("--out-dir",)),
    ("timeout_nan", ["--timeout", "nan"], ("--timeout", "seconds")),
    ("threads_zero", ["--threads", "0"], ("--threads",)),
):

    @case("runner-options", _name)
    def _option(tmp: Path, args: list[str] = _args, names: tuple = _words) -> Outcome:
        return _runner(tmp, args, *names)


for _where in ("data", "data/figures_here"):

    @case("runner-options", f"out_dir_inside_{_where.replace('/', '_')}")
    def _out_in_data(tmp: Path, where: str = _where) -> Outcome:
        root = project(tmp / "p")

        def call() -> Any:
            status = main_of_runner(["--profile", "t", "--root", str(root), "--list", "--out-dir", str(root / where)])
            return f"exit status {status}"

        return refused(call, "--out-dir", "data")


# ----------------------------------------------------------------------- outputs kept through a failure (reliability)

FAILING_BODY = BODY + 'assert n_boot != 99, "n_boot 99 fails on purpose"\n'


def _kept(tmp: Path, second: list[str]) -> Outcome:
    """A good run, then ``second`` (a refused or a failing run): the good run's metrics must be there, unchanged."""
    root = project(tmp / "p", body=FAILING_BODY)
    metrics = root / "papermill_runs" / "t" / "01_a" / "metrics.json"
    if main_of_runner(["--profile", "t", "--root", str(root), "-p", "01.n_boot=5"]) != 0 or not metrics.exists():
        return "unclear", "the good run itself failed"
    before = metrics.read_bytes()
    status = main_of_runner(["--profile", "t", "--root", str(root), *second])
    if not metrics.exists() or metrics.read_bytes() != before:
        return "lost", f"exit status {status}; metrics.json of the good run gone or changed"
    return ("works", "the good run's outputs kept") if status != 0 else ("silent", "exit status 0")


@case("lost-outputs", "refused_parameter_keeps_the_last_good_run", "works")
def _kept_refused(tmp: Path) -> Outcome:
    return _kept(tmp, ["-p", "01.n_boot=0"])


@case("lost-outputs", "failing_notebook_keeps_the_last_good_run", "works")
def _kept_failed(tmp: Path) -> Outcome:
    return _kept(tmp, ["-p", "01.n_boot=99"])


@case("lost-outputs", "refused_nan_keeps_the_metrics_recorded_before", "works")
def _kept_nan(tmp: Path) -> Outcome:
    from mtlib.run.results import Run

    run = Run("not_a_notebook", profile="hostile", out_dir=str(tmp / "out"), params={})
    run.record("accuracy", 0.75)
    try:
        run.record("rate", float("nan"))
    except ValueError:
        pass
    kept = json.loads(run.metrics_path.read_text()).get("accuracy")
    return ("works", "accuracy kept") if kept == 0.75 else ("lost", f"accuracy is now {kept!r}")


@case("lost-outputs", "damaged_cache_shard_is_recomputed", "works")
def _kept_cache(tmp: Path) -> Outcome:
    from mtlib.utils.cache import ArrayCache, cached_rows

    cache = ArrayCache(("hostile", "damage"), root=tmp / "cache")
    texts = [f"sentence {i}" for i in range(20)]
    first = cached_rows(cache, texts, hashed)
    shard = next(cache.folder.glob("shard-*.npz"))
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0x5A
    shard.write_bytes(bytes(data))
    again = cached_rows(ArrayCache(("hostile", "damage"), root=tmp / "cache"), texts, hashed)
    return ("works", "recomputed, same values") if np.array_equal(first, again) else ("lost", "other values")


# ------------------------------------------------------------------------ names that become paths (reliability)


def _secret(tmp: Path, name: str, text: str) -> Path:
    return write(tmp / name, text)


@case("paths", "lexical_language_dot_dot_bundled_layout", "clear")
def _lang_bundled(tmp: Path) -> Outcome:
    from mtlib.data.cogalex import load_lexical_relations

    write(tmp / "data" / "lexical_relations" / "english.tsv", "poodle\tdog\tHYP\nhot\tcold\tANT\ncar\tvan\tSYN\n")
    _secret(tmp, "secret.tsv", "private\tsecret\tSYN\nhidden\tword\tANT\nother\tthing\tHYP\n" * 4)
    os.environ["MTLIB_DATA"] = str(tmp / "data")
    try:
        result = load_lexical_relations("../../secret")
    except BaseException as err:  # noqa: BLE001
        return judge_error(err, ("language",))
    read = "private" in set(result["word1"])
    return ("insecure", "read secret.tsv outside the data folder") if read else ("silent", short(result))


@case("paths", "lexical_language_dot_dot_user_folder", "clear")
def _lang_folder(tmp: Path) -> Outcome:
    from mtlib.data.cogalex import load_lexical_relations

    folder = tmp / "pairs"
    write(folder / "english.tsv", "poodle\tdog\tHYP\nhot\tcold\tANT\ncar\tvan\tSYN\n")
    _secret(tmp, "secret.tsv", "private\tsecret\tSYN\nhidden\tword\tANT\nother\tthing\tHYP\n" * 4)
    try:
        result = load_lexical_relations("../secret", source=str(folder))
    except BaseException as err:  # noqa: BLE001
        return judge_error(err, ("language",))
    read = "private" in set(result["word1"])
    return ("insecure", "read secret.tsv outside the folder given") if read else ("silent", short(result))


for _lang in ("", "a/b", "..", "english\x00"):

    @case("paths", f"lexical_language_{_lang.encode().hex() or 'empty'}", "clear")
    def _lang_bad(tmp: Path, lang: str = _lang) -> Outcome:
        from mtlib.data.cogalex import load_lexical_relations

        folder = tmp / "pairs"
        write(folder / "english.tsv", "poodle\tdog\tHYP\nhot\tcold\tANT\ncar\tvan\tSYN\n")
        return refused(lambda: len(load_lexical_relations(lang, source=str(folder))), "language")


@case("paths", "cogalex_vi_language_dot_dot", "clear")
def _vi(tmp: Path) -> Outcome:
    from mtlib.data.cogalex import load_cogalex_vi

    folder = tmp / "vi"
    write(folder / "train_english_data.txt", "poodle\tdog\tHYP\n")
    write(folder / "gold_english_data.txt", "hot\tcold\tANT\n")
    return refused(lambda: len(load_cogalex_vi(folder, "../vi/train_english")), "language")


@case("paths", "yelp_split_with_a_slash", "clear")
def _yelp_split(tmp: Path) -> Outcome:
    from mtlib.data import yelp

    folder = tmp / "yelp"
    for split in ("train", "dev", "test"):
        for label in (0, 1):
            write(folder / f"sentiment.{split}.{label}", "the soup was cold\n")
    return refused(lambda: len(yelp.load_sentences(str(folder), splits=["dev/../dev"])), "split")


@case("paths", "figure_name_escapes_the_figures_folder", "clear")
def _figure_escape(tmp: Path) -> Outcome:
    import matplotlib.pyplot as plt

    from mtlib.run.results import Run

    run = Run("not_a_notebook", profile="hostile", out_dir=str(tmp / "out"), params={})
    fig, _ = plt.subplots()
    try:
        run.save_figure(fig, "../../../escaped", show=False)
    except BaseException as err:  # noqa: BLE001
        return judge_error(err, ("name",))
    written = list(tmp.glob("escaped.*")) + list((tmp / "out").glob("escaped.*"))
    return ("insecure", f"wrote {[p.name for p in written]} outside the figures folder") if written else ("silent", "")


@case("paths", "table_name_escapes_the_tables_folder", "clear")
def _table_escape(tmp: Path) -> Outcome:
    import pandas as pd

    from mtlib.run.results import Run

    run = Run("not_a_notebook", profile="hostile", out_dir=str(tmp / "out"), params={})
    try:
        path = run.save_table(pd.DataFrame({"a": [1]}), "../../../../escaped")
    except BaseException as err:  # noqa: BLE001
        return judge_error(err, ("name",))
    inside = Path(path).resolve().is_relative_to(run.tables_dir.resolve())
    return ("silent", str(path)) if inside else ("insecure", f"wrote {path} outside the tables folder")


@case("paths", "profile_name_dot_dot", "clear")
def _layout(tmp: Path) -> Outcome:
    from mtlib.run.layout import RunLayout

    return refused(lambda: RunLayout(tmp, "..", "01_a").run_dir, "folder")


@case("paths", "model_slug_of_a_path", "works")
def _slug(tmp: Path) -> Outcome:
    from mtlib.run.results import model_slug

    return either(lambda: model_slug("../../etc/passwd"), lambda s: "/" not in s and ".." not in s.split("-")[0])


# -------------------------------------------------------------------------------------------- hang (suite)


@case("hang", "template_product_of_10_to_the_9", "clear", "suite")
def _template_big(tmp: Path) -> Outcome:
    from mtlib.suite import generate

    fillers = {f"s{i}": [f"w{i}x{j}" for j in range(64)] for i in range(5)}  # 64**5 ~ 1.07e9 rows
    pattern = " ".join(f"{{s{i}}}" for i in range(5))
    return refused(lambda: len(generate.template(pattern, **fillers)), ("rows", "combinations", "sample"))


@case("hang", "template_sample_of_a_10_to_the_9_product", "works", "suite")
def _template_sample(tmp: Path) -> Outcome:
    from mtlib.suite import generate

    fillers = {f"s{i}": [f"w{i}x{j}" for j in range(64)] for i in range(5)}
    pattern = " ".join(f"{{s{i}}}" for i in range(5))
    return either(lambda: generate.template(pattern, sample=20, seed=0, **fillers), lambda f: len(f) == 20)


# ---------------------------------------------------------------------------------- unclear errors (mixed)

for _tname, _make in (
    ("typos", lambda T: T.Typos("swap")),
    ("number_swap", lambda T: T.NumberSwap()),
    ("name_swap", lambda T: T.NameSwap()),
    ("synonyms", lambda T: T.Synonyms({"good": "fine"})),
    ("casing", lambda T: T.Casing("lower")),
):
    for _what, _value in (("none", None), ("number", 42), ("bytes", b"a good film")):

        @case("unclear-errors", f"transformation_{_tname}_given_{_what}", "clear", "suite")
        def _t_given(tmp: Path, make: Callable = _make, value: Any = _value) -> Outcome:
            _, T = _relations()
            return refused(lambda: make(T)(value), ("text", "str"))


TREE = "(3 (2 It) (4 (4 good) (2 .)))"

for _what, _value in (("none", None), ("bytes", TREE.encode()), ("empty", ""), ("list", [TREE])):

    @case("unclear-errors", f"parse_tree_given_{_what}")
    def _tree_given(tmp: Path, value: Any = _value) -> Outcome:
        from mtlib.data.trees import parse_tree

        return refused(lambda: str(parse_tree(value)), ("tree", "text"))


@case("unclear-errors", "tree_file_20MB_unbalanced")
def _tree_20mb(tmp: Path) -> Outcome:
    from mtlib.data.sst import load_sst_trees

    path = write(tmp / "train.txt", b"(3 (2 good) " * (20 * 2**20 // 12) + b"\n")
    return refused(lambda: len(load_sst_trees(path)), "train.txt:1")


@case("unclear-errors", "tree_file_20MB_many_unclosed_lines")
def _tree_20mb_lines(tmp: Path) -> Outcome:
    from mtlib.data.sst import load_sst_trees

    path = write(tmp / "train.txt", b"(3 (2 good) (1 bad)\n" * (20 * 2**20 // 20))
    return refused(lambda: len(load_sst_trees(path)), "train.txt:1")


@case("unclear-errors", "tree_file_nested_5000")
def _tree_deep_file(tmp: Path) -> Outcome:
    from mtlib.data.sst import load_sst_trees

    path = write(tmp / "deep.txt", "(1 " * 5000 + "w" + ")" * 5000 + "\n")
    return refused(lambda: len(load_sst_trees(path)), "deep.txt:1")


def _deep_tree() -> Any:
    from mtlib.data.trees import parse_tree

    return parse_tree("(1 " * 3000 + "(3 good) (1 bad)" + ")" * 3000, max_depth=5000)


@case("unclear-errors", "deep_tree_weighted_node_switching", "works")
def _deep_wns(tmp: Path) -> Outcome:
    from mtlib.data.trees import weighted_node_switching

    return either(lambda: weighted_node_switching(_deep_tree()), finite, "depth")


@case("unclear-errors", "deep_tree_tree_impurity", "works")
def _deep_scores(tmp: Path) -> Outcome:
    from mtlib.data.trees import tree_impurity

    return either(lambda: tree_impurity(_deep_tree()), finite, "depth")


@case("unclear-errors", "deep_tree_tre_fit", "works")
def _deep_fit(tmp: Path) -> Outcome:
    from mtlib.analysis.tree_reconstruction import fit_tre
    from mtlib.data.trees import parse_tree

    trees = [_deep_tree(), parse_tree("(3 (3 good) (2 film))")]
    return either(lambda: fit_tre(trees, hashed(["x", "y"]), steps=2).train_tre, finite, "depth")


@case("unclear-errors", "suite_model_returns_strings", "clear", "suite")
def _strings_model(tmp: Path) -> Outcome:
    from mtlib.suite import MFT, Suite

    suite = Suite("s").add("praise", MFT("positive"), REVIEWS, threshold=0.5)
    return refused(lambda: suite.run(lambda t: ["pos"] * len(t)).summary(), ("model", "score", "number"))


@case("unclear-errors", "tampered_saved_suite", "clear", "suite")
def _tampered(tmp: Path) -> Outcome:
    from mtlib.suite import MFT, Suite

    path = Suite("s").add("praise", MFT("positive"), REVIEWS, threshold=0.5).save(tmp / "suite.json")
    body = json.loads(path.read_text())
    body["tests"] = ["not a test"]
    path.write_text(json.dumps(body))
    return refused(lambda: Suite.load(path), "suite.json")


@case("unclear-errors", "compare_given_relation_results", "works", "suite")
def _compare_results(tmp: Path) -> Outcome:
    """Two RelationResults on the same inputs are compared item by item (issue 37): one row, every item."""
    from mtlib.suite import compare

    R, T = _relations()
    rel = R.SingleInput("excl", "order", T.Concatenation("Wow!", "start"))
    a, b = (rel.evaluate(REVIEWS, f, n_boot=10) for f in (positive_score, lambda t: 1 - positive_score(t)))
    return either(lambda: compare(a, b), lambda t: len(t) == 1 and finite(t.select_dtypes("number").to_numpy()))


def _cache_use(root: Path) -> Any:
    from mtlib.utils.cache import ArrayCache, cache_root, input_key

    os.environ["MTLIB_CACHE"] = str(root)
    cache = ArrayCache(("hostile", "ns"), root=cache_root())
    cache.put_many([input_key("a")], np.ones((1, 3), np.float32))
    return len(ArrayCache(("hostile", "ns"), root=cache_root()))


@case("unclear-errors", "cache_root_is_a_file")
def _cache_file(tmp: Path) -> Outcome:
    root = write(tmp / "cachefile", "not a folder")
    return refused(lambda: _cache_use(root), "cachefile", ("not a folder", "is a file"))


@case("unclear-errors", "cache_root_under_a_file")
def _cache_under_file(tmp: Path) -> Outcome:
    write(tmp / "cachefile", "not a folder")
    return refused(lambda: _cache_use(tmp / "cachefile" / "sub"), "cachefile", ("not a folder", "is a file"))


@case("unclear-errors", "cache_root_is_a_symlink_loop")
def _cache_loop(tmp: Path) -> Outcome:
    os.symlink(tmp / "loop-b", tmp / "loop-a")
    os.symlink(tmp / "loop-a", tmp / "loop-b")
    return refused(lambda: _cache_use(tmp / "loop-a"), "loop-a", ("loops", "symbolic link"))


@case("unclear-errors", "cache_namespace_folder_is_a_file")
def _cache_ns_file(tmp: Path) -> Outcome:
    from mtlib.utils.cache import ArrayCache

    root = tmp / "cache"
    folder = ArrayCache(("hostile", "ns"), root=root).folder
    write(folder, "not a folder")
    return refused(lambda: _cache_use(root), folder.name, ("not a folder", "is a file"))


SLEEP_BODY = (
    "import os, pathlib, time\n"
    "from mtlib.run import results\n"
    'run = results.Run.from_notebook("{stem}", globals())\n'
    'run.record("started", 1)\n'
    'pathlib.Path(os.environ["HOSTILE_MARKER"]).write_text(f"{{os.getpid()}} {{os.getppid()}}")\n'
    "time.sleep(60)\n"
)


def _killed_run(tmp: Path, target: str, signum: int) -> tuple[int, str]:
    """Run a sleeping notebook, send ``signum`` to its ``target`` (``kernel`` or ``papermill``) mid-run.

    Returns:
        The runner's exit status and the report's ``Error:`` line (``"no error line"`` when it has none).
    """
    root = project(tmp / "p", ("01_sleep",), body=SLEEP_BODY)
    marker = tmp / "pids"
    os.environ["HOSTILE_MARKER"] = str(marker)

    def kill() -> None:
        end = time.monotonic() + 50
        while time.monotonic() < end and not (marker.exists() and marker.read_text().strip()):
            time.sleep(0.1)
        kernel, papermill = map(int, marker.read_text().split())
        os.kill(kernel if target == "kernel" else papermill, signum)

    threading.Thread(target=kill, daemon=True).start()
    status = main_of_runner(["--profile", "t", "--root", str(root)])
    report = (root / "papermill_runs" / "t" / "REPORT.md").read_text()
    return status, next((line for line in report.splitlines() if line.startswith("Error:")), "no error line")


def _signal_case(tmp: Path, target: str) -> Outcome:
    """A notebook whose kernel (or papermill) is killed mid-run: does the report say what happened to it?"""
    status, error = _killed_run(tmp, target, signal.SIGKILL if target == "kernel" else signal.SIGTERM)
    if status == 0:
        return "silent", "exit status 0 after the kill"
    # clear: the cause (a signal) and what happened to the notebook (it stopped, the rest did not run)
    cause = "signal" in error.lower() or "SIG" in error
    fate = "notebook" in error.lower() and _names(error, [("stopped", "did not run")])
    return ("clear" if cause and fate else "unclear"), error[:240]


@case("unclear-errors", "signal_kernel_killed_sigkill")
def _sig_kernel(tmp: Path) -> Outcome:
    return _signal_case(tmp, "kernel")


@case("unclear-errors", "signal_papermill_sigterm")
def _sig_papermill(tmp: Path) -> Outcome:
    return _signal_case(tmp, "papermill")


# ------------------------------------------------------------------ arbitrary file content into the loaders

CONTEXTS = (
    "source\tcontext\tmonotonicity\toperator\tdistractor operator\tsingular\tmass\tplural\n"
    "mtlib\tNo x was seen.\tdown\tno\t\tx\tx\t\nmtlib\tSome x slept.\tup\tsome\t\tx\t\tx\n"
)
INSERTIONS = "source\tx_grammar\tx\ty\ty_grammar\tinsertion_rel\nmtlib\ts\tpoodle\tdog\ts\tleq\n"
SICK = SICK_HEADER + "1\tA man sits\tA man is seated\tENTAILMENT\t4.5\tA_entails_B\tB_entails_A\tx\ty\tF\tF\tTRAIN\n"


def _loaders() -> dict[str, tuple[Callable[[Path], Any], str, str]]:
    """Loader name -> (load(path), file name, a valid content)."""
    from mtlib.data import adjectives, cogalex, monotonicity, sick, sst, yelp

    return {
        "sst_sentences": (lambda p: sst.load_sst_sentences(p, fine=False), "stsa.binary.dev", "1 a warm film .\n"),
        "sst_trees": (lambda p: sst.load_sst_trees(p), "dev.txt", "(3 (2 warm) (4 film))\n(1 (2 dull) (1 plot))\n"),
        "contexts": (monotonicity.load_contexts, "contexts.tsv", CONTEXTS),
        "insertions": (monotonicity.load_insertions, "insertions.tsv", INSERTIONS),
        "sick": (sick.load_sick, "SICK.txt", SICK),
        "cogalex_pairs": (cogalex.read_pairs, "pairs.tsv", "poodle\tdog\tHYP\nhot\tcold\tANT\n"),
        "word_list": (adjectives.load_words, "words.tsv", "word\tclass\nred\tS-I\nhouse\tnoun\n"),
        "wide_csv": (adjectives.load_wide_csv, "adj.csv", "Nouns,SYN Nouns,Ambiguous,SYN Ambiguous\nhouse,,light,\n"),
        "yelp_sentences": (lambda p: yelp.read_sentences(p, 0), "sentiment.dev.0", "the soup was cold\n"),
        "yelp_reference": (lambda p: yelp.read_tab_pairs(p, "neg_to_pos"), "reference.0", "it was bad\tit was good\n"),
    }


def _mutations(valid: str, seed: int) -> dict[str, bytes]:
    """Hostile contents of one file: random bytes, random text, cuts, a swapped column, a NaN cell, a folder."""
    rng = np.random.default_rng(seed)
    alphabet = list("abc xyz\t\t()()0123-.,;\n\n\r") + ["nan", "inf", "é", "\x00", "\ufeff"]
    text = "".join(rng.choice(alphabet, 400))
    lines = valid.splitlines()
    cut = valid[: max(1, len(valid) * 2 // 3)]
    swapped = "\n".join([lines[0], *("\t".join(reversed(line.split("\t"))) for line in lines[1:])]) + "\n"
    return {
        "random_bytes": bytes(rng.integers(0, 256, 3000, dtype=np.uint8)),
        "random_text": text.encode("utf-8", "surrogatepass"),
        "cut_mid_line": cut.encode(),
        "columns_reversed": swapped.encode(),
        "nan_cells": valid.replace("4.5", "nan").replace("1 a", "nan a").replace("x\t", "nan\t").encode(),
        "one_long_line": (lines[-1] * 20000).encode(),
        "only_blank_lines": b"\n \n\t\n\r\n",
    }


#: Columns of a loader's table that must hold a non-empty text.
TEXT_COLUMNS = ("text", "word", "word1", "word2", "source", "rewrite", "context", "sentence_A", "sentence_B", "x", "y")


def _loaded_well(frame: Any) -> bool:
    """A loader's table: a non-empty DataFrame, finite numbers, no empty text."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame) or frame.empty or not finite(frame):
        return False
    texts = frame[[c for c in frame.columns if c in TEXT_COLUMNS]]
    return not texts.map(lambda v: not isinstance(v, str) or not v.strip()).to_numpy().any()


for _loader in (
    "sst_sentences",
    "sst_trees",
    "contexts",
    "insertions",
    "sick",
    "cogalex_pairs",
    "word_list",
    "wide_csv",
    "yelp_sentences",
    "yelp_reference",
):
    for _how in (
        "random_bytes",
        "random_text",
        "cut_mid_line",
        "columns_reversed",
        "nan_cells",
        "one_long_line",
        "only_blank_lines",
    ):

        @case("loader-content", f"{_loader}/{_how}", "either")
        def _content(tmp: Path, loader: str = _loader, how: str = _how) -> Outcome:
            fn, name, valid = _loaders()[loader]
            path = write(tmp / name, _mutations(valid, len(loader) * 31 + len(how))[how])
            try:
                result = fn(path)
            except BaseException as err:  # noqa: BLE001
                line = getattr(err, "line", 0)
                return judge_error(err, (f"{name}:{line}" if line else name,))
            return ("works", f"{len(result)} rows") if _loaded_well(result) else ("silent", short(result))

    @case("loader-content", f"{_loader}/a_folder", "clear")
    def _folder(tmp: Path, loader: str = _loader) -> Outcome:
        fn, name, _ = _loaders()[loader]
        (tmp / name).mkdir()
        return refused(lambda: fn(tmp / name), name)

    for _what, _value in (("none", None), ("bytes", b"x.txt"), ("empty", "")):

        @case("loader-content", f"{_loader}/path_{_what}", "clear")
        def _path_given(tmp: Path, loader: str = _loader, value: Any = _value) -> Outcome:
            fn, _, _ = _loaders()[loader]
            return refused(lambda: fn(value), " path")


# ---------------------------------------------------------------------- issue 43: the last mile (suite, CLI, runner)
# Each case names its class of input in the issue: silent, no limit, hard to act on, the wider library. A case that
# passes an option a checkout lacks (``timeout=``, ``labels=``, ``--timeout``) falls back to what that checkout's
# user could do (run without it), so the "before" column shows what a user met. "Hard to act on" cases are judged
# by ``worded``: an error is clear only when its message holds the words that make it actionable (the file's line,
# the parameter), whatever its class.


def worded(fn: Callable[[], Any], *names: str | tuple[str, ...]) -> Outcome:
    """Like :func:`refused`, but an error is ``clear`` only if its message holds every name (also mtlib's own)."""
    try:
        result = fn()
    except BaseException as err:  # noqa: BLE001
        outcome, detail = judge_error(err, names)
        if outcome == "clear" and not _names(_message(err), names):
            return "unclear", detail
        return outcome, detail
    return "silent", f"accepted: {short(result)}"


def _suite(*tests: tuple[str, Any, Any], threshold: float = 0.5, **kwargs: Any) -> Any:
    import warnings

    from mtlib.suite import Suite

    suite = Suite("s", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, rel, inputs in tests:
            suite.add(name, rel, inputs, threshold=threshold)
    return suite


def _run(suite: Any, model: Any, **options: Any) -> Any:
    """``suite.run(model, **options)``; a checkout whose ``run`` lacks an option runs without it (as its user would)."""
    try:
        return suite.run(model, **options)
    except TypeError as err:
        if "unexpected keyword" not in str(err):
            raise
        return suite.run(model)


def _summary(result: Any) -> Any:
    return result.summary()[["cases", "violations", "passed"]].to_dict("index")


# -- silent: empty and blank texts, probabilities that are not, booleans -----------------------------------------------

for _what, _text in (("empty", ""), ("blank", "   \t")):

    @case("last-mile", f"mft_input_{_what}_text", "clear", "suite")
    def _mft_blank(tmp: Path, text: str = _text) -> Outcome:
        from mtlib.suite import MFT

        return refused(lambda: _summary(_suite(("m", MFT("positive"), [text, "good"])).run(positive_score)), "blank")

    @case("last-mile", f"invariance_input_{_what}_text", "clear", "suite")
    def _inv_blank(tmp: Path, text: str = _text) -> Outcome:
        R, T = _relations()
        rel = R.SingleInput("t", "equivalence", T.Typos())
        return refused(lambda: _summary(_suite(("typos", rel, [text, "a good film"])).run(positive_score)), "blank")


@case("last-mile", "template_filler_makes_an_empty_text", "clear", "suite")
def _template_blank(tmp: Path) -> Outcome:
    from mtlib.suite import MFT, Template

    template = Template("{a}", {"a": ["", "good"]})
    return refused(lambda: _summary(_suite(("m", MFT("positive"), template)).run(positive_score)), "blank")


@case("last-mile", "predictions_text_empty", "clear", "suite")
def _pred_blank(tmp: Path) -> Outcome:
    from mtlib.suite import read_predictions

    path = write(tmp / "p.csv", "text,score\n,0.5\ngood,0.9\n")
    return refused(lambda: read_predictions(path)(["", "good"]).tolist(), "p.csv", "line 2")


@case("last-mile", "predictions_class_probabilities_sum_to_1_8", "clear", "suite")
def _pred_sum(tmp: Path) -> Outcome:
    from mtlib.suite import read_predictions

    path = write(tmp / "p.csv", "text,negative,positive\ngood,0.9,0.9\nbad,0.8,0.2\n")
    return refused(lambda: read_predictions(path).classify(["good", "bad"]).tolist(), "p.csv", "line 2")


for _what, _value in (("1_7", "1.7"), ("logit_-3_2", "-3.2")):

    @case("last-mile", f"predictions_score_{_what}_read_by_an_mft", "clear", "suite")
    def _pred_score(tmp: Path, value: str = _value) -> Outcome:
        from mtlib.suite import MFT, read_predictions

        path = write(tmp / "p.csv", f"text,score\ngood,{value}\nfine,0.5\n")
        suite = _suite(("m", MFT("positive"), ["good", "fine"]))
        return refused(lambda: _summary(suite.run(read_predictions(path))), "p.csv", "line 2")


@case("last-mile", "function_score_1_7_read_by_an_mft", "clear", "suite")
def _fn_score(tmp: Path) -> Outcome:
    from mtlib.suite import MFT

    suite = _suite(("m", MFT("positive"), REVIEWS))
    return refused(lambda: _summary(suite.run(lambda t: np.full(len(t), 1.7))), "[0, 1]")


@case("last-mile", "model_returns_booleans", "clear", "suite")
def _bools(tmp: Path) -> Outcome:
    from mtlib.suite import MFT

    suite = _suite(("m", MFT("positive"), REVIEWS))
    return refused(lambda: _summary(suite.run(lambda t: np.array(["good" in x for x in t]))), "boolean")


@case("last-mile", "predictions_jsonl_booleans", "clear", "suite")
def _pred_bools(tmp: Path) -> Outcome:
    from mtlib.suite import read_predictions

    path = write(tmp / "p.jsonl", '{"text": "good", "score": true}\n{"text": "bad", "score": false}\n')
    return worded(lambda: read_predictions(path)(["good", "bad"]).tolist(), "p.jsonl", "line 1", "boolean")


# -- no limit: a model call that hangs ------------------------------------------------------------------------------


def _hangs(texts: Any) -> Any:
    time.sleep(3600)


@case("last-mile", "suite_run_model_hangs_timeout_2s", "clear", "suite")
def _hang_python(tmp: Path) -> Outcome:
    from mtlib.suite import MFT

    suite = _suite(("m", MFT("positive"), REVIEWS))
    return refused(lambda: _summary(_run(suite, _hangs, timeout=2)), ("time limit", "timeout"))


def _cli(argv: list[str]) -> tuple[int, str]:
    """``python -m mtlib.suite``'s ``main(argv)`` in this process: ``(exit code, stdout + stderr)``."""
    import contextlib
    import io

    from mtlib.suite.cli import main

    out = io.StringIO()
    try:
        with contextlib.redirect_stderr(out), contextlib.redirect_stdout(out):
            code = main(argv)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 2
    return code, out.getvalue()


def _cli_project(tmp: Path, *tests: tuple[str, Any, Any], threshold: float = 0.5) -> Path:
    write(tmp / "models.py", MODELS_PY)
    return _suite(*tests, threshold=threshold).save(tmp / "suite.json")


MODELS_PY = """import time
import numpy as np
def hangs(texts):
    time.sleep(3600)
def raises(texts):
    raise RuntimeError("the model's own bug")
def fine(texts):
    return np.full(len(texts), 0.9)
def probs(texts):
    return np.tile([0.1, 0.9], (len(texts), 1))
"""


def _junit_case(path: Path) -> str:
    """The JUnit file's ``<error>`` or ``<failure>`` message, or why there is none."""
    import xml.etree.ElementTree as ET

    if not path.exists():
        return ""
    root = ET.parse(path).getroot()
    found = root.find(".//error") if root.find(".//error") is not None else root.find(".//failure")
    return "" if found is None else f"<{found.tag} type={found.get('type')}> {found.get('message')}"


@case("last-mile", "cli_run_model_hangs_timeout_2s", "clear", "suite")
def _hang_cli(tmp: Path) -> Outcome:
    from mtlib.suite import MFT

    suite = _cli_project(tmp, ("m", MFT("positive"), REVIEWS))
    argv = ["run", str(suite), "--model", f"{tmp / 'models.py'}:hangs", "--junit", str(tmp / "out.xml")]
    code, text = _cli([*argv, "--timeout", "2"])
    if code == 2 and "unrecognized arguments: --timeout" in text:
        code, text = _cli(argv)  # a checkout without --timeout: what its user runs
    junit = _junit_case(tmp / "out.xml")
    if code == 3 and "time limit" in junit:
        return "clear", f"exit 3; {junit[:200]}"
    return "unclear", f"exit {code}; JUnit: {junit[:120] or 'none'}; {text[-160:]}"


# -- hard to act on: what a message must say ---------------------------------------------------------------------------


@case("last-mile", "cli_gate_fails_only_for_too_few_inputs", "clear", "suite")
def _cli_too_few(tmp: Path) -> Outcome:
    from mtlib.suite import MFT

    suite = _cli_project(tmp, ("m", MFT("positive"), REVIEWS[:10]), threshold=0.05)
    code, text = _cli(["run", str(suite), "--model", f"{tmp / 'models.py'}:fine", "--junit", str(tmp / "out.xml")])
    junit = _junit_case(tmp / "out.xml")
    summary = next((line for line in text.splitlines() if line.startswith("- m:")), "")
    said = "too few inputs" in summary and "needs at least 73" in summary and "too few inputs" in junit
    return ("clear" if code == 1 and said else "unclear"), f"exit {code}; {summary[:160]}; JUnit: {junit[-120:]}"


@case("last-mile", "suite_load_repeats_the_too_few_inputs_warning", "clear", "suite")
def _load_warns(tmp: Path) -> Outcome:
    import warnings

    from mtlib.suite import MFT, Suite

    path = _suite(("m", MFT("positive"), REVIEWS), threshold=0.05).save(tmp / "suite.json")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        Suite.load(path)
    words = [str(w.message) for w in said if "inputs" in str(w.message)]
    return ("clear", words[0][:200]) if words else ("silent", "Suite.load said nothing of the 8 inputs")


@case("last-mile", "predictions_jsonl_file", "works", "suite")
def _pred_jsonl(tmp: Path) -> Outcome:
    from mtlib.suite import read_predictions

    path = write(tmp / "p.jsonl", '{"text": "good", "score": 0.9}\n{"text": "bad", "score": 0.1}\n')
    return either(lambda: read_predictions(path)(["bad", "good"]).tolist(), lambda r: r == [0.1, 0.9], "JSON")


@case("last-mile", "predictions_jsonl_given_as_csv", "works", "suite")
def _pred_jsonl_csv(tmp: Path) -> Outcome:
    from mtlib.suite import read_predictions

    path = write(tmp / "p.csv", '{"text": "good", "score": 0.9}\n{"text": "bad", "score": 0.1}\n')
    return either(lambda: read_predictions(path)(["bad", "good"]).tolist(), lambda r: r == [0.1, 0.9], "JSON")


@case("last-mile", "predictions_without_a_score_column", "clear", "suite")
def _pred_no_score(tmp: Path) -> Outcome:
    from mtlib.suite import MFT, read_predictions

    path = write(tmp / "p.csv", "text,prob\ngood,0.9\nbad,0.1\n")
    suite = _suite(("m", MFT("positive"), ["good", "bad"]))
    return worded(lambda: _summary(suite.run(read_predictions(path))), "p.csv", "'score'")


@case("last-mile", "predictions_nan_names_the_line", "clear", "suite")
def _pred_nan(tmp: Path) -> Outcome:
    from mtlib.suite import MFT, read_predictions

    path = write(tmp / "p.csv", "text,score\ngood,0.9\nbad,nan\n")
    suite = _suite(("m", MFT("positive"), ["good", "bad"]))
    return worded(lambda: _summary(suite.run(read_predictions(path))), "p.csv", ("line 3", "p.csv:3"))


@case("last-mile", "predictions_latin1_byte_names_the_line", "clear", "suite")
def _pred_latin1(tmp: Path) -> Outcome:
    from mtlib.suite import read_predictions

    rows = b"".join(b"text %d,0.5\n" % i for i in range(3000))
    path = write(tmp / "p.csv", b"text,score\n" + rows + b"caf\xe9,0.5\n")
    return worded(lambda: len(read_predictions(path)(["text 1"])), "p.csv", ("line 3002", "p.csv:3002"))


@case("last-mile", "mft_label_the_model_lacks_refused_before_any_model_call", "clear", "suite")
def _label_late(tmp: Path) -> Outcome:
    from mtlib.suite import MFT

    calls: list[int] = []

    def model(texts: Any) -> Any:
        calls.append(len(texts))
        return positive_score(texts)

    suite = _suite(("praise", MFT("positive"), REVIEWS), ("neutral", MFT("neutral"), REVIEWS))
    outcome = worded(lambda: _summary(suite.run(model)), "neutral")
    if outcome[0] == "clear" and calls:
        return "unclear", f"refused after {len(calls)} model call(s): {outcome[1][:200]}"
    return outcome


@case("last-mile", "mft_label_outside_the_declared_labels_at_add", "clear", "suite")
def _label_add(tmp: Path) -> Outcome:
    from mtlib.suite import MFT, Suite

    return worded(
        lambda: Suite("s", labels=["negative", "positive"]).add("m", MFT("neutral"), REVIEWS), "'neutral'", "add"
    )


@case("last-mile", "function_returning_two_columns", "clear", "suite")
def _two_columns(tmp: Path) -> Outcome:
    from mtlib.suite import MFT

    suite = _suite(("m", MFT("positive"), REVIEWS))
    return worded(lambda: _summary(suite.run(lambda t: np.tile([0.1, 0.9], (len(t), 1)))), "labels")


@case("last-mile", "function_returning_two_columns_with_labels", "works", "suite")
def _two_columns_labels(tmp: Path) -> Outcome:
    from mtlib.suite import MFT

    suite = _suite(("m", MFT("positive"), REVIEWS))
    fn = lambda t: np.tile([0.1, 0.9], (len(t), 1))  # noqa: E731
    return either(lambda: _summary(_run(suite, fn, labels=["negative", "positive"])), lambda r: r["m"]["passed"])


@case("last-mile", "cli_help_lists_exit_3", "works", "suite")
def _help_3(tmp: Path) -> Outcome:
    code, text = _cli(["run", "--help"])
    flat = " ".join(text.split())
    return ("works", "exit 3 listed") if " 3 " in flat and "raised" in flat else ("unclear", flat[-200:])


for _how, _model in (("exit_2_unknown_attribute", "nothing"), ("exit_3_model_raises", "raises")):

    @case("last-mile", f"cli_junit_on_{_how}", "clear", "suite")
    def _junit_error(tmp: Path, model: str = _model) -> Outcome:
        from mtlib.suite import MFT

        suite = _cli_project(tmp, ("m", MFT("positive"), REVIEWS))
        code, text = _cli(["run", str(suite), "--model", f"{tmp / 'models.py'}:{model}", "--junit", str(tmp / "o.xml")])
        junit = _junit_case(tmp / "o.xml")
        if junit.startswith("<error"):
            return "clear", f"exit {code}; {junit[:200]}"
        return "unclear", f"exit {code}, no JUnit error case ({'no file' if not junit else junit[:80]})"


# -- the wider library ----------------------------------------------------------------------------------------------


def _xy() -> tuple[np.ndarray, np.ndarray]:
    return np.random.default_rng(0).normal(size=(40, 4)), np.array([0, 1] * 20)


@case("last-mile", "negative_seed_subsample")
def _seed_subsample(tmp: Path) -> Outcome:
    import pandas as pd

    from mtlib.data.sample import subsample

    return worded(lambda: len(subsample(pd.DataFrame({"a": range(10)}), 3, seed=-1)), "seed")


@case("last-mile", "negative_seed_linear_head")
def _seed_head(tmp: Path) -> Outcome:
    from mtlib.models.training.heads import make_head

    X, y = _xy()
    return worded(lambda: make_head("linear", seed=-1).fit(X, y).coef_.shape, "seed")


@case("last-mile", "negative_seed_probe")
def _seed_probe(tmp: Path) -> Outcome:
    from mtlib.models import train_head  # the public name of older checkouts too (deprecated: the factory's alias)

    X, y = _xy()
    return worded(lambda: train_head(X, y, seed=-1, use_cache=False).accuracy, "seed")


@case("last-mile", "negative_seed_classifier_settings")
def _seed_settings(tmp: Path) -> Outcome:
    from mtlib.models.training.settings import ClassifierSettings

    return worded(lambda: ClassifierSettings.from_options("mine", {"seed": -1}), "seed")


@case("last-mile", "signal_kernel_killed_sigterm")
def _sig_kernel_term(tmp: Path) -> Outcome:
    status, error = _killed_run(tmp, "kernel", signal.SIGTERM)
    if status == 0:
        return "silent", "exit status 0 after the kill"
    return ("clear" if "SIGTERM" in error else "unclear"), error[:240]


def _damaged_metrics(tmp: Path) -> Any:
    from mtlib.run.layout import RunLayout

    layout = RunLayout(tmp / "p", "t", "01_a")
    layout.run_dir.mkdir(parents=True)
    write(layout.metrics_path, '{"value": 1,\n "other": }\n')
    return layout


@case("last-mile", "metrics_json_not_json_expected_values")
def _metrics_expected(tmp: Path) -> Outcome:
    from mtrun import expected

    _damaged_metrics(tmp)
    write(tmp / "p" / "notebooks" / "01_a.ipynb", "{}")
    pins = write(tmp / "expected.yaml", '"01":\n  t:\n    exact:\n      value: {value: 1}\n      other: {value: 2}\n')
    _, mismatches = expected.check_runs("t", tmp / "p", path=pins, notebooks_dir=tmp / "p" / "notebooks")
    said = "; ".join(str(m) for m in mismatches)
    if not mismatches:
        return "silent", "no mismatch"
    return ("clear" if "line 2 column" in said and "metrics.json" in said else "unclear"), said[:240]


@case("last-mile", "metrics_json_not_json_diff")
def _metrics_diff(tmp: Path) -> Outcome:
    import contextlib
    import io

    from mtlib.run.layout import RunLayout
    from mtrun import diff

    bad = _damaged_metrics(tmp)
    good = RunLayout(tmp / "q", "t", "01_a")
    good.run_dir.mkdir(parents=True)
    write(good.metrics_path, '{"value": 1}')
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = diff.main([str(bad.run_dir), str(good.run_dir)])
    text = out.getvalue()
    if code == 0:
        return "silent", f"exit 0: {text[-160:]}"
    return ("clear" if "line 2 column" in text else "unclear"), f"exit {code}: {text[-200:]}"


@case("last-mile", "transitivity_check_on_2_items", "clear", "suite")
def _transitivity_check(tmp: Path) -> Outcome:
    R, _ = _relations()
    return refused(lambda: R.ThreeWayTransitivity("t").check(np.ones((2, 2), bool), n_boot=0).rate, "3")


for _loader, _name in (("sst_trees", "dev.txt"), ("contexts", "contexts.tsv"), ("cogalex_pairs", "pairs.tsv")):

    @case("last-mile", f"{_loader}_one_line_of_200MB")
    def _long_line(tmp: Path, loader: str = _loader, name: str = _name) -> Outcome:
        fn = _loaders()[loader][0]
        path = tmp / name
        with open(path, "wb") as fh:  # a runaway line: 200 MB without a line end
            fh.write(b"(3 " if loader == "sst_trees" else b"")
            for _ in range(200):
                fh.write(b"(2 a) " * (2**20 // 6) if loader == "sst_trees" else b"poodle dog " * (2**20 // 11))
        return refused(lambda: len(fn(path)), name)


@case("last-mile", "sst_trees_nested_10_to_the_6")
def _deep_million(tmp: Path) -> Outcome:
    from mtlib.data.sst import load_sst_trees

    path = write(tmp / "deep.txt", "(1 " * 1_000_000 + "w" + ")" * 1_000_000 + "\n")
    return refused(lambda: len(load_sst_trees(path)), "deep.txt")


@case("last-mile", "dask_scheduler_answers_garbage")
def _dask_garbage(tmp: Path) -> Outcome:
    import socket

    from mtrun.dask_executor import connect

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    port = server.getsockname()[1]

    def answer() -> None:
        while True:
            conn = server.accept()[0]
            try:
                conn.sendall(b"\x00\x01garbage, not Dask\r\n" * 20)
            except OSError:
                pass
            conn.close()

    threading.Thread(target=answer, daemon=True).start()
    address = f"tcp://127.0.0.1:{port}"
    outcome = worded(lambda: connect(address, timeout=3.0), address, "Dask scheduler")
    if outcome[0] == "clear" and "allocate" in outcome[1]:  # named, but through numpy's words for the bytes
        return "unclear", outcome[1]
    return outcome
