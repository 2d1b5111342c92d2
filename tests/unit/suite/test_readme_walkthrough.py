"""The README's "Test your own model" walkthrough: every python block runs on its own, offline, in seconds."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SECTION = "## Test your own model"


def _blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert SECTION in text, "the README has no 'Test your own model' section"
    section = text.split(SECTION, 1)[1]
    section = re.split(r"\n## ", section, maxsplit=1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def test_the_walkthrough_builds_runs_compares_saves_reloads_and_gates_five_tests():
    code = "\n".join(_blocks())
    assert len(_blocks()) >= 3
    for needed in (
        "MFT(",
        "T.NameSwap()",
        "T.Punctuation(",
        'direction="decrease"',
        "PairwiseSystematicity(",
        "make_pipeline(",
        'suite.run("vader")',
        "compare(",
        ".save(",
        "SuiteResult.load(",
        "assert_passes()",
    ):
        assert needed in code
    assert len(re.findall(r"^suite\.add\(", code, flags=re.MULTILINE)) >= 5


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_each_python_block_runs_in_a_fresh_interpreter(index, tmp_path):
    block = _blocks()[index]
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(ROOT),
        "MTLIB_PROGRESS": "0",
        "MTLIB_CACHE": os.environ.get("MTLIB_CACHE", str(tmp_path / "cache")),
    }
    done = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"README block {index} failed:\n{block}\n--- stderr ---\n{done.stderr[-3000:]}"
