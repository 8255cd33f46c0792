"""What the interactive pictures draw, in a real headless Chromium: the whole network in the frame.

The Ask-it view (a belief drawing, each node a bar chart) and the plain views
are rendered by :func:`bnexplore.viz.to_html` and measured in the browser with
vis-network's own positions and node sizes. Skipped when /usr/bin/chromium is
absent (like tests/test_browser.py).
"""

import os
import re
import urllib.parse
from pathlib import Path

import pytest

import bnexplore as bx
from bnexplore import viz
from bnexplore.graphs import DAG

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
NETWORKS = ROOT / "sample_data" / "networks"

browser_only = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is not installed at /usr/bin/chromium")

# Every node's box in the canvas's own pixels, from vis-network's positions and node sizes.
OUTSIDE = """() => {
  const canvas = network.canvas.frame.canvas;
  const width = canvas.clientWidth, height = canvas.clientHeight, out = [];
  const positions = network.getPositions();
  for (const id of nodes.getIds()) {
    const shape = network.body.nodes[id].shape, p = positions[id];
    const a = network.canvasToDOM({x: p.x - shape.width / 2, y: p.y - shape.height / 2});
    const z = network.canvasToDOM({x: p.x + shape.width / 2, y: p.y + shape.height / 2});
    if (a.x < -0.5 || a.y < -0.5 || z.x > width + 0.5 || z.y > height + 0.5) out.push(id);
  }
  return {outside: out, scale: network.getScale(), width: width, height: height};
}"""
# True once every picture node has its image's size (vis-network gives it when the image has loaded).
LOADED = "() => nodes.getIds().every(id => network.body.nodes[id].shape.width > 30)"


def asked(bif, evidence=None, frame=(700, 420)):
    """The Ask-it drawing of a bundled network and its positions for a frame of that size, as the Networks
    page builds them."""
    network = bx.read_bif(NETWORKS / bif)
    engine = bx.InferenceEngine(network)
    answer = engine.query(evidence=evidence or {})
    priors = {name: dict(zip(network.states[i], engine.priors[name].tolist())) for i, name in enumerate(network.names)}
    dag = network.dag()
    drawing = viz.belief_drawing(dag, answer.posterior, priors, evidence or {}, title="asked")
    layout = viz.layered_layout(sorted(network.names), viz.graph_edges(dag))
    return drawing, viz.belief_positions(layout, drawing, frame)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def measure(browser, page_html, first_width, width=700, height=700):
    """Open the page in a window ``first_width`` wide, then widen or narrow it to ``width`` (an embedding
    frame often gets its final size after the first draw); the boxes of the nodes after that."""
    tab = browser.new_page(viewport={"width": first_width, "height": height})
    try:
        tab.set_content(page_html)
        tab.wait_for_function(LOADED)
        tab.set_viewport_size({"width": width, "height": height})
        tab.wait_for_function(f"() => network.canvas.frame.canvas.clientWidth === {width}")
        tab.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        return tab.evaluate(OUTSIDE)
    finally:
        tab.close()


@browser_only
@pytest.mark.parametrize("bif, evidence", [
    ("cancer.bif.gz", None),
    ("asia.bif.gz", None),
    ("asia.bif.gz", {"smoke": "yes", "xray": "yes"}),
    ("sachs.bif.gz", None),
    ("sachs.bif.gz", {"PKA": "HIGH"}),
])
@pytest.mark.parametrize("first_width", [300, 1200])
def test_the_ask_view_draws_every_node_inside_the_frame(browser, bif, evidence, first_width):
    drawing, positions = asked(bif, evidence)
    seen = measure(browser, viz.to_html(drawing, positions, height=420), first_width)
    assert seen["width"] == 700 and seen["height"] == 420
    assert seen["outside"] == [], f"cut off at the frame's edge: {seen['outside']} (scale {seen['scale']:.3f})"
    assert seen["scale"] * viz.BAR_FONT >= viz.READABLE_PX  # sachs's six layers too, set out in three lines


HINT = "() => getComputedStyle(document.getElementById('bnx-zoom-hint')).display"


