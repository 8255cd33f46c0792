"""Parent-set explorers (Scanagatta et al. 2015, Section 3): BIC* and its
bounds against entropies computed naively, the explorers against brute
force, budgets, independence selection against sequential ordering."""

import gc
import itertools
import math
import threading

import numpy as np
import pytest

import naive
from bnexplore import collector
from bnexplore.collector import old_objects_skipped
from bnexplore.data import Dataset
from bnexplore.errors import SearchError
from bnexplore.control import Control
from fakes import FakeClock
from bnexplore.parents.explore import (METHODS, ExploreSettings, _Family, bic_star, bic_star_bound,
                                       explore_parent_sets, interaction, singleton_entropies)
from bnexplore.scores import Scorer
from test_scores import random_dag_data


@pytest.fixture(scope="module")
def problem():
    return random_dag_data(np.random.default_rng(5), 7, 600, max_arity=3, max_parents=3)[0]


def brute_force(scorer, child, max_size, allowed=None):
    """Best parent set of ``child`` inside ``allowed`` (ties: smaller, then lexicographic)."""
    others = [v for v in range(scorer.n_vars) if v != child and (allowed is None or v in allowed)]
    sets = [c for k in range(max_size + 1) for c in itertools.combinations(others, k)]
    scores = [scorer.local(child, c) for c in sets]
    best = max(range(len(sets)), key=lambda t: (scores[t], -len(sets[t]), [-p for p in sets[t]]))
    return sets[best], scores[best]


# -- BIC*, Theorem 1, Corollary 1 ---------------------------------------------

def test_interaction_by_hand():
    # X = 0 0 1 1: BIC(X, {}) = 4 log(1/2) - log(4)/2 = -5 log 2; |P1| = |P2| = 2
    data = Dataset.from_codes(np.array([[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]]))
    scorer = Scorer(data, "bic")
    empty = scorer.local(0, ())
    assert empty == pytest.approx(-5 * math.log(2))
    # log(4)/2 (2 - 1)(2 + 2 - 4 - 1) + 5 log 2 = -log 2 + 5 log 2
    assert interaction(scorer, 0, 2.0, 2.0, empty) == pytest.approx(4 * math.log(2))


@pytest.mark.parametrize("score", ["bic", "aic", "ll"])
def test_theorem1_identity_and_corollary1_bound(score):
    rng = np.random.default_rng(11)
    for trial in range(12):
        data = random_dag_data(rng, 6, int(rng.integers(50, 400)), max_arity=4)[0]
        scorer = Scorer(data, score)
        codes = np.asarray(data.codes)
        child = int(rng.integers(6))
        others = rng.permutation([v for v in range(6) if v != child]).tolist()
        k1 = int(rng.integers(1, 3))
        p1, p2 = others[:k1], others[k1:k1 + int(rng.integers(1, 3))]
        ii = naive.interaction_information(codes, p1, p2, [child])
        exact = scorer.local(child, p1 + p2)
        star = bic_star(scorer, child, p1, p2)
        assert exact == pytest.approx(star + scorer.n_rows * ii, rel=1e-9, abs=1e-7)
        bound = scorer.n_rows * min(naive.entropy(codes, [child]), naive.entropy(codes, p1), naive.entropy(codes, p2))
        assert bic_star_bound(scorer, child, p1, p2) == pytest.approx(bound)
        assert abs(exact - star) <= bound + 1e-7


def test_theorem2_lower_bound_never_exceeds_the_score():
    """The explorer's estimated floor (BIC* minus the Corollary 1 error, with
    H(P1) bounded from above) is a lower bound on the exact score."""
    rng = np.random.default_rng(12)
    for trial in range(6):
        data = random_dag_data(rng, 7, int(rng.integers(60, 500)), max_arity=4)[0]
        scorer = Scorer(data, "bic")
        child = int(rng.integers(7))
        family = _Family(scorer, child, ExploreSettings(max_evaluations=10 ** 6), Control(),
                         singleton_entropies(scorer))
        others = [v for v in range(7) if v != child]
        family.score([c for k in (1, 2, 3) for c in itertools.combinations(others, k)])
        for c in itertools.combinations(others, 3):
            estimate = family._estimated_floor(c)
            assert np.isfinite(estimate)
            assert estimate <= scorer.local(child, c) + 1e-7


