"""``python -m mtlib.suite``: run a saved suite in CI (see :mod:`mtlib.suite.cli`)."""

import sys

from mtlib.suite.cli import main

sys.exit(main())
