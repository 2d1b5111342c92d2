"""The flat names of release 0.1 (deprecated there for one release) are gone in 0.2; the wings stay lazy."""

from __future__ import annotations

import importlib

import pytest

import mtlib

#: Flat names of 0.1 and where they live now (as 0.1's deprecation warnings said).
GONE = {"stats": "mtlib.analysis.stats", "sentiment": "mtlib.experiments.sentiment", "expected": "mtrun.expected"}


@pytest.mark.parametrize("old", sorted(GONE))
def test_an_old_flat_name_is_gone_and_its_new_place_imports(old: str) -> None:
    assert mtlib.__version__ == "0.2.0"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"mtlib.{old}")
    with pytest.raises(AttributeError, match=f"no attribute '{old}'"):
        getattr(mtlib, old)
    assert importlib.import_module(GONE[old]).__name__ == GONE[old]


def test_the_wings_and_shortcuts_import_on_first_use() -> None:
    assert mtlib.analysis.__name__ == "mtlib.analysis"
    assert callable(mtlib.compare)
