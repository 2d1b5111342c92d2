"""``python -m mtlib.run``: the runner moved to the tool ``mtrun``; this alias starts it, for one release.

The runner is not part of mtlib (``tools/mtrun/``, installed by ``make install``), so this module does not
import it: it says where the runner went and replaces this process with ``python -m mtrun`` and the same
arguments, so exit codes, signals and output are the runner's own.
"""

import os
import sys

print(
    "mtlib.run: the runner is now `python -m mtrun` (tools/mtrun); this alias goes in the next release",
    file=sys.stderr,
    flush=True,
)
os.execv(sys.executable, [sys.executable, "-m", "mtrun", *sys.argv[1:]])
