"""The minimum detectable effect, the items a difference needs, the equivalence verdict (TOST) and the adjustments,
checked against a seeded simulation of McNemar's exact test and against statsmodels (TTestPower, ttost_paired,
multipletests)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower
from statsmodels.stats.weightstats import ttost_paired

from mtlib.analysis.paired_tests import mcnemar_test
from mtlib.paired.cli import main
from mtlib.paired.comparison import compare_runs, verdicts
from mtlib.paired.power import mcnemar_items, mcnemar_mde, mcnemar_power, paired_t_items, paired_t_mde, paired_t_power

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "inspect"


@pytest.mark.parametrize("n, psi", [(400, 0.2), (200, 0.3), (60, 0.25)])
def test_the_mcnemar_mde_is_detected_four_times_in_five_by_the_exact_test(n, psi):
    delta = mcnemar_mde(n, psi)
    assert 0 < delta <= psi and mcnemar_power(delta, n, psi) == pytest.approx(0.8, abs=1e-6)
    rng = np.random.default_rng(7)
    sims = 4000
    counts = rng.multinomial(n, [(psi + delta) / 2, (psi - delta) / 2, 1 - psi], size=sims)
    power = np.mean([mcnemar_test(a, b)[1] < 0.05 for a, b, _ in counts])
    # the simulation's standard error is sqrt(0.8 * 0.2 / 4000) = 0.0063: four of them
    assert abs(power - 0.8) < 4 * np.sqrt(0.16 / sims)


def test_the_items_mcnemar_needs_reach_the_power_and_no_fewer_do():
    n = mcnemar_items(0.05, 0.2)
    assert all(mcnemar_power(0.05, int(n) + j, 0.2) >= 0.8 for j in range(10))
    assert mcnemar_power(0.05, int(n) - 1, 0.2) < 0.8
    assert mcnemar_items(mcnemar_mde(400, 0.2), 0.2) == pytest.approx(400, abs=1)
    assert np.isnan(mcnemar_items(0.3, 0.2)) and np.isnan(mcnemar_mde(20, 0.05))  # out of reach: said, not guessed


@pytest.mark.parametrize("n, sd", [(10, 0.3), (60, 1.0), (500, 0.05)])
def test_the_paired_t_power_is_statsmodels_ttestpower(n, sd):
    tt = TTestPower()
    assert paired_t_power(0.4 * sd, sd, n) == pytest.approx(tt.power(0.4, n, 0.05), rel=1e-9)
    mde = paired_t_mde(sd, n)
    assert mde == pytest.approx(tt.solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8) * sd, rel=1e-6)
    need = paired_t_items(0.3 * sd, sd)
    assert need == pytest.approx(tt.solve_power(effect_size=0.3, nobs=None, alpha=0.05, power=0.8), rel=1e-5)


def test_the_equivalence_verdict_is_statsmodels_ttost_paired_away_from_the_boundary(tmp_path: Path):
    rng = np.random.default_rng(3)
    n = 300
    a = rng.normal(0.6, 0.2, n)
    b = a + rng.normal(0.01, 0.1, n)
    pd.DataFrame({"id": range(n), "score": a}).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"id": range(n), "score": b}).to_csv(tmp_path / "b.csv", index=False)
    d = b - a
    se = d.std(ddof=1) / np.sqrt(n)
    table = compare_runs(tmp_path / "a.csv", tmp_path / "b.csv", equivalence=0.02, n_boot=10_000).table
    row = table.iloc[0]
    # the percentile bootstrap's 90% bounds and the t interval's differ by sqrt((n - 1) / n), t vs z (1.650 vs
    # 1.645) and the replicates' sampling error of the 5% quantile (about 0.02 standard errors at 10,000): together
    # well under 0.1 standard error at n = 300; margins closer than that to a bound are not judged
    t_bounds = d.mean() + np.array([-1, 1]) * 1.6499 * se
    assert row["diff_low90"] == pytest.approx(t_bounds[0], abs=0.1 * se)
    assert row["diff_high90"] == pytest.approx(t_bounds[1], abs=0.1 * se)
    checked = 0
    for margin in np.linspace(0.002, 0.04, 30):
        p_tost = ttost_paired(b, a, -margin, margin)[0]
        if min(abs(margin - abs(t_bounds))) > 0.1 * se:
            assert bool(verdicts(table, np.zeros(1, bool), margin, "holm")["equivalent"].iloc[0]) == (p_tost < 0.05)
            checked += 1
    assert checked >= 25 and bool(row["equivalent"]) == (ttost_paired(b, a, -0.02, 0.02)[0] < 0.05)


def test_bh_is_multipletests_and_reads_more_rows_as_better_than_holm():
    table = pd.DataFrame(
        {"p": [0.01, 0.02, 0.03, 0.04], "diff": [0.1, 0.1, 0.1, -0.1], "diff_low90": 0.0, "diff_high90": 0.2}
    )
    table["p_holm"] = multipletests(table["p"], method="holm")[1]
    table["p_bh"] = multipletests(table["p"], method="fdr_bh")[1]
    lower = np.zeros(4, bool)
    assert verdicts(table, lower, None, "holm")["verdict"].tolist() == ["better"] + ["inconclusive"] * 3
    assert verdicts(table, lower, None, "bh")["verdict"].tolist() == ["better", "better", "better", "worse"]
    assert verdicts(table, ~lower, None, "bh")["verdict"].tolist() == ["worse", "worse", "worse", "better"]
    assert verdicts(table, lower, 0.3, "holm")["verdict"].tolist() == ["better"] + ["equivalent"] * 3


def test_bh_in_the_comparison_is_multipletests_over_its_rows(tmp_path: Path):
    rng = np.random.default_rng(2)
    rows = []
    for task in range(12):
        a = (rng.random(150) < 0.6).astype(int)
        flip = rng.random(150) < 0.04 * task
        rows.append(pd.DataFrame({"task": f"t{task}", "id": range(150), "acc": a, "other": np.where(flip, 1, a)}))
    frame = pd.concat(rows)
    frame[["task", "id", "acc"]].to_csv(tmp_path / "a.csv", index=False)
    frame[["task", "id", "other"]].rename(columns={"other": "acc"}).to_csv(tmp_path / "b.csv", index=False)
    assert main([str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--adjust", "bh", "--n-boot", "200",
                 "--json", str(tmp_path / "o.json")]) == 0  # fmt: skip
    out = json.loads((tmp_path / "o.json").read_text())
    p = np.array([r["p"] for r in out["rows"]])
    assert np.allclose([r["p_bh"] for r in out["rows"]], multipletests(p, method="fdr_bh")[1], rtol=0, atol=1e-15)
    assert out["adjust"] == "bh" and {r["verdict"] for r in out["rows"]} <= {"better", "inconclusive"}


def test_the_gate_asks_for_verdicts(tmp_path: Path, capsys):
    tie, differ = [str(LOGS / "tie/a.eval"), str(LOGS / "tie/b.json")], [str(LOGS / f"differ/{x}.eval") for x in "ab"]
    quick = ["--n-boot", "1000"]
    assert main([*tie, "--equivalence", "0.05", "--require", "equivalent", *quick]) == 0
    assert main([*differ, "--equivalence", "0.05", "--require", "equivalent", *quick]) == 1
    assert main([*differ, "--require", "not-worse", *quick]) == 0
    assert main([*differ[::-1], "--require", "not-worse", *quick]) == 1  # b is the worse model now
    assert "FAIL: the gate asks every row for no verdict 'worse'" in capsys.readouterr().out
    assert main([*tie, "--require", "better", *quick, "--junit", str(tmp_path / "better.xml")]) == 1
    failures = (tmp_path / "better.xml").read_text()
    assert failures.count("<failure") == 3 and "verdict inconclusive, equivalent None (--require better)" in failures
    junit = tmp_path / "j.xml"
    assert main([*tie, "--require", "equivalent", "--junit", str(junit)]) == 2
    assert "needs the margin: add --equivalence M" in capsys.readouterr().err and "<error" in junit.read_text()
    assert main([*tie, "--equivalence", "-1", *quick]) == 2 and main([*tie, "--items-for", "0", *quick]) == 2


def test_every_output_carries_the_verdict_and_the_mde(tmp_path: Path, capsys):
    out = {k: tmp_path / f"o.{k}" for k in ("json", "md", "html", "xml")}
    args = [str(LOGS / "differ/a.eval"), str(LOGS / "differ/b.eval"), "--n-boot", "1000", "--items-for", "0.05"]
    options = ["--json", out["json"], "--markdown", out["md"], "--html", out["html"], "--junit", out["xml"]]
    assert main(args + [str(x) for x in options]) == 0
    printed = capsys.readouterr().out
    assert "verdicts: better 3" in printed and "MDE" in printed and "items for 0.05" in printed
    rows = json.loads(out["json"].read_text())["rows"]
    assert {r["verdict"] for r in rows} == {"better"} and all(r["mde"] > 0 and r["items_for"] > 180 for r in rows)
    for kind in ("md", "html", "xml"):
        text = out[kind].read_text()
        assert "better" in text and ("MDE" in text), kind
    png = tmp_path / "o.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "data:image/png;base64," in out["html"].read_text()
