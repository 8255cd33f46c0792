"""RPDAG search (Acid & de Campos 2003): operators against brute force over
Definition 1 and over extensions, Proposition 6 scores against full scores,
the paper's worked examples (Figures 8-9, Table 1), the greedy and tabu
searches, statistics and errors."""

import functools
import itertools

import numpy as np
import pytest

import naive
from bnexplore.control import Control
from fakes import FakeClock, StopAfter
from bnexplore.errors import SearchError
from bnexplore.graphs import DAG, RPDAG, is_acyclic
from bnexplore.scores import Scorer
from bnexplore.search.hillclimb import hill_climb
from bnexplore.search.rpdag import (
    OPERATORS, RpdagGraph, RpdagState, applicable_operators, apply_operator, pair_state, partial_reach,
    rpdag_hill_climb, rpdag_search, rpdag_tabu_search, start_rpdag)
from test_scores import random_dag_data


# -- helpers -------------------------------------------------------------------

def random_walk(rng, n, steps, add_bias=0.7):
    """RPDAGs met by applying random applicable operators from the empty graph."""
    rpdag = RPDAG(np.zeros((n, n), np.uint8))
    out = []
    for _ in range(steps):
        ops = applicable_operators(rpdag)
        additions = [o for o in ops if o[0].startswith("A_")]
        pool = additions if additions and rng.random() < add_bias else ops
        op, nodes = pool[int(rng.integers(len(pool)))]
        rpdag = apply_operator(rpdag, op, *nodes)
        out.append(rpdag)
    return out


@pytest.fixture(scope="module")
def walks():
    rng = np.random.default_rng(2003)
    return [g for _ in range(16) for g in random_walk(rng, int(rng.integers(4, 8)), 10)]


def candidates(rpdag):
    """Every operator whose nodes fit it (x, y not adjacent for additions, z a
    neighbour of y for A_hh, an existing edge for deletions), applicable or not."""
    for x, y in itertools.permutations(range(rpdag.n), 2):
        if rpdag.adjacent(x, y):
            if x in rpdag.parents(y):
                yield "D_arc", (x, y)
            elif x < y and x in rpdag.neighbours(y):
                yield "D_link", (x, y)
            continue
        if x < y:
            yield "A_link", (x, y)
        yield "A_arc", (x, y)
        for z in rpdag.neighbours(y):
            yield "A_hh", (x, y, z)


def blind(rpdag, op, nodes):
    """The graph an operator and its post-processing give, applicable or not."""
    graph = RpdagGraph(rpdag.adj)
    graph.apply(op, nodes)
    return RPDAG(graph.adj.astype(np.uint8), rpdag.names)


@functools.cache
def extension_indegree(rpdag):
    """Largest number of parents of a node over every DAG of the extension."""
    return max(max(len(p) for p in dag.parent_sets()) for dag in rpdag.dags())


def build(nodes, arcs=(), links=()):
    rpdag = RPDAG.from_json({"nodes": nodes, "arcs": [list(a) for a in arcs], "links": [list(e) for e in links]})
    assert rpdag.is_valid(), rpdag.violations()
    return rpdag


def pair_operators(rpdag, x, y):
    """Applicable additions between x and y, by name."""
    i, j = rpdag.index(x), rpdag.index(y)
    names = rpdag.names
    return sorted((op, tuple(names[v] for v in nodes)) for op, nodes in applicable_operators(rpdag)
                  if op.startswith("A_") and {nodes[0], nodes[1]} == {i, j})


# -- the cycle-test kernel ----------------------------------------------------

def test_partial_reach_matches_naive():
    rng = np.random.default_rng(5)
    for _ in range(60):
        n = int(rng.integers(1, 10))
        adj = rng.random((n, n)) < 0.3
        np.fill_diagonal(adj, False)
        starts = rng.integers(0, n, 2 * n).astype(np.int64)
        banned = np.where(rng.random(2 * n) < 0.5, -1, rng.integers(0, n, 2 * n)).astype(np.int64)
        assert (partial_reach(adj, starts, banned) == np.array(naive.partial_reach(adj, starts, banned))).all()


