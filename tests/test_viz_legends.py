"""What the legends of the pictures say: every line style drawn is explained."""

import numpy as np

from bnexplore import viz
from bnexplore.bootstrap import averaged_network


def strengths():
    """Three variables: a -> b in 90% of resamples; b — c joined in 80%, half of them each way."""
    strength = np.array([[0, 0.9, 0], [0.9, 0, 0.8], [0, 0.8, 0]])
    direction = np.array([[0, 1.0, 0], [0.0, 0, 0.5], [0, 0.5, 0]])
    return strength, direction


def test_the_bootstrap_legend_says_what_an_arrowless_edge_means():
    strength, direction = strengths()
    averaged = averaged_network(["a", "b", "c"], strength, direction, 0.5).graph
    drawing = viz.strength_drawing(averaged, strength, direction, 0.5)
    links = [e for e in drawing.edges if not e.directed]
    assert [(e.u, e.v) for e in links] == [("b", "c")]
    undirected = [item for item in drawing.legend if not item.directed and item.color == viz.ARC_COLOR]
    assert len(undirected) == 1 and "no arrow" in undirected[0].label and "0.5" in undirected[0].label
    assert undirected[0].dashed == links[0].dashed  # drawn in the legend as on the graph
    assert "no arrow" in viz.legend_html(drawing)


def test_without_arrowless_edges_the_legend_does_not_list_them():
    strength, direction = strengths()
    direction[1, 2], direction[2, 1] = 0.9, 0.1
    averaged = averaged_network(["a", "b", "c"], strength, direction, 0.5).graph
    drawing = viz.strength_drawing(averaged, strength, direction, 0.5)
    assert all(e.directed for e in drawing.edges)
    assert not any("no arrow" in item.label for item in drawing.legend)
