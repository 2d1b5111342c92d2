"""Graphical notation for NLP metamorphic relations (Manino et al. 2022, §2).

The notation draws the *structure* of a metamorphic relation:

* textual variables (source and follow-up inputs) are **circles**;
* numerical variables (embeddings, soft-max outputs, scores, hidden
  representations) are **squares**;
* source inputs are shaded **grey**, every other node is white;
* labelled **arrows** stand for the neural function ``f`` (and ``g`` for the
  second half of a split model) and for the transformations ``T_i``;
* the output property ``P`` is a rounded box linked to the nodes it
  constrains by **dashed lines**.

A :class:`Diagram` is plain, immutable data (nodes, arrows, the property and
the ids it constrains).  :meth:`Diagram.draw` renders it with matplotlib only
and returns a :class:`matplotlib.figure.Figure` that is *not* registered with
pyplot, so it works headlessly, never changes the global backend and is not
shown twice in a notebook (display it by making it the cell's value, with
``IPython.display.display(fig)`` or ``fig.savefig(...)``).  Pass ``ax=`` to
draw into an existing axes instead.

Every artist is tagged with a ``gid`` so that tests and notebooks can find it:
the node patch carries the node id, each arrow ``"<start>-><end>"``, each
dashed link ``"P-><id>"`` and the property box ``"P"``; arrow and node labels
carry ``"label:<...>"``.

The four factories reproduce the structures of the paper's Figures 1, 2, 4
and 5: :func:`single_input`, :func:`pairwise_systematicity`,
:func:`pairwise_compositionality` and :func:`three_way_transitivity`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Literal, cast

from mtlib.utils.faces import renamed_attribute, renamed_keywords

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib import patches as mpatches
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "Node",
    "Arrow",
    "Diagram",
    "single_input",
    "pairwise_systematicity",
    "pairwise_compositionality",
    "three_way_transitivity",
    "CIRCLE_RADIUS",
    "SQUARE_HALF_SIDE",
    "SOURCE_FACECOLOR",
    "NODE_FACECOLOR",
    "plain_text",
]

# --------------------------------------------------------------------------
# Style.  Geometry is in layout ("data") units; fonts are in points at the
# design scale INCHES_PER_UNIT and are rescaled when the diagram is drawn at
# another scale, so the picture keeps its proportions on any axes.
# --------------------------------------------------------------------------
CIRCLE_RADIUS = 0.34
SQUARE_HALF_SIDE = 0.30  # same area as the circle, to within 1%
SOURCE_FACECOLOR = (0.80, 0.80, 0.80, 1.0)
NODE_FACECOLOR = (1.0, 1.0, 1.0, 1.0)
EDGECOLOR = "black"

INCHES_PER_UNIT = 0.9
MIN_WIDTH_IN, MAX_WIDTH_IN = 5.0, 7.0

NODE_FONTSIZE = 15.0
ARROW_FONTSIZE = 13.0
PROP_FONTSIZE = 13.0
TITLE_FONTSIZE = 13.0

NODE_LINEWIDTH = 1.3
ARROW_LINEWIDTH = 1.2
DASH_LINEWIDTH = 1.1
ARROW_HEAD_SCALE = 13.0

LABEL_GAP = 0.07  # space between an arrow and its label (layout units)
PROP_PAD = (0.16, 0.11)  # horizontal, vertical padding in the P box
MARGIN = 0.12  # around the whole drawing

_SIMPLE_SYMBOL = re.compile(r"^[A-Za-z](_(\{[A-Za-z0-9]+\}|[A-Za-z0-9]))?'*$")


# ---- Data model -----------------------------------------------------------
@renamed_keywords(kind="node_type")
@dataclass(frozen=True)
class Node:
    """A variable of the relation: ``node_type`` ``"text"`` (a circle) or ``"number"`` (a square) at ``xy``.

    ``xy`` is the centre in layout units; ``source`` nodes are shaded grey; ``kind``: ``node_type``'s old name (warns).
    """

    id: str
    label: str
    node_type: Literal["text", "number"]
    xy: tuple[float, float]
    source: bool = False
    kind = renamed_attribute("Node.kind", "node_type")

    def __post_init__(self) -> None:
        if self.node_type not in ("text", "number"):
            raise ValueError(f"Node {self.id!r}: node_type must be 'text' or 'number', got {self.node_type!r}")


@dataclass(frozen=True)
class Arrow:
    """A function application ``start --label--> end`` (``f``, ``g``, ``T``...).

    ``label_side`` chooses where the label goes relative to the direction of
    travel: ``"left"``, ``"right"`` or ``"auto"`` (the side with more room).
    """

    start: str
    end: str
    label: str
    label_side: Literal["auto", "left", "right"] = "auto"


@dataclass(frozen=True)
class Diagram:
    """The structure of a metamorphic relation, ready to be drawn."""

    nodes: tuple[Node, ...]
    arrows: tuple[Arrow, ...]
    property_label: str
    constrained: tuple[str, ...]
    property_xy: tuple[float, float]
    title: str | None = None

    # ---------------------------------------------------------------- checks
    def validate(self) -> None:
        """Raise ``ValueError`` if an arrow or a dashed link names no node."""
        ids: set[str] = set()
        for node in self.nodes:
            if node.id in ids:
                raise ValueError(f"duplicate node id {node.id!r}")
            if node.id == "P":
                raise ValueError("node id 'P' is reserved for the output property")
            ids.add(node.id)
        for arrow in self.arrows:
            for end in (arrow.start, arrow.end):
                if end not in ids:
                    raise ValueError(f"arrow {arrow.start!r} -> {arrow.end!r} refers to missing node {end!r}")
            if arrow.start == arrow.end:
                raise ValueError(f"arrow from node {arrow.start!r} to itself")
            if arrow.label_side not in ("auto", "left", "right"):
                raise ValueError(f"bad label_side {arrow.label_side!r}")
        for cid in self.constrained:
            if cid not in ids:
                raise ValueError(f"property P constrains missing node {cid!r}")

    def node(self, node_id: str) -> Node:
        """The node called ``node_id`` (``KeyError`` if there is none)."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    # ------------------------------------------------------------------ text
    def to_text(self) -> str:
        """A short plain-text description: one line per arrow and dashed link.

        Arrows read ``x --T--> x'``, dashed links ``P - - y``; a first line
        gives the property and, when set, the title.
        """
        self.validate()
        head = f"P: {plain_text(self.property_label)}"
        if self.title:
            head = f"{plain_text(self.title)} | {head}"
        lines = [head]
        for a in self.arrows:
            lines.append(f"{a.start} --{plain_text(a.label)}--> {a.end}")
        for cid in self.constrained:
            lines.append(f"P - - {cid}")
        return "\n".join(lines)

    # --------------------------------------------------------------- drawing
    def draw(self, ax: Axes | None = None) -> Figure:
        """Draw the diagram and return its figure.

        With ``ax=None`` a new, pyplot-free figure 5-7 inches wide is created;
        otherwise the diagram is drawn into ``ax`` (its limits, aspect and
        axis visibility are set) and ``ax.figure`` is returned.
        """
        self.validate()
        lay = _layout(self)
        x0, x1, y0, y1 = lay.extent

        if ax is None:
            scale = INCHES_PER_UNIT
            width = (x1 - x0) * scale
            if width > MAX_WIDTH_IN:
                scale = MAX_WIDTH_IN / (x1 - x0)
            elif width < MIN_WIDTH_IN:
                extra = (MIN_WIDTH_IN / scale - (x1 - x0)) / 2
                x0, x1 = x0 - extra, x1 + extra
            title_in = 0.45 if self.title else 0.0
            fig = _matplotlib().figure.Figure(
                figsize=((x1 - x0) * scale + 0.1, (y1 - y0) * scale + title_in + 0.1),
                facecolor="white",
            )
            ax = fig.add_subplot()
            own = True
        else:
            fig = cast("Figure", ax.figure)  # a SubFigure when drawn into one; returned as is
            own = False

        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.set_aspect("equal", adjustable="box")
        ax.axis("off")
        ax.set_facecolor("white")
        if own:
            # Title size is only known after layout; set it at design size.
            if self.title:
                ax.set_title(self.title, fontsize=TITLE_FONTSIZE, gid="title")
            fig.tight_layout(pad=0.2)
        k = _actual_scale(ax, x1 - x0, y1 - y0) / INCHES_PER_UNIT
        if self.title and not own:
            ax.set_title(self.title, fontsize=TITLE_FONTSIZE * min(1.0, max(k, 0.75)), gid="title")
        _render(ax, lay, k)
        return fig


