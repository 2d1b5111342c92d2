"""Issue 36, unclear errors: cache and output folders that are files or symbolic link loops.

The error names the path the user would write (never a temporary file), the part of it in the way, and the
remedy (``MTLIB_CACHE`` in the cache); nothing is half-written.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest

from mtlib.utils.cache import ArrayCache, atomic_write_bytes, cache_root, input_key, write_record


@pytest.fixture
def loop(tmp_path: Path) -> Path:
    os.symlink(tmp_path / "loop-b", tmp_path / "loop-a")
    os.symlink(tmp_path / "loop-a", tmp_path / "loop-b")
    return tmp_path / "loop-a"


def test_a_cache_root_that_is_a_file(tmp_path, monkeypatch):
    (tmp_path / "cachefile").write_text("not a folder")
    for root in (tmp_path / "cachefile", tmp_path / "cachefile" / "sub"):
        monkeypatch.setenv("MTLIB_CACHE", str(root))
        with pytest.raises(OSError, match=rf"mtlib cache: cannot use the folder {root}: .*cachefile is a file") as err:
            cache_root()
        assert "MTLIB_CACHE" in str(err.value) and ".tmp-" not in str(err.value)


def test_a_cache_root_that_is_a_symlink_loop(tmp_path, monkeypatch, loop):
    for root in (loop, loop / "sub"):
        monkeypatch.setenv("MTLIB_CACHE", str(root))
        with pytest.raises(OSError, match=r"loop-a is a symbolic link that loops or points nowhere") as err:
            cache_root()
        assert "MTLIB_CACHE" in str(err.value)


def test_a_namespace_folder_that_is_a_file_or_a_loop(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "cache"))
    cache = ArrayCache(("ns", "file"))
    cache.folder.parent.mkdir(parents=True, exist_ok=True)
    cache.folder.write_text("x")
    with pytest.raises(FileExistsError, match=rf"cannot write {cache.folder}/shard-.*{cache.folder.name} is a file"):
        cache.put_many([input_key("a")], np.ones((1, 3)))
    looped = ArrayCache(("ns", "loop"))
    os.symlink(looped.folder, looped.folder)
    with pytest.raises(OSError, match="symbolic link that loops") as err:
        looped.put_many([input_key("a")], np.ones((1, 3)))
    assert ".tmp-" not in str(err.value)


def test_an_output_file_whose_folder_is_a_file_or_which_is_a_folder(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(FileExistsError, match=r"cannot write .*afile/metrics.json: .*afile is a file, not a folder"):
        atomic_write_bytes(tmp_path / "afile" / "metrics.json", b"{}")
    (tmp_path / "adir").mkdir()
    with pytest.raises(IsADirectoryError, match=r"cannot write .*adir: .*adir is a folder; expected a file") as err:
        atomic_write_bytes(tmp_path / "adir", b"{}")
    assert err.value.errno == errno.EISDIR and ".tmp-" not in str(err.value)
    assert [p.name for p in (tmp_path / "adir").iterdir()] == [] and not list(tmp_path.glob(".tmp-*"))
    with pytest.raises(FileExistsError, match="afile is a file"):
        write_record(tmp_path / "afile" / "head.json", {"a": 1}, {"head.npz": b"1"})


def test_an_ordinary_cache_still_works(tmp_path, monkeypatch):
    monkeypatch.setenv("MTLIB_CACHE", str(tmp_path / "new" / "cache"))
    cache = ArrayCache(("ns", "ok"))
    cache.put_many([input_key("a")], np.ones((1, 3)))
    assert len(ArrayCache(("ns", "ok"))) == 1 and cache_root() == tmp_path / "new" / "cache"
