"""The integer-programming engine: separation kernels against brute force, the
optimum and the credible set against brute force over every DAG and against the
subset DP, published optima, arc constraints, stop and time limit with a true
gap, the engine choice, and the progress and trajectory the app draws."""

import collections
import itertools
import math
import os
from pathlib import Path

import numpy as np
import pytest

import naive
from bnexplore import cli, resources
from bnexplore.control import Control
from bnexplore.data import Dataset, read_csv
from bnexplore.errors import ResourceError, SearchError
from bnexplore.graphs import DAG
from bnexplore.parents import ParentSets
from bnexplore.parents.pruning import candidate_parent_sets, tolerance
from bnexplore.scores import Scorer
from bnexplore.search import choose_engine, classes, credible_set, cuts, exact_search, ilp, kbest, learn, neighbours
from bnexplore.search import subsets
from bnexplore.search.credible import solve as credible_solve
from bnexplore.search.subsets import CandidateArrays
from bnexplore.search.ordering import Candidates as OrderCandidates
from fakes import FakeClock, StopAfter
from test_exact import all_local_scores
from test_pruning import dependent_data

from bnexplore.search.ilp import branch_and_cut, enumeration, model

FULL = os.environ.get("BNEXPLORE_FULL") == "1"
EBNSL = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "ebnsl"


def as_set(cs):
    return {tuple(int(m) for m in row) for row in cs.parent_masks}


# -- kernels ---------------------------------------------------------------------------

def random_point(seed, n, per_node=4, integral=False):
    """Random families (the empty set first) and a point with one unit of mass per node."""
    rng = np.random.default_rng(seed)
    families, x = [], []
    offsets = [0]
    for v in range(n):
        others = [u for u in range(n) if u != v]
        masks = {0}
        while len(masks) < per_node:
            size = int(rng.integers(1, min(3, n - 1) + 1))
            masks.add(sum(1 << int(u) for u in rng.choice(others, size, replace=False)))
        masks = sorted(masks)
        if integral:
            w = np.zeros(len(masks))
            w[rng.integers(len(masks))] = 1.0
        else:
            w = rng.dirichlet(np.full(len(masks), 0.5))
        families += [(v, m) for m in masks]
        x += w.tolist()
        offsets.append(len(families))
    masks = np.array([m for _, m in families], np.int64)
    return families, np.array(x), masks, np.array(offsets, np.int64)


@pytest.mark.parametrize("seed", range(6))
def test_cluster_values_and_exact_search_match_brute_force(seed):
    n = 6
    families, x, masks, offsets = random_point(seed, n)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        cluster = int(rng.integers(1, 1 << n))
        for k in (1, 2):
            assert cuts.cluster_value(x, masks, offsets, np.int64(cluster), k) == pytest.approx(
                naive.k_cluster_value(families, x, cluster, k), abs=1e-12)
    full = np.int64((1 << n) - 1)
    for k in (1, 2):
        best, where = naive.most_violated(families, x, n, k)
        cluster, value, steps = cuts.exact_min(x, masks, offsets, full, k, np.inf, 10**7)
        assert steps <= 10**7 and value == pytest.approx(best, abs=1e-9) and int(cluster) in where
        limited, _, _ = cuts.exact_min(x, masks, offsets, full, k, best - 1e-6, 10**7)
        assert limited == 0                                   # nothing below a limit under the minimum


@pytest.mark.parametrize("seed", range(8))
def test_separation_returns_only_violated_cuts_and_misses_none(seed):
    n = 7
    families, x, masks, offsets = random_point(seed, n, per_node=3)
    clusters, ks, complete = cuts.separate(x, masks, offsets, 2, 1e-4, 64, branch_and_cut.TAUS, 10**7)
    for cluster, k in zip(clusters.tolist(), ks.tolist()):
        assert bin(cluster).count("1") > k
        assert naive.k_cluster_value(families, x, cluster, k) <= k - 1e-4 + 1e-12
    violated = [naive.most_violated(families, x, n, k)[0] < k - 1e-4 for k in (1, 2)]
    assert (len(clusters) > 0) == any(violated)
    assert complete == (not any(violated))


@pytest.mark.parametrize("seed", range(5))
def test_local_searches_report_the_value_of_what_they_return(seed):
    n = 8
    families, x, masks, offsets = random_point(seed, n)
    full = np.int64((1 << n) - 1)
    for k in (1, 2):
        start_value = cuts.cluster_value(x, masks, offsets, full, k)
        for search in (cuts.descend_cluster, lambda *a: cuts.improve_cluster(*a[:4], full, a[4])):
            cluster, value = search(x, masks, offsets, full, k)
            assert bin(int(cluster)).count("1") > k
            assert value == pytest.approx(naive.k_cluster_value(families, x, int(cluster), k), abs=1e-12)
            assert value <= start_value + 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_strong_components_and_peeling(seed):
    n = 8
    families, x, masks, offsets = random_point(seed, n, per_node=2)
    par = cuts.support_parents(x, masks, offsets, 0.2)
    expected_par = [0] * n
    for (v, m), value in zip(families, x):
        if value > 0.2:
            expected_par[v] |= m
    assert par.tolist() == expected_par
    nodes = int(np.random.default_rng(seed).integers(1, 1 << n))
    assert set(cuts.strong_components(par, np.int64(nodes)).tolist()) == naive.strong_components(expected_par, nodes)
    rest = int(cuts.peel(x, masks, offsets, 0.2))
    placed = (1 << n) - 1 & ~rest
    for (v, m), value in zip(families, x):        # nothing left could still be placed
        if (rest >> v) & 1 and value > 0.2:
            assert m & ~placed != 0


@pytest.mark.parametrize("seed", range(30))
def test_integer_cycles_find_cycles_exactly_when_cyclic(seed):
    rng = np.random.default_rng(seed)
    n = 7
    parents = [int(sum(1 << int(u) for u in range(n) if u != v and rng.random() < 0.2)) for v in range(n)]
    cycles = cuts.integer_cycles(np.array(parents, np.int64)).tolist()
    assert (len(cycles) == 0) == naive.is_acyclic(parents)
    seen = 0
    for cycle in cycles:
        assert naive.is_cycle(parents, cycle) and cycle & seen == 0
        seen |= cycle


