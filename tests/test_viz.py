"""Tests of bnexplore.viz: layouts, styles, and the HTML / PNG / DOT / GraphML outputs."""

import io
import json
import re

import networkx as nx
import numpy as np
import pytest
from PIL import Image

from bnexplore import viz
from bnexplore.bif import Network
from bnexplore.data import Dataset
from bnexplore.graphs import CPDAG, DAG, PDAG
from bnexplore.scores import Scorer


def vis_items(page, kind):
    """The node or edge list that pyvis wrote into the page."""
    match = re.search(rf"{kind} = new vis\.DataSet\((\[.*?\])\);", page)
    assert match, f"no {kind} DataSet in the page"
    return json.loads(match.group(1))


# --- layout -------------------------------------------------------------------------


def test_layout_is_deterministic_and_places_every_node_once():
    names = [f"v{i}" for i in range(30)]
    rng = np.random.default_rng(3)
    edges = [(names[i], names[j]) for i in range(30) for j in range(i + 1, 30) if rng.random() < 0.1]
    first = viz.layered_layout(names, edges)
    assert first == viz.layered_layout(names, list(edges))
    assert set(first) == set(names)
    assert len(set(first.values())) == len(names)


def test_layout_layers_follow_the_arcs():
    # chain a -> b -> c -> d; e -> d is a source moved down to just above d.
    names = ["a", "b", "c", "d", "e", "lonely"]
    pos = viz.layered_layout(names, [("a", "b"), ("b", "c"), ("c", "d"), ("e", "d")])
    assert pos["a"][1] < pos["b"][1] < pos["c"][1] < pos["d"][1]
    assert pos["e"][1] == pos["c"][1]
    assert pos["lonely"][1] > pos["d"][1]


def test_layout_ignores_an_edge_that_closes_a_cycle():
    pos = viz.layered_layout(["a", "b", "c"], [("a", "b"), ("b", "c"), ("c", "a")])
    assert pos["a"][1] < pos["b"][1] < pos["c"][1]


@pytest.mark.parametrize("n, length", [(40, 3), (31, 20), (200, 8)])
def test_layout_folds_wide_layers_into_rows_about_twice_as_wide_as_high(n, length):
    names = [f"x{i:0{length - 1}d}" for i in range(n)]
    pos = viz.layered_layout(names, [])
    xs = [x for x, _ in pos.values()]
    rows = sorted({y for _, y in pos.values()})
    columns = max(sum(1 for _, y in pos.values() if y == row) for row in rows)
    assert len(rows) == int(np.ceil(n / columns)) > 1
    aspect = (max(xs) - min(xs)) / (rows[-1] - rows[0])
    assert 0.8 * viz.ASPECT < aspect < 2.5 * viz.ASPECT


