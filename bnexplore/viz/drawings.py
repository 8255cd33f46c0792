"""Pictures of networks: layouts, styles, and HTML / PNG / DOT / GraphML output.

A picture is built in two steps. A *drawing* function turns graphs (and the
numbers to show on them) into a :class:`Drawing`: nodes and edges with their
colours, widths, dash patterns and hover texts, a legend and an optional
colour bar, following the visual language of DESIGN.md:

- arcs solid with arrowheads; links (undirected edges) dashed, no arrowheads;
  in a CPDAG compelled arcs dark and reversible edges light;
- comparing A with B: common edges grey, only in A blue, only in B orange,
  same adjacency but different direction purple;
- quantities on edges as width (exact number on hover), quantities on nodes
  as fill colour on one sequential scale with a colour bar.

An *output* function then renders the Drawing at fixed node positions
(:func:`layered_layout`, computed once per node set so every view of a
session puts every node in the same place): :func:`to_html` (an interactive
vis-network page that works offline), :func:`to_png`, :func:`to_dot` and
:func:`to_graphml`. Nothing here imports Streamlit.
"""

from __future__ import annotations

import functools
import html
import io
import json
import math
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np
from PIL import Image, ImageDraw, ImageFont

ARC_COLOR = "#37474f"
COMPELLED_COLOR = "#212121"
REVERSIBLE_COLOR = "#b0b0b0"
COMMON_COLOR = "#9e9e9e"
ONLY_A_COLOR = "#1f77b4"
ONLY_B_COLOR = "#ff7f0e"
REVERSED_COLOR = "#8e44ad"
NODE_FILL = "#e3f2fd"
NODE_BORDER = "#1565c0"
FONT_SIZE = 22
PNG_FONT = Path(__file__).resolve().parent.parent / "fonts" / "DejaVuSans.ttf"
"""The font of PNG pictures, shipped with the package (Bitstream Vera licence, fonts/DejaVuSans-LICENSE.txt):
Pillow's built-in font has no em dash, arrows or accented letters, which it draws as boxes."""
ASPECT = 2.0
"""Width / height the layouts aim for (the app's graph frames are about 2:1)."""
PACK_ROWS = 6
"""A layered drawing of up to this many rows fits a 1280 x 720 window readably; a taller one is packed
(:func:`layered_layout`)."""
MIN_WIDTH, MAX_WIDTH = 1.5, 9.0
# Viridis, sampled at 9 points: dark purple (low) to yellow (high).
_SCALE = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"]


@dataclass
class NodeStyle:
    """How one node is drawn.

    Attributes
    ----------
    name : str
        The variable name (the node's id).
    fill : str
        Fill colour (``#rrggbb``).
    title : str
        Hover text, as HTML (escaped by the caller).
    border : str
        Border colour.
    bars : list of (str, float, float), optional
        ``(state, probability, prior)`` per state: the node is drawn as a small
        bar chart (the posterior dark, the prior faint behind it) instead of a
        box with its name (see :func:`belief_drawing`).
    observed : str or None
        The state the node is observed in (drawn in the evidence colour).
    """

    name: str
    fill: str = NODE_FILL
    title: str = ""
    border: str = NODE_BORDER
    bars: list | None = None
    observed: str | None = None


@dataclass
class EdgeStyle:
    """How one edge is drawn.

    Attributes
    ----------
    u, v : str
        End points; for an arc the tail and the head.
    directed : bool
        Arc with an arrowhead at ``v`` (True) or link without arrowheads.
    dashed : bool
    color : str
    width : float
        Line width in pixels.
    title : str
        Hover text, as HTML (escaped by the caller).
    kind : str
        What the edge is in the drawing (e.g. "arc", "link", "only in A");
        kept in DOT and GraphML output.
    """

    u: str
    v: str
    directed: bool = True
    dashed: bool = False
    color: str = ARC_COLOR
    width: float = 2.5
    title: str = ""
    kind: str = "arc"


@dataclass
class LegendItem:
    """One legend entry: a line sample (edge) or a swatch (node) and its label; ``bar`` entries stand for
    the bars of a belief node (the PNG draws them as bars)."""

    label: str
    color: str
    dashed: bool = False
    directed: bool = True
    bar: bool = False


@dataclass
class ColorBar:
    """The scale of the node fill colours: what it measures and its range."""

    label: str
    low: float
    high: float


@dataclass
class Drawing:
    """Nodes, edges, legend and colour bar of one picture."""

    nodes: list
    edges: list
    legend: list = field(default_factory=list)
    colorbar: ColorBar | None = None
    title: str = ""

    @property
    def names(self):
        return [node.name for node in self.nodes]


# ---------------------------------------------------------------------------
# colours and sizes


def sequential_color(t):
    """Colour of ``t`` in [0, 1] on the sequential (viridis) scale.

    Values outside [0, 1] are clipped; NaN gives the neutral node fill.
    """
    if t is None or not math.isfinite(t):
        return NODE_FILL
    t = min(max(float(t), 0.0), 1.0) * (len(_SCALE) - 1)
    k = min(int(t), len(_SCALE) - 2)
    a, b = _rgb(_SCALE[k]), _rgb(_SCALE[k + 1])
    f = t - k
    return "#%02x%02x%02x" % tuple(round(x + (y - x) * f) for x, y in zip(a, b))


def _rgb(color):
    color = color.lstrip("#")
    return tuple(int(color[i: i + 2], 16) for i in (0, 2, 4))


def text_color(fill):
    """Black or white, whichever reads better on ``fill``."""
    r, g, b = _rgb(fill)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def scaled(values):
    """Map numbers to [0, 1] linearly over their range (all 0.5 when constant).

    Parameters
    ----------
    values : dict
        Key -> finite number.

    Returns
    -------
    dict
        Same keys, values in [0, 1].
    """
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    if high - low <= 1e-12 * max(1.0, abs(high)):
        return {key: 0.5 for key in values}
    return {key: (value - low) / (high - low) for key, value in values.items()}


def widths(magnitudes):
    """Line widths proportional to the magnitudes (largest gets MAX_WIDTH).

    Parameters
    ----------
    magnitudes : dict
        Key -> number; the absolute value sets the width.

    Returns
    -------
    dict
        Key -> width in ``[MIN_WIDTH, MAX_WIDTH]``.
    """
    top = max((abs(m) for m in magnitudes.values()), default=0.0)
    if top <= 0:
        return {key: MIN_WIDTH for key in magnitudes}
    return {key: MIN_WIDTH + (MAX_WIDTH - MIN_WIDTH) * abs(m) / top for key, m in magnitudes.items()}


def fmt(value, digits=4):
    """A number rounded for reading (``digits`` significant digits)."""
    if value is None:
        return "–"
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
        return f"{value:.{digits - 1}e}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value)))) if value else 0
    return f"{value:,.{decimals}f}"


# ---------------------------------------------------------------------------
# layout