# --------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------
def _matplotlib() -> ModuleType:
    """matplotlib, imported on the first drawing or text measure (the relations import without it)."""
    try:
        import matplotlib.figure
        import matplotlib.font_manager
        import matplotlib.patches
        import matplotlib.textpath
    except ModuleNotFoundError as err:  # the light install (pip install mtlib) has no matplotlib
        raise ModuleNotFoundError("drawing a relation needs matplotlib: pip install 'mtlib[plots]'") from err
    return matplotlib


def _math(label: str) -> str:
    """Typeset bare one-letter symbols (``f``, ``T``, ``T_1``) in math italic."""
    if "$" not in label and _SIMPLE_SYMBOL.match(label):
        return f"${label}$"
    return label


_PLAIN_SUBS = [
    (r"\\(?:Rightarrow|implies|Longrightarrow|rightarrow|to)", "=>"),
    (r"\\(?:Leftrightarrow|iff|Longleftrightarrow|leftrightarrow)", "<=>"),
    (r"\\(?:wedge|land)", "and"),
    (r"\\(?:vee|lor)", "or"),
    (r"\\(?:neg|lnot)", "not "),
    (r"\\circ", "o"),
    (r"\\(?:mathbf|mathrm|mathit|mathcal|boldsymbol|bf|rm|it)\b", ""),
]