def test_bic_star_rejects_overlapping_sets(problem):
    scorer = Scorer(problem, "bic")
    with pytest.raises(SearchError, match="disjoint"):
        bic_star(scorer, 0, [1, 2], [2, 3])
    with pytest.raises(SearchError, match="non-empty"):
        bic_star(scorer, 0, [], [2])


# -- explorers against brute force ---------------------------------------------

@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("score", ["bic", "bdeu"])
def test_unlimited_explorers_find_the_best_set_in_every_allowed_set(problem, method, score):
    """With no budget the kept sets answer "best parent set inside A" exactly
    for every A, as brute force does (pruned sets are provably beaten)."""
    scorer = Scorer(problem, score)
    found = explore_parent_sets(scorer, method, max_indegree=3)
    rng = np.random.default_rng(3)
    for v in range(scorer.n_vars):
        sets, scores = found.sets(v), found.scores(v)
        assert () in sets
        for c, s in zip(sets, scores):
            assert s == pytest.approx(scorer.local(v, c), rel=1e-12)
            assert len(c) <= 3
        for _ in range(6):
            allowed = [u for u in range(scorer.n_vars) if u != v and rng.random() < 0.6]
            if _ == 0:
                allowed = [u for u in range(scorer.n_vars) if u != v]
            best_set, best_score = found.best(v, allowed)
            want_set, want_score = brute_force(scorer, v, 3, allowed)
            assert best_set == want_set and best_score == pytest.approx(want_score)


def test_kept_sets_beat_every_scored_subset(problem):
    scorer = Scorer(problem, "bic")
    found = explore_parent_sets(scorer, "greedy", max_indegree=3)
    for v in range(scorer.n_vars):
        kept = dict(zip(found.sets(v), found.scores(v)))
        for c, s in kept.items():
            for k in range(len(c)):
                for sub in itertools.combinations(c, k):
                    assert s > scorer.local(v, sub)


def test_bic_bounds_prune_and_agree_across_methods(problem):
    scorer = Scorer(problem, "bic")
    results = {m: explore_parent_sets(scorer, m, max_indegree=4) for m in METHODS}
    for m, found in results.items():
        assert sum(found.stats["per_node"]["pruned"]) > 0, m
    for v in range(scorer.n_vars):
        bests = {m: found.best(v) for m, found in results.items()}
        assert len({b[0] for b in bests.values()}) == 1


def strong_network_data(rng, n_vars, n_rows):
    """Data from a random DAG whose nodes have 1-3 strongly predictive parents."""
    arities = rng.integers(2, 4, n_vars)
    codes = np.zeros((n_rows, n_vars), np.uint8)
    for v in range(1, n_vars):
        ps = sorted(rng.choice(v, min(v, int(rng.integers(1, 4))), replace=False).tolist())
        config = np.zeros(n_rows, np.int64)
        for p in ps:
            config = config * arities[p] + codes[:, p]
        cpt = rng.dirichlet(np.full(arities[v], 0.3), size=int(np.prod(arities[ps])))
        u = rng.random(n_rows)
        codes[:, v] = np.minimum((u[:, None] > cpt.cumsum(axis=1)[config]).sum(axis=1), arities[v] - 1)
    codes[:, 0] = rng.integers(0, arities[0], n_rows)
    order = rng.permutation(n_vars)
    return Dataset.from_codes(codes[:, order], arities[order])


def test_independence_selection_finds_optimum_as_often_as_sequential():
    """Same evaluation budget, random networks with strong parents
    (Scanagatta et al. 2015, Figure 1 and Table 2)."""
    rng = np.random.default_rng(2)
    hits = {"independence": 0, "sequential": 0}
    for _ in range(3):
        scorer = Scorer(strong_network_data(rng, 12, 1500), "bic")
        optimum = [brute_force(scorer, v, 3)[0] for v in range(scorer.n_vars)]
        for method in hits:
            found = explore_parent_sets(scorer, method, max_indegree=3, max_evaluations=40)
            assert max(found.stats["per_node"]["evaluated"]) <= 40
            hits[method] += sum(found.best(v)[0] == optimum[v] for v in range(scorer.n_vars))
    assert hits["independence"] >= hits["sequential"]
    assert hits["independence"] > 0


