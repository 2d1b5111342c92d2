"""Disk cache for model outputs, keyed by model identity, operation and input.

Intuition: a notebook asks a model for the same texts again and again (every
rerun, every profile, every pair a text takes part in). The cache makes each
unique input cost one model call, ever. Entries are grouped in *namespaces*,
one per (model identity, operation, layer, ...) combination; inside a
namespace an entry is a fixed-size float vector keyed by the SHA-256 of its
input (the text, or a text pair, plus anything else that changes the output).

Storage is log-structured: each call that computes new outputs appends one
``.npz`` shard to the namespace folder, written to a temporary file and then
renamed (atomic on POSIX), with a checksum of its arrays. A shard that fails
to load or whose checksum does not match is reported, deleted and its entries
recomputed on the next request. Many small shards are compacted into one.
Several processes may share a namespace: compaction writes the merged shard
before deleting the old ones, and a shard that vanishes while a process reads
the folder (another process compacted it away) is a miss that sends the reader
back to list the folder again, never "damage".

Other entries (trained heads, fine-tuned weights) are a folder of data files
(``.npz`` arrays, ``safetensors``) and a JSON record holding their SHA-256
and its own (:func:`write_record` / :func:`read_record`); a digest that does
not match is reported and the entry retrained. Nothing is ever unpickled.

The root folder is a run's :attr:`mtlib.utils.context.RunContext.cache_dir`; every function that caches
takes that folder as an argument. Its default, ``$MTLIB_CACHE`` if set, else ``~/.cache/mtlib``, is read in one
place, :func:`default_cache_dir`.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import logging
import os
import tempfile
import time
import uuid
import warnings
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

from mtlib.utils.batching import progress_bar, progress_sink
from mtlib.utils.provenance import count_cache

log = logging.getLogger(__name__)

CACHE_ENV = "MTLIB_CACHE"
_COMPACT_AFTER = 32


class _Vanished:
    """The type of :data:`_VANISHED`: a shard deleted while it was being read."""


_VANISHED = _Vanished()
#: Superseded data files of an entry younger than this are left alone (a concurrent writer's).
_KEEP_SECONDS = 600


#: Write failures that another cache folder cures: no permission, a read-only, full or quota-bound disk,
#: a file larger than the file system allows.
_DISK_ERRNOS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on the disk",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file too large for this file system",
}


def default_cache_dir() -> Path:
    """The default cache folder (not created): ``$MTLIB_CACHE`` if set, else ``~/.cache/mtlib``.

    The one place that reads ``$MTLIB_CACHE``: a :class:`~mtlib.utils.context.RunContext` resolved without a
    ``cache_dir`` takes it, and every function that caches falls back to it when given no folder.
    """
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "mtlib"


def cache_disk_error(err: OSError, path: Path, folder: Path) -> OSError:
    """The error for a failed write of ``path`` in the cache folder ``folder``, naming both and the remedy.

    The same class as ``err`` for a permission problem (a :class:`PermissionError` stays one), else
    :class:`OSError`, with ``err``'s errno.

    Example:
        >>> e = cache_disk_error(OSError(errno.EFBIG, "File too large"), Path("/c/x.npz"), Path("/c"))
        >>> print(e.strerror.replace("; ", ";\\n"))
        mtlib cache: cannot write /c/x.npz in the cache folder /c (file too large for this file system: File too large);
        set MTLIB_CACHE to a writable folder with free space (e.g. export MTLIB_CACHE=/tmp/mtlib-cache)
        >>> denied = PermissionError(errno.EACCES, "Permission denied")
        >>> isinstance(cache_disk_error(denied, Path("/c"), Path("/c")), PermissionError)
        True
    """
    why = _DISK_ERRNOS.get(err.errno or 0, "write failed")
    message = (
        f"mtlib cache: cannot write {path} in the cache folder {folder} ({why}: {err.strerror}); set {CACHE_ENV} "
        f"to a writable folder with free space (e.g. export {CACHE_ENV}=/tmp/mtlib-cache)"
    )
    return OSError(err.errno, message)


#: Errors of a path that cannot be a folder: a file in its place, a symbolic link that loops or points nowhere.
_FOLDER_ERRNOS = {errno.EEXIST, errno.ENOTDIR, errno.ELOOP, errno.EISDIR, errno.ENOENT}


def _blocker(folder: Path) -> str | None:
    """What stops ``folder`` from being a folder: the first part of it that is a file or a broken link."""
    for p in reversed([folder, *folder.parents]):
        if p.is_symlink():
            try:
                p.resolve(strict=True)
            except (OSError, RuntimeError):
                return f"{p} is a symbolic link that loops or points nowhere"
        if p.exists() and not p.is_dir():
            return f"{p} is a file, not a folder"
    return None


def folder_error(err: OSError, path: Path, folder: Path, cache: Path | None = None) -> OSError:
    """The error for ``path`` that cannot be written because ``folder`` cannot be a folder, naming the culprit.

    The same class as ``err`` (a :class:`FileExistsError` stays one), with its errno; the message names
    ``path`` (never a temporary file), the part of ``folder`` that is a file or a looping link, and, in the
    cache, ``MTLIB_CACHE`` as the remedy. ``err`` itself when nothing in ``folder`` is in the way.

    Example:
        >>> import tempfile
        >>> tmp = Path(tempfile.mkdtemp())
        >>> (tmp / "cache").write_text("not a folder")
        12
        >>> exists = FileExistsError(errno.EEXIST, "File exists")
        >>> e = folder_error(exists, tmp / "cache/x.npz", tmp / "cache", cache=tmp / "cache")
        >>> print(str(e).replace(str(tmp), "TMP").replace("; ", ";\\n"))
        [Errno 17] mtlib cache: cannot write TMP/cache/x.npz: TMP/cache is a file, not a folder;
        remove it, or set MTLIB_CACHE to a folder (e.g. export MTLIB_CACHE=/tmp/mtlib-cache)
    """
    why = _blocker(folder)
    if why is None:
        if err.errno != errno.EISDIR or not path.is_dir():
            return err
        why = f"{path} is a folder; expected a file there"
    what = f"use the folder {path}" if path == folder else f"write {path}"
    if cache is not None:
        message = (
            f"mtlib cache: cannot {what}: {why}; remove it, or set {CACHE_ENV} to a folder "
            f"(e.g. export {CACHE_ENV}=/tmp/mtlib-cache)"
        )
    else:
        message = f"cannot {what}: {why}; remove it or choose another folder"
    return type(err)(err.errno, message)


def cache_root(root: str | Path | None = None) -> Path:
    """The cache root folder: ``root`` when given, else ``$MTLIB_CACHE`` or ``~/.cache/mtlib`` (created when missing).

    Raises:
        OSError: the folder cannot be created (:class:`PermissionError` included), or it (or a folder
            above it) is a file or a symbolic link that loops; the message names the folder, the part in
            the way and ``MTLIB_CACHE`` as the remedy.
    """
    root = Path(root).expanduser() if root is not None else default_cache_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        if err.errno in _DISK_ERRNOS:
            raise cache_disk_error(err, root, root) from err
        if err.errno in _FOLDER_ERRNOS:
            raise folder_error(err, root, root, root) from err
        raise
    return root


def stable_hash(obj: Any, length: int = 32) -> str:
    """Hex SHA-256 of a JSON-serialisable object (sorted keys), truncated."""
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:length]


def input_key(item: Any) -> bytes:
    """The 16-byte key of one input (a text, a tuple of texts, a dict...)."""
    blob = item if isinstance(item, str) else json.dumps(item, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).digest()[:16]


def atomic_write_bytes(path: Path, data: bytes, *, cache_folder: Path | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    Args:
        path: The file to (re)write.
        data: Its new bytes.
        cache_folder: The cache folder ``path`` belongs to; ``None``: the cache root when ``path`` is
            inside it, else no cache (a run's output file).

    Raises:
        OSError: the write failed. Under a cache folder, a permission problem or a full disk
            (``ENOSPC``, ``EFBIG``, ``EDQUOT``, ``EROFS``) names that folder and ``MTLIB_CACHE`` as
            the remedy (:func:`cache_disk_error`). A file or a looping link where a folder of ``path``
            should be, or a folder at ``path`` itself, names ``path`` and what is in the way
            (:func:`folder_error`), never the temporary file.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as err:
        default = default_cache_dir()
        folder = cache_folder or (default if path.absolute().is_relative_to(default.absolute()) else None)
        if folder is not None and err.errno in _DISK_ERRNOS:
            raise cache_disk_error(err, path, folder) from err
        if err.errno in _FOLDER_ERRNOS:
            raise folder_error(err, path, path.parent, folder) from err
        raise


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's contents, read in 4 MB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def write_record(path: Path, record: dict[str, Any], files: dict[str, bytes] | None = None) -> None:
    """Write an entry's data files, then a JSON record holding their SHA-256 and its own, all atomically.

    Data files are content-addressed (``head.npz`` is stored as
    ``head.<digest>.npz``), so two processes writing the same entry at once
    never pair one's record with the other's file; the record is written
    last and marks the entry complete. :func:`read_record` checks every
    digest, so a damaged entry is never used.

    Args:
        path: The JSON record, e.g. ``<entry>/head.json``.
        record: JSON-serialisable contents.
        files: Data files of the entry by logical name (``"head.npz"``), in the same folder.
    """
    stored = {}
    for name, data in (files or {}).items():
        digest = sha256_hex(data)
        actual = addressed_name(name, digest)
        atomic_write_bytes(path.parent / actual, data)  # also over a damaged copy of the same name
        stored[name] = {"file": actual, "sha256": digest}
    body = {**record, "files": stored}
    body["record_sha256"] = stable_hash(body, 64)
    atomic_write_bytes(path, json.dumps(body, indent=1, default=str).encode())
    for name, entry in stored.items():  # earlier versions of the entry (e.g. one found damaged)
        stem, dot, suffix = name.rpartition(".")
        for old in path.parent.glob(f"{stem}.*.{suffix}" if dot else f"{name}.*"):
            try:  # not one a concurrent writer of the same entry has just written
                if old.name != entry["file"] and time.time() - old.stat().st_mtime > _KEEP_SECONDS:
                    old.unlink(missing_ok=True)
            except FileNotFoundError:
                pass


def addressed_name(name: str, digest: str) -> str:
    """The stored name of a data file: ``head.npz`` with digest ``ab12...`` is ``head.ab12....npz``."""
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}.{digest[:16]}.{suffix}" if dot else f"{name}.{digest[:16]}"


def record_file(folder: Path, record: dict[str, Any], name: str) -> Path:
    """Where the data file ``name`` (e.g. ``"head.npz"``) of a record read by :func:`read_record` is."""
    return folder / record["files"][name]["file"]


def read_record(path: Path) -> dict[str, Any] | None:
    """A record written by :func:`write_record` whose digests all match; None when absent.

    A damaged record or data file is reported with a warning and the entry
    treated as missing (the caller recomputes and overwrites it). A file that
    disappears while being read (another process replacing the entry) is a
    miss, not damage.
    """
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        _damaged(path, f"unreadable record: {err}")
        return None
    if not isinstance(body, dict) or "record_sha256" not in body or not isinstance(body.get("files"), dict):
        _damaged(path, "record without checksums (an older format)")
        return None
    claimed = body.pop("record_sha256")
    if stable_hash(body, 64) != claimed:
        _damaged(path, "record checksum mismatch")
        return None
    for name, entry in body["files"].items():
        try:
            actual = file_sha256(path.parent / entry["file"])
        except FileNotFoundError:
            if path.exists() and read_record_digest(path) != claimed:
                return None  # replaced by another process meanwhile: a miss
            _damaged(path, f"{name} is missing")
            return None
        if actual != entry["sha256"]:
            _damaged(path, f"checksum mismatch in {name}")
            return None
    return body


def read_record_digest(path: Path) -> str | None:
    """The ``record_sha256`` of a record file now (None if unreadable)."""
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("record_sha256")
    except (OSError, ValueError, AttributeError):
        return None


def _damaged(path: Path, why: str) -> None:
    warnings.warn(f"mtlib cache: damaged entry {path.parent} ({why}); it is recomputed", stacklevel=3)


def _checksum(keys: np.ndarray, values: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(keys).tobytes())
    h.update(str(values.shape).encode())
    h.update(np.ascontiguousarray(values).tobytes())
    return h.hexdigest()


class ArrayCache:
    """A namespace of cached vectors: ``input key -> float32 vector of width d``.

    Args:
        namespace: Parts that identify what produced the vectors, e.g.
            ``("minilm@3f2a...", "embed")`` or ``(model_id, "hidden", 5)``.
            They become a readable, hashed folder name.
        root: Cache root; defaults to :func:`cache_root`.

    The whole namespace is read into memory on first use (a dict of key to
    row), so lookups of many inputs are cheap.
    """

    def __init__(self, namespace: Sequence[Any], root: Path | None = None) -> None:
        parts = [str(p) for p in namespace]
        readable = "-".join(p.replace("/", "_")[:40] for p in parts)[:120]
        self.folder = (root or cache_root()) / f"{readable}-{stable_hash(parts, 12)}"
        self.namespace = tuple(parts)  # what produced the vectors, for the run's manifest
        self._index: dict[bytes, tuple[int, int]] | None = None
        self._shards: list[np.ndarray] = []
        self._files: list[Path] = []

    # -- reading -----------------------------------------------------------
    def _load(self) -> None:
        for _attempt in range(5):
            if self._load_once():
                return
        # the folder kept changing under us (others compacting): what was read is still correct

    def _load_once(self) -> bool:
        """Read every shard; False when one vanished meanwhile (another process compacted it away)."""
        self._index, self._shards, self._files = {}, [], []
        if not self.folder.exists():
            return True
        complete = True
        for path in sorted(self.folder.glob("shard-*.npz")):
            loaded = self._read_shard(path)
            if loaded is None:
                continue
            if isinstance(loaded, _Vanished):
                complete = False  # its rows are in the compacted shard that replaced it: list again
                continue
            keys, values = loaded
            shard_id = len(self._shards)
            self._shards.append(values)
            self._files.append(path)
            for row, key in enumerate(keys):
                self._index[bytes(key)] = (shard_id, row)
        return complete

    @staticmethod
    def _read_shard(path: Path) -> tuple[np.ndarray, np.ndarray] | _Vanished | None:
        """``(keys, values)``; None for a damaged shard (warned and removed); ``_VANISHED`` if it is gone."""
        try:
            with np.load(path, allow_pickle=False) as data:
                keys, values, checksum = data["keys"], data["values"], str(data["checksum"])
            if keys.ndim != 2 or keys.shape[1] != 16 or len(keys) != len(values):
                raise ValueError(f"inconsistent shapes keys={keys.shape} values={values.shape}")
            if _checksum(keys, values) != checksum:
                raise ValueError("checksum mismatch")
            return keys, values
        except FileNotFoundError:
            return _VANISHED
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as err:
            if path.is_dir():  # not ours to remove: left alone, its rows recomputed into a shard of their own
                warnings.warn(f"mtlib cache: {path} is a folder, not a cache file; it is skipped", stacklevel=2)
                return None
            warnings.warn(f"mtlib cache: damaged entry {path} ({err}); it is removed and recomputed", stacklevel=2)
            path.unlink(missing_ok=True)
            return None

    def __len__(self) -> int:
        if self._index is None:
            self._load()
        return len(self._index or {})

    def get_many(self, keys: Sequence[bytes]) -> tuple[list[np.ndarray | None], list[int]]:
        """Look up keys.

        Returns:
            ``(found, missing)``: ``found[i]`` is the cached vector or ``None``;
            ``missing`` the positions of the keys not in the cache.
        """
        if self._index is None:
            self._load()
        assert self._index is not None
        found: list[np.ndarray | None] = []
        missing: list[int] = []
        for pos, key in enumerate(keys):
            hit = self._index.get(key)
            if hit is None:
                found.append(None)
                missing.append(pos)
            else:
                found.append(self._shards[hit[0]][hit[1]])
        return found, missing

    # -- writing -----------------------------------------------------------
    def put_many(self, keys: Sequence[bytes], values: np.ndarray) -> None:
        """Store rows of ``values`` (shape ``(len(keys), d)``) under ``keys``."""
        if len(keys) == 0:
            return
        if self._index is None:
            self._load()
        assert self._index is not None
        key_arr = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 16)
        values = np.ascontiguousarray(values, dtype=np.float32)
        path = self.folder / f"shard-{uuid.uuid4().hex}.npz"
        self._write_shard(path, key_arr, values)
        shard_id = len(self._shards)
        self._shards.append(values)
        self._files.append(path)
        for row, key in enumerate(keys):
            self._index[key] = (shard_id, row)
        if len(self._files) > _COMPACT_AFTER:
            self.compact()

    @staticmethod
    def _write_shard(path: Path, keys: np.ndarray, values: np.ndarray) -> None:
        buf = io.BytesIO()
        np.savez(buf, keys=keys, values=values, checksum=np.array(_checksum(keys, values)))
        atomic_write_bytes(path, buf.getvalue(), cache_folder=path.parent.parent)

    def compact(self) -> None:
        """Merge all shards of the namespace into one (atomic: new file first)."""
        if self._index is None:
            self._load()
        assert self._index is not None
        if len(self._files) <= 1:
            return
        keys = list(self._index)
        values = np.stack([self._shards[s][r] for s, r in self._index.values()])
        old = list(self._files)
        path = self.folder / f"shard-{uuid.uuid4().hex}.npz"
        key_arr = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 16)
        self._write_shard(path, key_arr, values)
        for f in old:
            f.unlink(missing_ok=True)
        self._load()

    def clear(self) -> None:
        """Delete every entry of this namespace."""
        for f in self.folder.glob("shard-*.npz"):
            f.unlink(missing_ok=True)
        self._index = None


#: Uncached inputs are computed and stored this many at a time, so an
#: interrupted run keeps every finished chunk.
CHUNK_SIZE = 4096


def _compute_chunk(compute: Callable[[list[Any]], np.ndarray], part: list[Any], bar: Any) -> np.ndarray:
    """``compute(part)``, advancing ``bar`` by every batch it reports, then by what it left unreported.

    The bar never moves by more than ``len(part)`` for the chunk, however ``compute`` reports.
    """
    if bar is None:
        return compute(part)
    credited = 0

    def advance(n: int) -> None:
        nonlocal credited
        step = max(0, min(n, len(part) - credited))
        if step:
            credited += step
            bar.update(step)

    with progress_sink(advance):
        rows = compute(part)
    advance(len(part) - credited)
    return rows


def cached_rows(
    cache: ArrayCache | None,
    items: Sequence[Any],
    compute: Callable[[list[Any]], np.ndarray],
    *,
    desc: str = "inference",
    chunk_size: int = CHUNK_SIZE,
) -> np.ndarray:
    """Rows for ``items``, computing only the unique ones the cache lacks.

    Missing inputs are computed in chunks of ``chunk_size``, each stored as
    soon as it is done: interrupting a long run and starting it again
    recomputes at most one chunk. A progress bar covers long work; it
    advances per batch when ``compute`` reports its batches
    (:func:`~mtlib.utils.batching.run_batched` does, through
    :func:`~mtlib.utils.batching.progress_sink`), else per chunk. Chunks, and
    so the stored entries and their keys, do not depend on the bar.

    Args:
        cache: The namespace to read and fill; ``None`` disables caching (each
            unique item is still computed once).
        items: Inputs, possibly repeated. Each must be a string or a
            JSON-serialisable object (it is hashed into the key).
        compute: Maps a list of unique, uncached inputs to an array of shape
            ``(len(inputs), d)``.
        desc: Progress-bar label.
        chunk_size: Inputs computed and stored together.

    Returns:
        float32 array of shape ``(len(items), d)`` in the order of ``items``;
        shape ``(0, 0)`` when ``items`` is empty.
    """
    if len(items) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    keys = [input_key(it) for it in items]
    first: dict[bytes, int] = {}
    for pos, key in enumerate(keys):
        first.setdefault(key, pos)
    unique_keys = list(first)
    unique_items = [items[first[k]] for k in unique_keys]
    if cache is not None:
        found, missing = cache.get_many(unique_keys)
    else:
        found, missing = [None] * len(unique_keys), list(range(len(unique_keys)))
    count_cache(cache.namespace if cache is not None else None, len(unique_keys) - len(missing), len(missing), desc)
    bar = progress_bar(len(missing), desc)
    try:
        for start in range(0, len(missing), chunk_size):
            part = missing[start : start + chunk_size]
            fresh = np.asarray(_compute_chunk(compute, [unique_items[m] for m in part], bar), dtype=np.float32)
            if fresh.ndim != 2 or len(fresh) != len(part):
                raise ValueError(f"compute returned shape {fresh.shape}, expected ({len(part)}, d)")
            for m, row in zip(part, fresh):
                found[m] = row
            if cache is not None:
                cache.put_many([unique_keys[m] for m in part], fresh)
    finally:
        if bar is not None:
            bar.close()
    table = np.stack(cast(list[np.ndarray], found))  # every row is filled by now
    where = {k: i for i, k in enumerate(unique_keys)}
    return table[[where[k] for k in keys]]


__all__ = ["cache_root", "stable_hash", "ArrayCache", "cached_rows"]
