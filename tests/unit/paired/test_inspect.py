"""inspect_ai logs (tests/fixtures/inspect, written by inspect-ai 0.3.285 with make_logs.py) read and compared.

The counts are checked against the log's own JSON, read here without mtlib's reader.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtlib.paired.cli import main
from mtlib.paired.readers import read_items

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "inspect"


def test_an_eval_log_is_a_zip_of_zstd_members_and_reads_as_its_json_twin():
    with zipfile.ZipFile(LOGS / "tie/a.eval") as archive:
        samples = [i for i in archive.infolist() if i.filename.startswith("samples/")]
        assert len(samples) == 200 and {i.compress_type for i in samples} == {93}  # 93: Zstandard
    from_eval, from_json = read_items(LOGS / "tie/a.eval"), read_items(LOGS / "tie/a.json")
    key = ["task", "metric", "id"]
    pd.testing.assert_frame_equal(
        from_eval.sort_values(key).reset_index(drop=True), from_json.sort_values(key).reset_index(drop=True)
    )
    assert from_eval.attrs["model"] == "mockllm/model-a"


def test_scores_map_to_numbers_and_epochs_are_one_group():
    items = read_items(LOGS / "tie/a.json")
    log = json.loads((LOGS / "tie/a.json").read_text())
    raw = {(str(s["id"]), s["epoch"]): s["scores"] for s in log["samples"]}
    assert len(raw) == 200 and {e for _, e in raw} == {1, 2}
    match = items[items["metric"] == "match"].set_index("id")
    assert len(match) == 200
    assert match.loc["q001#2", "group"] == "q001"  # the two epochs of q001: one group
    for (ident, epoch), scores in raw.items():
        assert match.loc[f"{ident}#{epoch}", "value"] == {"C": 1.0, "I": 0.0}[scores["match"]["value"]]
    graded = items[items["metric"] == "graded"]
    letters = pd.Series([s["graded"]["value"] for s in raw.values()])
    assert set(letters) == {"C", "P", "I"}  # the fixture has partial answers
    assert graded["value"].sum() == (letters == "C").sum() + 0.5 * (letters == "P").sum()
    closeness = items[items["metric"] == "closeness"]["value"].to_numpy()
    assert np.isclose(closeness.sum(), sum(s["closeness"]["value"] for s in raw.values()), rtol=0, atol=1e-9)


def test_two_logs_that_differ_and_two_that_tie(tmp_path: Path):
    assert main([str(LOGS / "differ/a.eval"), str(LOGS / "differ/b.eval"), "--n-boot", "2000", "--json",
                 str(tmp_path / "d.json")]) == 0  # fmt: skip
    rows = {r["metric"]: r for r in json.loads((tmp_path / "d.json").read_text())["rows"]}
    assert set(rows) == {"match", "graded", "closeness"}
    assert rows["match"]["n_items"] == 180 and rows["match"]["n_groups"] == 60
    assert rows["match"]["diff_low"] > 0 and rows["match"]["p"] < 0.01
    assert rows["match"]["test"] == "sign-flip permutation over groups"  # epochs are groups: not McNemar
    assert main([str(LOGS / "tie/a.eval"), str(LOGS / "tie/b.json"), "--n-boot", "2000", "--json",
                 str(tmp_path / "t.json")]) == 0  # fmt: skip
    rows = {r["metric"]: r for r in json.loads((tmp_path / "t.json").read_text())["rows"]}
    assert (rows["match"]["a_only"], rows["match"]["b_only"], rows["match"]["diff"]) == (3, 3, 0.0)
    assert rows["match"]["diff_low"] < 0 < rows["match"]["diff_high"] and rows["match"]["p"] == 1.0


def test_a_sample_with_an_error_is_named_and_left_out(tmp_path: Path, capsys):
    items = read_items(LOGS / "errors/sample_error.eval")
    (note,) = items.attrs["notes"]
    assert "sample_error.eval" in note and "'q007' epoch 1" in note and "'q007' epoch 2" in note
    assert "deliberate error" in note and not items["id"].str.startswith("q007").any()
    args = [str(LOGS / "errors/sample_error.eval"), str(LOGS / "differ/a.eval"), "--n-boot", "100"]
    assert main(args) == 0
    assert "left out" in capsys.readouterr().out
    assert main([*args, "--require-all", "--junit", str(tmp_path / "j.xml")]) == 2
    assert "--require-all" in capsys.readouterr().err and "<error" in (tmp_path / "j.xml").read_text()


def test_a_log_that_did_not_finish_is_refused_with_its_file_and_status(tmp_path: Path, capsys):
    code = main([str(LOGS / "errors/failed.eval"), str(LOGS / "differ/a.eval"), "--junit", str(tmp_path / "j.xml")])
    err = capsys.readouterr().err
    assert code == 2 and "failed.eval: the log's status is 'error', not 'success'" in err and "q007" in err
    assert "status is 'error'" in (tmp_path / "j.xml").read_text()


def test_a_folder_of_logs_and_a_broken_archive(tmp_path: Path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "x.eval").write_bytes((LOGS / "differ/a.eval").read_bytes())
    assert len(read_items(folder)) == 3 * 180
    (folder / "y.eval").write_bytes((LOGS / "differ/b.eval").read_bytes())
    with pytest.raises(Exception, match="task 'arith' is also in"):
        read_items(folder)
    broken = tmp_path / "broken.eval"
    broken.write_bytes((LOGS / "differ/a.eval").read_bytes()[:5000])
    with pytest.raises(Exception, match="broken.eval: not a readable inspect_ai .eval log"):
        read_items(broken)
