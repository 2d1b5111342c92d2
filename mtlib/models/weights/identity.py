"""Weights identity: a string that changes whenever a model's weights change.

It keys every cache entry of a model (embeddings, features, trained heads),
so replacing a checkpoint in place never serves stale outputs.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from mtlib.models.capabilities import ADAPTERS
from mtlib.models.weights.resolve import Resolved
from mtlib.utils.cache import atomic_write_bytes, cache_root

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".json", ".txt", ".model", ".npy", ".parquet")
#: The cache folder a load in progress was given (:func:`digests_in`): an adapter computes its identity while it is
#: constructed, before the model gets its context, so the loader names the folder here for the memo of digests.
_DIGEST_DIR: ContextVar[Path | None] = ContextVar("mtlib_digest_dir", default=None)


@contextmanager
def digests_in(cache_dir: str | Path | None) -> Iterator[None]:
    """Within the block, :func:`file_digest` without a ``cache_dir`` memoises in ``cache_dir`` (the load's folder).

    :func:`mtlib.models.loading.build` wraps an adapter's construction in it with its context's ``cache_dir``,
    so loading with ``context=RunContext(cache_dir=tmp)`` writes the memo of weight digests under ``tmp`` only.
    """
    token = _DIGEST_DIR.set(Path(cache_dir) if cache_dir is not None else None)
    try:
        yield
    finally:
        _DIGEST_DIR.reset(token)


def file_digest(path: Path, cache_dir: str | Path | None = None) -> str:
    """SHA-256 of a file (head, tail and size for files over 256 MB), memoised by path, size and mtime.

    The memo is ``weights-hashes.json`` in the cache folder ``cache_dir`` (None: the folder of the load in
    progress, :func:`digests_in`, else the default, :func:`mtlib.utils.cache.default_cache_dir`).
    """
    stat = path.stat()
    memo_file = cache_root(cache_dir if cache_dir is not None else _DIGEST_DIR.get()) / "weights-hashes.json"
    try:
        memo = json.loads(memo_file.read_text())
    except (OSError, ValueError):
        memo = {}
    memo_key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    if memo_key in memo:
        return memo[memo_key]
    h = hashlib.sha256()
    chunk = 1 << 22
    with open(path, "rb") as fh:
        if stat.st_size <= 256 << 20:
            for block in iter(lambda: fh.read(chunk), b""):
                h.update(block)
        else:
            h.update(fh.read(chunk))
            fh.seek(-chunk, os.SEEK_END)
            h.update(fh.read(chunk))
            h.update(str(stat.st_size).encode())
    digest = h.hexdigest()
    memo[memo_key] = digest
    atomic_write_bytes(memo_file, json.dumps(memo, indent=0).encode())
    return digest


def model_identity(resolved: Resolved, cache_dir: str | Path | None = None) -> str:
    """A string that changes whenever the weights change.

    The family's own identity when it declares one (a lexicon scorer: its
    package version, :attr:`~mtlib.models.capabilities.Capabilities.identity`),
    the hub revision when the weights come from the HF cache (snapshot folder
    name), else a hash of the weight files (their digests memoised in the cache folder ``cache_dir``,
    :func:`file_digest`).
    """
    path = resolved.path
    caps = getattr(ADAPTERS.get(resolved.kind), "capabilities", None)
    if caps is not None and caps.identity is not None:
        return str(caps.identity(resolved))
    if path is None:
        return f"{resolved.name}@gensim-data"
    if resolved.how in ("hf-cache", "hub") and path.parent.name == "snapshots":
        return f"{resolved.spec.source if resolved.spec else resolved.name}@{path.name[:12]}"
    files = (
        [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in _WEIGHT_SUFFIXES)
    )
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode())
        h.update(file_digest(f, cache_dir).encode())
    label = resolved.spec.source if resolved.spec else path.name
    return f"{label}@{h.hexdigest()[:12]}"


def package_identity(resolved: Resolved) -> str:
    """``<name>@<version>`` of the Python package a model is (a lexicon scorer), ``@unknown-version`` without one."""
    source = resolved.spec.source if resolved.spec else resolved.name
    try:
        return f"{resolved.name}@{version(source)}"
    except PackageNotFoundError:
        return f"{resolved.name}@unknown-version"


__all__ = ["file_digest", "model_identity"]
