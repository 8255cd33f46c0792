"""Issue 29 item 11: the "zoomed in" hint of an interactive graph sits in its legend strip, never over the drawing."""

from html.parser import HTMLParser

from bnexplore import viz
from bnexplore.graphs import DAG


class Parents(HTMLParser):
    """The ids of the elements enclosing the zoom hint, and whether it is positioned over anything."""

    def __init__(self):
        super().__init__()
        self.open, self.around, self.style = [], None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id") == "bnx-zoom-hint":
            self.around, self.style = [i for _, i in self.open], attrs.get("style", "")
        self.open.append((tag, attrs.get("id")))

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag:
            pass


def hint_of(drawing):
    names = ["a", "b", "c"]
    page = viz.to_html(drawing, {name: (100.0 * i, 0.0) for i, name in enumerate(names)})
    found = Parents()
    found.feed(page)
    return found


def test_the_zoom_hint_is_in_the_legend_strip_not_over_the_graph():
    found = hint_of(viz.pdag_drawing(DAG.from_arcs([("a", "b")], ["a", "b", "c"]), title="a title"))
    assert found.around is not None, "no zoom hint in the page"
    assert "bnx-legend" in found.around and "mynetwork" not in found.around, found.around
    assert "absolute" not in found.style and "display:none" in found.style.replace(" ", ""), found.style


def test_a_drawing_without_a_legend_still_has_the_hint_above_the_graph():
    drawing = viz.pdag_drawing(DAG.from_arcs([], ["a", "b", "c"]))
    drawing.legend, drawing.title = [], None
    found = hint_of(drawing)
    assert found.around is not None and "mynetwork" not in found.around, found.around
