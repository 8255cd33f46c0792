"""Meek's rules (bnexplore.graphs.meek): the pattern of a DAG closes to its CPDAG; each rule on its own
textbook configuration; arcs never change; ambiguous triples are not read as non-colliders."""

import numpy as np
import pytest

from bnexplore.graphs import PDAG, meek_orient
from oracle import random_dag


def pattern(dag):
    """The DAG's skeleton as links, with its v-structures as arcs."""
    adj = dag.skeleton().astype(np.uint8)
    for a, v, b in dag.v_structures():
        adj[v, a] = adj[v, b] = 0
    return PDAG(adj, dag.names)


def pdag(n, arcs=(), links=()):
    adj = np.zeros((n, n), np.uint8)
    for u, v in arcs:
        adj[u, v] = 1
    for u, v in links:
        adj[u, v] = adj[v, u] = 1
    return PDAG(adj, [f"X{i}" for i in range(n)])


def test_the_pattern_of_a_dag_closes_to_its_cpdag_on_random_dags():
    """Meek (1995), Theorem 2: R1-R3 from skeleton + v-structures give the CPDAG (Chickering's
    Find-Compelled, DAG.cpdag(), an independent algorithm)."""
    rng = np.random.default_rng(3)
    for _ in range(400):
        n = int(rng.integers(2, 13))
        dag = random_dag(rng, n, float(rng.random()))
        closed, applied = meek_orient(pattern(dag))
        assert closed == dag.cpdag()
        assert {(u, v) for u, v, _ in applied} == set(dag.cpdag().arcs()) - set(pattern(dag).arcs())


def test_each_orientation_is_a_link_turned_into_an_arc_in_order():
    rng = np.random.default_rng(4)
    for _ in range(100):
        dag = random_dag(rng, int(rng.integers(3, 10)), 0.5)
        start = pattern(dag)
        adj = start.adj.copy()
        for u, v, rule in meek_orient(start)[1]:
            assert adj[u, v] == adj[v, u] == 1 and rule in ("R1", "R2", "R3", "R4")
            adj[v, u] = 0
        assert np.array_equal(adj, dag.cpdag().adj)


@pytest.mark.parametrize("graph, expected, rule", [
    # R1: X0 -> X1 -- X2, X0 and X2 not adjacent
    (pdag(3, arcs=[(0, 1)], links=[(1, 2)]), (1, 2), "R1"),
    # R2: X0 -> X1 -> X2 and X0 -- X2
    (pdag(3, arcs=[(0, 1), (1, 2)], links=[(0, 2)]), (0, 2), "R2"),
    # R3: X0 -- X1 -> X3 <- X2 -- X0, X1 and X2 not adjacent, X0 -- X3
    (pdag(4, arcs=[(1, 3), (2, 3)], links=[(0, 1), (0, 2), (0, 3)]), (0, 3), "R3"),
    # R4: X0 -- X3 -> X2 -> X1, X0 adjacent to X2, X3 and X1 not adjacent, X0 -- X1
    (pdag(4, arcs=[(3, 2), (2, 1)], links=[(0, 3), (0, 2), (0, 1)]), (0, 1), "R4"),
])
def test_each_rule_on_its_configuration(graph, expected, rule):
    closed, applied = meek_orient(graph)
    assert applied[0] == (*expected, rule)
    assert closed.adj[expected] == 1 and closed.adj[expected[::-1]] == 0
    assert set(graph.arcs()) <= set(closed.arcs())


def test_r4_only_with_its_premises():
    """Without the arc X3 -> X2 the R4 configuration orients nothing into X1 by R4."""
    closed, applied = meek_orient(pdag(4, arcs=[(2, 1)], links=[(0, 3), (0, 2), (0, 1), (2, 3)]))
    assert all(rule != "R4" for _, _, rule in applied)


def test_an_ambiguous_triple_is_not_read_as_a_non_collider():
    graph = pdag(3, arcs=[(0, 1)], links=[(1, 2)])
    closed, applied = meek_orient(graph, ambiguous=[(2, 1, 0)])
    assert applied == [] and closed == graph
    r3 = pdag(4, arcs=[(1, 3), (2, 3)], links=[(0, 1), (0, 2), (0, 3)])
    assert meek_orient(r3, ambiguous=[(1, 0, 2)])[1] == []


def test_nothing_to_do_leaves_the_graph():
    graph = pdag(3, links=[(0, 1), (1, 2)])
    assert meek_orient(graph) == (graph, [])
