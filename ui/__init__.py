"""Streamlit helpers shared by the pages of the app (the library bnexplore never imports these)."""
