"""Notebook 04 end to end: build the phrases of the word lists, run the Montague tests on every model.

Intuition: :func:`run` is the whole experiment in one call; a notebook takes
the same two steps, :func:`load` then :func:`analyse`, so a reader sees the
phrases before the models run. Every value comes from the
:class:`~mtlib.experiments.montague.spec.Spec`.
"""

from __future__ import annotations

from mtlib.data import adjectives as adjective_lists
from mtlib.experiments.montague._phrases import PhraseSet, build_phrases
from mtlib.experiments.montague._report import run_tests
from mtlib.experiments.montague.spec import Spec
from mtlib.experiments.outcome import Outcome
from mtlib.models.loading import load as load_model


def load(spec: Spec) -> PhraseSet:
    """The AN and AAN phrases of the spec's word lists (the bundled Appendix A list unless replaced)."""
    adjs, nouns = adjective_lists.load_lexicon(
        spec.word_lists,
        bundled=not spec.replace_bundled,
        max_per_type=spec.max_adjectives_per_type,
        max_nouns=spec.max_nouns,
    )
    return build_phrases(adjs, nouns)


def analyse(spec: Spec, phrases: PhraseSet) -> Outcome:
    """The three Montague tests (Tables 1-4, 6-8) on every model of the spec; the phrase counts run-level."""
    reports = {}
    for name in spec.models:
        model = load_model(name, context=spec.context())
        reports[name] = run_tests(
            model,
            phrases,
            name=name,
            max_split_distance=spec.max_split_distance,
            n_boot=spec.n_boot,
            permutations=spec.permutations,
            seed=spec.seed,
        )
    return Outcome(reports=reports, parts=[phrases.counts()], data=phrases, spec=spec)


def run(spec: Spec) -> Outcome:
    """Notebook 04's experiment in one call: :func:`load`, then :func:`analyse`."""
    return analyse(spec, load(spec))
