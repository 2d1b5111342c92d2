"""Transformations T that make follow-up inputs: named, seeded, deterministic.

A metamorphic relation needs a transformation T from a source input x to a
follow-up x' = T(x). Each transformation here is a callable ``str -> str``
with a short ``name`` (for metric keys and tables), a one-line
``description`` (for tables and diagrams) and the relation it is expected to
keep: ``expected="same"`` (the score order or class is kept, e.g. a typo)
or ``"opposite"`` (it is reversed, e.g. negation).

A transformation that does not apply to an input (no auxiliary to negate, no
name to swap) raises :class:`NotApplicable`; the relation then skips the input
and counts it (``RelationResult.extra["skipped"]``), so an input is never
passed through unchanged without anyone knowing. Randomised transformations
(typos, swaps) draw from a generator seeded by ``(seed, text)``, so a text
gets the same follow-up whatever batch it comes in. ``t1 >> t2`` applies t1,
then t2.

Scripts (each class's docstring gives its rule; :mod:`~.scripts` holds the shared one): a letter is any
Unicode letter, and a listed word is matched whole in any script, as written in a script without spaces
between words (Chinese, Japanese, Thai). Typos: every spaced script; Chinese/Japanese/Thai refused naming the
script. Punctuation: every script's marks. Casing: scripts with case; Chinese, Arabic ... refused naming the
script. NameSwap, Synonyms, Contractions (your own table): any script; the default names are Latin-script,
the default contractions and Negation English (Negation names the script of a text without Latin letters).
NumberSwap: digits of any script, English number words only. Concatenation: any (no space between two
unspaced-script texts).

One module per family: :mod:`~.base` (the protocol, composition, functions),
:mod:`~.concatenation` (Manino et al. Table 1), :mod:`~.surface` (typos,
punctuation, case), :mod:`~.lexical` (contractions, names, numbers, synonyms),
:mod:`~.negation` and :mod:`~.scripts` (letters, words and scripts). A new
transformation is one dataclass in the module of its family (or a new module)
and its name in the face below.

Example::

    from mtlib.relations import transformations as T
    ts = [*T.manino_table1(), T.Typos("swap", seed=0), T.Negation()]
    ts[-1]("The film was good.")   # 'The film was not good.'
"""

from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "base": ALL,
        "concatenation": ALL,
        "surface": ALL,
        "lexical": ALL,
        "negation": ALL,
        "suites": ALL,
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
