"""What every page does around its own content: the page setup and the error boundary.

Each page file ends with ``run_page(page, "where")``; :func:`bnexplore_app.main.main`
has set up the session and the fast core before any page runs.
"""

from pathlib import Path

import streamlit as st

from bnexplore_app.errors import error_boundary

ICON = str(Path(__file__).resolve().parent / "assets" / "icon.png")
"""The tab icon, a file of the app's own, so the page needs no internet (a Material icon is fetched from
Google's font servers)."""

STYLE = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 2.4rem; padding-bottom: 3rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2.1rem; padding: 0.2rem 0 0.4rem 0; }
</style>"""
"""Less empty space above the title, so a 1280 x 720 projector window shows the pictures without scrolling."""


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
    with error_boundary(where):
        page()
