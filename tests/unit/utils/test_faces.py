"""Package faces: each public name written once; ``ALL`` takes a module's own ``__all__`` without importing it."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from mtlib.utils.faces import ALL, MODULE, Face

ROOT = Path(__file__).resolve().parents[3]


def _declared_all(path: Path) -> list[str]:
    """The literal ``__all__`` of a source file, by parsing the whole file (the face reads it by pattern)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{path} has no __all__")


def test_all_gives_the_modules_own_names_without_importing_it() -> None:
    code = (
        "import sys; from mtlib.utils.faces import ALL, MODULE, Face; "
        "f = Face('mtlib.relations', {'distance_order': ALL}); "
        "print(f.names, 'mtlib.relations.distance_order' in sys.modules)"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    expected = _declared_all(ROOT / "mtlib/relations/distance_order.py")
    assert out.stdout.strip() == f"{sorted(expected)} False", out.stderr[-2000:]


def test_every_face_entry_marked_all_matches_its_module() -> None:
    """Every package whose face uses ALL exports exactly its modules' ``__all__`` for those entries."""
    checked = 0
    for init in sorted((ROOT / "mtlib").rglob("__init__.py")):
        tree = ast.parse(init.read_text())
        whole = [
            ast.literal_eval(key)
            for node in ast.walk(tree)
            if isinstance(node, ast.Dict)
            for key, value in zip(node.keys, node.values)
            if key is not None and _takes_all(value)
        ]
        if not whole:
            continue
        package = importlib.import_module(".".join(init.parent.relative_to(ROOT).parts))
        for module in whole:
            names = [n for n, (m, attr) in package._face.where.items() if m == module and attr is not None]
            source = init.parent.joinpath(*module.split("."))
            source = source.with_suffix(".py") if source.with_suffix(".py").exists() else source / "__init__.py"
            assert sorted(names) == sorted(_declared_all(source)), f"{package.__name__}.{module}"
            for name in names:
                assert getattr(package, name) is getattr(importlib.import_module(f"{package.__name__}.{module}"), name)
            checked += 1
    assert checked >= 20


def _takes_all(value: ast.expr) -> bool:
    """Whether a face entry is ``ALL`` or a list with ``ALL`` in it (``[MODULE, ALL]``)."""
    entries = value.elts if isinstance(value, ast.List) else [value]
    return any(isinstance(e, ast.Name) and e.id == "ALL" for e in entries)


def test_a_module_with_an_all_is_on_its_face_as_all_never_name_by_name() -> None:
    """A face lists names by hand only for a module without ``__all__`` (a private one): each name is written once."""
    by_hand, checked = [], 0
    for init in sorted((ROOT / "mtlib").rglob("__init__.py")):
        for node in ast.walk(ast.parse(init.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Face" and len(node.args) > 1):
                continue
            if not isinstance(node.args[1], ast.Dict):
                continue
            for key, value in zip(node.args[1].keys, node.args[1].values):
                names = [
                    e.value for e in getattr(value, "elts", []) if isinstance(e, ast.Constant) and e.value != MODULE
                ]
                if key is None or _takes_all(value) or not names:
                    continue
                source = init.parent.joinpath(*ast.literal_eval(key).split("."))
                source = source.with_suffix(".py") if source.with_suffix(".py").exists() else source / "__init__.py"
                checked += 1
                if "\n__all__ = [" in "\n" + source.read_text():
                    by_hand.append(f"{init.relative_to(ROOT)}: {ast.literal_eval(key)} lists {names}")
    assert not by_hand, "entries to write as ALL (the module's __all__ as the face shows it):\n" + "\n".join(by_hand)
    assert checked >= 15


def test_module_and_all_give_the_module_itself_and_its_names() -> None:
    face = Face("mtlib.analysis", {"rank_correlation": [MODULE, ALL]})
    declared = _declared_all(ROOT / "mtlib/analysis/rank_correlation.py")
    assert face.names == sorted(["rank_correlation", *declared])
    assert face.getattr("rank_correlation") is importlib.import_module("mtlib.analysis.rank_correlation")
    assert face.getattr("spearman_ci") is importlib.import_module("mtlib.analysis.rank_correlation").spearman_ci


def test_each_object_is_given_by_one_face_but_for_the_roots_shortcuts() -> None:
    import mtlib

    faces = {"mtlib": mtlib._face}
    for init in sorted((ROOT / "mtlib").rglob("__init__.py")):
        package = importlib.import_module(".".join(init.parent.relative_to(ROOT).parts))
        if isinstance(getattr(package, "_face", None), Face):
            faces[package.__name__] = package._face
    givers: dict[tuple[str, str], list[str]] = {}
    for package_name, face in faces.items():
        for name, (module, attr) in face.where.items():
            if attr is not None:  # a module given as an attribute is not a name of its own
                givers.setdefault((f"{package_name}.{module}", attr), []).append(f"{package_name}.{name}")
    twice = {home: names for home, names in givers.items() if len(names) > 1}
    assert all(names[0] in {f"mtlib.{s}" for s in mtlib.SHORTCUTS} for names in twice.values()), twice
    assert len(faces) >= 20


def test_a_module_without_a_literal_all_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "facepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "loose.py").write_text("x = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("facepkg")
    with pytest.raises(ValueError, match=r"facepkg: .*loose.py declares no literal __all__"):
        Face("facepkg", {"loose": ALL})
    with pytest.raises(ValueError, match="no source file for module 'missing'"):
        Face("facepkg", {"missing": ALL})


def test_a_moved_name_warns_once_per_use_and_gives_the_new_object() -> None:
    import mtlib.analysis
    import mtlib.paired
    import mtlib.suite

    with pytest.warns(DeprecationWarning, match=r"mtlib\.suite\.mcnemar_test moved to mtlib\.analysis\.mcnemar_test"):
        old = mtlib.suite.mcnemar_test
    assert old is mtlib.analysis.mcnemar_test
    with pytest.warns(DeprecationWarning, match=r"mtlib\.paired\.holm moved"):
        assert mtlib.paired.holm is mtlib.analysis.holm
    assert "mcnemar_test" not in mtlib.suite.__all__


RENAMED = [  # (face, old name, new name, deep module keeping the old name) of issue 58's renames
    ("mtlib.models", "split_name", "parse_model_name", "mtlib.models.training.finetune"),
    ("mtlib.utils", "scheme", "model_keys", "mtlib.utils.keys"),
    ("mtlib.utils", "cpu_threads", "threads_for_device", "mtlib.utils.threads"),
    ("mtlib.relations", "consistency", "consistency_scores", "mtlib.relations.distance_order"),
    ("mtlib.experiments.montague", "typed_columns", "types_in_paper_order", "mtlib.experiments.montague._phrases"),
    ("mtlib.analysis", "tre_by_split", "fit_tre_heldout", "mtlib.analysis.tree_reconstruction"),
]


@pytest.mark.parametrize(("face", "old", "new", "module"), RENAMED)
def test_a_renamed_name_warns_from_its_face_and_its_module_and_does_what_the_new_one_does(
    face: str, old: str, new: str, module: str
) -> None:
    package, deep = importlib.import_module(face), importlib.import_module(module)
    assert new in package.__all__ and old not in package.__all__ and old not in getattr(deep, "__all__", [])
    with pytest.warns(DeprecationWarning, match=rf"{re.escape(face)}\.{old} is renamed {new}; the old name goes"):
        assert getattr(package, old) is getattr(deep, new)
    alias = getattr(deep, old)  # the module's old name: a wrapper that warns when called (next test)
    assert alias.__name__ == old and alias.__wrapped__ is getattr(deep, new)


def test_a_module_alias_warns_when_called_and_returns_the_new_functions_result() -> None:
    from mtlib.analysis import stats
    from mtlib.models.training.finetune import parse_model_name, split_name
    from mtlib.relations.bootstrap import rate_table, with_wilson_rates
    from mtlib.utils.keys import model_keys, scheme

    with pytest.warns(DeprecationWarning, match="split_name is renamed parse_model_name"):
        assert (
            split_name("minilm", "finetune")
            == parse_model_name("minilm", "finetune")
            == ("minilm", "finetune", "minilm-ft")
        )
    with pytest.warns(DeprecationWarning, match="scheme is renamed model_keys"):
        assert scheme({"rate": 0.5}, "m") == model_keys({"rate": 0.5}, "m") == {"models/m/rate": 0.5, "rate": 0.5}
    frame = pd.DataFrame({"violations": [1, 0], "cases": [4, 0]})
    with pytest.warns(DeprecationWarning, match="rate_table is renamed with_wilson_rates"):
        old = stats.rate_table(frame)
    pd.testing.assert_frame_equal(old, with_wilson_rates(frame))
    assert rate_table.__wrapped__ is with_wilson_rates and "rate_table" not in stats.__all__
