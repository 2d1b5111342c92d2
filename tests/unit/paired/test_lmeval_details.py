"""lm-eval details users hit (issue 60, item 6), each on a fixture: one line per (doc_id, filter), several metrics
per line, tasks with repeats, and the older files whose lines do not name their filter (lm-eval #1687, #2025).

``tests/fixtures/lmeval/model-*`` are lm-eval 0.4.13's own files (make_fixtures.sh); ``old-format`` is written by
make_old_format.py in lm-eval 0.4.2's fields. Every count is checked against the raw lines, read here.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from mtlib.paired import compare_runs, read_items

LMEVAL = Path(__file__).resolve().parents[2] / "fixtures" / "lmeval"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_one_line_per_doc_id_and_filter_gives_one_metric_per_filter():
    path = sorted((LMEVAL / "model-a").glob("samples_tiny_gen_*"))[0]
    raw = _lines(path)
    assert Counter(r["doc_id"] for r in raw) == {d: 2 for d in range(40)}  # each document twice: two filters
    items = read_items(path)
    for r in raw:
        row = items[(items["id"] == str(r["doc_id"])) & (items["metric"] == f"exact_match,{r['filter']}")]
        assert len(row) == 1 and row["value"].iloc[0] == r["exact_match"]
    assert not items.attrs["notes"]  # nothing refused, nothing kept once


def test_several_metrics_on_one_line_are_read_from_that_line():
    path = sorted((LMEVAL / "model-a").glob("samples_tiny_mc_*"))[0]
    raw = _lines(path)
    assert all(r["metrics"] == ["acc", "acc_norm"] for r in raw)
    items = read_items(path)
    both = items.pivot(index="id", columns="metric", values="line")
    assert (both["acc,none"] == both["acc_norm,none"]).all() and len(both) == len(raw) == 60
    values = items.pivot(index="id", columns="metric", values="value")
    assert values["acc_norm,none"].sum() == sum(r["acc_norm"] for r in raw)
    assert (values["acc,none"] != values["acc_norm,none"]).any()  # two metrics, not one read twice


def test_a_task_with_repeats_gives_one_value_per_document_and_its_runs_one_group():
    files = sorted((LMEVAL / "model-a").glob("samples_tiny_gen_*"))
    raw = _lines(files[0])
    assert {len(r["resps"][0]) for r in raw} == {3}  # repeats: 3 answers per document, one metric over them
    items = read_items(LMEVAL / "model-a")
    gen = items[(items["task"] == "tiny_gen") & (items["metric"] == "exact_match,maj")]
    assert len(gen) == 2 * 40 and gen.groupby("group").size().eq(2).all()  # two runs (seeds) of each document
    c = compare_runs(LMEVAL / "model-a", LMEVAL / "model-b", n_boot=500)
    row = c.table.loc[("tiny_gen", "exact_match,maj")]
    assert (row["n_items"], row["n_groups"]) == (80, 40) and row["test"] == "sign-flip permutation over groups"
    assert row["mde_test"] == "paired t"


def test_lines_that_do_not_name_their_filter_are_read_as_the_kth_filter_and_said():
    path = next((LMEVAL / "old-format" / "model-a").glob("samples_*"))
    raw = _lines(path)
    assert all("filter" not in r for r in raw) and len(raw) == 60
    items = read_items(path)
    assert sorted(items["metric"].unique()) == ["exact_match,#1", "exact_match,#2"]
    first, second = raw[:30], raw[30:]  # lm-eval wrote the filters one after the other
    by = items.set_index(["metric", "id"])["value"]
    assert [by[("exact_match,#1", str(r["doc_id"]))] for r in first] == [r["exact_match"] for r in first]
    assert [by[("exact_match,#2", str(r["doc_id"]))] for r in second] == [r["exact_match"] for r in second]
    (note,) = items.attrs["notes"]
    assert "#1687" in note and "filter '#k'" in note
    c = compare_runs(LMEVAL / "old-format" / "model-a", LMEVAL / "old-format" / "model-b", n_boot=500)
    assert list(c.table.index) == [("gsm8k-lite", "exact_match,#1"), ("gsm8k-lite", "exact_match,#2")]
