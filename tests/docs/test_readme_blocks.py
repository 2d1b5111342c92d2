"""Every Python block of README.md and data/README.md runs, each on its own in a fresh namespace.

A block is self-contained: it imports and defines what it uses, as a reader
copying it into a new notebook cell would. Each runs as ``python -c BLOCK`` in its own process, forked from a
warm interpreter where the environment allows (``tests/warm.py``): its namespace is empty, only the heavy
packages' modules are already imported. A block that cannot run here (a GPU,
a download, a cluster) is preceded by the line ``<!-- no-run: the reason -->``
and is skipped with that reason, so the reader sees why too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.warm import run_python

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "data/README.md")
_BLOCK = re.compile(
    r"(?P<pre>(?:^[^\n]*\n){0,2})^(?P<indent>[ \t]*)```python[ \t]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S
)
_NO_RUN = re.compile(r"<!--\s*no-run:\s*(?P<why>.*?)\s*-->")


def python_blocks(path: Path) -> list[tuple[int, str, str | None]]:
    """``(line, code, skip_reason)`` of each fenced ``python`` block of a markdown file."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in _BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("indent")) + 1
        indent = m["indent"]
        code = "".join(ln[len(indent) :] if ln.startswith(indent) else ln for ln in m["body"].splitlines(True))
        why = _NO_RUN.search(m["pre"])
        out.append((line, code, why["why"] if why else None))
    return out


CASES = [(doc, line, code, why) for doc in DOCS for line, code, why in python_blocks(ROOT / doc)]


def test_the_documents_have_python_blocks() -> None:
    assert len(CASES) >= 5, "README.md and data/README.md should show runnable examples"


@pytest.mark.parametrize(("doc", "line", "code", "why"), CASES, ids=[f"{d}:{ln}" for d, ln, _, _ in CASES])
def test_block_runs_in_a_fresh_namespace(doc: str, line: int, code: str, why: str | None, tmp_path: Path) -> None:
    if why is not None:
        pytest.skip(f"{doc}:{line}: {why}")
    # this checkout first on PYTHONPATH (tests/conftest.py); the block in a namespace of its own (tests/warm.py)
    env = dict(os.environ, MPLBACKEND="Agg", HF_HUB_OFFLINE="1", MTLIB_PROGRESS="0")
    proc = run_python(["-c", code], cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, f"{doc}:{line} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
