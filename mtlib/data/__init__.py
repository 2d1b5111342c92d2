"""Loaders, one module per dataset family; each reads the bundled file and the real one.

- :mod:`mtlib.data.sst`: SST sentence files (``stsa.binary.*``, ``stsa.fine.*``, our
  ``reviews.txt``) and SST PTB trees.
- :mod:`mtlib.data.monotonicity`: NLI-XY contexts and insertions.
- :mod:`mtlib.data.cogalex`: CogALex-V and CogALex-VI lexical relations.
- :mod:`mtlib.data.adjectives`: the Montague adjective and noun lists.

Every loader reads text through :func:`mtlib.data.tsv.text_lines` (UTF-8,
byte-order mark dropped, line numbers) and rejects malformed input with
:class:`DataFormatError`, which names the file, the line and what was
expected: another encoding, an empty or header-only file, a cut row.
"""

from mtlib.data.errors import DataFormatError, data_dir

__all__ = ["DataFormatError", "data_dir"]
