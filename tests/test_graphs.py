"""Tests for bnexplore.graphs.

The equivalence-class machinery (CPDAG, RPDAG, extensions, keys, counting) is
checked against brute force: every DAG on 4 nodes and a random sample of the
DAGs on 5 nodes, grouped by plain-Python definitions written here.
"""

import itertools
import math
import random
from collections import defaultdict

import numpy as np
import pytest

from bnexplore.errors import SearchError
from bnexplore.graphs import (
    CPDAG,
    DAG,
    PDAG,
    RPDAG,
    find_cycle,
    is_acyclic,
    mec_key,
    pdag_extension,
    rpdag_key,
    shd,
    structural_errors,
)

# ---------------------------------------------------------------------------
# plain-Python reference definitions (DAGs as frozensets of arcs (u, v))


def naive_acyclic(n, arcs):
    left = set(range(n))
    while left:
        sources = [v for v in left if not any((u, v) in arcs for u in left)]
        if not sources:
            return False
        left -= set(sources)
    return True


def naive_all_dags(n):
    """Every DAG on n nodes: each has a topological order, and for an order the
    DAGs consistent with it are the subsets of its forward pairs."""
    dags = set()
    for order in itertools.permutations(range(n)):
        forward = list(itertools.combinations(order, 2))
        for keep in itertools.product((False, True), repeat=len(forward)):
            dags.add(frozenset(pair for pair, k in zip(forward, keep) if k))
    return sorted(dags, key=sorted)


def naive_skeleton(arcs):
    return frozenset(frozenset(a) for a in arcs)


def naive_hh(arcs):
    parents = defaultdict(list)
    for u, v in arcs:
        parents[v].append(u)
    return frozenset((min(a, b), v, max(a, b))
                     for v, pa in parents.items() for a, b in itertools.combinations(pa, 2))


def naive_v_structures(n, arcs):
    skeleton = naive_skeleton(arcs)
    return frozenset(t for t in naive_hh(arcs) if frozenset((t[0], t[2])) not in skeleton)


def naive_mec(n, arcs):
    return naive_skeleton(arcs), naive_v_structures(n, arcs)


def naive_rpdag_class(n, arcs):
    return naive_skeleton(arcs), naive_hh(arcs)


def matrix(n, arcs, links=()):
    adj = np.zeros((n, n), dtype=np.uint8)
    for u, v in arcs:
        adj[u, v] = 1
    for u, v in links:
        adj[u, v] = adj[v, u] = 1
    return adj


def arc_set(dag):
    return frozenset(dag.arcs())


def naive_essential(n, members):
    """Arcs on which all members agree stay arcs, the other edges become links."""
    members = list(members)
    arcs, links = [], []
    for edge in naive_skeleton(members[0]):
        u, v = sorted(edge)
        if all((u, v) in m for m in members):
            arcs.append((u, v))
        elif all((v, u) in m for m in members):
            arcs.append((v, u))
        else:
            links.append((u, v))
    return matrix(n, arcs, links)


def naive_pdag_v_structures(adj):
    n = len(adj)
    return {(a, v, b) for v in range(n) for a in range(n) for b in range(a + 1, n)
            if adj[a][v] and not adj[v][a] and adj[b][v] and not adj[v][b]
            and not adj[a][b] and not adj[b][a]}


def naive_consistent_extensions(adj):
    """Every DAG with the PDAG's skeleton, arcs and v-structures (brute force)."""
    n = len(adj)
    arcs = [(u, v) for u in range(n) for v in range(n) if adj[u][v] and not adj[v][u]]
    links = [(u, v) for u in range(n) for v in range(u + 1, n) if adj[u][v] and adj[v][u]]
    wanted = naive_pdag_v_structures(adj)
    out = set()
    for flips in itertools.product((False, True), repeat=len(links)):
        dag = frozenset(arcs + [(v, u) if f else (u, v) for (u, v), f in zip(links, flips)])
        if naive_acyclic(n, dag) and naive_v_structures(n, dag) == wanted:
            out.add(dag)
    return out


