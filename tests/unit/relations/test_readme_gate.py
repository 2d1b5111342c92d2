"""The README's example: gate a sentiment model in CI (offline, VADER, the bundled reviews)."""

from mtlib import relations as R
from mtlib.data.sst import load_reviews
from mtlib.relations import transformations as T
from mtlib.testing import assert_relation

REVIEWS = load_reviews()["text"].tolist()


def test_sentiment_is_systematic_under_neutral_sentences():
    # Every pair of reviews must keep its order when the six neutral sentences
    # of Manino et al. Table 1 are added: at most 5% violated pairs.
    assert_relation("vader", R.PairwiseSystematicity("Table 1", T.manino_table1()), REVIEWS, max_rate=0.05)


def test_sentiment_label_survives_typos():
    # The predicted class must stay the strict argmax after one typo. VADER
    # loses it on about 31% of the reviews (16% of them score exactly
    # neutral, never a strict argmax): the gate stops it getting worse.
    typos = R.SingleInput("typos", "equivalence", [T.Typos("swap"), T.Typos("delete")])
    assert_relation("vader", typos, REVIEWS, max_rate=0.35)
