"""Notebook 06's own pieces: its tree files, its fit settings, and the paper's published values."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mtlib.data.errors import DataArgumentError
from mtlib.data.papers import BHATHENA_TABLE2
from mtlib.data.trees import parse_tree
from mtlib.experiments import tre

TREES = Path(__file__).resolve().parents[3] / "data" / "trees"


def test_spec_hands_the_fit_its_settings():
    spec = tre.Spec(steps=20, heldout_fraction=0.25)
    assert spec.fit_options() == tre.TreFitOptions("add", 20, 0.01, 1.0, 0.25, "zero")
    assert spec.fit_options().kwargs() == {
        "composition": "add",
        "steps": 20,
        "lr": 0.01,
        "init_scale": 1.0,
        "heldout_fraction": 0.25,
        "unseen": "zero",
    }


def test_load_trees_keeps_file_order_and_the_fit_only_file():
    trees, extra = tre.load_trees(str(TREES / "dev.txt"), max_sentences=40)
    assert len(trees) == 40 and extra == []
    first = (TREES / "dev.txt").read_text().splitlines()[0]
    assert str(trees[0]) == first
    trees, extra = tre.load_trees(str(TREES / "dev.txt"), fit_path=str(TREES / "train.txt"), max_sentences=40)
    assert len(extra) == 40 and not {t.sentence for t in trees} & {t.sentence for t in extra}
    assert len(tre.load_trees(str(TREES / "dev.txt"))[0]) == 600  # 0 keeps all


def test_load_trees_refuses_a_negative_number_of_sentences():
    with pytest.raises(DataArgumentError, match="load_trees: max_sentences must be an integer >= 0"):
        tre.load_trees(str(TREES / "dev.txt"), max_sentences=-2)


def test_paper_examples_found_by_their_letters():
    trees = [parse_tree("(2 (2 Nothing) (2 else))"), parse_tree("(3 (3 Cool) (2 ?))")]
    found = tre.find_paper_examples(trees).set_index("sentence")
    row = found.loc["Cool ?"]
    assert row["found"] and row["index"] == 1
    assert round(row["ti_ours"], 2) == row["ti_paper"] == 0.33
    assert row["wns_ours"] == 1.0 and row["wns_paper"] == 2.5  # the literal WNS reading, beside the printed one
    assert found["found"].sum() == 1


def test_paper_table2_values_and_rows_of_the_encoders_not_run():
    assert tre.paper_table2("bert-base") == -0.1997 and math.isnan(tre.paper_table2("minilm"))
    rows = tre.paper_rows(["minilm", "bert-base"])
    assert [r["encoder"] for r in rows] == [f"{e} (paper)" for e in BHATHENA_TABLE2 if e != "BERT"]
    assert {r["split"] for r in rows} == {"SST dev"} and len(tre.paper_rows(["minilm"])) == 4


def test_old_tre_names_still_work_for_one_release_with_a_deprecation_warning():
    spec = tre.Spec()
    with pytest.warns(DeprecationWarning, match=r"fit_settings\(\) is renamed spec\.fit_options\(\)"):
        assert spec.fit_settings() == spec.fit_options()
    with pytest.warns(DeprecationWarning, match="tre.FitSettings is renamed TreFitOptions"):
        assert tre.FitSettings is tre.TreFitOptions
