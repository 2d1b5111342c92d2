"""What the runner's own processes skip at start-up: an import that no code in them uses.

jsonschema, which nbformat imports (and papermill and nbconvert import
nbformat), builds an RFC 3987 IRI grammar with lark when it is imported and
``rfc3987_syntax`` is installed (jupyter-events pulls it in for JupyterLab).
That takes about 1.1 s of CPU in every process, and the runner starts one
papermill process per notebook. The grammar only serves jsonschema's ``iri``
format checker; nbformat passes no format checker and its schemas name no
format, so in the runner and its papermill processes the module is marked
absent and jsonschema goes on without that one checker. Nothing else changes;
a user's own interpreter (JupyterLab, a notebook kernel) is not touched.

:func:`report_kernel_exit` makes a papermill process say how the notebook's
kernel ended when it did not end cleanly: jupyter_client sees the kernel
process's exit status (``-15`` for SIGTERM) when it polls it, but papermill
only reports ``DeadKernelError: Kernel died``. The line it prints
(:data:`KERNEL_ENDED`) is read back by :func:`mtrun.jobs.exit_reason`.
"""

from __future__ import annotations

import signal
import sys
from typing import Any

UNUSED = ("rfc3987_syntax",)

#: The start of the line a papermill process prints when its kernel ended by a signal or with a non-zero
#: status, e.g. ``mtrun: the notebook's kernel ended: killed by SIGTERM (exit status -15)``.
KERNEL_ENDED = "mtrun: the notebook's kernel ended: "


def skip_unused_imports() -> None:
    """Mark :data:`UNUSED` as absent (an ``import`` of it raises ``ImportError``) unless already imported."""
    for name in UNUSED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def kernel_ending(status: int) -> str:
    """How a process with exit status ``status`` ended, in words (``killed by SIGTERM (exit status -15)``).

    Example:
        >>> kernel_ending(-9), kernel_ending(3)
        ('killed by SIGKILL (exit status -9)', 'exited with status 3')
    """
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"killed by {name} (exit status {status})"
    return f"exited with status {status}"


def report_kernel_exit() -> None:
    """Print :data:`KERNEL_ENDED` to standard error, once per kernel, when a kernel process ends unclean.

    Wraps jupyter_client's local provisioner's ``poll`` (what the kernel manager asks while a cell runs);
    nothing changes when jupyter_client is missing or laid out differently.
    """
    try:
        from jupyter_client.provisioning.local_provisioner import LocalProvisioner
    except ImportError:  # pragma: no cover - papermill needs jupyter_client
        return
    original = getattr(LocalProvisioner, "poll", None)
    if original is None or getattr(original, "_mtlib_reports", False):
        return
    said: set[int] = set()

    async def poll(self: Any) -> Any:
        status = await original(self)
        process = getattr(self, "process", None)
        if isinstance(status, int) and status != 0 and process is not None and process.pid not in said:
            said.add(process.pid)
            print(f"{KERNEL_ENDED}{kernel_ending(status)}", file=sys.stderr, flush=True)
        return status

    poll._mtlib_reports = True  # type: ignore[attr-defined]
    LocalProvisioner.poll = poll  # type: ignore[method-assign]
