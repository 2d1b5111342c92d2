"""The bad-input matrix of issue 13, data side: loaders, model paths, trees, the cache.

Every case is a function ``case(tmp) -> outcome`` that builds its own hostile
input in ``tmp`` and returns what happened:

- ``"clear"``: an error whose message names the file (and ``file:line``
  where the problem has a line) and says what was expected;
- ``"works"``: the input is legitimate and loads correctly (a UTF-8 BOM,
  concurrent cache writers);
- ``"unclear"``: an error without the file/line/expectation, a bare
  ``RecursionError`` or ``UnicodeDecodeError``, or a false warning;
- ``"silent"``: no error where one was due, or different numbers;
- ``"lost"``: cache entries lost or corrupted.

The tests assert each case's wanted outcome. Run as a script, the file prints
the before/after table of the issue (cases tried / clear / unclear /
silently wrong / hang / data lost), with each case under a time limit; to get
"before", run it with another checkout's ``mtlib`` first on the path::

    cd /tmp/base && PYTHONPATH=/tmp/base python /path/to/tests/test_bad_inputs.py --table

Only long-standing public functions are called, so the same cases run on
older code. The data in every case is written here (invented words).
"""

from __future__ import annotations

import gzip
import hashlib
import multiprocessing
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

# --------------------------------------------------------------------------- outcome helpers


def expect_error(fn: Callable[[], object], path: Path, line: int | None = None, words: tuple[str, ...] = ()) -> str:
    """Run ``fn``; "clear" if it raises naming ``path`` (and ``path:line``) and every word in ``words``."""
    try:
        fn()
    except (RecursionError, UnicodeDecodeError, MemoryError):
        return "unclear"
    except Exception as err:  # noqa: BLE001 - every other error is judged by its message
        msg = str(err)
        if path.name not in msg:
            return "unclear"
        if line is not None and f"{path.name}:{line}" not in msg:
            return "unclear"
        if not all(w.lower() in msg.lower() for w in words):
            return "unclear"
        return "clear"
    return "silent"


def write(path: Path, data: str | bytes, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode(encoding))
    return path


# --------------------------------------------------------------------------- loaders: one spec each
# (loader, file name, valid content with a non-ASCII word on `accent_line`, header-only content or None)

CONTEXTS = (
    "source\tcontext\tmonotonicity\toperator\tdistractor operator\tsingular\tmass\tplural\n"
    "mtlib\tNo x was seen near the café.\tdown\tno\t\tx\tx\t\n"
    "mtlib\tSome x slept.\tup\tsome\t\tx\t\tx\n"
)
INSERTIONS = (
    "source\tx_grammar\tx\ty\ty_grammar\tinsertion_rel\n"
    "mtlib\ts\tpoodle\tdog\ts\tleq\n"
    "mtlib\ts\tcrème\tdessert\ts\tleq\n"
)
SICK_HEADER = (
    "pair_ID\tsentence_A\tsentence_B\tentailment_label\trelatedness_score\tentailment_AB\tentailment_BA\t"
    "sentence_A_original\tsentence_B_original\tsentence_A_dataset\tsentence_B_dataset\tSemEval_set\n"
)
SICK = SICK_HEADER + (
    "1\tA man is in a café\tA man is inside\tENTAILMENT\t4.5\tA_entails_B\tB_neutral_A\tx\ty\tFLICKR\tFLICKR\tTRAIN\n"
)
WIDE = "Subsective (Intersective),SYN Subsective (Intersective),Nouns,SYN Nouns\nred,,café,\nblue,,house,\n"


