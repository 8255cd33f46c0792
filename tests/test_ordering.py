"""OBS and ASOBS (Teyssier & Koller 2005; Scanagatta et al. 2015, Section 4):
kernels against their naive twins, the descendant matrix against naive
reachability after every step, Theorem 3 on many orderings, the search."""

import gc
import inspect
import threading
from types import SimpleNamespace

import numpy as np
import pytest

import naive
from bnexplore.control import Control
from fakes import FakeClock
from bnexplore.data import Dataset
from bnexplore.errors import BNExploreError, SearchError
from bnexplore.graphs import is_acyclic
from bnexplore.parents import ParentSets
from bnexplore.parents.candidates import pack_items
from bnexplore.parents.explore import explore_parent_sets
from bnexplore.scores import Scorer
from bnexplore.search.hillclimb import hill_climb
from bnexplore.search.ordering import Candidates, Climb, _Pool, asobs, obs, ordering_search
from bnexplore.search.ordering_kernels import (asobs_parents, asobs_step, climb_swaps, obs_parents, swap_delta, swap_deltas,
                                               topological_order)
from bnexplore.search.pool_sets import around, undominated
from test_scores import random_dag_data


def random_candidates(rng, n, max_sets=6, max_size=3):
    """Random candidate lists (the empty set always present), as ParentSets."""
    lists = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        sets = {()}
        for _ in range(int(rng.integers(0, max_sets))):
            sets.add(tuple(sorted(rng.choice(others, int(rng.integers(1, min(max_size, n - 1) + 1)),
                                             replace=False).tolist())))
        lists.append([(c, float(rng.normal(-len(c), 2.0)) if c else -5.0) for c in sets])
    return ParentSets([f"V{v}" for v in range(n)], lists, "bic")


def candidate_lists(parent_sets):
    return [list(zip(parent_sets.sets(v), parent_sets.scores(v).tolist())) for v in range(parent_sets.n_vars)]


def rows_to_sets(cands, chosen):
    return [(tuple(cands.parents[t, :cands.sizes[t]].tolist()), float(cands.scores[t])) for t in chosen]


def adjacency(parent_lists):
    n = len(parent_lists)
    adj = np.zeros((n, n), np.uint8)
    for v, ps in enumerate(parent_lists):
        adj[list(ps), v] = 1
    return adj


# -- kernels against naive twins ---------------------------------------------------

def test_obs_and_asobs_choices_match_naive_and_asobs_dominates():
    rng = np.random.default_rng(1)
    for trial in range(60):
        n = int(rng.integers(2, 9))
        ps = random_candidates(rng, n)
        cands, lists = Candidates(ps), candidate_lists(ps)
        for _ in range(5):
            order = rng.permutation(n)
            obs_rows, _ = cands.obs(order)
            asobs_rows = cands.asobs(order)
            assert rows_to_sets(cands, obs_rows) == naive.obs_choice(lists, order.tolist())
            assert rows_to_sets(cands, asobs_rows) == naive.asobs_choice(lists, order.tolist())
            # Theorem 3, node by node: ASOBS allows every set OBS allows
            assert np.all(cands.scores[asobs_rows] >= cands.scores[obs_rows])
            assert is_acyclic(adjacency(cands.parent_lists(asobs_rows)))
            assert is_acyclic(adjacency(cands.parent_lists(obs_rows)))


def test_descendant_matrix_equals_reachability_after_every_step():
    rng = np.random.default_rng(2)
    for trial in range(40):
        n = int(rng.integers(2, 10))
        cands = Candidates(random_candidates(rng, n, max_sets=8))
        order = rng.permutation(n)
        chosen = np.full(n, -1, np.int64)
        desc = np.zeros((n, n), np.bool_)
        todo = np.empty(n, np.int64)
        for v in order[::-1]:
            asobs_step(v, cands.parents, cands.sizes, cands.offsets, chosen, desc, todo)
            lists = [cands.parent_lists([t])[0] if t >= 0 else [] for t in chosen]
            assert desc.tolist() == naive.reachability(adjacency(lists).tolist())


def random_obs_problems(seed, trials=40):
    """Random candidates over 2-7 nodes with a random ordering and its OBS choice:
    ``(n, cands, lists, order, chosen, pos)`` per trial."""
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        n = int(rng.integers(2, 8))
        ps = random_candidates(rng, n)
        cands = Candidates(ps)
        order = rng.permutation(n)
        yield (n, cands, candidate_lists(ps), order, *cands.obs(order))


