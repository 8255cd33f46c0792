"""Drawings as text other tools read: Graphviz DOT and GraphML, colours, widths, dashes and hover texts kept."""

from __future__ import annotations

import html
import re

import networkx as nx

from .styles import text_color


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