def _loaders() -> dict[str, tuple[Callable[[Path], object], str, str, int, str | None]]:
    from mtlib.data import adjectives, cogalex, monotonicity, sick, sst, yelp

    return {
        "sst_sentences": (
            lambda p: sst.load_sst_sentences(p, fine=False),
            "stsa.binary.dev",
            "1 a warm film .\n0 a dull café scene .\n",
            2,
            None,
        ),
        "sst_trees": (
            lambda p: sst.load_sst_trees(p),
            "dev.txt",
            "(3 (2 warm) (4 film))\n(1 (2 dull) (1 café))\n",
            2,
            None,
        ),
        "reviews": (lambda p: sst.load_reviews(p), "reviews.txt", "1 fine .\n0 a café .\n", 2, None),
        "contexts": (monotonicity.load_contexts, "contexts.tsv", CONTEXTS, 2, CONTEXTS.splitlines()[0] + "\n"),
        "insertions": (
            monotonicity.load_insertions,
            "insertions.tsv",
            INSERTIONS,
            3,
            INSERTIONS.splitlines()[0] + "\n",
        ),
        "sick": (sick.load_sick, "SICK.txt", SICK, 2, SICK_HEADER),
        "cogalex_pairs": (cogalex.read_pairs, "pairs.tsv", "poodle\tdog\tHYP\ncafé\tbar\tSYN\n", 2, None),
        "cogalex_v": (cogalex.load_cogalex_v, "gold_task2.txt", "hot\tcold\tANT\ncafé\tbar\tSYN\n", 2, None),
        "word_list": (
            adjectives.load_words,
            "words.tsv",
            "word\tclass\nred\tS-I\ncafé\tnoun\n",
            3,
            "# comment\nword\tclass\n",
        ),
        "wide_csv": (adjectives.load_wide_csv, "adjectives.csv", WIDE, 2, WIDE.splitlines()[0] + "\n"),
        "yelp_sentences": (
            lambda p: yelp.read_sentences(p, 0),
            "sentiment.dev.0",
            "the soup was cold\nthe café was bad\n",
            2,
            None,
        ),
        "yelp_reference": (
            lambda p: yelp.read_tab_pairs(p, "neg_to_pos"),
            "reference.0",
            "it was bad\tit was good\nthe café was cold\tthe café was warm\n",
            2,
            None,
        ),
    }


def _encoding_case(loader: str, how: str) -> Callable[[Path], str]:
    def case(tmp: Path) -> str:
        fn, name, text, accent_line, _ = _loaders()[loader]
        if how == "latin1":
            path = write(tmp / name, text, "latin-1")
            return expect_error(lambda: fn(path), path, accent_line, ("utf-8",))
        if how == "utf16":
            path = write(tmp / name, text, "utf-16")  # with its byte-order mark
            return expect_error(lambda: fn(path), path, 1, ("utf-8",))
        if how == "utf16le":
            path = write(tmp / name, text, "utf-16-le")  # no byte-order mark: NUL bytes everywhere
            return expect_error(lambda: fn(path), path, 1, ("utf-8",))
        if how == "random":
            rng = np.random.default_rng(13)
            data = bytes(rng.integers(128, 256, 4000, dtype=np.uint8))
            path = write(tmp / name, data)
            return expect_error(lambda: fn(path), path, 1, ("utf-8",))
        if how == "bom":
            plain = fn(write(tmp / "plain" / name, text))
            with_bom = fn(write(tmp / "bom" / name, text, "utf-8-sig"))
            same = plain.equals(with_bom)
            return "works" if same else "silent"
        raise ValueError(how)

    return case


def _empty_case(loader: str, how: str) -> Callable[[Path], str]:
    def case(tmp: Path) -> str:
        fn, name, _, _, header_only = _loaders()[loader]
        content = {"empty": "", "blank": "\n  \n\t\n", "header_only": header_only}[how]
        path = write(tmp / name, content)
        return expect_error(lambda: fn(path), path, None, ("expected",))

    return case


LOADERS = [
    "sst_sentences",
    "sst_trees",
    "reviews",
    "contexts",
    "insertions",
    "sick",
    "cogalex_pairs",
    "cogalex_v",
    "word_list",
    "wide_csv",
    "yelp_sentences",
    "yelp_reference",
]
HEADER_LOADERS = ["contexts", "insertions", "sick", "word_list", "wide_csv"]

