"""Tests for mtlib.relations.notation, the graphical notation of Manino et al. (2022, §2)."""

from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")  # headless; the module itself never touches the backend

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib._pylab_helpers import Gcf  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import (  # noqa: E402
    Circle,
    FancyArrowPatch,
    FancyBboxPatch,
    Rectangle,
)
from matplotlib.path import Path  # noqa: E402

from mtlib.relations import notation  # noqa: E402
from mtlib.relations.notation import Arrow, Diagram, Node  # noqa: E402

WHITE = (1.0, 1.0, 1.0, 1.0)

# factory -> expected (circles, squares, grey sources, arrows, dashed links)
STRUCTURES = {
    "single_input": (notation.single_input, dict(circles=2, squares=2, grey=1, arrows=3, dashed=2)),
    "pairwise_systematicity": (
        notation.pairwise_systematicity,
        dict(circles=4, squares=4, grey=2, arrows=6, dashed=4),
    ),
    "pairwise_compositionality": (
        notation.pairwise_compositionality,
        dict(circles=2, squares=4, grey=2, arrows=4, dashed=4),
    ),
    "three_way_transitivity": (
        notation.three_way_transitivity,
        dict(circles=6, squares=3, grey=3, arrows=9, dashed=3),
    ),
}

# Expected arrow labels and dashed targets, read off the paper's figures.
EXPECTED_ARROWS = {
    "single_input": {("x", "x'"): "T", ("x", "y"): "f", ("x'", "y'"): "f"},
    "pairwise_systematicity": {
        ("x1", "x1'"): "T",
        ("x2", "x2'"): "T",
        ("x1", "y1"): "f",
        ("x2", "y2"): "f",
        ("x1'", "y1'"): "f",
        ("x2'", "y2'"): "f",
    },
    "pairwise_compositionality": {
        ("x1", "z1"): "f",
        ("x2", "z2"): "f",
        ("z1", "y1"): "g",
        ("z2", "y2"): "g",
    },
    "three_way_transitivity": {
        ("x1", "x12"): "T",
        ("x2", "x12"): "T",
        ("x2", "x23"): "T",
        ("x3", "x23"): "T",
        ("x1", "x13"): "T",
        ("x3", "x13"): "T",
        ("x12", "y12"): "f",
        ("x23", "y23"): "f",
        ("x13", "y13"): "f",
    },
}
EXPECTED_DASHED = {
    "single_input": {"y", "y'"},
    "pairwise_systematicity": {"y1", "y2", "y1'", "y2'"},
    "pairwise_compositionality": {"z1", "z2", "y1", "y2"},
    "three_way_transitivity": {"y12", "y23", "y13"},
}


@pytest.fixture(params=list(STRUCTURES))
def case(request):
    """(name, diagram, figure, expected counts); the figure is closed after."""
    factory, counts = STRUCTURES[request.param]
    diagram = factory()
    fig = diagram.draw()
    yield request.param, diagram, fig, counts
    plt.close(fig)


def _by_gid(ax, gid):
    found = [a for a in list(ax.patches) + list(ax.lines) + list(ax.texts) if a.get_gid() == gid]
    assert found, f"no artist with gid {gid!r}"
    return found


def _node_patches(ax, diagram):
    out = {}
    for node in diagram.nodes:
        (patch,) = [p for p in ax.patches if p.get_gid() == node.id]
        out[node.id] = patch
    return out


def _is_grey(patch):
    r, g, b, _ = patch.get_facecolor()
    return abs(r - g) < 1e-9 and abs(g - b) < 1e-9 and r < 0.95


# ----------------------------------------------------------------- rendering
def test_renders_png_and_pdf(case):
    _, _, fig, _ = case
    png = io.BytesIO()
    fig.savefig(png, format="png")
    assert png.getvalue().startswith(b"\x89PNG\r\n\x1a\n")
    pdf = io.BytesIO()
    fig.savefig(pdf, format="pdf")
    assert pdf.getvalue().startswith(b"%PDF")


def test_figure_is_sensible_and_pyplot_free(case):
    _, _, fig, _ = case
    w, h = fig.get_size_inches()
    assert 4.9 <= w <= 7.1 and 1.5 <= h <= 8
    assert to_rgba(fig.get_facecolor()) == WHITE
    (ax,) = fig.axes
    assert not ax.axison
    assert ax.get_aspect() == 1.0
    # not registered with pyplot: no duplicate display in notebooks
    assert all(m.canvas.figure is not fig for m in Gcf.get_all_fig_managers())


