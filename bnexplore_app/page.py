"""What every page does around its own content: the page setup and the error boundary.

Each page file ends with ``run_page(page, "where")``; :func:`bnexplore_app.main.main`
has set up the session and the fast core before any page runs.
"""

from pathlib import Path

import streamlit as st

from bnexplore.errors import NO_VALUE, door
from bnexplore_app.errors import error_boundary

ICON = str(Path(__file__).resolve().parent / "assets" / "icon.png")
"""The tab icon, a file of the app's own, so the page needs no internet (a Material icon is fetched from
Google's font servers)."""

STYLE = """<style>
[data-testid="stMainBlockContainer"] { padding: 2.4rem 2rem 3rem 2rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2.1rem; padding: 0.2rem 0 0.4rem 0; }
</style>"""
"""Less empty space above the title and at the sides, so a 1280 x 720 projector window shows the pictures
without scrolling, as wide as the window allows."""


WIDGETS = {
    "max_levels": "Most levels a text column may have",
    "leave_out": "Leave out these columns",
    "missing_values": "Also missing",
    "missing": "Missing values",
    "discretize": "Discretize numeric columns with",
    "encoding": "Encoding",
    "sep": "Separator",
    "header": "First line holds the column names",
    "drop_constant": None,
    "BNEXPLORE_MAX_EXPANDED_MB": None,  # set by whoever runs the server, not by the app's user
}
"""The Data page's widget for each library option messages may name (None: the app has none)."""


def app_option(name, value=NO_VALUE, key=None):
    """How the app names a library option in messages: the label of the widget that sets it, in italics
    ("*Most levels a text column may have* (50)"), or None when no widget sets it."""
    if name == "types":
        kinds = set(value.values()) if isinstance(value, dict) else {value}
        columns = ", ".join(value) if isinstance(value, dict) else ""
        widget = ("Use values as categories (no discretization)" if kinds <= {"categorical"} else
                  "Treat as numbers (discretize)" if kinds <= {"numeric"} else None)
        return None if widget is None else f"*{widget}*" + (f": {columns}" if columns else "")
    widget = WIDGETS.get(name)
    if widget is None:
        return None
    if value is NO_VALUE or value is Ellipsis:
        return f"*{widget}*"
    if isinstance(value, bool):  # a checkbox
        return f"*{widget}* {'ticked' if value else 'unticked'}"
    if isinstance(value, (list, tuple)):  # columns to leave out, marks for "no value"
        value = ", ".join(map(str, value))
    return f"*{widget}* ({value})" if name == "max_levels" else f"*{widget}: {value}*"


def configure():
    """Page title, icon, wide layout and the compact style; the first thing every run does."""
    st.set_page_config(page_title="bnexplore", page_icon=ICON, layout="wide")
    st.html(STYLE)


def run_page(page, where):
    """Run ``page()`` inside the error boundary.

    Parameters
    ----------
    page : callable
        Draws the page.
    where : str
        The page's name, for the message of an unexpected error.
    """
    with error_boundary(where), door(app_option):
        page()