def naive_orientation_count(adj):
    """Acyclic orientations without v-structures of an undirected graph.

    Inclusion-exclusion over a set T of sinks (as in Robinson's count of
    DAGs): every such orientation of G[S] has a sink; making every node of T
    a sink needs T independent and each t in T simplicial in G[S] (its
    neighbours become its parents, which must be adjacent), and leaves any
    such orientation of G[S - T].
    """
    n = len(adj)
    nb = [frozenset(np.flatnonzero(adj[v]).tolist()) for v in range(n)]
    memo = {frozenset(): 1}

    def count(nodes):
        if nodes not in memo:
            simplicial = [v for v in nodes if all(
                b in nb[a] for a, b in itertools.combinations(nb[v] & nodes, 2))]
            total = 0
            for k in range(1, len(simplicial) + 1):
                for sinks in itertools.combinations(simplicial, k):
                    if not any(b in nb[a] for a, b in itertools.combinations(sinks, 2)):
                        total += (-1) ** (k + 1) * count(nodes - frozenset(sinks))
            memo[nodes] = total
        return memo[nodes]

    return count(frozenset(range(n)))


def naive_reach(n, arcs):
    reach = [[(u, v) in arcs for v in range(n)] for u in range(n)]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                reach[i][j] = reach[i][j] or (reach[i][k] and reach[k][j])
    return reach


def naive_shd(a, b):
    n = len(a)
    return sum((a[u][v], a[v][u]) != (b[u][v], b[v][u])
               for u in range(n) for v in range(u + 1, n))


def random_dag(rng, n, p):
    order = list(range(n))
    rng.shuffle(order)
    arcs = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < p]
    return DAG(matrix(n, arcs))


def random_chordal(rng, n, p):
    """Random graph made chordal by eliminating its nodes in a random order."""
    adj = np.zeros((n, n), dtype=bool)
    for u, v in itertools.combinations(range(n), 2):
        adj[u, v] = adj[v, u] = rng.random() < p
    filled = adj.copy()
    left = list(range(n))
    rng.shuffle(left)
    while left:
        v = left.pop()
        later = [u for u in left if filled[v, u]]
        for a, b in itertools.combinations(later, 2):
            filled[a, b] = filled[b, a] = True
    return filled.astype(np.uint8)


# ---------------------------------------------------------------------------
# brute-force fixtures


@pytest.fixture(scope="module")
def all4():
    return naive_all_dags(4)


@pytest.fixture(scope="module")
def all5():
    return naive_all_dags(5)


def group(n, dags, key):
    groups = defaultdict(set)
    for arcs in dags:
        groups[key(n, arcs)].add(arcs)
    return groups


@pytest.fixture(scope="module")
def sample5(all5):
    """200 random DAGs on 5 nodes with their brute-force MEC and RPDAG classes."""
    mecs = group(5, all5, naive_mec)
    rclasses = group(5, all5, naive_rpdag_class)
    picked = random.Random(5).sample(all5, 200)
    return [(arcs, mecs[naive_mec(5, arcs)], rclasses[naive_rpdag_class(5, arcs)])
            for arcs in picked]


def test_brute_force_counts_match_the_literature(all4, all5):
    # Robinson's DAG counts and the known numbers of Markov equivalence classes.
    assert len(naive_all_dags(3)) == 25 and len(all4) == 543 and len(all5) == 29281
    assert len(group(3, naive_all_dags(3), naive_mec)) == 11
    assert len(group(4, all4, naive_mec)) == 185


# ---------------------------------------------------------------------------
# PDAG basics, construction errors, JSON


def test_pdag_queries_on_a_hand_made_graph():
    # X0 -> X2 <- X1, X2 -- X3, X3 -- X4
    g = PDAG(matrix(5, [(0, 2), (1, 2)], [(2, 3), (4, 3)]), names=list("abcde"))
    assert g.n == 5 and g.n_edges == 4
    assert g.arcs() == [(0, 2), (1, 2)]
    assert g.links() == [(2, 3), (3, 4)]
    assert g.edges() == [(0, 2), (1, 2), (2, 3), (3, 4)]
    assert g.parents(2) == [0, 1] and g.children(0) == [2] and g.neighbours(3) == [2, 4]
    assert g.adjacent(3, 2) and g.adjacent(2, 0) and not g.adjacent(0, 1)
    assert g.chain_components() == [[0], [1], [2, 3, 4]]
    assert g.hh_patterns() == [(0, 2, 1)] and g.v_structures() == [(0, 2, 1)]
    skeleton = g.skeleton()
    assert skeleton.dtype == bool and (skeleton == skeleton.T).all() and skeleton.sum() == 8
    assert g.index("c") == 2 and g.index(4) == 4
    assert "PDAG(5 nodes" in repr(g) and "a -> c" in repr(g) and "c -- d" in repr(g)