def structural(bif):
    network = bx.read_bif(NETWORKS / bif)
    dag = network.dag()
    positions = viz.layered_layout(sorted(network.names), viz.graph_edges(dag))
    return viz.to_html(viz.pdag_drawing(dag), positions, height=420)


@browser_only
def test_a_structural_view_fits_after_the_frame_is_resized(browser):
    tab = browser.new_page(viewport={"width": 300, "height": 700})
    try:
        tab.set_content(structural("asia.bif.gz"))
        tab.wait_for_function("() => typeof network !== 'undefined'")
        tab.set_viewport_size({"width": 700, "height": 700})
        tab.wait_for_function("() => network.canvas.frame.canvas.clientWidth === 700")
        tab.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        seen = tab.evaluate(OUTSIDE)
        assert seen["outside"] == [] and tab.evaluate(HINT) == "none"
        assert seen["scale"] * viz.FONT_SIZE >= viz.READABLE_PX
    finally:
        tab.close()


@browser_only
def test_a_network_that_fits_only_with_less_margin_is_shown_whole_and_readable(browser):
    seen = measure(browser, structural("sachs.bif.gz"), 661, width=661)  # the Networks page's frame
    assert seen["outside"] == [] and seen["scale"] * viz.FONT_SIZE >= viz.READABLE_PX


@browser_only
def test_a_large_network_opens_readable_from_its_top_and_shows_whole_on_double_click(browser):
    tab = browser.new_page(viewport={"width": 700, "height": 700})
    try:
        tab.set_content(structural("alarm.bif.gz"))
        tab.wait_for_function(HINT.replace("=>", "=> document.getElementById('bnx-zoom-hint') &&") + " === 'block'")
        seen = tab.evaluate(OUTSIDE)
        assert seen["scale"] * viz.FONT_SIZE == pytest.approx(viz.READABLE_PX, rel=1e-3)  # names at 12 px
        top = tab.evaluate("() => Math.min(...nodes.getIds().map(id => network.canvasToDOM("
                           "{x: 0, y: network.getBoundingBox(id).top}).y))")
        assert 0 <= top <= 20  # the first row is in view
        box = tab.locator("#mynetwork canvas").bounding_box()
        tab.mouse.dblclick(box["x"] + 3, box["y"] + box["height"] - 3)
        tab.wait_for_function(HINT + " === 'none'")
        assert tab.evaluate(OUTSIDE)["outside"] == []
    finally:
        tab.close()


def state_labels(drawing):
    """The state names written in each belief node's picture."""
    html_page = viz.to_html(drawing, {name: (0.0, 100.0 * i) for i, name in enumerate(drawing.names)})
    svgs = [urllib.parse.unquote(s) for s in re.findall(r'data:image/svg\+xml;charset=utf-8,([^"]+)', html_page)]
    return [re.findall(r'<text x="6"[^>]*>([^<]*)</text>', svg) for svg in svgs]


def test_long_state_names_stay_distinguishable_and_whole_on_hover():
    states = ["Independent worker", "Independent contractor", "Independent consultant", "Employee"]
    graph = DAG.from_arcs([], ["job"])
    posterior = {"job": dict(zip(states, [0.4, 0.3, 0.2, 0.1]))}
    titles = {"job": "<b>job</b><br>" + "<br>".join(states)}
    drawing = viz.belief_drawing(graph, posterior, posterior, {}, titles)
    (labels,) = state_labels(drawing)
    assert len(set(labels)) == 4, labels
    assert all(len(label) <= viz.STATE_CHARS for label in labels)
    assert labels[3] == "Employee"
    assert all(label.startswith("Inde") for label in labels[:3])
    assert drawing.nodes[0].title == titles["job"]  # the full names on hover


def test_short_labels_keep_both_ends_and_fall_back_to_numbers():
    assert viz.short_labels(["yes", "no"], 11) == ["yes", "no"]
    assert viz.short_labels(["Independent worker", "Independent contractor"], 11) == ["Indep…orker", "Indep…actor"]
    same_ends = viz.short_labels(["aaaaaaaaaaaaXbbbbbbbbbbbb", "aaaaaaaaaaaaYbbbbbbbbbbbb"], 11)
    assert len(set(same_ends)) == 2 and all(len(s) <= 11 for s in same_ends)
