"""The hand-editing workbench (issue 35, item 1): score_change and Workbench against independent computations.

Each change is checked against the score recomputed from scratch by a fresh Scorer, and on a two-variable
table against the BDeu and K2 formulas written out with ``math.lgamma``; the class changes against the
CPDAGs and the v-structures of the graphs before and after; cycles against the edited adjacency.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import bnexplore as bx
from bnexplore.data import Encoder
from bnexplore.errors import OptionError, SearchError
from bnexplore.scores import Scorer
from bnexplore.workbench import EDIT_KINDS, Edit, Workbench, score_change


def random_data(n_vars, rows, seed):
    """A table of ``n_vars`` columns with 2 or 3 states, each column a noisy copy of an earlier one or fresh."""
    rng = np.random.default_rng(seed)
    columns = {}
    for i in range(n_vars):
        arity = int(rng.integers(2, 4))
        fresh = rng.integers(0, arity, rows)
        if i and rng.random() < 0.7:
            source = columns[f"v{int(rng.integers(0, i))}"]
            fresh = np.where(rng.random(rows) < 0.7, source % arity, fresh)
        columns[f"v{i}"] = fresh
    return Encoder().fit_transform(pd.DataFrame({k: [f"s{x}" for x in v] for k, v in columns.items()}))


def random_dag(names, seed, p=0.4):
    """A random DAG over ``names``: arcs forward in a shuffled order, each with probability ``p``."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(names))
    arcs = [(names[order[i]], names[order[j]]) for i in range(len(names)) for j in range(i + 1, len(names))
            if rng.random() < p]
    return bx.DAG.from_arcs(arcs, names)


def edited(graph, kind, u, v):
    """The adjacency matrix after the edit, built here independently of the workbench."""
    adj = np.array(graph.adj)
    if kind == "add":
        adj[u, v] = 1
    elif kind == "delete":
        adj[u, v] = 0
    else:
        adj[u, v], adj[v, u] = 0, 1
    return adj


def every_edit(graph):
    """Every single edit of ``graph``: add on each ordered non-adjacent pair, delete and reverse on each arc."""
    n = graph.n
    for u, v in itertools.permutations(range(n), 2):
        if not graph.adj[u, v] and not graph.adj[v, u]:
            yield "add", u, v
        if graph.adj[u, v]:
            yield "delete", u, v
            yield "reverse", u, v


def acyclic(adj):
    try:
        bx.DAG(adj)
    except SearchError:
        return False
    return True


# -- the score change ----------------------------------------------------------------------------------------------

def two_binary_variables():
    x = [0, 0, 0, 1, 1, 1, 1, 0, 1, 1]
    y = [0, 0, 1, 1, 1, 1, 0, 0, 1, 1]
    frame = pd.DataFrame({"x": [f"s{a}" for a in x], "y": [f"s{b}" for b in y]})
    return Encoder().fit_transform(frame), np.array(x), np.array(y)


def family_lml(child, parent, alpha):
    """ln P(child | parent) by the Dirichlet-multinomial formula, ``alpha(q)`` the prior per cell for q parent
    states (binary variables): sum over parent states j of lgamma(a_j) - lgamma(a_j + N_j) + sum over child
    states k of lgamma(a_jk + N_jk) - lgamma(a_jk)."""
    configs = [np.ones(len(child), bool)] if parent is None else [parent == 0, parent == 1]
    cell = alpha(len(configs))
    total = 0.0
    for rows in configs:
        counts = [int(np.sum(child[rows] == k)) for k in (0, 1)]
        total += math.lgamma(2 * cell) - math.lgamma(2 * cell + sum(counts))
        total += sum(math.lgamma(cell + c) - math.lgamma(cell) for c in counts)
    return total


@pytest.mark.parametrize("score,ess,alpha", [("bdeu", 1.0, lambda q: 1.0 / (2 * q)),
                                             ("bdeu", 4.0, lambda q: 4.0 / (2 * q)),
                                             ("k2", 1.0, lambda q: 1.0)])