def test_graphs_are_immutable_and_hash_by_names_and_matrix():
    adj = matrix(3, [(0, 1)])
    g = DAG(adj)
    adj[1, 2] = 1  # the graph keeps its own copy
    assert g.arcs() == [(0, 1)]
    with pytest.raises(ValueError):
        g.adj[1, 2] = 1
    assert g == DAG.from_arcs([(0, 1)], 3) == g.copy() == PDAG(g.adj)
    assert hash(g) == hash(PDAG(g.adj))
    assert g != DAG.from_arcs([(0, 1)], ["a", "b", "c"])
    assert g != DAG.from_arcs([(1, 0)], 3)
    assert len({g, g.copy(), DAG.from_arcs([(1, 0)], 3)}) == 2


@pytest.mark.parametrize("adj, names, message", [
    ([[0, 1, 0], [0, 0]], None, "square"),
    (np.zeros((2, 3)), None, "square"),
    ([[0, 2], [0, 0]], None, "0 or 1; found 2 at row 0, column 1"),
    ([[1, 0], [0, 0]], ["a", "b"], "node a has a self loop"),
    ([[0, 1], [0, 0]], ["a"], "got 1 node names for 2 nodes"),
    ([[0, 1], [0, 0]], ["a", "a"], "'a' appears twice"),
])
def test_bad_matrices_raise_search_error(adj, names, message):
    with pytest.raises(SearchError, match=message):
        PDAG(adj, names)


def test_json_round_trip_keeps_class_names_arcs_and_links():
    g = PDAG(matrix(4, [(0, 2), (1, 2)], [(3, 2)]), names=["a", "b", "c", "d"])
    d = g.to_json()
    assert d == {"nodes": ["a", "b", "c", "d"], "arcs": [["a", "c"], ["b", "c"]],
                 "links": [["c", "d"]]}
    assert PDAG.from_json(d) == g
    dag = DAG.from_arcs([("b", "a"), ("a", "c")], ["a", "b", "c"])
    back = DAG.from_json(dag.to_json())
    assert isinstance(back, DAG) and back == dag
    assert isinstance(RPDAG.from_json(g.to_json()), RPDAG)
    # int indices and names may be mixed; "arcs"/"links" may be left out
    assert PDAG.from_json({"nodes": ["a", "b", "c"], "arcs": [[0, "c"]], "links": [["b", 2]]}) \
        == PDAG(matrix(3, [(0, 2)], [(1, 2)]), ["a", "b", "c"])
    assert PDAG.from_json({"nodes": ["a", "b"]}).n_edges == 0


@pytest.mark.parametrize("d, message", [
    ({"arcs": []}, '"nodes" list'),
    ([1, 2], '"nodes" list'),
    ({"nodes": ["a", "b"], "arcs": [["a", "z"]]}, "unknown node 'z'"),
    ({"nodes": ["a", "b"], "arcs": [["a", 2]]}, "index 2 is out of range"),
    ({"nodes": ["a", "b"], "links": [["b", "b"]]}, "self loop on b"),
    ({"nodes": ["a", "b"], "arcs": [["a", "b"], ["a", "b"]]}, "pair a, b is listed twice"),
    ({"nodes": ["a", "b"], "arcs": [["a", "b"], ["b", "a"]]}, "pair b, a is listed twice"),
    ({"nodes": ["a", "b"], "arcs": [["a", "b"]], "links": [["b", "a"]]}, "listed twice"),
    ({"nodes": ["a", "b"], "arcs": [["a"]]}, "not a pair"),
    ({"nodes": ["a", "a"]}, "appears twice"),
])
def test_bad_json_raises_search_error_naming_the_problem(d, message):
    with pytest.raises(SearchError, match=message):
        PDAG.from_json(d)


def test_dag_json_with_a_link_or_a_cycle_is_refused():
    with pytest.raises(SearchError, match="a and b point at each other"):
        DAG.from_json({"nodes": ["a", "b"], "links": [["a", "b"]]})
    with pytest.raises(SearchError, match="directed cycle a -> b -> c -> a"):
        DAG.from_json({"nodes": ["a", "b", "c"], "arcs": [["b", "c"], ["c", "a"], ["a", "b"]]})


# ---------------------------------------------------------------------------
# DAG


