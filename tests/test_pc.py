"""PC-stable (bnexplore.search.pc): the true CPDAG from a d-separation oracle, a skeleton independent
of the column order, knowledge honoured, conflicts reported, the trajectory replayed, stops, and the
doors (API, CLI, bootstrap); the skeleton beside pgmpy's PC-stable."""

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import bnexplore as bx
from bnexplore import cli
from bnexplore.control import Control
from bnexplore.errors import BNExploreError, OptionError, SearchError
from bnexplore.graphs import DAG, PDAG
from bnexplore.knowledge import Knowledge
from bnexplore.scores import Scorer
from bnexplore.search import learn
from bnexplore.search.pc import pc_stable
from fakes import StopAfter
from oracle import DSeparationOracle, random_dag
from test_knowledge import honours, random_consistent_knowledge
from test_scores import random_dag_data, table

FULL = os.environ.get("BNEXPLORE_FULL") == "1"
ROOT = Path(__file__).resolve().parent.parent
NETWORKS = ROOT / "sample_data" / "networks"
ASIA = str(ROOT / "sample_data" / "asia.csv")
RULES = ("standard", "conservative", "majority")


class FastOracle(DSeparationOracle):
    """The oracle's answers by the reachability ("Bayes ball") algorithm of Koller & Friedman (2009),
    Algorithm 3.1, in plain Python: networkx's check costs a millisecond a question, too slow for
    thousands of DAGs. Checked equal to networkx's on random questions below."""

    def __init__(self, dag):
        super().__init__(dag)
        self.parents = [dag.parents(v) for v in range(dag.n)]
        self.children = [dag.children(v) for v in range(dag.n)]

    def __call__(self, x, y, z=()):
        self.calls += 1
        given = set(z)
        ancestors, stack = set(), list(given)
        while stack:
            v = stack.pop()
            if v not in ancestors:
                ancestors.add(v)
                stack.extend(self.parents[v])
        seen, stack = set(), [(x, "up")]
        while stack:
            v, way = stack.pop()
            if (v, way) in seen:
                continue
            seen.add((v, way))
            if v == y and v not in given:
                return 0.0, 0.0, 0
            if way == "up" and v not in given:
                stack.extend((p, "up") for p in self.parents[v])
                stack.extend((c, "down") for c in self.children[v])
            elif way == "down":
                if v not in given:
                    stack.extend((c, "down") for c in self.children[v])
                if v in ancestors:
                    stack.extend((p, "up") for p in self.parents[v])
        return 1.0, 0.0, 0


def oracle_scorer(dag, rng):
    """A scorer on random data with the DAG's names (the oracle answers the tests; the data only scores)."""
    return Scorer(table(rng.integers(0, 2, (20, dag.n)), [2] * dag.n, list(dag.names)), "bic")


def replay(result):
    """The trajectory applied to the complete undirected graph, as the replay does."""
    names = result.graph.names
    at = {name: i for i, name in enumerate(names)}
    adj = np.ones((len(names), len(names)), np.uint8) - np.eye(len(names), dtype=np.uint8)
    for step in result.trajectory:
        args = [at[v] for v in step["args"]]
        if step["op"] == "remove":
            adj[args[0], args[1]] = adj[args[1], args[0]] = 0
        elif step["op"] in ("knowledge", "meek"):
            adj[args[1], args[0]] = 0
        elif step["op"] == "v_structure":
            x, z, y = args
            for a in (x, y):
                if [names[a], names[z]] not in step["conflicts"]:
                    adj[z, a] = 0
        else:
            assert step["op"] == "ambiguous"
    return PDAG(adj, names)


def edges(pdag):
    return {frozenset((pdag.names[u], pdag.names[v])) for u, v in pdag.edges()}


def test_the_fast_oracle_answers_as_networkx():
    rng = np.random.default_rng(0)
    for _ in range(60):
        dag = random_dag(rng, int(rng.integers(2, 9)), float(rng.random()))
        slow, fast = DSeparationOracle(dag), FastOracle(dag)
        for _ in range(20):
            x, y = rng.choice(dag.n, 2, replace=False) if dag.n > 1 else (0, 0)
            rest = [v for v in range(dag.n) if v not in (x, y)]
            z = tuple(v for v in rest if rng.random() < 0.4)
            assert slow(x, y, z) == fast(x, y, z)


