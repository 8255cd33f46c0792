"""bnexplore, the app: ``streamlit run app.py`` (the app itself is the package ``bnexplore_app``)."""

from bnexplore_app.main import main

main()