# -- operators: Definition 1, Table 2, post-processing ------------------------

def test_applicability_is_exactly_validity_of_the_result(walks):
    """An operator is applicable iff its result (post-processing included) is an
    RPDAG: every neighbour satisfies Definition 1, and none is missed."""
    rejected = {2: 0, 3: 0}
    seen = set()
    for rpdag in walks:
        applicable = set(applicable_operators(rpdag))
        seen |= {op for op, _ in applicable}
        for op, nodes in candidates(rpdag):
            violations = blind(rpdag, op, nodes).violations()
            assert ((op, nodes) in applicable) == (not violations), (rpdag, op, nodes, violations)
            for condition in (2, 3):
                rejected[condition] += any(f"condition {condition}" in v for v in violations)
    assert rejected[2] > 20 and rejected[3] > 20  # the DC and UC tests were exercised
    assert seen == set(OPERATORS)


def table_1(rpdag, x, y):
    """The additions Table 1 lists for the state of (x, y): those never rejected
    (no cycle test in the table) and those a cycle test may reject."""
    link = {("A_link", (min(x, y), max(x, y)))}
    arc_xy, arc_yx = {("A_arc", (x, y))}, {("A_arc", (y, x))}
    hh_y = {("A_hh", (x, y, z)) for z in rpdag.neighbours(y)}
    hh_x = {("A_hh", (y, x, z)) for z in rpdag.neighbours(x)}
    return {"A": (link, set()), "B": (set(), arc_xy | arc_yx), "C": (set(), link | hh_y | hh_x),
            "D": (link | hh_y, set()), "E": (link | hh_x, set()),
            "F": (arc_yx, arc_xy | hh_y), "G": (arc_xy, arc_yx | hh_x)}[pair_state(rpdag, x, y)]


def test_states_of_table_1_list_the_applicable_additions(walks):
    """For every non-adjacent pair, the applicable additions are those Table 1
    lists for the pair's state, minus some that a cycle test may reject."""
    states = set()
    for rpdag in walks:
        applicable = set(applicable_operators(rpdag))
        for x, y in itertools.combinations(range(rpdag.n), 2):
            if rpdag.adjacent(x, y):
                continue
            ours = {(op, nodes) for op, nodes in applicable if op.startswith("A_") and {nodes[0], nodes[1]} == {x, y}}
            always, maybe = table_1(rpdag, x, y)
            assert always <= ours <= always | maybe, (rpdag, x, y, pair_state(rpdag, x, y))
            states.add(pair_state(rpdag, x, y))
    assert states == set("ABCDEFG")


def test_neighbourhood_is_every_rpdag_one_edge_from_an_extension():
    """The operators give exactly the RPDAGs of H + e and H - e over the DAGs H of
    the extension and the single edges e (acyclic additions): Section 4.1."""
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(12):
        for rpdag in random_walk(rng, int(rng.integers(3, 7)), 8):
            ours = {blind(rpdag, op, nodes) for op, nodes in applicable_operators(rpdag)}
            brute = set()
            for dag in rpdag.dags():
                for u, v in itertools.permutations(range(rpdag.n), 2):
                    adj = dag.adj.copy()
                    if dag.adjacent(u, v):
                        if not adj[u, v]:
                            continue
                        adj[u, v] = 0
                    else:
                        adj[u, v] = 1
                    if is_acyclic(adj):
                        brute.add(DAG(adj, rpdag.names).rpdag())
            assert ours == brute, rpdag
            checked += len(ours)
    assert checked > 300


def test_max_indegree_bounds_every_extension(walks):
    for k in (1, 2):
        for rpdag in walks[::3]:
            if extension_indegree(rpdag) > k:
                continue
            bounded = set(applicable_operators(rpdag, max_indegree=k))
            for op, nodes in applicable_operators(rpdag):
                result = blind(rpdag, op, nodes)
                assert ((op, nodes) in bounded) == (extension_indegree(result) <= k), (rpdag, op, nodes)
    empty = RPDAG(np.zeros((4, 4), np.uint8))
    assert applicable_operators(empty, max_indegree=0) == []