def layered_layout(names, edges, spacing=None):
    """Fixed positions for drawing a graph top to bottom.

    A small Sugiyama layout: each node's layer is the length of the longest
    directed path reaching it (links are read as arcs from the node listed
    first), and a source is then moved down to just above its highest child;
    nodes without any edge go on a last row; within a layer nodes are
    ordered by the barycentre of their neighbours in the layers above and
    below (a few downward and upward sweeps), and a layer wider than
    ``sqrt(ASPECT n dy / dx)`` nodes is folded into several rows, so that a
    grid of n nodes is about :data:`ASPECT` times as wide as high, like the
    frame it is drawn in, and names stay readable. When the longest
    directed path makes the drawing more than twice as tall as such a grid,
    and more than :data:`PACK_ROWS` rows, consecutive rows are joined into
    lines of that width (:func:`_packed`).
    Deterministic: the same names and edges always give the same positions.

    Parameters
    ----------
    names : sequence of str
        Every node.
    edges : iterable of (str, str)
        Directed pairs (tail, head); pairs that would close a cycle are
        ignored for layering.
    spacing : (float, float), optional
        Horizontal and vertical distance between neighbouring nodes (default:
        wide enough for the longest name at the graphs' font size, and 140).

    Returns
    -------
    dict
        Name -> (x, y) in pixels, y growing downwards.
    """
    names = list(names)
    graph = nx.DiGraph()
    graph.add_nodes_from(names)
    for u, v in edges:
        if u != v and u in graph and v in graph:
            graph.add_edge(u, v)
            if not nx.is_directed_acyclic_graph(graph):
                graph.remove_edge(u, v)
    connected = [v for v in names if graph.degree(v) > 0]
    layer = {}
    for v in nx.topological_sort(graph):
        if v in connected:
            layer[v] = max((layer[u] + 1 for u in graph.predecessors(v)), default=0)
    for v in connected:
        if graph.in_degree(v) == 0:
            layer[v] = min(layer[c] for c in graph.successors(v)) - 1
    layers = [[v for v in names if layer.get(v) == k] for k in range(max(layer.values(), default=-1) + 1)]
    _order_by_barycentre(layers, graph)
    isolated = [v for v in names if v not in layer]
    longest = max((len(v) for v in names), default=1)
    dx, dy = spacing or (max(150.0, 0.6 * FONT_SIZE * longest + 50.0), 140.0)
    width = max(4, math.ceil(math.sqrt(ASPECT * len(names) * dy / dx)))
    rows = [layer_nodes[i: i + width] for layer_nodes in layers for i in range(0, len(layer_nodes), width)]
    if len(rows) > max(PACK_ROWS, 2 * math.ceil(len(connected) / width) + 1):  # long paths: too tall to read
        rows = _packed(rows, width)
    rows += [isolated[i: i + width] for i in range(0, len(isolated), width)]
    positions = {}
    for r, row in enumerate(rows):
        shift = 0.25 * dx if r % 2 else 0.0
        for i, v in enumerate(row):
            positions[v] = (round((i - (len(row) - 1) / 2) * dx + shift, 1), round(r * dy, 1))
    return positions


def _packed(rows, width):
    """Consecutive rows joined, in order, into lines of at most ``width`` nodes.

    For a graph whose longest directed path is long (a chain of 17 layers of
    one or two nodes among 31 variables), the layered drawing is several times
    taller than wide and, fitted into the frame, too small to read. Joined
    rows keep the reading order: an arc points down to a later line or, within
    a line, to the right.
    """
    lines = [list(rows[0])]  # called with more than PACK_ROWS rows
    for row in rows[1:]:
        if len(lines[-1]) + len(row) <= width:
            lines[-1] += row
        else:
            lines.append(list(row))
    return lines


def _order_by_barycentre(layers, graph, sweeps=6):
    """Reorder each layer in place by the mean position of its neighbours."""
    undirected = graph.to_undirected(as_view=True)
    for sweep in range(sweeps):
        order = range(1, len(layers)) if sweep % 2 == 0 else range(len(layers) - 2, -1, -1)
        for k in order:
            reference = layers[k - 1] if sweep % 2 == 0 else layers[k + 1]
            where = {v: i for i, v in enumerate(reference)}
            current = {v: i for i, v in enumerate(layers[k])}

            def key(v):
                near = [where[u] for u in undirected.neighbors(v) if u in where]
                return (sum(near) / len(near) if near else current[v], current[v])

            layers[k].sort(key=key)


def graph_edges(graph):
    """The (tail, head) name pairs of a graph's arcs and links, for :func:`layered_layout`."""
    names = graph.names
    return [(names[u], names[v]) for u, v in list(graph.arcs()) + list(graph.links())]


# ---------------------------------------------------------------------------
# drawings


def _node_styles(names, node_values=None, node_titles=None):
    node_values = node_values or {}
    node_titles = node_titles or {}
    shades = scaled({k: v for k, v in node_values.items() if v is not None and math.isfinite(v)})
    return [NodeStyle(name, fill=sequential_color(shades[name]) if name in shades else NODE_FILL,
                      title=node_titles.get(name, f"<b>{html.escape(name)}</b>"))
            for name in names]


def _colorbar(node_values, label):
    finite = [v for v in (node_values or {}).values() if v is not None and math.isfinite(v)]
    if not finite or not label:
        return None
    return ColorBar(label, min(finite), max(finite))


def pdag_drawing(graph, arc_weights=None, arc_titles=None, node_values=None, node_titles=None,
                 value_label=None, arc_color=ARC_COLOR, link_color=ARC_COLOR, arc_label="arc",
                 link_label="link (undirected)", weight_label="thicker = larger number (on hover)", title=""):
    """Drawing of a DAG, PDAG, CPDAG or RPDAG.

    Arcs are solid with an arrowhead; links dashed without arrowheads.

    Parameters
    ----------
    graph : bnexplore.graphs.PDAG
    arc_weights : dict, optional
        ``(u, v)`` name pair -> number shown as the edge's width (for a link
        either order).
    arc_titles : dict, optional
        ``(u, v)`` -> hover HTML of that edge.
    node_values : dict, optional
        Name -> number shown as fill colour (with a colour bar labelled
        ``value_label``).
    node_titles : dict, optional
        Name -> hover HTML.
    arc_color, link_color : str
        Colours of arcs and links (a CPDAG uses dark and light).
    arc_label, link_label, weight_label : str
        Legend labels (the last says what the widths measure).
    title : str
        What the picture shows (first line of the legend and of exports).

    Returns
    -------
    Drawing
    """
    names = graph.names
    arc_weights = arc_weights or {}
    arc_titles = arc_titles or {}
    thickness = widths(arc_weights)
    edges = []
    for kind, pairs in (("arc", graph.arcs()), ("link", graph.links())):
        for u, v in pairs:
            a, b = names[u], names[v]
            key = (a, b) if (a, b) in thickness or kind == "arc" else (b, a)
            default_title = f"{html.escape(a)} {'→' if kind == 'arc' else '—'} {html.escape(b)}"
            edges.append(EdgeStyle(a, b, directed=kind == "arc", dashed=kind == "link",
                                   color=arc_color if kind == "arc" else link_color,
                                   width=thickness.get(key, 2.5), title=arc_titles.get(key, default_title),
                                   kind=kind))
    legend = []
    if graph.arcs() or not graph.links():
        legend.append(LegendItem(arc_label, arc_color))
    if graph.links():
        legend.append(LegendItem(link_label, link_color, dashed=True, directed=False))
    if arc_weights:
        legend.append(LegendItem(weight_label, arc_color))
    return Drawing(_node_styles(names, node_values, node_titles), edges, legend,
                   _colorbar(node_values, value_label), title)


EVIDENCE_COLOR = "#d81b60"
BAR_COLOR = "#1565c0"
PRIOR_COLOR = "#cfd8dc"
BAR_STATES = 8
"""Most states drawn as bars in a node (the rest are summed into one "other" bar)."""


