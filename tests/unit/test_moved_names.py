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


#: Names renamed so that "kind" means only a model family and "settings" only a training block (issue 57):
#: (face, old name, new name). Each old name warns for one release and gives the new object.
RENAMED = [
    ("mtlib.models", "folder_kind", "folder_family"),
    ("mtlib.analysis", "kinds_of", "distinct_rows"),
    ("mtlib.experiments.seti", "SETTINGS", "TASK_SETUPS"),
    ("mtlib.experiments.seti", "FEWSHOT_SETTINGS", "FEWSHOT_SETUPS"),
    ("mtlib.experiments.seti", "parse_settings", "parse_setups"),
    ("mtlib.experiments.tre", "FitSettings", "TreFitOptions"),
]


@pytest.mark.parametrize(("face", "old", "new"), RENAMED, ids=[r[1] for r in RENAMED])
def test_a_renamed_public_name_warns_for_one_release_and_gives_the_new_object(face: str, old: str, new: str) -> None:
    module = importlib.import_module(face)
    assert new in module.__all__ and old not in module.__all__
    with pytest.warns(DeprecationWarning, match=f"{face}.{old} is renamed {new}"):
        assert getattr(module, old) is getattr(module, new)