def test_dag_constructors_agree():
    names = ["a", "b", "c", "d"]
    by_arcs = DAG.from_arcs([("a", "c"), ("b", "c"), ("c", "d")], names)
    by_parents = DAG.from_parents([[], [], ["a", 1], [2]], names)
    assert by_arcs == by_parents == DAG(matrix(4, [(0, 2), (1, 2), (2, 3)]), names)
    assert by_arcs.parent_sets() == [(), (), (0, 1), (2,)]
    assert DAG.empty(3) == DAG.empty(["X0", "X1", "X2"]) and DAG.empty(3).n_edges == 0
    with pytest.raises(SearchError, match="parents of c: unknown node 'z'"):
        DAG.from_parents([[], [], ["z"], []], names)
    with pytest.raises(SearchError, match="not a pair"):
        DAG.from_arcs([("a", "b", "c")], names)


def test_cycle_error_names_the_cycle_and_find_cycle_ignores_links():
    with pytest.raises(SearchError, match=r"directed cycle B -> C -> D -> B; remove or reverse"):
        DAG.from_arcs([("A", "B"), ("B", "C"), ("C", "D"), ("D", "B")], ["A", "B", "C", "D"])
    assert find_cycle(matrix(4, [(0, 1), (1, 2), (2, 3), (3, 1)])) == [1, 2, 3]
    assert find_cycle(matrix(3, [(0, 1)], [(1, 2), (0, 2)])) is None
    assert is_acyclic(matrix(3, [(0, 1), (1, 2)])) and DAG.is_acyclic(matrix(2, [(0, 1)]))
    assert not is_acyclic(matrix(3, [(0, 1), (1, 2), (2, 0)]))


def test_find_cycle_against_brute_force_on_random_digraphs():
    rng = random.Random(1)
    for _ in range(300):
        n = rng.randint(1, 6)
        arcs = {(u, v) for u in range(n) for v in range(n) if u != v and rng.random() < 0.25}
        arcs = {(u, v) for u, v in arcs if (v, u) not in arcs or u < v}  # arcs only, no links
        cycle = find_cycle(matrix(n, arcs))
        assert (cycle is None) == naive_acyclic(n, arcs)
        if cycle is not None:
            assert len(set(cycle)) == len(cycle)
            assert all((a, b) in arcs for a, b in zip(cycle, cycle[1:] + cycle[:1]))


def test_dag_orders_ancestry_and_v_structures_against_brute_force(all5):
    for arcs in random.Random(2).sample(all5, 200):
        dag = DAG(matrix(5, arcs))
        order = dag.topological_order()
        assert sorted(order) == list(range(5))
        assert all(order.index(u) < order.index(v) for u, v in arcs)
        reach = naive_reach(5, arcs)
        for v in range(5):
            assert dag.descendants(v) == [w for w in range(5) if reach[v][w]]
            assert dag.ancestors(v) == [u for u in range(5) if reach[u][v]]
        assert set(dag.v_structures()) == naive_v_structures(5, arcs)
        assert set(dag.hh_patterns()) == naive_hh(arcs)
        assert dag.v_structures() == sorted(dag.v_structures())


def test_an_arc_reversal_is_equivalent_exactly_when_the_arc_is_covered(all4):
    n_covered = 0
    for arcs in all4:
        dag = DAG(matrix(4, arcs))
        for u, v in arcs:
            flipped = (arcs - {(u, v)}) | {(v, u)}
            covered = dag.is_covered(u, v)
            n_covered += covered
            equivalent = naive_acyclic(4, flipped) and naive_mec(4, flipped) == naive_mec(4, arcs)
            assert covered == equivalent
            if covered:
                assert arc_set(dag.reverse(u, v)) == flipped
        assert dag.covered_arcs() == [a for a in dag.arcs() if dag.is_covered(*a)]
    assert n_covered > 0
    chain = DAG.from_arcs([(0, 1), (1, 2), (0, 2)], 3)
    assert not chain.is_covered(1, 0)  # not an arc
    with pytest.raises(SearchError, match="directed cycle"):
        chain.reverse(0, 2)
    with pytest.raises(SearchError, match="X1 -> X0 is not an arc"):
        chain.reverse(1, 0)


# ---------------------------------------------------------------------------
# CPDAG


