"""The teaching tour (notebook 00): a suite of seven tests, run on two models and compared.

Intuition: a class meets metamorphic testing on two lexicon sentiment models
that install offline (VADER, TextBlob). The suite mixes the test types a user
needs: a minimum-functionality test (praise must read as positive), four
invariances (casing, "!", names, typos), one directional test (negation lowers
the score) and Manino et al.'s pairwise Table 1 relation. Everything the
notebook says is computed from the run, so it stays true for any two models
given as ``model_a`` and ``model_b``.

The notebook takes the steps one by one to teach them: :func:`load`, :func:`suite`,
then ``suite.run(model)`` on each model, then :func:`mtlib.suite.compare`.
"""

from __future__ import annotations

from mtlib.data import sst
from mtlib.experiments.tour._data import TourInputs, inputs
from mtlib.experiments.tour.spec import Spec
from mtlib.relations import transformations as T
from mtlib.relations.pairwise import PairwiseSystematicity
from mtlib.relations.single import SingleInput
from mtlib.suite.mft import MFT
from mtlib.suite.suite import Suite


def suite(data: TourInputs, *, threshold: float, n_boot: int, seed: int) -> Suite:
    """The seven tests: an MFT, four invariances, one directional test and the Table 1 pairwise relation."""
    s = Suite("tour", n_boot=n_boot, seed=seed)
    s.add("praise_is_positive", MFT("positive"), data.praise, threshold=threshold)
    for name, title, t in (
        ("case_upper", "upper case", T.Casing("upper")),
        ("punct_exclaim", "'!'", T.Punctuation("exclaim")),
        ("name_swap", "names", T.NameSwap(seed=seed)),
        ("typos", "typos", T.Typos("swap", seed=seed)),
    ):
        s.add(name, SingleInput(title, "equivalence", t), data.people, threshold=threshold)
    s.add(
        "negation_lowers",
        SingleInput("negation", "order", T.Negation(), direction="decrease"),
        data.praise,
        threshold=threshold,
    )
    s.add("table1_order", PairwiseSystematicity("Table 1", T.manino_table1()), data.reviews, threshold=threshold)
    return s


def load(spec: Spec) -> TourInputs:
    """The template sentences and the sample of bundled reviews the spec asks for."""
    return inputs(sst.load_reviews(), n_reviews=spec.n_reviews, n_people=spec.n_people, seed=spec.seed)