def test_an_added_arc_changes_the_score_by_the_gamma_formula(score, ess, alpha):
    data, x, y = two_binary_variables()
    scorer = Scorer(data, score=score, ess=ess)
    change = score_change(bx.DAG.empty(["x", "y"]), ("add", "x", "y"), scorer)
    before, after = family_lml(y, None, alpha), family_lml(y, x, alpha)
    assert len(change.nodes) == 1 and change.nodes[0][0] == "y"
    assert change.nodes[0][1] == pytest.approx(before, abs=1e-12)
    assert change.nodes[0][2] == pytest.approx(after, abs=1e-12)
    assert change.change == pytest.approx(after - before, abs=1e-12)
    back = score_change(change.after, ("delete", "x", "y"), scorer)
    assert back.change == pytest.approx(before - after, abs=1e-12)


@pytest.mark.parametrize("score", ["bdeu", "k2", "bic"])
def test_every_single_edit_of_a_random_dag_changes_the_score_as_full_rescoring_does(score):
    data = random_data(6, 400, seed=3)
    graph = random_dag(data.names, seed=4)
    scorer = Scorer(data, score=score)
    fresh_before = Scorer(data, score=score).total(graph)
    done = refused = 0
    for kind, u, v in every_edit(graph):
        change = score_change(graph, (kind, data.names[u], data.names[v]), scorer)
        adj = edited(graph, kind, u, v)
        if not acyclic(adj):
            refused += 1
            assert change.after is None and change.change == 0.0 and change.cycle
            continue
        done += 1
        after = bx.DAG(adj, data.names)
        assert change.after == after and change.before is graph and change.refused == ""
        fresh = Scorer(data, score=score)  # from scratch: no cache shared with the workbench
        assert change.change == pytest.approx(fresh.total(after) - fresh_before, abs=1e-9)
        changed = [w for w in range(graph.n) if graph.parents(w) != after.parents(w)]
        assert [name for name, _, _ in change.nodes] == [data.names[w] for w in changed]
        for name, local_before, local_after in change.nodes:
            w = data.names.index(name)
            assert local_before == pytest.approx(fresh.local(w, graph.parents(w)), abs=1e-9)
            assert local_after == pytest.approx(fresh.local(w, after.parents(w)), abs=1e-9)
    assert done > 20 and refused > 0  # both branches met


def test_only_the_changed_families_are_scored():
    data = random_data(6, 300, seed=5)
    graph = random_dag(data.names, seed=6)
    scorer = Scorer(data)
    scorer.total(graph)  # every family of the graph in the cache
    u, v = graph.arcs()[0]
    # reverse scores v without u and u with v; delete then finds v without u in the cache
    for kind, scored, looked_up in (("reverse", 2, 4), ("delete", 0, 2)):
        computed, lookups = scorer.computed, scorer.lookups
        score_change(graph, (kind, u, v), scorer)
        assert (scorer.computed - computed, scorer.lookups - lookups) == (scored, looked_up)


def test_a_graph_in_another_node_order_is_scored_by_name():
    data = random_data(5, 300, seed=7)
    names = data.names
    graph = bx.DAG.from_arcs([(names[0], names[1]), (names[3], names[1])], names[::-1])
    change = score_change(graph, ("add", names[2], names[1]), Scorer(data))
    fresh = Scorer(data)
    assert change.change == pytest.approx(fresh.local(names[1], [names[0], names[2], names[3]])
                                          - fresh.local(names[1], [names[0], names[3]]), abs=1e-12)


# -- the equivalence class ------------------------------------------------------------------------------------------

def test_reversing_a_covered_arc_keeps_the_class_and_the_bdeu_score():
    data = random_data(6, 400, seed=8)
    scorer = Scorer(data, score="bdeu", ess=2.0)
    seen_covered = seen_other = 0
    for seed in range(12):
        graph = random_dag(data.names, seed=seed, p=0.5)
        for u, v in graph.arcs():
            covered = set(graph.parents(v)) == set(graph.parents(u)) | {u}  # Chickering 1995, by definition
            adj = edited(graph, "reverse", u, v)
            change = score_change(graph, ("reverse", u, v), scorer)
            if covered:
                seen_covered += 1
                assert abs(change.change) < 1e-9 and change.same_class
                assert change.now_compelled == change.now_reversible == change.added == change.removed == ()
            elif acyclic(adj):
                seen_other += 1
                after = bx.DAG(adj, data.names)
                # equivalence by Verma and Pearl: the same skeleton and v-structures
                assert set(after.v_structures()) != set(graph.v_structures())
                assert not change.same_class
    assert seen_covered > 5 and seen_other > 5


