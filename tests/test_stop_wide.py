"""Stops and time limits inside the first scoring pass on wide data (issue 30, item 4).

A local search first scores every one of the ``n (n - 1)`` arcs; on thousands
of columns that pass took minutes, and neither the time limit nor Stop was
looked at during it. The pass now checks them every
``kernels.families_per_check(rows)`` local scores. Here that is made every 10
columns of a 400-column table (``CHECK_WORK`` lowered), and the stop comes
from ``StopAfter(k)`` or a fake clock, so the counts below hold on any machine.
"""

import numpy as np
import pytest

from bnexplore import learn, resources
from bnexplore.control import Control
from bnexplore.data import Dataset
from bnexplore.errors import ResourceError
from bnexplore.graphs import is_acyclic
from bnexplore.scores import Scorer, kernels
from bnexplore.search.hillclimb import hill_climb, tabu_search
from bnexplore.search.ordering import ordering_search
from bnexplore.search.rpdag import rpdag_search
from fakes import FakeClock, StopAfter
from test_scores import random_dag_data

N, ROWS, COLUMNS_PER_CHECK = 400, 50, 10


@pytest.fixture(scope="module")
def wide():
    codes = np.random.default_rng(30).integers(0, 3, size=(ROWS, N)).astype(np.uint8)
    return Dataset.from_codes(codes, arities=np.full(N, 3))


@pytest.fixture
def check_every_10_columns(monkeypatch):
    """The first pass checks the stop flag every 10 columns (each column: N - 1 local scores)."""
    monkeypatch.setattr(kernels, "CHECK_WORK", COLUMNS_PER_CHECK * (N - 1) * ROWS)
    assert kernels.families_per_check(ROWS) == COLUMNS_PER_CHECK * (N - 1)


def first_pass(result):
    """Local scores the search computed, and its whole first pass (the empty sets and every arc)."""
    return result.stats["local_scores_computed"], N + N * (N - 1)


def assert_stopped_on_the_empty_graph(result, reason):
    assert result.stats["stopped"] == reason
    assert result.stats["iterations"] == 0 and result.graph.n_edges == 0
    assert is_acyclic(result.graph.adj)


@pytest.mark.parametrize("k", [1, 3])
def test_hill_climbing_stops_after_k_checks_of_its_first_pass(wide, check_every_10_columns, k):
    stop = StopAfter(k)
    result = hill_climb(Scorer(wide), stop=stop)
    assert_stopped_on_the_empty_graph(result, "stopped")
    assert stop.calls == k
    # the empty sets, then k pieces of 10 columns: the kernels ran k pieces and no more
    assert result.stats["local_scores_computed"] == N + k * COLUMNS_PER_CHECK * (N - 1)


def test_tabu_search_keeps_its_time_limit_in_its_first_pass(wide, check_every_10_columns):
    control = Control(time_limit=5.5, clock=FakeClock(1.0))  # every check reads one more second
    result = tabu_search(Scorer(wide), control=control)
    assert_stopped_on_the_empty_graph(result, "time limit")
    assert result.stats["local_scores_computed"] == N + 6 * COLUMNS_PER_CHECK * (N - 1)


@pytest.mark.parametrize("tabu", [False, True])
def test_rpdag_search_stops_in_its_first_pass(wide, check_every_10_columns, tabu):
    stop = StopAfter(2)
    result = rpdag_search(Scorer(wide, "bdeu"), tabu=tabu, stop=stop)
    assert_stopped_on_the_empty_graph(result, "stopped")
    computed, whole = first_pass(result)
    assert stop.calls == 2 and computed <= N + 2 * (COLUMNS_PER_CHECK + 1) * (N - 1) < whole // 10


