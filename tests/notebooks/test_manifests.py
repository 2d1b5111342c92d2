"""Every smoke run's ``manifest.json`` names every data file its notebook read and every model it used (issue 38).

The runs are the session's smoke runs (``tests/smoke_runs.py``, shared with ``test_notebooks.py``): no
notebook runs again for this test. The list of data files is checked against an independent observer:
the smoke runs start with ``tests/fixtures/audit`` on ``PYTHONPATH``, whose ``sitecustomize`` logs, by an
audit hook of the interpreter, every file under ``data/`` each process opens. The manifest's list comes
from the loaders (:mod:`mtlib.utils.provenance`); the two must agree, file for file, and each file's size
and SHA-256 must be those on disk. Each model named by the notebook's parameters must be listed with the
weights identity this process computes for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtlib import models
from mtlib.run.layout import RunLayout
from mtlib.utils.cache import file_sha256

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = [nb for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) if nb.stem != "00_template"]
#: Parameters whose values are registry names of models, in the notebooks that have them.
MODEL_PARAMETERS = (
    "models",
    "model_a",
    "model_b",
    "encoders",
    "native",
    "finetune",
    "head_models",
    "finetune_models",
    "fewshot_models",
)
pytestmark = pytest.mark.xdist_group("smoke")  # the smoke runs of test_notebooks.py, on one worker


def kernel_opened(folder: Path) -> set[str]:
    """The data files (relative to the project) the notebook's kernel opened, as the audit hook logged them."""
    found: set[str] = set()
    for log in sorted(folder.glob("*.txt")):
        first, *paths = log.read_text().splitlines()
        if "ipykernel" in first:  # the kernel, not the runner or papermill
            found.update(Path(p).relative_to(ROOT).as_posix() for p in paths)
    return found


def model_names(parameters: dict) -> set[str]:
    """The model names a notebook's parameters give."""
    names: set[str] = set()
    for key in MODEL_PARAMETERS:
        value = parameters.get(key)
        names.update([value] if isinstance(value, str) else (value or []))
    return names


@pytest.mark.notebook
@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
def test_manifest_names_every_file_read_and_every_model(path, smoke_runs):
    smoke = smoke_runs.get(path.stem[:2])
    assert smoke.returncode == 0, smoke.log[-3000:]
    layout = RunLayout(smoke.out_dir, "smoke", path.stem)
    manifest = json.loads(layout.manifest_path.read_text())
    assert (manifest["record_type"], manifest["notebook"], manifest["profile"]) == ("notebook", path.stem, "smoke")
    assert manifest["runner"]["status"] == "ok"

    opened = kernel_opened(smoke.out_dir / "opened")
    listed = {e["name"]: e for e in manifest["inputs"]}
    assert opened, f"{path.stem}: the audit hook saw no data file (is tests/fixtures/audit on PYTHONPATH?)"
    assert set(listed) == opened, f"{path.stem}: manifest {sorted(listed)} != opened {sorted(opened)}"
    for name, entry in listed.items():
        assert entry["where"] == "project"
        assert entry["bytes"] == (ROOT / name).stat().st_size
        assert entry["sha256"] == file_sha256(ROOT / name), name

    names = model_names(manifest["parameters"])
    assert names, f"{path.stem}: no model parameter found"
    for name in sorted(names):
        identity = models.load(name, device="cpu").identity  # computed here, from the weights on disk
        entries = [m for m in manifest["models"] if m["name"] == name]
        assert {m["identity"] for m in entries} == {identity}, f"{path.stem}: {name}: {entries}"
    for m in manifest["models"]:
        assert m["identity"] and m["kind"]
        if m["training"] is not None:  # a classifier trained (or reloaded) by the notebook: its record and base
            assert m["base"]["identity"] and m["training"]["key"] and m["training"]["seed"] is not None
    assert manifest["code"]["source_sha256"] and manifest["environment"]["packages"]["numpy"]
    assert manifest["machine"]["device"] == "cpu"
