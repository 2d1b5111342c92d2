"""Trees encoded once as index arrays over one node table, for the batched objective.

Leaves index the primitives (row i is word i of :func:`build_vocabulary`),
internal nodes are grouped by height (one matrix product per level under the
linear rule), and a sparse bag of words gives the additive rule in one product.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from mtlib.data.trees import Tree


def build_vocabulary(trees: Sequence[Tree]) -> list[str]:
    """The word types of ``trees``, sorted (row i of the primitives is word i)."""
    return sorted({w for t in trees for w in t.leaves()})


@dataclass
class EncodedTrees:
    """Trees as index arrays over one node table (built once, used at every step).

    The node table has the pre-terminals first (``leaf_ids`` rows), then the
    binary composition nodes level by level. Word id ``n_words`` stands for a
    word outside the vocabulary (its vector is zero).

    Attributes:
        leaf_ids: ``(n_leaves,)`` word id of every pre-terminal, all sentences.
        levels: Per level h = 1, 2, ...: ``(left, right)`` node-table indices
            of the children of the level's nodes, each ``(m_h,)``.
        roots: ``(n,)`` node-table index of each sentence's root.
        bow: ``(n, n_words)`` sparse word counts (seen words only).
        n_unseen: ``(n,)`` tokens outside the vocabulary per sentence.
        n_tokens: ``(n,)`` tokens per sentence.
    """

    leaf_ids: torch.Tensor
    levels: list[tuple[torch.Tensor, torch.Tensor]]
    roots: torch.Tensor
    bow: torch.Tensor
    n_unseen: np.ndarray
    n_tokens: np.ndarray
    n_words: int


def encode_trees(trees: Sequence[Tree], vocab: Sequence[str], dtype: torch.dtype = torch.float32) -> EncodedTrees:
    """Flatten ``trees`` into :class:`EncodedTrees` (one Python pass, done once)."""
    index = {w: i for i, w in enumerate(vocab)}
    unk = len(vocab)
    leaf_ids: list[int] = []
    nodes: list[tuple[int, tuple[str, int], tuple[str, int]]] = []  # (level, left ref, right ref)
    roots: list[tuple[str, int]] = []

    def visit(root: Tree) -> tuple[tuple[str, int], int]:
        """Return (reference, level) of a subtree; a reference is ('leaf', i) or ('node', k).

        Children are folded left to right (n-ary), a unary node passes its child on. Iterative, with
        an explicit stack of ``[node, next child, reference so far, level so far]``, so a tree of any
        depth is encoded without recursion, leaves and nodes numbered as a recursive walk would.
        """
        stack: list[list] = [[root, 0, None, 0]]
        done: tuple[tuple[str, int], int] | None = None  # what the frame just popped returned
        while stack:
            frame = stack[-1]
            t = frame[0]
            if t.word is not None:  # a leaf
                leaf_ids.append(index.get(t.word, unk))
                done = (("leaf", len(leaf_ids) - 1), 0)
                stack.pop()
                continue
            if done is not None:  # back from child frame[1] - 1
                cref, clevel = done
                done = None
                if frame[1] == 1:
                    frame[2], frame[3] = cref, clevel
                else:
                    frame[3] = 1 + max(frame[3], clevel)
                    nodes.append((frame[3], frame[2], cref))
                    frame[2] = ("node", len(nodes) - 1)
            if frame[1] < len(t.children):
                frame[1] += 1
                stack.append([t.children[frame[1] - 1], 0, None, 0])
                continue
            done = (frame[2], frame[3])
            stack.pop()
        assert done is not None
        return done

    rows, cols, n_unseen, n_tokens = [], [], [], []
    for i, t in enumerate(trees):
        words = t.leaves()
        ids = [index[w] for w in words if w in index]
        rows += [i] * len(ids)
        cols += ids
        n_unseen.append(len(words) - len(ids))
        n_tokens.append(len(words))
        roots.append(visit(t)[0])

    n_leaves = len(leaf_ids)
    order = sorted(range(len(nodes)), key=lambda k: nodes[k][0])  # stable: by level
    position = np.empty(len(nodes), dtype=np.int64)
    position[order] = n_leaves + np.arange(len(nodes))

    def resolve(ref: tuple[str, int]) -> int:
        return ref[1] if ref[0] == "leaf" else int(position[ref[1]])

    levels = []
    for level in sorted({lv for lv, _, _ in nodes}):
        members = [k for k in order if nodes[k][0] == level]
        levels.append(
            (
                torch.tensor([resolve(nodes[k][1]) for k in members], dtype=torch.long),
                torch.tensor([resolve(nodes[k][2]) for k in members], dtype=torch.long),
            )
        )
    values = torch.ones(len(rows), dtype=dtype)
    bow = torch.sparse_coo_tensor(
        torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1),
        values,
        (len(trees), len(vocab)),
        check_invariants=True,
    ).coalesce()
    return EncodedTrees(
        torch.tensor(leaf_ids, dtype=torch.long),
        levels,
        torch.tensor([resolve(r) for r in roots], dtype=torch.long),
        bow,
        np.array(n_unseen),
        np.array(n_tokens),
        len(vocab),
    )