CASES: dict[str, tuple[Callable[[Path], str], str]] = {}
for _loader in LOADERS:
    for _how in ("latin1", "utf16", "utf16le", "random"):
        CASES[f"loader/{_loader}/{_how}"] = (_encoding_case(_loader, _how), "clear")
    CASES[f"loader/{_loader}/utf8_bom"] = (_encoding_case(_loader, "bom"), "works")
    for _how in ("empty", "blank"):
        CASES[f"loader/{_loader}/{_how}"] = (_empty_case(_loader, _how), "clear")
for _loader in HEADER_LOADERS:
    CASES[f"loader/{_loader}/header_only"] = (_empty_case(_loader, "header_only"), "clear")


def case_sst_trees_all_neutral(tmp: Path) -> str:
    from mtlib.data.sst import load_sst_trees

    path = write(tmp / "train.txt", "(2 (2 a) (2 film))\n(2 (2 it) (2 is))\n")
    return expect_error(lambda: load_sst_trees(path), path, None, ("neutral",))


def case_contexts_cut_after_monotonicity(tmp: Path) -> str:
    from mtlib.data.monotonicity import load_contexts

    cut = CONTEXTS + "mtlib\tEvery x ran.\tdown\n"
    path = write(tmp / "contexts.tsv", cut)
    return expect_error(lambda: load_contexts(path), path, 4, ("columns",))


def case_contexts_cut_crlf(tmp: Path) -> str:
    from mtlib.data.monotonicity import load_contexts

    cut = (CONTEXTS + "mtlib\tEvery x ran.\tdown\tevery\n").replace("\n", "\r\n")
    path = write(tmp / "contexts.tsv", cut)
    return expect_error(lambda: load_contexts(path), path, 4, ("columns",))


def _duplicate_header(loader: str, text: str, column: str, value: str) -> Callable[[Path], str]:
    """The header names ``column`` a second time, at the end, over cells holding ``value``."""

    def case(tmp: Path) -> str:
        fn, name, *_ = _loaders()[loader]
        lines = text.rstrip("\n").split("\n")
        lines = [lines[0] + "\t" + column] + [line + "\t" + value for line in lines[1:]]
        path = write(tmp / name, "\n".join(lines) + "\n")
        return expect_error(lambda: fn(path), path, 1, (column,))

    return case


CASES.update(
    {
        "loader/sst_trees/all_neutral": (case_sst_trees_all_neutral, "clear"),
        "loader/contexts/cut_after_monotonicity": (case_contexts_cut_after_monotonicity, "clear"),
        "loader/contexts/cut_after_operator_crlf": (case_contexts_cut_crlf, "clear"),
        "loader/contexts/duplicate_column": (_duplicate_header("contexts", CONTEXTS, "monotonicity", "up"), "clear"),
        "loader/insertions/duplicate_column": (
            _duplicate_header("insertions", INSERTIONS, "insertion_rel", "none"),
            "clear",
        ),
        "loader/sick/duplicate_column": (_duplicate_header("sick", SICK, "entailment_label", "NEUTRAL"), "clear"),
    }
)


# --------------------------------------------------------------------------- trees


def case_tree_nested_5000(tmp: Path) -> str:
    from mtlib.data.sst import load_sst_trees

    path = write(tmp / "deep.txt", "(1 " * 5000 + "w" + ")" * 5000 + "\n")
    return expect_error(lambda: load_sst_trees(path), path, 1, ("deeper",))


def case_tree_runaway_line(tmp: Path) -> str:
    """5 MB of '(' on one line: a clear error, and peak traced memory under 20x the file (bounded)."""
    import tracemalloc

    from mtlib.data.sst import load_sst_trees

    path = write(tmp / "runaway.txt", b"(" * (5 << 20) + b"\n")
    tracemalloc.start()
    try:
        outcome = expect_error(lambda: load_sst_trees(path), path, 1, ("expected",))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return outcome if peak < 20 * (5 << 20) else "unclear"


def case_tree_runaway_words(tmp: Path) -> str:
    """A 4 MB line of '(1 (1 (1 ...': fails at the depth bound, whatever the line's length."""
    from mtlib.data.sst import load_sst_trees

    path = write(tmp / "runaway.txt", "(1 " * (4 << 18) + "\n")
    return expect_error(lambda: load_sst_trees(path), path, 1, ("expected",))


