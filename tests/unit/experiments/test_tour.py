"""The teaching tour (notebook 00_tour): its spec, the keys it records and its exercise checks."""

from __future__ import annotations

import pytest

from mtlib import models as mt_models
from mtlib.experiments import spec_for, tour
from mtlib.run import results
from mtlib.suite import compare
from mtlib.utils.rules import ParameterError

#: A small tour: the two lexicon models on a few reviews and template sentences.
SMALL = dict(profile="smoke", device="cpu", n_reviews=40, n_people=12, n_boot=50)


def test_spec_is_the_notebooks_one_declaration():
    assert spec_for("00_tour") is tour.Spec
    with pytest.raises(KeyError, match="00_template, 00_tour"):  # two notebooks share the key 00
        spec_for("00")
    spec = tour.Spec()
    assert (spec.model_a, spec.model_b, spec.threshold) == ("vader", "textblob", 0.1)
    assert 'model_a: str = "vader"' in tour.Spec.cell()


@pytest.mark.parametrize(
    "values,match",
    [
        (dict(model_a=""), "at least one entry|non-empty"),
        (dict(threshold=1.5), r"in \[0, 1\]"),
        (dict(n_people=0), ">= 1"),
        (dict(n_boot="10"), "an integer"),
    ],
)
def test_spec_refuses_bad_values(values, match):
    with pytest.raises(ParameterError, match=match):
        tour.Spec.from_values(values)


def test_metrics_are_the_suites_rates_differences_and_p_values(tmp_path):
    """The notebook's steps (the suite on each model, compared) and the keys it records from them."""
    spec = tour.Spec(**SMALL, out_dir=str(tmp_path / "run"))
    models = {name: mt_models.load(name, device=spec.device) for name in (spec.model_a, spec.model_b)}
    data = tour.load(spec)
    suite = tour.suite(data, threshold=spec.threshold, n_boot=spec.n_boot, seed=spec.seed)
    result_a, result_b = suite.run(models[spec.model_a]), suite.run(models[spec.model_b])
    table = compare(result_a, result_b, n_boot=spec.n_boot, seed=spec.seed)
    out = tour.metrics({spec.model_a: result_a, spec.model_b: result_b}, table, data, len(suite.tests))
    assert (out["n_reviews"], out["n_people"], out["n_tests"]) == (40, 12, 7)
    for test, row in table.iterrows():
        assert out[f"rate/vader/{test}"] == pytest.approx(result_a.summary().loc[test, "rate"])
        assert out[f"rate/textblob/{test}"] == pytest.approx(result_b.summary().loc[test, "rate"])
        assert out[f"diff/{test}"] == pytest.approx(row["rate_b"] - row["rate_a"])  # b minus a, as compare gives
        assert 0 <= out[f"mcnemar_p/{test}"] <= 1
    assert out["failing/vader"] == len(result_a.failing())
    run = results.Run.from_spec(spec)
    run.record(out)
    assert run.metrics["diff/table1_order"] == out["diff/table1_order"]
    # one model twice: every difference is 0
    same = tour.metrics({"vader": result_a}, compare(result_a, result_a, n_boot=50, seed=0), data, 7)
    assert same["diff/table1_order"] == 0.0


def test_exercise_checks_judge_the_answer(tmp_path):
    from mtlib.relations import transformations as T

    spec = tour.Spec(**SMALL, out_dir=str(tmp_path))
    data, vader = tour.load(spec), mt_models.load("vader")
    kw = dict(threshold=spec.threshold, n_boot=spec.n_boot, seed=spec.seed)
    rate, verdict = tour.check_invariance(vader, T.Casing("upper") >> T.Punctuation("exclaim"), data, **kw)
    assert 0 <= rate <= 1 and verdict.startswith("violation rate")
    rate, verdict = tour.check_decrease(vader, T.Concatenation("But it was a waste of time."), data, **kw)
    assert 0 <= rate <= 1 and ("Correct" in verdict or "Not yet" in verdict)
