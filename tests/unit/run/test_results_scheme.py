"""The run's key scheme for a notebook's models: the primary model's values and tables under plain names."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mtlib.run.results import Run


def test_primary_model_names_tables_and_keys_and_nan_reason_declares_what_was_not_computed(tmp_path):
    run = Run("00_template", profile="smoke", out_dir=str(tmp_path), params={})
    frame = pd.DataFrame({"a": [1]})
    assert run.save_table(frame, "t", model="other").name == "t.csv"  # no primary model set: plain, as before
    assert run.save_table(frame, "t", model="other", primary=False).name == "t__other.csv"
    run.primary_model = "first"
    assert run.save_table(frame, "t", model="first").name == "t.csv"
    assert run.save_table(frame, "t", model="second").name == "t__second.csv"
    assert run.save_table(frame, "u").name == "u.csv"
    run.record_report({"rate": 0.5, "ci": math.nan}, "second", nan_reason="no case")
    assert run.metrics["models/second/rate"] == 0.5 and "rate" not in run.metrics
    assert run.metrics["_skipped"] == {"models/second/ci": "no case"}
    run.record_report({"rate": 0.25}, "first")
    assert run.metrics["rate"] == 0.25 and run.metrics["models/first/rate"] == 0.25
    with pytest.raises(Exception, match="ci"):  # a NaN nobody declared is an error, as before
        run.record_report({"ci": math.nan}, "first")
