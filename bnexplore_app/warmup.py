"""Compile (or load from numba's disk cache) the fast core once per server process."""

import numpy as np
import streamlit as st

from bnexplore.data import Dataset
from bnexplore.scores import Scorer
from bnexplore.search.hillclimb import hill_climb, tabu_search


@st.cache_resource(show_spinner="Compiling the fast core — first run only (up to a minute)…")
def warm_up():
    """Run every kernel the pages use once, on a tiny table, so the first real click is fast.

    Returns
    -------
    bool
        True (the value is cached; the call is what matters).
    """
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 2, size=(40, 4))
    codes[:, 1] = codes[:, 0] ^ (rng.random(40) < 0.1)
    data = Dataset.from_codes(codes)
    for score in ("bdeu", "bic", "k2"):
        scorer = Scorer(data, score=score)
        hill_climb(scorer, max_indegree=2)
        tabu_search(scorer, iterations=3)
        scorer.entropy([0, 1])
        scorer.conditional_entropy(0, [1])
    return True
