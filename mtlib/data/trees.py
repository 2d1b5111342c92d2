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

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# PTB trees separate tokens by ASCII whitespace only: a U+00A0 inside a leaf ("8\u00a01\/2" in SST's
# train.txt) belongs to the word, so ``\s`` (which matches it) must not be used here.
_TOKEN = re.compile(r"\(|\)|[^ \t\n\r\f\v()]+")


#: Deepest nesting :func:`parse_tree` accepts by default. SST's deepest tree is under 60 levels; the
#: bound keeps every recursive consumer (TRE's composition, ``repr``) far from Python's recursion limit.
MAX_DEPTH = 300
#: Most tokens (brackets, labels, words) in one tree by default; SST's longest line has under 600.
MAX_TOKENS = 200_000


@dataclass(frozen=True)
class Tree:
    """A node: its label, its children, and for a pre-terminal its word.

    Traversals (:meth:`leaves`, :attr:`height`, :meth:`subtrees`, ``str``)
    are iterative, so they work at any depth.

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
        return [t.word for t in self.subtrees() if t.word is not None]

    @property
    def sentence(self) -> str:
        """Words joined by single spaces."""
        return " ".join(self.leaves())

    @property
    def height(self) -> int:
        """Edges on the longest root-to-word path (a pre-terminal has height 1)."""
        best, stack = 0, [(self, 1)]
        while stack:
            node, depth = stack.pop()
            if node.word is not None:
                best = max(best, depth)
            stack.extend((c, depth + 1) for c in node.children)
        return best

    def relabel(self, label: Callable[[str], str]) -> Tree:
        """The same tree with every node's label replaced by ``label(old)``, e.g. SST's polarity flipped.

        >>> str(Tree("1", (Tree("0", word="bad"), Tree("3", word="fun"))).relabel(lambda v: str(4 - int(v))))
        '(3 (4 bad) (1 fun))'
        """
        return Tree(label(self.label), tuple(c.relabel(label) for c in self.children), self.word)

    def subtrees(self) -> Iterator[Tree]:
        """Every node, pre-order (root first)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def __str__(self) -> str:
        parts: list[str] = []
        stack: list[Tree | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
            elif item.word is not None:
                parts.append(f"({item.label} {item.word})")
            else:
                parts.append(f"({item.label} ")
                stack.append(")")
                for i, c in enumerate(reversed(item.children)):
                    stack.append(c)
                    if i < len(item.children) - 1:
                        stack.append(" ")
        return "".join(parts)


def parse_tree(text: str, *, max_depth: int = MAX_DEPTH, max_tokens: int = MAX_TOKENS) -> Tree:
    """Parse one bracketed tree, iteratively (no recursion, tokens streamed).

    Args:
        text: One tree, e.g. ``"(3 (2 It) (4 good))"``.
        max_depth: Nesting deeper than this is an error (raise it for
            unusual treebanks).
        max_tokens: A tree with more tokens is an error: a runaway line fails
            after reading at most this many tokens, in bounded memory.

    Raises:
        TypeError: ``text`` is not a ``str`` (``None``, bytes: decode them first), or a bound is not
            an integer.
        ValueError: a bound below 1, an empty text, unbalanced brackets, a node without a label, trailing
            text, or a tree past the depth/size bounds; the message gives the
            character position.
    """
    if not isinstance(text, str):
        hint = " (decode bytes first, e.g. data.decode('utf-8'))" if isinstance(text, (bytes, bytearray)) else ""
        raise TypeError(
            f"parse_tree: text must be one bracketed tree as a str, e.g. '(3 (2 It) (4 good))', "
            f"got {type(text).__name__}{hint}"
        )
    for name, bound in (("max_depth", max_depth), ("max_tokens", max_tokens)):
        if isinstance(bound, bool) or not isinstance(bound, int):
            raise TypeError(f"parse_tree: {name} must be a positive integer, got {type(bound).__name__} {bound!r}")
        if bound < 1:
            raise ValueError(f"parse_tree: {name} must be a positive integer, got {bound}")
    tokens = _TOKEN.finditer(text)
    # each open node: [label, children, word]
    stack: list[list] = []
    root: Tree | None = None
    state = "open"  # what comes next: "open" '(' ; "label"; "body" (word, '(' or ')'); "close" (')' after a word)
    count = 0
    for m in tokens:
        tok, at = m.group(), m.start()
        count += 1
        if count > max_tokens:
            raise ValueError(
                f"tree larger than {max_tokens:,} tokens at character {at} (pass max_tokens= to parse bigger trees)"
            )
        if root is not None:
            raise ValueError(f"unexpected text after the tree at character {at}")
        if state == "open" and tok != "(":
            raise ValueError(f"expected '(' at character {at}")
        if state == "label":
            if tok in "()":
                raise ValueError(f"node without a label at character {at}")
            stack[-1][0] = tok
            state = "body"
        elif state == "body" and tok not in "()":
            if stack[-1][1]:
                raise ValueError(f"word {tok!r} beside sub-trees at character {at}")
            stack[-1][2] = tok
            state = "close"
        elif tok == "(":  # the root (state "open") or a child
            if state == "close":
                raise ValueError(f"expected ')' after word {stack[-1][2]!r} at character {at}")
            if len(stack) >= max_depth:
                raise ValueError(
                    f"tree nested deeper than {max_depth} levels at character {at} "
                    "(pass max_depth= to parse deeper trees)"
                )
            stack.append([None, [], None])
            state = "label"
        elif tok == ")":
            label, children, word = stack.pop()
            if word is None and not children:
                raise ValueError(f"node {label!r} has neither children nor a word")
            node = Tree(label, (), word) if word is not None else Tree(label, tuple(children))
            if stack:
                stack[-1][1].append(node)
                state = "body"
            else:
                root = node
        else:  # a word where ')' was due
            raise ValueError(f"expected ')' after word {stack[-1][2]!r} at character {at}")
    if count == 0:
        raise ValueError("parse_tree: expected one bracketed tree such as '(3 (2 It) (4 good))', got an empty text")
    if root is None:
        if state == "label":
            raise ValueError(f"node without a label at character {len(text)}")
        if state == "close":
            raise ValueError(f"expected ')' after word {stack[-1][2]!r} at character {len(text)}")
        raise ValueError(f"unbalanced brackets: missing ')' for node {stack[-1][0]!r}")
    return root


# ---------------------------------------------------------------------------
# Ground-truth compositionality of a labelled tree (Bhathena et al. §4.1-4.2)
# ---------------------------------------------------------------------------

WNS_WEIGHTS = ("height", "depth", "uniform")
WNS_AVERAGES = ("mean", "weighted", "sum")


def node_value(node: Tree) -> float:
    """A node's label as a finite number (SST: 0-4).

    Raises:
        ValueError: the label is not a number, or is ``nan`` / ``inf`` (which would turn every
            score of the tree into ``nan`` without a word); the message shows the node.

    Example:
        >>> node_value(parse_tree("(3 Cool)"))
        3.0
        >>> node_value(parse_tree("(nan Cool)"))
        Traceback (most recent call last):
        ...
        ValueError: node label 'nan' is not a finite number (SST labels are 0-4) in (nan Cool)
    """
    try:
        value = float(node.label)
    except ValueError:
        raise ValueError(
            f"node label {node.label!r} is not a number (SST labels are 0-4) in {str(node)[:80]}"
        ) from None
    if not math.isfinite(value):
        raise ValueError(f"node label {node.label!r} is not a finite number (SST labels are 0-4) in {str(node)[:80]}")
    return value


def tree_impurity(tree: Tree) -> float:
    """Tree Impurity: |root label − mean label of every node| (Bhathena et al. §4.1).

    Every node counts once: the root, the inner nodes and the pre-terminals
    (the words carry no label of their own). This reading reproduces the
    paper's printed values (e.g. ``(3 (3 Cool) (2 ?))``: |3 − 8/3| = 1/3).
    High when the sentence label differs from what its parts say on average.

    Works for n-ary trees; a one-word sentence ``(3 Cool)`` has impurity 0.

    Raises:
        ValueError: a label that is not a finite number (``nan``, ``inf`` included).
    """
    values = [node_value(t) for t in tree.subtrees()]
    return abs(values[0] - sum(values) / len(values))


def _switches(tree: Tree) -> tuple[list[tuple[float, int, int]], int]:
    """(|label − mean child label|, height, depth) of every inner node, and the tree's height.

    Iterative (post-order with an explicit stack), so a tree of any depth is scored without recursion.
    """
    out: list[tuple[float, int, int]] = []
    heights: dict[int, int] = {}  # id(node) -> its height, filled once its children are done
    stack: list[tuple[Tree, int, bool]] = [(tree, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        if node.is_leaf:
            heights[id(node)] = 1
        elif not done:
            stack.append((node, depth, True))
            stack.extend((c, depth + 1, False) for c in node.children)
        else:
            heights[id(node)] = 1 + max(heights[id(c)] for c in node.children)
            children = [node_value(c) for c in node.children]
            out.append((abs(node_value(node) - sum(children) / len(children)), heights[id(node)], depth))
    return out, heights[id(tree)]


def weighted_node_switching(tree: Tree, *, weight: str = "height", average: str = "mean") -> float:
    """Weighted Node Switching (Bhathena et al. §4.2).

    For every node whose children all carry labels (every inner node; a
    pre-terminal's child is a bare word), the switch is |node label − mean of
    its children's labels|, weighted so that nodes nearer the root weigh more,
    then averaged. Literal reading (the defaults): weight = the node's height
    (:attr:`Tree.height`, a pre-terminal has height 1, so the lowest inner
    node weighs 2), average = the plain mean of the weighted switches.

    Args:
        tree: A labelled tree, n-ary allowed.
        weight: ``"height"`` (the node's own height), ``"depth"`` (tree height
            minus the node's depth: the root weighs the tree height, its
            children one less, whatever their own height) or ``"uniform"`` (1).
        average: ``"mean"`` (Σ w·s / number of nodes), ``"weighted"``
            (Σ w·s / Σ w, a weighted mean that stays on the label scale) or
            ``"sum"`` (Σ w·s).

    Returns:
        The score; ``nan`` for a one-word sentence (no node has labelled
        children, so there is nothing to average).

    Raises:
        ValueError: an unknown ``weight``/``average`` or a non-numeric label.

    Example:
        >>> weighted_node_switching(parse_tree("(3 (3 Cool) (2 ?))"))  # |3 − 2.5| · 2 / 1
        1.0
    """
    if weight not in WNS_WEIGHTS:
        raise ValueError(f"weight must be one of {WNS_WEIGHTS}, got {weight!r}")
    if average not in WNS_AVERAGES:
        raise ValueError(f"average must be one of {WNS_AVERAGES}, got {average!r}")
    nodes, top = _switches(tree)
    if not nodes:
        return float("nan")
    if weight == "height":
        w = [h for _, h, _ in nodes]
    elif weight == "depth":
        w = [top - d for _, _, d in nodes]
    else:
        w = [1] * len(nodes)
    total = sum(wi * s for wi, (s, _, _) in zip(w, nodes))
    if average == "sum":
        return float(total)
    return float(total / (sum(w) if average == "weighted" else len(nodes)))


__all__ = ["tree_impurity", "weighted_node_switching"]