def test_cpdag_of_known_small_networks():
    # a -> c <- b, c -> d: the v-structure and the arc below it are compelled
    g = DAG.from_arcs([(0, 2), (1, 2), (2, 3)], 4).cpdag()
    assert isinstance(g, CPDAG)
    assert g.compelled_arcs() == [(0, 2), (1, 2), (2, 3)] and g.reversible_edges() == []
    assert g.n_dags() == 1
    # a chain: everything reversible, three DAGs
    g = DAG.from_arcs([(0, 1), (1, 2)], 3).cpdag()
    assert g.arcs() == [] and g.links() == [(0, 1), (1, 2)] and g.n_dags() == 3
    # a triangle: all reversible, 3! DAGs
    assert DAG.from_arcs([(0, 1), (1, 2), (0, 2)], 3).cpdag().n_dags() == 6
    # asia: asia -- tub, smoke -- lung, smoke -- bronc reversible, the rest compelled
    names = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
    asia = DAG.from_arcs([("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc"),
                          ("tub", "either"), ("lung", "either"), ("either", "xray"),
                          ("either", "dysp"), ("bronc", "dysp")], names)
    g = asia.cpdag()
    link_names = {(names[u], names[v]) for u, v in g.links()}
    assert link_names == {("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc")}
    assert g.is_compelled(names.index("either"), names.index("xray"))
    assert not g.is_compelled(names.index("xray"), names.index("either"))
    assert g.n_dags() == 2 * 3  # asia -- tub: 2 ways, lung -- smoke -- bronc: 3 ways


def check_mec(n, arcs, members, essential):
    dag = DAG(matrix(n, arcs))
    g = dag.cpdag()
    assert np.array_equal(g.adj, essential)
    assert mec_key(g) == mec_key(dag)


def check_cpdag_class(g, members):
    assert g.is_valid()
    produced = [arc_set(d) for d in g.dags()]
    assert len(produced) == len(set(produced)) == g.n_dags() == len(members)
    assert set(produced) == members
    assert arc_set(pdag_extension(g)) in members
    assert arc_set(g.extension()) in members
    assert g.cpdag() == g


def test_cpdag_against_brute_force_on_every_4_node_dag(all4):
    mecs = group(4, all4, naive_mec)
    for members in mecs.values():
        essential = naive_essential(4, members)
        for arcs in members:
            check_mec(4, arcs, members, essential)
        check_cpdag_class(CPDAG(essential), members)
    # equal keys iff same class
    keys = {arcs: mec_key(DAG(matrix(4, arcs))) for arcs in all4}
    assert len(set(keys.values())) == len(mecs)
    for members in mecs.values():
        assert len({keys[a] for a in members}) == 1


def test_cpdag_against_brute_force_on_random_5_node_dags(sample5):
    for arcs, members, _ in sample5:
        essential = naive_essential(5, members)
        check_mec(5, arcs, members, essential)
        check_cpdag_class(CPDAG(essential), members)
    keys = defaultdict(set)
    for arcs, _, _ in sample5:
        keys[mec_key(DAG(matrix(5, arcs)))].add(naive_mec(5, arcs))
    assert all(len(v) == 1 for v in keys.values())


def test_cpdag_counts_and_lists_orientations_of_random_chordal_graphs():
    rng = random.Random(3)
    checked = 0
    while checked < 40:
        n = rng.randint(3, 8)
        adj = random_chordal(rng, n, rng.uniform(0.2, 0.6))
        if adj.sum() // 2 > 12:
            continue
        checked += 1
        g = CPDAG(adj)
        expected = naive_consistent_extensions(adj)
        assert g.is_valid()
        assert g.n_dags() == len(expected)
        produced = [arc_set(d) for d in g.dags()]
        assert len(produced) == len(set(produced)) and set(produced) == expected


def test_cpdag_counts_of_larger_chordal_graphs_match_inclusion_exclusion():
    rng = random.Random(12)
    for _ in range(10):
        adj = random_chordal(rng, rng.randint(9, 12), rng.uniform(0.1, 0.4))
        assert CPDAG(adj).n_dags() == naive_orientation_count(adj)
    # the two reference counts agree with each other on small graphs
    for _ in range(10):
        adj = random_chordal(rng, 6, 0.5)
        assert naive_orientation_count(adj) == len(naive_consistent_extensions(adj))