# -- budgets, variables, stop, errors --------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_evaluation_budget_is_exact_and_deterministic(problem, method):
    scorer = Scorer(problem, "bic")
    a = explore_parent_sets(scorer, method, max_evaluations=9)
    b = explore_parent_sets(scorer, method, max_evaluations=9)
    assert a.stats["per_node"]["evaluated"] == [9] * scorer.n_vars
    assert a.table() == b.table()
    before = scorer.computed
    explore_parent_sets(scorer, method, max_evaluations=1)
    assert scorer.computed - before == scorer.n_vars  # the empty sets only


def test_time_budget_ends_exploration(problem):
    """The per-variable time budget, on a clock that advances one second per reading."""
    scorer = Scorer(problem, "bdeu")
    found = explore_parent_sets(scorer, "independence", time_per_variable=3.5,
                                control=Control(clock=FakeClock(1.0)))
    unlimited = explore_parent_sets(scorer, "independence", max_evaluations=10**6, max_indegree=3)
    assert sum(found.stats["per_node"]["evaluated"]) < sum(unlimited.stats["per_node"]["evaluated"])
    assert max(found.stats["per_node"]["seconds"]) <= 5.0
    assert all(() in found.sets(v) for v in range(scorer.n_vars))


def test_variables_subset_and_stop(problem):
    scorer = Scorer(problem, "bic")
    found = explore_parent_sets(scorer, "greedy", max_indegree=2, variables=[problem.names[1], 3])
    assert found.stats["explored"] == [v in (1, 3) for v in range(scorer.n_vars)]
    assert found.sets(0) == [()] and found.scores(0)[0] == pytest.approx(scorer.local(0, ()))
    stop = threading.Event()
    reports = []

    def progress(info):
        reports.append(info["variables_done"])
        stop.set()

    stopped = explore_parent_sets(scorer, "greedy", max_indegree=2, stop=stop, progress=progress)
    assert stopped.stats["stopped"] == "stopped"
    assert reports[0] == 1 and sum(stopped.stats["explored"]) == 1


@pytest.mark.parametrize("options, message", [
    (dict(method="bfs"), "unknown parent-set explorer"),
    (dict(), "needs a budget"),
    (dict(max_evaluations=0), "max_evaluations"),
    (dict(max_indegree=-1), "max_indegree"),
    (dict(time_per_variable=0), "time_per_variable"),
])
def test_bad_settings(problem, options, message):
    with pytest.raises(SearchError, match=message):
        explore_parent_sets(Scorer(problem, "bic"), **options)


def test_the_explorer_freezes_the_objects_alive_before_it_and_thaws_them_after_even_when_stopped_by_an_error(
        monkeypatch):
    """Full garbage collections skip the objects alive when the exploration began (bnexplore.collector), and
    the freeze ends with it; nested and overlapping blocks share one freeze, and a freeze made by someone
    else is left in place."""
    scorer = Scorer(random_dag_data(np.random.default_rng(3), 6, 200)[0], "bic")
    during = []

    def progress(info):
        during.append(gc.get_freeze_count())

    explore_parent_sets(scorer, max_indegree=2, progress=progress)
    assert during and min(during) > 0 and gc.get_freeze_count() == 0

    def fail(info):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        explore_parent_sets(scorer, max_indegree=2, progress=fail)
    assert gc.get_freeze_count() == 0
    # the calls, not the frozen count: objects frozen die meanwhile (another thread's), and the count with them
    calls, counts = [], [0]
    monkeypatch.setattr(collector.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(collector.gc, "unfreeze", lambda: calls.append("unfreeze"))
    monkeypatch.setattr(collector.gc, "get_freeze_count", lambda: counts[-1])
    with old_objects_skipped():
        counts.append(952_739)
        with old_objects_skipped():
            pass
        assert calls == ["freeze"]
    assert calls == ["freeze", "unfreeze"]
    calls.clear()
    counts.append(1_000)  # someone else's freeze: left as it is
    with old_objects_skipped():
        pass
    assert calls == []
