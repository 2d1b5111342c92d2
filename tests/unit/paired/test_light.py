"""``mtlib.paired`` is part of the light install: importing it, and running the command, never imports torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ["torch", "transformers", "sentence_transformers", "gensim", "matplotlib", "statsmodels", "onnxruntime"]


def test_the_command_runs_without_any_heavy_package_loaded():
    code = (
        "import sys, json, contextlib, io\n"
        "from mtlib.paired.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main([{str(ROOT / 'tests/fixtures/lmeval/model-a')!r}, "
        f"{str(ROOT / 'tests/fixtures/lmeval/model-b')!r}, '--n-boot', '200'])\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), MTLIB_PROGRESS="0")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    code_, loaded = json.loads(proc.stdout.splitlines()[-1])
    assert code_ in (0, 1), proc.stderr
    assert not [m for m in HEAVY if m in loaded]


def test_without_matplotlib_the_html_says_the_picture_is_missing_and_the_command_still_passes(tmp_path: Path):
    page = tmp_path / "report.html"
    code = (
        "import sys, contextlib, io\n"
        "sys.modules['matplotlib'] = None  # as if it were not installed: importing it raises ImportError\n"
        "from mtlib.paired.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main([{str(ROOT / 'tests/fixtures/inspect/tie/a.eval')!r}, "
        f"{str(ROOT / 'tests/fixtures/inspect/tie/b.json')!r}, '--n-boot', '200', '--html', {str(page)!r}])\n"
        "print(code)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), MTLIB_PROGRESS="0")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.stdout.split() == ["0"], proc.stderr
    assert "The forest plot needs matplotlib" in page.read_text() and not page.with_suffix(".png").exists()