def test_arcs_now_compelled_and_reversible_are_the_cpdags_set_differences():
    data = random_data(6, 300, seed=9)
    scorer = Scorer(data)
    names = data.names
    checked = set()
    for seed in range(6):
        graph = random_dag(data.names, seed=seed)
        c0 = graph.cpdag()
        for kind, u, v in every_edit(graph):
            adj = edited(graph, kind, u, v)
            if not acyclic(adj):
                continue
            c1 = bx.DAG(adj, names).cpdag()
            a0, a1 = np.array(c0.adj, bool), np.array(c1.adj, bool)
            arc0, arc1 = a0 & ~a0.T, a1 & ~a1.T
            link0, link1 = a0 & a0.T, a1 & a1.T
            compelled = {(names[i], names[j]) for i, j in zip(*np.nonzero(arc1 & ~arc0))}
            reversible = {(names[i], names[j]) for i, j in zip(*np.nonzero(np.triu(link1 & (arc0 | arc0.T))))}
            change = score_change(graph, (kind, u, v), scorer)
            assert set(change.now_compelled) == compelled
            assert set(change.now_reversible) == reversible
            assert change.same_class == (np.array_equal(a0, a1))
            marks = lambda arc, link: ({(names[i], "→", names[j]) for i, j in zip(*np.nonzero(arc))}
                                       | {(names[i], "—", names[j]) for i, j in zip(*np.nonzero(np.triu(link)))})
            assert set(change.added) == marks(arc1, link1) - marks(arc0, link0)
            assert set(change.removed) == marks(arc0, link0) - marks(arc1, link1)
            checked.add((bool(compelled), bool(reversible)))
    assert checked == {(False, False), (True, False), (False, True), (True, True)}


# -- cycles and bad edits -------------------------------------------------------------------------------------------

def chain():
    data = random_data(4, 200, seed=10)
    names = data.names
    return data, bx.DAG.from_arcs([(names[0], names[1]), (names[1], names[2]), (names[2], names[3]),
                                   (names[1], names[3])], names)


def test_an_edit_closing_a_cycle_is_refused_with_the_shortest_cycle_named():
    data, graph = chain()
    scorer = Scorer(data)
    change = score_change(graph, ("add", "v3", "v0"), scorer)
    assert change.after is None and change.change == 0.0 and not change.same_class and change.nodes == ()
    assert change.cycle == ("v3", "v0", "v1", "v3")  # not the longer v3 → v0 → v1 → v2 → v3
    assert change.refused == "v3 → v0 would close the cycle v3 → v0 → v1 → v3"
    change = score_change(graph, ("reverse", "v1", "v3"), scorer)
    assert change.cycle == ("v3", "v1", "v2", "v3")
    assert change.refused == "reversing v1 → v3 gives v3 → v1, which would close the cycle v3 → v1 → v2 → v3"


@pytest.mark.parametrize("edit,kind,words", [
    (("add", "v0", "nope"), SearchError, "add v0 → nope: unknown node 'nope'; the network's nodes are v0, v1, v2, v3"),
    (("delete", "v0", "v2"), SearchError, "delete v0 → v2: v0 → v2 is not an arc of the network"),
    (("reverse", "v1", "v0"), SearchError, "reverse v1 → v0: v1 → v0 is not an arc of the network (v0 → v1 is)"),
    (("add", "v0", "v1"), SearchError, "add v0 → v1: v0 → v1 is already an arc of the network"),
    (("add", "v1", "v0"), SearchError, "add v1 → v0: the network has v0 → v1; two nodes take one arc"),
    (("add", "v2", "v2"), SearchError, "add v2 → v2: a node cannot be its own parent"),
    (("flip", "v0", "v1"), OptionError, "kind='flip' is not an edit kind: use one of add, delete, reverse"),
    (("add", "v0"), OptionError, "edit=('add', 'v0') is not an edit"),
    (("add", 0, 9), SearchError, "no node 9 in the network"),
])
def test_a_bad_edit_is_a_one_line_error_naming_it(edit, kind, words):
    data, graph = chain()
    with pytest.raises(kind) as caught:
        score_change(graph, edit, Scorer(data))
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_a_graph_of_other_variables_is_refused_naming_them():
    data, _ = chain()
    with pytest.raises(SearchError, match="graph has nodes the data does not: w"):
        Workbench(bx.DAG.empty(["v0", "w"]), Scorer(data))