@pytest.mark.parametrize("seed", range(6))
def test_sink_order_and_order_families_match_their_twins(seed):
    n = 7
    families, x, masks, offsets = random_point(seed, n)
    rng = np.random.default_rng(seed)
    scores = np.concatenate([np.sort(rng.normal(-10, 3, offsets[v + 1] - offsets[v]))[::-1] for v in range(n)])
    order = cuts.sink_order(x, scores, masks, offsets)
    assert order.tolist() == naive.sink_order(families, x, scores, n)
    chosen = cuts.order_families(masks, offsets, order)
    assert chosen.tolist() == naive.order_families(families, scores, order.tolist())
    assert naive.is_acyclic([int(masks[f]) for f in chosen])


@pytest.mark.parametrize("k", [1, 2])
def test_cut_families_take_the_shorter_equivalent_form(k):
    families, x, masks, offsets = random_point(3, 6)
    for cluster in (0b111, 0b110110, 0b111111):
        fams, inside = cuts.cut_families(masks, offsets, np.int64(cluster), k)
        of_cluster = [f for f, (v, _) in enumerate(families) if (cluster >> v) & 1]
        many = [f for f in of_cluster if bin(int(masks[f]) & cluster).count("1") >= k]
        few = [f for f in of_cluster if f not in many]
        assert sorted(fams.tolist()) == (many if inside else few) and len(fams) == min(len(many), len(few))


def test_four_b_inequalities_hold_for_every_dag_and_cut_points_cluster_cuts_allow():
    """Validity: at every DAG on 5 nodes every 4B sum is at most 2 (the node outside the
    four does not matter). Strength: a point satisfying every cluster constraint exceeds 2."""
    n = 5
    families = [(v, m) for v in range(n) for m in range(1 << n) if not (m >> v) & 1]
    masks = np.array([m for _, m in families], np.int64)
    offsets = np.array([0, *itertools.accumulate(1 << (n - 1) for _ in range(n))], np.int64)
    index = {fam: f for f, fam in enumerate(families)}
    quads = [(a, b, c, d) for a, b in itertools.combinations(range(n), 2)
             for c, d in itertools.combinations([u for u in range(n) if u not in (a, b)], 2)]
    for dag in naive.all_dags(n):
        x = np.zeros(len(families))
        x[[index[v, m] for v, m in enumerate(dag)]] = 1.0
        assert max(cuts.four_b_value(x, masks, offsets, *q) for q in quads) <= 2.0
    # the LP's most violating point on four nodes (a = 0, b = 1, c = 2, d = 3; node 4 apart): halves of
    # a <- {} | {c, d},  b <- {a} | {a, c, d},  c <- {} | {a, b, d},  d <- {} | {a, b, c}
    point = {(0, 0b0000): 0.5, (0, 0b1100): 0.5, (1, 0b0001): 0.5, (1, 0b1101): 0.5,
             (2, 0b0000): 0.5, (2, 0b1011): 0.5, (3, 0b0000): 0.5, (3, 0b0111): 0.5, (4, 0): 1.0}
    x = np.zeros(len(families))
    for fam, value in point.items():
        x[index[fam]] = value
    assert cuts.four_b_value(x, masks, offsets, 0, 1, 2, 3) == pytest.approx(2.5)
    assert min(naive.k_cluster_value(families, x, cluster, 1) for cluster in range(1, 1 << n)
               if bin(cluster).count("1") >= 2) >= 1.0 - 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_four_b_separation_matches_brute_force(seed):
    n = 7
    families, x, masks, offsets = random_point(seed, n, per_node=4)
    quads = [(a, b, c, d) for a, b in itertools.combinations(range(n), 2)
             for c, d in itertools.combinations([u for u in range(n) if u not in (a, b)], 2)]
    values = {q: naive.four_b_value(families, x, *q) for q in quads}
    for q in quads:
        assert cuts.four_b_value(x, masks, offsets, *q) == pytest.approx(values[q], abs=1e-12)
        fams = cuts.four_b_families(masks, offsets, *q).tolist()
        expected = [f for f in range(len(families)) if naive.four_b_value(families, np.eye(len(families))[f], *q)]
        assert sorted(fams) == expected
    violated = sorted((v - 2.0 for v in values.values() if v - 2.0 >= 1e-3), reverse=True)
    for max_cuts in (3, 500):
        found, excess = cuts.separate_four_b(x, masks, offsets, 1e-3, max_cuts)
        assert excess.tolist() == pytest.approx(violated[:max_cuts], abs=1e-12)
        for q, e in zip(found.tolist(), excess.tolist()):
            assert values[tuple(q)] - 2.0 == pytest.approx(e, abs=1e-12)


@pytest.mark.parametrize("n", [4, 5])
def test_equivalence_classes_by_covered_arc_reversals(n):
    """Every Markov equivalence class of every DAG on 4 and 5 nodes: the reversal search lists it exactly,
    the canonical member lies in it and has no covered arc from a higher to a lower index, which every
    class keeps at least one member without (the covered-arc constraints cut no class)."""
    from collections import defaultdict

    by_key = defaultdict(set)
    for dag in naive.all_dags(n):
        by_key[naive.mec_key(dag)].add(dag)
    for members in by_key.values():
        assert any(all(u < v for u, v in naive.covered_arcs(dag)) for dag in members)
    for dag in naive.all_dags(n)[::5]:
        listed = [tuple(m.tolist()) for m in classes.equivalence_class(np.array(dag, np.int64))]
        assert len(listed) == len(set(listed)) and set(listed) == by_key[naive.mec_key(dag)]
        canonical = tuple(classes.canonical_member(np.array(dag, np.int64)).tolist())
        assert canonical in by_key[naive.mec_key(dag)]
        assert all(u < v for u, v in naive.covered_arcs(canonical))
        assert sorted(bin(m).count("1") for m in canonical) == sorted(bin(m).count("1") for m in dag)
    complete = np.array([(1 << v) - 1 for v in range(7)], np.int64)   # a complete DAG: its class is all 7! orders
    members = classes.equivalence_class(complete)
    assert (members[0] == complete).all() and len({m.tobytes() for m in members}) == len(members) == 5040
    assert all(naive.is_acyclic(m.tolist()) and sum(bin(p).count("1") for p in m) == 21 for m in members)


