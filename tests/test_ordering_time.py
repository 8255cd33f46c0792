"""How the ordering search spends a time limit (issue 34, items 1 and 2).

The time goes by progress, not by fixed shares: hill climbing runs to its
local optimum (or the limit), the explorer and the ordering climbs take what
is left, and the result is never below the seed graph. Without a restart
count the restarts go on until the limit. Every limit here runs on a
:class:`fakes.FakeClock` (one second per reading), so the counts hold on any
machine.
"""

import numpy as np
import pytest

from bnexplore import learn
from bnexplore.control import Control
from bnexplore.parents.explore import explore_parent_sets
from bnexplore.scores import Scorer, kernels
from bnexplore.search import SEARCHES, ordering
from bnexplore.search import dagstate
from bnexplore.search.dagstate import first_pass_seconds, step_seconds
from bnexplore.search.hillclimb import hill_climb
from bnexplore.search.ordering import DEFAULT_RESTARTS, EXPLORE_SHARE, SEED_STEPS, ordering_search
from fakes import FakeClock
from test_scores import random_dag_data


@pytest.fixture(scope="module")
def data():
    return random_dag_data(np.random.default_rng(34), 40, 300, max_arity=3, max_parents=3)[0]


def clock_readings_of_hill_climbing(scorer):
    """Hill climbing alone to its local optimum, and the clock readings it took (one per stop check)."""
    clock = FakeClock(1.0)
    result = hill_climb(scorer, control=Control(time_limit=1e9, clock=clock))
    assert result.stats["stopped"] is None
    return result, clock.now


def test_hill_climbing_finishes_first_and_the_result_is_never_below_it(data):
    """A limit just past what hill climbing needs: a fixed half of it (the old split) cut the seed short and
    ended hundreds of BIC points below hill climbing alone; now the seed is hill climbing's own graph."""
    hc, readings = clock_readings_of_hill_climbing(Scorer(data, "bic"))
    limit = readings + 20  # and the readings of the seed's projection (about 10)
    result = ordering_search(Scorer(data, "bic"), seed=0, control=Control(time_limit=limit, clock=FakeClock(1.0)))
    stats = result.stats
    assert stats["seed_ended"] == "finished" and stats["seed_score"] == pytest.approx(hc.score)
    assert result.score >= hc.score - 1e-6 * abs(hc.score)
    assert stats["parent_ended"] == "time" and stats["ordering_ended"] == "time"
    assert stats["stopped"] == "time limit"
    assert stats["seed_seconds"] >= readings  # hill climbing had all the readings it needed
    # the phases' seconds add up to the run's, past the limit only by the few readings after its last check
    assert limit < stats["seed_seconds"] + stats["parent_seconds"] + stats["ordering_seconds"] <= limit + 10


