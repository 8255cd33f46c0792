"""Every structure search under background knowledge (issue 15, section 2).

Each search on random small problems with random consistent knowledge returns
a graph that honours it; the exact search equals brute force over the DAGs
that honour it; credible sets under knowledge equal the unconstrained set
filtered by it; the knowledge-aware candidate parent sets, explorers, RPDAG
neighbourhoods and ordering kernels are checked against brute force. Short by
default; BNEXPLORE_FULL=1 runs more cases.
"""

import itertools
import os

import numpy as np
import pytest

import naive
from bnexplore.control import Control
from bnexplore.errors import SearchError
from bnexplore.graphs import DAG
from bnexplore.knowledge import Knowledge
from bnexplore.parents import ParentSets, candidate_parent_sets
from bnexplore.parents.explore import explore_parent_sets
from bnexplore.scores import Scorer
from bnexplore.search import ALGORITHMS, credible_set, exact_search, learn
from bnexplore.bnkl import bnkl
from bnexplore.search.exact import prepare_parent_sets
from bnexplore.search.ordering import Candidates, Climb
from bnexplore.search.ordering_kernels import swap_deltas
from bnexplore.search.rpdag import RpdagState, apply_operator, applicable_operators, honouring_extension
from fakes import StopAfter
from test_knowledge import honours, random_consistent_knowledge, random_problem

FULL = os.environ.get("BNEXPLORE_FULL") == "1"
ENGINES = ["dp", "ilp"]
FAST = {"obs": {"parents": "sequential", "max_evaluations": 30, "restarts": 2, "seed": 0},
        "asobs": {"parents": "sequential", "max_evaluations": 30, "restarts": 2, "seed": 0}}


def knowledge_case(seed, low=3, high=7, rows=300):
    """A random problem, random consistent knowledge, and an in-degree limit (3 on odd seeds when it fits)."""
    rng = np.random.default_rng(seed)
    data = random_problem(rng, int(rng.integers(low, high + 1)), rows=rows)
    knowledge = random_consistent_knowledge(rng, data.names)
    limit = 3 if seed % 2 and knowledge.bind(data).required.sum(axis=0).max() <= 3 else None
    return rng, data, knowledge, limit


def local_scores(scorer):
    """``{(v, parent mask): score}`` for every parent set of every node."""
    n = scorer.n_vars
    return {(v, sum(1 << u for u in ps)): scorer.local(v, ps) for v in range(n)
            for k in range(n) for ps in itertools.combinations([u for u in range(n) if u != v], k)}


def honours_mask(knowledge, names, dag):
    """:func:`test_knowledge.honours` for a DAG given as a tuple of parent masks."""
    n = len(names)
    adj = np.array([[(dag[v] >> u) & 1 for v in range(n)] for u in range(n)], np.uint8)
    return honours(knowledge, names, adj)


# -- every search ---------------------------------------------------------------

SEARCHES = list(ALGORITHMS) + ["exact-ilp"]


@pytest.mark.parametrize("algorithm", SEARCHES)
@pytest.mark.parametrize("seed", range(24 if FULL else 8))
def test_every_search_honours_random_knowledge(algorithm, seed):
    _, data, knowledge, limit = knowledge_case(seed)
    name, options = algorithm, dict(FAST.get(algorithm, {}))
    if algorithm == "exact-ilp":
        name, options = "exact", {"engine": "ilp"}
    result = learn(data, name, score=("bic", "bdeu")[seed % 2], max_indegree=limit, knowledge=knowledge, **options)
    assert honours(knowledge, data.names, result.graph.adj), knowledge.violations(result.graph)
    for u, v in knowledge.require:
        assert result.graph.adj[data.names.index(u), data.names.index(v)]
    if limit is not None:
        assert max(len(p) for p in result.graph.parent_sets()) <= limit
    assert result.params.get("knowledge") == (knowledge.to_json() if knowledge else None)


def test_contradictions_are_refused_before_any_work():
    _, data, _, _ = knowledge_case(0)
    a, b, c = data.names[:3]
    bad = [Knowledge(require=[(a, b), (b, a)]), Knowledge(require=[(a, b)], forbid=[(a, b)]),
           Knowledge(require=[(b, a)], tiers=[[a], [b]]), Knowledge(require=[(a, "nope")]),
           Knowledge(require=[(a, c), (b, c)])]
    for knowledge in bad:
        scorer = Scorer(data, "bic")
        calls = []
        for run in (lambda: learn(data, "hc", scorer=scorer, max_indegree=1, knowledge=knowledge,
                                  progress=calls.append),
                    lambda: credible_set(scorer, bf=3, max_indegree=1, knowledge=knowledge, progress=calls.append)):
            with pytest.raises(SearchError):
                run()
        for name in ALGORITHMS:
            with pytest.raises(SearchError):
                learn(data, name, scorer=scorer, max_indegree=1, knowledge=knowledge, progress=calls.append,
                      **FAST.get(name, {}))
        assert calls == [] and scorer.computed == 0


