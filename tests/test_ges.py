"""GES (Chickering 2002): each Insert and Delete against brute force over orientations, the search's
result a local optimum by brute force, the exact optimum's class on small problems, the true CPDAG from
a large asia sample, knowledge, the in-degree bound, refusals, stops, the doors and the peers."""

import itertools
import json
import os
from pathlib import Path

import numpy as np
import pytest

from bnexplore import cli
from bnexplore.bif import read_bif, sample_codes
from bnexplore.bootstrap import bootstrap
from bnexplore.data import Dataset
from bnexplore.errors import SearchError
from bnexplore.graphs import CPDAG, DAG, PDAG, is_acyclic, mec_key
from bnexplore.knowledge import Knowledge
from bnexplore.result import Result
from bnexplore.scores import Scorer
from bnexplore.search import learn
from bnexplore.search.ges import GesState, apply_operator, ges, operator_delta, valid_operators
from fakes import StopAfter
from oracle import random_dag
from test_knowledge import random_consistent_knowledge
from test_scores import random_dag_data
from test_stop_wide import N as WIDE, check_every_10_columns, wide  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[1]
FULL = os.environ.get("BNEXPLORE_FULL") == "1"
NETWORKS = ROOT / "sample_data" / "networks"


# -- brute force ------------------------------------------------------------------------------------

def modified_pdag(cpdag, op, x, y, subset):
    """The PDAG of Chickering's Definitions 12 and 13, before completion."""
    a = cpdag.adj.astype(bool)
    if op == "insert":
        a[x, y], a[y, x] = True, False
        for t in subset:
            a[y, t] = False
    else:
        a[x, y] = a[y, x] = False
        for h in subset:
            a[h, y] = False
            if a[h, x] and a[x, h]:
                a[h, x] = False
    return PDAG(a.astype(np.uint8))


def extensions(pdag):
    """Every consistent extension of a PDAG, by brute force over the orders of its nodes: a DAG with its
    skeleton and arcs and exactly its v-structures."""
    n = pdag.n
    a = pdag.adj.astype(bool)
    arc, link = a & ~a.T, a & a.T
    wanted = set(pdag.v_structures())
    found = {}
    for order in itertools.permutations(range(n)):
        position = np.empty(n, int)
        position[list(order)] = np.arange(n)
        before = position[:, None] < position[None, :]
        if (arc & ~before).any():
            continue
        oriented = (arc | (link & before)).astype(np.uint8)
        key = oriented.tobytes()
        if key not in found:
            dag = DAG(oriented)
            found[key] = dag if set(dag.v_structures()) == wanted else None
    return [dag for dag in found.values() if dag is not None]


def candidate_operators(cpdag):
    """Every (op, x, y, subset) whose arguments fit Definitions 12 and 13, valid or not."""
    n = cpdag.n
    adjacent = cpdag.skeleton()
    for x, y in itertools.permutations(range(n), 2):
        ne_y = set(cpdag.neighbours(y))
        if not adjacent[x, y]:
            t0 = sorted(v for v in ne_y if not adjacent[x, v])
            for k in range(len(t0) + 1):
                for t in itertools.combinations(t0, k):
                    yield "insert", x, y, t
        elif x in cpdag.parents(y) or x in ne_y:
            na = sorted(v for v in ne_y if adjacent[x, v])
            for k in range(len(na) + 1):
                for h in itertools.combinations(na, k):
                    yield "delete", x, y, h


def random_cpdags(seed, count, low=3, high=6):
    rng = np.random.default_rng(seed)
    return [random_dag(rng, int(rng.integers(low, high + 1)), float(rng.uniform(0.2, 0.8))).cpdag()
            for _ in range(count)]


def neighbour_dags(dag):
    """The DAGs one arc addition or deletion away from ``dag``."""
    n = dag.n
    for u, v in itertools.permutations(range(n), 2):
        adj = dag.adj.copy()
        if adj[u, v]:
            adj[u, v] = 0
        elif not adj[v, u]:
            adj[u, v] = 1
            if not is_acyclic(adj.astype(bool)):
                continue
        else:
            continue
        yield DAG(adj, dag.names)


def problem(seed, low=3, high=5, rows=400):
    rng = np.random.default_rng(seed)
    data, _ = random_dag_data(rng, int(rng.integers(low, high + 1)), rows)
    return data


# -- the operators ----------------------------------------------------------------------------------

