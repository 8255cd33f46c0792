"""How pictures look: colours, sizes, fonts and the style objects a drawing is made of.

A *drawing* (:class:`Drawing`) holds nodes and edges with their colours,
widths, dash patterns and hover texts, a legend and an optional colour bar;
the output modules render it. The visual language of DESIGN.md:

- arcs solid with arrowheads; links (undirected edges) dashed, no arrowheads;
  in a CPDAG compelled arcs dark and reversible edges light;
- comparing A with B: common edges grey, only in A blue, only in B orange,
  same adjacency but different direction purple;
- quantities on edges as width (exact number on hover), quantities on nodes
  as fill colour on one sequential scale with a colour bar.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

from PIL import ImageFont

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
MIN_WIDTH, MAX_WIDTH = 1.5, 9.0
EVIDENCE_COLOR = "#d81b60"
BAR_COLOR = "#1565c0"
PRIOR_COLOR = "#cfd8dc"
FAINT_COLOR = "#b0bec5"
REQUIRED_COLOR = "#2e7d32"
FORBIDDEN_COLOR = "#c62828"
READABLE_PX = 12
"""The smallest text, in screen pixels, the interactive pictures open with (:func:`bnexplore.viz.to_html`)."""
FIT_MARGIN = 14
"""Pixels the interactive pictures leave around the network when they fit it into their frame."""
VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"]
"""The sequential scale of node fill colours: viridis sampled at 9 points, dark purple (low) to yellow (high)."""


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
# colours, sizes and text widths


def sequential_color(t):
    """Colour of ``t`` in [0, 1] on the sequential (viridis) scale.

    Values outside [0, 1] are clipped; NaN gives the neutral node fill.
    """
    if t is None or not math.isfinite(t):
        return NODE_FILL
    t = min(max(float(t), 0.0), 1.0) * (len(VIRIDIS) - 1)
    k = min(int(t), len(VIRIDIS) - 2)
    a, b = rgb(VIRIDIS[k]), rgb(VIRIDIS[k + 1])
    f = t - k
    return "#%02x%02x%02x" % tuple(round(x + (y - x) * f) for x, y in zip(a, b))


def rgb(color):
    """``(r, g, b)`` of a ``#rrggbb`` colour.

    Examples
    --------
    >>> rgb("#1565c0")
    (21, 101, 192)
    """
    color = color.lstrip("#")
    return tuple(int(color[i: i + 2], 16) for i in (0, 2, 4))


def text_color(fill):
    """Black or white, whichever reads better on ``fill``."""
    r, g, b = rgb(fill)
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


@functools.lru_cache(maxsize=8)
def font(size):
    """The pictures' font (:data:`PNG_FONT`) at ``size`` pixels, loaded once per size.

    Examples
    --------
    >>> font(15).size
    15
    """
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
    return font(size).getlength(text)
