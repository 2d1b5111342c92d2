"""``python -m mtrun``: run the notebooks (see :mod:`mtrun.cli`)."""

import sys

from mtrun._startup import skip_unused_imports

skip_unused_imports()

from mtrun.cli import main  # noqa: E402

sys.exit(main())
