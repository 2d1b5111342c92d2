"""``python -m mtlib.run``: run the notebooks (see :mod:`mtlib.run.cli`)."""

import sys

from mtlib.run.cli import main

sys.exit(main())
