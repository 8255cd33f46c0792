"""Compile (or load from numba's disk cache) every fast kernel once, on tiny data.

The numba kernels are compiled on their first call, which takes seconds each
(two to three minutes for all of them on a cold cache, on two cores) and would otherwise be counted in
the first search's seconds. :func:`warm_up` calls every search, score,
inference and sampling routine once on a few rows, so that later calls run
the compiled code only. The app runs it in a background thread at start; the
benchmarks and the CLI do not need it (they time after a first call).
"""

import time

import numpy as np
import pandas as pd

from . import bundled
from .bif import fit_network, read_bif, sample
from .bnkl import bnkl
from .bootstrap import bootstrap
from .control import Control
from .data import Dataset, Encoder
from .inference import InferenceEngine
from .parents import ParentSets, candidate_parent_sets
from .independence import TESTS
from .scores import Scorer
from .scores.kernels import PARALLEL_WORK
from .search.credible import credible_set
from .search.exact import exact_search
from .search.ges import ges
from .search.hillclimb import hill_climb, tabu_search
from .search.mmhc import mmhc
from .search.ordering import Candidates, ordering_search
from .search.pc import pc_stable
from .search.rpdag import rpdag_search
from .search.registry import SEARCHES, expected_count_searches
from .search.structural_em import structural_em
from .em import EStep, em_fit
from .em import impute

STEPS = ("scores", "hill climbing", "tabu search", "RPDAG search", "PC, GES and MMHC", "exact search (subset DP)",
         "exact search (branch and cut)", "credible set", "ordering searches", "BNKL", "bootstrap",
         "candidate parent sets", "inference and sampling", "structural EM and imputation")
"""What :func:`warm_up` runs, in order (one progress report each)."""


def tiny_data(rows=3000, seed=0):
    """A small table with dependencies, a numeric column and a two-class column.

    Enough rows that the batches of the first passes reach the parallel kernels too
    (:data:`bnexplore.scores.kernels.PARALLEL_WORK`); :func:`warm_up` repeats them for the kernels that
    score one child's parents at a time, as a hill climb's first pass does.

    Parameters
    ----------
    rows : int
    seed : int

    Returns
    -------
    pandas.DataFrame
        Columns ``a``, ``b``, ``c`` (text), ``x`` (numbers) and ``group`` (two classes).

    Examples
    --------
    >>> from bnexplore.warmup import tiny_data
    >>> tiny_data(rows=10).shape
    (10, 5)
    """
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, rows)
    b = np.where(rng.random(rows) < 0.8, a, 1 - a)
    c = (a + b + rng.integers(0, 2, rows)) % 3
    x = b * 2.0 + rng.normal(0, 1, rows)
    group = np.where(a + rng.random(rows) > 1.0, "one", "two")
    return pd.DataFrame({"a": a.astype(str), "b": b.astype(str), "c": c.astype(str), "x": x, "group": group})


