"""Loaders, one module per dataset family; each reads the bundled file and the real one.

- :mod:`mtlib.data.sst`: SST sentence files (``stsa.binary.*``, ``stsa.fine.*``, our
  ``reviews.txt``) and SST PTB trees.
- :mod:`mtlib.data.monotonicity`: NLI-XY contexts and insertions.
- :mod:`mtlib.data.cogalex`: CogALex-V and CogALex-VI lexical relations.
- :mod:`mtlib.data.adjectives`: the Montague adjective and noun lists.
- :mod:`mtlib.data.sick`, :mod:`mtlib.data.yelp`: SICK pairs, Yelp sentences and reference pairs.
- :mod:`mtlib.data.med`: MED (monotonicity entailment pairs), extra NLI training data for notebook 02.
- :mod:`mtlib.data.trees`: PTB trees, Tree Impurity and Weighted Node Switching.
- :mod:`mtlib.data.papers`: the published values the notebooks compare with.

Every loader reads text through :func:`mtlib.data.tsv.text_lines` (UTF-8,
byte-order mark dropped, line numbers) and rejects malformed input with
:class:`DataFormatError`, which names the file, the line and what was
expected: another encoding, an empty or header-only file, a cut row.
"""

from mtlib.utils.faces import ALL, MODULE, Face

_face = Face(
    __name__,
    {
        "errors": ALL,
        "papers": [MODULE, ALL],
        "sample": [],
        "trees": [MODULE, ALL],
        "tsv": [],
        "adjectives": [],
        "cogalex": [],
        "monotonicity": [],
        "sick": [],
        "sst": [],
        "yelp": [MODULE, ALL],
        "seti_tasks": [MODULE, ALL],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
