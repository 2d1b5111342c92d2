"""``python -m mtlib.paired A B``: see :mod:`mtlib.paired.cli`."""

import sys

from mtlib.paired.cli import main

sys.exit(main())