def belief_drawing(graph, posteriors, priors, evidence=None, node_titles=None, title=""):
    """Drawing of a network being asked: every node a bar chart of its states.

    Parameters
    ----------
    graph : bnexplore.graphs.DAG
    posteriors, priors : dict
        Name -> ``{state: probability}`` given the evidence, and with none.
    evidence : dict, optional
        Name -> observed state; those nodes are drawn in the evidence colour.
    node_titles : dict, optional
        Name -> hover HTML.
    title : str

    Returns
    -------
    Drawing
    """
    evidence = evidence or {}
    node_titles = node_titles or {}
    nodes = []
    for name in graph.names:
        states = list(posteriors[name])
        rows = [(str(s), float(posteriors[name][s]), float(priors[name][s])) for s in states]
        if len(rows) > BAR_STATES:
            rest = rows[BAR_STATES - 1:]
            rows = rows[: BAR_STATES - 1] + [(f"{len(rest)} others", sum(r[1] for r in rest), sum(r[2] for r in rest))]
        observed = evidence.get(name)
        nodes.append(NodeStyle(name, title=node_titles.get(name, f"<b>{html.escape(name)}</b>"),
                               border=EVIDENCE_COLOR if observed is not None else NODE_BORDER, bars=rows,
                               observed=None if observed is None else str(observed)))
    edges = [EdgeStyle(graph.names[u], graph.names[v]) for u, v in graph.arcs()]
    legend = [LegendItem("arc", ARC_COLOR), LegendItem("given the evidence", BAR_COLOR, directed=False, bar=True),
              LegendItem("before any evidence", PRIOR_COLOR, directed=False, bar=True)]
    if evidence:
        legend.append(LegendItem("observed", EVIDENCE_COLOR, directed=False, bar=True))
    return Drawing(nodes, edges, legend, None, title)


BAR_FONT = 15
"""Pixel size of a belief node's state names and percentages at full size; the Ask it view opens at a
scale that draws them at least :data:`READABLE_PX` high."""
NAME_FONT = 16
"""Pixel size of a belief node's name (bold) at full size."""
BAR_ROW, BAR_TOP, BAR_BOTTOM = 20, 27, 6
"""Pixels per state row, above the first row (the name) and below the last one."""
BAR_LENGTH = 48
"""Length in pixels of the bar of probability 1 in a belief node."""
PERCENT_ROOM = 50
"""Pixels right of the bars for the percentage ("100%" at :data:`BAR_FONT`) and the border."""
BELIEF_GAP = (20.0, 36.0)
"""Pixels between belief nodes across a line and between lines (room for an arrowhead)."""
STATE_CHARS = 10
"""Most characters of a state name drawn in a belief node (a longer one is shortened in the middle)."""
FIT_MARGIN = 14
"""Pixels the interactive pictures leave around the network when they fit it into their frame."""


@functools.lru_cache(maxsize=8)
def _font(size):
    return ImageFont.truetype(str(PNG_FONT), size)


@functools.lru_cache(maxsize=4096)
def text_width(text, size):
    """Width in pixels of ``text`` in the pictures' font (DejaVu Sans, :data:`PNG_FONT`) at ``size`` pixels.

    The SVG of a belief node names the same font first; a browser without it
    falls back to Arial, which is narrower, so the measure is an upper bound.

    Examples
    --------
    >>> text_width("yes", 15) < text_width("yes, always", 15)
    True
    """
    return _font(size).getlength(text)


def _state_labels(node):
    return short_labels([state for state, _, _ in node.bars], STATE_CHARS)


def bar_size(node):
    """``(width, height)`` in pixels of a belief node's picture (:func:`belief_drawing`).

    As wide as its longest state name, a bar of :data:`BAR_LENGTH` and the
    percentage need, or its name if that is wider; as tall as its states.

    Examples
    --------
    >>> node = NodeStyle("smoke", bars=[("yes", 0.5, 0.5), ("no", 0.5, 0.5)])
    >>> bar_size(node)[1] == BAR_TOP + 2 * BAR_ROW + BAR_BOTTOM
    True
    """
    labels = max((text_width(label, BAR_FONT) for label in _state_labels(node)), default=0.0)
    name = 1.1 * text_width(_clip(node.name, 24), NAME_FONT) + 16  # bold is about a tenth wider
    width = max(6 + labels + 6 + BAR_LENGTH + PERCENT_ROOM, name)
    return math.ceil(width), BAR_TOP + BAR_ROW * len(node.bars) + BAR_BOTTOM


def _bars_svg(node):
    """The SVG of a belief node: its name, then one bar per state (prior faint behind, posterior dark)."""
    width, height = bar_size(node)
    colour = EVIDENCE_COLOR if node.observed is not None else NODE_BORDER
    font = 'font-family="DejaVu Sans, Arial, sans-serif"'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">',
             f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="6" fill="#ffffff" '
             f'stroke="{colour}" stroke-width="{3 if node.observed is not None else 2}"/>',
             f'<text x="{width / 2}" y="20" {font} font-size="{NAME_FONT}" font-weight="bold" text-anchor="middle" '
             f'fill="{colour}">{html.escape(_clip(node.name, 24))}</text>']
    for label, y, bar_x, prior_w, p_w, p, fill in _bar_rows(node, width):
        parts.append(f'<text x="6" y="{y + 15}" {font} font-size="{BAR_FONT}" fill="#37474f">'
                     f'{html.escape(label)}</text>')
        parts.append(f'<rect x="{bar_x}" y="{y + 3}" width="{prior_w:.1f}" height="13" fill="{PRIOR_COLOR}"/>')
        parts.append(f'<rect x="{bar_x}" y="{y + 6}" width="{p_w:.1f}" height="7" fill="{fill}"/>')
        parts.append(f'<text x="{width - 5}" y="{y + 15}" {font} font-size="{BAR_FONT}" text-anchor="end" '
                     f'fill="#37474f">{100 * p:.0f}%</text>')
    parts.append("</svg>")
    return "".join(parts)


def _bar_rows(node, width):
    """The rows of a belief node's picture, for its SVG and its PNG alike: per state ``(label, top of the
    row, left of the bars, prior bar width, posterior bar width, probability, posterior bar colour)``."""
    bar_x = width - PERCENT_ROOM - BAR_LENGTH
    return [(label, BAR_TOP + i * BAR_ROW, bar_x, BAR_LENGTH * min(max(prior, 0), 1),
             BAR_LENGTH * min(max(p, 0), 1), p, EVIDENCE_COLOR if node.observed == state else BAR_COLOR)
            for i, ((state, p, prior), label) in enumerate(zip(node.bars, _state_labels(node)))]


def _clip(text, length):
    return text if len(text) <= length else text[: length - 1] + "…"