def test_cpdag_counting_of_larger_components():
    assert CPDAG(np.ones((9, 9), dtype=np.uint8) - np.eye(9, dtype=np.uint8)).n_dags() \
        == math.factorial(9)
    path = matrix(30, [], [(i, i + 1) for i in range(29)])
    assert CPDAG(path).n_dags() == 30
    # a 6-clique minus one edge goes through the root recursion, not a closed form
    k6 = np.ones((6, 6), dtype=np.uint8) - np.eye(6, dtype=np.uint8)
    k6[0, 1] = k6[1, 0] = 0
    assert CPDAG(k6).n_dags() == len(naive_consistent_extensions(k6))
    # a random 14-node chordal graph with 57 links
    big = random_chordal(random.Random(4), 14, 0.25)
    assert CPDAG(big).is_valid()
    assert CPDAG(big).n_dags() == naive_orientation_count(big)


def test_invalid_cpdags_are_recognised():
    # a chordless 4-cycle of links has no consistent extension
    square = CPDAG(matrix(4, [], [(0, 1), (1, 2), (2, 3), (3, 0)]))
    assert not square.is_valid()
    with pytest.raises(SearchError, match="not a valid CPDAG"):
        square.n_dags()
    # a chain written with arcs is a DAG, not the CPDAG of its class
    chain = CPDAG(matrix(3, [(0, 1), (1, 2)]))
    assert not chain.is_valid()
    assert chain.cpdag() == DAG.from_arcs([(0, 1), (1, 2)], 3).cpdag()


# ---------------------------------------------------------------------------
# consistent extension


def test_pdag_extension_against_brute_force_on_random_pdags():
    rng = random.Random(6)
    n_extendable = n_not = 0
    for _ in range(400):
        n = rng.randint(2, 5)
        arcs, links = [], []
        for u, v in itertools.combinations(range(n), 2):
            r = rng.random()
            if r < 0.25:
                arcs.append((u, v))
            elif r < 0.4:
                arcs.append((v, u))
            elif r < 0.65:
                links.append((u, v))
        adj = matrix(n, arcs, links)
        expected = naive_consistent_extensions(adj)
        if expected:
            n_extendable += 1
            assert arc_set(pdag_extension(PDAG(adj))) in expected
        else:
            n_not += 1
            with pytest.raises(SearchError, match="no consistent extension"):
                pdag_extension(PDAG(adj))
    assert n_extendable > 30 and n_not > 30


# ---------------------------------------------------------------------------
# RPDAG


def naive_rpdag_violations(adj):
    """Which conditions of Definition 1 fail (plain loops)."""
    n = len(adj)
    arcs = {(u, v) for u in range(n) for v in range(n) if adj[u][v] and not adj[v][u]}
    links = {(u, v) for u in range(n) for v in range(u + 1, n) if adj[u][v] and adj[v][u]}
    npa = [sum((u, v) in arcs for u in range(n)) for v in range(n)]
    failed = set()
    if any(npa[v] and (min(u, v), max(u, v)) in links for v in range(n) for u in range(n)):
        failed.add(1)
    if not naive_acyclic(n, arcs):
        failed.add(2)
    # a forest has exactly n - (number of components) edges
    comp = list(range(n))
    for u, v in links:
        a, b = comp[u], comp[v]
        comp = [a if c == b else c for c in comp]
    if len(links) != n - len(set(comp)):
        failed.add(3)
    if any(npa[v] < 2 and npa[u] == 0 for u, v in arcs):
        failed.add(4)
    return failed


def test_rpdag_validity_against_definition_1_on_random_pdags():
    rng = random.Random(7)
    seen = set()
    for _ in range(600):
        n = rng.randint(2, 6)
        arcs, links = [], []
        for u, v in itertools.combinations(range(n), 2):
            r = rng.random()
            if r < 0.2:
                arcs.append((u, v) if rng.random() < 0.5 else (v, u))
            elif r < 0.4:
                links.append((u, v))
        adj = matrix(n, arcs, links)
        failed = naive_rpdag_violations(adj)
        g = RPDAG(adj)
        got = {int(m.split(":")[0].split()[-1]) for m in g.violations()}
        assert got == failed
        assert g.is_valid() == (not failed)
        seen |= failed
    assert seen == {1, 2, 3, 4}


def test_rpdag_violation_messages_name_the_nodes():
    names = ["a", "b", "c", "d"]
    g = RPDAG(matrix(4, [(0, 1)], [(1, 2), (2, 3), (3, 1)]), names)
    messages = g.violations()
    assert any("b has the parent a and the link b -- c" in m for m in messages)
    assert any("cycle of links b -- d -- c -- b" in m for m in messages)
    assert any("the arc a -> b is in no head-to-head pattern" in m for m in messages)
    with pytest.raises(SearchError, match="no RPDAG extension: condition 1"):
        g.n_dags()
    # condition 4 alone does not stop the extension
    lonely = RPDAG(matrix(3, [(0, 1)]))
    assert not lonely.is_valid() and lonely.n_dags() == 1