def plain_text(label: str) -> str:
    """Strip mathtext markup: ``$\\mathbf{x}'_1$`` -> ``x'_1``."""
    s = label.replace("$", "")
    for pat, rep in _PLAIN_SUBS:
        s = re.sub(pat, rep, s)
    s = re.sub(r"\\([A-Za-z]+)", r"\1", s)  # other commands: keep the name
    s = re.sub(r"_\{([^{}]*)\}", r"_\1", s)
    s = s.replace("{", "").replace("}", "").replace("\\,", " ").replace("~", " ")
    return re.sub(r"\s+", " ", s).strip()


def _text_size(s: str, fontsize: float) -> tuple[float, float]:
    """Ink width and height of ``s`` in layout units at the design scale."""
    if not s.strip():
        return 0.0, 0.0
    mpl = _matplotlib()
    path = mpl.textpath.TextPath((0, 0), s, size=fontsize, prop=mpl.font_manager.FontProperties(size=fontsize))
    ext = path.get_extents()
    if not (math.isfinite(ext.width) and math.isfinite(ext.height)):
        return 0.0, 0.0
    to_units = 1.0 / 72.0 / INCHES_PER_UNIT
    return float(ext.width * to_units), float(ext.height * to_units)


def _prop_box_size(prop: str) -> tuple[float, float]:
    """Size of the property box (layout units) for label ``prop``."""
    w, h = _text_size(_math(prop), PROP_FONTSIZE)
    hmin = _text_size("$P$", PROP_FONTSIZE)[1]
    wmin = _text_size("$P$", PROP_FONTSIZE)[0]
    return max(w, wmin) + 2 * PROP_PAD[0], max(h, hmin) + 2 * PROP_PAD[1]


# --------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------
def _unit(dx: float, dy: float) -> tuple[float, float]:
    n = math.hypot(dx, dy)
    if n == 0:
        raise ValueError("two diagram elements share the same position")
    return dx / n, dy / n


def _node_reach(node: Node, ux: float, uy: float) -> float:
    """Distance from the node centre to its border along unit vector u."""
    if node.node_type == "text":
        return CIRCLE_RADIUS
    return SQUARE_HALF_SIDE / max(abs(ux), abs(uy))


def _box_reach(w: float, h: float, ux: float, uy: float) -> float:
    """Distance from a w x h box centre to its border along unit vector u."""
    tx = (w / 2) / abs(ux) if ux else math.inf
    ty = (h / 2) / abs(uy) if uy else math.inf
    return min(tx, ty)


def _node_halfsize(node: Node) -> float:
    return CIRCLE_RADIUS if node.node_type == "text" else SQUARE_HALF_SIDE