def test_swap_deltas_and_climb_match_naive():
    for n, c, lists, order, chosen, pos in random_obs_problems(3):
        deltas = swap_deltas(c.parents, c.sizes, c.scores, c.offsets, order, pos, chosen)
        for j in range(n - 1):
            assert deltas[j] == pytest.approx(naive.obs_swap_gain(lists, order.tolist(), j), abs=1e-9)
            assert swap_delta(c.parents, c.sizes, c.scores, c.offsets, order, pos, chosen, j)[0] == deltas[j]
        want = naive.obs_climb(lists, order.tolist(), 1e-9)
        climbed = order.copy()
        climb_swaps(c.parents, c.sizes, c.scores, c.offsets, climbed, pos, chosen, deltas, 10 ** 6, 1e-9)
        assert climbed.tolist() == want
        assert rows_to_sets(c, chosen) == naive.obs_choice(lists, want)
        assert np.array_equal(pos[climbed], np.arange(n))


def test_insertion_gains_match_naive():
    for n, cands, lists, order, chosen, pos in random_obs_problems(5):
        gains = naive.insertion_gains(cands.parents, cands.sizes, cands.scores, cands.offsets, order, pos, chosen)
        for v in range(n):
            for j in range(n):
                assert gains[v, j] == pytest.approx(naive.obs_insertion_gain(lists, order.tolist(), v, j), abs=1e-9)


def test_climb_ends_at_an_insertion_optimum():
    rng = np.random.default_rng(6)
    for trial in range(20):
        n = int(rng.integers(2, 9))
        ps = random_candidates(rng, n, max_sets=8)
        cands, lists = Candidates(ps), candidate_lists(ps)
        start = rng.permutation(n)
        climb = Climb(cands, start)
        counters = {"swaps": 0, "insertions": 0}
        climb.run(Control(), counters)
        order = climb.order.tolist()
        assert cands.score(climb.chosen) >= naive.obs_total(lists, start.tolist()) - 1e-9
        assert cands.score(climb.chosen) == pytest.approx(naive.obs_total(lists, order))
        assert all(naive.obs_insertion_gain(lists, order, v, j) <= 1e-6 for v in range(n) for j in range(n))


def test_topological_order_follows_the_order_where_it_can():
    rng = np.random.default_rng(4)
    for trial in range(30):
        n = int(rng.integers(2, 10))
        cands = Candidates(random_candidates(rng, n))
        order = rng.permutation(n)
        chosen = cands.asobs(order)
        topo = topological_order(cands.parents, cands.sizes, chosen, order).tolist()
        lists = cands.parent_lists(chosen)
        assert topo == naive.topological_order_following(lists, order.tolist())
        place = {v: i for i, v in enumerate(topo)}
        assert all(place[p] < place[v] for v in range(n) for p in lists[v])
        # the OBS choice on that order is at least as good as the ASOBS graph
        assert cands.score(cands.obs(np.array(topo))[0]) >= cands.score(chosen) - 1e-9
    # no arcs: the order itself
    empty = Candidates(ParentSets(["a", "b", "c"], [[((), 0.0)]] * 3, "bic"))
    order = np.array([2, 0, 1])
    assert topological_order(empty.parents, empty.sizes, np.zeros(3, np.int64) + [0, 1, 2], order).tolist() \
        == [2, 0, 1]


# -- the search --------------------------------------------------------------------

@pytest.fixture(scope="module")
def problem():
    data = random_dag_data(np.random.default_rng(8), 12, 1000, max_arity=3, max_parents=3)[0]
    scorer = Scorer(data, "bic")
    return scorer, explore_parent_sets(scorer, "independence", max_indegree=3, max_evaluations=150)


def test_asobs_never_below_obs_with_the_same_seed(problem):
    """The paper's algorithms (no seed graph): random orderings over the explored sets only."""
    scorer, found = problem
    for seed in range(4):
        a = ordering_search(scorer, "asobs", parents=found, restarts=3, seed=seed, start=None)
        o = ordering_search(scorer, "obs", parents=found, restarts=3, seed=seed, start=None)
        assert a.score >= o.score - 1e-9
        for r in (a, o):
            assert is_acyclic(r.graph.adj)
            assert r.score == pytest.approx(scorer.total(r.graph), rel=1e-12)
            for v, ps in enumerate(r.graph.parent_sets()):
                assert tuple(sorted(ps)) in found.sets(v)


