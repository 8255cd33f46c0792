"""The Ask it view's layout (issue 29 items 4 and 11): a small network is read whole in a 1280 x 720 window.

:func:`bnexplore.viz.belief_positions` sets belief nodes (bar charts of their
states) out in lines shaped for the frame they are shown in. Measured here
without a browser, from the node sizes the pictures are drawn at
(:func:`bnexplore.viz.bar_size`): the scale at which the whole network fits
the Networks page's frame keeps state names at least ``READABLE_PX`` high,
nodes never overlap, arcs keep the reading order, lines are as high as their
own tallest node, and nodes without arcs fill short lines.
"""

import io
from pathlib import Path

import pandas as pd
import pytest

import bnexplore as bx
from bnexplore import viz
from bnexplore.graphs import DAG

ROOT = Path(__file__).resolve().parent.parent
NETWORKS = ROOT / "sample_data" / "networks"
FRAME = (640, 420)
"""The Networks page's graph frame at 1280 x 720 (bnexplore_app.ask.GRAPH_WIDTH, GRAPH_HEIGHT)."""


def asked(network):
    """The belief drawing of a network with no evidence and the layout the structural views use."""
    engine = bx.InferenceEngine(network)
    answer = engine.query(evidence={})
    priors = {name: dict(zip(network.states[i], engine.priors[name].tolist())) for i, name in enumerate(network.names)}
    dag = network.dag()
    drawing = viz.belief_drawing(dag, answer.posterior, priors, {}, title="asked")
    return drawing, viz.layered_layout(sorted(network.names), viz.graph_edges(dag))


def survey_network():
    """The survey table's network as the browser test learns it: respondent_id left out, numbers in 3 bins,
    hill climbing with BIC (10 nodes of 2 to 6 states, two of them without arcs)."""
    frame = pd.read_csv(ROOT / "tests" / "fixtures" / "survey.csv").drop(columns=["respondent_id"])
    data = bx.read_csv(io.BytesIO(frame.to_csv(index=False).encode()), discretize="quantile:3")
    return bx.fit_network(bx.learn(data, algorithm="hc", score="bic").graph, data)


def boxes(drawing, positions):
    """Name -> (left, top, right, bottom) of each node's picture."""
    out = {}
    for node in drawing.nodes:
        (x, y), (w, h) = positions[node.name], viz.bar_size(node)
        out[node.name] = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    return out


def fitted_scale(drawing, positions, frame=FRAME):
    """The scale at which the interactive picture shows the whole network in ``frame`` (its fit script)."""
    found = boxes(drawing, positions).values()
    width = max(b[2] for b in found) - min(b[0] for b in found)
    height = max(b[3] for b in found) - min(b[1] for b in found)
    return min(1.0, (frame[0] - 2 * viz.FIT_MARGIN) / width, (frame[1] - 2 * viz.FIT_MARGIN) / height)


def lines_of(positions, drawing):
    """The nodes grouped by line (equal tops), top to bottom, each line left to right."""
    tops = {}
    for name, (left, top, _, _) in boxes(drawing, positions).items():
        tops.setdefault(round(top, 1), []).append((left, name))
    return [[name for _, name in sorted(tops[top])] for top in sorted(tops)]


@pytest.fixture(scope="module")
def networks():
    found = {name: bx.read_bif(NETWORKS / f"{name}.bif.gz") for name in ("cancer", "asia", "sachs", "alarm")}
    found["survey"] = survey_network()
    return found


@pytest.mark.parametrize("name", ["cancer", "asia", "sachs", "survey"])
def test_a_small_network_is_read_whole_in_the_networks_frame(networks, name):
    drawing, layout = asked(networks[name])
    positions = viz.belief_positions(layout, drawing, FRAME)
    assert fitted_scale(drawing, positions) * viz.BAR_FONT >= viz.READABLE_PX


