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


def test_record_report_is_the_one_way_for_a_models_values_with_reasons_per_skipped_key(tmp_path):
    """``skipped=`` declares each value not computed with its own reason, under the model's and the plain keys,
    as notebook 04 and 06 did by hand with ``run.skip`` over ``models/<slug>/`` prefixes."""
    from mtlib.utils.keys import model_keys, model_slug

    run = Run("00_template", profile="smoke", out_dir=str(tmp_path), params={})
    run.primary_model = "org/first"
    values = {"rate/A": 0.5, "ci_low/A": math.nan, "rate/B": math.nan, "fit_seconds": 1.5}
    why = {"ci_low/A": "n_boot=0: no bootstrap intervals", "rate/B": "no case of B"}
    out = run.record_report(values, "org/first", skipped=why)
    slug = model_slug("org/first")  # a hub id: its last part and a hash
    assert list(out) == list(model_keys(values, "org/first"))
    assert run.metrics["rate/A"] == run.metrics[f"models/{slug}/rate/A"] == 0.5
    assert run.metrics["timing/fit_seconds"] == run.metrics[f"timing/models/{slug}/fit_seconds"] == 1.5
    assert run.metrics["_skipped"] == {
        "ci_low/A": why["ci_low/A"],
        "rate/B": why["rate/B"],
        f"models/{slug}/ci_low/A": why["ci_low/A"],
        f"models/{slug}/rate/B": why["rate/B"],
    }
    run.record_report({"rate/A": 0.75}, "second", skipped={"rate/B": "no case of B"})  # not primary: prefixed only
    assert run.metrics["rate/A"] == 0.5 and run.metrics["models/second/rate/A"] == 0.75
    assert run.metrics["_skipped"]["models/second/rate/B"] == "no case of B"