CASES.update(
    {
        "trees/nested_5000": (case_tree_nested_5000, "clear"),
        "trees/runaway_5MB_brackets": (case_tree_runaway_line, "clear"),
        "trees/runaway_deep_prefix": (case_tree_runaway_words, "clear"),
    }
)


# --------------------------------------------------------------------------- model paths and vector files


def _load_model(path: Path):
    from mtlib import models

    return models.load(str(path), use_cache=False)


def _vectors_case(name: str, data: bytes, line: int | None, words: tuple[str, ...] = ()) -> Callable[[Path], str]:
    def case(tmp: Path) -> str:
        path = write(tmp / name, data)
        return expect_error(lambda: _load_model(path), path, line, words)

    return case


def case_model_csv(tmp: Path) -> str:
    path = write(tmp / "train.csv", "text,label\na good film,1\n")
    return expect_error(lambda: _load_model(path), path, None, ("not a model",))


def case_model_csv_named_txt(tmp: Path) -> str:
    path = write(tmp / "train.txt", "text,label\na good film,1\n")
    return expect_error(lambda: _load_model(path), path, 1, ("expected",))


def _pickled(tmp: Path, name: str) -> Path:
    from gensim.models import KeyedVectors

    kv = KeyedVectors(3)
    kv.add_vectors(["red", "car"], np.ones((2, 3), dtype=np.float32))
    path = tmp / name
    kv.save(str(path))
    return path


def _pickle_refused(name: str) -> Callable[[Path], str]:
    def case(tmp: Path) -> str:
        path = _pickled(tmp, name)
        os.environ.pop("MTLIB_ALLOW_PICKLE", None)
        return expect_error(lambda: _load_model(path), path, None, ("pickle", "allow_pickle"))

    return case


def case_model_folder_without_config(tmp: Path) -> str:
    folder = tmp / "my-model"
    write(folder / "notes.md", "weights go here\n")
    return expect_error(lambda: _load_model(folder), folder, None, ("config.json",))


def _binary(count: int, dim: int, rows: int, cut: int = 0) -> bytes:
    body = b"".join(f"w{i} ".encode() + np.ones(dim, dtype=np.float32).tobytes() for i in range(rows))
    data = f"{count} {dim}\n".encode() + body
    return data[: len(data) - cut] if cut else data


CASES.update(
    {
        "model/csv_file": (case_model_csv, "clear"),
        "model/csv_named_txt": (case_model_csv_named_txt, "clear"),
        "model/kv_refused": (_pickle_refused("vectors.kv"), "clear"),
        "model/model_refused": (_pickle_refused("vectors.model"), "clear"),
        "model/folder_without_config": (case_model_folder_without_config, "clear"),
        "vectors/glove_dimension_changes": (_vectors_case("glove.txt", b"red 0.1 0.2 0.3\ncar 0.1 0.2\n", 2), "clear"),
        "vectors/glove_short_row_broadcast": (
            _vectors_case("glove.txt", b"red 0.1 0.2\ncar 0.1\nsky 1 2\n", 2),
            "clear",
        ),
        "vectors/word2vec_count_too_small": (_vectors_case("w2v.txt", b"1 2\nred 0.1 0.2\ncar 0.3 0.4\n", 1), "clear"),
        "vectors/glove_not_a_number": (_vectors_case("glove.txt", b"red 0.1 0.2\ncar 0.1 zz\nsky 1 2\n", 2), "clear"),
        "vectors/word2vec_count_too_big": (_vectors_case("w2v.txt", b"5 2\nred 0.1 0.2\ncar 0.3 0.4\n", 1), "clear"),
        "vectors/word2vec_dimension_zero": (_vectors_case("w2v.txt", b"2 0\nred\ncar\n", 1), "clear"),
        "vectors/glove_latin1": (
            _vectors_case("glove.txt", "red 0.1 0.2\ncafé 0.3 0.4\n".encode("latin-1"), 2, ("utf-8",)),
            "clear",
        ),
        "vectors/glove_empty": (_vectors_case("glove.txt", b"", 1), "clear"),
        "vectors/glove_gz_not_gzip": (_vectors_case("glove.txt.gz", b"red 0.1 0.2\n", None), "clear"),
        "vectors/binary_truncated": (_vectors_case("w2v.bin", _binary(3, 4, 3, cut=6), None, ("expected",)), "clear"),
        "vectors/binary_count_too_big": (_vectors_case("w2v.bin", _binary(9, 4, 3), None, ("expected",)), "clear"),
        "vectors/binary_text_header": (_vectors_case("w2v.bin", b"red 0.1 0.2\ncar 0.3 0.4\n", 1), "clear"),
        "vectors/gz_text_latin1": (
            _vectors_case("glove.txt.gz", gzip.compress("red 0.5\ncafé 0.25\n".encode("latin-1")), 2, ("utf-8",)),
            "clear",
        ),
    }
)