# -- Proposition 6 --------------------------------------------------------------

@pytest.mark.parametrize("score", ["bdeu", "bic"])
def test_incremental_scores_equal_full_scores(score):
    data, _ = random_dag_data(np.random.default_rng(3), 6, 400, max_parents=2)
    scorer = Scorer(data, score)
    rng = np.random.default_rng(4)
    for rpdag in [g for _ in range(3) for g in random_walk(rng, 6, 8)]:
        rpdag = RPDAG(rpdag.adj, data.names)
        state = RpdagState(scorer, rpdag)
        base = scorer.total(rpdag.extension())
        assert state.score == pytest.approx(base, rel=1e-12)
        moves = state.scored_moves()
        assert [(op, nodes) for op, nodes, _ in moves] == applicable_operators(rpdag)
        for op, nodes, delta in moves:
            neighbour = blind(rpdag, op, nodes)
            assert scorer.total(neighbour.extension()) == pytest.approx(base + delta, rel=1e-9), (op, nodes)
        op, nodes, delta, evaluated = state.best_move()
        assert delta == max(d for _, _, d in moves) and evaluated == len(moves)
        # applying a move updates the score and the cached deltas as a fresh state would
        op, nodes, delta = moves[int(rng.integers(len(moves)))]
        state.apply(op, *nodes)
        neighbour = apply_operator(rpdag, op, *nodes)
        fresh = RpdagState(scorer, neighbour)
        assert (state.adj == neighbour.adj.astype(bool)).all()
        assert state.score == pytest.approx(fresh.score, rel=1e-9)
        assert np.allclose(state.toggle, fresh.toggle, rtol=1e-12, equal_nan=False)


def test_k2_is_refused():
    data, _ = random_dag_data(np.random.default_rng(3), 4, 100)
    with pytest.raises(SearchError, match="score-equivalent"):
        rpdag_search(Scorer(data, "k2"))


# -- the paper's examples ---------------------------------------------------------

FIG8 = dict(nodes=["a", "b", "w", "x", "c", "y", "z1", "z2"],
            arcs=[("a", "w"), ("b", "w"), ("w", "x"), ("x", "c")])


def test_figure_8_gives_the_four_configurations_of_figure_9():
    rpdag = build(**FIG8, links=[("y", "z1"), ("y", "z2")])
    assert pair_state(rpdag, "x", "y") == "F"
    assert pair_state(rpdag, "y", "x") == "G"
    assert pair_operators(rpdag, "x", "y") == [
        ("A_arc", ("x", "y")), ("A_arc", ("y", "x")), ("A_hh", ("x", "y", "z1")), ("A_hh", ("x", "y", "z2"))]
    arcs = FIG8["arcs"]
    expected = {
        ("A_arc", "y", "x"): build(**FIG8 | {"arcs": arcs + [("y", "x")]}, links=[("y", "z1"), ("y", "z2")]),
        ("A_arc", "x", "y"): build(**FIG8 | {"arcs": arcs + [("x", "y"), ("y", "z1"), ("y", "z2")]}),
        ("A_hh", "x", "y", "z1"): build(**FIG8 | {"arcs": arcs + [("x", "y"), ("z1", "y"), ("y", "z2")]}),
        ("A_hh", "x", "y", "z2"): build(**FIG8 | {"arcs": arcs + [("x", "y"), ("z2", "y"), ("y", "z1")]}),
    }
    for (op, *nodes), graph in expected.items():
        assert apply_operator(rpdag, op, *nodes) == graph


def test_figure_12_a_completion_that_closes_a_cycle_is_rejected():
    # y -- t, t -> s <- r, s -> x: adding x -> y and completing gives y -> t -> s -> x -> y.
    rpdag = build(["x", "y", "t", "s", "r"], arcs=[("t", "s"), ("r", "s"), ("s", "x")], links=[("y", "t")])
    assert pair_state(rpdag, "x", "y") == "F"
    assert pair_operators(rpdag, "x", "y") == [("A_arc", ("y", "x")), ("A_hh", ("x", "y", "t"))]
    with pytest.raises(SearchError, match="condition 2: directed cycle"):
        apply_operator(rpdag, "A_arc", "x", "y")