def test_bnkl_refuses_knowledge_with_a_clear_message():
    import pandas as pd

    frame = pd.DataFrame({"A": ["x", "y"] * 10, "B": ["u", "v", "v", "u"] * 5, "C": ["0", "1"] * 10})
    with pytest.raises(SearchError, match="BNKL does not take knowledge: its variable order comes from"):
        bnkl(frame, "C", knowledge=Knowledge(require=[("A", "B")]))


# -- the exact search against brute force ------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", range(30 if FULL else 10))
def test_exact_search_under_knowledge_equals_brute_force(engine, seed):
    _, data, knowledge, _ = knowledge_case(seed, 2, 5, rows=150)
    scorer = Scorer(data, ("bic", "bdeu")[seed % 2])
    bound = knowledge.bind(data)
    best = naive.constrained_optimum(local_scores(scorer), scorer.n_vars, bound.allowed.tolist(),
                                     bound.required.tolist())
    result = exact_search(scorer, engine=engine, knowledge=knowledge)
    assert result.score == pytest.approx(best, abs=1e-8)
    assert honours(knowledge, data.names, result.graph.adj) and result.stats["exact"]


def test_a_stopped_dp_still_returns_a_dag_honouring_the_knowledge():
    for seed in range(6):
        _, data, knowledge, _ = knowledge_case(seed, 6, 8)
        scorer = Scorer(data, "bic")
        sets = candidate_parent_sets(scorer, knowledge=knowledge)
        for k in range(2, scorer.n_vars):
            result = exact_search(scorer, parent_sets=sets, engine="dp", knowledge=knowledge, stop=StopAfter(k))
            assert result.stats["stopped"] and honours(knowledge, data.names, result.graph.adj)


def test_filtering_pruned_candidates_would_lose_the_constrained_optimum():
    """C copies B; A is noise. Unconstrained, {A, B} loses to its subset {B} and is pruned; with A -> C
    required (and C -> B forbidden) the lattice of C is {A}, {A, B}, where {A, B} wins and is the optimum:
    only knowledge-aware pruning keeps it."""
    rng = np.random.default_rng(1)
    b = rng.integers(0, 2, 400)
    codes = np.column_stack([rng.integers(0, 2, 400), b, np.where(rng.random(400) < 0.9, b, 1 - b)])
    from bnexplore.data import Dataset

    data = Dataset.from_codes(codes, arities=[2, 2, 2], names=["A", "B", "C"])
    scorer = Scorer(data, "bic")
    knowledge = Knowledge(require=[("A", "C")], forbid=[("C", "B")])
    assert (0, 1) not in candidate_parent_sets(scorer).sets(2)
    assert (0, 1) in candidate_parent_sets(scorer, knowledge=knowledge).sets(2)
    result = exact_search(scorer, knowledge=knowledge, engine="dp")
    assert result.graph.parents(2) == [0, 1]
    with pytest.raises(SearchError, match="not built under this knowledge"):
        prepare_parent_sets(scorer, candidate_parent_sets(scorer), None, 0.0, Control(), knowledge=knowledge)
    unpruned = candidate_parent_sets(scorer, rules=())  # no rule compares with subsets: filtering is exact
    assert prepare_parent_sets(scorer, unpruned, None, 0.0, Control(), knowledge=knowledge).sets(2) == \
        knowledge.bind(scorer).filter(unpruned).sets(2)


# -- credible sets: the unconstrained set filtered -----------------------------------

def knowledge_near(rng, dag, names):
    """Knowledge mostly agreeing with a DAG (so the constrained optimum stays close): some of its
    arcs required, some absent arcs forbidden, sometimes one of its arcs forbidden, sometimes tiers
    cut from its topological order."""
    arcs = [(names[u], names[v]) for u, v in zip(*np.nonzero(dag.adj))]
    absent = [(u, v) for u, v in itertools.permutations(names, 2)
              if (u, v) not in arcs and (v, u) not in arcs]
    require = [a for a in arcs if rng.random() < 0.3]
    forbid = [a for a in absent if rng.random() < 0.2]
    rest = [a for a in arcs if a not in require]
    if rest and rng.random() < 0.5:
        forbid.append(rest[int(rng.integers(len(rest)))])
    tiers = []
    if rng.random() < 0.4:
        order = [names[v] for v in dag.topological_order()]
        cut = int(rng.integers(1, len(order)))
        tiers = [order[:cut], order[cut:]]
    return Knowledge(require, forbid, (), tiers)


