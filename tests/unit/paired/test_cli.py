"""``python -m mtlib.paired``: the table, the four files, the gate and the exit codes 0 / 1 / 2 / 3."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtlib.paired import cli
from mtlib.paired.cli import main

ROOT = Path(__file__).resolve().parents[3]
LMEVAL = ROOT / "tests" / "fixtures" / "lmeval"


@pytest.fixture
def runs(tmp_path):
    """Two runs of 400 items over two tasks: b better on t1 by about 0.12, equal on t2."""
    rng = np.random.default_rng(0)
    a = (rng.random(400) < 0.6).astype(int)
    b = a.copy()
    b[:200] = np.where(rng.random(200) < 0.3, 1, a[:200])
    for name, v in (("a", a), ("b", b)):
        pd.DataFrame({"id": range(400), "task": ["t1"] * 200 + ["t2"] * 200, "acc": v}).to_csv(
            tmp_path / f"{name}.csv", index=False
        )
    return tmp_path / "a.csv", tmp_path / "b.csv"


def test_the_gate_reads_the_lower_bound_and_decides_the_exit_code(runs, tmp_path, capsys):
    a, b = runs
    outs = [f"--{k}={tmp_path / f'out.{k}'}" for k in ("json", "markdown", "html", "junit")]
    assert main([str(a), str(b), "--min-diff", "-0.05", "--n-boot", "2000", *outs]) == 0
    printed = capsys.readouterr().out
    assert "McNemar exact" in printed and "PASS" in printed and "diff (b - a) [95%]" in printed
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["passed"] and [r["task"] for r in data["rows"]] == ["t1", "t2"]
    t1 = data["rows"][0]
    assert t1["diff_low"] > 0 and t1["p"] < 0.01 and t1["p_holm"] == pytest.approx(min(1, 2 * t1["p"]))
    assert "| t1 | acc |" in (tmp_path / "out.markdown").read_text()
    assert "<table>" in (tmp_path / "out.html").read_text()
    # t2 is identical: its interval is [0, 0], above -0.05 but not above 0.001
    assert main([str(a), str(b), "--min-diff", "0.001", "--n-boot", "2000", *outs]) == 1
    suite = ET.parse(tmp_path / "out.junit").getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    failure = suite.find("testcase[@name='t2/acc']/failure")
    assert failure is not None and "gate bound +0.0000 <= +0.001" in failure.get("message", "")
    assert "FAIL" in capsys.readouterr().out


def test_bad_input_exits_2_and_still_writes_junit(tmp_path, capsys):
    bad = tmp_path / "a.csv"
    bad.write_text("id,acc\n1,1\n2,nan\n")
    assert main([str(bad), str(bad), "--junit", str(tmp_path / "j.xml")]) == 2
    assert "a.csv, line 3" in capsys.readouterr().err
    error = ET.parse(tmp_path / "j.xml").getroot().find("testsuite/testcase/error")
    assert error is not None and "line 3" in error.get("message", "")
    assert main([str(tmp_path / "missing.csv"), str(bad)]) == 2


def test_a_lower_is_better_metric_is_gated_on_the_improvement_a_minus_b(tmp_path):
    rng = np.random.default_rng(1)
    loss_a = rng.random(300)
    for name, loss in (("a", loss_a), ("b", loss_a - 0.05 + rng.normal(0, 0.01, 300))):  # b: lower loss
        pd.DataFrame({"id": range(300), "loss": loss}).to_csv(tmp_path / f"{name}.csv", index=False)
    a, b = str(tmp_path / "a.csv"), str(tmp_path / "b.csv")
    assert main([a, b, "--min-diff", "0", "--n-boot", "500"]) == 1  # read as higher-is-better: b is worse
    assert main([a, b, "--min-diff", "0", "--n-boot", "500", "--lower-better", "loss", "--json", f"{a}.json"]) == 0
    row = json.loads(Path(f"{a}.json").read_text())["rows"][0]
    assert row["gate_bound"] == -row["diff_high"] > 0.04 and row["test"] == "sign-flip permutation"


def test_a_refused_command_line_still_writes_junit(tmp_path):
    with pytest.raises(SystemExit):
        main(["only-one-file", "--junit", str(tmp_path / "j.xml")])
    assert ET.parse(tmp_path / "j.xml").getroot().find("testsuite/testcase/error") is not None


def test_an_internal_error_exits_3(runs, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "compare_runs", broken)
    assert main([str(runs[0]), str(runs[1])]) == 3
    assert "internal error (exit 3)" in capsys.readouterr().err


def test_help_says_how_the_gate_reads_the_interval():
    proc = subprocess.run(
        [sys.executable, "-m", "mtlib.paired", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "LOWER end of the 95% paired bootstrap interval" in text and "Exit codes: 0" in text


def test_the_lm_eval_fixtures_compare_end_to_end(tmp_path, capsys):
    code = main([str(LMEVAL / "model-a"), str(LMEVAL / "model-b"), "--n-boot", "1000", "--json", str(tmp_path / "o")])
    rows = {(r["task"], r["metric"]): r for r in json.loads((tmp_path / "o").read_text())["rows"]}
    assert code == 0 and ("tiny_mc", "acc,none") in rows and ("tiny_gen", "exact_match,maj") in rows
    assert rows[("tiny_mc", "acc,none")]["test"] == "McNemar exact" and rows[("tiny_mc", "acc,none")]["n_items"] == 60
    gen = rows[("tiny_gen", "exact_match,take_first")]
    assert gen["n_groups"] == 40 and gen["test"] == "sign-flip permutation over groups"