@pytest.mark.parametrize("name", ["asia", "sachs", "survey", "alarm"])
def test_nodes_never_overlap_and_arcs_keep_the_reading_order(networks, name):
    drawing, layout = asked(networks[name])
    positions = viz.belief_positions(layout, drawing, FRAME)
    found = boxes(drawing, positions)
    names = sorted(found)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            (l1, t1, r1, b1), (l2, t2, r2, b2) = found[a], found[b]
            assert r1 <= l2 or r2 <= l1 or b1 <= t2 or b2 <= t1, (a, b)
    place = {v: (k, i) for k, line in enumerate(lines_of(positions, drawing)) for i, v in enumerate(line)}
    for edge in drawing.edges:
        assert place[edge.u] < place[edge.v], (edge.u, edge.v)  # to a later line, or to the right in a line


def test_lines_are_as_high_as_their_own_tallest_node():
    """Two lines, one of two-state nodes and one with a six-state node: the first is only as high as a
    two-state node (the old layout gave every row the height of the tallest node of all)."""
    names = ["a", "b", "c", "d"]
    graph = DAG.from_arcs([("a", "c"), ("b", "d")], names)
    two = {"yes": 0.5, "no": 0.5}
    six = {str(k): 1 / 6 for k in range(6)}
    beliefs = {"a": two, "b": two, "c": six, "d": two}
    drawing = viz.belief_drawing(graph, beliefs, beliefs)
    positions = viz.belief_positions({"a": (0, 0), "b": (100, 0), "c": (0, 140), "d": (100, 140)}, drawing,
                                     frame=(400, 900))  # narrow: a line per layer
    lines = lines_of(positions, drawing)
    assert lines == [["a", "b"], ["c", "d"]]
    two_high = viz.BAR_TOP + 2 * viz.BAR_ROW + viz.BAR_BOTTOM
    first_bottom = positions["a"][1] + two_high / 2
    second_top = positions["c"][1] - viz.bar_size(drawing.nodes[2])[1] / 2
    assert second_top - first_bottom == pytest.approx(viz.BELIEF_GAP[1])


def test_nodes_without_arcs_fill_short_lines():
    """The survey network's gender and region have no arc: they join lines of the connected nodes."""
    names = ["a", "b", "c", "lone1", "lone2"]
    graph = DAG.from_arcs([("a", "b"), ("a", "c")], names)
    beliefs = {v: {"yes": 0.5, "no": 0.5} for v in names}
    drawing = viz.belief_drawing(graph, beliefs, beliefs)
    layout = viz.layered_layout(names, [("a", "b"), ("a", "c")])
    lines = lines_of(viz.belief_positions(layout, drawing, (640, 420)), drawing)
    assert all(any(v in ("a", "b", "c") for v in line) for line in lines), lines


def test_the_width_follows_the_state_names():
    """Short state names give a narrow picture; long ones (shortened to STATE_CHARS) a wider one; the bar of
    probability 1 is BAR_LENGTH long in both."""
    short = viz.NodeStyle("x", bars=[("no", 0.5, 0.5), ("yes", 0.5, 0.5)])
    long = viz.NodeStyle("x", bars=[("bachelor's degree", 0.5, 0.5), ("master's degree", 0.5, 0.5)])
    assert viz.bar_size(short)[0] < viz.bar_size(long)[0] <= 6 + viz.text_width("W" * viz.STATE_CHARS, viz.BAR_FONT) \
        + 6 + viz.BAR_LENGTH + viz.PERCENT_ROOM + 1


def test_a_large_network_cannot_be_whole_and_readable_so_its_html_opens_at_the_least_readable_scale(networks):
    drawing, layout = asked(networks["alarm"])
    positions = viz.belief_positions(layout, drawing, FRAME)
    assert fitted_scale(drawing, positions) * viz.BAR_FONT < viz.READABLE_PX
    page = viz.to_html(drawing, positions, height=FRAME[1])
    assert f"least = {viz.READABLE_PX / viz.BAR_FONT:.4f}" in page  # opens zoomed in, saying so (test_viz_fit)
