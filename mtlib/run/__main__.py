"""``python -m mtlib.run``: the runner moved to the tool ``mtrun``; this alias starts it, for one release.

The runner is not part of mtlib (``tools/mtrun/``, installed by ``make install``), so this module does not
import it: it says where the runner went and replaces this process with ``python -m mtrun`` and the same
arguments, so exit codes, signals and output are the runner's own. Without the tool it says how to install it.
"""

import importlib.util
import os
import sys

print(
    "mtlib.run: the runner is now `python -m mtrun` (tools/mtrun); this alias goes in the next release", file=sys.stderr
)
if importlib.util.find_spec("mtrun") is None:  # finds the package without importing it
    print(
        "mtlib.run: the tool mtrun is not installed here: `make install`, or `pip install -e tools/mtrun` in the "
        "repository (it is not part of mtlib's wheel)",
        file=sys.stderr,
    )
    sys.exit(2)
sys.stderr.flush()
os.execv(sys.executable, [sys.executable, "-m", "mtrun", *sys.argv[1:]])
