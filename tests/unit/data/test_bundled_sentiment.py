"""Tests for the bundled sentiment dataset ``data/sentiment/reviews.txt``."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "sentiment"
GENERATOR = DATA_DIR / "make_reviews.py"
REVIEWS = DATA_DIR / "reviews.txt"
LINE_RE = re.compile(r"^[01] \S.*$")


@pytest.fixture(scope="module")
def lines() -> list[str]:
    """The committed dataset, one entry per line (without the newline)."""
    raw = REVIEWS.read_bytes()
    assert raw.endswith(b"\n") and b"\r" not in raw, "expected \\n line ends"
    return raw.decode("utf-8").split("\n")[:-1]


def test_generator_reproduces_committed_file(tmp_path: Path) -> None:
    """Re-running the generator gives the committed file byte for byte."""
    out = tmp_path / "reviews.txt"
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(out)], check=True, capture_output=True)
    assert out.read_bytes() == REVIEWS.read_bytes()


def test_size(lines: list[str]) -> None:
    """At least 1,000 reviews."""
    assert len(lines) >= 1000


def test_line_format(lines: list[str]) -> None:
    """Every line is ``label sentence`` with a 0/1 label."""
    bad = [line for line in lines if not LINE_RE.match(line)]
    assert not bad, bad[:5]


def test_no_duplicate_sentences(lines: list[str]) -> None:
    """No sentence appears twice, whatever its label."""
    counts = Counter(line[2:] for line in lines)
    dupes = [s for s, n in counts.items() if n > 1]
    assert not dupes, dupes[:5]


def test_labels_roughly_balanced(lines: list[str]) -> None:
    """Each label covers between 40% and 60% of the lines."""
    counts = Counter(line[0] for line in lines)
    for label in "01":
        assert 0.4 <= counts[label] / len(lines) <= 0.6, counts