@pytest.mark.parametrize("method", ["asobs", "obs"])
def test_ordering_search_stops_in_its_first_passes(wide, check_every_10_columns, method):
    """The seed's hill climbing, the exploration and the candidate pool (every node's one-parent
    sets) all end at the stop; the result is the best graph so far, here the empty one. The seed's pass
    makes two checks; the later phases end at their first (the ordering search caches nothing, so the
    pool scores again the one-parent sets the seed's first columns scored)."""
    stop = StopAfter(2)
    result = ordering_search(Scorer(wide), method=method, stop=stop)
    assert result.stats["stopped"] == "stopped" and result.graph.n_edges == 0 and is_acyclic(result.graph.adj)
    computed, whole = first_pass(result)
    assert computed <= N + 4 * (COLUMNS_PER_CHECK + 1) * (N - 1) < whole // 5


def test_a_time_limit_ends_an_ordering_search_in_the_pool(wide, check_every_10_columns):
    """Without a seed graph the pool of one-parent sets is the first long pass."""
    result = ordering_search(Scorer(wide), start=None, max_evaluations=2,
                             control=Control(time_limit=3.5, clock=FakeClock(1.0)))
    assert result.stats["stopped"] == "time limit" and is_acyclic(result.graph.adj)
    computed, whole = first_pass(result)
    assert computed < whole // 10


@pytest.mark.parametrize("algorithm", ["hc", "tabu", "rpdag", "asobs"])
def test_a_first_pass_that_cannot_fit_is_refused_before_it_starts(wide, monkeypatch, algorithm):
    monkeypatch.setattr(resources, "available_memory", lambda: 2 << 20)  # 2 MiB left
    scorer = Scorer(wide)
    with pytest.raises(ResourceError, match=r"over 400 variables \(a score for each of the 159,600 possible arcs"
                                            r".* needs .* but only 2\.0 MiB is available; use fewer variables"):
        learn(wide, algorithm, scorer=scorer)
    assert scorer.computed == 0  # refused before any score was computed


@pytest.mark.parametrize("algorithm, options", [("hc", {"restarts": 2, "seed": 1}), ("tabu", {"iterations": 30}),
                                                ("rpdag", {}), ("rpdag-tabu", {"iterations": 30}),
                                                ("asobs", {"max_evaluations": 30, "seed": 1})])
def test_passes_in_pieces_give_the_same_search(monkeypatch, algorithm, options):
    """Checking the stop after every column (with nobody stopping) changes nothing."""
    data = random_dag_data(np.random.default_rng(31), 14, 400, max_parents=3)[0]
    whole = learn(data, algorithm, **options)
    monkeypatch.setattr(kernels, "CHECK_WORK", 1)
    checks = StopAfter(10 ** 9)
    pieces = learn(data, algorithm, stop=checks, **options)
    assert checks.calls > 14  # the first pass was checked column by column
    assert pieces.graph == whole.graph and pieces.score == whole.score
    assert [(s["op"], s["args"]) for s in pieces.trajectory] == [(s["op"], s["args"]) for s in whole.trajectory]


def test_the_first_pass_reports_its_progress(wide, check_every_10_columns):
    """A first pass of minutes (10,000 columns) must move the progress bar, not only answer Stop."""
    messages = []
    control = Control(progress=lambda info: messages.append(info["message"]), min_interval=0.0)
    hill_climb(Scorer(wide), control=control)
    passes = [m for m in messages if m.startswith("scoring every arc")]
    assert passes[:2] == [f"scoring every arc: {k:,} of {N:,} columns" for k in (10, 20)]
    assert len(passes) == N // COLUMNS_PER_CHECK - 1


def test_the_candidate_pool_reports_its_progress(wide, check_every_10_columns):
    """Without a seed graph the pool's pass over every one-parent set is the ordering search's first long
    pass (minutes on 10,000 nodes): it reports where it is between its stop checks."""
    messages = []
    control = Control(progress=lambda info: messages.append(info["message"]), min_interval=0.0)
    ordering_search(Scorer(wide), start=None, max_evaluations=2, restarts=1, seed=0, control=control)
    pool = [m for m in messages if m.startswith("candidate pool: ")]
    assert pool[0] == f"candidate pool: {COLUMNS_PER_CHECK:,} of {N:,} nodes, {COLUMNS_PER_CHECK * (N - 1):,} sets"
    assert len(pool) == N // COLUMNS_PER_CHECK and pool[-1].startswith(f"candidate pool: {N:,} of {N:,} nodes")
