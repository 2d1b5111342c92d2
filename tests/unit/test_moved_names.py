"""The flat names of the previous release still work for one release, each with a DeprecationWarning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mtlib

ROOT = Path(__file__).resolve().parents[2]

CHECK_ALL = """
import importlib, sys, warnings
import mtlib
warnings.simplefilter("always")
bad = []
for old, new in sorted(mtlib.MOVED.items()):
    with warnings.catch_warnings(record=True) as w:
        module = importlib.import_module("mtlib." + old)
    if module.__name__ != new or not any(issubclass(x.category, DeprecationWarning) and new in str(x.message)
                                         for x in w):
        bad.append((old, module.__name__))
print(len(mtlib.MOVED), bad)
sys.exit(1 if bad else 0)
"""


def test_every_old_flat_name_imports_the_new_module_with_a_warning() -> None:
    proc = subprocess.run([sys.executable, "-c", CHECK_ALL], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
    assert proc.stdout.startswith(f"{len(mtlib.MOVED)} []")


def test_from_mtlib_import_an_old_name_and_python_dash_m() -> None:
    with pytest.warns(DeprecationWarning, match=r"mtlib\.relations\.transformations"):
        from mtlib import transformations  # noqa: F401
    proc = subprocess.run(
        [sys.executable, "-m", "mtlib.expected", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "python -m mtlib.run.expected" in proc.stdout
