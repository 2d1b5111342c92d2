"""Labelled constituency trees in Penn Treebank bracket notation (as in SST).

One tree type for every consumer: the SST loader (root label and sentence),
and later Tree Impurity, Weighted Node Switching and TRE. A tree is immutable;
leaves are pre-terminals ``(label word)``.

Example:
    >>> t = parse_tree("(3 (2 It) (4 (4 (2 's) (4 good)) (2 .)))")
    >>> t.label, t.sentence, t.height
    ('3', "It 's good .", 4)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# PTB trees separate tokens by ASCII whitespace only: a U+00A0 inside a leaf ("8\u00a01\/2" in SST's
# train.txt) belongs to the word, so ``\s`` (which matches it) must not be used here.
_TOKEN = re.compile(r"\(|\)|[^ \t\n\r\f\v()]+")


@dataclass(frozen=True)
class Tree:
    """A node: its label, its children, and for a pre-terminal its word.

    Attributes:
        label: Node label as written (SST: ``"0"``..``"4"``).
        children: Sub-trees, empty for a pre-terminal.
        word: The token of a pre-terminal, else ``None``.
    """

    label: str
    children: tuple[Tree, ...] = ()
    word: str | None = None

    @property
    def is_leaf(self) -> bool:
        """True for a pre-terminal ``(label word)``."""
        return self.word is not None

    def leaves(self) -> list[str]:
        """The words, left to right."""
        if self.word is not None:
            return [self.word]
        return [w for c in self.children for w in c.leaves()]

    @property
    def sentence(self) -> str:
        """Words joined by single spaces."""
        return " ".join(self.leaves())

    @property
    def height(self) -> int:
        """Edges on the longest root-to-word path (a pre-terminal has height 1)."""
        if self.word is not None:
            return 1
        return 1 + max(c.height for c in self.children)

    def subtrees(self) -> Iterator[Tree]:
        """Every node, pre-order (root first)."""
        yield self
        for c in self.children:
            yield from c.subtrees()

    def __str__(self) -> str:
        if self.word is not None:
            return f"({self.label} {self.word})"
        return f"({self.label} " + " ".join(str(c) for c in self.children) + ")"


def parse_tree(text: str) -> Tree:
    """Parse one bracketed tree.

    Raises:
        ValueError: unbalanced brackets, a node without a label, or trailing
            text; the message gives the character position.
    """
    tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(text)]
    if not tokens:
        raise ValueError("empty tree")
    pos = 0

    def node() -> Tree:
        nonlocal pos
        if pos >= len(tokens) or tokens[pos][0] != "(":
            at = tokens[pos][1] if pos < len(tokens) else len(text)
            raise ValueError(f"expected '(' at character {at}")
        pos += 1
        if pos >= len(tokens) or tokens[pos][0] in "()":
            raise ValueError(f"node without a label at character {tokens[pos - 1][1]}")
        label = tokens[pos][0]
        pos += 1
        if pos < len(tokens) and tokens[pos][0] not in "()":
            word = tokens[pos][0]
            pos += 1
            if pos >= len(tokens) or tokens[pos][0] != ")":
                raise ValueError(f"expected ')' after word {word!r} at character {tokens[pos - 1][1]}")
            pos += 1
            return Tree(label, (), word)
        children = []
        while pos < len(tokens) and tokens[pos][0] == "(":
            children.append(node())
        if pos >= len(tokens) or tokens[pos][0] != ")":
            raise ValueError(f"unbalanced brackets: missing ')' for node {label!r}")
        pos += 1
        if not children:
            raise ValueError(f"node {label!r} has neither children nor a word")
        return Tree(label, tuple(children))

    tree = node()
    if pos != len(tokens):
        raise ValueError(f"unexpected text after the tree at character {tokens[pos][1]}")
    return tree