def one_edge_away(dag, op, x, y):
    """``dag`` with the arc x -> y added ("insert") or removed ("delete"), or None when that is not a DAG
    (the arc is there / missing, or a cycle closes)."""
    adj = dag.adj.copy()
    if op == "insert":
        if adj[x, y] or adj[y, x]:
            return None
        adj[x, y] = 1
        return DAG(adj, dag.names) if is_acyclic(adj.astype(bool)) else None
    if not adj[x, y]:
        return None
    adj[x, y] = 0
    return DAG(adj, dag.names)


def test_each_operator_is_valid_exactly_when_it_adds_or_removes_one_edge_of_a_member():
    """Chickering's operators by their meaning: Insert(X, Y, T) / Delete(X, Y, H) is valid exactly when some
    DAG of the class, with X -> Y added / removed, is a consistent extension of the PDAG of Definition 12 / 13,
    and then the completed result is that DAG's class; together the valid operators reach every class one
    edge away from a member (and no other)."""
    checked = {"insert": 0, "delete": 0}
    for cpdag in random_cpdags(1, 80 if FULL else 20):
        members = list(cpdag.dags())
        valid = set(valid_operators(cpdag))
        reached = set()
        for op, x, y, subset in candidate_operators(cpdag):
            found = {ext.adj.tobytes() for ext in extensions(modified_pdag(cpdag, op, x, y, subset))}
            moved = [dag for dag in (one_edge_away(member, op, x, y) for member in members)
                     if dag is not None and dag.adj.tobytes() in found]
            assert ((op, x, y, subset) in valid) == bool(moved), (cpdag, op, x, y, subset)
            if moved:
                result = apply_operator(cpdag, op, x, y, subset)
                assert result == moved[0].cpdag()
                reached.add(result)
                checked[op] += 1
            else:
                with pytest.raises(SearchError, match="not a valid operator"):
                    apply_operator(cpdag, op, x, y, subset)
        one_edge = {dag.cpdag() for member in members for x, y in itertools.permutations(range(cpdag.n), 2)
                    for op in ("insert", "delete") for dag in [one_edge_away(member, op, x, y)] if dag is not None}
        assert reached == one_edge
    assert min(checked.values()) > 80, checked


@pytest.mark.parametrize("score", ["bdeu", "bic"])
def test_each_score_change_is_the_rescored_difference(score):
    rng = np.random.default_rng(5)
    for cpdag in random_cpdags(2, 25, high=5):
        data, _ = random_dag_data(rng, cpdag.n, 300)
        data.names = list(cpdag.names)  # the scorer matches a graph's nodes to the data's columns by name
        scorer = Scorer(data, score)
        before = scorer.total(cpdag.extension())
        for op, x, y, subset in valid_operators(cpdag):
            after = scorer.total(apply_operator(cpdag, op, x, y, subset).extension())
            assert operator_delta(scorer, cpdag, op, x, y, subset) == pytest.approx(after - before, abs=1e-7)


def test_operators_take_names_and_explain_refusals():
    chain = DAG.from_arcs([("a", "b"), ("b", "c")], ["a", "b", "c"]).cpdag()
    triangle = apply_operator(chain, "insert", "a", "c")  # b is in NA_YX: a -> c and b -> c, no v-structure
    assert triangle == apply_operator(chain, "insert", 0, 2)
    assert triangle.v_structures() == [] and triangle.n_edges == 3 and triangle.arcs() == []
    collider = apply_operator(DAG.empty(["a", "b", "c"]).cpdag(), "insert", "a", "b")
    assert apply_operator(collider, "insert", "c", "b").v_structures() == []  # T empty: a chain c -- b -- a
    collider = apply_operator(collider, "insert", "c", "b", ["a"])
    assert collider.v_structures() == [(0, 1, 2)]
    for args, message in [(("insert", "a", "b", ()), "not adjacent"),
                          (("insert", "a", "c", ["a"]), "T must hold"),
                          (("delete", "a", "c", ()), "arc x -> y or a link"),
                          (("move", "a", "b", ()), "unknown GES operator"),
                          (("insert", "a", "c", "b"), "list of nodes"),
                          (("insert", "a", "c", ["b", "b"]), "twice")]:
        with pytest.raises(SearchError, match=message):
            apply_operator(chain, *args)
    with pytest.raises(SearchError, match="expected a CPDAG"):
        apply_operator(np.zeros((2, 2)), "insert", 0, 1)
    with pytest.raises(SearchError, match="not a completed PDAG"):  # a -> b alone is a link in its CPDAG
        apply_operator(PDAG([[0, 1, 0], [0, 0, 0], [0, 0, 0]]), "insert", 0, 2)
    with pytest.raises(SearchError, match="not a completed PDAG"):
        valid_operators(DAG.from_arcs([(0, 1)], 2))
    # a -> c <- b with c -- d: Insert(d, a, {}) would close the semi-directed path a -> c -- d
    g = CPDAG(np.array([[0, 0, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]], np.uint8), list("abcd"))
    with pytest.raises(SearchError, match="semi-directed path"):
        apply_operator(g, "insert", "d", "a")


