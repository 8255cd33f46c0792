"""The Ask it view's pictures: every node a small bar chart of its states, before and given the evidence.

:func:`belief_drawing` builds the drawing; :func:`bar_size`, :func:`bar_rows`
and :func:`bars_svg` give one node's picture its size, its rows and its SVG
(the PNG output draws the same rows); :func:`short_labels` shortens long state
names so that they can still be told apart.
"""

from __future__ import annotations

import html
import math

from .styles import (ARC_COLOR, BAR_COLOR, EVIDENCE_COLOR, NODE_BORDER, PRIOR_COLOR, Drawing, EdgeStyle,
                     LegendItem, NodeStyle, text_width)

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

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> graph = DAG.from_arcs([("smoke", "lung")], ["smoke", "lung"])
    >>> beliefs = {"smoke": {"yes": 1.0, "no": 0.0}, "lung": {"yes": 0.2, "no": 0.8}}
    >>> drawing = belief_drawing(graph, beliefs, beliefs, {"smoke": "yes"})
    >>> drawing.nodes[0].bars, drawing.nodes[0].observed
    ([('yes', 1.0, 1.0), ('no', 0.0, 0.0)], 'yes')
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
PERCENT_ROOM = 54
"""Pixels right of the bars for the percentage ("100%" at :data:`BAR_FONT`) and the border."""
BELIEF_GAP = (20.0, 36.0)
"""Pixels between belief nodes across a line and between lines (room for an arrowhead)."""
STATE_CHARS = 10
"""Most characters of a state name drawn in a belief node (a longer one is shortened in the middle)."""


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
    name = 1.1 * text_width(clip(node.name, 24), NAME_FONT) + 16  # bold is about a tenth wider
    width = max(6 + labels + 6 + BAR_LENGTH + PERCENT_ROOM, name)
    return math.ceil(width), BAR_TOP + BAR_ROW * len(node.bars) + BAR_BOTTOM


def bars_svg(node):
    """The SVG of a belief node: its name, then one bar per state (prior faint behind, posterior dark).

    Examples
    --------
    >>> svg = bars_svg(NodeStyle("smoke", bars=[("yes", 0.25, 0.5), ("no", 0.75, 0.5)]))
    >>> svg.startswith("<svg") and "75%" in svg
    True
    """
    width, height = bar_size(node)
    colour = EVIDENCE_COLOR if node.observed is not None else NODE_BORDER
    font = 'font-family="DejaVu Sans, Arial, sans-serif"'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">',
             f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="6" fill="#ffffff" '
             f'stroke="{colour}" stroke-width="{3 if node.observed is not None else 2}"/>',
             f'<text x="{width / 2}" y="20" {font} font-size="{NAME_FONT}" font-weight="bold" text-anchor="middle" '
             f'fill="{colour}">{html.escape(clip(node.name, 24))}</text>']
    for label, y, bar_x, prior_w, p_w, p, fill in bar_rows(node, width):
        parts.append(f'<text x="6" y="{y + 15}" {font} font-size="{BAR_FONT}" fill="#37474f">'
                     f'{html.escape(label)}</text>')
        parts.append(f'<rect x="{bar_x}" y="{y + 3}" width="{prior_w:.1f}" height="13" fill="{PRIOR_COLOR}"/>')
        parts.append(f'<rect x="{bar_x}" y="{y + 6}" width="{p_w:.1f}" height="7" fill="{fill}"/>')
        parts.append(f'<text x="{width - 5}" y="{y + 15}" {font} font-size="{BAR_FONT}" text-anchor="end" '
                     f'fill="#37474f">{100 * p:.0f}%</text>')
    parts.append("</svg>")
    return "".join(parts)


def bar_rows(node, width):
    """The rows of a belief node's picture, for its SVG and its PNG alike: per state ``(label, top of the
    row, left of the bars, prior bar width, posterior bar width, probability, posterior bar colour)``.

    Examples
    --------
    >>> node = NodeStyle("smoke", bars=[("yes", 1.0, 0.5)], observed="yes")
    >>> label, top, left, prior, posterior, p, colour = bar_rows(node, 200)[0]
    >>> (label, left, prior, posterior, colour == EVIDENCE_COLOR)
    ('yes', 98, 24.0, 48.0, True)
    """
    bar_x = width - PERCENT_ROOM - BAR_LENGTH
    return [(label, BAR_TOP + i * BAR_ROW, bar_x, BAR_LENGTH * min(max(prior, 0), 1),
             BAR_LENGTH * min(max(p, 0), 1), p, EVIDENCE_COLOR if node.observed == state else BAR_COLOR)
            for i, ((state, p, prior), label) in enumerate(zip(node.bars, _state_labels(node)))]


def clip(text, length):
    """``text`` cut to ``length`` characters, its last one "…" when cut.

    Examples
    --------
    >>> clip("hours_online", 6), clip("age", 6)
    ('hours…', 'age')
    """
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
    return [f"{i + 1}: {clip(label, length - 2 - len(str(i + 1)))}" for i, label in enumerate(labels)]
