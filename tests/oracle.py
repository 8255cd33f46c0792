"""A d-separation oracle: a conditional independence test that answers from a known DAG.

Constraint-based searches (PC-stable, MMHC's MMPC) accept, in place of a test
name, any object with ``names``, ``n_vars`` and ``__call__(x, y, z) ->
(p_value, statistic, dof)``. This one answers ``p_value = 1`` when ``x`` and
``y`` are d-separated by ``z`` in the DAG and 0 otherwise, so a search run on it
must find the DAG's equivalence class exactly (Spirtes, Glymour & Scheines 2000,
Theorem 5.1): the tests of those searches use it as the truth.
"""

import itertools

import networkx as nx
import numpy as np

from bnexplore.graphs import DAG


class DSeparationOracle:
    """Answers independence questions from a DAG by d-separation.

    Parameters
    ----------
    dag : bnexplore.graphs.DAG

    Attributes
    ----------
    calls : int
        Questions answered so far.
    """

    def __init__(self, dag):
        self.dag = dag
        self.names = list(dag.names)
        self.n_vars = len(self.names)
        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(range(self.n_vars))
        self.graph.add_edges_from((int(u), int(v)) for u, v in dag.arcs())
        self.calls = 0

    def __call__(self, x, y, z=()):
        self.calls += 1
        separated = nx.is_d_separator(self.graph, {int(x)}, {int(y)}, {int(v) for v in z})
        return (1.0 if separated else 0.0), 0.0, 0


def random_dag(rng, n, p, names=None):
    """A random DAG on ``n`` nodes: each pair joined with probability ``p``, along a random order."""
    order = list(range(n))
    rng.shuffle(order)
    arcs = [(order[i], order[j]) for i, j in itertools.combinations(range(n), 2) if rng.random() < p]
    adj = np.zeros((n, n), dtype=np.uint8)
    for u, v in arcs:
        adj[u, v] = 1
    return DAG(adj, names or [f"X{i}" for i in range(n)])