@pytest.mark.parametrize("state, nodes, arcs, links, expected", [
    # A: no parents, no neighbours (x may have children): the link only.
    ("A", ["x", "y", "c", "d"], [("x", "c"), ("d", "c")], [], [("A_link", ("x", "y"))]),
    # B: x has parents, nobody has links: both arcs.
    ("B", ["x", "y", "a", "b"], [("a", "x"), ("b", "x")], [], [("A_arc", ("x", "y")), ("A_arc", ("y", "x"))]),
    # B with footnote (1): y -> m -> x, so x -> y would close a cycle.
    ("B", ["x", "y", "m", "k"], [("y", "m"), ("k", "m"), ("m", "x")], [], [("A_arc", ("y", "x"))]),
    # C: both have neighbours in different trees: n(x) + n(y) + 1 = 3.
    ("C", ["x", "y", "a", "b"], [], [("x", "a"), ("y", "b")],
     [("A_hh", ("x", "y", "b")), ("A_hh", ("y", "x", "a")), ("A_link", ("x", "y"))]),
    # C in one tree x -- a -- y -- t: the link closes a cycle (UC), x -> y <- t
    # completes y -> a -> x (DC); x -> y <- a is kept: a path y -- a -- x uses
    # the link that becomes a -> y.
    ("C", ["x", "y", "a", "t"], [], [("x", "a"), ("a", "y"), ("y", "t")],
     [("A_hh", ("x", "y", "a")), ("A_hh", ("y", "x", "a"))]),
    # D: x alone, y with two neighbours: n(y) + 1 = 3.
    ("D", ["x", "y", "b", "c"], [], [("y", "b"), ("y", "c")],
     [("A_hh", ("x", "y", "b")), ("A_hh", ("x", "y", "c")), ("A_link", ("x", "y"))]),
    # E: D with x and y swapped.
    ("E", ["x", "y", "b"], [], [("x", "b")], [("A_hh", ("y", "x", "b")), ("A_link", ("x", "y"))]),
    # F: x has a parent, y one neighbour: n(y) + 2 = 3.
    ("F", ["x", "y", "a", "b", "t"], [("a", "x"), ("b", "x")], [("y", "t")],
     [("A_arc", ("x", "y")), ("A_arc", ("y", "x")), ("A_hh", ("x", "y", "t"))]),
    # G: F with x and y swapped.
    ("G", ["x", "y", "a", "b", "t"], [("a", "y"), ("b", "y")], [("x", "t")],
     [("A_arc", ("x", "y")), ("A_arc", ("y", "x")), ("A_hh", ("y", "x", "t"))]),
])
def test_each_state_of_table_1(state, nodes, arcs, links, expected):
    rpdag = build(nodes, arcs, links)
    assert pair_state(rpdag, "x", "y") == state
    assert pair_operators(rpdag, "x", "y") == sorted(expected)


def test_pair_state_refuses_adjacent_pairs():
    rpdag = build(["x", "y"], links=[("x", "y")])
    with pytest.raises(SearchError, match="non-adjacent"):
        pair_state(rpdag, "x", "y")


def test_undo_after_deleting_arcs():
    # Figure 13's two cases: Pa(y) = {x} and Pa(y) = {x, u} with u parentless.
    rpdag = build(["x", "y", "a", "b", "c", "d"], arcs=[("a", "x"), ("b", "x"), ("x", "y"), ("y", "c"),
                                                       ("c", "d")])
    assert apply_operator(rpdag, "D_arc", "x", "y") == build(
        ["x", "y", "a", "b", "c", "d"], arcs=[("a", "x"), ("b", "x")], links=[("y", "c"), ("c", "d")])
    rpdag = build(["x", "y", "u", "c", "e", "f"], arcs=[("x", "y"), ("u", "y"), ("y", "c"), ("c", "e"),
                                                       ("f", "e")])
    assert apply_operator(rpdag, "D_arc", "x", "y") == build(
        ["x", "y", "u", "c", "e", "f"], arcs=[("c", "e"), ("f", "e")], links=[("u", "y"), ("y", "c")])