@pytest.mark.parametrize("seed", range(3))
def test_member_families_match_their_twin(seed):
    """Random candidate lists (some nodes with none) and random member DAGs, half of whose parent sets are
    candidates: the binary searches of ``member_families`` give the dictionary lookups' indices."""
    rng = np.random.default_rng(seed)
    n = 6
    lists = [[]] + [list({int(m) & ~(1 << v) for m in rng.integers(0, 1 << n, size=int(rng.integers(1, 12)))})
                    for v in range(1, n)]                            # node 0 has no candidate
    rng.shuffle(lists[1])                                            # candidates come best first, not sorted
    masks = np.array([m for rows in lists for m in rows], np.int64)
    offsets = np.cumsum([0] + [len(rows) for rows in lists]).astype(np.int64)
    members = np.array([[rng.choice(rows) if rows and rng.random() < 0.5 else int(rng.integers(0, 1 << n))
                         for rows in lists] for _ in range(40)], np.int64)
    got = classes.member_families(members, *ilp.sorted_families(masks, offsets), offsets)
    expected = naive.member_families(members, masks, offsets)
    assert (got == expected).all() and (expected >= 0).any() and (expected < 0).any()


@pytest.mark.parametrize("seed", range(4))
def test_family_changes_match_their_twin(seed):
    """Random DAGs over random candidate lists (best first, as :class:`CandidateArrays` keeps them): the one-family
    changes the kernel lists, with its best-first early stop, are exactly those the twin finds by trying
    every candidate and peeling sources (acyclicity), at several least gains."""
    rng = np.random.default_rng(seed)
    for _ in range(8):
        n = int(rng.integers(3, 8))
        order = rng.permutation(n).tolist()
        masks, scores, offsets, chosen = [], [], [0], []
        for v in range(n):
            earlier = sum(1 << u for u in order[:order.index(v)])
            own = int(rng.integers(0, 1 << n)) & earlier                      # a parent set keeping a DAG
            rows = list({own} | {int(m) & ~(1 << v) for m in rng.integers(0, 1 << n, size=int(rng.integers(1, 10)))})
            values = rng.normal(size=len(rows))
            best_first = np.argsort(-values)
            rows = [rows[i] for i in best_first]
            chosen.append(offsets[-1] + rows.index(own))
            masks += rows
            scores += values[best_first].tolist()
            offsets.append(len(masks))
        arrays = (np.array(chosen, np.int64), np.array(masks, np.int64), np.array(scores), np.array(offsets, np.int64))
        for least in (-math.inf, -1.0, 0.0):
            nodes, families = neighbours.family_changes(*arrays, least)
            assert sorted(zip(nodes.tolist(), families.tolist())) == naive.family_changes(*arrays, least)


@pytest.mark.parametrize("score, seed", [("bic", 0), ("bdeu", 1), ("bic", 3)])
def test_exploration_records_the_credible_dags_connected_to_the_optimum_and_the_tree_finds_the_rest(score, seed):
    """Exploring from the optimum records exactly the credible DAGs a brute-force search reaches from it by
    one-family changes and Markov equivalence, each once; the tree search alone, and the two together, give
    the brute-force credible set."""
    n = 5
    scorer = Scorer(dependent_data(seed, n, 40), score)
    every, opt = naive.credible_dags(all_local_scores(scorer), n, math.inf, 0.0)
    eps = 3.0
    threshold = opt - eps - tolerance(opt)
    expected = {dag for dag, s in every.items() if s >= threshold}
    best = max(expected, key=every.get)
    cands = CandidateArrays(candidate_parent_sets(scorer, epsilon=eps))
    problem = model.Problem(cands, covered=True, branching=False)
    run = enumeration.EnumerationRun(problem, Control(), kbest.Collector(n, threshold, 10 ** 5))
    start = problem.families(np.array(best, np.int64))
    run.explore(run.record_class(cands.masks[start], float(cands.scores[start].sum())))
    explored = run.collector.masks[:run.collector.count].tolist()
    assert len(explored) == len({tuple(row) for row in explored}) == run.collector.count
    assert {tuple(row) for row in explored} == naive.connected_credible(expected, best)
    for explore in (False, True):
        found, out = ilp.enumerate_credible(cands, threshold, 10 ** 5, Control(), opt, covered=True,
                                        start=np.array(best, np.int64), explore=explore)
        assert out.optimal and (out.stats["explored"] > 0) == explore
        assert found.count == len(expected) and {tuple(r) for r in found.masks[:found.count].tolist()} == expected


# -- the optimum ---------------------------------------------------------------------------

@pytest.mark.parametrize("score", ["bic", "bdeu"])
@pytest.mark.parametrize("seed", range(3))
def test_optimum_equals_brute_force(score, seed):
    data = dependent_data(seed, 5, [30, 100, 400][seed])
    scorer = Scorer(data, score)
    local = all_local_scores(scorer)
    best = max(naive.dag_score(local, dag) for dag in naive.all_dags(5))
    result = exact_search(scorer, engine="ilp")
    assert isinstance(result.graph, DAG)
    assert result.score == pytest.approx(best, abs=1e-9) and result.stats["opt"] == pytest.approx(best, abs=1e-9)
    assert result.stats["exact"] and result.stats["gap"] == 0 and result.stats["bound"] == result.score
    assert result.stats["engine"] == "ilp" and result.stats["stopped"] is None
    assert "optimal" in result.stats["message"]


@pytest.mark.parametrize("branching", [True, False])
def test_dag_variables_satisfy_every_row_of_the_model(branching):
    """The seed and the heuristic's DAGs are handed to SCIP through ``dag_variables``: every DAG must be feasible."""
    scorer = Scorer(dependent_data(2, 5, 200), "bic")
    local = all_local_scores(scorer)
    cands = CandidateArrays(ParentSets(scorer.names, [[(naive.members(m), s) for (w, m), s in local.items() if w == v]
                                                 for v in range(5)], "bic"))
    problem = model.Problem(cands, branching=branching)
    assert bool(problem.adjacencies) == bool(problem.arrows) == branching
    assert not branching or len(problem.adjacencies) == 10
    for dag in itertools.islice(naive.all_dags(5), 0, None, 97):
        chosen = problem.families(np.array(dag, np.int64))
        sol = problem.model.createSol()
        ones = problem.dag_variables(chosen)
        for var in ones:
            problem.model.setSolVal(sol, var, 1.0)
        assert problem.model.checkSol(sol), dag
        arcs = sum(bin(m).count("1") for m in dag)
        assert len(ones) == 5 + (2 * arcs if branching else 0)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tiny_problems(n):
    scorer = Scorer(dependent_data(0, n, 50), "bic")
    assert exact_search(scorer, engine="ilp").score == pytest.approx(exact_search(scorer, engine="dp").score,
                                                                    abs=1e-9)
    assert as_set(credible_set(scorer, epsilon=5.0, engine="ilp")) == as_set(
        credible_set(scorer, epsilon=5.0, engine="dp"))


