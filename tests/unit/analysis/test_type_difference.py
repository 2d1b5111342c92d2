"""Do the types of clustered items differ? The chi-square and label-permutation tests find a real difference only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtlib.analysis.type_difference import type_difference_test
from mtlib.relations import MtlibInputError


@pytest.mark.parametrize("gap,significant", [(0.0, False), (0.6, True)])
def test_type_difference_test_finds_a_real_difference_only(gap, significant):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(20)]
    types = pd.Series(["S-I"] * 10 + ["NS-Pr"] * 10, index=words)
    p = np.where(types.to_numpy() == "S-I", 0.2 + gap, 0.2)
    counts = pd.DataFrame({"adj": words, "k": rng.binomial(12, p), "n": 12})
    result = type_difference_test(counts, unit=["adj"], types=types, permutations=400, seed=1)
    assert (result["p_permutation"] < 0.01) == significant
    assert "permutation" in result["method"] and result["dof"] == 1


def test_type_difference_test_refuses_a_fractional_number_of_permutations():
    counts = pd.DataFrame({"adj": ["a", "b"], "k": [1, 2], "n": [3, 3]})
    types = pd.Series(["S-I", "A"], index=["a", "b"])
    with pytest.raises(MtlibInputError, match="type_difference_test: permutations must be"):
        type_difference_test(counts, unit=["adj"], types=types, permutations=2.5)