# -- the search -------------------------------------------------------------------------------------

def assert_local_optimum(scorer, result):
    """No DAG one edge away from any member of the result's class scores higher."""
    tol = 1e-7 * max(1.0, abs(result.score))
    for dag in result.extra["cpdag"].dags():
        assert scorer.total(dag) == pytest.approx(result.score, abs=tol)
        for other in neighbour_dags(dag):
            assert scorer.total(other) <= result.score + tol


@pytest.mark.parametrize("seed", range(12))
def test_the_result_is_a_local_optimum_of_both_operators(seed):
    data = problem(seed)
    scorer = Scorer(data, ("bdeu", "bic")[seed % 2])
    result = ges(scorer)
    assert mec_key(result.graph) == mec_key(result.extra["cpdag"])
    assert result.score == pytest.approx(scorer.total(result.graph))
    assert_local_optimum(scorer, result)


def test_the_trajectory_replays_to_the_result():
    for seed in range(6):
        data = problem(seed, 5, 7, 1000)
        scorer = Scorer(data, "bdeu")
        result = ges(scorer)
        cpdag = DAG.empty(data.names).cpdag()
        score = scorer.total(cpdag.extension())
        assert result.trajectory, seed
        for step in result.trajectory:
            subset = step["T"] if step["op"] == "insert" else step["H"]
            assert step["phase"] == {"insert": "forward", "delete": "backward"}[step["op"]]
            assert step["delta"] == pytest.approx(operator_delta(scorer, cpdag, step["op"], *step["args"], subset))
            cpdag = apply_operator(cpdag, step["op"], *step["args"], subset)
            score += step["delta"]
            assert step["score"] == pytest.approx(score) == pytest.approx(scorer.total(cpdag.extension()))
            assert step["delta"] > 0
        assert cpdag == result.extra["cpdag"]
        phases = [step["phase"] for step in result.trajectory]
        assert result.stats["forward_steps"] == phases.count("forward")
        assert result.stats["backward_steps"] == phases.count("backward")
        assert result.stats["iterations"] == len(phases)


def test_ges_reaches_the_exact_optimum_on_most_small_problems():
    hits = 0
    for seed in range(12):
        data = problem(100 + seed, 4, 6, 500)
        scorer = Scorer(data, "bdeu")
        ours, best = ges(scorer), learn(data, "exact", scorer=scorer)
        assert ours.score <= best.score + 1e-6 * abs(best.score)
        if mec_key(ours.graph) == mec_key(best.graph):
            hits += 1
            assert ours.score == pytest.approx(best.score, rel=1e-12)
    assert hits >= 9


def asia_sample(rows):
    network = read_bif(NETWORKS / "asia.bif.gz")
    return network, Dataset.from_codes(sample_codes(network, rows, seed=11), network.arities, network.names)


def test_a_million_rows_of_asia_give_the_true_cpdag():
    network, data = asia_sample(1_000_000)
    result = ges(Scorer(data, "bdeu"))
    assert result.extra["cpdag"] == network.dag().cpdag()


@pytest.mark.parametrize("seed", range(10))
def test_knowledge_is_honoured(seed):
    rng = np.random.default_rng(seed)
    data = problem(200 + seed, 4, 6, 500)
    knowledge = random_consistent_knowledge(rng, data.names)
    scorer = Scorer(data, "bdeu")
    result = ges(scorer, knowledge=knowledge)
    assert knowledge.allows(result.graph), knowledge.violations(result.graph)
    assert mec_key(result.graph) == mec_key(result.extra["cpdag"])
    bound = knowledge.bind(data)
    if bound.required.any():
        start = result.extra["start"]
        assert start == DAG(bound.required.astype(np.uint8), data.names).cpdag()
        cpdag = start
    else:
        assert "start" not in result.extra
        cpdag = DAG.empty(data.names).cpdag()
    for step in result.trajectory:  # every class on the way can still honour the knowledge
        cpdag = apply_operator(cpdag, step["op"], *step["args"], step["T"] if step["op"] == "insert" else step["H"])
        assert any(knowledge.allows(dag) for dag in cpdag.dags())
    assert cpdag == result.extra["cpdag"]