@pytest.mark.parametrize("rule", RULES)
def test_the_oracle_gives_the_true_cpdag_on_200_random_dags(rule):
    """Spirtes, Glymour & Scheines (2000), Theorem 5.1: with perfect tests PC finds the class; no
    conflict and no ambiguous triple."""
    rng = np.random.default_rng({"standard": 1, "conservative": 2, "majority": 3}[rule])
    for _ in range(200):
        dag = random_dag(rng, int(rng.integers(1, 11)), float(rng.random()) * 0.7)
        result = pc_stable(oracle_scorer(dag, rng), test=FastOracle(dag), v_structures=rule)
        assert result.extra["cpdag"] == dag.cpdag()
        assert result.extra["conflicts"] == [] and result.extra["ambiguous"] == []
        assert result.extra["extension"] == "consistent" and result.graph.cpdag() == dag.cpdag()
        assert replay(result) == result.extra["cpdag"]


def test_max_condition_limits_the_conditioning_sets():
    chain = DAG.from_arcs([("X0", "X1"), ("X1", "X2")], ["X0", "X1", "X2"])
    scorer = oracle_scorer(chain, np.random.default_rng(5))
    assert edges(pc_stable(scorer, test=FastOracle(chain)).extra["cpdag"]) == edges(chain)
    kept = pc_stable(scorer, test=FastOracle(chain), max_condition=0)
    assert len(edges(kept.extra["cpdag"])) == 3 and kept.params["max_condition"] == 0
    rng = np.random.default_rng(6)
    dag = random_dag(rng, 9, 0.4)
    result = pc_stable(oracle_scorer(dag, rng), test=FastOracle(dag), max_condition=1)
    assert {s["level"] for s in result.trajectory if s["op"] == "remove"} == {0, 1}
    assert edges(dag.cpdag()) <= edges(result.extra["cpdag"])


def permuted(data, order):
    return table(np.asarray(data.codes)[:, order], np.asarray(data.arities)[order], [data.names[i] for i in order])


@pytest.mark.parametrize("rule", RULES)
def test_the_skeleton_does_not_depend_on_the_column_order(rule):
    """Colombo & Maathuis (2014), Theorem 5: PC-stable's skeleton is order-independent, on real data
    with G2 (sampled from a random network and from asia). The conservative and majority rules decide
    the same triples in every order too (Theorem 6): their separating sets come from the final
    skeleton."""
    rng = np.random.default_rng(11)
    asia = bx.Dataset.from_frame(bx.sample(bx.read_bif(NETWORKS / "asia.bif.gz"), 3000, seed=2))
    for data in (random_dag_data(rng, 9, 1500)[0], asia):
        first = pc_stable(Scorer(data, "bic"), test="g2", v_structures=rule)
        triples = {(s["op"], frozenset(s["args"][::2]), s["args"][1]) for s in first.trajectory
                   if s["op"] in ("v_structure", "ambiguous")}
        for _ in range(4 if FULL else 2):
            order = rng.permutation(len(data.names))
            again = pc_stable(Scorer(permuted(data, order), "bic"), test="g2", v_structures=rule)
            assert edges(again.extra["cpdag"]) == edges(first.extra["cpdag"])
            if rule != "standard":
                assert {(s["op"], frozenset(s["args"][::2]), s["args"][1]) for s in again.trajectory
                        if s["op"] in ("v_structure", "ambiguous")} == triples


@pytest.mark.parametrize("seed", range(30 if FULL else 12))
def test_random_knowledge_is_honoured(seed):
    """Forbidden edges never adjacent, required arcs present and oriented, tiers respected: in the
    pattern (every orientation by knowledge kept) and in the DAG."""
    rng = np.random.default_rng(seed)
    dag = random_dag(rng, int(rng.integers(3, 9)), 0.5)
    knowledge = random_consistent_knowledge(rng, dag.names)
    result = pc_stable(oracle_scorer(dag, rng), test=FastOracle(dag), knowledge=knowledge,
                       v_structures=RULES[seed % 3])
    pattern = result.extra["cpdag"]
    assert not knowledge.bind(pattern).violations(pattern)
    arcs = pattern.adj.astype(bool) & ~pattern.adj.T.astype(bool)
    bound = knowledge.bind(dag)
    assert not (bound.required & ~arcs).any()
    assert honours(knowledge, dag.names, result.graph.adj), knowledge.violations(result.graph)
    for step in result.trajectory:
        if step.get("reason") == "knowledge":
            u, v = (dag.names.index(x) for x in step["args"])
            assert not bound.allowed[u, v] and not bound.allowed[v, u]
    assert replay(result) == pattern
    assert result.params["knowledge"] == knowledge.to_json()


