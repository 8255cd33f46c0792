"""Graph objects built from lists: the same graphs, orders, cycles and errors as their matrix definitions,
on every size, and on 10,000 nodes one n x n matrix of memory (issue 34).

The graph classes keep their entries as lists beside the dense matrix (:mod:`bnexplore.graphs.pdag`);
every query is checked here against its definition on the matrix, the topological order and the
named cycle against the slow twins in ``tests/naive.py``. Memory is counted by ``tracemalloc`` (numpy
reports its allocations there), not timed.
"""

import random
import tracemalloc

import numpy as np
import pytest

import naive
from bnexplore.errors import SearchError
from bnexplore.graphs import CPDAG, DAG, PDAG, RPDAG, find_cycle, is_acyclic
from bnexplore.graphs.adjacency import entries, order_of_arcs, row_lists, topological_order

LARGE = 10_000
"""Nodes of the large graphs: the synthetic networks of the large learner (Scanagatta et al. 2015, 5.2)."""


def random_matrix(rng, n, p_arc, p_link=0.0, acyclic=False):
    """A 0/1 matrix of arcs (forward along a random order when ``acyclic``) and links."""
    order = rng.permutation(n)
    adj = np.zeros((n, n), dtype=np.uint8)
    for i in range(n):
        for j in range(i + 1, n):
            u, v = (order[i], order[j]) if acyclic or rng.random() < 0.5 else (order[j], order[i])
            draw = rng.random()
            if draw < p_link:
                adj[u, v] = adj[v, u] = 1
            elif draw < p_link + p_arc:
                adj[u, v] = 1
    return adj


