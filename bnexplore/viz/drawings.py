"""Drawings of graphs: a network (DAG, PDAG, CPDAG, RPDAG), a comparison of two, bootstrap strengths and
background knowledge, as :class:`~bnexplore.viz.styles.Drawing` objects, and the hover table of a node's CPT.

A drawing function turns graphs (and the numbers to show on them) into a
Drawing in the visual language of :mod:`bnexplore.viz.styles`; the output
modules (:mod:`~bnexplore.viz.interactive`, :mod:`~bnexplore.viz.png`,
:mod:`~bnexplore.viz.exports`) render it at fixed positions
(:mod:`~bnexplore.viz.layout`).
"""

from __future__ import annotations

import html
import math

import numpy as np

from .styles import (ARC_COLOR, COMMON_COLOR, COMPELLED_COLOR, FAINT_COLOR, FORBIDDEN_COLOR, MAX_WIDTH, MIN_WIDTH,
                     NODE_FILL, ONLY_A_COLOR, ONLY_B_COLOR, REQUIRED_COLOR, REVERSED_COLOR, REVERSIBLE_COLOR,
                     ColorBar, Drawing, EdgeStyle, LegendItem, NodeStyle, scaled, sequential_color, widths)


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
