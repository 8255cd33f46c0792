"""Adjacency and arrowhead precision and recall (bnexplore.graphs.compare): hand-computed cases and a naive
twin, by sets of pairs, on random graphs."""

import numpy as np
import pytest

from bnexplore.graphs import DAG, PDAG
from bnexplore.graphs.compare import adjacency_precision_recall, arrowhead_precision_recall, fraction
from oracle import random_dag


def naive_ratio(part, whole):
    return None if not whole else part / whole


def naive_metrics(learned, true):
    """Adjacency and arrowhead precision and recall from sets of names, pair by pair."""
    def marks(graph):
        names = graph.names
        adjacent, heads = set(), set()
        for u in range(graph.n):
            for v in range(graph.n):
                if graph.adj[u, v]:
                    adjacent.add(frozenset((names[u], names[v])))
                    if not graph.adj[v, u]:
                        heads.add((names[u], names[v]))  # an arrowhead at v
        return adjacent, heads
    adj_l, heads_l = marks(learned)
    adj_t, heads_t = marks(true)
    return ((naive_ratio(len(adj_l & adj_t), len(adj_l)), naive_ratio(len(adj_l & adj_t), len(adj_t))),
            (naive_ratio(len(heads_l & heads_t), len(heads_l)), naive_ratio(len(heads_l & heads_t), len(heads_t))))


def test_hand_computed_cases():
    names = ["a", "b", "c", "d"]
    true = DAG.from_arcs([("a", "c"), ("b", "c"), ("c", "d")], names)  # a -> c <- b, c -> d: all compelled
    learned = DAG.from_arcs([("a", "c"), ("c", "b"), ("a", "d")], names)
    # adjacencies: learned {ac, bc, ad}, true {ac, bc, cd}: 2 in both
    assert adjacency_precision_recall(learned, true) == (2 / 3, 2 / 3)
    # as DAGs: learned heads at c (a->c), b (c->b), d (a->d); true at c, c, d: only a->c shared
    assert arrowhead_precision_recall(learned, true) == (1 / 3, 1 / 3)
    # as classes: learned a -> c -> b, a -> d has no v-structure: every edge a link, no arrowhead
    assert arrowhead_precision_recall(learned.cpdag(), true.cpdag()) == (None, 0.0)
    assert adjacency_precision_recall(true.cpdag(), true) == (1.0, 1.0)
    assert arrowhead_precision_recall(true.cpdag(), true.cpdag()) == (1.0, 1.0)


def test_zero_over_zero_is_undefined_not_a_number():
    empty = DAG.empty(["a", "b", "c"])
    chain = DAG.from_arcs([("a", "b")], ["a", "b", "c"])
    assert adjacency_precision_recall(empty, chain) == (None, 0.0)
    assert adjacency_precision_recall(chain, empty) == (0.0, None)
    assert adjacency_precision_recall(empty, empty) == (None, None)
    assert arrowhead_precision_recall(chain.cpdag(), chain.cpdag()) == (None, None)  # one link, no heads
    assert fraction(0, 3) == 0.0 and fraction(2, 0) is None


def test_nodes_are_matched_by_name():
    true = DAG.from_arcs([("a", "b"), ("c", "b")], ["a", "b", "c"])
    same = DAG.from_arcs([("a", "b"), ("c", "b")], ["c", "b", "a"])
    assert adjacency_precision_recall(same, true) == (1.0, 1.0)
    assert arrowhead_precision_recall(same, true) == (1.0, 1.0)


def test_against_the_naive_twin_on_random_graphs():
    rng = np.random.default_rng(32)
    for _ in range(300):
        n = int(rng.integers(2, 9))
        learned = random_dag(rng, n, float(rng.uniform(0.1, 0.7)))
        true = random_dag(rng, n, float(rng.uniform(0.1, 0.7)))
        for a, b in ((learned, true), (learned.cpdag(), true.cpdag())):
            adjacency, arrowheads = naive_metrics(a, b)
            assert adjacency_precision_recall(a, b) == pytest.approx(adjacency)
            assert arrowhead_precision_recall(a, b) == pytest.approx(arrowheads)
        mixed = PDAG(learned.cpdag().adj, learned.names)  # any PDAG, names permuted
        order = rng.permutation(n)
        shuffled = DAG(true.adj[np.ix_(order, order)], [true.names[i] for i in order])
        assert adjacency_precision_recall(mixed, shuffled) == pytest.approx(naive_metrics(mixed, shuffled)[0])
        assert arrowhead_precision_recall(mixed, shuffled) == pytest.approx(naive_metrics(mixed, shuffled)[1])
