"""What every page does around its own content: shared state, the fast core, the error boundary.

Each page file ends with ``run_page(page, "where")``. The page is then correct
however Streamlit runs it: inside app.py's ``st.navigation`` (the normal case),
or on its own (Streamlit's older multipage mode, used for example by AppTest
when it switches to a file under ``pages/``).
"""

import streamlit as st

from ui import state
from ui.errors import error_boundary
from ui.warmup import warm_up


def run_page(page, where):
    """Set up the session, then run ``page()`` inside the error boundary.

    Parameters
    ----------
    page : callable
        Draws the page.
    where : str
        The page's name, for the message of an unexpected error.
    """
    st.set_page_config(page_title="bnexplore", page_icon=":material/hub:", layout="wide")
    with error_boundary(where):
        state.init()
        warm_up()
        page()
