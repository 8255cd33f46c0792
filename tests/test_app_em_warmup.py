"""The fast core's warm-up covers what the app runs on data with blank cells (issue 33): after
:func:`bnexplore.warmup.warm_up`, structural EM with every search it can run, parameter EM and imputation
on other data (other sizes and arities) compile (or load) no new kernel signature, so no result's seconds
count compile time."""

import numpy as np

from bnexplore import bundled
from bnexplore.bif import read_bif, sample
from bnexplore.data import Encoder
from bnexplore.em import em_fit
from bnexplore.em import impute
from bnexplore.search.hillclimb import hill_climb
from bnexplore.scores import Scorer
from bnexplore.search.registry import expected_count_searches
from bnexplore.search.structural_em import structural_em
from bnexplore.warmup import warm_up
from test_app_search_warmup import new_since, signatures


def test_after_the_warm_up_structural_em_and_imputation_compile_no_kernel():
    warm_up()
    before = signatures()
    frame = sample(read_bif(bundled.network_path("child")), 400, seed=5)  # 20 variables of 2 to 6 states
    frame = frame.astype(object).mask(np.random.default_rng(2).random(frame.shape) < 0.08)
    rows = np.flatnonzero(frame.iloc[:, 0].notna())[:20]
    frame.iloc[rows, 1:] = None  # rows blank but for one cell: too many completions to enumerate (the junction tree)
    data = Encoder(missing="em").fit_transform(frame)
    assert data.n_blank > 0
    for algorithm in expected_count_searches():
        structural_em(data, algorithm, em_iterations=2, completions=8, max_indegree=3)
    for score in ("bic", "k2"):
        structural_em(data, "hc", score=score, em_iterations=1)
    fitted = em_fit(hill_climb(Scorer(data.complete_rows())).graph, data)
    for method in ("mode", "sample"):
        impute(fitted, data, method=method, seed=1)
    assert new_since(before) == {}