def test_edits_by_index_and_by_edit_object_agree():
    data, graph = chain()
    scorer = Scorer(data)
    by_index = score_change(graph, ("add", 0, 2), scorer)
    assert by_index.edit == Edit("add", "v0", "v2") and str(by_index.edit) == "add v0 → v2"
    assert score_change(graph, Edit("add", "v0", "v2"), scorer) == by_index
    assert score_change(graph, Edit("add", 0, 2), scorer) == by_index  # an Edit may name nodes by index too


# -- the workbench -------------------------------------------------------------------------------------------------

def test_undo_and_redo_restore_the_graphs_and_the_bayes_factor_exactly():
    data = random_data(6, 400, seed=11)
    start = random_dag(data.names, seed=12)
    bench = Workbench(start, Scorer(data))
    rng = np.random.default_rng(13)
    graphs, factors = [start], [0.0]
    while len(graphs) < 12:
        kind = EDIT_KINDS[int(rng.integers(0, 3))]
        pairs = bench.candidates(kind)
        if not pairs:
            continue
        change = bench.apply((kind, *pairs[int(rng.integers(0, len(pairs)))]))
        if change.done:
            graphs.append(bench.graph)
            factors.append(bench.log_bayes_factor())
    fresh = Scorer(data)
    assert factors[-1] == pytest.approx(fresh.total(bench.graph) - fresh.total(start), abs=1e-9)
    assert factors[-1] == pytest.approx(sum(c.change for c in bench.history), abs=1e-9)
    for back in range(len(graphs) - 1, 0, -1):
        undone = bench.undo()
        assert undone.after == graphs[back] and bench.graph == graphs[back - 1]
        assert bench.log_bayes_factor() == factors[back - 1]
    assert bench.undo() is None and not bench.can_undo and bench.graph == start
    for forward in range(1, len(graphs)):
        assert bench.redo().after == graphs[forward] and bench.graph == graphs[forward]
        assert bench.log_bayes_factor() == factors[forward]
    assert bench.redo() is None and not bench.can_redo


def test_a_refused_edit_is_not_undoable_and_a_new_edit_clears_redo():
    data, graph = chain()
    bench = Workbench(graph, Scorer(data))
    assert not bench.apply(("add", "v3", "v0")).done
    assert bench.history == [] and not bench.can_undo and bench.graph == graph
    bench.apply(("delete", "v1", "v3"))
    bench.apply(("delete", "v2", "v3"))
    bench.undo()
    assert bench.can_redo
    refused = bench.apply(("add", "v2", "v0"))
    assert not refused.done and bench.can_redo  # a refused edit leaves redo alone
    bench.apply(("add", "v0", "v2"))
    assert not bench.can_redo and bench.redo() is None and len(bench.history) == 2


def test_candidates_and_class_moves_are_the_brute_force_lists():
    data = random_data(6, 300, seed=14)
    for seed in range(5):
        graph = random_dag(data.names, seed=seed)
        bench = Workbench(graph, Scorer(data))
        names = graph.names
        pairs = [(names[u], names[v]) for u, v in itertools.product(range(6), repeat=2)
                 if u != v and not graph.adj[u, v] and not graph.adj[v, u]]
        arcs = [(names[u], names[v]) for u, v in itertools.product(range(6), repeat=2) if graph.adj[u, v]]
        assert bench.candidates("add") == pairs
        assert bench.candidates("delete") == bench.candidates("reverse") == arcs
        covered = [(a, b) for a, b in arcs
                   if set(graph.parents(names.index(b))) == set(graph.parents(names.index(a))) | {names.index(a)}]
        assert bench.class_moves() == covered
    with pytest.raises(OptionError, match="kind='move'"):
        bench.candidates("move")


def test_the_public_names():
    assert {bx.Edit, bx.ScoreChange, bx.Workbench, bx.score_change} == {
        Edit, bx.workbench.ScoreChange, Workbench, score_change}
