"""The app's entry: the home page and the navigation between the pages.

:func:`main` runs on every interaction: it sets up the shared session state
(loading a bundled sample on first start, so the app is useful at once), starts
compiling the numba core in the background (once per server), then runs the
selected page inside the error boundary. ``streamlit run app.py`` (in a clone) and ``bnexplore app`` (installed)
both end here; this file is also a Streamlit script of its own.
"""

from pathlib import Path

import streamlit as st

from bnexplore.errors import door
from bnexplore.scores import SCORES
from bnexplore_app import state, warmup
from bnexplore_app.errors import error_boundary
from bnexplore_app.page import app_option, configure
from bnexplore_app.widgets import data_status, session_controls



def home():
    """The home page: what the app does and where to start."""
    st.title("bnexplore — learn Bayesian networks from a table")
    with error_boundary("the home page"):
        home_content()


def home_content():
    data_status()
    st.markdown(
        "A **Bayesian network** draws the variables of a table as nodes and the direct dependencies between them "
        "as arrows. This app *learns* such networks from data, without code, and shows what came out and why.")
    steps = [
        (PAGES / "1_Data.py", "1 · Data", "Load a table: a bundled sample (one is loaded already), your own CSV, "
                                        "Parquet or Feather file, or rows drawn from a known network, which then "
                                        "serves as ground truth; discretize numeric columns; keep blank cells "
                                        "and learn from every row by EM; pick a class column for two-class "
                                        "analysis."),
        (PAGES / "2_Tune.py", "2 · Tune", f"Choose the score ({', '.join(spec.label for spec in SCORES.values())}), its settings and the "
                                        "Bayes factor; say "
                                        "what you already know (required and forbidden arcs, tiers); see how big "
                                        "the search will be and how pruning shrinks it."),
        (PAGES / "3_Search.py", "3 · Search", "Hill climbing, tabu, RPDAG search, GES, PC-stable, MMHC, the exact "
                                            "optimum, every network within the Bayes factor, OBS / ASOBS, two-class "
                                            "BNKL, the bootstrap: live score trace, Stop button, step-by-step replay "
                                            "that can play."),
        (PAGES / "4_Networks.py", "4 · Networks", "Look at a learned network: DAG, RPDAG, CPDAG, all the DAGs of its "
                                                "class, credible classes and arc probabilities, class differences, "
                                                "how sure each arc is; ask it questions (observe or set variables, "
                                                "posteriors out); edit it by hand and see the score change node by "
                                                "node; export it, or import one, as BIF, XMLBIF, Hugin "
                                                "NET, GeNIe XDSL, DSC, UAI or a model string."),
        (PAGES / "5_Compare.py", "5 · Compare", "Put networks side by side or on top of each other, against the "
                                              "ground truth: SHD, added / deleted / reversed edges, gap to the "
                                              "optimum; run every search in one click and see them all in one "
                                              "table, each inside the credible set or not; judge them by held-out "
                                              "likelihood on the same folds."),
    ]
    for path, label, text in steps:
        left, right = st.columns([1, 5])
        left.page_link(path, label=label)
        right.markdown(text)
    st.info("Quick start for a lecture: go to **3 · Search**, press **Run**, then open **4 · Networks**. "
            "Every picture has a caption under it saying what it shows. **Save session** in the sidebar keeps "
            "the whole piece of work in one file.")
    data = state.dataset()
    st.subheader(f"The data in use: {data.n_vars} variables")
    st.dataframe(data.summary(), hide_index=True, width="stretch")
    st.caption("One row per variable: its kind, how many levels (states) it has, their labels, missing values, "
               "and the cut points of discretized numeric columns.")


# The page scripts: app_pages/ beside app.py in a clone, mapped into the package as
# bnexplore_app/app_pages/ in an installed copy (pyproject's package-dir). Not "pages/": a folder of
# that name beside the main script puts Streamlit in its legacy multipage mode, which runs a page
# reached by its address without this script (no session set-up) and lists the raw file names.
HERE = Path(__file__).resolve().parent
PAGES = HERE / "app_pages" if (HERE / "app_pages").is_dir() else HERE.parent / "app_pages"


def main():
    """Set up the session, then show the page the user is on."""
    configure()
    with error_boundary("start-up"), door(app_option):
        state.init()
        warmup.start()  # in the background: the first page shows at once
    with st.sidebar, error_boundary("the session controls"):
        session_controls()
        warmup.note()
    pages = [
        st.Page(home, title="Home", icon=":material/home:", default=True),
        st.Page(PAGES / "1_Data.py", title="1 · Data", icon=":material/table:"),
        st.Page(PAGES / "2_Tune.py", title="2 · Tune", icon=":material/tune:"),
        st.Page(PAGES / "3_Search.py", title="3 · Search", icon=":material/search:"),
        st.Page(PAGES / "4_Networks.py", title="4 · Networks", icon=":material/hub:"),
        st.Page(PAGES / "5_Compare.py", title="5 · Compare", icon=":material/compare_arrows:"),
    ]
    st.navigation(pages).run()


if __name__ == "__main__":
    main()