def assert_filtered_set(scorer, engine, knowledge, epsilon):
    """The credible set under knowledge = the unconstrained set at epsilon + (OPT - OPT_K), filtered
    by the knowledge, within epsilon of OPT_K (DAGs within 1e-6 of the cut may differ by rounding).
    Returns False when the unconstrained set was too large to collect."""
    constrained = credible_set(scorer, epsilon=epsilon, engine=engine, knowledge=knowledge)
    gap = credible_set(scorer, epsilon=0.0, engine=engine).opt - constrained.opt
    assert gap >= -1e-9
    every = credible_set(scorer, epsilon=epsilon + gap + 1e-6, engine=engine)
    if every.truncated_reason:
        return False
    names = scorer.names
    want = {tuple(m): s for m, s in zip(every.parent_masks.tolist(), every.scores)
            if honours_mask(knowledge, names, m) and s >= constrained.opt - epsilon - 1e-7}
    got = {tuple(m): s for m, s in zip(constrained.parent_masks.tolist(), constrained.scores)}
    for dag in set(want) ^ set(got):
        assert abs(max(want.get(dag, -np.inf), got.get(dag, -np.inf)) - (constrained.opt - epsilon)) < 1e-6
    for dag in set(want) & set(got):
        assert got[dag] == pytest.approx(want[dag], abs=1e-9)
    assert constrained.params["knowledge"] == knowledge.to_json()
    return True


@pytest.mark.parametrize("engine", ENGINES)
def test_credible_set_under_knowledge_is_the_filtered_unconstrained_set(engine):
    """n up to 8 with the DP, up to 6 with the ILP (its enumeration is slower); half the cases with
    random knowledge, half with knowledge near the optimum (so the unconstrained set stays small)."""
    rng = np.random.default_rng(11)
    compared = 0
    cases = (24 if FULL else 8) if engine == "dp" else (12 if FULL else 4)
    for case in range(cases):
        n = int(rng.integers(3, (9 if engine == "dp" else 7)))
        data = random_problem(rng, n, rows=int(rng.integers(100, 400)))
        scorer = Scorer(data, ("bic", "bdeu")[case % 2])
        if case % 2:
            knowledge = random_consistent_knowledge(rng, data.names)
        else:
            knowledge = knowledge_near(rng, exact_search(scorer).graph, data.names)
        if not knowledge:
            continue
        compared += assert_filtered_set(scorer, engine, knowledge, float(rng.uniform(0.5, 3.0)))
    assert compared >= cases // 2


def test_credible_set_under_knowledge_matches_brute_force():
    for seed in range(12 if FULL else 5):
        _, data, knowledge, _ = knowledge_case(seed, 3, 5, rows=120)
        scorer = Scorer(data, "bic")
        local = local_scores(scorer)
        scores = {dag: naive.dag_score(local, dag) for dag in naive.all_dags(scorer.n_vars)
                  if honours_mask(knowledge, data.names, dag)}
        opt = max(scores.values())
        for engine in ENGINES:
            found = credible_set(scorer, epsilon=2.0, engine=engine, knowledge=knowledge)
            assert found.opt == pytest.approx(opt, abs=1e-8)
            assert {tuple(m) for m in found.parent_masks.tolist()} == {d for d, s in scores.items()
                                                                       if s >= opt - 2.0 - 1e-9}


# -- candidate parent sets ----------------------------------------------------------------

def lattice(bound, v, limit=None):
    """Every parent set of ``v`` honouring the knowledge: its required parents plus allowed others."""
    required = tuple(bound.required_parents(v).tolist())
    free = [u for u in bound.allowed_parents(v).tolist() if u not in required]
    return [tuple(sorted(required + extra)) for k in range(len(free) + 1)
            for extra in itertools.combinations(free, k) if limit is None or len(required) + k <= limit]