def _seg_point_dist(p, a, b) -> float:
    ax_, ay = a
    bx, by = b
    px, py = p
    dx, dy = bx - ax_, by - ay
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((px - ax_) * dx + (py - ay) * dy) / L2))
    return math.hypot(px - (ax_ + t * dx), py - (ay + t * dy))


def _rect_point_dist(p, cx, cy, w, h) -> float:
    dx = max(abs(p[0] - cx) - w / 2, 0.0)
    dy = max(abs(p[1] - cy) - h / 2, 0.0)
    return math.hypot(dx, dy)


@dataclass
class _ArrowGeom:
    arrow: Arrow
    a: tuple[float, float]
    b: tuple[float, float]
    label: str
    label_xy: tuple[float, float] = (0.0, 0.0)
    label_size: tuple[float, float] = (0.0, 0.0)


@dataclass
class _Layout:
    nodes: tuple[Node, ...]
    node_fontsize: dict[str, float]
    arrows: list[_ArrowGeom]
    dashes: list[tuple[str, tuple[float, float], tuple[float, float]]]
    prop_label: str
    prop_xy: tuple[float, float]
    prop_size: tuple[float, float]
    extent: tuple[float, float, float, float]


def _layout(d: Diagram) -> _Layout:
    by_id = {n.id: n for n in d.nodes}

    # Node labels: shrink any label that would not fit inside its node.
    node_fs: dict[str, float] = {}
    for n in d.nodes:
        w, h = _text_size(n.label, NODE_FONTSIZE)
        room = 2 * _node_halfsize(n) * 0.8
        shrink = min(1.0, room / w if w else 1.0, room / h if h else 1.0)
        node_fs[n.id] = NODE_FONTSIZE * shrink

    # Property box and its dashed links, border to border.
    pw, ph = _prop_box_size(d.property_label)
    px, py = d.property_xy
    dashes = []
    for cid in d.constrained:
        n = by_id[cid]
        ux, uy = _unit(n.xy[0] - px, n.xy[1] - py)
        rb = _box_reach(pw, ph, ux, uy)
        rn = _node_reach(n, ux, uy)
        a = (px + rb * ux, py + rb * uy)
        b = (n.xy[0] - rn * ux, n.xy[1] - rn * uy)
        dashes.append((cid, a, b))

    # Arrows from border to border.
    geoms: list[_ArrowGeom] = []
    for arr in d.arrows:
        s, e = by_id[arr.start], by_id[arr.end]
        ux, uy = _unit(e.xy[0] - s.xy[0], e.xy[1] - s.xy[1])
        rs, re_ = _node_reach(s, ux, uy), _node_reach(e, ux, uy)
        a = (s.xy[0] + rs * ux, s.xy[1] + rs * uy)
        b = (e.xy[0] - re_ * ux, e.xy[1] - re_ * uy)
        geoms.append(_ArrowGeom(arr, a, b, _math(arr.label)))

    # Arrow labels: beside the midpoint, on the side with more room.
    cx = sum(n.xy[0] for n in d.nodes) / max(len(d.nodes), 1)
    cy = sum(n.xy[1] for n in d.nodes) / max(len(d.nodes), 1)
    placed: list[tuple[float, float, float, float]] = []  # label boxes
    for g in geoms:
        w, h = _text_size(g.label, ARROW_FONTSIZE)
        g.label_size = (w, h)
        mx, my = (g.a[0] + g.b[0]) / 2, (g.a[1] + g.b[1]) / 2
        ux, uy = _unit(g.b[0] - g.a[0], g.b[1] - g.a[1])
        left = (-uy, ux)
        right = (uy, -ux)

        def candidate(nrm, w=w, h=h, mx=mx, my=my):
            off = LABEL_GAP + abs(nrm[0]) * w / 2 + abs(nrm[1]) * h / 2
            return (mx + nrm[0] * off, my + nrm[1] * off)

        def clearance(p, own=g):
            c = math.inf
            for n in d.nodes:
                c = min(c, math.hypot(p[0] - n.xy[0], p[1] - n.xy[1]) - _node_halfsize(n))
            c = min(c, _rect_point_dist(p, px, py, pw, ph))
            for other in geoms:
                if other is not own:
                    c = min(c, _seg_point_dist(p, other.a, other.b))
            for _, a, b in dashes:
                c = min(c, _seg_point_dist(p, a, b))
            for lx, ly, lw, lh in placed:
                c = min(c, _rect_point_dist(p, lx, ly, lw, lh))
            return c

        cands = {"left": candidate(left), "right": candidate(right)}
        side = g.arrow.label_side
        if side == "auto":
            cl, cr = clearance(cands["left"]), clearance(cands["right"])
            if abs(cl - cr) > 1e-6:
                side = "left" if cl > cr else "right"
            else:  # symmetric: away from the centre of the drawing
                away = (mx - cx) * left[0] + (my - cy) * left[1]
                side = "right" if away < -1e-9 else "left"
        g.label_xy = cands[side]
        placed.append((g.label_xy[0], g.label_xy[1], w, h))

    # Extent of everything drawn.
    xs: list[float] = []
    ys: list[float] = []
    for n in d.nodes:
        r = _node_halfsize(n)
        xs += [n.xy[0] - r, n.xy[0] + r]
        ys += [n.xy[1] - r, n.xy[1] + r]
    xs += [px - pw / 2, px + pw / 2]
    ys += [py - ph / 2, py + ph / 2]
    for g in geoms:
        (lx, ly), (w, h) = g.label_xy, g.label_size
        xs += [lx - w / 2, lx + w / 2]
        ys += [ly - h / 2, ly + h / 2]
    extent = (min(xs) - MARGIN, max(xs) + MARGIN, min(ys) - MARGIN, max(ys) + MARGIN)
    return _Layout(
        nodes=d.nodes,
        node_fontsize=node_fs,
        arrows=geoms,
        dashes=dashes,
        prop_label=_math(d.property_label),
        prop_xy=(px, py),
        prop_size=(pw, ph),
        extent=extent,
    )