def test_search_result_and_statistics(problem):
    scorer, _ = problem
    reports = []
    control = Control(progress=reports.append, clock=FakeClock(1.0))  # every report passes the rate limit
    result = ordering_search(scorer, "asobs", parents="greedy", max_indegree=2, max_evaluations=40, restarts=2,
                             seed=1, control=control)
    assert result.algorithm == "asobs" and result.score_name == "bic"
    stats = result.stats
    assert scorer.n_vars < stats["parent_sets_evaluated"] <= 40 * scorer.n_vars
    assert stats["restarts"] == 2 and stats["orderings"] >= 2
    assert stats["candidates"] == sum(result.extra["candidates"].values())
    assert set(result.extra["candidates"]) == set(scorer.names)
    assert sorted(result.extra["ordering"]) == sorted(scorer.names)
    assert result.params["parents"] == "greedy" and result.params["max_evaluations"] == 40
    assert any("variables_done" in r for r in reports) and reports[-1]["done"] == 1.0
    assert reports[0]["message"].startswith("seed graph: ") and reports[0]["done"] is None
    assert all(len(ps) <= 2 for ps in result.graph.parent_sets())
    assert result.to_json()["score"] == result.score


def test_learn_registration_shape(problem):
    """``asobs`` and ``obs`` take ``(scorer, **options)`` and expose the options to ``learn``."""
    scorer, found = problem
    for function in (asobs, obs):
        params = inspect.signature(function).parameters
        assert "method" not in params and {"parents", "max_evaluations", "restarts"} <= set(params)
    result = obs(scorer, parents=found, restarts=1, seed=0)
    assert result.algorithm == "obs"
    assert result.score == ordering_search(scorer, "obs", parents=found, restarts=1, seed=0).score


def test_stop_still_returns_an_acyclic_graph(problem):
    scorer, found = problem
    stop = threading.Event()
    stop.set()
    result = ordering_search(scorer, "asobs", parents=found, restarts=50, stop=stop, start=None)
    assert result.stats["stopped"] == "stopped" and result.stats["restarts"] == 1
    assert is_acyclic(result.graph.adj)
    seeded = ordering_search(scorer, "asobs", parents=found, restarts=50, stop=stop)  # the seed graph is the result
    assert seeded.stats["stopped"] == "stopped" and seeded.stats["restarts"] == 0
    assert seeded.score == seeded.stats["seed_score"] and is_acyclic(seeded.graph.adj)


@pytest.mark.parametrize("options, message", [
    (dict(method="dp"), "unknown ordering search"),
    (dict(parents="bfs"), "parents must be"),
    (dict(restarts=0), "restarts"),
    (dict(workers=0), "workers"),
    (dict(start="tabu"), "start must be"),
    (dict(start=[[2], [0], [1]] + [[]] * 9), "directed cycle V0 -> V1 -> V2 -> V0"),
    (dict(start=[[1, 2, 3]] + [[]] * 11, max_indegree=2), "more than max_indegree=2"),
])
def test_bad_arguments(problem, options, message):
    scorer, _ = problem
    with pytest.raises(BNExploreError, match=message):
        ordering_search(scorer, **options)


def test_candidates_for_other_variables_are_refused(problem):
    scorer, _ = problem
    other = ParentSets(["a"] * scorer.n_vars, [[((), 0.0)]] * scorer.n_vars, "bic")
    with pytest.raises(SearchError, match="other variables"):
        ordering_search(scorer, parents=other)


# -- the seed graph: hill climbing's sets in the candidates, refinement ------------

def test_around_lists_the_sets_next_to_a_parent_set():
    assert around((1, 3), 0, 5, cap=5) == {(), (1,), (3,), (1, 3), (1, 2, 3), (1, 3, 4)}
    assert around((1, 3), 0, 5, cap=2) == {(), (1,), (3,), (1, 3)}
    big = tuple(range(1, 9))  # more than SUBSETS_UP_TO parents: only the subsets one smaller, and the empty set
    assert around(big, 0, 10, cap=10) == ({(), big, big + (9,)} | {big[:i] + big[i + 1:] for i in range(8)})