def test_required_arcs_stay_and_forbidden_directions_decide_the_extension():
    network, data = asia_sample(20_000)
    knowledge = Knowledge(require=[("lung", "either")], forbid=[("smoke", "lung")], tiers=[["xray"], ["either"]])
    result = ges(Scorer(data, "bdeu"), knowledge=knowledge)
    assert knowledge.allows(result.graph), knowledge.violations(result.graph)
    assert result.graph.adj[data.names.index("lung"), data.names.index("either")]


@pytest.mark.parametrize("limit", [0, 1, 2])
def test_max_indegree_is_respected(limit):
    network, data = asia_sample(20_000)
    result = ges(Scorer(data, "bdeu"), max_indegree=limit)
    assert max(len(ps) for ps in result.graph.parent_sets()) <= limit
    assert result.params["max_indegree"] == limit
    if limit == 0:
        assert result.graph.n_edges == 0


def test_non_equivalent_scores_and_bad_options_are_refused():
    data = problem(0)
    with pytest.raises(SearchError, match="GES needs a score-equivalent score .*k2 scores equivalent DAGs"):
        ges(Scorer(data, "k2"))
    with pytest.raises(SearchError, match="max_indegree"):
        ges(Scorer(data, "bdeu"), max_indegree=-1)


@pytest.mark.parametrize("fraction", [0.0, 0.3, 0.6, 0.95])
def test_a_stop_returns_the_class_reached(fraction):
    network, data = asia_sample(20_000)
    count = StopAfter(10**9)
    full = ges(Scorer(data, "bdeu"), stop=count)
    result = ges(Scorer(data, "bdeu"), stop=StopAfter(1 + int(fraction * (count.calls - 1))))
    assert result.stats["stopped"] == "stopped"
    assert len(result.trajectory) <= len(full.trajectory)
    assert result.trajectory == [] or \
        [s["args"] for s in result.trajectory] == [s["args"] for s in full.trajectory[:len(result.trajectory)]]
    assert mec_key(result.graph) == mec_key(result.extra["cpdag"])


def test_progress_names_the_phase():
    network, data = asia_sample(20_000)
    from bnexplore.control import Control
    messages = []
    ges(Scorer(data, "bdeu"), control=Control(progress=lambda info: messages.append(info["message"]),
                                              min_interval=0))
    assert "ges: forward, step 1" in messages and messages[-1] == "ges: done"


# -- the doors and the peers ------------------------------------------------------------------------

def test_learn_and_the_command_line(capsys, tmp_path):
    network, data = asia_sample(5_000)
    result = learn(data, "ges", score="bic")
    assert result.algorithm == "ges" and isinstance(result.extra["cpdag"], CPDAG)
    back = Result.from_json(result.dumps())
    assert back.extra["cpdag"] == result.extra["cpdag"] and back.trajectory == json.loads(json.dumps(result.trajectory))
    csv = tmp_path / "asia.csv"
    data_frame = __import__("pandas").DataFrame(
        {name: np.asarray(network.states[i])[sample_codes(network, 5_000, seed=11)[:, i]]
         for i, name in enumerate(network.names)})
    data_frame.to_csv(csv, index=False)
    code = cli.main(["learn", str(csv), "--algorithm", "ges", "--score", "bic", "--json", str(tmp_path / "g.json")])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["algorithm"] == "ges"
    assert out["score"] == pytest.approx(result.score)


def test_bootstrap_runs_ges():
    _, data = asia_sample(2_000)
    result = bootstrap(data, algorithm="ges", R=5, seed=1, workers=1)
    assert result.resamples == 5 and result.stats["stopped"] is None
    strong = {(row["from"], row["to"]) for row in result.table() if row["strength"] == 1.0}
    assert {frozenset(pair) for pair in strong} >= {frozenset(("bronc", "dysp")), frozenset(("either", "xray"))}