def _actual_scale(ax, xrange_: float, yrange_: float) -> float:
    """Inches per layout unit once ``ax`` applies its equal aspect."""
    fig = ax.figure
    pos = ax.get_position(original=True)
    w_in = pos.width * fig.get_figwidth()
    h_in = pos.height * fig.get_figheight()
    return min(w_in / xrange_, h_in / yrange_)


def _render(ax, lay: _Layout, k: float) -> None:
    """Add the artists of ``lay`` to ``ax``; ``k`` rescales points-based sizes."""
    mp = _matplotlib().patches
    for n in lay.nodes:
        face = SOURCE_FACECOLOR if n.source else NODE_FACECOLOR
        patch: mpatches.Patch
        if n.node_type == "text":
            patch = mp.Circle(n.xy, CIRCLE_RADIUS)
        else:
            h = SQUARE_HALF_SIDE
            patch = mp.Rectangle((n.xy[0] - h, n.xy[1] - h), 2 * h, 2 * h)
        patch.set_facecolor(face)
        patch.set_edgecolor(EDGECOLOR)
        patch.set_linewidth(NODE_LINEWIDTH * k)
        patch.set_zorder(3)
        patch.set_gid(n.id)
        ax.add_patch(patch)
        ax.text(
            n.xy[0],
            n.xy[1],
            n.label,
            ha="center",
            va="center",
            fontsize=lay.node_fontsize[n.id] * k,
            zorder=4,
            gid=f"label:{n.id}",
        )

    for g in lay.arrows:
        fa = mp.FancyArrowPatch(
            g.a,
            g.b,
            arrowstyle="-|>",
            mutation_scale=ARROW_HEAD_SCALE * k,
            shrinkA=0,
            shrinkB=0,
            linewidth=ARROW_LINEWIDTH * k,
            color=EDGECOLOR,
            joinstyle="miter",
            capstyle="butt",
            zorder=2,
        )
        fa.set_gid(f"{g.arrow.start}->{g.arrow.end}")
        ax.add_patch(fa)
        if g.label:
            ax.text(
                g.label_xy[0],
                g.label_xy[1],
                g.label,
                ha="center",
                va="center",
                fontsize=ARROW_FONTSIZE * k,
                zorder=4,
                gid=f"label:{g.arrow.start}->{g.arrow.end}",
            )

    for cid, a, b in lay.dashes:
        (line,) = ax.plot(
            [a[0], b[0]],
            [a[1], b[1]],
            linestyle="--",
            color=EDGECOLOR,
            linewidth=DASH_LINEWIDTH * k,
            zorder=1,
            solid_capstyle="butt",
            dash_capstyle="butt",
        )
        line.set_gid(f"P->{cid}")

    (px, py), (pw, ph) = lay.prop_xy, lay.prop_size
    box = mp.FancyBboxPatch(
        (px - pw / 2, py - ph / 2),
        pw,
        ph,
        boxstyle=f"round,pad=0,rounding_size={min(0.1, ph / 3):.3f}",
        facecolor="white",
        edgecolor=EDGECOLOR,
        linewidth=NODE_LINEWIDTH * k,
        zorder=3,
    )
    box.set_gid("P")
    ax.add_patch(box)
    ax.text(px, py, lay.prop_label, ha="center", va="center", fontsize=PROP_FONTSIZE * k, zorder=4, gid="label:P")


