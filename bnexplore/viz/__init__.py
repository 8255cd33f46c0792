"""Pictures of networks: layouts, styles, and HTML / PNG / DOT / GraphML output.

A picture is built in two steps. A *drawing* function turns graphs (and the
numbers to show on them) into a :class:`Drawing` (:mod:`.drawings`, and
:mod:`.beliefs` for the Ask it view's bar charts) in the visual language of
:mod:`.styles`. An *output* function then renders the Drawing at fixed node
positions (:mod:`.layout`: :func:`layered_layout`, computed once per node set
so every view of a session puts every node in the same place):
:func:`to_html` (:mod:`.interactive`, a vis-network page that works offline),
:func:`to_png` (:mod:`.png`), :func:`to_dot` and :func:`to_graphml`
(:mod:`.exports`). Nothing here imports Streamlit.

Every public name of the modules is importable from ``bnexplore.viz``; so is
:func:`arc_contributions`, which lives with the scores
(:mod:`bnexplore.scores.contributions`).
"""

from ..scores.contributions import arc_contributions
from .beliefs import (BAR_BOTTOM, BAR_FONT, BAR_LENGTH, BAR_ROW, BAR_STATES, BAR_TOP, BELIEF_GAP, NAME_FONT,
                      PERCENT_ROOM, STATE_CHARS, bar_rows, bar_size, bars_svg, belief_drawing, clip, short_labels)
from .drawings import (COMPARE_KINDS, compare_edges, comparison_drawing, comparison_sides, cpdag_drawing, cpt_html,
                       knowledge_drawing, pdag_drawing, strength_drawing)
from .exports import to_dot, to_graphml
from .interactive import legend_html, to_html
from .layout import ASPECT, PACK_ROWS, belief_positions, graph_edges, layered_layout, tier_layout
from .png import legend_height, to_png
from .styles import (ARC_COLOR, BAR_COLOR, COMMON_COLOR, COMPELLED_COLOR, EVIDENCE_COLOR, FAINT_COLOR, FIT_MARGIN,
                     FONT_SIZE, FORBIDDEN_COLOR, MAX_WIDTH, MIN_WIDTH, NODE_BORDER, NODE_FILL, ONLY_A_COLOR,
                     ONLY_B_COLOR, PNG_FONT, PRIOR_COLOR, READABLE_PX, REQUIRED_COLOR, REVERSED_COLOR,
                     REVERSIBLE_COLOR, VIRIDIS, ColorBar, Drawing, EdgeStyle, LegendItem, NodeStyle, fmt, font, rgb,
                     scaled, sequential_color, text_color, text_width, widths)

__all__ = [
    "ARC_COLOR", "ASPECT", "BAR_BOTTOM", "BAR_COLOR", "BAR_FONT", "BAR_LENGTH", "BAR_ROW", "BAR_STATES", "BAR_TOP",
    "BELIEF_GAP", "COMMON_COLOR", "COMPARE_KINDS", "COMPELLED_COLOR", "EVIDENCE_COLOR", "FAINT_COLOR",
    "FIT_MARGIN", "FONT_SIZE", "FORBIDDEN_COLOR", "MAX_WIDTH", "MIN_WIDTH", "NAME_FONT", "NODE_BORDER",
    "NODE_FILL", "ONLY_A_COLOR", "ONLY_B_COLOR", "PACK_ROWS", "PERCENT_ROOM", "PNG_FONT", "PRIOR_COLOR",
    "READABLE_PX", "REQUIRED_COLOR", "REVERSED_COLOR", "REVERSIBLE_COLOR", "STATE_CHARS", "VIRIDIS",
    "ColorBar", "Drawing", "EdgeStyle", "LegendItem", "NodeStyle",
    "arc_contributions", "bar_rows", "bar_size", "bars_svg", "belief_drawing", "belief_positions", "clip",
    "compare_edges", "comparison_drawing", "comparison_sides", "cpdag_drawing", "cpt_html", "fmt", "font",
    "graph_edges", "knowledge_drawing", "layered_layout", "legend_height", "legend_html", "pdag_drawing", "rgb",
    "scaled", "sequential_color", "short_labels", "strength_drawing", "text_color", "text_width", "tier_layout",
    "to_dot", "to_graphml", "to_html", "to_png", "widths",
]
