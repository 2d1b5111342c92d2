"""Hostile inputs to PSS's public entries and to the run's device: each fails at the entry, naming the argument.

Every error here is a :class:`mtlib.relations.MtlibInputError` (a ``ValueError``) raised before any model
is loaded or trained. SETI's dataset builder refuses its bad inputs in ``tests/unit/data/test_seti_tasks.py``.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mtlib.experiments import pss
from mtlib.relations import MtlibInputError
from mtlib.utils.context import RunContext

# --- the device (case 2) --------------------------------------------------------------------------


def test_unknown_device_is_refused_before_loading():
    """The device is checked once, where the run's context is resolved."""
    with pytest.raises(ValueError, match="device 'tpu' is not a device mtlib knows"):
        RunContext.resolve(device="tpu")
    with pytest.raises(ValueError, match="expected one of 'auto', 'cpu'"):
        RunContext.resolve(device=0)  # type: ignore[arg-type]


def test_cuda_without_a_gpu_says_so(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="device 'cuda' asked for, but torch sees no CUDA GPU"):
        RunContext.resolve(device="cuda")
    with pytest.raises(ValueError, match="cuda:1"):
        RunContext.resolve(device="cuda:1")


# --- pss: clean_pairs (case 3) ---------------------------------------------------------------------


def _pairs(rows, index=None):
    return pd.DataFrame(rows, columns=["source", "rewrite", "direction"], index=index, dtype=object)


@pytest.mark.parametrize(
    ("row", "column", "shown"),
    [
        (("the food was bad .", 5, "neg_to_pos"), "rewrite", "int 5"),
        ((None, "the food was good .", "neg_to_pos"), "source", "NoneType None"),
        (("the food was bad .", math.nan, "neg_to_pos"), "rewrite", "float nan"),
        ((b"bytes", "the food was good .", "neg_to_pos"), "source", "bytes"),
    ],
)
def test_clean_pairs_refuses_non_text_with_row_and_column(row, column, shown):
    good = ("the food was bad .", "the food was great .", "neg_to_pos")
    pairs = _pairs([good, row, good], index=[10, 11, 12])
    with pytest.raises(MtlibInputError, match=rf"clean_pairs: pairs row 1 \(index 11\), column '{column}'") as err:
        pss.clean_pairs(pairs)
    assert shown in str(err.value)
    assert err.value.argument == f"pairs[{column!r}]"


def test_clean_pairs_refuses_a_non_frame_and_keeps_its_old_errors():
    with pytest.raises(MtlibInputError, match="clean_pairs: pairs must be a DataFrame"):
        pss.clean_pairs([("a", "b", "neg_to_pos")])
    with pytest.raises(KeyError, match="direction"):
        pss.clean_pairs(pd.DataFrame({"source": ["a"], "rewrite": ["b"]}))
    with pytest.raises(ValueError, match="unknown direction"):
        pss.clean_pairs(_pairs([("a", "b", None), ("c", "d", 3)]))


# --- pss: other entry points (case 4) --------------------------------------------------------------


def test_pss_subsample_refuses_a_non_frame_and_a_negative_count():
    frame = pd.DataFrame({"text": ["a", "b"], "label": [0, 1]})
    with pytest.raises(MtlibInputError, match="subsample: frame must be a DataFrame"):
        pss.subsample(frame.to_dict("records"), 1)
    with pytest.raises(MtlibInputError, match="subsample: n must be an integer >= 0"):
        pss.subsample(frame, -1)
