"""Subsamples of a frame: groups kept in proportion, order kept, seeded."""

from __future__ import annotations

import pandas as pd
import pytest

from mtlib.data.sample import subsample


def test_subsample_keeps_groups_and_order():
    frame = pd.DataFrame({"id": range(30), "group": ["a"] * 20 + ["b"] * 10})
    assert subsample(frame, 0, seed=1) is frame
    some = subsample(frame, 8, seed=1, by="group", sort="id")
    assert list(some["group"].value_counts().sort_index()) == [4, 4] and some["id"].is_monotonic_increasing
    assert len(subsample(frame, 100, seed=1)) == 30
    assert subsample(frame, 5, seed=2).equals(subsample(frame, 5, seed=2))
    with pytest.raises(ValueError, match="n must be an integer >= 0"):
        subsample(frame, -1)
