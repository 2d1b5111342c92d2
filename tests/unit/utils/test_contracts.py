"""A replaceable cell's return refused where it is defined; a block timed without perf_counter pairs."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from mtlib.utils import ContractError, check_distinct, check_output, stopwatch
from mtlib.utils.inputs import MtlibInputError


def test_a_good_return_comes_back_as_an_array():
    out = check_output(torch.tensor([0.0, 2.0]), "distance", shape=(2,), low=0.0, high=2.0)
    assert isinstance(out, np.ndarray) and out.tolist() == [0.0, 2.0]
    assert check_output([[1.0, 2.0]], "compose", shape=(1, None)).shape == (1, 2)


@pytest.mark.parametrize(
    ("value", "kwargs", "message"),
    [
        (
            [0.2, 1.5],
            {"low": 0.0, "high": 1.0},
            r"head.score must return finite values in \[0.0, 1.0\]; got a value 1.5",
        ),
        ([0.2, np.nan], {"low": 0.0, "high": 1.0}, r"got a value nan at index \(1,\)"),
        (np.zeros((2, 3)), {"shape": (2,)}, r"of shape \(2,\); got shape \(2, 3\)"),
        ([-0.1], {"low": 0.0}, r"finite values >= 0.0; got a value -0.1"),
        ("margin", {}, r"head.score must return finite values; got str"),
    ],
)
def test_a_wrong_return_is_refused_naming_the_function_and_the_contract(value, kwargs, message):
    with pytest.raises(ContractError, match=message) as info:
        check_output(value, "head.score", **kwargs)
    assert isinstance(info.value, MtlibInputError) and info.value.expected


def test_stopwatch_measures_the_block_even_when_it_fails():
    with stopwatch() as clock:
        assert np.isnan(clock.seconds)
        time.sleep(0.01)
    assert 0.005 < clock.seconds < 5
    with pytest.raises(RuntimeError), stopwatch() as failed:
        raise RuntimeError("boom")
    assert failed.seconds >= 0


def test_a_list_with_an_entry_twice_is_refused_naming_it():
    assert check_distinct(("a", "b"), "models") == ["a", "b"]
    with pytest.raises(ContractError, match=r"encoders lists 'glove-50d' twice \(entries \[0\] and \[2\]\)"):
        check_distinct(["glove-50d", "minilm", "glove-50d"], "encoders")


def test_the_rule_distinct_refuses_a_model_listed_twice_in_any_spec():
    from mtlib.experiments import pss, tre
    from mtlib.utils.rules import ParameterError, compile_rule

    rule = compile_rule("each str; distinct", "test")
    assert rule.problems(["a", "b"], {}) == []
    assert rule.problems(["a", "b", "a"], {}) == [("[2]", "a", "distinct entries: it is also entry [0]; list it once")]
    with pytest.raises(ParameterError, match=r"encoders\[3\].*glove-50d.*distinct entries: it is also entry \[2\]"):
        pss.Spec(encoders=["minilm", "minilm-static", "glove-50d", "glove-50d"])
    with pytest.raises(ParameterError, match="distinct entries"):
        tre.Spec(models=["minilm", "minilm"])