def test_undominated_sets_give_every_ordering_the_same_choice():
    rng = np.random.default_rng(9)
    for trial in range(40):
        n = int(rng.integers(2, 7))
        ps = random_candidates(rng, n, max_sets=10)
        lists = candidate_lists(ps)
        pruned = [sorted(((c, dict(items)[c]) for c in undominated(dict(items))), key=lambda item: -item[1])
                  for items in lists]
        for v, (items, kept) in enumerate(zip(lists, pruned)):
            scored = dict(items)
            assert set(kept) <= set(items)
            for c, score in set(items) - set(kept):  # a dropped set scores no better than a subset it contains
                assert any(set(d) < set(c) and scored[d] >= score for d in scored)
        for _ in range(5):
            order = rng.permutation(n).tolist()
            assert naive.obs_total(pruned, order) == pytest.approx(naive.obs_total(lists, order))


def test_a_node_packed_anew_keeps_the_order_of_a_parent_sets_of_its_undominated_sets():
    """The pool packs a node with sets added since the last packing straight from its pairs: the same rows in
    the same order as through a ParentSets of its undominated sets (ties of scores, common on integer-valued
    data, included) and the same forced pairs (a node whose every set holds a parent); its dominated sets are
    remembered, not packed."""
    rng = np.random.default_rng(12)
    forced = 0
    for trial in range(200):
        n = int(rng.integers(1, 7))
        lists = []
        for v in range(n):
            others = [u for u in range(n) if u != v]
            required = (others[0],) if others and rng.random() < 0.3 else ()
            sets = {required}
            for _ in range(int(rng.integers(0, 6))):
                extra = rng.choice(others, int(rng.integers(0, len(others) + 1)), replace=False).tolist()
                sets.add(tuple(sorted(set(extra) | set(required))))
            lists.append([(c, float(rng.integers(-4, 0))) for c in sets])  # few values: many ties
        names = [f"V{v}" for v in range(n)]
        first = [[min(pairs, key=lambda pair: len(pair[0]))] for pairs in lists]  # each node's required set
        required = [pairs[0][0] for pairs in first]  # a pool of those (nothing around them to score), then the rest
        bound = SimpleNamespace(required_parents=lambda v: np.array(required[v], np.int64),
                                parents_ok=lambda v, c: set(required[v]) <= set(c))
        pool = _Pool(SimpleNamespace(n_vars=n, rows=10), ParentSets(names, first, "bic"), 0, bound)
        for v, pairs in enumerate(lists):
            pairs.remove(first[v][0])
            pairs.insert(0, first[v][0])
        for v, pairs in enumerate(lists):
            if pairs[1:]:
                pool._waiting[v].append(pack_items(pairs[1:]))
        packed = pool.candidates()
        kept = [[(c, score) for c, score in pairs if c in undominated(dict(pairs))] for pairs in lists]
        through = Candidates(ParentSets(names, kept, "bic"))
        assert packed.offsets.tolist() == through.offsets.tolist()
        assert packed.sizes.tolist() == through.sizes.tolist() and packed.scores.tolist() == through.scores.tolist()
        assert [packed.parents[t, :k].tolist() for t, k in enumerate(packed.sizes)] == \
            [through.parents[t, :k].tolist() for t, k in enumerate(through.sizes)], trial
        assert (packed.parents[np.arange(packed.parents.shape[1]) >= packed.sizes[:, None]] == -1).all()
        assert sorted(map(tuple, packed.forced.tolist())) == sorted(map(tuple, through.forced.tolist()))
        assert all(pool.scored(v) == dict(pairs) for v, pairs in enumerate(lists))
        forced += len(packed.forced)
    assert forced > 0  # the trials met required parents


def test_pool_reproduces_a_graph_on_its_topological_order(problem):
    """With the sets around a graph added, the OBS choice on the graph's topological
    order scores at least the graph (its own sets are consistent with that order)."""
    scorer, found = problem
    rng = np.random.default_rng(10)
    for trial in range(10):
        order = rng.permutation(scorer.n_vars)
        parents = [sorted(rng.choice(order[:i], min(i, int(rng.integers(0, 4))), replace=False).tolist())
                   for i in range(scorer.n_vars)]
        graph = [[] for _ in range(scorer.n_vars)]
        for i, v in enumerate(order):
            graph[v] = parents[i]
        pool = _Pool(scorer, found, None)
        pool.add(graph)
        cands = pool.candidates()
        chosen, _ = cands.obs(np.asarray(order, np.int64))
        assert cands.score(chosen) >= scorer.total(graph) - 1e-9 * abs(scorer.total(graph))
        for v, ps in enumerate(graph):
            assert tuple(ps) in pool.scored(v) and () in pool.scored(v)