@pytest.mark.parametrize("seed", range(20 if FULL else 8))
def test_candidate_parent_sets_under_knowledge_match_brute_force(seed):
    rng, data, knowledge, limit = knowledge_case(seed, 3, 6, rows=200)
    bound = knowledge.bind(data)
    for score in ("bic", "bdeu"):
        scorer = Scorer(data, score)
        every = candidate_parent_sets(scorer, rules=(), max_indegree=limit, knowledge=knowledge)
        epsilon = float(rng.choice([0.0, 1.0, 3.0]))
        subset_only = candidate_parent_sets(scorer, epsilon, limit, rules=("subset",), knowledge=knowledge)
        pruned = candidate_parent_sets(scorer, epsilon, limit, knowledge=knowledge)
        assert pruned.stats["knowledge"] == knowledge.to_json()
        for v in range(scorer.n_vars):
            sets = lattice(bound, v, limit)
            assert sorted(every.sets(v)) == sorted(sets)
            scores = {c: scorer.local(v, c) for c in sets}
            want = {c for c in sets if not any(set(d) < set(c) and scores[c] < scores[d] - epsilon - 1e-9
                                               for d in sets)}
            assert set(subset_only.sets(v)) == want
            assert tuple(bound.required_parents(v).tolist()) in pruned.sets(v) and set(pruned.sets(v)) <= want


@pytest.mark.parametrize("method", ["sequential", "greedy", "independence"])
def test_explorers_under_knowledge_start_from_the_required_parents(method):
    for seed in range(12 if FULL else 5):
        _, data, knowledge, _ = knowledge_case(seed, 3, 6, rows=200)
        bound = knowledge.bind(data)
        for score in ("bic", "bdeu"):
            scorer = Scorer(data, score)
            found = explore_parent_sets(scorer, method=method, max_indegree=scorer.n_vars - 1, knowledge=knowledge)
            for v in range(scorer.n_vars):
                sets = lattice(bound, v)
                scores = {c: scorer.local(v, c) for c in sets}
                undominated = {c for c in sets if all(scores[c] > scores[d] for d in sets if set(d) < set(c))}
                got = set(found.sets(v))
                assert tuple(bound.required_parents(v).tolist()) in got and got <= set(sets)
                if method != "independence":  # the full budget scores the whole lattice
                    assert got == undominated
                elif score == "bic":
                    assert got <= undominated


# -- RPDAG search ---------------------------------------------------------------------------

def random_rpdag(rng, names):
    n = len(names)
    order = rng.permutation(n)
    adj = np.zeros((n, n), np.uint8)
    for i, j in itertools.combinations(range(n), 2):
        if rng.random() < 0.4:
            adj[order[i], order[j]] = 1
    return DAG(adj, names).rpdag()


def test_honouring_extension_against_every_extension():
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(300 if FULL else 120):
        names = [f"X{i}" for i in range(int(rng.integers(2, 7)))]
        knowledge = random_consistent_knowledge(rng, names)
        rpdag = random_rpdag(rng, names)
        extensions = list(rpdag.dags())
        want = any(honours(knowledge, names, d.adj) for d in extensions)
        parents = honouring_extension(rpdag.adj, knowledge.bind(names))
        assert (parents is not None) == want
        if parents is not None:
            dag = DAG.from_parents(parents, names)
            assert honours(knowledge, names, dag.adj) and any((dag.adj == d.adj).all() for d in extensions)
            found += 1
    assert found > 20


def test_rpdag_neighbours_under_knowledge_are_those_that_can_honour_it():
    """The offered operators are exactly the applicable ones whose result has an extension honouring
    the knowledge (checked over every extension of the result)."""
    rng = np.random.default_rng(8)
    for _ in range(40 if FULL else 15):
        data = random_problem(rng, int(rng.integers(3, 6)), rows=100)
        names = data.names
        knowledge = random_consistent_knowledge(rng, names)
        bound = knowledge.bind(names)
        rpdag = random_rpdag(rng, names)
        if honouring_extension(rpdag.adj, bound) is None:
            continue
        state = RpdagState(Scorer(data, "bic"), rpdag, None, bound)
        offered = {(op, tuple(nodes)) for op, nodes, _ in state.scored_moves()}
        want = {(op, tuple(nodes)) for op, nodes in applicable_operators(rpdag)
                if any(honours(knowledge, names, d.adj) for d in apply_operator(rpdag, op, *nodes).dags())}
        assert offered == want


# -- ordering kernels with forced parents ---------------------------------------------------------

