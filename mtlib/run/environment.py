"""The code, software and machine a run ran on: three sections of its manifest.

Intuition: two runs of one notebook that disagree differ in something, and
most of what can differ is a fact about the process that ran it: the commit
and any uncommitted change (:func:`code_record`), the Python and package
versions and the BLAS libraries loaded (:func:`environment_record`), the CPU,
its instruction sets and the kernel set chosen by ``ATEN_CPU_CAPABILITY`` and
friends, threads, device and precision (:func:`machine_record`).
:mod:`mtlib.run.manifest` puts them in ``manifest.json``.

Everything is read locally (``/proc/cpuinfo``, ``git``, package metadata);
nothing is sent anywhere. Nothing personal is kept: no host or user name, and
no path (a BLAS library is named by its file name only). What cannot change
within a process (the commit, the CPU, the package versions) is read once and
memoised; what can (threads, the libraries torch loads) is read each time.
Nothing here imports torch: its kernel set and threads are read only when the
process has loaded it (a notebook that never did ran no torch kernel).
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import re
import subprocess
import sys
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

__all__ = [
    "CODE_ROOT",
    "KERNEL_VARS",
    "PACKAGES",
    "THREAD_VARS",
    "blas_libraries",
    "code_record",
    "cpu_description",
    "environment_record",
    "machine_record",
    "package_versions",
    "source_digest",
]

#: The folder holding the ``mtlib`` package that is running (a checkout's root, or site-packages).
CODE_ROOT = Path(__file__).resolve().parents[2]
#: The packages whose versions a manifest records (issue 38's list).
PACKAGES = (
    "torch",
    "transformers",
    "sentence-transformers",
    "numpy",
    "scipy",
    "scikit-learn",
    "pandas",
    "gensim",
    "onnxruntime",
    "papermill",
)
#: Variables that choose a CPU kernel set (the last bits of a float32 encoder depend on it).
KERNEL_VARS = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR", "OPENBLAS_CORETYPE")
#: Variables that set thread pools and how their threads wait.
THREAD_VARS = (
    "MTLIB_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "OMP_WAIT_POLICY",
    "KMP_BLOCKTIME",
)
#: CPU flags that name an instruction-set extension (x86 ``flags``, ARM ``Features``); the rest are left out.
_ISA_FLAG = re.compile(
    r"^(sse\d?|ssse3|sse4_[12a]|sse4a|avx\w*|fma\d?|f16c|amx\w*|bmi\d|popcnt|aes|vaes|vpclmulqdq|sha_ni|gfni|xop"
    r"|asimd\w*|neon|sve\w*|sme(?!p$)\w*|fphp|bf16|i8mm|dotprod)$"
)
_GIT_TIMEOUT = 10.0


def _git(args: list[str], root: Path) -> bytes | None:
    """``git -C root ARGS`` output, or None (no git, not a repository, an error)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def source_digest(root: Path = CODE_ROOT) -> str | None:
    """SHA-256 over the ``mtlib`` package's ``.py`` files (relative path and bytes of each, in path order).

    Tells two runs' code apart without git (an installed package, a copied folder). None without the package.
    """
    package = root / "mtlib"
    if not package.is_dir():
        return None
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def _diff_digest(root: Path) -> str:
    """SHA-256 of ``git diff HEAD`` (binary) and of every untracked, not ignored file (name and bytes)."""
    h = hashlib.sha256(_git(["diff", "HEAD", "--binary", "--no-ext-diff"], root) or b"")
    untracked = (_git(["ls-files", "--others", "--exclude-standard", "-z"], root) or b"").split(b"\0")
    for name in sorted(n for n in untracked if n):
        h.update(b"\0untracked\0" + name + b"\0")
        try:
            h.update((root / os.fsdecode(name)).read_bytes())
        except OSError:
            h.update(b"(unreadable)")
    return h.hexdigest()


@functools.lru_cache(maxsize=8)
def code_record(root: Path = CODE_ROOT) -> dict[str, Any]:
    """The code a run used.

    Returns:
        ``commit`` (``git rev-parse HEAD``, None outside a git checkout), ``dirty`` (uncommitted changes
        or untracked files, None without git), ``diff_sha256`` (digest of those changes, None when clean),
        ``mtlib_version`` (the installed distribution's, else None) and ``source_sha256``
        (:func:`source_digest`, the same with or without git).
    """
    commit = _git(["rev-parse", "HEAD"], root)
    status = _git(["status", "--porcelain", "--untracked-files=normal"], root) if commit else None
    dirty = None if status is None else bool(status.strip())
    try:
        mtlib_version: str | None = version("mtlib")
    except PackageNotFoundError:
        mtlib_version = None
    return {
        "commit": commit.decode().strip() if commit else None,
        "dirty": dirty,
        "diff_sha256": _diff_digest(root) if dirty else None,
        "mtlib_version": mtlib_version,
        "source_sha256": source_digest(root),
    }


@functools.lru_cache(maxsize=1)
def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each package (None when it is not installed)."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


#: threadpoolctl's controller and the number of modules loaded when it looked for libraries.
_CONTROLLER: list[Any] = [None, -1]