def random_graph(rng, n):
    order = rng.permutation(n)
    graph = [[] for _ in range(n)]
    for i, v in enumerate(order):
        graph[v] = sorted(rng.choice(order[:i], min(i, int(rng.integers(0, 4))), replace=False).tolist())
    return graph


def test_the_pool_holds_the_explored_sets_as_its_packed_candidates_only():
    """The pool keeps no Python object per explored set (on DEBD's voting its dicts of 1.58 million tuples and
    floats, beside the packed arrays, made the learner's peak): building it and packing takes memory within
    twice the packed arrays' bytes (as tuples and floats the sets take about ten times those), a pool with
    nothing added packs nothing anew, and the sets added around a graph join the same packed candidates."""
    import tracemalloc

    n, rng = 400, np.random.default_rng(13)
    data = Dataset.from_codes(rng.integers(0, 2, size=(30, n)), [2] * n)
    scorer = Scorer(data, "bic")
    lists = [[((), -10.0)] + [((u,), -9.0 + 1e-3 * u) for u in range(n) if u != v] for v in range(n)]
    lists[1][1] = ((0,), -1e9)  # the sets around it score above it
    given = ParentSets(scorer.names, lists, "bic")  # every one-parent set, all but one beating the empty set
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        pool = _Pool(scorer, given, None)
        cands = pool.candidates()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    arrays = cands.parents.nbytes + cands.sizes.nbytes + cands.scores.nbytes
    assert len(cands.scores) == n * n and held < 2 * arrays
    assert pool.candidates() is cands and pool.added == 0  # every set around the empty graph was given
    graph = [[] for _ in range(n)]
    graph[1] = [0]
    pool.add(graph)
    again = pool.candidates()
    assert again is cands and pool.added == n - 2  # revised in place; (0,) held, (0, u) scored for u not 0, 1
    larger = {(0, u) for u in range(2, n)}
    assert larger <= set(pool.scored(1)) and not any(pool._waiting)
    assert not larger & set(map(tuple, again.parent_lists(range(again.offsets[1], again.offsets[2]))))  # below (u,)
    for v in range(n):
        assert sorted(map(tuple, again.parent_lists(range(again.offsets[v], again.offsets[v + 1])))) == \
            sorted(undominated(pool.scored(v)))


def revised_naively(cands, revisions):
    """What :meth:`Candidates.revise` must give: every node's kept rows and new sets, best first, packed afresh."""
    nodes = []
    for v in range(cands.n):
        parents, sizes, scores = (array.copy() for array in cands.packed(v))
        if v in revisions:
            stay, (new_parents, new_sizes, new_scores) = revisions[v]
            pairs = [(tuple(row[:k]), score) for row, k, score in zip(parents[stay].tolist(), sizes[stay].tolist(),
                                                                      scores[stay].tolist())]
            pairs += [(tuple(row[:k]), score) for row, k, score in zip(new_parents.tolist(), new_sizes.tolist(),
                                                                       new_scores.tolist())]
            parents, sizes, scores = pack_items(sorted(pairs, key=lambda item: (-item[1], len(item[0]), item[0])))
        nodes.append((parents, sizes, scores))
    return Candidates.of_arrays(nodes)