def test_apply_operator_explains_refusals():
    rpdag = build(["x", "y", "a", "b"], arcs=[("a", "x"), ("b", "x")])
    with pytest.raises(SearchError, match=r"A_link\(x, y\) is not applicable: .*condition 1"):
        apply_operator(rpdag, "A_link", "x", "y")
    with pytest.raises(SearchError, match="must be distinct and not adjacent"):
        apply_operator(rpdag, "A_arc", "a", "x")
    with pytest.raises(SearchError, match="unknown RPDAG operator"):
        apply_operator(rpdag, "reverse", "a", "x")
    with pytest.raises(SearchError, match="A_hh takes 3 nodes"):
        apply_operator(rpdag, "A_hh", "x", "y")


# -- the searches -------------------------------------------------------------------

@pytest.fixture(scope="module")
def problem():
    data, truth = random_dag_data(np.random.default_rng(21), 8, 1500, max_parents=2)
    return data, truth


def assert_local_optimum(scorer, result, max_indegree=None):
    """No applicable operator improves the result, by full scores of every neighbour."""
    rpdag = result.extra["rpdag"]
    base = scorer.total(rpdag.extension())
    assert result.score == pytest.approx(base, rel=1e-12)
    assert result.graph == rpdag.extension()
    for op, nodes in applicable_operators(rpdag, max_indegree):
        neighbour = apply_operator(rpdag, op, *nodes)
        assert scorer.total(neighbour.extension()) <= base + 1e-9 * abs(base), (op, nodes)


@pytest.mark.parametrize("score", ["bdeu", "bic"])
def test_greedy_search_ends_in_a_local_optimum(problem, score):
    data, _ = problem
    scorer = Scorer(data, score)
    result = rpdag_search(scorer)
    assert result.graph.n_edges > 0
    assert_local_optimum(scorer, result)


