"""What this process read and what its caches answered: the recorder behind a run's manifest.

Intuition: "which data file did this number come from?" is answered by the
code that opened it, not by a list kept by hand. The data loaders report every
file they open (:func:`record_input`, called by the one shared reader
:func:`mtlib.data.tsv.text_lines`), and the disk cache reports, per namespace
(a model's weights identity and an operation), how many unique inputs it found
and how many had to be computed (:func:`count_cache`, called by
:func:`mtlib.utils.cache.cached_rows`). :mod:`mtlib.run.manifest` reads both
when it writes a run's ``manifest.json``; :class:`mtlib.run.results.Run`
starts each run with :func:`reset`.

The record is process-wide and holds absolute paths only in memory: naming a
file for the manifest (relative to the project, to the data folder, or just
its name) is the manifest's business. Recording costs a dictionary update;
hashing happens when a manifest is written (:func:`fingerprint`, memoised by
path, size and modification time, so rewriting a manifest rehashes nothing).

Example:
    >>> import tempfile, pathlib
    >>> reset()
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pairs.tsv"
    >>> _ = f.write_text("a\\tb\\n")
    >>> record_input(f)
    >>> record_input(f)  # once per file, in the order first read
    >>> [p.name for p in inputs()]
    ['pairs.tsv']
    >>> fingerprint(f)
    (4, '5dd1197866f479824d9b483e1b7ae9ad3e518f3b4fd447c6b92d127dda6178c5')
    >>> count_cache(("minilm@3f2a", "embed"), hits=3, misses=1)
    >>> count_cache(("minilm@3f2a", "embed"), hits=4, misses=0)
    >>> cache_counts()[("minilm@3f2a", "embed")]
    {'calls': 2, 'hits': 7, 'misses': 1}
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["cache_counts", "count_cache", "fingerprint", "inputs", "record_input", "reset"]

#: Absolute paths of the files read since :func:`reset`, in the order first read (a dict keeps the order).
_INPUTS: dict[str, None] = {}
#: Cache namespace (its parts as strings) -> calls, hits and misses since :func:`reset`.
_CACHE: dict[tuple[str, ...], dict[str, int]] = {}
#: (path, size, mtime_ns) -> SHA-256: a file is hashed once per process unless it changes.
_DIGESTS: dict[tuple[str, int, int], str] = {}
_BLOCK = 1 << 20


def reset() -> None:
    """Forget what was read and counted: a new run starts here (the digest memo is kept)."""
    _INPUTS.clear()
    _CACHE.clear()


def record_input(path: str | os.PathLike) -> None:
    """Note that this process read the file ``path`` (relative paths are taken from the working folder)."""
    _INPUTS.setdefault(os.path.abspath(os.fspath(path)), None)


def inputs() -> list[Path]:
    """The files read since :func:`reset`, in the order first read."""
    return [Path(p) for p in _INPUTS]


def count_cache(namespace: Sequence[Any] | None, hits: int, misses: int, desc: str = "") -> None:
    """Count one lookup of a cache namespace: ``hits`` unique inputs found, ``misses`` computed.

    Args:
        namespace: The namespace's parts (``(weights identity, operation, ...)``); ``None`` for work
            done without a cache, counted under ``("(no cache)", desc)``.
        hits: Unique inputs answered from the cache.
        misses: Unique inputs computed.
        desc: What was computed (the progress label), naming uncached work.
    """
    key = tuple(str(p) for p in namespace) if namespace is not None else ("(no cache)", desc)
    entry = _CACHE.setdefault(key, {"calls": 0, "hits": 0, "misses": 0})
    entry["calls"] += 1
    entry["hits"] += int(hits)
    entry["misses"] += int(misses)


def cache_counts() -> dict[tuple[str, ...], dict[str, int]]:
    """Calls, hits and misses per cache namespace since :func:`reset` (a copy)."""
    return {k: dict(v) for k, v in _CACHE.items()}


def fingerprint(path: str | os.PathLike) -> tuple[int, str]:
    """``(size in bytes, hex SHA-256)`` of a file, memoised by path, size and modification time.

    Raises:
        OSError: the file cannot be read (gone since it was recorded, no permission).
    """
    stat = os.stat(path)
    key = (os.path.abspath(os.fspath(path)), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(_BLOCK), b""):
                h.update(block)
        _DIGESTS[key] = h.hexdigest()
    return stat.st_size, _DIGESTS[key]