# --------------------------------------------------------------------------
# The four relation structures of the paper
# --------------------------------------------------------------------------
def _x(sub: str = "", prime: bool = False, var: str = "x") -> str:
    """Bold variable label, e.g. ``$\\mathbf{x}_{1}^{\\prime}$`` for x'_1.

    The prime is written as a superscript stacked over the subscript (the
    ``x'_1`` spelling puts the subscript after the prime in mathtext).
    """
    body = rf"\mathbf{{{var}}}"
    if sub:
        body += f"_{{{sub}}}"
        if prime:
            body += r"^{\prime}"
    elif prime:
        body += "'"
    return f"${body}$"


def single_input(*, transform: str = "T", model: str = "f", prop: str = r"$P$", title: str | None = None) -> Diagram:
    """Figure 1: one source input ``x``, its follow-up ``x' = T(x)``, outputs
    ``y = f(x)`` and ``y' = f(x')``, and ``P`` over ``(y, y')``."""
    pw, _ = _prop_box_size(prop)
    w = max(3.2, pw + 2 * SQUARE_HALF_SIDE + 2 * 0.55)
    top, bottom = 1.5, 0.0
    nodes = (
        Node("x", _x(), "text", (0.0, top), source=True),
        Node("x'", _x(prime=True), "text", (w, top)),
        Node("y", _x(var="y"), "number", (0.0, bottom)),
        Node("y'", _x(prime=True, var="y"), "number", (w, bottom)),
    )
    arrows = (
        Arrow("x", "x'", transform),
        Arrow("x", "y", model),
        Arrow("x'", "y'", model),
    )
    return Diagram(nodes, arrows, prop, ("y", "y'"), (w / 2, bottom), title)


def pairwise_systematicity(
    *, transform: str = "T", model: str = "f", prop: str = r"$P_{src} \Rightarrow P_{flw}$", title: str | None = None
) -> Diagram:
    """Figure 2: sources ``x1, x2``, follow-ups ``x'_i = T(x_i)``, the four
    outputs of ``f`` and ``P = P_src(y1, y2) => P_flw(y'1, y'2)``.

    The first pair sits above the property box and the second, mirrored,
    below it, so the four dashed links fan out from ``P`` without crossings.
    """
    pw, ph = _prop_box_size(prop)
    w = max(3.6, pw + 2 * SQUARE_HALF_SIDE + 2 * 0.5)
    y_out = max(1.05, ph / 2 + SQUARE_HALF_SIDE + 0.45)
    y_in = y_out + 1.4
    nodes = []
    arrows = []
    for i, sgn in (("1", 1.0), ("2", -1.0)):
        xs, xf, ys, yf = f"x{i}", f"x{i}'", f"y{i}", f"y{i}'"
        nodes += [
            Node(xs, _x(i), "text", (0.0, sgn * y_in), source=True),
            Node(xf, _x(i, prime=True), "text", (w, sgn * y_in)),
            Node(ys, _x(i, var="y"), "number", (0.0, sgn * y_out)),
            Node(yf, _x(i, prime=True, var="y"), "number", (w, sgn * y_out)),
        ]
        arrows += [Arrow(xs, xf, transform), Arrow(xs, ys, model), Arrow(xf, yf, model)]
    return Diagram(tuple(nodes), tuple(arrows), prop, ("y1", "y2", "y1'", "y2'"), (w / 2, 0.0), title)


