"""bnexplore's Streamlit app: ``streamlit run app.py`` in a clone, ``bnexplore app`` once installed.

``main`` holds the home page and the navigation, ``pages/`` one script per
step of the workflow, and the other modules the helpers the pages share
(session state, widgets, views, background search jobs). The library
``bnexplore`` never imports any of this.
"""
