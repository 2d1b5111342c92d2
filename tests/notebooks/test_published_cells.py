"""Notebook 04 in the quick profile reproduces Carvalho et al.'s published MiniLM cells exactly.

The quick block of notebook 04 in ``notebooks/profiles/expected.yaml`` pins the cells of Tables 1, 6, 7 and 8
that the paper prints for MiniLM, compared as the paper prints them (its ``exact`` pins), and the values around
them. The smoke profile's word lists are too small to give those cells, so this test runs the quick profile
(about a minute of CPU) in ``make test-slow``, which CI runs after ``make test``.
"""

from __future__ import annotations

import subprocess

import pytest

from mtrun import expected
from tests.smoke_runs import smoke_command, smoke_env

pytestmark = [pytest.mark.notebook, pytest.mark.slow, pytest.mark.xdist_group("quick-04")]


def test_notebook_04_reproduces_its_published_cells_in_the_quick_profile(tmp_path):
    pinned = expected.expectations("04", "quick")
    exact = [key for key, pin in pinned.items() if pin.pin_type == "exact"]
    assert len(exact) >= 35, f"expected.yaml pins {len(exact)} exact quick values of notebook 04, not its 35 cells"
    out = tmp_path / "out"
    proc = subprocess.run(smoke_command("04", out, profile="quick"), env=smoke_env(), capture_output=True, text=True)
    assert proc.returncode == 0, f"the quick run of 04 failed\n{(proc.stdout + proc.stderr)[-3000:]}"
    checked, mismatches = expected.check_runs("quick", out, only=["04"])
    assert [c[:2] for c in checked] == ["04"]
    assert not mismatches, f"{len(mismatches)} of {len(pinned)} pinned quick values of 04 not reproduced:\n" + (
        "\n".join(map(str, mismatches))
    )
