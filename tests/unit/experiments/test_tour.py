"""The teaching tour (notebook 00_tour): its spec, and run(spec) against the notebook's steps."""

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


def test_run_gives_what_the_notebook_records(tmp_path):
    spec = tour.Spec(**SMALL, out_dir=str(tmp_path / "run"))
    outcome = tour.run(spec)
    (report,) = outcome.parts
    assert outcome.reports == {} and report.n_tests == 7
    # the notebook's steps: the suite on each model, compared, recorded as one run-level report
    models = {name: mt_models.load(name, device=spec.device) for name in (spec.model_a, spec.model_b)}
    data = tour.load(spec)
    suite = tour.suite(data, threshold=spec.threshold, n_boot=spec.n_boot, seed=spec.seed)
    result_a, result_b = suite.run(models[spec.model_a]), suite.run(models[spec.model_b])
    table = compare(result_a, result_b, n_boot=spec.n_boot, seed=spec.seed)
    steps = tour.TourReport({spec.model_a: result_a, spec.model_b: result_b}, table, data, len(suite.tests))
    run = results.Run.from_spec(spec)
    run.record_report(steps)
    recorded = {k: v for k, v in run.metrics.items() if k not in results.RUN_KEYS and not k.startswith("timing/")}
    assert recorded == outcome.metrics() == tour.metrics(steps.results, table, data, 7)
    assert run.headline == ["rate/vader/table1_order", "rate/textblob/table1_order", "diff/table1_order"]
    assert outcome.metrics()["n_reviews"] == 40 and outcome.metrics()["n_people"] == 12


def test_headline_with_one_model_twice(tmp_path):
    outcome = tour.run(tour.Spec(**SMALL, model_b="vader", out_dir=str(tmp_path)))
    (report,) = outcome.parts
    assert report.headline == ["rate/vader/table1_order", "rate/vader/table1_order", "diff/table1_order"]
    assert outcome.metrics()["diff/table1_order"] == 0.0


def test_exercise_checks_judge_the_answer(tmp_path):
    from mtlib.relations import transformations as T

    spec = tour.Spec(**SMALL, out_dir=str(tmp_path))
    data, vader = tour.load(spec), mt_models.load("vader")
    kw = dict(threshold=spec.threshold, n_boot=spec.n_boot, seed=spec.seed)
    rate, verdict = tour.check_invariance(vader, T.Casing("upper") >> T.Punctuation("exclaim"), data, **kw)
    assert 0 <= rate <= 1 and verdict.startswith("violation rate")
    rate, verdict = tour.check_decrease(vader, T.Concatenation("But it was a waste of time."), data, **kw)
    assert 0 <= rate <= 1 and ("Correct" in verdict or "Not yet" in verdict)
