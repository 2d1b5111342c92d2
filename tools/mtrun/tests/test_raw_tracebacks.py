"""The runner's files and connections that raised raw tracebacks: each now names the file and what was expected."""

from __future__ import annotations

import socket
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from mtlib.utils.cache import ArrayCache, cached_rows
from mtrun import expected, profiles

DEEP = "notebooks:\n  '01':\n    n_boot: " + "[" * 5000 + "]" * 5000 + "\n"


def test_expected_yaml_not_utf8_a_folder_or_too_deep(tmp_path: Path) -> None:
    latin = tmp_path / "latin.yaml"
    latin.write_bytes('"01":\n  t:\n    exact:\n      caf\xe9: {value: 1}\n'.encode("latin-1"))
    with pytest.raises(expected.ExpectedFormatError, match=r"latin.yaml, line 4: not UTF-8"):
        expected.load(latin)
    (tmp_path / "folder.yaml").mkdir()
    with pytest.raises(expected.ExpectedFormatError, match=r"folder.yaml, line 0: cannot read it"):
        expected.load(tmp_path / "folder.yaml")
    (tmp_path / "deep.yaml").write_text(DEEP)
    with pytest.raises(expected.ExpectedFormatError, match="nested too deeply"):
        expected.load(tmp_path / "deep.yaml")


def test_a_profile_nested_thousands_deep_names_its_file(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text(DEEP)
    with pytest.raises(SystemExit, match=r"deep.yaml: nested too deeply"):
        profiles.load_profile(tmp_path, str(tmp_path / "deep.yaml"))


def test_a_folder_where_a_cache_shard_belongs_is_skipped(tmp_path: Path) -> None:
    def rows(texts: list[str]) -> np.ndarray:
        return np.arange(len(texts) * 3, dtype=np.float32).reshape(-1, 3) + len(texts[0])

    texts = [f"sentence {i}" for i in range(12)]
    first = cached_rows(ArrayCache(("t", "folder"), root=tmp_path), texts, rows)
    shard = next(ArrayCache(("t", "folder"), root=tmp_path).folder.glob("shard-*.npz"))
    shard.unlink()
    shard.mkdir()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        again = cached_rows(ArrayCache(("t", "folder"), root=tmp_path), texts, rows)
    np.testing.assert_array_equal(again, first)
    assert shard.is_dir() and any("is a folder, not a cache file" in str(w.message) for w in said)


def test_a_scheduler_that_echoes_is_refused_without_a_late_traceback(capfd: pytest.CaptureFixture) -> None:
    pytest.importorskip("distributed")
    import gc

    from mtrun.dask_executor import connect

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)

    def echo(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(4096):
                conn.sendall(data)

    def serve() -> None:
        while True:
            threading.Thread(target=echo, args=(server.accept()[0],), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    with pytest.raises(SystemExit, match="did not answer as a Dask scheduler"):
        connect(f"tcp://127.0.0.1:{server.getsockname()[1]}", timeout=2.0)
    gc.collect()
    assert "Exception ignored" not in capfd.readouterr().err


def test_an_override_nested_thousands_deep_is_refused() -> None:
    with pytest.raises(SystemExit, match="nested too deeply"):
        profiles.apply_overrides({"defaults": {}, "notebooks": {}}, ["01.n_boot=" + "[" * 3000 + "]" * 3000])
