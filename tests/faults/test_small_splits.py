"""Splits of very little data: a clear refusal naming the parameter, or a plain split where stratifying cannot work.

Found from outside (issue 55's hostile run): ``-p 02.max_contexts=2`` and ``-p 05.n_test=4`` stopped with raw
scikit-learn errors ("the resulting train set will be empty", "test_size = 1 should be greater or equal to the number
of classes = 2").
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.experiments.nli._data import split_contexts
from mtlib.models.training.loop import stratified_split


def _contexts(n: int) -> pd.DataFrame:
    return pd.DataFrame({"context_id": np.arange(n), "monotonicity": ["up", "down"] * (n // 2) + ["up"] * (n % 2)})


def test_too_few_contexts_name_max_contexts_and_the_smallest_that_works() -> None:
    with pytest.raises(ValueError, match=r"2 context\(s\) split at train_fraction=0.3 leave 0 for training") as e:
        split_contexts(_contexts(2), 0.3)
    assert "keep at least 4 contexts (parameter max_contexts; 0 keeps all)" in str(e.value)
    train, test = split_contexts(_contexts(4), 0.3)  # the smallest it names works: 1 to train, 3 to test
    assert (len(train), len(test)) == (1, 3) and set(train) | set(test) == set(range(4))


def test_a_split_too_small_to_stratify_is_a_plain_seeded_split() -> None:
    y = np.array([0, 1, 0, 1])  # 0.2 held out is one position: it cannot hold both classes
    tr, te = stratified_split(y, 0.2, seed=0)
    assert len(te) == 1 and sorted([*tr, *te]) == [0, 1, 2, 3]
    assert np.array_equal(te, stratified_split(y, 0.2, seed=0)[1])  # seeded


def test_a_split_that_can_stratify_is_unchanged() -> None:
    from sklearn.model_selection import train_test_split

    y = np.array([0, 1] * 10)
    tr, te = stratified_split(y, 0.2, seed=3)
    old_tr, old_te = train_test_split(np.arange(20), test_size=0.2, random_state=3, stratify=y)
    assert np.array_equal(tr, old_tr) and np.array_equal(te, old_te)
    with pytest.raises(ValueError, match="expected at least 2"):
        stratified_split(np.array([1]), 0.2, seed=0)