def blas_libraries() -> list[dict[str, Any]]:
    """The BLAS and OpenMP libraries this process has loaded, with their threads now (threadpoolctl).

    Each: ``library`` (file name only), ``api``, ``internal_api``, ``version``, ``threads``,
    ``threading_layer`` and ``architecture`` where the library reports them. Empty without threadpoolctl.
    Finding the libraries (most of the cost) is done again only when a module was imported since; the
    thread counts are read each time.
    """
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return []
    if _CONTROLLER[0] is None or _CONTROLLER[1] != len(sys.modules):
        _CONTROLLER[:] = [ThreadpoolController(), len(sys.modules)]
    out = []
    for info in _CONTROLLER[0].info():
        out.append(
            {
                "library": Path(str(info.get("filepath", ""))).name,
                "api": info.get("user_api"),
                "internal_api": info.get("internal_api"),
                "version": info.get("version"),
                "threads": info.get("num_threads"),
                "threading_layer": info.get("threading_layer"),
                "architecture": info.get("architecture"),
            }
        )
    return sorted(out, key=lambda e: (str(e["api"]), str(e["internal_api"]), e["library"]))


def environment_record() -> dict[str, Any]:
    """Python, the versions of :data:`PACKAGES` and the loaded BLAS libraries (:func:`blas_libraries`)."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "packages": dict(package_versions()),
        "blas": blas_libraries(),
    }


def _cpuinfo_fields(lines: Iterable[str]) -> tuple[str | None, list[str]]:
    """(CPU model, instruction-set flags) from the lines of ``/proc/cpuinfo`` (first processor's).

    >>> _cpuinfo_fields(["model name\\t: Example CPU @ 2.0GHz", "flags\\t: fpu sse4_2 avx2 avx512f ht"])
    ('Example CPU @ 2.0GHz', ['avx2', 'avx512f', 'sse4_2'])
    """
    model, flags = None, None
    for line in lines:
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if model is None and key in ("model name", "hardware", "cpu model"):
            model = value.strip()
        elif flags is None and key in ("flags", "features"):
            flags = sorted({f for f in value.split() if _ISA_FLAG.match(f)})
        if model is not None and flags is not None:
            break
    return model, flags or []


@functools.lru_cache(maxsize=1)
def cpu_description() -> dict[str, Any]:
    """``cpu`` (model name), ``cpu_flags`` (instruction-set extensions), ``cores``, ``system``, ``arch``."""
    model: str | None = None
    flags: list[str] = []
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            model, flags = _cpuinfo_fields(fh)
    except OSError:
        pass
    return {
        "system": platform.system(),
        "arch": platform.machine(),
        "cpu": model or platform.processor() or None,
        "cpu_flags": flags,
        "cores": os.cpu_count(),
    }


def _torch_state() -> dict[str, Any]:
    """torch's detected CPU capability, threads, CUDA version and GPU name, when the process loaded torch."""
    torch = sys.modules.get("torch")
    if torch is None:
        return {"torch_cpu_capability": None, "torch_threads": None, "cuda": None, "gpu": None}
    try:
        capability = torch.backends.cpu.get_cpu_capability()
    except Exception:  # an older torch without it
        capability = None
    gpu = None
    try:
        if torch.cuda.is_available():
            gpu = torch.cuda.get_device_name(torch.cuda.current_device())
    except Exception:  # a broken driver reads as no GPU here, as it does for the models
        gpu = None
    return {
        "torch_cpu_capability": capability,
        "torch_threads": int(torch.get_num_threads()),
        "cuda": getattr(torch.version, "cuda", None),
        "gpu": gpu,
    }


def machine_record(devices: Iterable[str] = (), precisions: Iterable[Any] = ()) -> dict[str, Any]:
    """The machine: CPU and instruction sets, kernel-set and thread variables, torch's view, device, precision.

    Args:
        devices: The devices the run's models ran on (``"cpu"``, ``"cuda"``...); none: ``"cpu"``.
        precisions: Their precisions (``model.precision``; None entries are dropped).

    Returns:
        :func:`cpu_description` plus ``kernel_env`` (:data:`KERNEL_VARS`, None when unset), ``threads``
        (:data:`THREAD_VARS`, None when unset), ``wait_policy``,
        ``torch_cpu_capability``, ``torch_threads``, ``device``, ``gpu``, ``cuda`` and ``precision``
        (one value, a sorted list when the models differ, None when no model says).
    """
    torch_state = _torch_state()
    used = sorted({str(d).split(":")[0] for d in devices if d}) or ["cpu"]
    kinds = sorted({str(p) for p in precisions if p is not None})
    threads = {v: os.environ.get(v) for v in THREAD_VARS}
    return {
        **cpu_description(),
        "kernel_env": {v: os.environ.get(v) for v in KERNEL_VARS},
        "torch_cpu_capability": torch_state["torch_cpu_capability"],
        "threads": threads,
        "torch_threads": torch_state["torch_threads"],
        "wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "device": used[0] if len(used) == 1 else used,
        "gpu": torch_state["gpu"] if any(d != "cpu" for d in used) else None,
        "cuda": torch_state["cuda"],
        "precision": (kinds[0] if len(kinds) == 1 else kinds) if kinds else None,
    }