def test_candidates_revised_in_place_are_those_packed_afresh():
    """Rows dropped and sets added at random nodes (some growing, some shrinking, some wider than every packed
    set, ties of scores included): the same rows in the same order, offsets and forced pairs as the candidates
    packed afresh from each node's kept and new sets, over several revisions in a row."""
    rng = np.random.default_rng(21)
    for trial in range(150):
        n = int(rng.integers(2, 8))
        cands = Candidates(random_candidates(rng, n, max_sets=6, max_size=2))
        for _ in range(3):
            revisions = {}
            for v in rng.choice(n, int(rng.integers(0, n + 1)), replace=False).tolist():
                m = int(cands.offsets[v + 1] - cands.offsets[v])
                stay = rng.random(m) < 0.7
                stay[rng.integers(0, m)] = True
                held = {tuple(row[:k]) for row, k in zip(*(a.tolist() for a in cands.packed(v)[:2]))}
                others = [u for u in range(n) if u != v]
                new = set()
                for _ in range(int(rng.integers(0, 4))):
                    size = int(rng.integers(1, min(len(others), 4) + 1)) if others else 0
                    new.add(tuple(sorted(rng.choice(others, size, replace=False).tolist())) if size else ())
                pairs = [(c, float(rng.integers(-6, 0))) for c in sorted(new - held)]
                revisions[v] = stay, pack_items(pairs)
            expected = revised_naively(cands, revisions)
            cands.revise(revisions)
            assert cands.offsets.tolist() == expected.offsets.tolist(), trial
            assert cands.sizes.tolist() == expected.sizes.tolist() and cands.scores.tolist() == expected.scores.tolist()
            width = min(cands.parents.shape[1], expected.parents.shape[1])
            assert cands.parents[:, :width].tolist() == expected.parents[:, :width].tolist(), trial
            assert (cands.parents[:, width:] == -1).all() and cands.parents.dtype == np.int32
            assert sorted(map(tuple, cands.forced.tolist())) == sorted(map(tuple, expected.forced.tolist()))


def test_a_revision_makes_no_second_copy_of_the_candidates():
    """Revising every other node of 120,000 packed sets, with room to spare, takes far less memory than the
    packed arrays (a packing afresh beside them took as much again: on DEBD's voting, 50 MB)."""
    import tracemalloc

    n = 300
    cands = Candidates.of_arrays([pack_items([((u,), -1.0 - u) for u in range(400) if u != v] + [((), -1e3)]
                                             + [((v + 1, v + 2), -2e3)]) for v in range(n)], spare=n)
    revisions = {v: (np.ones(int(cands.offsets[v + 1] - cands.offsets[v]), bool),
                     pack_items([((400 + v, 401 + v), -0.5)])) for v in range(0, n, 2)}
    arrays = cands.parents.nbytes + cands.sizes.nbytes + cands.scores.nbytes
    expected = revised_naively(cands, revisions)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cands.revise(revisions)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert cands.parents.shape[1] == 2 and peak < 0.2 * arrays, (peak, arrays)
    assert cands.offsets.tolist() == expected.offsets.tolist() and cands.scores.tolist() == expected.scores.tolist()
    assert cands.parents.tolist() == expected.parents.tolist()


def test_every_restart_that_beats_the_restarts_before_it_is_refined_even_below_the_best_graph(monkeypatch):
    """A random ordering's ASOBS graph is refined (polished by hill climbing, climbed again) when it beats
    every restart before it, not only when it beats the best graph: on DEBD's dna the hill-climbing seed's
    refinement stays ahead of every raw restart, and the restarts that would polish far above it were
    never polished. Restarts below an earlier one are not refined."""
    from bnexplore.search import ordering

    raw = iter([-10.0, -12.0, -9.0, -11.0, -9.5, -8.0])
    refined = []
    search = ordering._Search(SimpleNamespace(n_vars=3), None, "asobs", None, Control(),
                              SimpleNamespace(trajectory=[]))
    search._adopt([[], [], []], -5.0, "start")  # a seed graph above every restart
    monkeypatch.setattr(search, "climb", lambda order: ([[], [], []], next(raw)))
    monkeypatch.setattr(search, "refine", lambda parents, score, polished: refined.append(score))
    search.restarts(6, seed=0, refine=True)
    assert refined == [-10.0, -9.0, -8.0]
    refined.clear()
    raw = iter([-10.0, -9.0])
    search.restarts(2, seed=0, refine=False)
    assert refined == [] and search.best_score == -5.0


