"""Notebook 05 end to end: load the sentences and clean the pairs, then train and score every setting.

Intuition: :func:`run` is the whole experiment in one call; a notebook takes
the same two steps, :func:`load` then :func:`analyse`, so a reader sees the
sentences and the cleaning before any model trains. Every value comes from the
:class:`~mtlib.experiments.pss.spec.Spec`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from mtlib.data import yelp
from mtlib.experiments.outcome import Outcome
from mtlib.experiments.pss._build import CleaningReport, clean, subsample
from mtlib.experiments.pss._report import polarity_sensitivity
from mtlib.experiments.pss._training import settings_grid
from mtlib.experiments.pss.spec import Spec


@dataclass
class PSSData:
    """What notebook 05 runs on.

    Attributes:
        sentences: Every labelled sentence read (``text, label, split``).
        train: The FB heads' training sentences (``text, label``; ``n_train`` of them, stratified).
        finetune_train: The FT settings' training sentences (``n_finetune`` of ``train``).
        test: The dev and test sentences that measure accuracy (``n_test`` of them).
        raw_pairs: The reference pairs as read (``source, rewrite, direction``).
        cleaning: The Appendix B cleaning of ``raw_pairs`` (:func:`clean`); its ``pairs`` are scored.
    """

    sentences: pd.DataFrame
    train: pd.DataFrame
    finetune_train: pd.DataFrame
    test: pd.DataFrame
    raw_pairs: pd.DataFrame
    cleaning: CleaningReport

    @property
    def pairs(self) -> pd.DataFrame:
        """The cleaned pairs every setting is scored on."""
        return self.cleaning.pairs

    def summary(self) -> str:
        """Sizes in one line."""
        return (
            f"{len(self.train):,} training sentences ({len(self.finetune_train):,} for FT), {len(self.test):,} "
            f"dev+test sentences, {len(self.raw_pairs):,} reference pairs"
        )


def load(spec: Spec) -> PSSData:
    """The sentences and reference pairs the spec names (bundled, or the Yelp files), subsampled and cleaned."""
    sentences = yelp.load_sentences(spec.data_dir or yelp.BUNDLED_DIR)
    train = subsample(sentences[sentences["split"] == "train"], spec.n_train, spec.seed)
    test = subsample(sentences[sentences["split"] != "train"], spec.n_test, spec.seed)
    finetune_train = subsample(train, spec.n_finetune, spec.seed)
    raw_pairs = yelp.load_reference_pairs(
        spec.reference_dir or spec.data_dir or yelp.BUNDLED_DIR, spec.reference_format
    )
    cleaning = clean(raw_pairs, tokenize=spec.clean_tokens, n_pairs=spec.n_pairs)
    return PSSData(sentences, train, finetune_train, test, raw_pairs, cleaning)


def analyse(spec: Spec, data: PSSData, *, log: Callable[[str], None] | None = print) -> Outcome:
    """Train (or reload) and score every setting of the spec's grid, then tabulate.

    Returns:
        An :class:`~mtlib.experiments.outcome.Outcome`: ``parts`` are the cleaning report (pair counts) and
        the run's :class:`~mtlib.experiments.pss._report.PSSReport` (Table 1, tests, figures); ``reports``
        one :class:`~mtlib.experiments.pss._report.ModelReport` per encoder, then per native model.
    """
    grid = settings_grid(
        spec.encoders, spec.heads, finetune=spec.finetune, native=spec.native, finetune_heads=spec.finetune_heads
    )
    report = polarity_sensitivity(
        grid,
        data.train,
        data.test,
        data.pairs,
        seeds=spec.seeds,
        n_boot=spec.n_boot,
        seed=spec.seed,
        n_hardest=spec.n_hardest,
        finetune_train=data.finetune_train,
        context=spec.context(),
        head_settings=spec.head_training(),
        finetune_settings=spec.finetune_training(),
        log=log,
    )
    return Outcome(
        reports=dict(report.models), parts=[data.cleaning, report], primary=report.primary, data=data, spec=spec
    )


def run(spec: Spec, *, log: Callable[[str], None] | None = None) -> Outcome:
    """Notebook 05's experiment in one call: :func:`load`, then :func:`analyse` (silent unless ``log``)."""
    return analyse(spec, load(spec), log=log)
