"""The word pairs of notebook 03: splits, vocabularies, gold labels and the paper's Table 5.

Intuition: the transitivity test needs only a vocabulary (the words of the gold
test pairs, in the paper) and a model; the training pairs build the model and
the gold pairs score it. This module reads every language's pairs
(:func:`mtlib.data.cogalex.load_lexical_relations`), splits them into training
and gold test pairs, takes the vocabulary under test, and gives each pair the
label a head (:func:`relation_labels`) or a fine-tuned classifier
(:func:`pair_classes`) trains on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from mtlib.data import cogalex, papers
from mtlib.data.cogalex import stable_split
from mtlib.experiments.lexical.spec import Spec

#: The two heads: short name -> relation label in the data.
RELATIONS: dict[str, str] = {"syn": "SYN", "hyp": "HYP"}
#: The prompt template a causal LM answers for each head (:data:`mtlib.models.TEMPLATES`): word1, then word2.
PROMPT_TEMPLATES: dict[str, str] = {"syn": "synonym", "hyp": "hypernym"}

#: Manino et al. Table 5 (kept here as an alias; the table lives in :mod:`mtlib.data.papers`).
TABLE5: dict[str, tuple[float, float]] = papers.MANINO_TABLE5

TRAIN_SPLITS = ("train",)
TEST_SPLITS = ("test", "gold")
#: Validation pairs (CogALex-VI ``validgold_``): early stopping of a fine-tuned model, never its score.
VALID_SPLITS = ("validgold",)

#: Classes of a fine-tuned pair classifier (``finetune_classes: 3``): the two relations and everything else.
PAIR_CLASSES = ("SYN", "HYP", "OTHER")
#: The four classes of CogALex-VI (``finetune_classes: 4``, as in the shared task); any other label is RANDOM.
COGALEX_CLASSES = ("SYN", "ANT", "HYP", "RANDOM")


def table5_frame(dataset: str = "CogALex-VI") -> pd.DataFrame:
    """The paper's Table 5: index ``language``, columns ``syn`` and ``hyp``.

    The paper tested CogALex-VI; for another ``dataset`` (``attrs["dataset"]``
    of the loaded pairs) the frame is empty, so CogALex-V runs never show
    CogALex-VI numbers as their paper value. The bundled pairs stand in for
    CogALex-VI and keep the values, for reference.
    """
    rows = TABLE5 if dataset in ("CogALex-VI", "bundled", "") else {}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(RELATIONS))
    frame.index.name = "language"
    return frame


def split_pairs(pairs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training pairs and gold test pairs of one language.

    CogALex-VI: ``train`` trains, ``gold`` tests (``validgold`` is unused);
    bundled data: ``train`` / ``test``. A file with test pairs only (a
    CogALex-V ``gold_task2.txt``) is split by the stable pair hash of
    :func:`mtlib.data.cogalex.stable_split`, 75% train.

    Args:
        pairs: ``word1, word2, relation, split`` as returned by
            :func:`mtlib.data.cogalex.load_lexical_relations`.

    Returns:
        ``(train, test)``, each with a fresh index.
    """
    train = pairs[pairs["split"].isin(TRAIN_SPLITS)]
    test = pairs[pairs["split"].isin(TEST_SPLITS)]
    if train.empty:
        hashed = np.array([stable_split(a, b) for a, b in zip(pairs["word1"], pairs["word2"])])
        train, test = pairs[hashed == "train"], pairs[hashed == "test"]
    return train.reset_index(drop=True), test.reset_index(drop=True)


def validation_pairs(pairs: pd.DataFrame) -> pd.DataFrame:
    """The validation pairs of a language (CogALex-VI ``validgold_``), fresh index; empty without them."""
    return pairs[pairs["split"].isin(VALID_SPLITS)].reset_index(drop=True)


def vocabulary(pairs: pd.DataFrame, max_words: int = 0, seed: int = 0) -> list[str]:
    """The distinct words of a set of pairs, in order of first appearance.

    Args:
        pairs: Frame with ``word1`` and ``word2``.
        max_words: Keep a random subset of this many words (0 keeps all);
            the subset keeps the order of first appearance.
        seed: Seeds the subset.

    Returns:
        The words, shape ``(n,)`` as a list.
    """
    words = list(dict.fromkeys(w for pair in zip(pairs["word1"], pairs["word2"]) for w in pair))
    if max_words and max_words < len(words):
        keep = np.sort(np.random.default_rng(seed).choice(len(words), size=max_words, replace=False))
        words = [words[i] for i in keep]
    return words


def relation_labels(pairs: pd.DataFrame, relation: str) -> np.ndarray:
    """Binary gold labels of one head: ``relation`` is ``"syn"`` or ``"hyp"``.

    Every other label (RANDOM, ANT, PART_OF, the other relation) is negative.

    Returns:
        Shape ``(m,)`` bool.
    """
    return (pairs["relation"] == RELATIONS[relation]).to_numpy()


