"""PNG pictures of drawings (Pillow): the legend strip on top, the graph below, in the shipped font."""

from __future__ import annotations

import io
import math

from PIL import Image, ImageDraw, ImageFont

from .beliefs import BAR_FONT, NAME_FONT, bar_rows, bar_size, clip
from .styles import (EVIDENCE_COLOR, NODE_BORDER, PNG_FONT, PRIOR_COLOR, EdgeStyle, fmt, font, sequential_color,
                     text_color)


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
    strip = legend_height(drawing, small)
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
    height = int(strip + graph_height + 20)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    centre = (min(xs) + max(xs)) / 2

    def place(name):
        x, y = positions[name]
        return width / 2 + (x - centre) * factor, strip + margin + (y - min(ys)) * factor

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
    """A belief node in a PNG, as :func:`~bnexplore.viz.beliefs.bars_svg` draws it: its name, then per state the prior bar (faint),
    the posterior bar (dark; the observed state in the evidence colour) and the percentage."""
    left, top = corner
    width, height = bar_size(node)
    observed = node.observed is not None
    colour = EVIDENCE_COLOR if observed else NODE_BORDER
    state_font = font(BAR_FONT)
    draw.rounded_rectangle([left + 1, top + 1, left + width - 1, top + height - 1], radius=6,
                           fill="#ffffff", outline=colour, width=3 if observed else 2)
    draw.text((left + width / 2, top + 20), clip(node.name, 24), fill=colour, font=font(NAME_FONT), anchor="ms")
    for label, y, bar_x, prior_w, p_w, p, fill in bar_rows(node, width):
        y += top
        draw.text((left + 6, y + 15), label, fill="#37474f", font=state_font, anchor="ls")
        if prior_w >= 0.5:
            draw.rectangle([left + bar_x, y + 3, left + bar_x + prior_w, y + 16], fill=PRIOR_COLOR)
        if p_w >= 0.5:
            draw.rectangle([left + bar_x, y + 6, left + bar_x + p_w, y + 13], fill=fill)
        draw.text((left + width - 5, y + 15), f"{100 * p:.0f}%", fill="#37474f", font=state_font, anchor="rs")


def _text_size(draw, text, font):
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    return right - left, bottom - top


def legend_height(drawing, font):
    """Pixels of the legend strip above the graph of a PNG drawn with ``font`` (none without a legend).

    Examples
    --------
    >>> from bnexplore.viz.styles import Drawing, LegendItem, font
    >>> legend_height(Drawing([], [], [LegendItem("arc", "#000000")]), font(17))
    41
    """
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
        draw.line([(0, legend_height(drawing, font) - 4), (width, legend_height(drawing, font) - 4)],
                  fill="#dddddd", width=1)