class Answers:
    """A test object answering from a table: ``{(x, y, z): p}`` (x < y), dependent otherwise."""

    def __init__(self, names, independent):
        self.names, self.n_vars = list(names), len(names)
        self.independent = {(min(x, y), max(x, y), tuple(z)): p for (x, y, z), p in independent.items()}

    def __call__(self, x, y, z=()):
        return self.independent.get((min(x, y), max(x, y), tuple(z)), 0.0), 1.5, 2


def test_conflicting_v_structures_are_reported_and_leave_the_edge_a_link():
    """The path X0 - X1 - X2 - X3 with every non-adjacent pair marginally independent: X0 -> X1 <- X2
    and X1 -> X2 <- X3 orient X1 - X2 both ways. Neither is applied (in any variable order) and both
    are reported; Meek's rules leave the contested link alone."""
    names = ["X0", "X1", "X2", "X3"]
    test = Answers(names, {(0, 2, ()): 0.5, (1, 3, ()): 0.5, (0, 3, ()): 0.5})
    result = pc_stable(oracle_scorer(DAG.empty(names), np.random.default_rng(0)), test=test)
    pattern = result.extra["cpdag"]
    assert sorted(pattern.arcs()) == [(0, 1), (3, 2)] and pattern.links() == [(1, 2)]
    refused = sorted((c["arc"], c["against"]) for c in result.extra["conflicts"])
    assert refused == [(["X1", "X2"], "v-structure"), (["X2", "X1"], "v-structure")]
    steps = [s for s in result.trajectory if s["op"] == "v_structure"]
    assert [s["conflicts"] for s in steps] == [[["X2", "X1"]], [["X1", "X2"]]]
    assert not [s for s in result.trajectory if s["op"] == "meek"]
    assert replay(result) == pattern
    # either direction of X1 - X2 makes a v-structure the pattern lacks: no consistent extension, so
    # the DAG follows an order of the nodes that keeps every arc
    assert result.extra["extension"] == "ordered" and result.extra["reversed"] == result.extra["dropped"] == []
    assert set(pattern.arcs()) <= set(result.graph.arcs()) and edges(result.graph) == edges(pattern)


@pytest.mark.parametrize("marginal, rule, arcs, ambiguous, counts", [
    # X0, X1 separated by {X3} and {X2, X3}: X2 is in one of two separating sets
    (False, "standard", [(0, 2), (1, 2)], [], [(1, 0)]),
    (False, "conservative", [], [["X0", "X2", "X1"]], []),
    (False, "majority", [], [["X0", "X2", "X1"]], []),
    # ... and by the empty set (found first): X2 in one of three, X3 in two of three
    (True, "standard", [(0, 2), (0, 3), (1, 2), (1, 3)], [], [(1, 0), (1, 0)]),
    (True, "conservative", [], [["X0", "X2", "X1"], ["X0", "X3", "X1"]], []),
    (True, "majority", [(0, 2), (1, 2)], [], [(3, 1)]),
])
def test_the_three_rules_on_separating_sets_that_disagree(marginal, rule, arcs, ambiguous, counts):
    """The square X0 - X2 - X1 - X3 - X0: X2, X3 separated by {X0, X1} (so neither X0 nor X1 is a
    collider); X0, X1 by {X3} and {X2, X3} (and by {} when ``marginal``). Standard reads the set the
    skeleton found; conservative (CPC) finds X2 in some sets but not all (ambiguous); majority orients
    when X2 is in fewer than half (one of three), ambiguous at exactly half (one of two), and X3 (in two
    of three) is no collider."""
    names = ["X0", "X1", "X2", "X3"]
    table_ = {(0, 1, (3,)): 0.5, (0, 1, (2, 3)): 0.5, (2, 3, (0, 1)): 0.5}
    if marginal:
        table_[(0, 1, ())] = 0.5
    result = pc_stable(oracle_scorer(DAG.empty(names), np.random.default_rng(0)), test=Answers(names, table_),
                       v_structures=rule)
    pattern = result.extra["cpdag"]
    assert edges(pattern) == {frozenset(p) for p in (("X0", "X2"), ("X1", "X2"), ("X0", "X3"), ("X1", "X3"))}
    assert pattern.arcs() == arcs and result.extra["ambiguous"] == ambiguous
    steps = [s for s in result.trajectory if s["op"] == "v_structure"]
    assert [(s["sepsets"], s["with_z"]) for s in steps] == counts
    assert [s["args"] for s in result.trajectory if s["op"] == "ambiguous"] == ambiguous
    assert replay(result) == pattern