def warm_up(progress=None):
    """Run every kernel the app and the API can call once, on :func:`tiny_data`.

    With numba's disk cache filled (``cache=True``) this loads the compiled
    code in a few seconds; on a cold cache it compiles it (2.5 minutes on one core of the
    2-core test machine).
    Searches started afterwards count only their own time.

    Parameters
    ----------
    progress : callable, optional
        Called as ``progress(step, done)`` before each of :data:`STEPS`
        (``done`` is the fraction finished).

    Returns
    -------
    float
        Seconds it took.

    Examples
    --------
    >>> from bnexplore.warmup import warm_up
    >>> seconds = warm_up()
    """
    start = time.perf_counter()
    frame = tiny_data()
    data = Encoder(discretize="uniform3").fit_transform(frame)
    scorers = {}

    def step(k):
        if progress is not None:
            progress(STEPS[k], k / len(STEPS))

    step(0)
    for score in ("bdeu", "bic", "k2"):
        scorer = scorers[score] = Scorer(data, score=score)
        scorer.total(hill_climb(scorer, max_indegree=2).graph)
        scorer.entropy([0, 1])
        scorer.conditional_entropy(0, [1])
    bdeu, bic = scorers["bdeu"], scorers["bic"]
    many = data.subset(np.resize(np.arange(data.n_rows), -(-PARALLEL_WORK // (data.n_vars - 1))))
    hill_climb(Scorer(many))  # its first pass's n - 1 additions per child over these rows: the parallel kernel
    step(1)
    hill_climb(bdeu, restarts=1, seed=0)
    step(2)
    tabu_search(bdeu, iterations=5)
    step(3)
    rpdag_search(bdeu)
    rpdag_search(bic, tabu=True, iterations=5)
    step(4)
    for test in TESTS:  # the independence tests' kernels (the permutation test's too)
        pc_stable(bdeu, test=test, permutations=20, seed=0)
    mmhc(bdeu)
    ges(bdeu)
    step(5)
    exact_search(bdeu, engine="dp")
    exact_search(bdeu, max_indegree=2)  # the engine chooser's scan of the candidates
    exact_search(bdeu, engine="dp", control=Control(stop=lambda: True))  # the greedy completion of a stopped DP
    child = Encoder().fit_transform(sample(read_bif(bundled.network_path("child")), 1000, seed=0))
    fourteen = Scorer(child.select(child.names[:14]))
    exact_search(fourteen, engine="dp", max_indegree=2)  # layers wide enough to be filled in parallel
    step(6)
    exact_search(bic, engine="ilp")
    exact_search(fourteen, engine="ilp", max_indegree=2)  # cluster cuts
    exact_search(bdeu, max_indegree=2, engine="ilp")
    step(7)
    credible_set(bdeu, bf=3, engine="dp")
    credible_set(bic, bf=3, engine="ilp")
    step(8)
    for method in ("asobs", "obs"):
        ordering_search(bdeu, method=method, restarts=2, seed=0, time_per_variable=0.01)
    candidates = Candidates(ParentSets(["a", "b"], [[((), -2.0)], [((0,), -1.0)]], "bic"))  # b's one set holds a
    order = candidates.respecting([1, 0])  # a required parent's kernel
    candidates.topological(candidates.asobs(order), order)  # an ASOBS graph that beat its ordering's climb
    step(9)
    bnkl(frame, "group")
    step(10)
    bootstrap(data, R=2, seed=0, workers=1)
    step(11)
    candidate_parent_sets(bdeu, epsilon=np.log(20.0))
    candidate_parent_sets(bic, epsilon=np.log(20.0))
    step(12)
    network = fit_network(hill_climb(bdeu).graph, data)
    engine = InferenceEngine(network)
    engine.query(evidence={data.names[0]: data.states[0][0]})
    sample(network, 20, seed=0)
    step(13)
    blanks = frame.mask(np.random.default_rng(0).random(frame.shape) < 0.05)  # the rows as the Data page's em keeps
    incomplete = Encoder(discretize="uniform3", missing="em").fit_transform(blanks)
    for algorithm in expected_count_searches():  # each search on weighted counts, as structural EM's step
        structural_em(incomplete, algorithm, em_iterations=1)
    weighted = Dataset(many.codes, many.arities, many.names, many.states, weights=np.full(many.n_rows, 0.5))
    for score in ("bdeu", "bic", "k2"):
        for algorithm in expected_count_searches():
            if score != "k2" or algorithm in ("hc", "tabu"):  # the others need a score-equivalent score
                SEARCHES[algorithm].function(Scorer(weighted, score=score))
    fitted = em_fit(hill_climb(bdeu).graph, incomplete)
    EStep(fitted, incomplete, group_states=0).run()  # the junction tree's E-step, for rows with many blanks
    for method in ("mode", "sample"):
        impute(fitted, incomplete, method=method)
    return time.perf_counter() - start
