"""Where nodes go: fixed positions for the pictures, computed once per node set.

:func:`layered_layout` draws a graph top to bottom (a small Sugiyama layout,
shaped like the app's 2:1 frames) so that every view of a session puts every
node in the same place; :func:`tier_layout` gives one row per tier of
background knowledge; :func:`belief_positions` sets the bar charts of the Ask
it view out in lines, from the same rows, to be read whole in their frame.
"""

from __future__ import annotations

import math

import networkx as nx

from .beliefs import BELIEF_GAP, bar_size
from .styles import FIT_MARGIN, FONT_SIZE

ASPECT = 2.0
"""Width / height the layouts aim for (the app's graph frames are about 2:1)."""
PACK_ROWS = 6
"""A layered drawing of up to this many rows fits a 1280 x 720 window readably; a taller one is packed
(:func:`layered_layout`)."""


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
    >>> from bnexplore.viz import belief_drawing
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
