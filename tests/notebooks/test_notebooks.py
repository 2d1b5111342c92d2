"""Every committed notebook honours the contract, and runs end to end in the smoke profile."""

from __future__ import annotations

import ast
import json
import math
import re
import subprocess
from pathlib import Path

import nbformat
import papermill
import pytest
import yaml

import mtrun as runner
from mtlib.run.results import RunLayout
from mtrun import expected

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXPERIMENTS = [nb for nb in NOTEBOOKS if nb.stem != "00_template"]  # what the runner runs (00_tour first)
# `make test` runs pytest on two workers: the smoke runs (shared with test_determinism.py) stay on one
pytestmark = pytest.mark.xdist_group("smoke")


def _tracked(path: Path) -> bool:
    out = subprocess.run(["git", "ls-files", "--error-unmatch", str(path)], cwd=ROOT, capture_output=True)
    return out.returncode == 0 or not (ROOT / ".git").exists()


#: The longest function or class a notebook may define (DESIGN.md: "a short function only this notebook needs"):
#: one screen (the longest when this was last measured: 24 lines, 06's `fit_primitives` and `tre_by_sentence`).
MAX_NOTEBOOK_FUNCTION = 40


def _parameters_cell(nb) -> nbformat.NotebookNode:
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, "exactly one cell tagged 'parameters'"
    return cells[0]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_contract(path):
    nb = nbformat.read(path, as_version=4)
    assert _tracked(path), f"{path.name} is not committed"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path.name} is committed with outputs"
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    # a short function only this notebook needs may live in it; anything longer (or reused) belongs in mtlib
    for fn in (n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.ClassDef))):
        length = (fn.end_lineno or fn.lineno) - fn.lineno + 1
        assert length <= MAX_NOTEBOOK_FUNCTION, f"{path.name}: {fn.name} has {length} lines; move it to mtlib"
    assert "sys.path" not in source and "cuda:0" not in source
    assert any(c.cell_type == "markdown" for c in nb.cells), "the experiment is explained in markdown"

    params = _parameters_cell(nb)
    tree = ast.parse(params.source)
    declared = []
    for node in tree.body:
        assert isinstance(node, ast.AnnAssign), f"parameters cell: only typed literals, got {ast.dump(node)[:60]}"
        ast.literal_eval(node.value)  # a literal, nothing computed
        declared.append(node.target.id)
    lines = [ln for ln in params.source.splitlines() if re.match(r"^\w+\s*:", ln)]
    assert all("#" in ln for ln in lines), "every parameter has a comment"
    inspected = papermill.inspect_notebook(str(path))
    assert set(inspected) == set(declared), f"papermill cannot parse {set(declared) - set(inspected)}"
    assert all(inspected[name]["help"] for name in declared), "papermill --help-notebook shows each comment"
    for common in ("profile", "device", "seed", "out_dir"):
        assert common in declared
    assert inspected["device"]["default"].strip("\"'") == "auto"


#: A step is a cell of a few lines (DESIGN.md, "The run contract"): at most this many non-blank lines in a code cell,
#: the parameters cell aside; a longer loop or function is split into helpers, each in its own cell.
MAX_CELL_LINES = 20


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_code_cells_are_a_few_lines(path):
    nb = nbformat.read(path, as_version=4)
    lines = {
        cell.get("id"): sum(1 for line in cell.source.splitlines() if line.strip())
        for cell in nb.cells
        if cell.cell_type == "code" and "parameters" not in cell.metadata.get("tags", [])
    }
    assert lines, f"{path.name} has no code cell"
    long = {cell: n for cell, n in lines.items() if n > MAX_CELL_LINES}
    assert not long, f"{path.name}: code cells over {MAX_CELL_LINES} non-blank lines (cell id: lines): {long}"