# --------------------------------------------------------------------------- the cache


def _blobs(seed: int = 3, n: int = 120, d: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    return (rng.normal(size=(n, d)) + y[:, None]).astype(np.float32), y


def _flip_two_bytes(path: Path, inside: bytes) -> None:
    """Flip two bytes inside the first occurrence of ``inside`` (e.g. a coefficient array's raw bytes)."""
    data = bytearray(path.read_bytes())
    at = bytes(data).find(inside)
    assert at >= 0, "array bytes not found in the file"
    for k in (1, len(inside) // 2):
        data[at + k] ^= 0x5A
    path.write_bytes(bytes(data))


def _head_case(kind: str) -> Callable[[Path], str]:
    def case(tmp: Path) -> str:
        from mtlib.models.factory import train_head
        from mtlib.utils.cache import cache_root

        X, y = _blobs(seed=11 if kind == "logreg" else 12)
        params = {"epochs": 2, "hidden": (8,)} if kind == "mlp" else {}
        head = train_head(X, y, kind=kind, seed=0, **params)
        want = head.predict_proba(X)
        folder = cache_root() / "heads" / head.key
        if kind == "logreg":  # head.npz (stored as head.<digest>.npz)
            target, inside = next(folder.glob("head*.npz")), np.ascontiguousarray(head.estimator.coef_).tobytes()
        else:
            weight = next(iter(head.estimator.net.state_dict().values()))
            target = next(folder.glob("head*.safetensors"))
            inside = weight.detach().cpu().contiguous().numpy().tobytes()
        _flip_two_bytes(target, inside)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            again = train_head(X, y, kind=kind, seed=0, **params)
        warned = any("damaged" in str(w.message) for w in caught)
        same = np.array_equal(again.predict_proba(X), want)
        if not same:
            return "silent"
        return "works" if warned else "unclear"

    return case


def case_head_record_tampered(tmp: Path) -> str:
    """The head's JSON record says another accuracy: detected, retrained, the true accuracy back."""
    import json

    from mtlib.models.factory import train_head
    from mtlib.utils.cache import cache_root

    X, y = _blobs(seed=13)
    head = train_head(X, y, seed=0)
    record = cache_root() / "heads" / head.key / "head.json"
    if not record.exists():
        return "silent"
    body = json.loads(record.read_text())
    body["accuracy"] = 0.123
    record.write_text(json.dumps(body))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = train_head(X, y, seed=0)
    if again.accuracy != head.accuracy:
        return "silent"
    return "works" if any("damaged" in str(w.message) for w in caught) else "unclear"


def _vec(items: list[str]) -> np.ndarray:
    """A deterministic 8-wide vector per text (what a model would give)."""
    return np.stack(
        [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8).astype(np.float32) for t in items]
    )


ITEMS = [f"sentence {i}" for i in range(160)]


def _cache_worker(root: str, seed: int, rounds: int, barrier, same: bool) -> tuple[int, bool, list[str]]:
    """Fill one namespace under aggressive compaction; count 'damaged' warnings and wrong rows."""
    import time

    import mtlib.utils.cache as cache_mod

    cache_mod._COMPACT_AFTER = 3
    rng = np.random.default_rng(seed)
    ok, messages = True, []
    if barrier is not None:
        barrier.wait()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for r in range(rounds):
            cache = cache_mod.ArrayCache(("bad-inputs", "concurrent"), root=Path(root))
            if same:  # both writers ask for the same entries in the same order
                pick = list(range(r * 8, r * 8 + 8))
            else:
                pick = rng.choice(len(ITEMS), 12, replace=False).tolist()
            texts = [ITEMS[i % len(ITEMS)] for i in pick]

            def compute(batch: list[str]) -> np.ndarray:
                time.sleep(0.002)
                return _vec(batch)

            rows = cache_mod.cached_rows(cache, texts, compute, chunk_size=3)
            ok &= bool(np.array_equal(rows, _vec(texts)))
    messages = [str(w.message) for w in caught if "damaged" in str(w.message)]
    return len(messages), ok, messages[:3]


def _run_workers(root: Path, n: int, rounds: int, same: bool) -> list[tuple[int, bool, list[str]]]:
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Manager().Barrier(n)
    with ctx.Pool(n) as pool:
        return pool.starmap(_cache_worker, [(str(root), seed, rounds, barrier, same) for seed in range(n)])


def _final_check(root: Path, texts: list[str]) -> str:
    """Every shard reads without damage and every entry written is there with its right value."""
    from mtlib.utils.cache import ArrayCache, input_key

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = ArrayCache(("bad-inputs", "concurrent"), root=root)
        found, missing = cache.get_many([input_key(t) for t in texts])
    if any("damaged" in str(w.message) for w in caught):
        return "lost"
    if missing:
        return "lost"
    return "works" if np.array_equal(np.stack(found), _vec(texts)) else "silent"


def case_compaction_three_processes(tmp: Path) -> str:
    results = _run_workers(tmp, 3, 25, same=False)
    if not all(ok for _, ok, _ in results):
        return "silent"
    rng_texts = set()
    for seed in range(3):
        rng = np.random.default_rng(seed)
        for _ in range(25):
            rng_texts.update(ITEMS[i] for i in rng.choice(len(ITEMS), 12, replace=False).tolist())
    final = _final_check(tmp, sorted(rng_texts))
    if final != "works":
        return final
    return "works" if sum(n for n, _, _ in results) == 0 else "unclear"


def case_concurrent_writers_same_entries(tmp: Path) -> str:
    results = _run_workers(tmp, 2, 16, same=True)
    if not all(ok for _, ok, _ in results):
        return "silent"
    final = _final_check(tmp, [ITEMS[i % len(ITEMS)] for i in range(16 * 8)])
    if final != "works":
        return final
    return "works" if sum(n for n, _, _ in results) == 0 else "unclear"


CASES.update(
    {
        "cache/linear_head_two_bytes_flipped": (_head_case("logreg"), "works"),
        "cache/mlp_head_two_bytes_flipped": (_head_case("mlp"), "works"),
        "cache/head_record_tampered": (case_head_record_tampered, "works"),
        "cache/compaction_three_processes": (case_compaction_three_processes, "works"),
        "cache/concurrent_writers_same_entries": (case_concurrent_writers_same_entries, "works"),
    }
)


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("name", [n for n in CASES if not n.startswith("cache/")])
def test_bad_input_matrix(name, tmp_path):
    case, wanted = CASES[name]
    assert case(tmp_path) == wanted


@pytest.mark.parametrize(
    "name", ["cache/linear_head_two_bytes_flipped", "cache/mlp_head_two_bytes_flipped", "cache/head_record_tampered"]
)
def test_damaged_head_is_recomputed_with_a_warning(name, tmp_path):
    case, wanted = CASES[name]
    assert case(tmp_path) == wanted


def test_compaction_by_other_processes_is_a_miss_not_damage(tmp_path):
    """Three processes share a namespace that compacts every few shards: no warning, right values, nothing lost."""
    assert case_compaction_three_processes(tmp_path) == "works"


def test_concurrent_writers_same_entries(tmp_path):
    """Two processes computing the same entries at once: no corrupted entry, the same values, nothing lost."""
    assert case_concurrent_writers_same_entries(tmp_path) == "works"


def test_error_messages_name_file_line_and_expectation(tmp_path):
    from mtlib.data import DataFormatError
    from mtlib.data.monotonicity import load_contexts

    path = write(tmp_path / "contexts.tsv", CONTEXTS.encode("latin-1"))
    with pytest.raises(DataFormatError) as err:
        load_contexts(path)
    assert err.value.path == path and err.value.line == 2
    assert "expected UTF-8" in str(err.value) and "0xe9" in str(err.value)


def test_deep_tree_parses_with_a_raised_bound_and_every_traversal_is_iterative():
    from mtlib.data.trees import parse_tree

    deep = "(1 " * 5000 + "w" + ")" * 5000
    tree = parse_tree(deep, max_depth=6000)
    assert tree.height == 5000 and tree.leaves() == ["w"]
    assert len(list(tree.subtrees())) == 5000 and str(tree) == deep
    with pytest.raises(ValueError, match="larger than 100 tokens"):
        parse_tree("(1 " + "(1 a) " * 60 + ")", max_tokens=100)


def test_pickled_vectors_load_only_when_opted_in(tmp_path, monkeypatch):
    from mtlib import models
    from mtlib.models.weights.registry import REGISTRY, ModelSpec
    from mtlib.models.weights.resolve import PickleRefusedError

    path = _pickled(tmp_path, "vectors.kv")
    monkeypatch.delenv("MTLIB_ALLOW_PICKLE", raising=False)
    with pytest.raises(PickleRefusedError, match="run any code"):
        models.load(str(path), use_cache=False)
    assert models.load(str(path), use_cache=False, allow_pickle=True).dim == 3
    monkeypatch.setenv("MTLIB_ALLOW_PICKLE", "1")
    assert models.build(models.resolve(str(path)), use_cache=False).dim == 3
    monkeypatch.delenv("MTLIB_ALLOW_PICKLE")
    models.register(ModelSpec("my-kv", str(path), kind="gensim", allow_pickle=True))
    try:
        assert models.available().loc["my-kv", "resolves"] == "path"
        assert models.load("my-kv", use_cache=False).embed(["red car"]).shape == (1, 3)
        models.register(ModelSpec("my-kv-unasked", str(path), kind="gensim"))
        with pytest.raises(PickleRefusedError):
            models.load("my-kv-unasked", use_cache=False)
    finally:
        REGISTRY.pop("my-kv", None)
        REGISTRY.pop("my-kv-unasked", None)


def test_good_vector_files_still_load(tmp_path):
    from mtlib import models

    text = write(tmp_path / "glove.txt", "red 0.5 1.0\ncar 0.25 -1e-3\n")
    gz = tmp_path / "glove.txt.gz"
    gz.write_bytes(gzip.compress(b"2 2\nred 0.5 1.0\ncar 0.25 -1e-3\n"))
    binary = write(tmp_path / "w2v.bin", _binary(3, 4, 3))
    for path, dim in ((text, 2), (gz, 2), (binary, 4)):
        assert models.load(str(path), use_cache=False).dim == dim


def test_nothing_in_mtlib_unpickles():
    """No pickle.load, torch.load or joblib in mtlib; gensim's unpickling only behind the opt-in."""
    import re

    root = Path(__file__).resolve().parents[2] / "mtlib"
    banned = re.compile(r"\b(pickle\.loads?|torch\.load|joblib\.load|cloudpickle|dill\.load)\s*\(|import pickle\b")
    offenders = []
    for py in root.rglob("*.py"):
        text = py.read_text(encoding="utf-8")
        offenders += [f"{py.name}: {m.group()}" for m in banned.finditer(text)]
        offenders += [
            f"{py.name}: np.load allow_pickle=True" for _ in re.finditer(r"np\.load\([^)]*allow_pickle=True", text)
        ]
    assert offenders == []
    vectors = (root / "models" / "adapters" / "static_vectors.py").read_text()
    assert vectors.count("KeyedVectors.load(") == 1 and "pickle_allowed(allow_pickle)" in vectors


def test_records_detect_damage_and_a_replaced_entry_is_a_miss(tmp_path):
    from mtlib.utils.cache import read_record, record_file, write_record

    path = tmp_path / "entry" / "thing.json"
    write_record(path, {"accuracy": 0.75}, {"data.bin": b"0123456789"})
    body = read_record(path)
    assert body["accuracy"] == 0.75 and record_file(path.parent, body, "data.bin").read_bytes() == b"0123456789"
    stored = record_file(path.parent, body, "data.bin")
    stored.write_bytes(b"0123456780")
    with pytest.warns(UserWarning, match="checksum mismatch in data.bin"):
        assert read_record(path) is None
    write_record(path, {"accuracy": 0.75}, {"data.bin": b"0123456789"})
    path.write_text(path.read_text().replace("0.75", "0.5"))
    with pytest.warns(UserWarning, match="record checksum mismatch"):
        assert read_record(path) is None
    path.write_text("{not json")
    with pytest.warns(UserWarning, match="unreadable record"):
        assert read_record(path) is None
    assert read_record(tmp_path / "absent" / "thing.json") is None
    # the same entry written twice with other bytes: each record names its own file, both readable
    write_record(path, {"v": 1}, {"data.bin": b"first"})
    write_record(path, {"v": 2}, {"data.bin": b"second"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_record(path)["v"] == 2


def test_damaged_fine_tuned_weights_are_retrained_with_a_warning(tiny_bert_dir):
    from mtlib import models
    from mtlib.models import factory

    texts = [f"{w} garden" for w in ("cherry", "apple", "rose", "tulip")] + [
        f"{w} barks" for w in ("dog", "poodle", "wolf", "fox")
    ]
    train = (texts, [1] * 4 + [0] * 4)
    kwargs = dict(how="finetune", heldout_fraction=0, epochs=1, batch_size=8, device="cpu", seed=3)
    clf = models.classifier(str(tiny_bert_dir), train, **kwargs)
    weights = clf.weights_file
    assert weights.exists() and weights.name.startswith("weights.") and weights.suffix == ".safetensors"
    data = bytearray(weights.read_bytes())
    data[-10] ^= 0x5A
    data[-200] ^= 0x5A
    weights.write_bytes(bytes(data))
    factory._MEMO.clear()
    with pytest.warns(UserWarning, match="damaged entry"):
        again = models.classifier(str(tiny_bert_dir), train, **kwargs)
    assert not again.training.from_cache  # retrained
    factory._MEMO.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        third = models.classifier(str(tiny_bert_dir), train, **kwargs)
    assert third.training.from_cache  # the retrained weights are read back, no third training


# --------------------------------------------------------------------------- the before/after table


def table(limit: float = 120.0) -> dict[str, int]:
    """Run every case (each under ``limit`` seconds) and count the outcomes, printing each case's."""
    import signal
    import tempfile

    counts = {"tried": 0, "clear": 0, "works": 0, "unclear": 0, "silent": 0, "hang": 0, "lost": 0}

    def alarm(signum, frame):
        raise TimeoutError

    signal.signal(signal.SIGALRM, alarm)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MTLIB_CACHE"] = str(Path(tmp) / "cache")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("MTLIB_PROGRESS", "0")
        for i, (name, (case, wanted)) in enumerate(CASES.items()):
            folder = Path(tmp) / f"case{i}"
            folder.mkdir()
            signal.alarm(int(limit))
            try:
                outcome = case(folder)
            except TimeoutError:
                outcome = "hang"
            except Exception as err:  # noqa: BLE001 - a case that cannot even run is unclear
                outcome = f"unclear ({type(err).__name__}: {str(err)[:80]})"
            finally:
                signal.alarm(0)
            counts["tried"] += 1
            counts[outcome.split(" ")[0]] += 1
            print(f"{name:50s} {outcome}{'' if outcome == wanted else '   (wanted ' + wanted + ')'}", flush=True)
    return counts


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(1000)
    totals = table()
    print("| cases tried | clear error | works (legitimate input) | unclear | silently wrong | hang | data lost |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {totals['tried']} | {totals['clear']} | {totals['works']} | {totals['unclear']} | {totals['silent']} | "
        f"{totals['hang']} | {totals['lost']} |"
    )