def test_the_seed_spends_a_fixed_work_budget_and_keeps_the_best_restart():
    fewest, most = ilp.SEED_RESTARTS
    assert ilp.seed_restarts(1) == most and ilp.seed_restarts(10 ** 12) == fewest
    assert ilp.seed_restarts(ilp.SEED_WORK // 50) == 50
    scorer = Scorer(dependent_data(11, 11, 250, noise=0.3), "bic")
    parent_sets = candidate_parent_sets(scorer, max_indegree=3)
    order = OrderCandidates(parent_sets)
    chosen, score = ilp.seed_incumbent(order, Control())
    few, few_score = ilp.seed_incumbent(order, Control(), restarts=fewest)
    cands = CandidateArrays(parent_sets)
    assert naive.is_acyclic(cands.masks[chosen].tolist())
    assert score == pytest.approx(cands.scores[chosen].sum(), abs=1e-9)
    assert score >= few_score - 1e-9                                  # the same first restarts, then more
    assert score <= exact_search(scorer, parent_sets=parent_sets, engine="dp").score + 1e-9


@pytest.mark.parametrize("score", ["bic", "bdeu"])
@pytest.mark.parametrize("seed", range(4))
def test_ilp_and_dp_agree_on_random_problems(score, seed):
    n = [9, 11, 13, 16][seed]
    scorer = Scorer(dependent_data(10 + seed, n, 150 + 100 * seed, noise=0.3), score)
    parent_sets = candidate_parent_sets(scorer, max_indegree=3 if n > 13 else None)
    dp = exact_search(scorer, parent_sets=parent_sets, engine="dp")
    ip = exact_search(scorer, parent_sets=parent_sets, engine="ilp")
    assert ip.score == pytest.approx(dp.score, abs=1e-8 * abs(dp.score))
    assert ip.stats["exact"] and scorer.total(ip.graph) == ip.score


def test_forbidden_and_required_arcs_fix_families():
    scorer = Scorer(dependent_data(4, 5, 200), "bic")
    local = all_local_scores(scorer)
    cands = CandidateArrays(ParentSets(scorer.names, [[(naive.members(m), s) for (w, m), s in local.items() if w == v]
                                                 for v in range(5)], "bic"))
    rng = np.random.default_rng(0)
    for trial in range(4):
        allowed = rng.random((5, 5)) > 0.3
        required = np.zeros((5, 5), bool)
        if trial % 2:
            u, v = rng.choice(5, 2, replace=False)
            allowed[u, v], required[u, v] = True, True
        expected = naive.constrained_optimum(local, 5, allowed.tolist(), required.tolist())
        out = ilp.optimum(cands, None, Control(), allowed=allowed, required=required)
        assert out.optimal and out.score == pytest.approx(expected, abs=1e-9)
        dag = out.parents.tolist()
        assert all(allowed[u, v] or not (dag[v] >> u) & 1 for u in range(5) for v in range(5) if u != v)
        assert all(not required[u, v] or (dag[v] >> u) & 1 for u in range(5) for v in range(5))


def costs_optima():
    import gzip

    out = {}
    with gzip.open(EBNSL / "costs.csv.gz", "rt") as f:
        next(f)
        for line in f:
            parts = [p.strip() for p in line.replace("\t", "").split(",")]
            if parts[2] not in ("", "NA"):
                out[parts[0]] = float(parts[2])
    return out


COSTS_ROWS = [("iris", "iris_BIC"), ("iris", "iris_BDe"), ("tic-tac-toe", "tic-tac_BIC"),
              ("tic-tac-toe", "tic-tac_BDe"), ("insurance1000", "insurance1000_BIC")]
COSTS_ROWS_SLOW = [("lung-cancer", "lung-cancer_BIC"), ("sponge", "sponge_BIC"), ("mildew1000", "mildew1000_BIC"),
                   ("barley1000", "barley1000_BIC"), ("hailfinder100", "hailfinder100_BIC")]


@pytest.mark.parametrize("name, key", COSTS_ROWS + [pytest.param(*row, marks=pytest.mark.slow) for row in COSTS_ROWS_SLOW
                                                    if FULL or row[0] == "lung-cancer"])
def test_optimum_equals_costs_csv(name, key):
    """The rows of costs.csv whose data and arities match the eBNSL files (BENCHMARKS.md lists the others).

    costs.csv gives each optimum by three solvers (CPBayes, GOBNILP, A*) that
    disagree with each other by up to 4e-3 on the larger rows (single-precision
    local scores, apparently): the GOBNILP column must agree within 2e-7 of
    the score's size."""
    data = read_csv(EBNSL / f"{name}.csv.gz", header=False, types="categorical")
    score = "bdeu" if key.endswith("BDe") else "bic"
    result = exact_search(Scorer(data, score), engine="ilp")
    published = costs_optima()[key]
    assert result.stats["exact"]
    assert result.score == pytest.approx(published, abs=1e-5 + 2e-7 * abs(published))


@pytest.mark.parametrize("name", ["wine", "zoo"])
def test_an_optimum_proven_with_four_b_cuts_is_the_dps(name):
    """wine and zoo are the small eBNSL rows where the LP needs 4B cuts: the ILP's optimum still equals the DP's."""
    scorer = Scorer(read_csv(EBNSL / f"{name}.csv.gz", header=False, types="categorical"), "bic")
    ilp_result = exact_search(scorer, engine="ilp")
    assert ilp_result.stats["four_b_cuts"] > 0 and ilp_result.stats["exact"]
    assert ilp_result.score == pytest.approx(exact_search(scorer, engine="dp").score, abs=1e-8)


# -- credible sets ---------------------------------------------------------------------------

@pytest.mark.parametrize("score, n, seed, rows", [(score, *case) for score in ("bic", "bdeu")
                                                  for case in [(4, 0, 30), (5, 1, 40), (5, 2, 120)]]
                         + [("k2", 5, 1, 40)])      # K2 is not score equivalent: no covered-arc constraints
def test_credible_set_equals_brute_force(score, n, seed, rows):
    scorer = Scorer(dependent_data(seed, n, rows), score)
    every, opt = naive.credible_dags(all_local_scores(scorer), n, math.inf, 0.0)
    for eps in (0.0, 1.0, 3.0):
        expected = {dag for dag, s in every.items() if s >= opt - eps - tolerance(opt)}
        cs = credible_set(scorer, epsilon=eps, engine="ilp")
        assert cs.opt == pytest.approx(opt, abs=1e-9) and not cs.truncated and cs.complete_epsilon == eps
        assert len(cs) == len(as_set(cs)) == len(expected) and as_set(cs) == expected
        assert all(naive.is_acyclic(list(dag)) for dag in as_set(cs))
        assert cs.stats["engine"] == "ilp"


@pytest.mark.parametrize("seed", range(2))
def test_dags_exactly_on_the_threshold_are_kept(seed):
    """Reduced-cost fixing against the objective limit (weak dual reductions) drops nothing at the limit:
    with epsilon equal to OPT minus the score of the k-th best DAG, that DAG is in the set."""
    n = 5
    scorer = Scorer(dependent_data(40 + seed, n, 60), "bic")
    every, opt = naive.credible_dags(all_local_scores(scorer), n, math.inf, 0.0)
    levels = sorted({round(s, 9) for s in every.values()}, reverse=True)
    for k in (1, 4, 12):
        eps = opt - levels[k]
        expected = {dag for dag, s in every.items() if s >= opt - eps - tolerance(opt)}
        assert any(abs(every[dag] - levels[k]) < 1e-8 for dag in expected)
        cs = credible_set(scorer, epsilon=eps, engine="ilp")
        assert as_set(cs) == expected


def test_a_full_collector_rejects_what_cannot_enter_and_marks_the_overflow():
    collector = kbest.Collector(2, threshold=-10.0, limit=2)
    assert collector.add(np.array([0, 1], np.int64), -1.0) and collector.add(np.array([2, 0], np.int64), -2.0)
    assert collector.heap is not None and collector.overflow == 0
    assert not collector.rejects(-1.5)                                 # better than the worst kept
    assert collector.rejects(-20.0) and collector.overflow == 0        # below the threshold: never credible
    assert collector.rejects(-5.0) and collector.overflow == 1 and collector.threshold == -2.0
    assert not kbest.Collector(2, threshold=-10.0, limit=5).rejects(-9.0)  # not full: everything credible enters


def test_a_collector_dates_the_moment_it_first_holds_the_limit():
    clock = FakeClock(step=2.0)
    collector = kbest.Collector(2, threshold=-10.0, limit=2, clock=clock)
    collector.add(np.array([0, 1], np.int64), -1.0)
    assert collector.full_at is None and clock.now == 0.0              # not full: the clock is not read
    clock.now = 40.0
    collector.add(np.array([2, 0], np.int64), -2.0)
    assert collector.full_at == 42.0                                   # read once, when the limit is held
    collector.add(np.array([0, 0], np.int64), -0.5)                    # a better DAG replaces the worst kept
    assert collector.full_at == 42.0 and clock.now == 42.0


@pytest.mark.parametrize("score", ["bic", "bdeu"])
@pytest.mark.parametrize("seed", range(3))
def test_ilp_and_dp_credible_sets_agree(score, seed):
    n = [7, 9, 11][seed]
    scorer = Scorer(dependent_data(20 + seed, n, 120, noise=0.3), score)
    for eps in (0.5, 2.0):
        parent_sets = candidate_parent_sets(scorer, epsilon=eps, max_indegree=2)
        dp = credible_set(scorer, epsilon=eps, parent_sets=parent_sets, engine="dp")
        ip = credible_set(scorer, epsilon=eps, parent_sets=parent_sets, engine="ilp")
        assert len(dp) < 2000                            # keeps the test short
        assert ip.opt == pytest.approx(dp.opt, abs=1e-8 * abs(dp.opt))
        assert len(ip) == len(as_set(ip)) and as_set(ip) == as_set(dp)
        assert all(naive.is_acyclic(row.tolist()) for row in ip.parent_masks)
        assert len(ip.classes) == len(dp.classes) and len(ip.rpdag_classes) == len(dp.rpdag_classes)


def test_the_limit_keeps_the_same_best_dags_as_the_dp():
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    full = credible_set(scorer, epsilon=4.0, engine="dp")
    for limit in (len(full) // 3, 25):
        dp = credible_set(scorer, epsilon=4.0, limit=limit, engine="dp")
        ip = credible_set(scorer, epsilon=4.0, limit=limit, engine="ilp")
        assert ip.stats["objective_limit_raised"] > 0                    # SCIP's own pruning followed the threshold
        assert ip.truncated and ip.truncated_reason == dp.truncated_reason
        assert ip.complete_epsilon == pytest.approx(dp.complete_epsilon, abs=1e-9) if dp.complete_epsilon else True
        assert as_set(ip) == as_set(dp)


def test_a_limit_inside_groups_of_tied_dags_gives_the_dps_set():
    """A duplicated column makes groups of DAGs with equal scores (24, 20, 40, ... from the optimum down):
    limits inside a group, equal to one and spanning two drop the same tied DAGs as the DP, and say so."""
    d = dependent_data(0, 5, 60, noise=0.4)
    data = Dataset.from_codes(np.column_stack([d.codes, d.codes[:, 1]]), arities=np.append(d.arities, d.arities[1]))
    scorer = Scorer(data, "bic")
    full = credible_set(scorer, epsilon=5.0, engine="dp")
    levels = sorted(collections.Counter(np.round(full.scores, 6)).items(), reverse=True)
    assert [count for _, count in levels[:2]] == [24, 20]
    for limit, kept in ((12, 12), (24, 24), (34, 24), (44, 24)):
        dp = credible_set(scorer, epsilon=5.0, limit=limit, engine="dp")
        ip = credible_set(scorer, epsilon=5.0, limit=limit, engine="ilp")
        assert len(ip) == len(dp) == kept
        assert ip.truncated and ip.truncated_reason == dp.truncated_reason
        assert (ip.complete_epsilon is None) == (dp.complete_epsilon is None) == (limit <= 24)
        if dp.complete_epsilon is None:                 # which of the 24 optimal DAGs are held is arbitrary
            assert np.allclose(ip.scores, full.opt) and np.allclose(dp.scores, full.opt)
            assert f"all {limit} DAGs held tie with the optimum" in ip.truncated_reason
        else:
            assert as_set(ip) == as_set(dp)
            assert ip.complete_epsilon == pytest.approx(dp.complete_epsilon, abs=1e-9)


def test_a_full_collector_prunes_dags_tied_with_the_worst_kept_only_after_an_overflow():
    collector = kbest.Collector(2, threshold=-10.0, limit=2, slack=0.5)
    for row, score in (([0, 1], -1.0), ([2, 0], -2.0)):
        assert collector.add(np.array(row, np.int64), score)
    assert collector.floor() == -10.0 and not collector.rejects(-2.0)   # a tie may mean more DAGs exist
    assert not collector.add(np.array([0, 0], np.int64), -2.0) and collector.overflow == 1
    assert collector.floor() == -1.5                                     # the worst kept plus the slack
    assert collector.rejects(-1.75) and collector.overflow == 2 and not collector.rejects(-1.25)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hepatitis", "insurance1000", "autos"] if FULL else ["tic-tac-toe"])
def test_real_data_credible_sets_agree(name):
    """Where both engines run on real data, the same credible sets: hepatitis, insurance1000 and autos at
    BF 3, 20 and 150 with BNEXPLORE_FULL=1 (sets of up to 150,000 DAGs: hours), tic-tac-toe at BF 3 and
    20 by default (192 DAGs)."""
    data = read_csv(EBNSL / f"{name}.csv.gz", header=False, types="categorical")
    scorer = Scorer(data, "bic")
    for bf in ((3, 20, 150) if FULL else (3, 20)):
        parent_sets = candidate_parent_sets(scorer, epsilon=math.log(bf))
        dp = credible_set(scorer, bf=bf, parent_sets=parent_sets, engine="dp")
        ip = credible_set(scorer, bf=bf, parent_sets=parent_sets, engine="ilp")
        assert ip.opt == pytest.approx(dp.opt, abs=1e-8 * abs(dp.opt))
        assert as_set(ip) == as_set(dp) and len(ip) == len(dp)


def random_candidate_dags(cands, count, seed):
    """Integer points of random DAGs over the candidates: a random order, each node a random candidate before it."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        before, x = 0, np.zeros(len(cands.masks))
        for v in rng.permutation(cands.n).tolist():
            fits = [f for f in range(cands.offsets[v], cands.offsets[v + 1]) if cands.masks[f] & ~before == 0]
            x[fits[int(rng.integers(len(fits)))]] = 1.0
            before |= 1 << v
        yield x


def test_the_optimisations_cuts_hold_for_every_dag_and_start_an_enumeration_that_finds_the_same_set(hard_problem):
    scorer, parent_sets, opt = hard_problem
    cands = CandidateArrays(parent_sets)
    best = ilp.optimum(cands, OrderCandidates(parent_sets), Control())
    known = best.cuts
    assert best.optimal and len(known.clusters) > 10
    assert ilp.optimum(cands, OrderCandidates(parent_sets), Control(), reuse=True).cuts is known
    again = ilp.KnownCuts([*known.clusters.tolist(), *known.clusters.tolist()], known.four_b.tolist())
    assert len(again) == len(known) and (again.clusters == known.clusters).all()   # duplicates dropped
    for x in random_candidate_dags(cands, 40, seed=5):
        for cluster, k in known.clusters.tolist():
            assert cuts.cluster_value(x, cands.masks, cands.offsets, np.int64(cluster), k) >= k - 1e-9
        for a, b, c, d in known.four_b.tolist():
            assert cuts.four_b_value(x, cands.masks, cands.offsets, a, b, c, d) <= 2 + 1e-9
    threshold = opt - 2.0 - tolerance(opt)
    plain, _ = ilp.enumerate_credible(cands, threshold, 10 ** 5, Control(), opt, covered=True)
    warm, out = ilp.enumerate_credible(cands, threshold, 10 ** 5, Control(), opt, covered=True, known=known)
    assert out.optimal and out.stats["known_cuts"] == len(known) and warm.count == plain.count > 10
    assert {tuple(r) for r in warm.masks[:warm.count].tolist()} == {tuple(r) for r in plain.masks[:plain.count].tolist()}
    assert sorted(warm.scores[:warm.count]) == pytest.approx(sorted(plain.scores[:plain.count]), abs=1e-9)


# -- stop, time limit, progress -------------------------------------------------------------------

@pytest.fixture(scope="module")
def hard_problem():
    """A problem the ILP needs a few dozen nodes for: a 14-variable sample of alarm, BDeu."""
    from bnexplore.bif import read_bif, sample
    from bnexplore.data import Dataset

    network = read_bif(Path(__file__).resolve().parent.parent / "sample_data" / "networks" / "alarm.bif.gz")
    frame = sample(network, 400, seed=3)
    data = Dataset.from_frame(frame[frame.columns[:14]])
    scorer = Scorer(data, "bdeu")
    parent_sets = candidate_parent_sets(scorer, max_indegree=3)
    opt = exact_search(scorer, parent_sets=parent_sets, engine="dp").score
    return scorer, parent_sets, opt


@pytest.mark.parametrize("k", [2, 5, 12])
def test_a_stopped_search_returns_a_dag_within_its_reported_gap(hard_problem, k):
    scorer, parent_sets, opt = hard_problem
    stop = StopAfter(k)
    result = exact_search(scorer, parent_sets=parent_sets, engine="ilp", stop=stop)
    assert result.stats["stopped"] == "stopped" and not result.stats["exact"] and result.stats["opt"] is None
    assert naive.is_acyclic([sum(1 << u for u in ps) for ps in result.graph.parent_sets()])
    assert result.score == scorer.total(result.graph) <= opt + 1e-9
    assert result.stats["bound"] >= opt - 1e-9                       # the bound is true
    assert result.stats["gap"] == pytest.approx(result.stats["bound"] - result.score)
    assert "within" in result.stats["message"] or "optimal" in result.stats["message"]


def test_a_time_limit_on_a_fake_clock_returns_a_true_gap(hard_problem):
    scorer, parent_sets, opt = hard_problem
    control = Control(time_limit=8.0, clock=FakeClock(1.0))
    result = exact_search(scorer, parent_sets=parent_sets, engine="ilp", control=control)
    assert result.stats["stopped"] == "time limit"
    assert result.score <= opt + 1e-9 <= result.stats["bound"] + 2e-9


def test_progress_reports_and_trajectory_converge(hard_problem):
    scorer, parent_sets, opt = hard_problem
    seen = []
    control = Control(progress=seen.append, min_interval=0)
    result = exact_search(scorer, parent_sets=parent_sets, engine="ilp", control=control)
    assert result.score == pytest.approx(opt, abs=1e-8)
    reports = [r for r in seen if r.get("bound") is not None and r.get("score") is not None]
    assert reports and all(r["bound"] >= opt - 1e-6 and r["score"] <= opt + 1e-6 for r in reports)
    assert all(r["gap"] == pytest.approx(max(0.0, r["bound"] - r["score"])) for r in reports)
    points = [p for p in result.trajectory if p["bound"] is not None]
    bounds = [p["bound"] for p in points]
    assert bounds == sorted(bounds, reverse=True)                   # the proven bound only falls
    assert points[-1]["gap"] == 0 and points[-1]["score"] == pytest.approx(opt, abs=1e-8)
    assert [p["seconds"] for p in result.trajectory] == sorted(p["seconds"] for p in result.trajectory)
    back = type(result).from_json(result.to_json())
    assert back.stats["bound"] == result.stats["bound"] and back.stats["gap"] == 0


def test_credible_set_statistics_say_where_the_time_went(monkeypatch):
    ilp.PROVEN.clear()
    scorer = Scorer(dependent_data(2, 6, 40), "bic")
    cs = credible_set(scorer, epsilon=4.0, engine="ilp", statistics=True)
    for part in ("optimum_stats", "enumeration_stats"):
        stats = cs.stats[part]
        assert stats["nodes"] >= 1 and stats["scip"]["lp"]["dual_lp"]["calls"] >= 1
    assert cs.stats["enumeration_stats"]["dags_recorded"] == len(cs)
    assert "enumeration_stats" not in credible_set(scorer, epsilon=4.0, engine="ilp").stats


def test_a_stopped_credible_set_says_what_it_is(monkeypatch):
    scorer = Scorer(dependent_data(2, 6, 40), "bic")                 # 67 DAGs in 11 classes
    parent_sets = candidate_parent_sets(scorer, epsilon=4.0)
    full = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, engine="ilp")
    found = []

    def progress(info):
        if info.get("found"):
            found.append(info["found"])
    control = Control(progress=progress, stop=lambda: bool(found), min_interval=0)
    cs = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, engine="ilp", control=control)
    assert cs.truncated and cs.truncated_reason.startswith("stopped: the search ended after")
    assert cs.complete_epsilon is None and 0 < len(cs) < len(full) and as_set(cs) < as_set(full)
    ilp.PROVEN.clear()                          # forget the optimum proven above
    early = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, engine="ilp", stop=StopAfter(1))
    assert early.opt is None and len(early) == 0 and "before the optimum was proven" in early.truncated_reason


def test_credible_sets_at_several_bayes_factors_prove_the_optimum_once(monkeypatch):
    ilp.PROVEN.clear()
    scorer = Scorer(dependent_data(5, 7, 80), "bic")
    parent_sets = candidate_parent_sets(scorer, epsilon=math.log(150))
    first = credible_set(scorer, bf=3, parent_sets=parent_sets, engine="ilp")
    assert not first.stats["opt_reused"] and first.stats["opt_nodes"] >= 1

    def no_new_model(*args, **kwargs):
        raise AssertionError("the proven optimum should have been reused")
    with monkeypatch.context() as m:
        m.setattr(model, "Problem", no_new_model)
        best = ilp.optimum(CandidateArrays(parent_sets), None, Control(), reuse=True)
    assert best.optimal and best.stats["reused"] and best.score == pytest.approx(first.opt, abs=1e-9)
    assert best.stats["nodes"] == 0 and best.gap == 0.0
    second = credible_set(scorer, bf=20, parent_sets=parent_sets, engine="ilp")
    assert second.stats["opt_reused"] and second.opt == first.opt and second.stats["opt_nodes"] == 0
    assert as_set(second) == as_set(credible_set(scorer, bf=20, parent_sets=parent_sets, engine="dp"))
    other = candidate_parent_sets(Scorer(dependent_data(6, 7, 80), "bic"), epsilon=math.log(150))
    assert not ilp.optimum(CandidateArrays(other), None, Control(), reuse=True).stats.get("reused")


def test_the_remembered_optimum_is_its_own_copy(monkeypatch):
    ilp.PROVEN.clear()
    parent_sets = candidate_parent_sets(Scorer(dependent_data(5, 6, 80), "bic"), epsilon=2.0)
    candidates = CandidateArrays(parent_sets)
    first = ilp.optimum(candidates, None, Control())
    expected = first.parents.copy()
    first.parents[:] = -1                                            # whatever the caller does with it
    first.stats.clear()
    again = ilp.optimum(candidates, None, Control(), reuse=True)
    assert again.stats["reused"] and (again.parents == expected).all() and again.score == first.score
    assert again.trajectory[-1]["gap"] == 0.0 and again.stats["nodes"] == 0


# -- engine choice ----------------------------------------------------------------------------------

def slow_dp(monkeypatch, seconds):
    """Make ``auto`` see a subset DP estimated at ``seconds`` (above the 30 s it runs without trying the ILP)."""
    def choose(n, parent_sets=None, task="optimum", limit=None, engine="auto"):
        return "dp", f"subset DP over {n} variables: about {seconds:.2g} s", seconds
    monkeypatch.setattr(credible_solve, "choose_engine", choose)


def test_auto_tries_the_ilp_first_where_the_dp_is_slow(monkeypatch):
    scorer = Scorer(dependent_data(2, 6, 40), "bic")                 # 67 DAGs in 11 classes
    parent_sets = candidate_parent_sets(scorer, epsilon=4.0)
    dp = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, engine="dp")
    slow_dp(monkeypatch, 100.0)
    control = Control(clock=FakeClock(step=1e-6))                    # the ILP's 25 s never run out
    cs = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, control=control)
    assert cs.stats["engine"] == "ilp" == cs.params["engine"] and ": it finished [" in cs.stats["engine_reason"]
    assert as_set(cs) == as_set(dp) and not cs.truncated


def test_auto_falls_back_to_the_dp_when_the_ilp_takes_too_long(monkeypatch):
    scorer = Scorer(dependent_data(2, 6, 40), "bic")
    parent_sets = candidate_parent_sets(scorer, epsilon=4.0)
    dp = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, engine="dp")
    slow_dp(monkeypatch, 40.0)
    control = Control(clock=FakeClock(step=1.0))                     # every reading is a second: 10 s go fast
    cs = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, control=control)
    assert cs.stats["engine"] == "dp" and "had not finished" in cs.stats["engine_reason"]
    assert cs.stats["seconds_ilp_attempt"] >= 0 and as_set(cs) == as_set(dp) and not cs.truncated
    cut = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, limit=len(dp) // 2,
                       control=Control(clock=FakeClock(step=1.0)))
    assert cut.stats["engine"] == "dp" and cut.truncated
    assert cut.stats["seconds_to_limit"] >= 10                      # dated from before the ILP's 10 s attempt


def test_auto_estimates_the_dp_again_once_the_candidates_are_built(monkeypatch):
    """Before the candidates exist ``auto`` counts the DP's subsets only; their scans (faked: 1e12
    checks, 600 s) then make the DP slow and the search switches to branch and cut, unless the
    caller gave the candidates, which the first estimate already counted."""
    scorer = Scorer(dependent_data(2, 6, 40), "bic")
    dp = exact_search(scorer, engine="dp")
    parent_sets = candidate_parent_sets(scorer, epsilon=4.0)
    dp_set = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, engine="dp")
    monkeypatch.setattr(subsets, "dp_checks", lambda candidates, *args, **kwargs: 1e12)
    result = exact_search(scorer)
    assert result.stats["engine"] == "ilp" and result.stats["exact"] and result.score == pytest.approx(dp.score)
    assert result.stats["engine_reason"].endswith("[estimated again with the candidate parent sets]")
    assert result.stats["seconds"] >= result.stats["seconds_candidates"] > 0
    assert exact_search(scorer, parent_sets=candidate_parent_sets(scorer)).stats["engine_reason"].startswith(
        "ILP engine (the subset DP over 6 variables would take about 6e+02 s)")  # counted at once
    monkeypatch.setattr(subsets, "dp_checks", lambda candidates, *args, **kwargs: 5e11)  # 300 s: ILP first
    cs = credible_set(scorer, epsilon=4.0, control=Control(clock=FakeClock(step=1e-6)))
    assert cs.stats["engine"] == "ilp" and "tried first for up to 75 s" in cs.stats["engine_reason"]
    assert as_set(cs) == as_set(dp_set)
    monkeypatch.setattr(subsets, "dp_checks", lambda candidates, *args, **kwargs: 1e13)  # 6,000 s: ILP only
    cs = credible_set(scorer, epsilon=4.0)
    assert cs.stats["engine_reason"].endswith("[estimated again with the candidate parent sets]")
    assert cs.stats["engine"] == "ilp" and as_set(cs) == as_set(dp_set)


def test_a_stop_while_the_ilp_is_tried_first_keeps_what_it_found(monkeypatch):
    scorer = Scorer(dependent_data(2, 6, 40), "bic")
    parent_sets = candidate_parent_sets(scorer, epsilon=4.0)
    full = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, engine="dp")
    slow_dp(monkeypatch, 100.0)
    found = []

    def progress(info):
        if info.get("found"):
            found.append(info["found"])
    control = Control(progress=progress, stop=lambda: bool(found), min_interval=0, clock=FakeClock(step=1e-6))
    cs = credible_set(scorer, epsilon=4.0, parent_sets=parent_sets, control=control)
    assert cs.stats["engine"] == "ilp" and cs.stats["engine_reason"].endswith(
        "tried first for up to 25 s, 25% of the subset DP's estimated time: stopped while it ran "
        "[subset DP over 6 variables: about 1e+02 s]")
    assert cs.truncated_reason.startswith("stopped: the search ended after") and 0 < len(cs) < len(full)


def test_choose_engine_says_which_and_why():
    engine, reason, seconds = choose_engine(12)
    assert engine == "dp" and "subset DP over 12 variables" in reason and 0 < seconds < 1
    engine, reason, seconds = choose_engine(37)
    assert engine == "ilp" and "would need" in reason and seconds is None
    engine, reason, _ = choose_engine(30)
    assert engine == "ilp" and "would take about" in reason
    assert choose_engine(28, task="credible")[0] == "dp"       # the DP enumerates much faster
    assert choose_engine(12, engine="ilp")[0] == "ilp"
    with pytest.raises(SearchError, match="unknown exact engine"):
        choose_engine(5, engine="cplex")


def test_learn_and_the_result_name_the_engine():
    data = dependent_data(5, 6, 200)
    result = learn(data, "exact", score="bic", engine="ilp")
    assert result.stats["engine"] == "ilp" and result.params["engine"] == "ilp"
    assert result.score == pytest.approx(learn(data, "exact", score="bic", engine="dp").score, abs=1e-9)
    with pytest.raises(SearchError, match="unknown exact engine"):
        learn(data, "exact", engine="gurobi")


def test_ilp_memory_is_checked_before_building(monkeypatch):
    monkeypatch.setattr(resources, "available_memory", lambda: 50 * 2**20)
    with pytest.raises(ResourceError, match="integer programme over .* set max_indegree"):
        exact_search(Scorer(dependent_data(0, 5, 50), "bic"), engine="ilp")


# -- command line -----------------------------------------------------------------------------------

ASIA = str(Path(__file__).resolve().parent.parent / "sample_data" / "asia.csv")


def test_cli_engine_on_learn_and_enumerate(capsys, tmp_path):
    import json

    from bnexplore.search.credible import CredibleSet

    assert cli.main(["learn", ASIA, "--algorithm", "exact", "--score", "bic", "--engine", "ilp",
                     "--json", str(tmp_path / "r.json")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["engine"] == "ilp" and summary["exact"] and summary["gap"] == 0
    assert cli.main(["learn", ASIA, "--algorithm", "exact", "--score", "bic", "--engine", "dp"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(summary["score"], abs=1e-9)
    assert cli.main(["enumerate", ASIA, "--bf", "20", "--engine", "ilp", "--json", str(tmp_path / "cs.json")]) == 0
    summary = json.loads(capsys.readouterr().out)
    cs = CredibleSet.from_json((tmp_path / "cs.json").read_text())
    assert summary["engine"] == "ilp" and summary["networks"] == len(cs)
    assert as_set(cs) == as_set(credible_set(read_csv(ASIA), bf=20, engine="dp"))
    assert cli.main(["learn", ASIA, "--algorithm", "hc", "--engine", "ilp"]) == 1
    assert "--engine applies to --algorithm exact only" in capsys.readouterr().err


def test_cli_messages_name_the_flag(capsys, monkeypatch):
    monkeypatch.setattr(resources, "available_memory", lambda: 10 * 2**20)
    assert cli.main(["learn", ASIA, "--algorithm", "exact", "--engine", "dp"]) == 1
    err = capsys.readouterr().err
    assert "use --engine ilp" in err and "engine='ilp'" not in err