def check_rpdag(n, arcs, members):
    dag = DAG(matrix(n, arcs))
    r = dag.rpdag()
    assert isinstance(r, RPDAG) and r.is_valid() and r.violations() == []
    assert rpdag_key(dag) == rpdag_key(r) and mec_key(r) == mec_key(dag)
    assert dag in members
    return r


def check_rpdag_class(r, members):
    produced = list(r.dags())
    assert len(produced) == len(set(produced)) == r.n_dags() == len(members)
    assert set(produced) == members
    assert len({d.rpdag() for d in produced}) == 1
    assert len({rpdag_key(d) for d in produced}) == 1
    assert len({mec_key(d) for d in produced}) == 1
    extension = r.extension()
    assert extension in members
    for comp in r.chain_components():  # lowest node of each link tree is a root
        assert extension.parents(comp[0]) == r.parents(comp[0])
    assert r.cpdag() == extension.cpdag()


def as_dags(n, members):
    return {DAG(matrix(n, arcs)) for arcs in members}


def test_rpdag_against_brute_force_on_every_4_node_dag(all4):
    rclasses = group(4, all4, naive_rpdag_class)
    mecs = group(4, all4, naive_mec)
    rpdags = set()
    for members in rclasses.values():
        members = as_dags(4, members)
        for dag in members:
            r = check_rpdag(4, dag.arcs(), members)
        check_rpdag_class(r, members)
        rpdags.add(r)
    assert len(rpdags) == len(rclasses) > len(mecs)
    # RPDAG classes refine the Markov equivalence classes
    for members in rclasses.values():
        assert len({naive_mec(4, a) for a in members}) == 1
    keys = {rpdag_key(DAG(matrix(4, arcs))) for arcs in all4}
    assert len(keys) == len(rclasses)


def test_rpdag_against_brute_force_on_random_5_node_dags(sample5):
    for arcs, mec_members, members in sample5:
        assert members <= mec_members
        members = as_dags(5, members)
        check_rpdag_class(check_rpdag(5, arcs, members), members)


def test_rpdag_of_the_paper_examples():
    # z -- x -> y <- u is not an RPDAG; z -- x -- y -- u is (Section 3)
    dag = DAG.from_arcs([(0, 1), (1, 2), (3, 2)], ["z", "x", "y", "u"])
    r = dag.rpdag()
    assert r.arcs() == [(1, 2), (3, 2)] and r.links() == [(0, 1)]
    chain = DAG.from_arcs([(0, 1), (1, 2), (2, 3)], 4).rpdag()
    assert chain.links() == [(0, 1), (1, 2), (2, 3)] and chain.n_dags() == 4
    # a triangle: the h-h pattern survives, so one CPDAG class of 6 DAGs splits into RPDAGs
    tri = DAG.from_arcs([(0, 1), (1, 2), (0, 2)], 3)
    assert tri.rpdag().arcs() == [(0, 2), (1, 2)] and tri.rpdag().links() == [(0, 1)]
    assert tri.rpdag().n_dags() == 2 and tri.cpdag().n_dags() == 6


# ---------------------------------------------------------------------------
# distances


def test_shd_counts_each_differing_pair_once():
    names = ["a", "b", "c"]
    chain = DAG.from_arcs([("a", "b"), ("b", "c")], names)
    collider = DAG.from_arcs([("a", "b"), ("c", "b")], names)
    assert shd(chain, collider) == 1
    assert shd(chain, chain) == 0
    assert shd(chain, DAG.empty(names)) == 2
    assert shd(chain.cpdag(), collider.cpdag()) == 2  # a -- b -- c against a -> b <- c
    # Markov-equivalent DAGs differ as DAGs but not as classes
    assert shd(chain, DAG.from_arcs([("b", "a"), ("b", "c")], names)) == 1
    assert shd(chain.cpdag(), DAG.from_arcs([("b", "a"), ("b", "c")], names).cpdag()) == 0