def test_at_least_as_good_as_pgmpy_ges():
    pgmpy_estimators = pytest.importorskip("pgmpy.estimators")
    import pandas as pd
    import warnings

    network, data = asia_sample(1_000)
    keep = ["smoke", "lung", "bronc", "either", "dysp"]  # pgmpy's GES is slow: five of asia's variables
    columns = [data.names.index(v) for v in keep]
    data = Dataset.from_codes(np.asarray(data.codes)[:, columns], network.arities[columns], keep)
    frame = pd.DataFrame(np.asarray(data.codes), columns=data.names).astype(int).astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pgmpy_estimators.GES(frame).estimate(scoring_method="bdeu")
    names = list(data.names)
    adj = np.zeros((len(names), len(names)), np.uint8)
    for u, v in theirs.edges():
        adj[names.index(u), names.index(v)] = 1
    theirs = PDAG(adj, names)
    scorer = Scorer(data, "bdeu")
    ours = ges(scorer)
    assert ours.score >= scorer.total(theirs.extension()) - 1e-6 * abs(ours.score)


@pytest.mark.parametrize("seed", range(4))
def test_refreshing_only_the_touched_nodes_gives_the_candidates_of_a_full_refresh(seed):
    data = problem(300 + seed, 6, 8, 2000)
    scorer = Scorer(data, "bic")
    n = scorer.n_vars
    dense = random_dag(np.random.default_rng(seed), n, 0.7).cpdag().adj  # the deletions need edges to remove
    steps = 0
    for start, ops in ((np.zeros((n, n), np.uint8), ("insert", "delete")), (dense, ("delete", "insert"))):
        state = GesState(scorer, start)
        for op in ops:
            state.refresh(op, range(state.n))
            while True:
                move, _ = state.best(op, 1e-9)
                if move is None:
                    break
                state.stage(op, move)
                state.apply(op, *move[:2])
                state.refresh(op, state.touched)
                fresh = GesState(scorer, state.adj)
                fresh.refresh(op, range(state.n))
                assert fresh.candidates[op] == state.candidates[op]
                for y in range(state.n):
                    np.testing.assert_allclose(fresh.gains[op][y], state.gains[op][y], rtol=1e-12)
                assert state.score == pytest.approx(scorer.total(state.parents))
                steps += 1
    assert steps >= 6


def test_a_time_limit_on_a_fake_clock_and_tiny_problems():
    from bnexplore.control import Control
    from fakes import FakeClock

    _, data = asia_sample(5_000)
    result = ges(Scorer(data, "bdeu"), control=Control(time_limit=10, clock=FakeClock(1.0)))
    assert result.stats["stopped"] == "time limit"
    assert mec_key(result.graph) == mec_key(result.extra["cpdag"])
    one = Dataset.from_codes(np.zeros((10, 1), np.uint8), names=["a"])
    assert ges(Scorer(one, "bdeu")).graph.n_edges == 0
    constant = Dataset.from_codes(np.zeros((50, 3), np.uint8), names=["a", "b", "c"])
    assert ges(Scorer(constant, "bic")).graph.n_edges == 0


def test_subsets_beyond_the_bound_are_refused_naming_max_indegree(monkeypatch):
    import bnexplore.search.ges as module

    star = np.zeros((6, 6), np.uint8)
    for u, v in itertools.combinations(range(1, 6), 2):  # a clique of links among 1..5, all linked to 0
        star[u, v] = star[v, u] = 1
    for v in range(1, 6):
        star[0, v] = star[v, 0] = 1
    cpdag = CPDAG(star)
    assert cpdag.is_valid()
    monkeypatch.setattr(module, "MAX_SUBSETS", 8)
    with pytest.raises(SearchError, match="more than 8 subsets .*give max_indegree"):
        valid_operators(cpdag)
    monkeypatch.undo()
    assert len(valid_operators(cpdag)) == 30 * 2 ** 4  # complete: every ordered pair, H any subset of the 4 others


@pytest.mark.parametrize("k", [1, 3])
def test_a_stop_during_the_first_pass_on_wide_data(k, wide, check_every_10_columns):
    """400 columns, the stop checked every 10 columns' worth of local scores: GES stops inside its
    first pass, on the empty class, having scored no more than k such pieces."""
    stop = StopAfter(k)
    result = ges(Scorer(wide), stop=stop)
    assert result.stats["stopped"] == "stopped" and stop.calls == k
    assert result.stats["iterations"] == 0 and result.graph.n_edges == 0
    assert result.stats["local_scores_computed"] <= WIDE + k * 10 * (WIDE - 1)