def test_a_long_chain_is_packed_into_lines_that_keep_the_reading_order():
    # 30 nodes on a path of 20 layers (each second node with a side child): a layered drawing 20 rows tall
    names = [f"node{i:02d}" for i in range(30)]
    edges = [(names[i], names[i + 1]) for i in range(19)] + [(names[i], names[20 + i // 2]) for i in range(0, 20, 2)]
    pos = viz.layered_layout(names, edges)
    rows = sorted({y for _, y in pos.values()})
    assert len(rows) <= 8
    assert len(set(pos.values())) == len(names)
    for u, v in edges:  # down to a later line, or to the right within a line
        (xu, yu), (xv, yv) = pos[u], pos[v]
        assert yv > yu or (yv == yu and xv > xu), (u, v)
    short = viz.layered_layout(names[:8], [(names[i], names[i + 1]) for i in range(3)])
    assert len({y for _, y in short.values()}) == 5  # a short path keeps one layer per row (4, then the isolated)


# --- colours and numbers -------------------------------------------------------------


def test_sequential_scale_ends_and_middle():
    assert viz.sequential_color(0.0) == "#440154"
    assert viz.sequential_color(1.0) == "#fde725"
    assert viz.sequential_color(0.5) == "#21918c"
    assert viz.sequential_color(-3) == "#440154"
    assert viz.sequential_color(float("nan")) == viz.NODE_FILL


def test_widths_are_proportional_to_magnitude():
    w = viz.widths({"a": 2.0, "b": -1.0, "c": 0.0})
    assert w["a"] == viz.MAX_WIDTH
    assert w["b"] == pytest.approx(viz.MIN_WIDTH + (viz.MAX_WIDTH - viz.MIN_WIDTH) / 2)
    assert w["c"] == viz.MIN_WIDTH


def test_text_colour_contrasts_with_fill():
    assert viz.text_color("#ffffff") == "#000000"
    assert viz.text_color("#440154") == "#ffffff"


def test_fmt_rounds_for_reading():
    assert viz.fmt(-53289.856172) == "-53,290"
    assert viz.fmt(3.14159) == "3.142"
    assert viz.fmt(0.000123456) == "1.235e-04"
    assert viz.fmt(2.0) == "2.000"


# --- drawings -------------------------------------------------------------------------


def test_pdag_drawing_styles_arcs_and_links():
    graph = PDAG.from_json({"nodes": ["a", "b", "c"], "arcs": [["a", "b"]], "links": [["b", "c"]]})
    drawing = viz.pdag_drawing(graph, arc_weights={("a", "b"): 3.0}, title="t")
    by_pair = {(e.u, e.v): e for e in drawing.edges}
    assert by_pair[("a", "b")].directed and not by_pair[("a", "b")].dashed
    assert by_pair[("a", "b")].width == viz.MAX_WIDTH
    assert not by_pair[("b", "c")].directed and by_pair[("b", "c")].dashed


def test_cpdag_drawing_compelled_dark_reversible_light():
    # a -> c <- b is a v-structure (compelled); c -- d ... c -> d is compelled by Meek R1.
    dag = DAG.from_arcs([("a", "c"), ("b", "c"), ("c", "d"), ("e", "f")], ["a", "b", "c", "d", "e", "f"])
    drawing = viz.cpdag_drawing(dag.cpdag())
    colours = {(e.u, e.v): (e.color, e.directed, e.dashed) for e in drawing.edges}
    for arc in [("a", "c"), ("b", "c"), ("c", "d")]:
        assert colours[arc] == (viz.COMPELLED_COLOR, True, False)
    assert colours[("e", "f")] == (viz.REVERSIBLE_COLOR, False, True)


def test_compare_edges_by_hand():
    names = ["a", "b", "c", "d", "e"]
    a = DAG.from_arcs([("a", "b"), ("b", "c"), ("c", "d")], names)
    b = DAG.from_arcs([("a", "b"), ("c", "b"), ("d", "e")], names)
    kinds = viz.compare_edges(a, b)
    assert kinds["common"] == [("a", "b", True)]
    assert kinds["different direction"] == [("b", "c", True)]
    assert kinds["only in A"] == [("c", "d", True)]
    assert kinds["only in B"] == [("d", "e", True)]


def test_compare_edges_matches_names_in_a_different_order():
    a = DAG.from_arcs([("x", "y")], ["x", "y", "z"])
    b = DAG.from_arcs([("x", "y"), ("z", "y")], ["z", "y", "x"])
    kinds = viz.compare_edges(a, b)
    assert kinds["common"] == [("x", "y", True)]
    assert kinds["only in B"] == [("z", "y", True)]


def test_comparison_drawing_colours_and_legend():
    names = ["a", "b", "c", "d", "e"]
    a = DAG.from_arcs([("a", "b"), ("b", "c"), ("c", "d")], names)
    b = DAG.from_arcs([("a", "b"), ("c", "b"), ("d", "e")], names)
    drawing = viz.comparison_drawing(a, b)
    colour = {(e.u, e.v): e.color for e in drawing.edges}
    assert colour == {("a", "b"): viz.COMMON_COLOR, ("b", "c"): viz.REVERSED_COLOR,
                      ("c", "d"): viz.ONLY_A_COLOR, ("d", "e"): viz.ONLY_B_COLOR}
    assert [item.color for item in drawing.legend] == [viz.COMMON_COLOR, viz.ONLY_A_COLOR, viz.ONLY_B_COLOR,
                                                      viz.REVERSED_COLOR]
    side_a, side_b = viz.comparison_sides(a, b)
    assert {(e.u, e.v): e.color for e in side_a.edges} == {
        ("a", "b"): viz.COMMON_COLOR, ("b", "c"): viz.REVERSED_COLOR, ("c", "d"): viz.ONLY_A_COLOR}
    assert {(e.u, e.v): e.color for e in side_b.edges} == {
        ("a", "b"): viz.COMMON_COLOR, ("c", "b"): viz.REVERSED_COLOR, ("d", "e"): viz.ONLY_B_COLOR}


def test_node_values_become_colours_with_a_colour_bar():
    dag = DAG.from_arcs([("a", "b")], ["a", "b", "c"])
    drawing = viz.pdag_drawing(dag, node_values={"a": -10.0, "b": 0.0, "c": -5.0}, value_label="local score")
    fills = {n.name: n.fill for n in drawing.nodes}
    assert fills == {"a": "#440154", "b": "#fde725", "c": "#21918c"}
    assert (drawing.colorbar.low, drawing.colorbar.high) == (-10.0, 0.0)


# --- numbers on hover -------------------------------------------------------------------


def small_data():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2, 400)
    y = (x ^ (rng.random(400) < 0.2)).astype(int)
    z = (y ^ (rng.random(400) < 0.3)).astype(int)
    w = rng.integers(0, 3, 400)
    return Dataset.from_codes(np.column_stack([x, y, z, w]), names=["x", "y", "z", "w"])


def test_arc_contributions_equal_the_score_drop_of_deleting_the_arc():
    data = small_data()
    scorer = Scorer(data, score="bdeu")
    arcs = [("x", "y"), ("y", "z"), ("x", "z"), ("w", "z")]
    dag = DAG.from_arcs(arcs, data.names)
    contributions = viz.arc_contributions(scorer, dag)
    assert set(contributions) == set(arcs)
    total = scorer.total(dag)
    for arc in arcs:
        without = DAG.from_arcs([a for a in arcs if a != arc], data.names)
        assert contributions[arc] == pytest.approx(total - scorer.total(without), abs=1e-8)


def test_cpt_html_rows_and_truncation():
    cpt = np.array([[0.25, 0.75], [0.5, 0.5], [0.125, 0.875]])
    network = Network("n", ["p", "c"], [["p0", "p1", "p2"], ["no", "yes"]], [[], [0]],
                      [np.array([0.2, 0.3, 0.5]), cpt])
    text = viz.cpt_html(network, 1)
    assert text.count("<tr>") == 4
    assert "<td>p2</td><td>0.125</td><td>0.875</td>" in text
    assert "P(yes)" in text
    short = viz.cpt_html(network, 1, max_rows=2)
    assert short.count("<tr>") == 3 and "1 more parent configurations" in short


def test_hover_text_is_escaped():
    dag = DAG.from_arcs([("<b>", "x")], ["<b>", "x"])
    drawing = viz.pdag_drawing(dag)
    assert "&lt;b&gt;" in drawing.nodes[0].title and "<b><b>" not in drawing.nodes[0].title


# --- outputs ----------------------------------------------------------------------------


def demo():
    names = ["a", "b", "c", "d"]
    graph = PDAG.from_json({"nodes": names, "arcs": [["a", "b"], ["c", "b"]], "links": [["b", "d"]]})
    drawing = viz.pdag_drawing(graph, title="demo")
    return drawing, viz.layered_layout(names, viz.graph_edges(graph))


def test_html_has_nodes_edges_styles_and_works_offline():
    drawing, positions = demo()
    page = viz.to_html(drawing, positions)
    nodes = {n["id"]: n for n in vis_items(page, "nodes")}
    edges = {(e["from"], e["to"]): e for e in vis_items(page, "edges")}
    assert set(nodes) == {"a", "b", "c", "d"}
    assert (nodes["a"]["x"], nodes["a"]["y"]) == positions["a"]
    assert nodes["a"]["physics"] is False and nodes["a"]["font"]["size"] == viz.FONT_SIZE
    assert edges[("a", "b")]["arrows"]["to"]["enabled"] is True and edges[("a", "b")]["dashes"] is False
    assert edges[("b", "d")]["arrows"]["to"]["enabled"] is False and edges[("b", "d")]["dashes"] is True
    assert '"physics": {"enabled": false}' in page.replace("\n", "").replace("  ", "") or \
        json.loads(re.search(r"var options = (\{.*?\});\s*\n", page, re.DOTALL).group(1))["physics"]["enabled"] is False
    assert not re.search(r"<(script|link)[^>]+(src|href)=\"https?://", page)
    assert "bnx-legend" in page and "link (undirected)" in page
    assert "vis.Network" in page  # vis-network itself is in the page


def test_png_decodes_and_shows_the_comparison_colours():
    names = ["a", "b", "c"]
    a = DAG.from_arcs([("a", "b")], names)
    b = DAG.from_arcs([("b", "c")], names)
    drawing = viz.comparison_drawing(a, b)
    positions = viz.layered_layout(names, [("a", "b"), ("b", "c")])
    image = Image.open(io.BytesIO(viz.to_png(drawing, positions))).convert("RGB")
    assert image.width >= 1000 and image.height > 200
    colours = {"#%02x%02x%02x" % c for _, c in image.getcolors(1 << 20)}
    assert viz.ONLY_A_COLOR in colours and viz.ONLY_B_COLOR in colours


def test_png_draws_node_fills():
    dag = DAG.from_arcs([("a", "b")], ["a", "b"])
    drawing = viz.pdag_drawing(dag, node_values={"a": 0.0, "b": 1.0}, value_label="v")
    image = Image.open(io.BytesIO(viz.to_png(drawing, {"a": (0, 0), "b": (0, 140)}))).convert("RGB")
    colours = {"#%02x%02x%02x" % c for _, c in image.getcolors(1 << 20)}
    assert "#440154" in colours and "#fde725" in colours


def test_dot_keeps_directions_dashes_and_positions():
    drawing, positions = demo()
    text = viz.to_dot(drawing, positions)
    assert re.search(r'"a" -> "b" \[[^]]*style=solid, dir=forward', text)
    assert re.search(r'"b" -> "d" \[[^]]*style=dashed, dir=none', text)
    assert f'pos="{positions["a"][0]:.1f},{-positions["a"][1]:.1f}!"' in text


def test_graphml_round_trips_through_networkx():
    drawing, positions = demo()
    graph = nx.parse_graphml(viz.to_graphml(drawing, positions))
    assert set(graph.nodes) == {"a", "b", "c", "d"}
    assert graph.edges["b", "d"]["directed"] is False and graph.edges["b", "d"]["dashed"] is True
    assert graph.edges["a", "b"]["kind"] == "arc"
    assert graph.nodes["c"]["x"] == positions["c"][0]


def test_cpdag_html_colours():
    dag = DAG.from_arcs([("a", "c"), ("b", "c"), ("e", "f")], ["a", "b", "c", "e", "f"])
    cpdag = dag.cpdag()
    assert isinstance(cpdag, CPDAG)
    page = viz.to_html(viz.cpdag_drawing(cpdag), viz.layered_layout(cpdag.names, viz.graph_edges(cpdag)))
    edges = {(e["from"], e["to"]): e for e in vis_items(page, "edges")}
    assert edges[("a", "c")]["color"] == viz.COMPELLED_COLOR
    assert edges[("e", "f")]["color"] == viz.REVERSIBLE_COLOR and edges[("e", "f")]["dashes"] is True


def test_png_font_draws_every_character_of_titles_and_names():
    """Pillow's built-in font draws an em dash, arrows and umlauts as boxes; the shipped font has them."""
    from PIL import Image, ImageDraw, ImageFont

    def pixels(font, ch):
        image = Image.new("L", (40, 40))
        ImageDraw.Draw(image).text((5, 5), ch, font=font, fill=255)
        return image.tobytes()

    font = ImageFont.truetype(str(viz.PNG_FONT), 20)
    missing = pixels(font, "\U000F0000")  # a private-use code point: the font's 'no glyph' box
    for ch in "—–→←·≤≥äöüßéñ×−":
        assert pixels(font, ch) != missing, ch
    builtin = ImageFont.load_default(size=20)
    assert pixels(builtin, "—") == pixels(builtin, "\U000F0000")  # why a font is shipped


# --- exports keep names that look like tags (issue 29 item 13, issue 30 item 23) -----------------


def tag_like_drawings():
    """A fitted-network view (CPT hover tables) and an Ask it view over names and states that look like tags."""
    names = ["<b>x</b>", "y & <i>"]
    network = Network("n", names, [["<missing>", "a"], ["<script>alert(1)</script>", "b"]], [[], [0]],
                      [np.array([0.25, 0.75]), np.array([[0.5, 0.5], [0.125, 0.875]])])
    dag = DAG.from_arcs([(names[0], names[1])], names)
    import html
    titles = {name: f"<b>{html.escape(name)}</b><br>" + viz.cpt_html(network, v) for v, name in enumerate(names)}
    plain = viz.pdag_drawing(dag, node_titles=titles)
    posterior = {name: dict(zip(network.states[v], [0.5, 0.5])) for v, name in enumerate(names)}
    asked = viz.belief_drawing(dag, posterior, posterior, {names[0]: "<missing>"},
                               {name: f"<b>{html.escape(name)}</b><br>" + "<br>".join(
                                   f"{html.escape(s)}: 0.5000" for s in network.states[v])
                                for v, name in enumerate(names)})
    return names, plain, asked


def dot_attributes(text, attribute):
    """``{node id: attribute value}`` of the node statements of DOT text, quotes undone."""
    string = r'"((?:[^"\\]|\\.)*)"'
    found = re.findall(rf"^  {string} \[[^\n]*?{attribute}={string}", text, flags=re.MULTILINE)
    undo = lambda s: re.sub(r"\\(.)", r"\1", s)  # noqa: E731
    return {undo(node): undo(value) for node, value in found}


def test_dot_keeps_names_and_states_that_look_like_tags():
    names, plain, asked = tag_like_drawings()
    tips = dot_attributes(viz.to_dot(plain), "tooltip")
    assert set(tips) == set(names)
    assert tips["<b>x</b>"] == "<b>x</b>; P(<missing>) P(a); 0.250 0.750"
    assert tips["y & <i>"] == ("y & <i>; <b>x</b> P(<script>alert(1)</script>) P(b); <missing> 0.500 0.500; "
                               "a 0.125 0.875")
    tips = dot_attributes(viz.to_dot(asked), "tooltip")
    assert tips["<b>x</b>"] == "<b>x</b>; <missing>: 0.5000; a: 0.5000"


def test_graphml_keeps_names_and_states_that_look_like_tags():
    names, plain, asked = tag_like_drawings()
    for drawing in (plain, asked):
        graph = nx.parse_graphml(viz.to_graphml(drawing))
        assert set(graph.nodes) == set(names)
        assert "<missing>" in graph.nodes["<b>x</b>"]["info"]
        assert "<script>alert(1)</script>" in graph.nodes["y & <i>"]["info"]
    assert nx.parse_graphml(viz.to_graphml(asked)).nodes["<b>x</b>"]["info"] == "<b>x</b>; <missing>: 0.5000; a: 0.5000"


def test_graphml_of_names_with_control_characters_is_well_formed():
    dag = DAG.from_arcs([("a\x01b", "c\udc80")], ["a\x01b", "c\udc80"])  # a lone surrogate, as from bytes
    graph = nx.parse_graphml(viz.to_graphml(viz.pdag_drawing(dag)).encode("utf-8"))
    assert set(graph.nodes) == {"a\ufffdb", "c\ufffd"} and graph.has_edge("a\ufffdb", "c\ufffd")


def test_png_of_an_ask_view_draws_the_bars_of_its_nodes_and_of_its_legend():
    """The PNG of Ask it drew boxes with names only, under a legend about bars (issue 29 item 13)."""
    from PIL import ImageFont

    dag = DAG.from_arcs([("smoke", "lung"), ("lung", "either")], ["smoke", "lung", "either"])
    posterior = {"smoke": {"yes": 1.0, "no": 0.0}, "lung": {"<missing>": 0.25, "no": 0.75},
                 "either": {"a": 0.5, "b": 0.5}}
    prior = {"smoke": {"yes": 0.5, "no": 0.5}, "lung": {"<missing>": 0.1, "no": 0.9}, "either": {"a": 0.3, "b": 0.7}}
    drawing = viz.belief_drawing(dag, posterior, prior, {"smoke": "yes"}, title="asked")
    assert [item.label for item in drawing.legend if item.bar] == ["given the evidence", "before any evidence",
                                                                   "observed"]
    positions = viz.belief_positions(viz.layered_layout(dag.names, viz.graph_edges(dag)), drawing)
    split = viz.legend_height(drawing, ImageFont.truetype(str(viz.PNG_FONT), 17))
    # the same picture with every posterior 0: its node borders and names share the bars' blue
    empty = viz.belief_drawing(dag, {v: dict.fromkeys(d, 0.0) for v, d in posterior.items()}, prior,
                               {"smoke": "yes"}, title="asked")

    def count(colour, rows, picture=drawing):
        pixels = np.asarray(Image.open(io.BytesIO(viz.to_png(picture, positions))).convert("RGB"))
        rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
        return int((pixels[rows] == rgb).all(axis=-1).sum())

    legend, graph = slice(0, split), slice(split, None)
    for colour in (viz.BAR_COLOR, viz.PRIOR_COLOR, viz.EVIDENCE_COLOR):
        assert count(colour, legend) >= 47 * 8, colour  # a bar 47 px long, at least 8 px thick
    full = viz.BAR_LENGTH  # the length of a bar of probability 1
    dark = (0.25 + 0.75 + 0.5 + 0.5) * full * 8  # posterior bars of lung and either, 8 px thick
    assert abs(count(viz.BAR_COLOR, graph) - count(viz.BAR_COLOR, graph, empty) - dark) < 0.1 * dark
    observed = count(viz.EVIDENCE_COLOR, graph) - count(viz.EVIDENCE_COLOR, graph, empty)
    assert abs(observed - full * 8) < 0.1 * full * 8  # smoke = yes at 100 %, in the evidence colour
    assert count(viz.PRIOR_COLOR, graph) > 0.5 * full * 14  # priors show where posteriors are shorter