def test_shd_matches_brute_force_on_random_pdags():
    rng = random.Random(8)
    for _ in range(200):
        n = rng.randint(2, 7)
        graphs = []
        for _ in range(2):
            arcs, links = [], []
            for u, v in itertools.combinations(range(n), 2):
                r = rng.random()
                if r < 0.3:
                    arcs.append((u, v) if rng.random() < 0.5 else (v, u))
                elif r < 0.45:
                    links.append((u, v))
            graphs.append(PDAG(matrix(n, arcs, links)))
        a, b = graphs
        expected = naive_shd(a.adj.tolist(), b.adj.tolist())
        assert shd(a, b) == shd(b, a) == expected
        errors = structural_errors(a, b, equivalence=False)
        assert errors["H"] == expected == errors["A"] + errors["D"] + errors["I"]
        assert errors["A"] == sum(a.adjacent(u, v) and not b.adjacent(u, v)
                                  for u, v in itertools.combinations(range(n), 2))


def test_graphs_are_matched_by_name():
    g = DAG.from_arcs([("a", "b"), ("b", "c")], ["a", "b", "c"])
    same = DAG.from_arcs([("a", "b"), ("b", "c")], ["c", "a", "b"])
    assert shd(g, same) == 0 and structural_errors(g, same)["H"] == 0
    other = DAG.from_arcs([("b", "a"), ("b", "c")], ["c", "a", "b"])
    assert shd(g, other) == 1
    message = r"only in the first: \['c'\], only in the second: \['z'\]"
    with pytest.raises(SearchError, match=message):
        shd(g, DAG.empty(["a", "b", "z"]))


def test_structural_errors_on_hand_made_cases():
    names = ["a", "b", "c", "d"]
    true = DAG.from_arcs([("a", "c"), ("b", "c"), ("c", "d")], names)  # all compelled
    # learned: c -> a, c -> d, a -> b (no v-structure, so its CPDAG is all links)
    learned = DAG.from_arcs([("c", "a"), ("c", "d"), ("a", "b")], names)
    # learned CPDAG: all links (no v-structure); true: a -> c <- b, c -> d
    # pairs: a-c link vs arc (I), c-d link vs arc (I), b-c deleted (D), a-b added (A)
    assert structural_errors(learned, true) == {"A": 1, "D": 1, "I": 2, "H": 4}
    # as DAGs, c -> a is reversed and c -> d agrees
    assert structural_errors(learned, true, equivalence=False) == {"A": 1, "D": 1, "I": 1, "H": 3}
    # an equivalent DAG, its CPDAG and its RPDAG all have no error against the truth
    reversed_root = DAG.from_arcs([("b", "a")], names)
    for graph in (reversed_root, reversed_root.cpdag(), reversed_root.rpdag()):
        assert structural_errors(graph, DAG.from_arcs([("a", "b")], names))["H"] == 0
    # a PDAG that is not a CPDAG is compared through its class
    pdag = PDAG(matrix(4, [(0, 2), (1, 2)], [(2, 3)]), names)
    assert structural_errors(pdag, true)["H"] == 0


def test_structural_errors_are_zero_exactly_within_a_class(all4):
    rng = random.Random(9)
    for _ in range(200):
        a, b = rng.sample(all4, 2)
        da, db = DAG(matrix(4, a)), DAG(matrix(4, b))
        errors = structural_errors(da, db)
        assert errors["H"] == shd(da.cpdag(), db.cpdag())
        assert (errors["H"] == 0) == (naive_mec(4, a) == naive_mec(4, b))
        assert errors["A"] == len(naive_skeleton(a) - naive_skeleton(b))
        assert errors["D"] == len(naive_skeleton(b) - naive_skeleton(a))


# ---------------------------------------------------------------------------
# scale


def test_thousand_node_graphs_convert_consistently():
    rng = np.random.default_rng(10)
    n = 1000
    adj = np.zeros((n, n), dtype=np.uint8)
    order = rng.permutation(n)
    for i in range(1, n):
        for j in rng.choice(i, size=min(i, rng.integers(0, 4)), replace=False):
            adj[order[j], order[i]] = 1
    dag = DAG(adj)
    g = dag.cpdag()
    assert mec_key(g.extension()) == mec_key(dag)
    assert g.extension().cpdag() == g
    r = dag.rpdag()
    assert r.is_valid() and r.extension().rpdag() == r
    assert shd(dag, r.extension()) <= len(r.links())
    assert structural_errors(r, dag)["H"] == 0
    assert PDAG.from_json(g.to_json()) == g
