"""Reading per-item results with their identity kept, and pairing two runs: every refusal names file and line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mtlib.paired import compare_runs, pair_items, read_items
from mtlib.relations.errors import MtlibInputError
from mtlib.suite import MFT, Suite

LMEVAL = Path(__file__).resolve().parents[2] / "fixtures" / "lmeval"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_lm_eval_sample_files_as_lm_eval_wrote_them():
    items = read_items(LMEVAL / "model-a")
    assert set(items["task"]) == {"tiny_mc", "tiny_gen"}
    mc = items[items["task"] == "tiny_mc"]
    assert set(mc["metric"]) == {"acc,none", "acc_norm,none"}
    assert len(mc) == 2 * 60 and sorted(mc["id"].astype(int).unique()) == list(range(60))
    assert mc["value"].isin([0.0, 1.0]).all() and (mc["n"] == 1).all()
    gen = items[items["task"] == "tiny_gen"]  # two runs (seeds) of one task: one group per document
    assert set(gen["metric"]) == {"exact_match,take_first", "exact_match,maj"}
    assert len(gen) == 2 * 2 * 40 and gen.groupby(["metric", "group"]).size().eq(2).all()
    assert any("repeated runs" in note for note in items.attrs["notes"])
    line = json.loads((sorted((LMEVAL / "model-a").glob("samples_tiny_mc_*"))[0]).read_text().splitlines()[6])
    row = mc[(mc["id"] == str(line["doc_id"])) & (mc["metric"] == "acc,none")].iloc[0]
    assert row["value"] == line["acc"] and row["line"] == 7


def test_plain_csv_and_json_lines(tmp_path):
    csv = _write(tmp_path / "a.csv", "id,group,task,acc,bleu,prediction\n1,d1,t,1,0.5,yes\n2,d1,t,0,0.25,no\n")
    items = read_items(csv)
    assert sorted(items["metric"].unique()) == ["acc", "bleu"] and set(items["group"]) == {"d1"}
    assert any("'prediction' is not numeric" in n for n in items.attrs["notes"])
    jsonl = _write(tmp_path / "a.jsonl", '{"id": "x", "acc": 1}\n{"id": "y", "acc": 0}\n')
    items = read_items(jsonl)
    assert list(items["task"]) == ["all", "all"] and list(items["group"]) == ["x", "y"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("id,acc\n1,1\n2,nan\n", "a.csv, line 3: column 'acc' must hold numbers"),
        ("id,acc\n1,1\n2,\n", "a.csv, line 3: column 'acc' must hold numbers, got an empty value"),
        ("id,acc\n1,1\n1,0\n", "a.csv, line 3: id '1' (task 'all', metric 'acc') has value 0 here and 1 on line 2"),
        ("id,acc\n1,1\n,0\n", "a.csv, line 3: expected a non-empty 'id'"),
        ("acc\n1\n", "a.csv, line 1: expected an 'id' column"),
    ],
)
def test_bad_items_are_refused_with_the_file_and_line(tmp_path, text, said):
    with pytest.raises(MtlibInputError, match=said.replace("(", r"\(").replace(")", r"\)")):
        read_items(_write(tmp_path / "a.csv", text))


def test_a_duplicate_with_the_same_values_is_kept_once_and_said(tmp_path):
    items = read_items(_write(tmp_path / "a.csv", "id,acc\n1,1\n1,1\n2,0\n"))
    assert len(items) == 2 and any("kept once" in n for n in items.attrs["notes"])


def test_lm_eval_nan_and_bad_json_name_the_line(tmp_path):
    good = '{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0}\n'
    with pytest.raises(MtlibInputError, match=r"samples_t_2026-01-01T00-00-00.jsonl, line 2: column 'acc'"):
        read_items(_write(tmp_path / "samples_t_2026-01-01T00-00-00.jsonl", good + good.replace("1.0", "NaN")))
    with pytest.raises(MtlibInputError, match=r"line 2: not valid JSON"):
        read_items(_write(tmp_path / "samples_t_2026-01-01T00-00-00.jsonl", good + "{oops\n"))


def test_unmatched_items_and_metrics_are_reported_and_left_out(tmp_path):
    a = read_items(_write(tmp_path / "a.csv", "id,acc,f1\n1,1,0.5\n2,0,0.5\n3,1,0.5\n"))
    b = read_items(_write(tmp_path / "b.csv", "id,acc\n1,1\n2,1\n4,0\n"))
    paired, unmatched = pair_items(a, b)
    assert sorted(paired["id"]) == ["1", "2"]
    text = "\n".join(unmatched)
    assert "metric 'f1': only in" in text and "a.csv" in text
    assert "1 items only in " + str(tmp_path / "a.csv") in text and "'3' (line 4)" in text
    assert "'4' (line 4)" in text
    with pytest.raises(MtlibInputError, match="--require-all"):
        compare_runs(tmp_path / "a.csv", tmp_path / "b.csv", require_all=True, n_boot=10)


def test_groups_must_agree_between_the_files(tmp_path):
    _write(tmp_path / "a.csv", "id,group,acc\n1,g,1\n2,g,0\n")
    _write(tmp_path / "b.csv", "id,group,acc\n1,g,1\n2,h,0\n")
    with pytest.raises(MtlibInputError, match=r"item '2' .* group 'g' in .*a.csv \(line 3\) and in group 'h'"):
        compare_runs(tmp_path / "a.csv", tmp_path / "b.csv", n_boot=10)


def test_a_saved_suite_result_compares_as_the_suite_does(tmp_path):
    texts = [f"item {i}" for i in range(60)]
    suite = Suite("s").add("mft", MFT("positive"), texts, threshold=0.5)
    a = suite.run(lambda xs: np.array([0.9 if int(x.split()[1]) % 3 else 0.1 for x in xs]))
    b = suite.run(lambda xs: np.array([0.9 if int(x.split()[1]) % 6 else 0.1 for x in xs]))
    a.save(tmp_path / "a.json"), b.save(tmp_path / "b.json")
    c = compare_runs(tmp_path / "a.json", tmp_path / "b.json", n_boot=500)
    rate, failed = c.table.loc[("mft", "violation_rate")], c.table.loc[("mft", "item_failed")]
    suite_row = a.compare(b, n_boot=500).loc["mft"]
    assert rate["diff"] == pytest.approx(suite_row["diff"]) and rate["mean_a"] == pytest.approx(a["mft"].rate)
    assert (failed["a_only"], failed["b_only"]) == (suite_row["a_only_fail"], suite_row["b_only_fail"])
    assert failed["p"] == pytest.approx(suite_row["mcnemar_p"])
    assert c.model_a == a.model


def test_the_fast_csv_reader_and_the_line_by_line_one_agree(tmp_path):
    text = "id,task,group,acc,note\n1,t,g,1,ok\n2,t,,0.5,bad\n3,u,g,0,ok\n"
    fast = read_items(_write(tmp_path / "fast.csv", text))
    slow = read_items(_write(tmp_path / "slow.csv", text.replace("\n3,", "\n\n3,")))  # a blank line: line by line
    assert fast.drop(columns="line").equals(slow.drop(columns="line"))
    assert list(fast["line"]) == [2, 3, 4] and list(slow["line"]) == [2, 3, 5]
    assert list(fast["group"]) == ["g", "2", "g"] and fast.attrs["notes"] == [
        f"{tmp_path / 'fast.csv'}: column 'note' is not numeric: left out"
    ]


def test_lm_eval_output_root_names_its_model_folders(tmp_path):
    (tmp_path / "org__model").mkdir()
    _write(tmp_path / "org__model" / "samples_t_2026-01-01T00-00-00.jsonl", '{"doc_id": 0, "acc": 1}\n')
    with pytest.raises(MtlibInputError, match=r"give one of its model folders: \['org__model'\]"):
        read_items(tmp_path)
