"""The kernel side of a run works without torch and without anything that runs or renders notebooks (issue 56).

A notebook's kernel (or a user's script) imports :mod:`mtlib.run` to record its results; the runner and the book
builder are the tool ``mtrun`` beside mtlib. In a fresh interpreter where torch, transformers, the tool and every
notebook-running package (papermill, nbformat, nbconvert, nbclient, jupyter_client, ipykernel, sphinx, MyST, Dask)
are blocked from importing, a run is opened, records a metric and a table and writes its ``metrics.json`` and
``manifest.json``, and a user's notebook's parameters cell is read and checked (from the ``.ipynb`` JSON).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtlib.run import params

ROOT = Path(__file__).resolve().parents[3]

BLOCKED = (
    "torch transformers sentence_transformers mtrun papermill nbclient nbformat nbconvert jupyter_client "
    "jupyter_cache ipykernel sphinx myst_nb myst_parser dask distributed"
).split()

CHILD = f"""
import importlib.abc, json, sys
class _Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {set(BLOCKED)!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)", name=name)
sys.meta_path.insert(0, _Blocked())
import pandas as pd
from mtlib.run import Run, RunLayout, read_manifest, read_metrics
from mtlib.run.params import ParameterError, check_run, declared

out, project = sys.argv[1], sys.argv[2]
run = Run("99_mine", profile="light", out_dir=out, params={{"n_boot": 5}})
run.record("accuracy", 0.75, headline=True)
run.save_table(pd.DataFrame({{"a": [1, 2]}}), "rows")
layout = RunLayout(out, "light", "99_mine")
decl = declared(project + "/notebooks/99_mine.ipynb")
try:
    check_run("99_mine", {{"n_boot": 0}}, root=project)
    refused = ""
except ParameterError as err:
    refused = str(err)
print(json.dumps({{
    "accuracy": read_metrics(layout.metrics_path)["accuracy"],
    "table": (layout.tables_dir / "rows.csv").is_file(),
    "manifest": read_manifest(layout.manifest_path).get("record_type"),
    "declared": {{k: [d.type, d.default, d.rule] for k, d in decl.items()}},
    "refused": refused,
    "loaded": sorted({{m.split(".")[0] for m in sys.modules}} & {set(BLOCKED)!r}),
}}))
"""

CELL = 'n_boot: int = 10  # bootstrap resamples | >= 1\nlabel: str = "x"  # a name\n'


def _notebook(path: Path, cells: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    return path


def _parameters_cell(source: str | list[str]) -> dict:
    return {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": source, "outputs": []}


def test_a_run_records_and_checks_without_torch_or_any_notebook_runner(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _notebook(project / "notebooks" / "99_mine.ipynb", [_parameters_cell(CELL)])
    env = dict(os.environ, PYTHONPATH=str(ROOT), MTLIB_PROGRESS="0", MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "out"), str(project)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["accuracy"] == 0.75 and got["table"] and got["manifest"] == "notebook"
    assert got["declared"] == {"n_boot": ["int", 10, ">= 1"], "label": ["str", "x", ""]}
    assert "n_boot" in got["refused"] and "0" in got["refused"]
    assert got["loaded"] == []


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "not a readable notebook file"),
        (json.dumps({"nbformat": 3, "worksheets": []}), "expected a Jupyter notebook of format 4, got nbformat 3"),
        (json.dumps({"nbformat": 4, "cells": [{"cell_type": "code", "source": "x = 1"}]}), "no cell tagged"),
    ],
)
def test_a_parameters_cell_that_cannot_be_read_is_named(tmp_path: Path, content: str, says: str) -> None:
    notebook = tmp_path / "98_bad.ipynb"
    notebook.write_text(content)
    with pytest.raises(params.ConfigError, match=says) as err:
        params.declared(notebook)
    assert str(notebook) in str(err.value)


def test_a_parameters_cell_stored_as_lines_reads_as_one_source(tmp_path: Path) -> None:
    lines = ["n_boot: int = 10  # bootstrap resamples | >= 1\n", 'label: str = "x"  # a name\n']
    notebook = _notebook(tmp_path / "97_lines.ipynb", [_parameters_cell(lines)])
    decl = params.declared(notebook)
    assert [(d.name, d.type, d.default, d.rule, d.line) for d in decl.values()] == [
        ("n_boot", "int", 10, ">= 1", 1),
        ("label", "str", "x", "", 2),
    ]


def test_python_m_mtlib_run_is_an_alias_that_says_where_the_runner_went() -> None:
    """For one release ``python -m mtlib.run ARGS`` is ``python -m mtrun ARGS``: same output, same exit status."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tools" / "mtrun")]))
    argv = ["--profile", "smoke", "--only", "04", "--list"]
    old, new = (
        subprocess.run([sys.executable, "-m", m, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        for m in ("mtlib.run", "mtrun")
    )
    assert old.returncode == new.returncode == 0, old.stderr[-2000:]
    assert old.stdout == new.stdout and "04_" in new.stdout
    assert "the runner is now `python -m mtrun`" in old.stderr and "mtrun" not in new.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "mtlib.run", "--threads", "0", "--list"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "--threads" in bad.stderr


def test_the_alias_without_the_tool_says_how_to_install_it(tmp_path: Path) -> None:
    """``-S``: no site-packages, so neither an installed nor an editable mtrun is found; only this checkout's mtlib."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-S", "-m", "mtlib.run", "--list"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 2 and "pip install -e tools/mtrun" in proc.stderr and "Traceback" not in proc.stderr
