"""``make test`` and ``make test-slow`` split the suite in two, and CI runs both.

``make test`` is the gate a developer runs (every test not marked ``slow``); the tests marked ``slow`` run a
notebook again under another condition, kill the runner's processes or load the real SmolLM2 (``make test-slow``,
with ``make check`` beside them). A test left out of both, or a CI that runs one tier only, would drop tests (or
the linters) from CI without a word.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _recipe(target: str) -> str:
    """The recipe of ``target`` in the Makefile, its continuation lines joined."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    match = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", text, re.M)
    assert match, f"the Makefile has no target {target!r}"
    return match.group(1)


def _marker_expression(target: str) -> str:
    pytest_calls = [c for c in re.split(r"[;&|]+", _recipe(target)) if "-m pytest" in c]
    assert len(pytest_calls) == 1, f"make {target} runs pytest once, found {pytest_calls}"
    args = shlex.split(pytest_calls[0])
    return args[args.index("-m", args.index("pytest")) + 1]


def test_make_test_and_make_test_slow_partition_the_suite_by_the_slow_marker_and_lint_beside_the_slow_tier():
    assert _marker_expression("test") == "not slow"
    assert _marker_expression("test-slow") == "slow"
    assert re.search(r"\$\(MAKE\)[^;&|]* check\b", _recipe("test-slow")), "make test-slow runs make check"
    markers = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^\s*"slow: ', markers, re.M), "the slow marker is declared (pytest --strict-markers)"


def test_ci_runs_both_tiers_after_a_fresh_install():
    lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    commands = [ln for ln in lines if ln and not ln.startswith("#")]

    def first(pattern: str) -> int:
        found = [i for i, ln in enumerate(commands) if re.search(pattern, ln)]
        assert found, f".ci/run runs no command matching {pattern!r}"
        return found[0]

    assert first(r"^rm -rf \.venv$") < first(r"\bmake test(?![-\w])") < first(r"\bmake test-slow\b")
    assert "set -euo pipefail" in commands  # make test failing stops CI there, with its status