def test_max_indegree_is_honoured_and_optimal_within_it(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = rpdag_search(scorer, max_indegree=1)
    assert extension_indegree(result.extra["rpdag"]) <= 1
    assert_local_optimum(scorer, result, max_indegree=1)


def test_trajectory_replays_to_the_result(problem):
    """Applying the recorded operators from the empty RPDAG reproduces every
    score, Table 1 state and post-processing, and the final RPDAG."""
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = rpdag_search(scorer)
    rpdag = RPDAG(np.zeros((8, 8), np.uint8), data.names)
    assert {step["op"] for step in result.trajectory} >= {"A_link", "A_hh"}
    for step in result.trajectory:
        nodes = step["args"]
        assert step["state"] == (pair_state(rpdag, *nodes[:2]) if step["op"].startswith("A_") else None)
        before = rpdag
        rpdag = apply_operator(rpdag, step["op"], *nodes)
        assert scorer.total(rpdag.extension()) == pytest.approx(step["score"], rel=1e-12)
        assert step["delta"] > 0
        changed = [[u, v] for u, v in (rpdag.arcs() + rpdag.links())
                   if before.adjacent(u, v) and (before.adj[u, v], before.adj[v, u]) != (rpdag.adj[u, v], rpdag.adj[v, u])]
        expected = step["post_edges"] + ([nodes[1:]] if step["op"] == "A_hh" else [])  # y -- z became z -> y
        assert sorted(sorted(data.names[i] for i in e) for e in changed) == sorted(sorted(e) for e in expected)
    assert rpdag == result.extra["rpdag"]


def test_evaluated_neighbours_are_counted(problem):
    """Ind is the number of applicable operators summed over the visited RPDAGs."""
    data, _ = problem
    scorer = Scorer(data, "bic")
    result = rpdag_search(scorer)
    rpdag = RPDAG(np.zeros((8, 8), np.uint8), data.names)
    total = 0
    for step in result.trajectory:
        total += len(applicable_operators(rpdag))
        rpdag = apply_operator(rpdag, step["op"], *step["args"])
    total += len(applicable_operators(rpdag))
    stats = result.stats
    assert stats["structures_evaluated"] == total
    assert stats["iterations"] == len(result.trajectory)
    assert stats["edges"] == result.graph.n_edges
    assert stats["stopped"] is None
    assert stats["local_score_lookups"] == stats["local_scores_computed"] + stats["cache_hits"]
    assert stats["local_scores_computed"] > 0 and 1 <= stats["nvar"] <= 8 and stats["seconds"] > 0
    again = rpdag_search(scorer)
    assert again.stats["local_scores_computed"] == 0  # every local score cached the second time
    assert again.score == result.score


def test_tabu_returns_its_best_seen_rpdag(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = rpdag_search(scorer, tabu=True, iterations=50)
    scores = [scorer.total([[]] * 8)] + [step["score"] for step in result.trajectory]
    assert result.stats["iterations"] == 50
    assert result.score == pytest.approx(max(scores), rel=1e-12)
    best = result.stats["best_iteration"]
    assert scores[best] == pytest.approx(result.score, rel=1e-12)
    assert any(step["delta"] < 0 for step in result.trajectory)  # it does walk downhill
    assert result.score >= rpdag_search(scorer).score - 1e-9


def test_tabu_list_forbids_undoing_recent_moves_unless_they_reach_a_new_best(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    length = 5
    result = rpdag_search(scorer, tabu=True, iterations=40, tabu_length=length)
    steps = [(step["op"][0], frozenset(step["args"][:2])) for step in result.trajectory]
    best = np.maximum.accumulate([scorer.total([[]] * 8)] + [step["score"] for step in result.trajectory])
    let_through = set()
    for i, (kind, pair) in enumerate(steps):
        for k in range(i + 1, min(i + 1 + length, len(steps))):
            if steps[k][1] == pair and steps[k][0] != kind:  # only by aspiration: a new best RPDAG
                step = result.trajectory[k]
                assert step["tabu"] and step["score"] > best[k] + 1e-9 * abs(best[k]), (i, k, kind, pair)
                let_through.add(k)
    assert len(let_through) == sum(step["tabu"] for step in result.trajectory)


def test_wrappers_for_learn(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    assert rpdag_hill_climb(scorer).extra["rpdag"] == rpdag_search(scorer).extra["rpdag"]
    tabu = rpdag_tabu_search(scorer, iterations=12, tabu_length=3)
    assert tabu.algorithm == "rpdag-tabu" and tabu.params["tabu_length"] == 3
    assert tabu.extra["rpdag"] == rpdag_search(scorer, tabu=True, iterations=12, tabu_length=3).extra["rpdag"]


def test_start_graphs(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    hc = hill_climb(scorer)
    from_dag = rpdag_search(scorer, start=hc.graph)
    assert from_dag.score >= hc.score - 1e-9 * abs(hc.score)
    assert start_rpdag(scorer, hc.graph) == hc.graph.rpdag()
    assert start_rpdag(scorer, hc.graph.parent_sets()) == hc.graph.rpdag()
    assert start_rpdag(scorer, hc.graph.cpdag()).cpdag() == hc.graph.cpdag()
    # an RPDAG over the same names in another order is aligned by name
    rpdag = from_dag.extra["rpdag"]
    order = list(range(8))[::-1]
    shuffled = RPDAG(rpdag.adj[np.ix_(order, order)], [data.names[i] for i in order])
    assert start_rpdag(scorer, shuffled) == rpdag
    again = rpdag_search(scorer, start=shuffled)
    assert again.stats["iterations"] == 0 and again.score == pytest.approx(from_dag.score, rel=1e-12)


def test_score_is_close_to_dag_hill_climbing(problem):
    data, _ = problem
    for score in ("bdeu", "bic"):
        scorer = Scorer(data, score)
        empty = scorer.total([[]] * 8)
        hc = hill_climb(scorer).score
        ours = rpdag_search(scorer).score
        assert ours > empty
        assert abs(ours - hc) <= 0.02 * abs(hc)


def test_stop_flag_and_time_limit(problem):
    """Stop and time limit driven deterministically: a stop after k checks, a clock that ticks per reading."""
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    reports = []
    stop = StopAfter(4)
    result = rpdag_search(scorer, tabu=True, iterations=500,
                          control=Control(progress=reports.append, stop=stop, clock=FakeClock(1.0)))
    assert result.stats["stopped"] == "stopped"
    assert 1 <= result.stats["iterations"] < stop.calls <= 5
    assert "score" in reports[0]
    result = rpdag_search(scorer, tabu=True, iterations=500, control=Control(time_limit=6.5, clock=FakeClock(1.0)))
    assert result.stats["stopped"] == "time limit" and 1 <= result.stats["iterations"] <= 6
    result = rpdag_search(scorer, control=Control(time_limit=0.5, clock=FakeClock(1.0)))
    assert result.stats["stopped"] == "time limit" and result.stats["iterations"] == 0


@pytest.mark.parametrize("kwargs, message", [
    ({"max_indegree": -1}, "max_indegree must be a whole number"),
    ({"max_indegree": 1.5}, "max_indegree must be a whole number"),
    ({"tabu": True, "tabu_length": -2}, "tabu_length must be a whole number"),
    ({"tabu": True, "iterations": "many"}, "iterations must be a whole number"),
    ({"iterations": 10}, "tabu search only; pass tabu=True"),
    ({"start": [[2], [0], [1]] + [[]] * 5}, "directed cycle V0 -> V1 -> V2 -> V0"),
    ({"start": RPDAG.from_json({"nodes": [f"V{i}" for i in range(8)], "arcs": [["V0", "V1"]]})},
     "not a valid RPDAG: condition 4"),
    ({"start": DAG.empty(["a", "b"] + [f"V{i}" for i in range(6)])}, "do not match the data's variables"),
    ({"start": DAG.from_arcs([("V0", "V2"), ("V1", "V2")], [f"V{i}" for i in range(8)]), "max_indegree": 1},
     "'V2' has 2 parents"),
])
def test_bad_parameters(problem, kwargs, message):
    data, _ = problem
    with pytest.raises(SearchError, match=message):
        rpdag_search(Scorer(data), **kwargs)


def test_where_rpdag_search_loses_to_dag_hill_climbing_both_end_in_local_optima_of_both_spaces():
    """The documented explanation of the losses in bench_rpdag_paper.py (11 of 90 runs, all
    on insurance): insurance, 3,000 rows (seed 3, as in the benchmark). The RPDAG search ends
    below DAG hill climbing, but not for want of an operator: its result is a local optimum
    of the RPDAG neighbourhood (every operator applicable exactly when its result is an RPDAG,
    no neighbour better, by full scores) and its extension is a local optimum of DAG hill
    climbing too (add / delete / reverse); the DAG optimum is likewise an RPDAG local optimum.
    Two different local optima of both neighbourhoods."""
    from pathlib import Path

    from bnexplore.bif import read_bif, sample_codes
    from bnexplore.data import Dataset

    network = read_bif(Path(__file__).resolve().parents[1] / "sample_data" / "networks" / "insurance.bif.gz")
    data = Dataset.from_codes(sample_codes(network, 10000, seed=3)[:3000], network.arities, network.names)
    scorer = Scorer(data, "bdeu")
    ours = rpdag_search(scorer)
    dag = hill_climb(scorer)
    assert ours.score < dag.score - 10
    rpdag = ours.extra["rpdag"]
    applicable = set(applicable_operators(rpdag))
    for op, nodes in candidates(rpdag):
        assert ((op, nodes) in applicable) == (not blind(rpdag, op, nodes).violations()), (op, nodes)
    assert_local_optimum(scorer, ours)
    assert hill_climb(scorer, start=ours.graph).stats["iterations"] == 0
    assert rpdag_search(scorer, start=dag.graph).stats["iterations"] == 0