def test_a_v_structure_against_the_knowledge_is_a_conflict():
    names = ["X0", "X1", "X2"]
    test = Answers(names, {(0, 2, ()): 0.5})
    knowledge = Knowledge(require=[("X1", "X0")])
    result = pc_stable(oracle_scorer(DAG.empty(names), np.random.default_rng(0)), test=test, knowledge=knowledge)
    assert result.extra["cpdag"].arcs() == [(1, 0), (2, 1)]
    assert result.extra["conflicts"] == [{"arc": ["X0", "X1"], "triple": ["X0", "X1", "X2"], "against": "knowledge"}]
    assert result.graph.arcs() == [(1, 0), (2, 1)]


def test_knowledge_closing_a_cycle_drops_an_edge_and_says_so():
    """Forbidden X1 -> X0, X2 -> X1, X0 -> X2 on a triangle the tests keep: the knowledge orients
    X0 -> X1 -> X2 -> X0, so no DAG on the skeleton honours it. The DAG leaves one edge out and says so."""
    names = ["X0", "X1", "X2"]
    knowledge = Knowledge(forbid=[("X1", "X0"), ("X2", "X1"), ("X0", "X2")])
    result = pc_stable(oracle_scorer(DAG.empty(names), np.random.default_rng(0)), test=Answers(names, {}),
                       knowledge=knowledge)
    assert result.extra["extension"] == "ordered" and len(result.extra["dropped"]) == 1
    assert result.graph.n_edges == 2 and knowledge.allows(result.graph)
    assert result.extra["cpdag"].n_edges == 3


def test_a_stop_returns_the_graph_reached():
    rng = np.random.default_rng(8)
    dag = random_dag(rng, 8, 0.5)
    scorer = oracle_scorer(dag, rng)
    full = pc_stable(scorer, test=FastOracle(dag))
    stop = StopAfter(6)
    part = pc_stable(scorer, test=FastOracle(dag), stop=stop)
    assert part.stats["stopped"] == "stopped" and full.stats["stopped"] is None
    assert part.stats["tests"] == 5 and stop.calls == 6
    assert edges(full.extra["cpdag"]) <= edges(part.extra["cpdag"])
    assert not [s for s in part.trajectory if s["op"] in ("v_structure", "meek")]
    assert replay(part) == part.extra["cpdag"] and edges(part.graph) == edges(part.extra["cpdag"])


def test_a_stop_too_early_to_leave_a_network_says_so_in_one_line():
    """Stopped after one test on 320 variables of 10 states, the complete graph left has a node with 319
    parents, beyond what a local score represents: a SearchError saying what to do, not a ScoreError."""
    rng = np.random.default_rng(10)
    data = bx.Dataset.from_codes(rng.integers(0, 10, (60, 320)), names=[f"v{i}" for i in range(320)])
    with pytest.raises(SearchError, match=r"pc was stopped after 1 tests, before its skeleton was done.*"
                                          r"max_condition") as error:
        pc_stable(Scorer(data, "bic"), stop=StopAfter(2))
    assert "\n" not in str(error.value)


def test_progress_and_stats():
    rng = np.random.default_rng(9)
    dag = random_dag(rng, 7, 0.5)
    reports = []
    control = Control(progress=reports.append, min_interval=0.0)
    scorer = oracle_scorer(dag, rng)
    result = pc_stable(scorer, test=FastOracle(dag), control=control)
    assert any(r["message"].startswith("pc: level 1") for r in reports) and reports[-1]["done"] == 1.0
    for key in bx.result.STATS_KEYS:
        assert key in result.stats
    assert result.stats["tests"] > 0 and result.stats["iterations"] == len(result.trajectory)
    assert result.score == pytest.approx(scorer.total(result.graph))


