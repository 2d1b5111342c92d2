"""Notebook 02's method on a tiny model: the notebook's own cells, run as a plain script (the parameters cell, then
the values a profile would set, then every code cell in one namespace), with SICK and MED training the NLI
classifier and the training-data ablation; and the ablation entries the spec accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from mtlib.data import sick
from mtlib.experiments import nli
from mtlib.utils.keys import model_slug
from mtlib.utils.rules import ParameterError
from mtrun import script

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "notebooks" / "02_nli_probe_compositionality.ipynb"
MED_HEADER = (
    "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
    "sentence2_parse\tsentence1\tsentence2\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\tgold_label\n"
)
MED_ROWS = [
    ("downward_monotone", "No dog barked", "No poodle barked", "entailment"),
    ("downward_monotone", "No poodle barked", "No dog barked", "neutral"),
    ("upward_monotone", "Some poodles ran", "Some dogs ran", "entailment"),
    ("upward_monotone", "Some dogs ran", "Some poodles ran", "neutral"),
    ("downward_monotone", "Every animal slept", "Every cat slept", "entailment"),
    ("upward_monotone", "A cat slept", "An animal slept", "entailment"),
    ("upward_monotone", "An animal slept", "A cat slept", "neutral"),
    ("downward_monotone", "Few birds sang", "Few sparrows sang", "entailment"),
]
SMALL = dict(max_contexts=10, max_insertions=9, n_boot=5, permutations=50, device="cpu", profile="smoke")


def run_notebook(tmp: Path, **values: Any) -> dict[str, Any]:
    """Notebook 02 as a plain script (:mod:`mtrun.script`), ``values`` over its parameters; the namespace."""
    return script.run_notebook(NOTEBOOK, {**values, "out_dir": str(tmp)}, quiet=True)


@pytest.fixture(scope="module")
def med_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("med") / "MED.tsv"
    lines = [
        f"{i}\t{i}\t{i}e\tpaper:test:{g}\t\t\t\t\t{a}\t{b}\t{lab}\t\t\t\t\t{lab}\n"
        for i, (g, a, b, lab) in enumerate(MED_ROWS)
    ]
    path.write_text(MED_HEADER + "".join(lines))
    return str(path)


def test_entries_parse_to_canonical_sets():
    assert nli.training_sets("sick") == ("sick",)
    assert nli.training_sets(" MED + sick ") == ("sick", "med")
    assert nli.training_sets("none") == ()
    assert nli.training_label(()) == "none" and nli.training_label(["med", "sick"]) == "sick+med"
    for bad in ("", "snli", "sick+sick", "none+med"):
        with pytest.raises(ValueError, match="ablation entry"):
            nli.training_sets(bad)


def test_spec_refuses_bad_entries_naming_each():
    with pytest.raises(ParameterError) as err:
        nli.Spec(ablation=["sick", "mnli", "med+sick", "sick"], sick_path="nli_pool/SICK.txt")
    text = str(err.value)
    assert "'mnli': expected none, or sick, med" in text
    assert "'med+sick' trains on med: med_path must name the file" in text
    assert "'sick' repeats the training set sick" in text
    assert nli.Spec(ablation=["none", "sick"], sick_path="nli_pool/SICK.txt").ablation == ["none", "sick"]


def test_subset_external_keeps_the_named_sets_and_sick_test(med_file):
    ext = nli.load_external(sick.BUNDLED_SICK, med_file)
    assert ext is not None and ext.sick_test is not None
    only_med = nli.subset_external(ext, ("med",))
    assert only_med is not None and only_med.sick_test is ext.sick_test
    assert only_med.train["premise"].tolist() == [a for _, a, _, _ in MED_ROWS]
    assert only_med.train["entailed"].tolist() == [lab == "entailment" for *_, lab in MED_ROWS]
    assert len(nli.subset_external(ext, ()).train) == 0 and nli.subset_external(None, ("sick",)) is None
    no_test = nli.ExternalNLI(ext.train, None)
    assert nli.subset_external(no_test, ()) is None  # nothing left to train or to test on


@pytest.fixture(scope="module")
def ablation_run(med_file, tiny_bert_dir, tmp_path_factory):
    """The notebook on the tiny BERT: SICK TRAIN and MED train its head; the ablation retrains it on each set."""
    values = dict(
        SMALL,
        models=[str(tiny_bert_dir)],
        ablation=["sick", "med", "sick+med", "none"],
        sick_path=sick.BUNDLED_SICK,
        med_path=med_file,
    )
    tmp = tmp_path_factory.mktemp("nli-ablation")
    ns = run_notebook(tmp, **values)
    layout = ns["run"].layout
    metrics = json.loads(layout.metrics_path.read_text())
    table = pd.read_csv(layout.tables_dir / "training_data_ablation.csv", index_col="entry")
    return ns, metrics, table


def test_ablation_rows_are_each_training_sets_own_run(ablation_run):
    ns, metrics, table = ablation_run
    rows, primary, external = ns["rows"], ns["primary"], ns["external"]
    assert list(table.index) == ["sick", "med", "sick+med", "none"]
    assert ns["ablation_row"]["sick+med"] == primary  # the primary row is reused, not retrained
    counts = external.train["source"].value_counts()
    assert table["n_external"].tolist() == [counts["sick"], counts["med"], len(external.train), 0]
    assert table.loc["med", "training_data"] == "NLI-XY train contexts + MED"
    n_ctx = int(ns["train"].sum())
    for label, row in ns["ablation_row"].items():
        r, line = rows[row], table.loc[label]
        assert r.info["nli_head_n_train"] == pytest.approx(0.8 * (n_ctx + line["n_external"]), abs=2)
        assert line["nli_accuracy"] == pytest.approx(r.nli_accuracy.accuracy)
        assert line["up"] == pytest.approx(r.by_monotonicity.loc["up", "rate"])
        assert line["p_permutation"] == pytest.approx(r.difference.permutation.p_value)
        assert line["sick_test_accuracy"] == pytest.approx(r.sick_test.accuracy)
        assert line["direction"] == ("up < down (paper)" if line["up"] < line["down"] else "up >= down (reversed)")
        key = "ablation/" + label.replace("+", "_")
        assert metrics[f"{key}/n_external"] == line["n_external"]
        assert metrics[f"{key}/violation_rate/down_ci_high"] == pytest.approx(line["down_ci_high"])
        assert metrics[f"{key}/up_vs_down_p_permutation"] == pytest.approx(line["p_permutation"])
    # the same probe and split for every row; only the NLI classifier differs
    assert len({round(float(rows[row].probe_accuracy.accuracy), 12) for row in ns["ablation_row"].values()}) == 1
    assert not np.allclose(rows[ns["ablation_row"]["sick"]].s_ent, rows[ns["ablation_row"]["med"]].s_ent)
    # the ablation rows are not model rows: only the model gets models/<slug>/ keys
    assert ns["model_rows"] == [primary] and len(rows) == 4
    assert {k.split("/")[1] for k in metrics if k.startswith("models/")} == {model_slug(primary)}
    assert "Manino et al." in ns["claim"]
    assert any(end in ns["ablation_text"] for end in ("The direction depends", "Every training set"))


def test_head_trains_on_external_and_scores_sick_test(ablation_run):
    ns, metrics, _ = ablation_run
    external, n_ctx = ns["external"], int(ns["train"].sum())
    assert metrics["nli_head_n_train"] == pytest.approx(0.8 * (n_ctx + len(external.train)), abs=2)
    assert metrics["nli_n_train_sick"] + metrics["nli_n_train_med"] == len(external.train)
    assert metrics["n_sick_test"] == len(external.sick_test) and 0 <= metrics["accuracy/sick_test"] <= 1
    share = external.sick_test["entailed"].mean()
    assert metrics["majority_baseline/sick_test"] == pytest.approx(max(share, 1 - share))
    main = ns["rows"][ns["primary"]]
    assert metrics["violation_rate/overall"] == main.result.rate and metrics["n_cases"] == main.result.cases
    assert metrics["_headline"] == ["probe_accuracy", "nli_accuracy", "violation_rate/up", "violation_rate/down"]
    assert any(what.startswith("NLI on SICK TEST") for what in ns["accuracies"])


def test_finetuned_cross_encoder_row_without_ablation(tiny_bert_dir, tmp_path):
    settings = {"lr": 1e-3, "epochs": 1, "batch_size": 16, "max_length": 48}
    ns = run_notebook(tmp_path, **SMALL, models=[str(tiny_bert_dir)], how="finetune", finetune_settings=settings)
    metrics = json.loads(ns["run"].layout.metrics_path.read_text())
    (row,) = ns["model_rows"]
    assert row.endswith("-ft") and "cross-encoder fine-tuned" in ns["rows"][row].source
    assert metrics["timing/train_seconds"] >= 0 and 0 <= metrics["nli_accuracy"] <= 1
    assert "nli_accuracy_majority_baseline" in metrics and "accuracy/sick_test" not in metrics
    assert ns["rows"][row].s_ent.shape == (len(ns["items"]),)
    # no ablation: nothing recorded under ablation/, no table, and the sentence says so
    assert not any(k.startswith("ablation/") for k in metrics)
    assert not (ns["run"].layout.tables_dir / "training_data_ablation.csv").exists()
    assert "No training-data ablation in this run" in ns["ablation_text"]
    figures = sorted(p.stem for p in ns["run"].layout.figures_dir.glob("*.png"))
    assert figures == ["relation_diagram", "table3_contexts", "table4_insertions", "up_vs_down"]


def test_an_nli_model_scores_with_its_own_entailment_label(tiny_roberta_nli_dir, tmp_path):
    ns = run_notebook(tmp_path, **SMALL, models=[str(tiny_roberta_nli_dir)], sick_path=sick.BUNDLED_SICK)
    metrics = json.loads(ns["run"].layout.metrics_path.read_text())
    r = ns["rows"][ns["primary"]]
    assert r.source == "model label ENTAILMENT" and r.info == {}
    assert not any(k.startswith("nli_head_") for k in metrics)  # nothing trained: the model's own head
    np.testing.assert_array_equal(r.s_ent, r.features.log_odds("ENTAILMENT"))
    expected = r.model.log_odds(list(ns["items"]["premise"][:5]), "ENTAILMENT", list(ns["items"]["hypothesis"][:5]))
    np.testing.assert_allclose(r.s_ent[:5], expected, atol=1e-4)  # the same pass as a plain classify call
    assert metrics["n_sick_test"] == len(ns["external"].sick_test) and 0 <= metrics["accuracy/sick_test"] <= 1