@pytest.mark.parametrize("profile", ["smoke", "quick", "paper", "real"])
def test_profiles_only_set_declared_parameters(profile):
    data = yaml.safe_load((ROOT / "notebooks" / "profiles" / f"{profile}.yaml").read_text())
    for key, values in (data.get("notebooks") or {}).items():
        matches = [nb for nb in EXPERIMENTS if nb.stem.startswith(str(key))]
        assert matches, f"{profile}.yaml: no notebook for {key!r}"
        declared = set(papermill.inspect_notebook(str(matches[0])))
        assert set(values) <= declared, f"{profile}.yaml sets {set(values) - declared} unknown to {matches[0].name}"


def _finite_rate(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and 0.0 <= value <= 1.0


EXPECTED = {
    "00": [
        "rate/vader/praise_is_positive",
        "rate/vader/typos",
        "rate/vader/table1_order",
        "rate/textblob/typos",
        "rate/textblob/table1_order",
        "mcnemar_p/table1_order",
        "exercise/invariance_rate",
        "exercise/decrease_rate",
        "n_reviews",
        "n_people",
        "n_tests",
    ],
    "01": [
        "violation_rate/T1",
        "violation_rate/T6",
        "violation_rate/overall",
        "n_sources",
        "n_pairs",
        "accuracy",
        "misclassified_vs_violations_p",
        "accuracy_majority_baseline",
        "accuracy_balanced",
    ],
    "02": [
        "probe_accuracy",
        "nli_accuracy",
        "violation_rate/up",
        "violation_rate/down",
        "violation_rate/overall",
        "n_contexts",
        "n_insertion_pairs",
        "n_cases",
        "nli_accuracy_majority_baseline",
        "nli_accuracy_balanced",
        "probe_accuracy_majority_baseline",
        "n_insertion_pairs_with_reverses",
    ],
    "03": [
        "violation_rate/english/syn",
        "violation_rate/english/hyp",
        "cases/english/syn",
        "accuracy/english/syn",
        "accuracy/english/hyp",
        "vocabulary/english",
        "accuracy/english/syn_majority_baseline",
        "accuracy/english/hyp_balanced",
    ],
    "07": [
        "pool/lexical",
        "pool/structural",
        "accuracy/task1/trivial/cg",
        "accuracy/task1/trivial/cg/seed0",
        "accuracy/task2/non-trivial/id",
        "accuracy/task3/non-trivial-R_ver/cg",
        "baseline/task2/non-trivial/cg",
        "fewshot/task2/0",
        "fewshot/task2/2",
        "models/minilm-static/accuracy/task1/trivial/cg",
        "models/minilm-static/fewshot/task2/2",
    ],
    "04": [
        "intersective_an/S-I",
        "intersective_aan/S-I,S-I",
        "intersective_pairs/S-I,S-NI",
        "nonsubsective/NS-Pr",
        "models/minilm/intersective_aan/S-I,S-I",
        "models/minilm-static/nonsubsective/NS-Pr",
        "nonsubsective_ci_low/NS-Pr",
        "nonsubsective_ci_high/NS-Pr",
        "n_phrases_an",
        "n_phrases_aan",
    ],
    "05": [
        "pss/linear/FB",
        "pss/mlp/FB",
        "pss/linear/FT",
        "accuracy/linear/FB",
        "accuracy/mlp/FT",
        "majority_baseline/linear/FB",
        "models/minilm-static/pss/linear/FB",
        "models/vader/pss/native",
        "models/vader/accuracy/native",
        "pairs_before_cleaning",
        "pairs_after_cleaning",
    ],
    "06": [
        "spearman_tre_wns/heldout",
        "spearman_tre_ti/heldout",
        "partial_spearman_tre_wns/heldout",
        "tre_mean/train",
        "tre_mean/heldout",
        "models/minilm-static/tre_mean/train",
        "models/minilm-static/tre_mean/heldout",
        "n_sentences",
        "n_word_types",
    ],
}
COUNTS = {
    "n_reviews",
    "n_people",
    "n_tests",
    "n_sources",
    "n_pairs",
    "n_contexts",
    "n_insertion_pairs",
    "n_cases",
    "n_phrases_an",
    "n_phrases_aan",
    "cases/english/syn",
    "vocabulary/english",
    "n_insertion_pairs_with_reverses",
    "n_sentences",
    "n_word_types",
    "pairs_before_cleaning",
    "pairs_after_cleaning",
    "pool/lexical",
    "pool/structural",
}
SIGNED = ("spearman_", "partial_spearman_")  # correlations: in [-1, 1]


def _run(number: str, profile: str, out: Path, *extra: str) -> tuple[int, RunLayout]:
    """Run one notebook through the runner (``extra``: more runner arguments); its outputs' layout."""
    stem = next(nb.stem for nb in EXPERIMENTS if nb.stem.startswith(number))
    status = runner.main(["--profile", profile, "--only", number, "--root", str(ROOT), "--out-dir", str(out), *extra])
    return status, RunLayout(out, profile, stem)


def _failure(layout: RunLayout) -> str:
    return layout.report_path.read_text() if layout.report_path.exists() else f"{layout.stem} failed, no REPORT.md"


@pytest.mark.notebook
@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
def test_notebook_runs_in_the_smoke_profile(path, smoke_runs):
    number = path.stem[:2]
    smoke = smoke_runs.get(number)  # one run per session, shared with tests/test_determinism.py
    layout = RunLayout(smoke.out_dir, "smoke", path.stem)
    assert smoke.returncode == 0, _failure(layout) + "\n" + smoke.log[-3000:]
    metrics = json.loads(layout.metrics_path.read_text())
    for key in EXPECTED.get(number, []):
        assert key in metrics, f"{path.stem}: metrics.json lacks {key}"
        if key in COUNTS:
            assert isinstance(metrics[key], int) and metrics[key] > 0
        elif key.startswith(SIGNED):
            assert isinstance(metrics[key], float) and -1.0 <= metrics[key] <= 1.0, f"{key} = {metrics[key]}"
        elif not key.endswith("_p"):
            assert _finite_rate(metrics[key]), f"{key} = {metrics[key]} is not a rate in [0, 1]"
    figures = list(layout.figures_dir.glob("*.png"))
    assert figures and all(f.with_suffix(".pdf").exists() for f in figures)
    assert layout.report_path.exists()
    assert layout.notebook_path.exists() and not layout.notebook_path.with_suffix(".html").exists()  # --no-html
    # the pinned smoke values of notebooks/profiles/expected.yaml (every notebook's block, when it has one)
    mismatches = expected.check(number, "smoke", metrics)
    assert not mismatches, "pinned smoke values not reproduced:\n" + "\n".join(map(str, mismatches))


def test_expected_values_check_fails_when_a_value_is_changed_by_hand(tmp_path):
    """On a temporary copy of expected.yaml: metrics equal to the pinned values pass; one edited value fails."""
    source = ROOT / expected.EXPECTED_FILE
    copy = tmp_path / "expected.yaml"
    copy.write_text(source.read_text())
    pinned = expected.expectations("01", "smoke", path=copy)
    assert pinned, 'expected.yaml has no "01": smoke: block'
    metrics = {key: exp.value for key, exp in pinned.items()}
    for exp in pinned.values():  # denominators of tolerances in items (unless pinned themselves)
        if exp.per:
            metrics.setdefault(exp.per, 100)
    assert expected.check("01", "smoke", metrics, path=copy) == []
    key, exp = next((k, e) for k, e in pinned.items() if e.pin_type == "model")
    shift = exp.absolute_tol(metrics) + 0.01  # just past the tolerance
    lines = copy.read_text().splitlines()
    assert key in lines[exp.line - 1], (key, lines[exp.line - 1])
    lines[exp.line - 1] = lines[exp.line - 1].replace(f"value: {exp.value!r}", f"value: {exp.value + shift!r}")
    copy.write_text("\n".join(lines) + "\n")
    mismatches = expected.check("01", "smoke", metrics, path=copy)
    assert [m.key for m in mismatches] == [key]
    assert mismatches[0].expected == pytest.approx(exp.value + shift) and mismatches[0].actual == exp.value
    assert key in str(mismatches[0]) and "expected" in str(mismatches[0])
