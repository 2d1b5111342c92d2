"""Python commands of the tests run in a child forked from a warm process: the heavy imports made once per worker.

Intuition: a notebook run as a script (``python -m mtrun.script nb.ipynb --profile smoke``) spends about 7.6 s
of CPU importing torch, transformers, scikit-learn, pandas and matplotlib before its first cell runs, and the
tests run about twenty such commands (a researcher's edit, a notebook with a causal LM, a refused contract).
:func:`run_python` gives each command to a server process (one per pytest worker, started on first use) that
imported those packages once; the server forks, and the child sets the command's environment, folder,
``sys.argv`` and standard streams, runs it as ``python`` would (``-m module`` or ``-c code``) and exits with its
status. The child's namespace is fresh (``runpy`` as ``__main__``); only the modules are already imported.

A command whose environment differs from the server's in a variable read when a package is imported (threads,
CPU kernels, ``PYTHONPATH``, offline flags; :data:`AT_IMPORT`) runs in a fresh interpreter instead, as does
every command when ``MTLIB_TEST_WARM=0``. The result is a :class:`subprocess.CompletedProcess` either way.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["AT_IMPORT", "run_python"]

#: Variables read when the server's packages are imported (or at interpreter start): a command whose value of one
#: differs from the server's runs in a fresh interpreter.
AT_IMPORT = (
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "ATEN_CPU_CAPABILITY",
    "MKL_ENABLE_INSTRUCTIONS",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "HF_HOME",
    "MPLBACKEND",
    "MTLIB_TEST_OPENED",
)
#: What the server imports before it forks: what a smoke notebook's first cells import.
WARM_IMPORTS = (
    "numpy",
    "pandas",
    "scipy.stats",
    "sklearn.linear_model",
    "sklearn.model_selection",
    "sklearn.metrics",
    "matplotlib.pyplot",
    "torch",
    "transformers",
    "transformers.models.bert.modeling_bert",
    "transformers.models.llama.modeling_llama",
    "sentence_transformers",
    "mtlib.models",
    "mtlib.relations",
    "mtlib.analysis",
    "mtlib.data",
    "mtlib.experiments",
    "mtlib.run",
    "mtrun.script",
)


class _Server:
    """One warm process: requests as JSON lines on its stdin, ``{"pid": …}`` then ``{"returncode": …}`` back."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.warm", "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self.env,
            cwd=str(Path(__file__).resolve().parents[1]),
        )
        self._buffer = b""
        ready = self._line(None)
        if json.loads(ready or "{}").get("ready") is not True:
            raise RuntimeError(f"tests.warm: the warm server did not start (it said {ready!r})")

    def _line(self, timeout: float | None) -> str | None:
        """The server's next line, read from its pipe unbuffered (None: nothing within ``timeout`` seconds)."""
        assert self.proc.stdout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError(f"tests.warm: the warm server exited ({self.proc.wait()})")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def fits(self, env: Mapping[str, str]) -> bool:
        return self.proc.poll() is None and _same_imports(env, self.env)

    def run(self, argv: Sequence[str], env: Mapping[str, str], cwd: str, timeout: float | None) -> tuple[int, str, str]:
        assert self.proc.stdin
        with tempfile.TemporaryDirectory(prefix="mtlib-warm-") as tmp:
            out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
            request = {"argv": list(argv), "env": dict(env), "cwd": cwd, "stdout": out, "stderr": err}
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
            pid = json.loads(self._line(None) or "{}")["pid"]
            done = self._line(timeout)
            if done is None:  # past its timeout: kill it and what it started, as subprocess.run does
                os.killpg(pid, signal.SIGKILL)
                self._line(None)
                raise subprocess.TimeoutExpired(["python", *argv], timeout or 0)
            return json.loads(done)["returncode"], _read(out), _read(err)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def _same_imports(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Whether two environments import alike: equal :data:`AT_IMPORT` values (the tests build ``PYTHONPATH`` with
    each folder once, ``tests/conftest.py`` and ``tests.smoke_runs.first_on_path``)."""
    return all(a.get(k) == b.get(k) for k in AT_IMPORT)


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


_SERVER: list[_Server] = []


def run_python(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python ARGS``, forked from this worker's warm process (a fresh interpreter where it would differ).

    Args:
        args: What follows ``python`` on the command line: ``-m module …``, ``-c code …`` or ``script.py …``.
        env: The command's whole environment (None: this process's).
        cwd: Its working folder (None: this process's).
        timeout: Seconds before it is killed, raising :class:`subprocess.TimeoutExpired`.

    Returns:
        The exit status, stdout and stderr (text), as ``subprocess.run(..., capture_output=True, text=True)``.
    """
    env = dict(os.environ if env is None else env)
    cwd = str(cwd if cwd is not None else os.getcwd())
    here = dict(os.environ)  # a server is this worker's: its environment at start
    warm = os.environ.get("MTLIB_TEST_WARM") != "0" and bool(args) and (args[0] in ("-m", "-c") or args[0][:1] != "-")
    if not warm or not _same_imports(env, here):  # a fresh interpreter
        return subprocess.run(
            [sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
        )
    if not _SERVER or not _SERVER[0].fits(env):
        if _SERVER:
            _SERVER.pop().close()
        _SERVER.append(_Server(here))
        atexit.register(_SERVER[0].close)
    code, out, err = _SERVER[0].run(args, env, cwd, timeout)
    return subprocess.CompletedProcess([sys.executable, *args], code, out, err)


# --- the server side ------------------------------------------------------------------------------------------


def _serve() -> None:
    import importlib

    for name in WARM_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:  # a light install: the command imports what it needs itself
            pass
    reply = os.fdopen(os.dup(1), "w")
    reply.write(json.dumps({"ready": True}) + "\n")
    reply.flush()
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)  # never returns
        reply.write(json.dumps({"pid": pid}) + "\n")
        reply.flush()
        _, status = os.waitpid(pid, 0)
        reply.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}) + "\n")
        reply.flush()


def _child(request: dict) -> None:
    code = 1
    try:
        os.setpgid(0, 0)  # its own process group: a timeout kills it and what it started
        for fd, path, mode in ((0, os.devnull, os.O_RDONLY), (1, request["stdout"], 0), (2, request["stderr"], 0)):
            os.dup2(os.open(path, mode or os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False, buffering=1)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        code = _run_as_python(request["argv"])
    except BaseException:  # noqa: BLE001 - the child reports what went wrong, as python would
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _run_as_python(argv: list[str]) -> int:
    """``python ARGV`` in this process: ``-m module args``, ``-c code args`` or ``script args``; the exit status."""
    import runpy

    flag, target, rest = (argv[0], argv[1], argv[2:]) if argv[0] in ("-m", "-c") else ("", argv[0], argv[1:])
    try:
        if not flag:
            sys.argv = [target, *rest]
            sys.path[0] = os.path.dirname(os.path.abspath(target))
            runpy.run_path(target, run_name="__main__")
        elif flag == "-m":
            sys.argv = [target, *rest]
            sys.path[0] = os.getcwd()
            sys.modules.pop(target, None)  # imported by the server: run afresh as __main__ (runpy would warn)
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.argv = ["-c", *rest]
            sys.path[0] = ""
            exec(compile(target, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        print(e.code, file=sys.stderr)
        return 1
    except BaseException:  # noqa: BLE001
        import traceback

        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    _serve()