def pair_classes(pairs: pd.DataFrame, classes: Sequence[str] = PAIR_CLASSES) -> np.ndarray:
    """The label of each pair for a fine-tuned classifier, shape ``(m,)``.

    With :data:`PAIR_CLASSES`: ``SYN``, ``HYP`` or ``OTHER``; with :data:`COGALEX_CLASSES`: the pair's own
    relation, any label outside them (``PART_OF`` of CogALex-V) counted as ``RANDOM``.
    """
    rel = pairs["relation"].to_numpy()
    if tuple(classes) == PAIR_CLASSES:
        return np.where(np.isin(rel, list(RELATIONS.values())), rel, "OTHER").astype(object)
    if tuple(classes) == COGALEX_CLASSES:
        return np.where(np.isin(rel, list(COGALEX_CLASSES)), rel, "RANDOM").astype(object)
    raise ValueError(f"classes must be {PAIR_CLASSES} or {COGALEX_CLASSES}, got {tuple(classes)}")


@dataclass
class LexicalData:
    """Word pairs of each language: training pairs, gold test pairs and the vocabulary under test.

    Attributes:
        splits: Language -> ``{"train": pairs, "test": pairs, "words": list, "valid": pairs}`` (``valid``: the
            validation pairs, empty when the data have none).
        dataset: ``CogALex-VI``, ``CogALex-V``, ``bundled`` or ``pairs`` (decides whether Table 5 applies).
        note: How a single file was split (empty otherwise).
    """

    splits: dict[str, dict[str, Any]]
    dataset: str
    note: str = ""

    @property
    def languages(self) -> list[str]:
        return list(self.splits)

    def metrics(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dataset": self.dataset}
        for lang, d in self.splits.items():
            out.update(
                {
                    f"vocabulary/{lang}": len(d["words"]),
                    f"train_pairs/{lang}": len(d["train"]),
                    f"test_pairs/{lang}": len(d["test"]),
                }
            )
            if len(d.get("valid", ())):
                out[f"valid_pairs/{lang}"] = len(d["valid"])
        return out

    def overview(self) -> pd.DataFrame:
        """Pairs per split and relation, vocabulary size and ordered triples, one column per language."""
        rows = {}
        for lang, d in self.splits.items():
            n = len(d["words"])
            rows[lang] = {
                "train pairs": len(d["train"]),
                "test pairs": len(d["test"]),
                **{
                    f"test {r}": int((d["test"]["relation"] == r).sum()) for r in sorted(d["test"]["relation"].unique())
                },
                "vocabulary n": n,
                "ordered triples n(n-1)(n-2)": n * (n - 1) * (n - 2),
            }
        return pd.DataFrame(rows).fillna(0).astype(int)


def load_data(
    languages: Sequence[str],
    data_dir: str = "",
    *,
    vocabulary_split: str = "test",
    max_vocabulary: int = 0,
    seed: int = 0,
) -> LexicalData:
    """Pairs of every language (:func:`mtlib.data.cogalex.load_lexical_relations`), split, and their vocabulary.

    Args:
        languages: Languages to load.
        data_dir: Empty for the bundled pairs, a CogALex-VI folder or a CogALex-V file.
        vocabulary_split: ``test``: words of the gold test pairs (the paper); ``all``: of every pair.
        max_vocabulary: Keep a random subset of this many words per language (0 keeps all).
        seed: Seeds the subset.
    """
    if vocabulary_split not in ("test", "all"):
        raise ValueError(f"vocabulary_split must be 'test' or 'all', got {vocabulary_split!r}")
    splits: dict[str, dict[str, Any]] = {}
    attrs: dict[str, Any] = {}
    for lang in languages:
        pairs = cogalex.load_lexical_relations(lang, data_dir)
        train, test = split_pairs(pairs)
        words = vocabulary(test if vocabulary_split == "test" else pairs, max_vocabulary, seed)
        splits[lang] = {"train": train, "test": test, "words": words, "valid": validation_pairs(pairs)}
        attrs = attrs or dict(pairs.attrs)
    return LexicalData(splits, attrs.get("dataset", "bundled"), attrs.get("note", ""))


def load(spec: Spec, *, prompted: bool = False) -> LexicalData:
    """The word pairs of every language of notebook 03's spec, split, with the vocabulary under test.

    Args:
        spec: Notebook 03's parameters.
        prompted: A causal LM is among the models: the vocabulary is cut to ``spec.lm_vocabulary`` words too
            (:func:`vocabulary_size`), for every model alike.
    """
    return load_data(
        spec.languages,
        spec.data_dir,
        vocabulary_split=spec.vocabulary_split,
        max_vocabulary=vocabulary_size(spec.max_vocabulary, spec.lm_vocabulary if prompted else 0),
        seed=spec.seed,
    )


def vocabulary_size(max_vocabulary: int, lm_vocabulary: int = 0) -> int:
    """The most words kept per language: the smaller of the two limits that are set (0 is no limit).

    Examples:
        >>> vocabulary_size(0, 40), vocabulary_size(60, 40), vocabulary_size(60, 0), vocabulary_size(0, 0)
        (40, 40, 60, 0)
    """
    return min([n for n in (max_vocabulary, lm_vocabulary) if n], default=0)
