"""Interactive pictures: a drawing as an offline HTML page (pyvis / vis-network) that fits its frame.

The page carries vis-network inline (it needs no internet), a legend strip
above the drawing area, hover texts as HTML, and a script that fits the whole
network into its frame after every change of size, or, when its names would
be smaller than :data:`~bnexplore.viz.styles.READABLE_PX`, opens it zoomed in
to that size from its top with a hint (double-click shows it whole).
"""

from __future__ import annotations

import html
import json
import re
import urllib.parse

from pyvis.network import Network

from .beliefs import BAR_FONT, bars_svg
from .styles import FIT_MARGIN, FONT_SIZE, READABLE_PX, VIRIDIS, fmt, text_color

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
        gradient = ", ".join(VIRIDIS)
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
    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line")
    for node in drawing.nodes:
        x, y = positions[node.name]
        if node.bars is not None:
            image = "data:image/svg+xml;charset=utf-8," + urllib.parse.quote(bars_svg(node))
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