def short_labels(labels, length):
    """Labels of at most ``length`` characters that can still be told apart.

    A longer label keeps its beginning and its end with "…" between them
    ("Independent worker" -> "Indep…orker"); where
    labels shortened that way coincide, the split moves until they differ,
    and if none works they are numbered.

    Parameters
    ----------
    labels : list of str
    length : int
        Most characters of a shortened label (at least 3).

    Returns
    -------
    list of str
        One label per input, in order; unchanged when all fit.

    Examples
    --------
    >>> short_labels(["Independent worker", "Independent contractor", "yes"], 11)
    ['Indep…orker', 'Indep…actor', 'yes']
    """
    if all(len(label) <= length for label in labels):
        return list(labels)
    for head in [(length - 1) // 2] + [h for h in range(length - 2, 0, -1) if h != (length - 1) // 2]:
        tail = length - 1 - head
        short = [label if len(label) <= length else label[:head] + "…" + label[-tail:] for label in labels]
        if len(set(short)) == len(short):
            return short
    return [f"{i + 1}: {_clip(label, length - 2 - len(str(i + 1)))}" for i, label in enumerate(labels)]


def belief_positions(positions, drawing, frame=(900.0, 450.0)):
    """Positions for a :func:`belief_drawing`, arranged to be read whole in a frame of the given size.

    The rows of ``positions`` (the layered layout of the structural views)
    keep their order; each line is as high as its tallest node, and nodes
    without any arc fill the shortest lines instead of lines of their own.
    Of the arrangements with at most k nodes a line (k = 1 ... n), rows kept
    or consecutive rows joined into lines as :func:`layered_layout` packs a
    tall drawing, the one fitted at the largest scale into ``frame`` is
    chosen (rows kept when that scale is within 5 % of the best; of equal
    scales, the fewest lines), so that the state names of a small network
    stay readable at full view.

    Parameters
    ----------
    positions : dict
        Name -> (x, y) from :func:`layered_layout` (rows are equal y).
    drawing : Drawing
        The belief drawing (node sizes from :func:`bar_size`).
    frame : (float, float)
        Width and height in pixels of the drawing area it is shown in.

    Returns
    -------
    dict
        Name -> (x, y) of each node's centre, y growing downwards.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> graph = DAG.from_arcs([("a", "b")], ["a", "b", "c"])
    >>> beliefs = {v: {"yes": 0.5, "no": 0.5} for v in "abc"}
    >>> drawing = belief_drawing(graph, beliefs, beliefs)
    >>> spread = belief_positions(layered_layout("abc", [("a", "b")]), drawing)
    >>> spread["a"][1] < spread["b"][1]  # the arc points down
    True
    """
    sizes = {node.name: bar_size(node) for node in drawing.nodes}
    joined = {edge.u for edge in drawing.edges} | {edge.v for edge in drawing.edges}
    by_row = {}
    for name in drawing.names:
        x, y = positions[name]
        by_row.setdefault(y, []).append((x, name))
    rows = [[name for _, name in sorted(by_row[y])] for y in sorted(by_row)]
    isolated = [name for row in rows for name in row if name not in joined]
    rows = [row for row in ([name for name in row if name in joined] for row in rows) if row]
    usable = (frame[0] - 2 * FIT_MARGIN, frame[1] - 2 * FIT_MARGIN)
    candidates = []
    for across in range(1, len(sizes) + 1):
        split = [row[i:i + across] for row in rows for i in range(0, len(row), across)]
        for kept, lines in ((True, split), (False, _packed(split, across) if split else split)):
            lines = _with_isolated(lines, isolated, across, sizes)
            width, height = _line_extent(lines, sizes)
            candidates.append((min(1.0, usable[0] / width, usable[1] / height), kept, lines))
    best = max(scale for scale, _, _ in candidates)
    kept = [(scale, lines) for scale, rows_kept, lines in candidates if rows_kept and scale >= 0.95 * best]
    chosen = kept or [(scale, lines) for scale, _, lines in candidates]
    return _placed(max(chosen, key=lambda c: (c[0], -len(c[1])))[1], sizes)


def _with_isolated(lines, isolated, across, sizes):
    """The lines with each node without arcs added to the narrowest line of fewer than ``across`` nodes
    (the lowest of equals), or to a new line."""
    lines = [list(line) for line in lines]
    for name in isolated:
        room = [i for i, line in enumerate(lines) if len(line) < across]
        if room:
            lines[min(room, key=lambda i: (_line_extent([lines[i]], sizes)[0], -i))].append(name)
        else:
            lines.append([name])
    return lines


def _line_extent(lines, sizes):
    """Width and height in pixels of belief nodes set out in lines."""
    across, down = BELIEF_GAP
    width = max((sum(sizes[v][0] for v in line) + across * (len(line) - 1) for line in lines), default=1.0)
    height = sum(max(sizes[v][1] for v in line) for line in lines) + down * (len(lines) - 1)
    return max(width, 1.0), max(height, 1.0)


def _placed(lines, sizes):
    """Centres of belief nodes set out in lines: each line centred, its nodes' tops aligned."""
    positions = {}
    top = 0.0
    for line in lines:
        x = -_line_extent([line], sizes)[0] / 2
        for v in line:
            width, height = sizes[v]
            positions[v] = (round(x + width / 2, 1), round(top + height / 2, 1))
            x += width + BELIEF_GAP[0]
        top += max(sizes[v][1] for v in line) + BELIEF_GAP[1]
    return positions


FAINT_COLOR = "#b0bec5"
REQUIRED_COLOR = "#2e7d32"
FORBIDDEN_COLOR = "#c62828"


def knowledge_drawing(names, knowledge, title=""):
    """Drawing of what the user knows: required arcs green, forbidden arcs and edges red and dashed.

    Parameters
    ----------
    names : list of str
    knowledge : dict
        ``Knowledge.to_json()``: ``require``, ``forbid``, ``forbid_edges``, ``tiers``.
        Tiers are drawn by :func:`tier_layout` (one row per tier).
    title : str

    Returns
    -------
    Drawing
    """
    edges = [EdgeStyle(u, v, color=REQUIRED_COLOR, width=4.0, title=f"{html.escape(u)} → {html.escape(v)}: required",
                       kind="required") for u, v in knowledge.get("require", [])]
    edges += [EdgeStyle(u, v, color=FORBIDDEN_COLOR, dashed=True, width=2.5, kind="forbidden",
                        title=f"{html.escape(u)} → {html.escape(v)}: forbidden") for u, v in knowledge.get("forbid", [])]
    edges += [EdgeStyle(u, v, directed=False, color=FORBIDDEN_COLOR, dashed=True, width=2.5, kind="forbidden edge",
                        title=f"{html.escape(u)} — {html.escape(v)}: may not be joined either way")
              for u, v in knowledge.get("forbid_edges", [])]
    legend = [LegendItem("required arc", REQUIRED_COLOR), LegendItem("forbidden arc", FORBIDDEN_COLOR, dashed=True),
              LegendItem("forbidden either way", FORBIDDEN_COLOR, dashed=True, directed=False)]
    return Drawing(_node_styles(names), edges, legend, None, title)


def tier_layout(names, tiers, spacing=None):
    """Positions with one row per tier (the earliest on top) and the variables in no tier on a last row."""
    placed = [[v for v in tier if v in names] for tier in tiers]
    rest = [v for v in names if not any(v in tier for tier in placed)]
    rows = [row for row in placed + [rest] if row]
    longest = max((len(v) for v in names), default=1)
    dx, dy = spacing or (max(150.0, 0.6 * FONT_SIZE * longest + 50.0), 120.0)
    width = max(4, math.ceil(math.sqrt(ASPECT * len(names) * dy / dx)))
    positions = {}
    y = 0.0
    for row in rows:
        for start in range(0, len(row), width):
            chunk = row[start:start + width]
            for i, v in enumerate(chunk):
                positions[v] = (round((i - (len(chunk) - 1) / 2) * dx, 1), y)
            y += dy * 0.8
        y += dy * 0.4
    return positions


def strength_drawing(averaged, strength, direction, threshold, title=""):
    """Drawing of bootstrap arc strengths: the averaged network's edges as wide as their strength,
    and every other pair that was ever joined drawn faint and thin.

    Parameters
    ----------
    averaged : PDAG
        The averaged network at ``threshold`` (arcs, and links where the direction is 0.5).
    strength, direction : (n, n) arrays
        ``P(adjacent)`` and ``P(u -> v | adjacent)`` (bnlearn's boot.strength).
    threshold : float
    title : str

    Returns
    -------
    Drawing
    """
    names = averaged.names
    edges = []
    for kind, pairs in (("arc", averaged.arcs()), ("link", averaged.links())):
        for u, v in pairs:
            edges.append(EdgeStyle(names[u], names[v], directed=kind == "arc", dashed=kind == "link",
                                   width=MIN_WIDTH + (MAX_WIDTH - MIN_WIDTH) * float(strength[u, v]),
                                   title=f"{html.escape(names[u])} {'→' if kind == 'arc' else '—'} "
                                         f"{html.escape(names[v])}<br>strength {strength[u, v]:.3f}, "
                                         f"direction {direction[u, v]:.3f}", kind=kind))
    n = len(names)
    for u in range(n):
        for v in range(u + 1, n):
            if strength[u, v] > 0 and not averaged.adjacent(u, v):
                a, b = (u, v) if direction[u, v] >= direction[v, u] else (v, u)
                edges.append(EdgeStyle(names[a], names[b], dashed=True, color=FAINT_COLOR, width=1.0,
                                       title=f"{html.escape(names[a])} → {html.escape(names[b])}<br>strength "
                                             f"{strength[a, b]:.3f} (below the threshold {threshold:.3f}), "
                                             f"direction {direction[a, b]:.3f}", kind="below threshold"))
    legend = [LegendItem(f"in the averaged network (strength > {threshold:.2f}); width = strength", ARC_COLOR)]
    if averaged.links():
        legend.append(LegendItem("no arrow: as many resamples point it one way as the other (direction 0.5)",
                                 ARC_COLOR, dashed=True, directed=False))
    legend.append(LegendItem("joined in some resamples, below the threshold", FAINT_COLOR, dashed=True))
    return Drawing(_node_styles(names), edges, legend, None, title)


def cpdag_drawing(cpdag, node_titles=None, title=""):
    """Drawing of a CPDAG: compelled arcs dark, reversible edges light and dashed."""
    return pdag_drawing(cpdag, node_titles=node_titles, arc_color=COMPELLED_COLOR, link_color=REVERSIBLE_COLOR,
                        arc_label="compelled arc (same in every DAG of the class)",
                        link_label="reversible edge (either direction)", title=title)


def _pair_states(graph, order):
    """Edge state of every pair of ``order`` positions: 0 none, 1 i->j, 2 j->i, 3 link."""
    position = [graph.index(name) for name in order]
    adj = np.asarray(graph.adj)[np.ix_(position, position)].astype(np.int8)
    return adj + 2 * adj.T


COMPARE_KINDS = ("common", "only in A", "only in B", "different direction")


def compare_edges(a, b):
    """Classify the adjacent pairs of two graphs over the same variables.

    Parameters
    ----------
    a, b : bnexplore.graphs.PDAG
        DAGs (or PDAGs) over the same names, matched by name.

    Returns
    -------
    dict
        ``{"common": [...], "only in A": [...], "only in B": [...],
        "different direction": [...]}``; each entry is a tuple
        ``(u, v, directed)`` of names oriented as in the graph that has the
        edge (as in A for the common and different-direction pairs).
    """
    names = a.names
    sa, sb = _pair_states(a, names), _pair_states(b, names)
    out = {kind: [] for kind in COMPARE_KINDS}
    n = len(names)
    for i in range(n):
        for j in range(i + 1, n):
            x, y = int(sa[i, j]), int(sb[i, j])
            if not x and not y:
                continue
            kind = ("only in B" if not x else "only in A" if not y
                    else "common" if x == y else "different direction")
            state = x or y
            u, v = (names[j], names[i]) if state == 2 else (names[i], names[j])
            out[kind].append((u, v, state != 3))
    return out


def comparison_drawing(a, b, name_a="A", name_b="B", title=""):
    """Overlay of two graphs in the comparison colours.

    Common edges grey, edges only in A blue, only in B orange, and pairs
    adjacent in both but oriented differently purple (drawn as in A; the
    hover text gives both).

    Returns
    -------
    Drawing
    """
    colours = {"common": COMMON_COLOR, "only in A": ONLY_A_COLOR, "only in B": ONLY_B_COLOR,
               "different direction": REVERSED_COLOR}
    labels = {"common": "in both", "only in A": f"only in A ({name_a})", "only in B": f"only in B ({name_b})",
              "different direction": "in both, different direction"}
    edges = []
    for kind, pairs in compare_edges(a, b).items():
        for u, v, directed in pairs:
            hover = f"{html.escape(u)} {'→' if directed else '—'} {html.escape(v)}: {labels[kind]}"
            if kind == "different direction":
                hover += f"<br>A: {_edge_text(a, u, v)}<br>B: {_edge_text(b, u, v)}"
            edges.append(EdgeStyle(u, v, directed=directed, dashed=not directed, color=colours[kind],
                                   width=3.5 if kind != "common" else 2.5, title=hover, kind=kind))
    legend = [LegendItem(labels[kind], colours[kind]) for kind in COMPARE_KINDS]
    return Drawing(_node_styles(a.names), edges, legend, None, title)


def comparison_sides(a, b, name_a="A", name_b="B"):
    """Each graph drawn on its own in the comparison colours, for side-by-side views.

    A's picture shows A's edges: grey when B has them too, blue when only A
    has them, purple when B has them the other way; B's picture likewise with
    orange for edges only in B.

    Returns
    -------
    (Drawing, Drawing)
    """
    def side(graph, other, colour, own_label, title):
        kinds = {"common": (COMMON_COLOR, "in both"), "only in A": (colour, own_label),
                 "different direction": (REVERSED_COLOR, "in both, different direction")}
        edges = []
        for kind, pairs in compare_edges(graph, other).items():
            if kind not in kinds:
                continue
            for u, v, directed in pairs:
                edges.append(EdgeStyle(u, v, directed=directed, dashed=not directed, color=kinds[kind][0],
                                       width=3.5 if kind != "common" else 2.5,
                                       title=f"{html.escape(u)} {'→' if directed else '—'} {html.escape(v)}: "
                                             f"{kinds[kind][1]}", kind=kinds[kind][1]))
        legend = [LegendItem(label, color) for color, label in kinds.values()]
        return Drawing(_node_styles(graph.names), edges, legend, None, title)

    return (side(a, b, ONLY_A_COLOR, f"only in A ({name_a})", f"A: {name_a}"),
            side(b, a, ONLY_B_COLOR, f"only in B ({name_b})", f"B: {name_b}"))


def _edge_text(graph, u, v):
    i, j = graph.index(u), graph.index(v)
    if graph.adj[i, j] and graph.adj[j, i]:
        return f"{html.escape(u)} — {html.escape(v)}"
    if graph.adj[i, j]:
        return f"{html.escape(u)} → {html.escape(v)}"
    return f"{html.escape(v)} → {html.escape(u)}"


# ---------------------------------------------------------------------------
# numbers shown on hover


def arc_contributions(scorer, dag):
    """Score contribution of every arc: ``s(v, Pa(v)) - s(v, Pa(v) minus {u})``.

    How much the score would drop if the arc u -> v were deleted (a negative
    number: deleting it would raise the score).

    Parameters
    ----------
    scorer : bnexplore.scores.Scorer
        Over the same variable names as ``dag``.
    dag : bnexplore.graphs.DAG

    Returns
    -------
    dict
        ``(u, v)`` name pair -> float.
    """
    names = dag.names
    out = {}
    for v in range(dag.n):
        parents = [names[p] for p in dag.parents(v)]
        full = scorer.local(names[v], parents)
        for p in parents:
            out[(p, names[v])] = full - scorer.local(names[v], [q for q in parents if q != p])
    return out


def cpt_html(network, v, max_rows=12):
    """The conditional probability table of variable ``v`` as a small HTML table.

    Parameters
    ----------
    network : bnexplore.bif.Network
    v : int
        Variable index.
    max_rows : int
        Parent configurations shown (a note gives how many more there are).

    Returns
    -------
    str
        Escaped HTML: one row per parent configuration, one column per state,
        probabilities rounded to 3 decimals.
    """
    parents = network.parents[v]
    states = network.states[v]
    table = network.cpts[v].reshape(-1, len(states))
    esc = html.escape
    head = "".join(f"<th>{esc(network.names[p])}</th>" for p in parents)
    head += "".join(f"<th>P({esc(s)})</th>" for s in states)
    rows = []
    shape = [len(network.states[p]) for p in parents]
    for config in range(min(len(table), max_rows)):
        labels = np.unravel_index(config, shape) if parents else ()
        cells = "".join(f"<td>{esc(network.states[p][k])}</td>" for p, k in zip(parents, labels))
        cells += "".join(f"<td>{x:.3f}</td>" for x in table[config])
        rows.append(f"<tr>{cells}</tr>")
    more = len(table) - max_rows
    note = f"<div>… {more} more parent configurations (full table in the BIF export)</div>" if more > 0 else ""
    return f"<table class='bnx-cpt'><tr>{head}</tr>{''.join(rows)}</table>{note}"


# ---------------------------------------------------------------------------
# HTML (pyvis / vis-network, offline)

_CDN_TAG = re.compile(r"<link[^>]*cdn\.[^>]*/>|<script[^>]*src=\"https?://[^\"]*\"[^>]*>\s*</script>", re.DOTALL)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>")
_STYLE = """
<style>
body { margin: 0; font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; }
#mynetwork { border: none !important; float: none !important; }
.card { border: none !important; position: relative; }
div.vis-tooltip { white-space: normal; font-size: 16px; max-width: 560px; padding: 8px; }
table.bnx-cpt { border-collapse: collapse; margin-top: 4px; font-size: 14px; }
table.bnx-cpt th, table.bnx-cpt td { border: 1px solid #bbb; padding: 2px 6px; text-align: right; }
#bnx-legend { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 18px; padding: 4px 8px;
  border-bottom: 1px solid #e0e0e0; font-size: 15px; line-height: 1.35; background: #fafafa; }
#bnx-legend .bnx-title { font-weight: 600; }
</style>
"""
_HOVER_SCRIPT = """
<script>
(function () {
  function element(text) { var d = document.createElement('div'); d.innerHTML = text; return d; }
  nodes.update(nodes.get().filter(function (n) { return n.title; })
    .map(function (n) { return {id: n.id, title: element(n.title)}; }));
  edges.update(edges.get().filter(function (e) { return e.title; })
    .map(function (e) { return {id: e.id, title: element(e.title)}; }));
})();
</script>
"""
_NO_PICTURE_LABELS = """
<script>
// A picture node carries its name in its picture, and pyvis gives every node a label (" " here); an empty
// label takes no room, so the node's bounding box, which the fit below measures, is its picture's.
nodes.update(nodes.get().filter(function (n) { return n.shape === "image"; })
  .map(function (n) { return {id: n.id, label: ""}; }));
</script>
"""
_FIT_SCRIPT = """
<script>
(function () {
  // vis-network fits the graph once, at its first draw; but an embedding frame often gets its final size
  // only afterwards, and picture nodes their size only once their image has loaded. So fit again after
  // any draw at which the frame's size or a node's size has changed since the last fit (a fit with
  // nothing changed is not repeated: the user's own zoom and pan stay). The fit leaves a margin of
  // MARGIN pixels (vis-network's own leaves a tenth of the frame). A graph whose names would be drawn
  // smaller than readable is shown from its top at the least readable scale instead, with a hint; a
  // double click on the background shows it whole.
  var fitted = null, least = __LEAST__, MARGIN = __MARGIN__, hint = document.getElementById("bnx-zoom-hint");
  function whole(frame) {
    var boxes = nodes.getIds().map(function (id) { return network.getBoundingBox(id); });
    if (!boxes.length) { return true; }
    var left = Math.min.apply(null, boxes.map(function (b) { return b.left; }));
    var right = Math.max.apply(null, boxes.map(function (b) { return b.right; }));
    var top = Math.min.apply(null, boxes.map(function (b) { return b.top; }));
    var bottom = Math.max.apply(null, boxes.map(function (b) { return b.bottom; }));
    var scale = Math.max(least, Math.min(1, (frame.clientWidth - 2 * MARGIN) / Math.max(right - left, 1),
                                         (frame.clientHeight - 2 * MARGIN) / Math.max(bottom - top, 1)));
    var fits = (right - left) * scale <= frame.clientWidth && (bottom - top) * scale <= frame.clientHeight;
    network.moveTo({scale: scale, animation: false, position: {x: (left + right) / 2, y: fits ? (top + bottom) / 2
                    : top - MARGIN / scale + frame.clientHeight / 2 / scale}});  // else from its top
    return fits;
  }
  network.on("afterDrawing", function () {
    var frame = network.canvas.frame.canvas;
    var sizes = [frame.clientWidth, frame.clientHeight];
    nodes.getIds().forEach(function (id) {
      var shape = network.body.nodes[id].shape;
      sizes.push(Math.round(shape.width || 0), Math.round(shape.height || 0));
    });
    var key = sizes.join(",");
    if (key === fitted) { return; }
    fitted = key;
    var fits = whole(frame);
    if (hint) { hint.style.display = fits ? "none" : "block"; }
  });
  network.on("doubleClick", function (event) {
    if (!event.nodes.length && !event.edges.length) {
      network.fit({animation: false});
      if (hint) { hint.style.display = "none"; }
    }
  });
  // a frame resized between vis-network's own checks is drawn again at once (and so fitted)
  if (window.ResizeObserver) {
    new ResizeObserver(function () { network.redraw(); }).observe(document.getElementById("mynetwork"));
  }
})();
</script>
"""
_ZOOM_HINT = ("<span id='bnx-zoom-hint' style='display:none;margin-left:auto;font-style:italic;color:#555'>"
              "Zoomed in to keep names readable · double-click: whole network</span>")
"""Said at the end of the legend strip (never over the drawing) while the picture is zoomed in."""
READABLE_PX = 12
"""The smallest text, in screen pixels, the interactive pictures open with (:func:`to_html`)."""


def _line_sample(item, length=34):
    dash = ' stroke-dasharray="6,4"' if item.dashed else ""
    head = (f'<polygon points="{length},6 {length - 9},1 {length - 9},11" fill="{item.color}"/>'
            if item.directed else "")
    return (f'<svg width="{length + 2}" height="12" style="vertical-align:middle">'
            f'<line x1="1" y1="6" x2="{length - (8 if item.directed else 1)}" y2="6" stroke="{item.color}" '
            f'stroke-width="3"{dash}/>{head}</svg>')


def legend_html(drawing):
    """The legend box (title, edge styles, colour bar) as HTML."""
    parts = []
    if drawing.title:
        parts.append(f"<div class='bnx-title'>{html.escape(drawing.title)}</div>")
    for item in drawing.legend:
        parts.append(f"<div>{_line_sample(item)} {html.escape(item.label)}</div>")
    bar = drawing.colorbar
    if bar is not None:
        gradient = ", ".join(_SCALE)
        parts.append(
            f"<div>{html.escape(bar.label)}</div><div style='display:flex;align-items:center;gap:6px'>"
            f"<span>{fmt(bar.low)}</span><span style='display:inline-block;width:140px;height:12px;"
            f"background:linear-gradient(to right, {gradient})'></span><span>{fmt(bar.high)}</span></div>")
    return f"<div id='bnx-legend'>{''.join(parts)}</div>" if parts else ""


def to_html(drawing, positions, height=620):
    """An interactive, offline HTML page of a drawing (pyvis / vis-network).

    vis-network is written into the page (``cdn_resources="in_line"``) and
    pyvis's Bootstrap links are removed, so the page needs no internet. Node
    positions are fixed and physics is off; nodes can be dragged and the view
    zoomed. Hover texts are shown as HTML (CPTs as tables). The legend is a
    strip above the drawing area, so it never hides a node and is always in
    view; a picture zoomed in to keep its names readable says so at the end
    of that strip, over no node. Edges are drawn slightly curved so that an edge between two nodes of
    one row does not run through the nodes between them.

    Parameters
    ----------
    drawing : Drawing
    positions : dict
        Name -> (x, y), e.g. from :func:`layered_layout`.
    height : int
        Height of the drawing area in pixels.

    Returns
    -------
    str
    """
    from pyvis.network import Network

    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line")
    for node in drawing.nodes:
        x, y = positions[node.name]
        if node.bars is not None:
            image = "data:image/svg+xml;charset=utf-8," + urllib.parse.quote(_bars_svg(node))
            net.add_node(node.name, label=" ", title=node.title, x=x, y=y, physics=False, shape="image",
                         image=image, shapeProperties={"useImageSize": True, "useBorderWithImage": False},
                         font={"size": 1})  # the name is in the picture: no label space below it
            continue
        net.add_node(node.name, label=node.name, title=node.title, x=x, y=y, physics=False, shape="box",
                     color={"background": node.fill, "border": node.border,
                            "highlight": {"background": node.fill, "border": "#d81b60"},
                            "hover": {"background": node.fill, "border": "#d81b60"}},
                     font={"size": FONT_SIZE, "color": text_color(node.fill)}, borderWidth=2, margin=8)
    for edge in drawing.edges:
        net.add_edge(edge.u, edge.v, title=edge.title, color=edge.color, width=edge.width, dashes=edge.dashed,
                     arrows={"to": {"enabled": edge.directed, "scaleFactor": 1.1}})
    net.set_options(json.dumps({
        "physics": {"enabled": False},
        "edges": {"smooth": {"enabled": True, "type": "curvedCW", "roundness": 0.12}, "selectionWidth": 2,
                  "hoverWidth": 1.5},
        "interaction": {"hover": True, "tooltipDelay": 80, "dragNodes": True, "zoomView": True,
                        "navigationButtons": False, "multiselect": False},
        "layout": {"improvedLayout": False},
    }))
    page = net.generate_html()
    page = _CDN_TAG.sub("", page)
    page = _EMPTY_HEADING.sub("", page)
    page = page.replace("</head>", _STYLE + "</head>", 1)
    legend = legend_html(drawing)
    legend = legend[:-len("</div>")] + _ZOOM_HINT + "</div>" if legend else _ZOOM_HINT
    page = page.replace("<body>", "<body>" + legend, 1)
    pictures = any(node.bars is not None for node in drawing.nodes)
    least = READABLE_PX / (BAR_FONT if pictures else FONT_SIZE)  # the smallest text drawn: state names, or names
    fit = _FIT_SCRIPT.replace("__LEAST__", f"{least:.4f}").replace("__MARGIN__", str(FIT_MARGIN))
    return page.replace("</body>", _HOVER_SCRIPT + (_NO_PICTURE_LABELS if pictures else "") + fit + "</body>", 1)


# ---------------------------------------------------------------------------
# PNG (Pillow)


def to_png(drawing, positions, width=None, scale=1.0):
    """A PNG picture of a drawing: legend strip on top, graph below.

    Parameters
    ----------
    drawing : Drawing
    positions : dict
        Name -> (x, y), the same as for :func:`to_html`.
    width : int, optional
        Image width in pixels (default: wide enough to draw the layout at
        full size, between 1000 and 4000); the height follows the layout.
    scale : float
        Text size factor.

    Returns
    -------
    bytes
        PNG file content.
    """
    font = ImageFont.truetype(str(PNG_FONT), round(20 * scale))
    small = ImageFont.truetype(str(PNG_FONT), round(17 * scale))
    legend_height = _legend_height(drawing, small)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    half = {}
    for node in drawing.nodes:
        if node.bars is not None:
            w, h = bar_size(node)
            half[node.name] = (w / 2, h / 2)
        else:
            w, h = _text_size(probe, node.name, font)
            half[node.name] = ((w + 16) / 2, (h + 12) / 2)
    xs = [positions[n][0] for n in drawing.names] or [0.0]
    ys = [positions[n][1] for n in drawing.names] or [0.0]
    pad = 30 + max((w for w, _ in half.values()), default=0) + 2
    margin = max(50, 20 + max((h for _, h in half.values()), default=0))
    span_x = max(xs) - min(xs) or 1.0
    if width is None:
        width = int(min(4000, max(1000, span_x + 2 * pad)))
    factor = min(1.0, (width - 2 * pad) / span_x) if span_x > 1 else 1.0
    factor = max(factor, 0.35)
    graph_height = (max(ys) - min(ys)) * factor + 2 * margin
    height = int(legend_height + graph_height + 20)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    centre = (min(xs) + max(xs)) / 2

    def place(name):
        x, y = positions[name]
        return width / 2 + (x - centre) * factor, legend_height + margin + (y - min(ys)) * factor

    for edge in drawing.edges:
        _draw_edge(draw, place(edge.u), place(edge.v), half[edge.v], half[edge.u], edge)
    for node in drawing.nodes:
        x, y = place(node.name)
        hw, hh = half[node.name]
        if node.bars is not None:
            _draw_bars(draw, node, (x - hw, y - hh))
            continue
        draw.rounded_rectangle([x - hw, y - hh, x + hw, y + hh], radius=6, fill=node.fill, outline=node.border,
                               width=2)
        draw.text((x, y), node.name, fill=text_color(node.fill), font=font, anchor="mm")
    _draw_legend(draw, drawing, small, width)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _draw_bars(draw, node, corner):
    """A belief node in a PNG, as :func:`_bars_svg` draws it: its name, then per state the prior bar (faint),
    the posterior bar (dark; the observed state in the evidence colour) and the percentage."""
    left, top = corner
    width, height = bar_size(node)
    observed = node.observed is not None
    colour = EVIDENCE_COLOR if observed else NODE_BORDER
    font = _font(BAR_FONT)
    draw.rounded_rectangle([left + 1, top + 1, left + width - 1, top + height - 1], radius=6,
                           fill="#ffffff", outline=colour, width=3 if observed else 2)
    draw.text((left + width / 2, top + 20), _clip(node.name, 24), fill=colour, font=_font(NAME_FONT), anchor="ms")
    for label, y, bar_x, prior_w, p_w, p, fill in _bar_rows(node, width):
        y += top
        draw.text((left + 6, y + 15), label, fill="#37474f", font=font, anchor="ls")
        if prior_w >= 0.5:
            draw.rectangle([left + bar_x, y + 3, left + bar_x + prior_w, y + 16], fill=PRIOR_COLOR)
        if p_w >= 0.5:
            draw.rectangle([left + bar_x, y + 6, left + bar_x + p_w, y + 13], fill=fill)
        draw.text((left + width - 5, y + 15), f"{100 * p:.0f}%", fill="#37474f", font=font, anchor="rs")


def _text_size(draw, text, font):
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    return right - left, bottom - top


def _legend_height(drawing, font):
    lines = len(drawing.legend) + (1 if drawing.title else 0) + (2 if drawing.colorbar else 0)
    return 16 + lines * round(font.size * 1.45) if lines else 0


def _box_exit(centre, towards, half):
    """Where the segment from ``centre`` to ``towards`` leaves a box of half sizes ``half``."""
    dx, dy = towards[0] - centre[0], towards[1] - centre[1]
    if dx == 0 and dy == 0:
        return centre
    t = min(half[0] / abs(dx) if dx else math.inf, half[1] / abs(dy) if dy else math.inf)
    return centre[0] + dx * min(t, 1.0), centre[1] + dy * min(t, 1.0)


def _draw_edge(draw, start, end, head_half, tail_half, edge):
    a = _box_exit(start, end, tail_half)
    b = _box_exit(end, start, head_half)
    width = max(1, round(edge.width))
    if edge.directed:
        length = math.hypot(b[0] - a[0], b[1] - a[1]) or 1.0
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        size = 12 + 1.5 * width
        base = (b[0] - ux * size, b[1] - uy * size)
        _draw_line(draw, a, base, edge.color, width, edge.dashed)
        draw.polygon([b, (base[0] - uy * size / 2.2, base[1] + ux * size / 2.2),
                      (base[0] + uy * size / 2.2, base[1] - ux * size / 2.2)], fill=edge.color)
    else:
        _draw_line(draw, a, b, edge.color, width, edge.dashed)


def _draw_line(draw, a, b, color, width, dashed):
    if not dashed:
        draw.line([a, b], fill=color, width=width)
        return
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    dash, gap = 10.0, 7.0
    t = 0.0
    while t < length:
        t2 = min(t + dash, length)
        p = (a[0] + (b[0] - a[0]) * t / length, a[1] + (b[1] - a[1]) * t / length)
        q = (a[0] + (b[0] - a[0]) * t2 / length, a[1] + (b[1] - a[1]) * t2 / length)
        draw.line([p, q], fill=color, width=width)
        t = t2 + gap


def _draw_legend(draw, drawing, font, width):
    step = round(font.size * 1.45)
    y = 10
    if drawing.title:
        draw.text((14, y), drawing.title, fill="#000000", font=font)
        y += step
    for item in drawing.legend:
        mid = y + step / 2 - 2
        if item.bar:  # a belief node's bar: the prior one tall and faint, the others short and dark
            thick = 7 if item.color == PRIOR_COLOR else 4
            draw.rectangle([14, mid - thick, 60, mid + thick], fill=item.color)
        else:
            _draw_edge(draw, (14, mid), (60, mid), (0, 0), (0, 0),
                       EdgeStyle("", "", directed=item.directed, dashed=item.dashed, color=item.color, width=3))
        draw.text((70, y), item.label, fill="#000000", font=font)
        y += step
    bar = drawing.colorbar
    if bar is not None:
        draw.text((14, y), bar.label, fill="#000000", font=font)
        y += step
        draw.text((14, y), fmt(bar.low), fill="#000000", font=font)
        start = 110
        for i in range(200):
            draw.line([(start + i, y + 3), (start + i, y + step - 6)], fill=sequential_color(i / 199))
        draw.text((start + 210, y), fmt(bar.high), fill="#000000", font=font)
    if y > 10:
        draw.line([(0, _legend_height(drawing, font) - 4), (width, _legend_height(drawing, font) - 4)],
                  fill="#dddddd", width=1)


# ---------------------------------------------------------------------------
# DOT and GraphML


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _plain_text(text):
    """Hover HTML as one line of plain text: cell ends become spaces, line and row ends "; ", tags are
    dropped and only then entities decoded, so a name that looks like a tag (``<missing>``, which the
    hover HTML holds as ``&lt;missing&gt;``) is kept as text."""
    text = re.sub(r"<[^>]*>", "", re.sub(r"<br\s*/?>|</tr>", "\n", re.sub(r"</t[dh]>", " ", text)))
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return html.unescape("; ".join(line for line in lines if line))


def to_dot(drawing, positions=None):
    """Graphviz DOT text of a drawing (colours, widths and dash styles kept).

    Parameters
    ----------
    drawing : Drawing
    positions : dict, optional
        Name -> (x, y); written as ``pos`` (points, y up) so ``neato -n``
        reproduces the app's layout.

    Returns
    -------
    str
    """
    def quote(text):
        return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph bnexplore {", f"  label={quote(drawing.title)};" if drawing.title else "",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica"];']
    for node in drawing.nodes:
        pos = ""
        if positions is not None:
            x, y = positions[node.name]
            pos = f", pos={quote(f'{x:.1f},{-y:.1f}!')}"
        lines.append(f"  {quote(node.name)} [fillcolor={quote(node.fill)}, color={quote(node.border)}, "
                     f"fontcolor={quote(text_color(node.fill))}, tooltip={quote(_plain_text(node.title))}{pos}];")
    for edge in drawing.edges:
        style = "dashed" if edge.dashed else "solid"
        lines.append(f"  {quote(edge.u)} -> {quote(edge.v)} [color={quote(edge.color)}, "
                     f"penwidth={edge.width:.2f}, style={style}, dir={'forward' if edge.directed else 'none'}, "
                     f"tooltip={quote(_plain_text(edge.title))}, kind={quote(edge.kind)}];")
    lines.append("}")
    return "\n".join(line for line in lines if line) + "\n"


def to_graphml(drawing, positions=None):
    """GraphML text of a drawing.

    Every edge is stored once from ``u`` to ``v`` with the attributes
    ``directed`` (False for a link), ``kind``, ``color``, ``width``,
    ``dashed`` and ``info`` (the hover text as plain text); nodes carry
    ``color``, ``info`` and, when given, ``x`` and ``y``. Names and texts
    are kept whole (XML-escaped by networkx), but for the control
    characters XML 1.0 cannot hold, written as U+FFFD.

    Returns
    -------
    str
    """
    def xml(text):
        return _XML_INVALID.sub("\ufffd", text)

    graph = nx.DiGraph(title=xml(drawing.title))
    for node in drawing.nodes:
        attributes = {"color": node.fill, "info": xml(_plain_text(node.title))}
        if positions is not None:
            attributes["x"], attributes["y"] = map(float, positions[node.name])
        graph.add_node(xml(node.name), **attributes)
    for edge in drawing.edges:
        graph.add_edge(xml(edge.u), xml(edge.v), directed=edge.directed, kind=edge.kind, color=edge.color,
                       width=float(edge.width), dashed=edge.dashed, info=xml(_plain_text(edge.title)))
    return "\n".join(nx.generate_graphml(graph)) + "\n"