def forced_candidates(rng, n):
    """Random candidates where every set of v holds v's required parents (from a random DAG),
    the required set itself among them, with their candidate lists for the naive twins."""
    order = rng.permutation(n)
    lists = []
    for i, v in enumerate(order):
        required = tuple(sorted(int(u) for u in order[:i] if rng.random() < 0.3))
        others = [u for u in range(n) if u != v and u not in required]
        sets = {required}
        for _ in range(int(rng.integers(0, 6))):
            extra = rng.choice(others, int(rng.integers(1, min(3, len(others)) + 1)), replace=False) if others else []
            sets.add(tuple(sorted(required + tuple(int(u) for u in extra))))
        lists.append((int(v), [(c, float(rng.normal(-len(c), 2.0))) for c in sets]))
    lists = [items for _, items in sorted(lists)]
    sets = ParentSets([f"V{v}" for v in range(n)], lists, "bic")
    return sets, [list(zip(sets.sets(v), sets.scores(v).tolist())) for v in range(n)]


def test_ordering_kernels_with_forced_parents_match_naive():
    """Moves that put a node before a required parent score -inf, as the naive twins (no candidate fits)."""
    rng = np.random.default_rng(4)
    for _ in range(40 if FULL else 20):
        n = int(rng.integers(2, 7))
        sets, lists = forced_candidates(rng, n)
        cands = Candidates(sets)
        order = cands.respecting(rng.permutation(n))
        assert all(order.tolist().index(u) < order.tolist().index(v) for u, v in cands.forced.tolist())
        assert sorted(map(tuple, cands.forced.tolist())) == sorted(
            (u, v) for v, sets_v in enumerate(lists) for u in set.intersection(*(set(c) for c, _ in sets_v)))
        chosen, pos = cands.obs(order)
        assert (chosen >= 0).all()
        deltas = swap_deltas(cands.parents, cands.sizes, cands.scores, cands.offsets, order, pos, chosen)
        gains = naive.insertion_gains(cands.parents, cands.sizes, cands.scores, cands.offsets, order, pos, chosen)
        for j in range(n - 1):
            assert deltas[j] == pytest.approx(naive.obs_swap_gain(lists, order.tolist(), j), abs=1e-9)
        for v in range(n):
            for j in range(n):
                assert gains[v, j] == pytest.approx(naive.obs_insertion_gain(lists, order.tolist(), v, j), abs=1e-9)
        climb = Climb(cands, order)
        climb.run(Control(), {"swaps": 0, "insertions": 0})
        assert (climb.chosen >= 0).all()
        assert cands.score(climb.chosen) == pytest.approx(naive.obs_total(lists, climb.order.tolist()), abs=1e-9)


def test_ordering_search_with_given_candidates_filters_them_and_keeps_the_required_arcs():
    _, data, knowledge, _ = knowledge_case(3, 5, 7)
    scorer = Scorer(data, "bic")
    plain = explore_parent_sets(scorer, method="sequential", max_indegree=2)  # built without the knowledge
    for method in ("obs", "asobs"):
        for start in ("hc", None):
            result = learn(data, method, scorer=scorer, parents=plain, knowledge=knowledge, start=start, restarts=2,
                           seed=1)
            assert honours(knowledge, data.names, result.graph.adj)
    a, b = data.names[:2]
    with pytest.raises(SearchError, match=f"the start graph does not honour the knowledge: arc {a} -> {b} breaks"):
        learn(data, "asobs", scorer=scorer, parents=plain, knowledge=Knowledge(forbid=[(a, b)]),
              start=DAG.from_arcs([(a, b)], data.names))


def test_the_start_graph_gains_the_required_arcs_in_every_local_search():
    _, data, _, _ = knowledge_case(2, 5, 6)
    a, b, c = data.names[:3]
    knowledge = Knowledge(require=[(a, b)], forbid=[(b, c)])
    for name in ("hc", "tabu", "rpdag", "rpdag-tabu"):
        result = learn(data, name, score="bic", start=DAG.from_arcs([(a, c)], data.names), knowledge=knowledge)
        assert honours(knowledge, data.names, result.graph.adj)
        with pytest.raises(SearchError, match="forbidden edge X"):
            learn(data, name, score="bic", start=DAG.from_arcs([(b, c)], data.names),
                  knowledge=Knowledge(require=[(a, b)], forbid_edges=[(b, c)]))
    # an RPDAG search starts from the start graph's class: a member honouring the knowledge will do
    rpdag = learn(data, "rpdag", score="bic", start=DAG.from_arcs([(b, c)], data.names), knowledge=knowledge)
    assert honours(knowledge, data.names, rpdag.graph.adj)
