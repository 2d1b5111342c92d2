"""``python -m mtrun._papermill``: papermill's command line, started without an unused import.

The runner starts one such process per notebook (:func:`mtrun.jobs._execute`);
see :mod:`mtrun._startup` for what is skipped and why, and for the line
this process prints when the notebook's kernel ends by a signal (papermill
itself only says "Kernel died").
"""

from mtrun._startup import report_kernel_exit, skip_unused_imports

skip_unused_imports()

from papermill.cli import papermill  # noqa: E402

if __name__ == "__main__":
    report_kernel_exit()
    papermill(prog_name="papermill")
