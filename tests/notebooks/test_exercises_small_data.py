"""No exercise can fail a run: every notebook on the smallest data its parameters allow (issue 55).

An exercise is teaching material. On data too small for it (an interval over one review, a rate without a
case) it says so in its cell and declares its keys skipped with the reason (``Run.record_exercise``,
``Run.skip_exercise``), and the notebook goes on. Before issue 55, ``-p 01.n_sources=2`` stopped notebook 01
with ``NonFiniteMetricError: metric 'exercise/half_ci_width' is nan``.

One runner call runs the notebooks with their sizes at (or near) their lower bounds: the smallest count the
parameter rules allow where the method itself works on it, and the fewest bootstrap replicates, so the run is
cheap. Each exercise key is then either recorded as a finite number or listed under ``_skipped`` with a
reason, and a skipped exercise's cell prints that reason.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from mtlib.run.layout import RunLayout
from tests.smoke_runs import smoke_env

ROOT = Path(__file__).resolve().parents[2]

#: ``NN.key=value`` overrides of the smoke profile: the smallest data each notebook's method runs on. Smaller still,
#: a method cell (not an exercise) stops the run: 02 with max_contexts=2 (scikit-learn: an empty train split),
#: 03 with max_vocabulary=3 (its headline rates have no case), 05 with n_test=4 (a split with one class), 06
#: with max_sentences=4 (one held-out sentence for its headline correlation), 07 with n_lexical=2 (one class).
SMALLEST = {
    "00": {"n_reviews": 2, "n_people": 2, "n_boot": 2},
    "01": {"n_sources": 2, "n_boot": 2, "n_sample_pairs": 1},
    "02": {"max_contexts": 8, "max_insertions": 12, "n_boot": 2, "permutations": 2},
    "03": {"max_vocabulary": 30, "n_boot": 2, "n_sample": 30, "n_top": 1},
    "04": {"max_adjectives_per_type": 1, "max_nouns": 1, "n_boot": 2, "permutations": 2},
    "05": {"n_train": 60, "n_finetune": 20, "n_test": 20, "n_pairs": 4, "n_boot": 2, "n_hardest": 1},
    "06": {"max_sentences": 16, "steps": 2, "sweep_steps": "[1]", "n_boot": 2, "n_examples": 1},
    "07": {"n_lexical": 8, "n_structural": 6, "max_train": 40, "seeds": "[0]", "shots": "[0]"},
}
#: The notebooks ``make test-slow`` runs (measured: 36 s of CPU, 105 s wall on a loaded 2-core machine): the two
#: whose exercises skip on their smallest data.
#: ``MTLIB_TEST_EXERCISES=all`` runs all eight in one runner call (measured: 124 s of CPU, 213 s wall).
DEFAULT = ("00", "01")

#: The keys each notebook's exercises record (a tuple: any one of them, for keys named by the data).
EXERCISE_KEYS = {
    "00": ["exercise/invariance_rate", "exercise/decrease_rate", "exercise/short_sentences_diff"],
    "01": ["exercise/moved_rate", "exercise/half_ci_width"],
    "02": ["exercise/negated_probe_rate", "exercise/shuffled_probe_rate"],
    "03": [],  # its exercises print a check and record nothing
    "04": [
        "exercise/nonsubsective_noun_only",
        "exercise/nonsubsective_adjective_only",
        "exercise/intersective_aan_half_split_distance",
    ],
    "05": ["exercise/pss_always_positive", "exercise/pss_ci_width_half_pairs"],
    "06": ["exercise/spearman_tre_wns_flipped_labels", "exercise/tre_mean_heldout_doubled"],
    "07": [
        tuple(f"exercise/shortcut_accuracy/task2/non-trivial/cg/rule{r}" for r in range(1, 5)),
        "exercise/shortcut_accuracy/task2/non-trivial/cg",
        "exercise/shortcut_accuracy/task2/non-trivial/id",
    ],
}

pytestmark = [pytest.mark.notebook, pytest.mark.xdist_group("exercises")]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("exercises-small")
    chosen = {nn: v for nn, v in SMALLEST.items() if nn in _numbers()}
    args = [a for nn, values in chosen.items() for k, v in values.items() for a in ("-p", f"{nn}.{k}={v}")]
    only = ",".join(sorted(chosen))
    cmd = [sys.executable, "-m", "mtrun", "--profile", "smoke", "--only", only, "--root", str(ROOT)]
    proc = subprocess.run(
        [*cmd, "--out-dir", str(out), *args], env=smoke_env(), capture_output=True, text=True, timeout=1800
    )
    return out, proc


def _numbers() -> tuple[str, ...]:
    return tuple(sorted(SMALLEST)) if os.environ.get("MTLIB_TEST_EXERCISES") == "all" else DEFAULT


def _stems() -> dict[str, str]:
    return {p.stem[:2]: p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb") if p.stem != "00_template"}


def test_every_notebook_with_exercises_is_covered():
    assert sorted(_stems()) == sorted(SMALLEST) == sorted(EXERCISE_KEYS)


@pytest.mark.parametrize("number", _numbers())
@pytest.mark.slow
def test_exercises_on_the_smallest_data_record_a_value_or_a_skip_with_its_reason(small_run, number):
    out, proc = small_run
    layout = RunLayout(out, "smoke", _stems()[number])
    assert layout.metrics_path.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    metrics = json.loads(layout.metrics_path.read_text())
    skipped = metrics.get("_skipped", {})
    executed = nbformat.read(layout.notebook_path, as_version=4)
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    errors = [f"{o.get('ename')}: {o.get('evalue')}" for o in errors if o.get("output_type") == "error"]
    assert not errors, errors  # no cell failed, exercises included
    printed = "\n".join(
        "".join(o.get("text", "")) for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert "exercise 1:" in printed  # the exercise cells ran
    for slot in EXERCISE_KEYS[number]:
        keys = [k for k in (slot if isinstance(slot, tuple) else (slot,)) if k in metrics or k in skipped]
        assert keys, f"{number}: none of {slot} recorded or skipped"
        for key in keys:
            if key in metrics:
                assert isinstance(metrics[key], (int, float)) and math.isfinite(metrics[key]), (key, metrics[key])
                continue
            reason = skipped[key]
            assert reason.strip() and key not in metrics
            assert f"not computed on this run's data ({key}" in printed or f", {key}" in printed, key
            assert reason in printed, (key, reason)
