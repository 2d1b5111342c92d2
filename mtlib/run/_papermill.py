"""``python -m mtlib.run._papermill``: papermill's command line, started without an unused import.

The runner starts one such process per notebook (:func:`mtlib.run.jobs._execute`);
see :mod:`mtlib.run._startup` for what is skipped and why, and for the line
this process prints when the notebook's kernel ends by a signal (papermill
itself only says "Kernel died").
"""

from mtlib.run._startup import report_kernel_exit, skip_unused_imports

skip_unused_imports()

from papermill.cli import papermill  # noqa: E402

if __name__ == "__main__":
    report_kernel_exit()
    papermill(prog_name="papermill")