# ------------------------------------------------------------------- counts
def test_node_and_link_counts(case):
    name, diagram, fig, counts = case
    ax = fig.axes[0]
    ids = {n.id for n in diagram.nodes}
    nodes = [p for p in ax.patches if p.get_gid() in ids]
    circles = [p for p in nodes if isinstance(p, Circle)]
    squares = [p for p in nodes if isinstance(p, Rectangle)]
    assert len(circles) == counts["circles"]
    assert len(squares) == counts["squares"]
    assert len(circles) + len(squares) == len(nodes) == len(ids)
    # squares are squares
    for sq in squares:
        assert sq.get_width() == pytest.approx(sq.get_height())

    grey = [p for p in nodes if _is_grey(p)]
    white = [p for p in nodes if tuple(p.get_facecolor()) == WHITE]
    assert len(grey) == counts["grey"]
    assert len(grey) + len(white) == len(nodes)
    # only source *text* nodes are grey
    assert all(isinstance(p, Circle) for p in grey)
    assert {p.get_gid() for p in grey} == {n.id for n in diagram.nodes if n.source}

    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == counts["arrows"] == len(diagram.arrows)
    assert {a.get_gid() for a in arrows} == {f"{a.start}->{a.end}" for a in diagram.arrows}

    dashed = [ln for ln in ax.lines if ln.get_linestyle() == "--"]
    assert len(dashed) == counts["dashed"]
    assert {ln.get_gid() for ln in dashed} == {f"P->{c}" for c in diagram.constrained}

    # P is a rounded box, neither a circle nor a square
    (pbox,) = [p for p in ax.patches if p.get_gid() == "P"]
    assert isinstance(pbox, FancyBboxPatch)
    assert not isinstance(pbox, (Circle, Rectangle))


def test_structure_matches_paper(case):
    name, diagram, fig, _ = case
    got = {(a.start, a.end): notation.plain_text(a.label) for a in diagram.arrows}
    assert got == EXPECTED_ARROWS[name]
    assert set(diagram.constrained) == EXPECTED_DASHED[name]
    node_types = {n.id: n.node_type for n in diagram.nodes}
    # inputs (x...) are text, everything computed by a network is a number
    for nid, node_type in node_types.items():
        assert node_type == ("text" if nid.startswith("x") else "number"), nid
    # sources are exactly the inputs that no arrow points to
    targets = {a.end for a in diagram.arrows}
    assert {n.id for n in diagram.nodes if n.source} == {n.id for n in diagram.nodes} - targets
    # arrow labels are drawn
    ax = fig.axes[0]
    for a in diagram.arrows:
        (label,) = _by_gid(ax, f"label:{a.start}->{a.end}")
        assert label.get_text()


# ------------------------------------------------------------------ geometry
def _reach(node, ux, uy):
    if node.node_type == "text":
        return notation.CIRCLE_RADIUS
    return notation.SQUARE_HALF_SIDE / max(abs(ux), abs(uy))


def _vertices(arrow_patch):
    """Vertices of an arrow's path in data units (CLOSEPOLY dummies dropped)."""
    path = arrow_patch.get_path()
    return [v for v, c in zip(path.vertices, path.codes) if c != Path.CLOSEPOLY]


def _inside(node, p, tol=1e-6):
    dx, dy = p[0] - node.xy[0], p[1] - node.xy[1]
    if node.node_type == "text":
        return math.hypot(dx, dy) < notation.CIRCLE_RADIUS - tol
    return max(abs(dx), abs(dy)) < notation.SQUARE_HALF_SIDE - tol


def test_arrows_touch_node_borders(case):
    _, diagram, fig, _ = case
    ax = fig.axes[0]
    for a in diagram.arrows:
        s, e = diagram.node(a.start), diagram.node(a.end)
        (patch,) = _by_gid(ax, f"{a.start}->{a.end}")
        verts = _vertices(patch)
        ux, uy = e.xy[0] - s.xy[0], e.xy[1] - s.xy[1]
        n = math.hypot(ux, uy)
        ux, uy = ux / n, uy / n
        start = (s.xy[0] + _reach(s, ux, uy) * ux, s.xy[1] + _reach(s, ux, uy) * uy)
        tip = (e.xy[0] - _reach(e, ux, uy) * ux, e.xy[1] - _reach(e, ux, uy) * uy)
        assert math.dist(verts[0], start) < 1e-6
        # matplotlib pulls the head back by the miter of its stroke so that
        # the *drawn* tip lands on the end point: allow about a line width.
        assert min(math.dist(v, tip) for v in verts) < 0.03
        for v in verts:  # nothing drawn inside either node
            assert not _inside(s, v) and not _inside(e, v)