def test_packed_candidates_hold_parents_in_four_bytes_and_choose_as_int64_would(problem):
    """The packed parents array grows with the candidates times their largest size, the ordering search's
    largest array on wide data: both packings hold int32 indices (half of int64), the same sets, and the
    kernels choose the same rows on them as on an int64 copy."""
    scorer, found = problem
    pool = _Pool(scorer, found, None)
    rng = np.random.default_rng(5)
    for cands, sets in ((Candidates(found), [found.sets(v) for v in range(scorer.n_vars)]),
                        (pool.candidates(), [undominated(pool.scored(v)) for v in range(scorer.n_vars)])):
        assert cands.parents.dtype == np.int32
        rows = [tuple(p[:s]) for p, s in zip(cands.parents.tolist(), cands.sizes.tolist())]
        held = [rows[a:b] for a, b in zip(cands.offsets[:-1], cands.offsets[1:])]
        assert [sorted(node) for node in held] == [sorted(map(tuple, node)) for node in sets]
        wide = cands.parents.astype(np.int64)
        for _ in range(5):
            order = rng.permutation(scorer.n_vars)
            assert cands.asobs(order).tolist() == asobs_parents(wide, cands.sizes, cands.offsets, order).tolist()
            chosen, pos = cands.obs(order)
            chosen64, pos64 = obs_parents(wide, cands.sizes, cands.offsets, order)
            assert chosen.tolist() == chosen64.tolist() and pos.tolist() == pos64.tolist()


def test_pool_gives_every_ordering_the_choice_of_all_the_sets_around_its_graphs(problem):
    """The pool keeps a set one parent larger than a graph's only when it beats the graph's set (the
    one-parent sets of every node were held in full before: n (n - 1) entries, most no better than the
    empty set on wide data), yet every ordering gets the OBS choice of the explored sets and all the sets
    around the graphs added, scored in full."""
    scorer, found = problem
    n, rng = scorer.n_vars, np.random.default_rng(11)
    pool = _Pool(scorer, found, None)
    graphs = [random_graph(rng, n) for _ in range(3)]
    for k, graph in enumerate(graphs):
        pool.add(graph)
        if k == 0:  # the graph's own sets stay; a larger set (not explored) only when it beats the graph's
            for v, ps in enumerate(graph):
                centre, explored = tuple(ps), set(found.sets(v))
                scored = pool.scored(v)
                larger = [c for c in scored if len(c) == len(centre) + 1 and c not in explored]
                assert centre in scored and len(larger) < n - 1 - len(centre)
                assert all(scored[c] > scored[centre] for c in larger if set(centre) < set(c))
    full = [dict(zip(found.sets(v), found.scores(v).tolist())) for v in range(n)]
    for graph in [[[]] * n] + graphs:
        for v, ps in enumerate(graph):
            for c in around(tuple(ps), v, n, n):
                full[v][c] = scorer.local(v, c)
    lists = [sorted(items.items(), key=lambda item: -item[1]) for items in full]
    cands = pool.candidates()
    for _ in range(20):
        order = rng.permutation(n)
        chosen, _ = cands.obs(np.asarray(order, np.int64))
        assert cands.score(chosen) == pytest.approx(naive.obs_total(lists, order.tolist()))


def test_pool_expands_a_parent_set_once(problem):
    """A graph adopted again (or a node whose parents did not change) looks nothing up: the sets it
    dropped as no better than the graph's are not generated and looked up again."""
    scorer, found = problem
    graph = random_graph(np.random.default_rng(12), scorer.n_vars)
    pool = _Pool(scorer, found, None)
    pool.add(graph)
    added, lookups = pool.added, scorer.stats()["local_score_lookups"]
    pool.add(graph)
    assert pool.added == added and scorer.stats()["local_score_lookups"] == lookups


@pytest.mark.parametrize("method", ["asobs", "obs"])
def test_seeded_search_is_never_below_hill_climbing_and_ends_in_its_local_optimum(problem, method):
    scorer, found = problem
    hc = hill_climb(scorer)
    for parents in ("independence", found):
        result = ordering_search(scorer, method, parents=parents, max_evaluations=30, restarts=3, seed=2)
        assert result.stats["seed_score"] == pytest.approx(hc.score, rel=1e-12)
        assert result.score >= hc.score - 1e-9 * abs(hc.score)
        assert result.score == pytest.approx(scorer.total(result.graph), rel=1e-12)
        assert hill_climb(scorer, start=result.graph).stats["iterations"] == 0  # refined: a DAG local optimum
        assert result.trajectory[0]["op"] == "start" and is_acyclic(result.graph.adj)
        scores = [step["score"] for step in result.trajectory]
        assert scores == sorted(scores) and scores[-1] == pytest.approx(result.score, rel=1e-12)