def test_learn_through_the_api_with_g2_and_the_chi2_test():
    data = bx.read_csv(ASIA)
    result = learn(data, "pc", score="bic", test="g2", alpha=0.01, max_condition=2, max_indegree=1)
    assert result.algorithm == "pc" and result.stats["tests"] > 0
    assert result.params["max_indegree"] == 1 and result.params["test"] == "g2"
    plain = bx.Result.from_json(result.to_json())
    assert plain.extra["cpdag"] == result.extra["cpdag"]
    chi2 = learn(data, "pc", test="chi2", v_structures="majority")
    assert chi2.params["v_structures"] == "majority"


def test_the_cli_learns_with_pc(capsys, tmp_path):
    out = tmp_path / "pc.json"
    code = cli.main(["learn", ASIA, "--algorithm", "pc", "--test", "g2", "--alpha", "0.01", "--max-condition", "2",
                     "--v-structures", "conservative", "--quiet", "--json", str(out)])
    assert code == 0
    saved = json.loads(out.read_text())
    assert saved["algorithm"] == "pc" and saved["params"]["v_structures"] == "conservative"
    assert saved["params"]["alpha"] == 0.01 and saved["params"]["max_condition"] == 2
    assert {s["op"] for s in saved["trajectory"]} <= {"remove", "v_structure", "ambiguous", "knowledge", "meek"}


@pytest.mark.parametrize("args, message", [
    (["--alpha", "2"], "--alpha"),
    (["--alpha", "0"], "--alpha"),
    (["--max-condition", "-1"], "--max-condition"),
])
def test_the_cli_refuses_bad_options_in_one_line(capsys, args, message):
    assert cli.main(["learn", ASIA, "--algorithm", "pc", *args]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize("options, message", [
    ({"v_structures": "sometimes"}, "v_structures='sometimes'"),
    ({"test": "fisher-z"}, "test='fisher-z'"),
    ({"alpha": -1}, "alpha"),
    ({"max_condition": 1.5}, "max_condition"),
    ({"test": object()}, "test"),
])
def test_the_api_refuses_bad_options_naming_the_keyword(options, message):
    data = bx.read_csv(ASIA)
    with pytest.raises((SearchError, OptionError)) as caught:
        learn(data, "pc", **options)
    assert isinstance(caught.value, BNExploreError) and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_bootstrap_runs_pc():
    result = bx.bootstrap(bx.read_csv(ASIA).subset(slice(0, 1500)), algorithm="pc", R=5, seed=1, workers=1)
    assert result.resamples == 5 and result.params["algorithm"] == "pc"
    assert result.counts.max() <= 5 and result.counts.sum() > 0


def test_the_skeleton_is_pgmpys_pc_stable_skeleton():
    """pgmpy's PC-stable with its chi-squared test, same alpha and largest conditioning set, on 20,000
    rows of the survey network. Its degrees of freedom follow the same convention as ours (each stratum
    of z that occurs adds (r_x' - 1)(r_y' - 1), the states that occur there), but it applies Yates'
    continuity correction to strata with one degree of freedom, calls a test with 0 degrees of freedom
    dependent (p-value NaN; ours: independent, p = 1) and independence at p >= alpha (ours p > alpha). On
    binary data with deterministic nodes (asia's "either") those differences change the skeleton; here
    no test falls near alpha and the skeletons are equal."""
    pgmpy_pc = pytest.importorskip("pgmpy.estimators").PC
    frame = bx.sample(bx.read_bif(NETWORKS / "survey.bif.gz"), 20_000, seed=3)
    ours = pc_stable(Scorer(bx.Dataset.from_frame(frame), "bic"), test="chi2", alpha=0.01, max_condition=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, _ = pgmpy_pc(frame.astype(str)).build_skeleton(variant="stable", ci_test="chi_square",
                                                               significance_level=0.01, max_cond_vars=3,
                                                               show_progress=False, n_jobs=1)
    assert edges(ours.extra["cpdag"]) == {frozenset(e) for e in theirs.edges()}
    assert len(edges(ours.extra["cpdag"])) == 6
