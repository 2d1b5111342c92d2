"""The run context: resolved once from arguments, then the environment, then defaults, and never written back."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import numpy as np
import pytest

from mtlib.experiments import template
from mtlib.models import loading
from mtlib.utils.context import RunContext

ROOT = Path(__file__).resolve().parents[3]


def test_resolution_order_argument_then_environment_then_default(tmp_path: Path) -> None:
    env = {"MTLIB_PRECISION": "tf32", "MTLIB_BACKEND": "onnx", "MTLIB_THREADS": "3"}
    from_env = RunContext.resolve(device="cpu", environ=env, cache_dir=tmp_path)
    assert (from_env.precision, from_env.backend, from_env.threads) == ("tf32", "onnx", 3)
    given = RunContext.resolve(device="cpu", precision="bf16", backend="torch", threads=1, environ=env)
    assert (given.precision, given.backend, given.threads) == ("bf16", "torch", 1)
    default = RunContext.resolve(device="cpu", environ={})
    assert (default.precision, default.backend, default.threads) == ("fp32", "torch", None)
    assert from_env.cache_dir == tmp_path and from_env.stats_device is None
    with pytest.raises(ValueError, match=r"\$MTLIB_THREADS='x'"):
        RunContext.resolve(device="cpu", environ={"MTLIB_THREADS": "x"})
    with pytest.raises(ValueError, match="precision='int8'"):
        RunContext.resolve(device="cpu", precision="int8")


def test_resolving_never_writes_the_environment() -> None:
    before = dict(os.environ)
    RunContext.resolve(device="cpu", precision="bf16", backend="onnx", threads=2)
    template.Spec(precision="bf16", device="cpu").context()
    assert dict(os.environ) == before


def test_no_module_of_mtlib_writes_the_environment() -> None:
    """``os.environ`` is only read: no item assignment, update, setdefault, pop, clear, putenv or unsetenv."""
    writers = {"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"}
    bad = []
    for path in sorted((ROOT / "mtlib").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for t in targets:
                if isinstance(t, ast.Subscript) and ast.unparse(t.value) == "os.environ":
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Delete) and any(
                isinstance(t, ast.Subscript) and ast.unparse(t.value) == "os.environ" for t in node.targets
            ):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner, name = ast.unparse(node.func.value), node.func.attr
                if (owner == "os.environ" and name in writers) or (owner == "os" and name in ("putenv", "unsetenv")):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "modules writing os.environ: " + ", ".join(bad)


def test_a_spec_precision_reaches_the_forward_pass_without_a_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The template notebook run as a script with ``precision=bf16`` runs in bf16; the next run in the same
    process does not."""
    from mtlib.utils.paths import project_root
    from mtrun.script import run_notebook

    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path))
    monkeypatch.delenv("MTLIB_PRECISION", raising=False)
    seen: list[str | None] = []
    real = loading.build

    def spy(*args, **kwargs):
        model = real(*args, **kwargs)
        seen.append(model.precision)
        return model

    monkeypatch.setattr(loading, "build", spy)
    nb = project_root() / "notebooks" / "00_template.ipynb"
    values = dict(models=["minilm"], device="cpu", n_examples=3, out_dir=str(tmp_path / "out"))
    bf16 = run_notebook(nb, {**values, "precision": "bf16"}, quiet=True)["embeddings"]["minilm"]
    fp32 = run_notebook(nb, values, quiet=True)["embeddings"]["minilm"]
    assert seen == ["bf16", "fp32"]
    assert "MTLIB_PRECISION" not in os.environ
    assert not np.array_equal(bf16, fp32)  # the forward passes really ran in two precisions
    np.testing.assert_allclose(bf16, fp32, atol=0.02)