def _seg_dist(p, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def test_dashed_links_end_on_borders_and_avoid_other_nodes(case):
    _, diagram, fig, _ = case
    ax = fig.axes[0]
    for cid in diagram.constrained:
        (line,) = _by_gid(ax, f"P->{cid}")
        assert isinstance(line, Line2D) and line.get_linestyle() == "--"
        (a, b) = line.get_xydata()
        node = diagram.node(cid)
        ux, uy = b[0] - a[0], b[1] - a[1]
        n = math.hypot(ux, uy)
        assert n > 0.2, "dashed link too short to see"
        ux, uy = ux / n, uy / n
        border = (node.xy[0] - _reach(node, ux, uy) * ux, node.xy[1] - _reach(node, ux, uy) * uy)
        assert math.dist(b, border) < 1e-6
        for other in diagram.nodes:
            clearance = _seg_dist(other.xy, a, b) - notation.CIRCLE_RADIUS
            if other.id != cid:
                assert clearance > 0.05, f"P->{cid} runs through {other.id}"


def _bbox(artist, renderer):
    return artist.get_window_extent(renderer)


def test_labels_do_not_overlap(case):
    _, diagram, fig, _ = case
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    nodes = _node_patches(ax, diagram)
    node_boxes = {nid: _bbox(p, renderer) for nid, p in nodes.items()}
    (pbox,) = _by_gid(ax, "P")
    p_box = _bbox(pbox, renderer)

    # each node label sits inside its node, the P text inside the P box
    for nid, box in node_boxes.items():
        (label,) = _by_gid(ax, f"label:{nid}")
        lb = _bbox(label, renderer)
        assert box.x0 <= lb.x0 and lb.x1 <= box.x1 and box.y0 <= lb.y0 and lb.y1 <= box.y1, nid
    (ptext,) = _by_gid(ax, "label:P")
    pt = _bbox(ptext, renderer)
    assert p_box.x0 <= pt.x0 and pt.x1 <= p_box.x1

    # arrow labels avoid nodes, the P box, each other and every line
    arrow_labels = [(a, _bbox(_by_gid(ax, f"label:{a.start}->{a.end}")[0], renderer)) for a in diagram.arrows]
    for i, (a, lb) in enumerate(arrow_labels):
        for nid, box in node_boxes.items():
            assert not lb.overlaps(box), f"label of {a} overlaps node {nid}"
        assert not lb.overlaps(p_box)
        for b, other in arrow_labels[i + 1 :]:
            assert not lb.overlaps(other), f"labels of {a} and {b} overlap"
        for art in [p for p in ax.patches if isinstance(p, FancyArrowPatch)] + list(ax.lines):
            pts = _vertices(art) if isinstance(art, FancyArrowPatch) else art.get_xydata()
            disp = ax.transData.transform(pts)
            # the segment's end points (and head vertices) stay out of the label
            for x, y in disp:
                assert not (lb.x0 < x < lb.x1 and lb.y0 < y < lb.y1), (a, art.get_gid())
            # and the straight part does not cross the label box
            far = max(disp, key=lambda q: math.dist(q, disp[0]))
            (x0, y0), (x1, y1) = disp[0], far
            for t in [i / 50 for i in range(51)]:
                x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
                assert not (lb.x0 < x < lb.x1 and lb.y0 < y < lb.y1), (a, art.get_gid())


def test_nodes_and_p_box_do_not_overlap(case):
    _, diagram, fig, _ = case
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    boxes = {nid: _bbox(p, renderer) for nid, p in _node_patches(ax, diagram).items()}
    boxes["P"] = _bbox(_by_gid(ax, "P")[0], renderer)
    items = list(boxes.items())
    for i, (n1, b1) in enumerate(items):
        for n2, b2 in items[i + 1 :]:
            assert not b1.overlaps(b2), (n1, n2)


# -------------------------------------------------------------- validation
def _tiny(arrows=(), constrained=("y",)):
    nodes = (
        Node("x", r"$\mathbf{x}$", "text", (0.0, 1.0), source=True),
        Node("y", r"$\mathbf{y}$", "number", (0.0, 0.0)),
    )
    return Diagram(nodes, tuple(arrows), r"$P$", tuple(constrained), (1.5, 0.0))


def test_arrow_to_missing_node_raises():
    plt.close("all")  # figures other tests in this worker left open are not this test's
    d = _tiny(arrows=[Arrow("x", "ghost", "f")])
    with pytest.raises(ValueError, match="ghost"):
        d.draw()
    with pytest.raises(ValueError, match="ghost"):
        d.to_text()
    d = _tiny(arrows=[Arrow("phantom", "y", "f")])
    with pytest.raises(ValueError, match="phantom"):
        d.draw()
    assert plt.get_fignums() == []


@pytest.mark.parametrize("factory", [f for f, _ in STRUCTURES.values()])
def test_factory_diagram_with_extra_bad_arrow_raises(factory):
    d = factory()
    bad = Diagram(
        d.nodes, d.arrows + (Arrow(d.nodes[0].id, "missing_node", "T"),), d.property_label, d.constrained, d.property_xy
    )
    with pytest.raises(ValueError, match="missing_node"):
        bad.draw()


def test_constrained_missing_node_raises():
    with pytest.raises(ValueError, match="nowhere"):
        _tiny(arrows=[Arrow("x", "y", "f")], constrained=("y", "nowhere")).draw()


def test_duplicate_node_id_raises():
    n = Node("x", "x", "text", (0.0, 0.0))
    with pytest.raises(ValueError, match="duplicate"):
        Diagram((n, Node("x", "x", "text", (1.0, 0.0))), (), "P", (), (0.0, 1.0)).draw()


def test_bad_node_type_raises():
    with pytest.raises(ValueError, match="node_type"):
        Node("x", "x", "circle", (0.0, 0.0))  # type: ignore[arg-type]


def test_node_old_attribute_kind_still_works_for_one_release_with_a_deprecation_warning():
    node = Node("x", "x", "number", (0.0, 0.0))
    with pytest.warns(DeprecationWarning, match=r"Node\.kind is renamed Node\.node_type"):
        assert node.kind == "number"


# -------------------------------------------------------------------- misc
def test_to_text_one_line_per_arrow_and_link(case):
    _, diagram, _, _ = case
    lines = diagram.to_text().splitlines()
    assert len(lines) == 1 + len(diagram.arrows) + len(diagram.constrained)
    assert lines[0].startswith("P: ")
    for a in diagram.arrows:
        assert f"{a.start} --{notation.plain_text(a.label)}--> {a.end}" in lines
    for c in diagram.constrained:
        assert f"P - - {c}" in lines
    assert "$" not in diagram.to_text() and "\\" not in diagram.to_text()


def test_to_text_single_input():
    assert notation.single_input(title="Robustness").to_text() == "\n".join(
        [
            "Robustness | P: P",
            "x --T--> x'",
            "x --f--> y",
            "x' --f--> y'",
            "P - - y",
            "P - - y'",
        ]
    )


def test_custom_labels_and_title():
    d = notation.pairwise_systematicity(transform=r"$T_1$", prop="P_src(y1, y2) ⟹ P_flw(y1', y2')", title="Sentiment")
    fig = d.draw()
    try:
        ax = fig.axes[0]
        assert ax.get_title() == "Sentiment"
        assert _by_gid(ax, "label:x1->x1'")[0].get_text() == r"$T_1$"
        assert _by_gid(ax, "label:P")[0].get_text() == "P_src(y1, y2) ⟹ P_flw(y1', y2')"
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        # a wide property widens the layout instead of overlapping the outputs
        pbox = _by_gid(ax, "P")[0]
        y1 = d.node("y1")
        assert pbox.get_x() > y1.xy[0] + notation.SQUARE_HALF_SIDE
    finally:
        plt.close(fig)


def test_bare_symbols_are_typeset_in_math():
    d = notation.pairwise_compositionality(encoder="f", head="g_1")
    fig = d.draw()
    try:
        ax = fig.axes[0]
        assert _by_gid(ax, "label:z1->y1")[0].get_text() == "$g_1$"
        assert _by_gid(ax, "label:x1->z1")[0].get_text() == "$f$"
    finally:
        plt.close(fig)


def test_draw_into_existing_axes():
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    try:
        for ax, factory in zip(axes, (notation.single_input, notation.three_way_transitivity)):
            out = factory(title="t").draw(ax)
            assert out is fig
            assert not ax.axison
        assert len([p for p in axes[1].patches if isinstance(p, Circle)]) == 6
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        assert buf.getvalue().startswith(b"\x89PNG")
    finally:
        plt.close(fig)


def test_diagram_is_immutable():
    d = notation.single_input()
    with pytest.raises(AttributeError):
        d.title = "x"  # type: ignore[misc]
    assert d.node("x").source and not d.node("x'").source
    with pytest.raises(KeyError):
        d.node("nope")