def large_parents(seed, n=LARGE, mean=1.5):
    """One parent list per node of a random DAG with about ``mean`` parents per node, and its matrix."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    parents = []
    for i, v in enumerate(order):
        k = min(i, rng.poisson(mean))
        parents.append((int(v), sorted(order[rng.choice(i, k, replace=False)].tolist()) if k else []))
    parent_lists = [p for _, p in sorted(parents)]
    adj = np.zeros((n, n), dtype=np.uint8)
    for v, pa in enumerate(parent_lists):
        adj[pa, v] = 1
    return parent_lists, adj


def traced_peak(build):
    """``build()`` and the peak of the memory traced while it ran (its result kept alive meanwhile)."""
    tracemalloc.start()
    try:
        result = build()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------------------
# plain-matrix helpers


@pytest.mark.parametrize("n", [0, 1, 7, 63, 64, 65, 100])
@pytest.mark.parametrize("dtype", [np.uint8, bool, np.int8, np.int64, float])
def test_entries_are_numpys_nonzero_in_every_layout(n, dtype):
    rng = np.random.default_rng(n)
    mat = (rng.random((n, n)) < 0.05).astype(dtype)
    for view in (mat, mat.T, np.asfortranarray(mat), mat[:, ::-1], mat[::2]):
        rows, cols = entries(view)
        expected = np.nonzero(view)
        assert rows.tolist() == expected[0].tolist() and cols.tolist() == expected[1].tolist()
    assert row_lists(mat) == [np.flatnonzero(row).tolist() for row in mat]


def test_order_of_arcs_and_the_cycle_match_the_naive_twins_on_random_graphs_with_cycles_and_links():
    rng = np.random.default_rng(34)
    cyclic = 0
    for trial in range(300):
        n = int(rng.integers(1, 11))
        adj = random_matrix(rng, n, p_arc=rng.uniform(0.05, 0.5), p_link=0.1 if trial % 3 == 0 else 0.0,
                            acyclic=trial % 4 == 0)
        expected = naive.first_cycle(adj.tolist())
        cyclic += expected is not None
        assert find_cycle(adj) == expected
        assert find_cycle(np.asfortranarray(adj)) == expected and is_acyclic(adj.tolist()) == (expected is None)
        arc = adj.astype(bool) & ~adj.astype(bool).T
        assert topological_order(arc) == naive.smallest_first_order(adj.tolist())
        tails, heads = np.nonzero(arc)
        shuffled = rng.permutation(len(tails))
        assert order_of_arcs(n, tails[shuffled], heads[shuffled]) == naive.smallest_first_order(adj.tolist())
    assert 30 < cyclic < 270  # both kinds were drawn


def test_a_dag_refuses_links_and_cycles_as_its_matrix_definition_says_with_the_same_message_by_every_door():
    rng = np.random.default_rng(7)
    for trial in range(200):
        n = int(rng.integers(2, 9))
        adj = random_matrix(rng, n, p_arc=0.3, p_link=0.08 if trial % 2 else 0.0, acyclic=trial % 5 == 0)
        names = [f"n{i}" for i in range(n)]
        links = [(u, v) for u in range(n) for v in range(u + 1, n) if adj[u, v] and adj[v, u]]
        cycle = naive.first_cycle(adj.tolist())
        parent_lists = [np.flatnonzero(adj[:, v]).tolist() for v in range(n)]
        doors = [lambda: DAG(adj, names), lambda: DAG.from_parents(parent_lists, names),
                 lambda: DAG.from_arcs([tuple(e) for e in np.argwhere(adj).tolist()], names),
                 lambda: DAG.from_json(PDAG(adj, names).to_json())]
        if links:
            u, v = links[0]
            for door in doors:
                with pytest.raises(SearchError, match=f"^{names[u]} and {names[v]} point at each other;"):
                    door()
        elif cycle is not None:
            path = " -> ".join(names[v] for v in cycle + cycle[:1])
            for door in doors:
                with pytest.raises(SearchError, match=f"^the graph has a directed cycle {path}; remove or reverse"):
                    door()
        else:
            graphs = [door() for door in doors]
            assert all(g == graphs[0] and hash(g) == hash(graphs[0]) for g in graphs)
            assert graphs[0].topological_order() == naive.smallest_first_order(adj.tolist())
            assert graphs[0].parent_sets() == [tuple(p) for p in parent_lists]


def test_a_self_loop_is_refused_with_the_same_message_by_every_door():
    names = ["a", "b", "c"]
    adj = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 1]], dtype=np.uint8)
    adj[1, 1] = 1
    for door in (lambda: DAG(adj, names), lambda: PDAG(adj, names),
                 lambda: DAG.from_parents([[], ["a", "b"], ["c"]], names),
                 lambda: DAG.from_arcs([("c", "c"), ("b", "b")], names)):
        with pytest.raises(SearchError, match="^node b has a self loop; a node cannot be its own parent$"):
            door()


@pytest.mark.parametrize("dtype, bad, shown", [(np.int64, -1, "-1"), (np.uint8, 2, "2"), (float, 0.5, "0.5"),
                                                (np.int8, 3, "3")])
def test_a_value_other_than_0_or_1_is_named_with_its_row_and_column(dtype, bad, shown):
    adj = np.zeros((70, 70), dtype=dtype)
    adj[3, 5] = 1
    adj[40, 2] = bad
    adj[50, 1] = bad
    with pytest.raises(SearchError, match=f"found {shown} at row 40, column 2 \\(X40, X2\\)"):
        PDAG(adj)


# ---------------------------------------------------------------------------
# queries from the lists, against their matrix definitions


def test_every_query_of_a_random_pdag_matches_its_definition_on_the_matrix():
    rng = np.random.default_rng(3)
    for trial in range(150):
        n = int(rng.integers(0, 12))
        adj = random_matrix(rng, n, p_arc=0.25, p_link=0.15)
        a = adj.astype(bool)
        arc, link = a & ~a.T, a & a.T
        g = PDAG(adj)
        assert g.arcs() == [tuple(e) for e in np.argwhere(arc).tolist()]
        assert g.links() == [tuple(e) for e in np.argwhere(np.triu(link, 1)).tolist()]
        assert g.edges() == [tuple(e) for e in np.argwhere(np.triu(a | a.T, 1)).tolist()]
        assert g.n_edges == int(arc.sum() + link.sum() // 2) == len(g.edges())
        for v in range(n):
            assert g.parents(v) == np.flatnonzero(arc[:, v]).tolist()
            assert g.children(v) == np.flatnonzero(arc[v]).tolist()
            assert g.neighbours(v) == np.flatnonzero(link[v]).tolist()
        assert g.hh_patterns() == sorted((x, v, y) for v in range(n) for x in range(n) for y in range(x + 1, n)
                                         if arc[x, v] and arc[y, v])
        assert g.v_structures() == [(x, v, y) for x, v, y in g.hh_patterns() if not (a | a.T)[x, y]]
        assert g == PDAG.from_json(g.to_json()) == g.copy() and hash(g) == hash(g.copy())
        other = adj.copy()
        if n > 1:
            other[0, 1] ^= 1
            assert PDAG(other) != g


def test_queries_of_a_random_dag_match_reachability_and_a_reversal_matches_the_edited_matrix():
    rng = np.random.default_rng(11)
    for _ in range(60):
        n = int(rng.integers(1, 10))
        adj = random_matrix(rng, n, p_arc=0.35, acyclic=True)
        g = DAG(adj)
        reach = naive.reachability(adj.tolist())
        for v in range(n):
            assert g.descendants(v) == [w for w in range(n) if reach[v][w]]
            assert g.ancestors(v) == [w for w in range(n) if reach[w][v]]
        for u, v in g.arcs():
            edited = adj.copy()
            edited[u, v], edited[v, u] = 0, 1
            if naive.first_cycle(edited.tolist()) is None:
                assert g.reverse(u, v) == DAG(edited) and g.reverse(u, v).topological_order() == \
                    naive.smallest_first_order(edited.tolist())
            else:
                with pytest.raises(SearchError, match="directed cycle"):
                    g.reverse(u, v)


def test_a_graph_keeps_its_class_through_copy_and_its_parents_through_mutation_of_a_returned_list():
    dag = DAG.from_arcs([(0, 1), (1, 2)], 3)
    assert type(dag.cpdag().copy()) is CPDAG and type(dag.rpdag().copy()) is RPDAG and type(dag.copy()) is DAG
    dag.parents(1).append(2)
    dag.children(0).clear()
    assert dag.parents(1) == [0] and dag.children(0) == [1]
    order = dag.topological_order()
    order.reverse()
    assert dag.topological_order() == [0, 1, 2]


# ---------------------------------------------------------------------------
# 10,000 nodes


def test_a_dag_of_ten_thousand_nodes_from_parent_lists_makes_its_matrix_when_read_and_matches_it():
    parent_lists, adj = large_parents(0)
    n_arcs = sum(map(len, parent_lists))
    assert 13_000 < n_arcs < 17_000
    names = [f"V{i}" for i in range(LARGE)]
    g, peak = traced_peak(lambda: DAG.from_parents(parent_lists, names))
    assert peak < 0.1 * LARGE * LARGE  # lists and entries (5 MB): no n x n matrix until one is read
    assert g.n == LARGE and g.n_edges == n_arcs and "adj" not in vars(g)
    matrix, peak = traced_peak(lambda: g.adj)
    assert peak < 1.1 * LARGE * LARGE  # the uint8 matrix itself (100 MB), made once and kept
    assert matrix is g.adj and np.array_equal(matrix, adj) and not matrix.flags.writeable
    assert g.n_edges == n_arcs and g.parent_sets() == [tuple(p) for p in parent_lists]
    assert all(g.parents(v) == parent_lists[v] for v in range(0, LARGE, 97))
    order = g.topological_order()
    position = np.empty(LARGE, dtype=np.int64)
    position[order] = np.arange(LARGE)
    tails, heads = np.nonzero(adj)
    assert sorted(order) == list(range(LARGE)) and bool(np.all(position[tails] < position[heads]))
    # the dense door reads the matrix once: its copy is the only n x n allocation
    same, peak = traced_peak(lambda: DAG(adj, names))
    assert peak < 1.1 * LARGE * LARGE
    assert same == g and hash(same) == hash(g) and same.topological_order() == order


def test_a_cycle_or_a_link_in_ten_thousand_nodes_is_named_as_on_a_small_graph():
    parent_lists, adj = large_parents(1)
    names = [f"V{i}" for i in range(LARGE)]
    order = DAG(adj, names).topological_order()
    a, b, c = order[100], order[5000], order[9000]  # a before b before c: c -> a closes a -> b -> c
    chain = [list(p) for p in parent_lists]
    chain[b] = sorted(set(chain[b]) | {a})
    chain[c] = sorted(set(chain[c]) | {b})
    chain[a] = sorted(set(chain[a]) | {c})
    closed = adj.copy()
    closed[a, b] = closed[b, c] = closed[c, a] = 1
    cycle = find_cycle(closed)  # the twin is cubic; here the cycle is checked for what it must be
    assert cycle[0] == min(cycle) and len(set(cycle)) == len(cycle) >= 3
    steps = list(zip(cycle, cycle[1:] + cycle[:1]))
    assert all(closed[u, v] for u, v in steps) and (c, a) in steps  # every cycle takes the one backward arc
    path = " -> ".join(names[v] for v in cycle + cycle[:1])
    for door in (lambda: DAG.from_parents(chain, names), lambda: DAG(closed, names)):
        with pytest.raises(SearchError, match=f"^the graph has a directed cycle {path}; remove or reverse"):
            door()
    u, v = sorted((order[10], order[20]))
    linked = [list(p) for p in parent_lists]
    linked[u].append(v)
    linked[v].append(u)
    with pytest.raises(SearchError, match=f"^{names[u]} and {names[v]} point at each other;"):
        DAG.from_parents(linked, names)


def test_random_large_sparse_graphs_order_like_the_naive_twin_on_their_arcs():
    """On over a hundred nodes (the naive twin is cubic) the paths for large graphs (the word scan) agree."""
    rng = random.Random(5)
    for seed in range(3):
        n = 120
        parent_lists, adj = large_parents(seed, n=n, mean=1.2)
        if seed == 2:  # a cycle through three random nodes
            a, b, c = rng.sample(range(n), 3)
            adj[a, b] = adj[b, c] = adj[c, a] = 1
            adj[b, a] = adj[c, b] = adj[a, c] = 0
        expected = naive.first_cycle(adj.tolist())
        assert find_cycle(adj) == expected
        if expected is None:
            assert DAG(adj).topological_order() == naive.smallest_first_order(adj.tolist())
