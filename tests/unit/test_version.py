"""The version lives in one place, pyproject.toml; the README's wheel name and ``mtlib.__version__`` agree with it."""

from __future__ import annotations

import re
from pathlib import Path

import mtlib

ROOT = Path(__file__).resolve().parents[2]


def pyproject_version() -> str:
    """``[project] version`` of pyproject.toml (read as text: tomllib is not in Python 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    found = re.search(r'^version\s*=\s*"([^"]+)"', project, re.MULTILINE)
    assert found, "pyproject.toml has no [project] version"
    return found.group(1)


def test_readme_wheel_name_and_package_version_agree_with_pyproject():
    version = pyproject_version()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    wheels = re.findall(r"mtlib-(\d[\w.]*)-py3-none-any\.whl", readme)
    assert wheels, "the README names no wheel to install"
    assert set(wheels) == {version}, f"README names mtlib-{sorted(set(wheels))} wheels; pyproject.toml is {version}"
    assert mtlib.__version__ == version
