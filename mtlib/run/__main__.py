"""``python -m mtlib.run``: run the notebooks (see :mod:`mtlib.run.cli`)."""

import sys

from mtlib.run._startup import skip_unused_imports

skip_unused_imports()

from mtlib.run.cli import main  # noqa: E402

sys.exit(main())