def test_a_limit_inside_hill_climbing_returns_its_graph_and_says_so(data):
    hc, readings = clock_readings_of_hill_climbing(Scorer(data, "bic"))
    result = ordering_search(Scorer(data, "bic"), seed=0,
                             control=Control(time_limit=readings // 2, clock=FakeClock(1.0)))
    stats = result.stats
    assert stats["seed_ended"] == "time" and stats["parent_ended"] == "time" and stats["ordering_ended"] == "time"
    assert stats["seed_score"] < hc.score and result.score >= stats["seed_score"]
    assert stats["restarts"] == 0


def test_with_time_left_the_later_phases_finish_and_improve_on_the_seed(data):
    scorer = Scorer(data, "bic")
    result = ordering_search(scorer, seed=0, max_evaluations=30, restarts=2)
    stats = result.stats
    assert (stats["seed_ended"], stats["parent_ended"], stats["ordering_ended"]) == ("finished",) * 3
    assert stats["restarts"] == 2 and result.score >= stats["seed_score"]


@pytest.fixture(scope="module")
def found(data):
    scorer = Scorer(data, "bic")
    return scorer, explore_parent_sets(scorer, "independence", max_indegree=2, max_evaluations=40)


@pytest.mark.parametrize("method", ["asobs", "obs"])
def test_with_a_time_limit_and_no_count_the_restarts_go_on_until_the_limit(found, method):
    scorer, candidates = found
    result = ordering_search(scorer, method, parents=candidates, start=None, seed=0,
                             control=Control(time_limit=3000, clock=FakeClock(1.0)))
    assert result.stats["restarts"] > DEFAULT_RESTARTS
    assert result.stats["stopped"] == "time limit" and result.stats["ordering_ended"] == "time"
    assert result.stats["parent_ended"] == "given"


def test_a_restart_count_is_kept_exactly_with_or_without_a_limit(found):
    scorer, candidates = found
    counted = ordering_search(scorer, parents=candidates, start=None, seed=0, restarts=7,
                              control=Control(time_limit=3000, clock=FakeClock(1.0)))
    assert counted.stats["restarts"] == 7 and counted.stats["ordering_ended"] == "finished"
    assert counted.stats["stopped"] is None
    unlimited = ordering_search(scorer, parents=candidates, start=None, seed=0)
    assert unlimited.stats["restarts"] == DEFAULT_RESTARTS == 10


def test_learn_and_the_registry_default_to_the_time_limit(data):
    """The doors read the registry: its default is the function's (None), its help says what None does."""
    option = SEARCHES["asobs"].option("restarts")
    assert option.default is None and "until the time limit" in option.help
    result = learn(data, "asobs", max_evaluations=10, start=None, seed=0,
                   control=Control(time_limit=3000, clock=FakeClock(1.0)))
    assert result.stats["restarts"] > DEFAULT_RESTARTS and result.stats["ordering_ended"] == "time"


@pytest.mark.parametrize("start", ["hc", None])
def test_the_explorer_ends_at_its_share_of_the_time(data, start):
    """The explorer's share is a deadline, not only a per-variable budget: each variable's fixed work (its
    one-parent sets) overran its slice, and on the widest DEBD data the explorer took 25.9 s of a 13.5 s
    share (cr52) or the whole limit (ad), leaving the ordering climbs nothing."""
    hc, readings = clock_readings_of_hill_climbing(Scorer(data, "bic"))
    limit = (readings if start else 0) + 120
    result = ordering_search(Scorer(data, "bic"), seed=0, start=start,
                             control=Control(time_limit=limit, clock=FakeClock(1.0)))
    stats = result.stats
    share = EXPLORE_SHARE * (limit - stats["seed_seconds"])
    assert stats["parent_ended"] == "time"
    # past the share by the few clock readings (each check reads it for both controls) after the last check
    assert stats["parent_seconds"] <= share + 10
    assert stats["ordering_seconds"] >= limit - stats["seed_seconds"] - share - 10


def test_a_seed_whose_climb_would_not_get_far_is_skipped(data, monkeypatch):
    """On 10,000 variables hill climbing's first pass takes most of the limit and each step seconds: the run is
    then the paper's (explorer, orderings) and says so; with time for SEED_STEPS steps per variable the seed
    runs as before. Projected on the run's clock: with one stop check per family (a tiny check size) and one
    fake second per reading, the second column's 39 families take one second (the first is scored untimed: it
    loads the kernels), so the 40 x 39 arcs take 40 seconds; a step takes one second of n x n work and one
    column's second: 40 + 0.25 x 40 x 2 = 60 seconds, and about 6 readings go to the projection itself."""
    monkeypatch.setattr(kernels, "CHECK_WORK", 1)
    n = Scorer(data, "bic").n_vars
    assert SEED_STEPS == 0.25
    result = ordering_search(Scorer(data, "bic"), seed=0, control=Control(time_limit=1.5 * n, clock=FakeClock(1.0)))
    stats = result.stats
    assert stats["seed_ended"] == "skipped" and stats["seed_score"] is None and stats["seed_seconds"] <= 12  # readings
    assert stats["parent_ended"] == "time" and stats["restarts"] > 0 and not result.trajectory[0]["op"] == "start"
    result = ordering_search(Scorer(data, "bic"), seed=0, control=Control(time_limit=1.75 * n, clock=FakeClock(1.0)))
    assert result.stats["seed_ended"] in ("finished", "time") and result.stats["seed_score"] is not None


def test_a_step_is_projected_from_a_state_of_at_most_step_sample_variables(monkeypatch):
    """The n x n work of a step, timed on the second of two steps after an untimed one (which loads the
    kernels; the faster of the two), on at most STEP_SAMPLE variables, scaled by the square of the ratio."""
    clock = iter([0.0, 100.0, 100.0, 108.0, 108.0, 114.0]).__next__  # steps of 100 (untimed), 8 and 6 seconds
    assert step_seconds(40, clock) == 6.0
    with pytest.raises(StopIteration):
        clock()  # three steps, two readings each
    monkeypatch.setattr(dagstate, "STEP_SAMPLE", 20)
    clock = iter([0.0, 100.0, 100.0, 107.0, 107.0, 116.0]).__next__  # steps of 100, 7 and 9 seconds
    assert step_seconds(40, clock) == 28.0  # a 20 x 20 state: 4 times as many pairs


def test_the_first_pass_is_projected_from_one_check_of_families_after_the_first_column_left_in_the_cache(
        data, monkeypatch):
    """The first column is scored untimed (in a fresh process it loads the pass's kernels from numba's cache:
    0.5-0.7 s, which once projected a 0.5 s pass at a minute and skipped seeds that finish in seconds)."""
    n = Scorer(data, "bic").n_vars
    scorer = Scorer(data, "bic")  # 300 rows: one check holds every family, the whole pass but one column timed
    assert first_pass_seconds(scorer, FakeClock(0.5)) == pytest.approx(0.5 * n / (n - 1))
    assert scorer.computed == n * (n - 1)
    monkeypatch.setattr(kernels, "CHECK_WORK", 300 * 50)  # 50 families a check: two timed columns of 39
    scorer = Scorer(data, "bic")
    assert first_pass_seconds(scorer, FakeClock(0.5)) == pytest.approx(0.5 * n * (n - 1) / 78)
    assert scorer.computed == 3 * 39
    scorer.toggles(2, set(), np.delete(np.arange(n), 2))
    assert scorer.computed == 3 * 39  # the pass finds those columns cached


def test_the_first_column_scored_untimed_is_what_loads_the_pass_kernels(data):
    """A clock that moves only while a kernel is loaded: the projection does not see the loading."""
    scorer = Scorer(data, "bic")
    loading = {"seconds": 0.0}
    toggles = scorer.toggles

    def first_call_slow(*args):
        if scorer.computed == 0:
            loading["seconds"] += 60.0  # what loading a kernel from the cache costs on the run's clock
        return toggles(*args)

    scorer.toggles = first_call_slow
    assert first_pass_seconds(scorer, lambda: loading["seconds"]) == 0.0


def test_an_ordering_climb_reports_its_progress(found):
    """One climb on 10,000 variables takes minutes: it reports its moves as it goes, not only each restart."""
    scorer, candidates = found
    messages = []
    control = Control(progress=lambda info: messages.append(info["message"]), min_interval=0.0)
    result = ordering_search(scorer, parents=candidates, start=None, restarts=2, seed=0, control=control)
    climbs = [m for m in messages if m.startswith("ordering climb: ")]
    assert climbs and climbs[-1] == f"ordering climb: {result.stats['swaps']:,} swaps, " \
                                     f"{result.stats['insertions']:,} insertions"


def test_the_candidate_pool_leaves_the_end_of_the_phase_to_the_climb(found, monkeypatch):
    """On 10,000 variables the pool's first pass (every node's one-parent sets) takes the whole ordering phase,
    and what follows it (packing the candidates, a climb, its ASOBS reading) ran past the limit: the pass ends
    :data:`POOL_RESERVE_SHARE` of the phase early (half of it here, so the fake clock shows it plainly)."""
    monkeypatch.setattr(kernels, "CHECK_WORK", 1)  # one stop check per node of the pass
    monkeypatch.setattr(ordering, "POOL_RESERVE_SHARE", 0.5)
    scorer, candidates = found
    original, ended = ordering._Pool.add, []

    def add(pool, parent_lists):
        original(pool, parent_lists)
        ended.append((clock.now, pool.added))

    monkeypatch.setattr(ordering._Pool, "add", add)
    clock = FakeClock(1.0)
    whole = ordering_search(scorer, parents=candidates, start=None, seed=0, restarts=1,
                            control=Control(time_limit=10 ** 6, clock=clock))
    pass_readings, pass_sets = ended[0]
    assert whole.stats["ordering_ended"] == "finished" and pass_sets == whole.stats["pool_added"]

    ended.clear()
    clock = FakeClock(1.0)
    limit = pass_readings  # the pass alone would take (about) the whole limit
    result = ordering_search(scorer, parents=candidates, start=None, seed=0,
                             control=Control(time_limit=limit, clock=clock))
    at, added = ended[0]
    assert added < pass_sets  # cut short by its own deadline ...
    # ... half the phase, not the limit (give or take the readings before the phase and within a node's check)
    assert limit / 2 - 8 <= at <= limit / 2 + 8
    assert result.stats["ordering_ended"] == "time" and result.stats["restarts"] >= 1
    assert result.stats["swaps"] + result.stats["insertions"] > 0  # the climbs had the rest