def pairwise_compositionality(
    *, encoder: str = "f", head: str = "g", prop: str = r"$P_{hid} \Rightarrow P_{out}$", title: str | None = None
) -> Diagram:
    """Figure 4: sources ``x1, x2``, hidden representations ``z_i = f(x_i)``,
    outputs ``y_i = g(z_i)`` and ``P = P_hid(z1, z2) => P_out(y1, y2)``.
    There is no transformation ``T``."""
    pw, _ = _prop_box_size(prop)
    w = max(3.6, pw + 2 * SQUARE_HALF_SIDE + 2 * 0.5)
    rows = {"x": 2.7, "z": 1.35, "y": 0.0}
    nodes = []
    arrows = []
    for i, col in (("1", 0.0), ("2", w)):
        nodes += [
            Node(f"x{i}", _x(i), "text", (col, rows["x"]), source=True),
            Node(f"z{i}", _x(i, var="z"), "number", (col, rows["z"])),
            Node(f"y{i}", _x(i, var="y"), "number", (col, rows["y"])),
        ]
        arrows += [Arrow(f"x{i}", f"z{i}", encoder), Arrow(f"z{i}", f"y{i}", head)]
    return Diagram(
        tuple(nodes), tuple(arrows), prop, ("z1", "z2", "y1", "y2"), (w / 2, (rows["z"] + rows["y"]) / 2), title
    )


def three_way_transitivity(
    *,
    transform: str = "T",
    model: str = "f",
    prop: str = r"$v(y_{12}) \wedge v(y_{23}) \Rightarrow v(y_{13})$",
    title: str | None = None,
) -> Diagram:
    """Figure 5: sources ``x1, x2, x3`` combined by ``T`` into the pairs
    ``x_ij = (x_i, x_j)``, outputs ``y_ij = f(x_ij)`` and
    ``P = v(y12) & v(y23) => v(y13)``.

    The six inputs alternate around a hexagon (each pair between its two
    sources, so no ``T`` arrows cross); the outputs point inwards to the
    property box in the middle.
    """
    pw, ph = _prop_box_size(prop)
    # Keep the inner squares clear of the box (the 150/30 degree ones are the
    # tightest vertically, the 270 degree one too) and leave visible dashes.
    r_out = max(1.55, 2 * (ph / 2 + SQUARE_HALF_SIDE + 0.3), ph / 2 + SQUARE_HALF_SIDE + 0.55)
    r_in = r_out + 1.45
    angle = {"x2": 90, "x12": 150, "x1": 210, "x13": 270, "x3": 330, "x23": 30}

    def at(r, deg):
        t = math.radians(deg)
        return (round(r * math.cos(t), 6), round(r * math.sin(t), 6))

    # Lower the box until the vertical link to y13 is as long as the two
    # diagonal ones, so the three dashes look alike.
    def dash(node_xy, box_y):
        ux, uy = _unit(node_xy[0], node_xy[1] - box_y)
        dist = math.hypot(node_xy[0], node_xy[1] - box_y)
        return dist - _box_reach(pw, ph, ux, uy) - SQUARE_HALF_SIDE / max(abs(ux), abs(uy))

    lo, hi = -(r_out - SQUARE_HALF_SIDE - ph / 2 - 0.3), 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if dash(at(r_out, 270), mid) > dash(at(r_out, 150), mid):
            hi = mid
        else:
            lo = mid
    prop_y = float(round(min(hi, 0.0), 6))

    nodes = [Node(f"x{i}", _x(i), "text", at(r_in, angle[f"x{i}"]), source=True) for i in "123"]
    arrows = []
    for ij in ("12", "23", "13"):
        nodes.append(Node(f"x{ij}", _x(ij), "text", at(r_in, angle[f"x{ij}"])))
        nodes.append(Node(f"y{ij}", _x(ij, var="y"), "number", at(r_out, angle[f"x{ij}"])))
        arrows += [Arrow(f"x{ij[0]}", f"x{ij}", transform), Arrow(f"x{ij[1]}", f"x{ij}", transform)]
    arrows += [Arrow(f"x{ij}", f"y{ij}", model) for ij in ("12", "23", "13")]
    return Diagram(tuple(nodes), tuple(arrows), prop, ("y12", "y23", "y13"), (0.0, prop_y), title)
