"""``python -m mtrun.diff`` names the one thing two runs differ in, first (issue 38).

Each pair of runs differs in exactly one thing: a data file edited by one line, the CPU kernel set, the
seed, the model's weights. The runs are the miniature notebook of :mod:`tests.unit.run.provenance_fixture`
(a loader, a model, a :class:`~mtlib.run.results.Run`): the same code a notebook runs, in a fraction of
a second in this process; the kernel-set pair runs in two fresh processes, since torch picks its kernels
when it starts. Every manifest is also checked for privacy: the runs' HOME is a folder with a
recognisable name holding the data and the model, and nothing of it may reach a manifest.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mtrun import diff
from mtrun.diff import RunFiles, compare_metrics, diff_runs
from mtrun.expected import Expectation
from tests.unit.run.provenance_fixture import fixture_run

ROOT = Path(__file__).resolve().parents[3]
HOME_NAME = "zoe-quixote-home"
RELATIONS = ("SYN", "ANT", "HYP", "RANDOM")


WORDS = "cherry tree garden dogs bark night poodles student story king film cast plot acting apple fruit".split()


def _pairs_file(path: Path, edit: bool = False) -> Path:
    lines = [f"{WORDS[i]}\t{WORDS[(i + 5) % len(WORDS)]}\t{RELATIONS[i % 4]}\n" for i in range(12)]
    if edit:
        lines[5] = "poodles\ttable\tANT\n"  # one line changed
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines))
    return path


@pytest.fixture(scope="module")
def home(tmp_path_factory, tiny_bert_dir):
    """A HOME with a recognisable name, holding the data file and the model (as a user's own files would be)."""
    folder = tmp_path_factory.mktemp("homes") / HOME_NAME
    shutil.copytree(tiny_bert_dir, folder / "models" / "tiny-encoder")
    _pairs_file(folder / "data" / "pairs.tsv")
    return folder


@pytest.fixture(scope="module")
def baseline(home, tmp_path_factory):
    """Run A of every in-process pair: the original data, the original model, seed 0."""
    out = tmp_path_factory.mktemp("runs")
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        yield fixture_run(out / "a", home / "data" / "pairs.tsv", str(home / "models" / "tiny-encoder"), 0), out
    finally:
        if old is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = old


def _run_b(home: Path, out: Path, monkeypatch, data: Path | None = None, model: Path | None = None, seed: int = 0):
    monkeypatch.setenv("HOME", str(home))
    data = data or home / "data" / "pairs.tsv"
    return fixture_run(out, data, str(model or home / "models" / "tiny-encoder"), seed)


def _assert_private(run_dir: Path) -> None:
    text = (run_dir / "manifest.json").read_text()
    assert HOME_NAME not in text, "the HOME folder's name reached the manifest"
    host = socket.gethostname()
    assert len(host) < 4 or host not in text, f"the host name {host!r} reached the manifest"

    def strings(node):
        if isinstance(node, dict):
            for k, v in node.items():
                yield k
                yield from strings(v)
        elif isinstance(node, list):
            for v in node:
                yield from strings(v)
        elif isinstance(node, str):
            yield node

    absolute = [s for s in strings(json.loads(text)) if s.startswith(("/", "~")) or ":\\" in s]
    assert not absolute, f"absolute paths in the manifest: {absolute}"


def test_a_data_file_edited_by_one_line_is_named_first(home, baseline, monkeypatch, tmp_path):
    a, _ = baseline
    edited = _pairs_file(home / "edited" / "pairs.tsv", edit=True)  # the same file name, one line changed
    b = _run_b(home, tmp_path / "b", monkeypatch, data=edited)
    result = diff_runs(RunFiles(a), RunFiles(b))
    first = result.causes[0]
    assert (first.group, first.rank) == ("inputs", 0), result.render()
    assert first.what.startswith("pairs.tsv: contents differ"), result.render()
    assert [c.group for c in result.causes] == ["inputs"], result.render()  # nothing else differs
    _assert_private(a)
    _assert_private(b)


def test_another_seed_is_named_first(home, baseline, monkeypatch, tmp_path):
    a, _ = baseline
    b = _run_b(home, tmp_path / "b", monkeypatch, seed=1)
    result = diff_runs(RunFiles(a), RunFiles(b))
    assert str(result.causes[0]) == "parameters: seed: 0 -> 1", result.render()
    assert len(result.causes) == 1, result.render()
    assert not result.agree and "picked" in [m.key for m in result.metrics]


def test_other_weights_under_the_same_name_are_named_first(home, baseline, monkeypatch, tmp_path):
    import torch
    from safetensors.torch import load_file, save_file

    a, _ = baseline
    other = tmp_path / "elsewhere" / "tiny-encoder"  # the same folder name: the parameter reads the same
    shutil.copytree(home / "models" / "tiny-encoder", other)
    weights = next(other.glob("*.safetensors"))
    tensors = load_file(str(weights))
    name = next(k for k in sorted(tensors) if k.endswith("word_embeddings.weight"))
    tensors[name] = tensors[name] + 0.5 * torch.ones_like(tensors[name])
    save_file(tensors, str(weights), metadata={"format": "pt"})
    b = _run_b(home, tmp_path / "b", monkeypatch, model=other)
    result = diff_runs(RunFiles(a), RunFiles(b))
    first = result.causes[0]
    assert (first.group, first.rank) == ("models", 1), result.render()
    assert first.what.startswith("tiny-encoder: other weights"), result.render()
    assert {c.group for c in result.causes} == {"models"}, result.render()


@pytest.mark.slow
def test_another_kernel_set_is_named_first(home, tmp_path):
    """Two fresh processes, the same everything but ``ATEN_CPU_CAPABILITY`` and ``MKL_ENABLE_INSTRUCTIONS``."""
    data, model = home / "data" / "pairs.tsv", home / "models" / "tiny-encoder"
    env = {
        **os.environ,
        "HOME": str(home),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    for var in ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS"):
        env.pop(var, None)
    variant = {**env, "ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.unit.run.provenance_fixture", str(tmp_path / w), str(data), str(model), "0"],
            env=e,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for w, e in (("a", env), ("b", variant))
    ]
    outputs = [p.communicate()[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    a, b = (Path(o.strip().splitlines()[-1]) for o in outputs)
    result = diff_runs(RunFiles(a), RunFiles(b))
    first = result.causes[0]
    assert first.group == "machine" and "ATEN_CPU_CAPABILITY" in first.what, result.render()
    assert {c.group for c in result.causes} == {"machine"}, result.render()
    assert any("torch_cpu_capability" in c.what for c in result.causes), "torch's own view of the kernels"
    for run in (a, b):
        _assert_private(run)


def test_the_command_exits_0_when_the_metrics_agree_and_1_when_not(baseline, home, monkeypatch, tmp_path, capsys):
    a, _ = baseline
    same = _run_b(home, tmp_path / "same", monkeypatch)
    assert diff.main([str(a), str(same / "manifest.json")]) == 0
    out = capsys.readouterr().out
    assert "no difference in code, environment, machine, inputs, models or parameters" in out
    other = _run_b(home, tmp_path / "seed", monkeypatch, seed=3)
    assert diff.main([str(a), str(other)]) == 1
    out = capsys.readouterr().out
    assert "most likely cause: parameters: seed: 0 -> 3" in out and "  picked: " in out
    assert diff.main([str(a), str(tmp_path / "nothing-here")]) == 2


def test_folders_of_runs_are_paired_by_profile_and_notebook(baseline, home, monkeypatch, tmp_path, capsys):
    a, _ = baseline
    other = _run_b(home, tmp_path / "root", monkeypatch, seed=2)  # <root>/papermill_runs/smoke/<stem>
    assert diff.main([str(a.parents[2]), str(tmp_path / "root")]) == 1
    assert "== smoke/provenance_fixture" in capsys.readouterr().out
    assert diff.find_runs(tmp_path / "root") == [RunFiles(other)]


def test_metrics_compare_within_their_pinned_tolerance():
    pins = {
        "accuracy": Expectation("accuracy", 0.8, tol_items=2, per="n", pin_type="model"),
        "rate": Expectation("rate", 0.12, tol=0.01, pin_type="model"),
        "cell": Expectation("cell", 0.98, truncate=2),
    }
    a = {"accuracy": 0.80, "n": 100, "rate": 0.12, "cell": 0.981, "count": 5, "timing/x_seconds": 1.0}
    b = {"accuracy": 0.82, "n": 100, "rate": 0.135, "cell": 0.989, "count": 5, "timing/x_seconds": 9.0}
    found, compared = compare_metrics(a, b, pins)
    assert compared == 5  # timing/ is skipped
    verdict = {m.key: m.beyond for m in found}
    assert verdict == {"accuracy": False, "rate": True, "cell": False}
    assert "pinned ±2 items of n = ±0.02" in str(next(m for m in found if m.key == "accuracy"))
    found, _ = compare_metrics({"k": 1.0}, {"k": 1.0000001})  # no pin: exact
    assert [m.beyond for m in found] == [True]
    found, _ = compare_metrics({"k": 1}, {})
    assert found[0].tolerance == "in one run only" and found[0].beyond