def test_a_given_start_graph_is_improved_on(problem):
    scorer, found = problem
    start = [[] for _ in range(scorer.n_vars)]
    start[1] = [0]
    result = ordering_search(scorer, "asobs", parents=found, restarts=1, seed=0, start=start)
    assert result.params["start"] == "graph"
    assert result.stats["seed_score"] == pytest.approx(scorer.total(start))
    assert result.score > scorer.total(start)
    assert result.trajectory[1]["op"] == "polish"  # a given graph is polished by hill climbing first
    assert hill_climb(scorer, start=result.graph).stats["iterations"] == 0


def test_parent_sets_are_laid_out_as_the_naive_twin_lays_them_and_refused_at_the_first_bad_node():
    """ParentSets sorts and pads every node's sets at once (the 10,000-node learner builds one after its time
    is up): the same arrays as one node at a time, on random sets with tied scores, and the same refusal."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 9))
        candidates = [[(rng.permutation([u for u in range(n) if u != v])[:rng.integers(0, min(3, n - 1) + 1)].tolist(),
                        float(rng.integers(-3, 3))) for _ in range(rng.integers(1, 6))] for v in range(n)]
        names = [f"x{v}" for v in range(n)]
        for sets in (ParentSets(names, candidates, "bic"),  # and as the explorers keep them, packed per node:
                     ParentSets.of_packed(names, [pack_items(items) for items in candidates], "bic")):
            for v, twin in enumerate(naive.packed_parent_sets(candidates)):
                for ours, theirs in zip(sets.packed(v), twin):
                    assert ours.dtype == theirs.dtype and ours.flags.c_contiguous
                    np.testing.assert_array_equal(ours, theirs)
    for candidates, message in [([[((), 1.0)], [], [((5,), 0.0)]], "node 'b' has no candidate parent set"),
                                ([[((), 1.0)], [((1,), 0.0)], []], r"invalid candidate parent set \(1,\) for node 'b'"),
                                ([[((2, 9), 1.0)], [], []], r"invalid candidate parent set \(2, 9\) for node 'a'"),
                                ([[((-1,), 1.0)], [((), 0.0)], [((), 0.0)]], r"invalid candidate parent set \(-1,\)")]:
        with pytest.raises(SearchError, match=message):
            ParentSets(["a", "b", "c"], candidates, "bic")
        with pytest.raises(SearchError, match=message):
            ParentSets.of_packed(["a", "b", "c"], [pack_items(items) for items in candidates], "bic")


def test_the_ordering_search_runs_with_the_objects_alive_before_it_frozen_and_thaws_them():
    """Its phases (seed, explorer, pool, climbs) and the result's build after the time is up run with the objects
    alive before frozen out of the collector's full scans (bnexplore.collector), and nothing stays frozen."""
    data = random_dag_data(np.random.default_rng(4), 8, 300)[0]
    during = []
    ordering_search(Scorer(data, "bic"), "asobs", restarts=3, seed=0,
                    progress=lambda info: during.append(gc.get_freeze_count()))
    assert during and min(during) > 0 and gc.get_freeze_count() == 0


def test_the_ordering_search_adds_nothing_to_the_scorers_cache_and_learns_what_an_uncached_one_learns():
    """Its climbs meet few families twice (1 % of look-ups on DEBD's cr52), and the cache they filled held about
    25 MB at the peak on wide data: the scores it computes are not kept, the cache is read as before, and the
    network is the one a scorer without a cache gives."""
    data = random_dag_data(np.random.default_rng(5), 10, 400)[0]
    scorer = Scorer(data, "bic")
    scorer.local(0, [1])  # one entry from before, which the search may read
    result = ordering_search(scorer, "asobs", restarts=3, seed=0, max_evaluations=20)
    plain = ordering_search(Scorer(data, "bic", cache=False), "asobs", restarts=3, seed=0, max_evaluations=20)
    assert result.graph == plain.graph and result.score == plain.score
    families = [(v, sorted(ps)) for v, ps in enumerate(result.graph.parent_sets())]
    hits = scorer.stats()["cache_hits"]
    for v, ps in families:  # every one computed by the search, none kept
        scorer.local(v, ps)
    assert scorer.stats()["cache_hits"] == hits
    scorer.local(0, [1])
    assert scorer.stats()["cache_hits"] == hits + 1  # what was there before is still there
    for v, ps in families:  # outside the search the cache fills as before
        scorer.local(v, ps)
    assert scorer.stats()["cache_hits"] == hits + 1 + len(families)
