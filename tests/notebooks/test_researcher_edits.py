"""A researcher's edit is a cell: one of the README's edits, made on a copy of a notebook and run in the smoke profile.

The README ("The notebooks") shows three: 03 with cosine-threshold heads, 01 with one more transformation, 05
with another encoder. This test makes the second on a copy (the tracked notebook is untouched) and runs the copy
as a plain script with the smoke profile's values. The pins of ``expected.yaml`` are not checked on the copy: one
more transformation changes the pinned counts, which is the point of the edit.
"""

from __future__ import annotations

import json
import subprocess
import sys

from mtlib.run.layout import RunLayout
from tests.smoke_runs import ROOT, smoke_env

NOTEBOOK = ROOT / "notebooks" / "01_pairwise_sentiment_systematicity.ipynb"
#: The README's edit: one line added to the list of transformations, after T6.
AFTER = '    Concatenation("Here is my review:", "start", name="T6"),\n'
ADDED = '    Concatenation("The cinema was cold.", "end", name="T7"),\n'


def test_01_with_one_more_transformation_runs_and_counts_it(tmp_path):
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and AFTER in c["source"]]
    assert len(cells) == 1, "the transformations are one visible list in one cell of notebook 01"
    cells[0]["source"].insert(cells[0]["source"].index(AFTER) + 1, ADDED)
    copy = tmp_path / NOTEBOOK.name
    copy.write_text(json.dumps(nb), encoding="utf-8")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "mtrun.script", str(copy), "--profile", "smoke", "--out-dir", str(out)]
    done = subprocess.run([*cmd, "--quiet", "--cwd", str(ROOT / "notebooks")], env=smoke_env(), text=True,
                          capture_output=True)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads(RunLayout(out, "smoke", NOTEBOOK.stem).metrics_path.read_text())
    assert metrics["n_transformations"] == 7
    assert 0.0 <= metrics["violation_rate/T7"] <= 1.0
    assert metrics["violation_rate/T6"] >= 0.0  # the paper's six are still there
