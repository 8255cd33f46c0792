"""What every page does around its own content: shared state, the fast core, the error boundary.

Each page file ends with ``run_page(page, "where")``. The page is then correct
however Streamlit runs it: inside app.py's ``st.navigation`` (the normal case),
or on its own (Streamlit's older multipage mode, used for example by AppTest
when it switches to a file under ``pages/``).
"""

from pathlib import Path

import streamlit as st

from ui import state
from ui.errors import error_boundary
from ui.warmup import warm_up

ICON = str(Path(__file__).resolve().parent / "assets" / "icon.png")
"""The tab icon, a file of the app's own, so the page needs no internet (a Material icon is fetched from
Google's font servers)."""

STYLE = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem; padding-bottom: 3rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2.1rem; padding: 0.2rem 0 0.4rem 0; }
</style>"""
"""Less empty space above the title, so a 1280 x 720 projector window shows the pictures without scrolling."""


def configure():
    """Page title, icon, wide layout and the compact style; called first by every page and the home page."""
    st.set_page_config(page_title="bnexplore", page_icon=ICON, layout="wide")
    st.html(STYLE)


def run_page(page, where):
    """Set up the session, then run ``page()`` inside the error boundary.

    Parameters
    ----------
    page : callable
        Draws the page.
    where : str
        The page's name, for the message of an unexpected error.
    """
    configure()
    with error_boundary(where):
        state.init()
        warm_up()
        page()
