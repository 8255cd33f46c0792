"""DAG hill climbing and tabu search: local optimality by brute force over the
neighbourhood, constraints, restarts, tabu's best-seen guarantee, statistics."""

import itertools
import json
import os

import numpy as np
import pytest

import naive
from bnexplore.control import Control
from fakes import FakeClock, StopAfter
from bnexplore.errors import BNExploreError
from bnexplore.data import Dataset
from bnexplore.graphs import DAG, is_acyclic
from bnexplore.scores import Scorer
from bnexplore.scores import scorer as scorer_module
from bnexplore.search.dagstate import best_move, legal_moves, reachability
from bnexplore.search.hillclimb import hill_climb, tabu_search
from test_scores import random_dag_data


@pytest.fixture(scope="module")
def problem():
    data, truth = random_dag_data(np.random.default_rng(21), 9, 1500, max_parents=2)
    return data, truth


def neighbours(parents, max_indegree=None):
    """Every DAG one add / delete / reverse away, by brute force."""
    n = len(parents)
    cap = n if max_indegree is None else max_indegree
    for u, v in itertools.permutations(range(n), 2):
        new = [set(p) for p in parents]
        if u in parents[v]:
            new[v].discard(u)
            yield "delete", u, v, new
            rev = [set(p) for p in new]
            rev[u].add(v)
            if len(rev[u]) <= cap:
                yield "reverse", u, v, rev
        elif v not in parents[u] and len(parents[v]) < cap:
            new[v].add(u)
            yield "add", u, v, new


def adjacency(parents):
    n = len(parents)
    adj = np.zeros((n, n), np.uint8)
    for v, ps in enumerate(parents):
        for u in ps:
            adj[u, v] = 1
    return adj


def assert_local_optimum(scorer, result, max_indegree=None, blacklist=()):
    parents = [set(p) for p in result.graph.parent_sets()]
    base = scorer.total(parents)
    assert result.score == pytest.approx(base, rel=1e-12)
    for op, u, v, new in neighbours(parents, max_indegree):
        if not is_acyclic(adjacency(new)) or any(b in ps for b, c in blacklist for ps in [new[c]]):
            continue
        assert scorer.total(new) <= base + 1e-9 * abs(base), (op, u, v)


def test_reachability_matches_naive():
    rng = np.random.default_rng(1)
    for _ in range(30):
        n = int(rng.integers(1, 12))
        order = rng.permutation(n)
        adj = np.zeros((n, n), np.bool_)
        for i in range(n):
            for j in range(i + 1, n):
                adj[order[i], order[j]] = rng.random() < 0.3
        assert (reachability(adj) == naive.reachability(adj)).all()


def random_move_state(rng, n):
    """A random DAG with its reachability, constraint masks and deltas full of ties and -inf."""
    order = rng.permutation(n)
    adj = np.zeros((n, n), np.bool_)
    for i in range(n):
        for j in range(i + 1, n):
            adj[order[i], order[j]] = rng.random() < 0.35
    allow = (rng.random((n, n)) < 0.85) & ~np.eye(n, dtype=np.bool_)
    white = adj & (rng.random((n, n)) < 0.2)
    room = rng.random(n) < 0.8
    delta = rng.integers(-4, 5, (n, n)) * 0.5 + rng.choice([0.0, 1e-12, -1e-12], (n, n))
    delta[rng.random((n, n)) < 0.1] = -np.inf
    return adj, reachability(adj), allow, white, room, delta


def test_move_choice_kernels_match_naive():
    """legal_moves and best_move against their twins, with tied gains and cyclic reversals."""
    rng = np.random.default_rng(5)
    kinds, skipped = set(), 0
    for trial in range(300):
        n = int(rng.integers(2, 9))
        adj, reach, allow, white, room, delta = random_move_state(rng, n)
        masks = legal_moves(adj, reach, allow, white, room)
        expected = naive.legal_moves(adj.tolist(), reach.tolist(), allow.tolist(), white.tolist(), room.tolist())
        for mask, want in zip(masks, expected):
            assert set(zip(*map(list, np.nonzero(mask)))) == want
        tol = [0.0, 1e-9, 0.6][trial % 3]
        got = best_move(delta, *masks, adj, reach, tol)
        want = naive.best_move(delta.tolist(), *expected, adj.tolist(), tol)
        assert (int(got[0]), int(got[1]), int(got[2])) == want[:3] and got[3] == want[3], trial
        kinds.add(int(got[0]))
        reversals = np.where(masks[2], delta + delta.T, -np.inf)
        skipped += int(got[0]) in (0, 1) and reversals.max(initial=-np.inf) > got[3] + tol  # it closed a cycle
    assert kinds == {-1, 0, 1, 2} and skipped > 0


def test_a_full_cache_of_added_parents_changes_nothing_but_memory(problem, monkeypatch):
    """Past CACHED_ADDITIONS entries the added parents' scores are computed, not cached: same climb."""
    data, _ = problem
    whole = hill_climb(Scorer(data, "bic"), restarts=3, seed=2)
    monkeypatch.setattr(scorer_module, "CACHED_ADDITIONS", 20)
    scorer = Scorer(data, "bic")
    capped = hill_climb(scorer, restarts=3, seed=2)
    assert capped.graph == whole.graph and capped.score == whole.score
    assert [(s["op"], s["args"]) for s in capped.trajectory] == [(s["op"], s["args"]) for s in whole.trajectory]
    assert capped.stats["local_scores_computed"] > whole.stats["local_scores_computed"]  # not cached: computed again


@pytest.mark.parametrize("score", ["bdeu", "bic"])
def test_hill_climbing_ends_in_a_true_local_optimum(problem, score):
    data, _ = problem
    scorer = Scorer(data, score)
    result = hill_climb(scorer)
    assert result.graph.n_edges > 0
    assert_local_optimum(scorer, result)


def test_local_optimum_with_max_indegree_and_blacklist(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    blacklist = [(data.names[0], data.names[1]), (2, 3)]
    result = hill_climb(scorer, max_indegree=1, blacklist=blacklist)
    assert max(len(p) for p in result.graph.parent_sets()) <= 1
    assert 0 not in result.graph.parents(1) and 2 not in result.graph.parents(3)
    assert_local_optimum(scorer, result, max_indegree=1, blacklist=[(0, 1), (2, 3)])


def test_whitelist_is_kept_and_start_graph_used(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = hill_climb(scorer, whitelist=[(8, 0)])
    assert 8 in result.graph.parents(0)
    start = [[] for _ in range(9)]
    start[4] = [3]
    result = hill_climb(scorer, start=start, max_indegree=0 + 2)
    assert result.trajectory[0]["score"] > scorer.total(start)


def test_trajectory_replays_to_the_result(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = hill_climb(scorer, restarts=2, seed=3)
    parents = [set() for _ in range(9)]
    index = {name: i for i, name in enumerate(data.names)}
    best = scorer.total(parents)
    for step in result.trajectory:
        u, v = (index[a] for a in step["args"])
        if step["op"] == "add":
            parents[v].add(u)
        elif step["op"] == "delete":
            parents[v].discard(u)
        else:
            parents[v].discard(u)
            parents[u].add(v)
        assert scorer.total(parents) == pytest.approx(step["score"], rel=1e-12)
        best = max(best, step["score"])
        if step.get("kind") != "perturb":
            assert step["delta"] > 0
    assert result.score == pytest.approx(best, rel=1e-12)


def test_restarts_never_lose_the_first_optimum(problem):
    data, _ = problem
    scorer = Scorer(data, "bic")
    plain = hill_climb(scorer)
    restarted = hill_climb(scorer, restarts=4, perturb=3, seed=0)
    assert restarted.score >= plain.score - 1e-9
    assert any(step.get("kind") == "perturb" for step in restarted.trajectory)
    default = hill_climb(scorer, restarts=1, seed=0)
    perturbed = [step for step in default.trajectory if step.get("kind") == "perturb"]
    assert default.params["perturb"] == len(perturbed) == scorer.n_vars  # n moves by default (n < 100)


def test_tabu_returns_its_best_seen_graph(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = tabu_search(scorer, iterations=60)
    seen = max(step["score"] for step in result.trajectory)
    assert result.score == pytest.approx(max(seen, scorer.total([[]] * 9)), rel=1e-12)
    assert result.stats["iterations"] == 60
    assert any(step["delta"] < 0 for step in result.trajectory)  # it does walk downhill
    assert result.score >= hill_climb(scorer).score - 1e-9


def test_tabu_list_forbids_undoing_the_last_moves_unless_they_reach_a_new_best(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = tabu_search(scorer, iterations=40, tabu_length=9)
    steps = [(s["op"], tuple(s["args"])) for s in result.trajectory]
    inverse = {"add": "delete", "delete": "add"}
    best = np.maximum.accumulate([scorer.total([[]] * 9)] + [s["score"] for s in result.trajectory])
    let_through = 0
    for i, (op, (u, v)) in enumerate(steps):
        undo = ("reverse", (v, u)) if op == "reverse" else (inverse[op], (u, v))
        for k in range(i + 1, min(i + 10, len(steps))):
            if steps[k] == undo:  # only by aspiration: the move reaches a graph better than all before it
                step = result.trajectory[k]
                assert step["tabu"] and step["score"] > best[k] + 1e-9 * abs(best[k]), (i, k, undo)
                let_through += 1
    assert let_through == sum(s["tabu"] for s in result.trajectory)


def test_statistics_are_reported(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = hill_climb(scorer)
    stats = result.stats
    for key in ("seconds", "iterations", "structures_evaluated", "local_scores_computed",
                "local_score_lookups", "nvar", "cache_hits", "stopped", "edges"):
        assert key in stats
    assert stats["iterations"] == len(result.trajectory)
    assert stats["local_score_lookups"] >= stats["local_scores_computed"] > 0
    assert 1 <= stats["nvar"] <= 9
    assert stats["structures_evaluated"] >= 9 * 8 * stats["iterations"] // 2
    # plain Python values, as a result's JSON shape has them (a numpy count here once broke a benchmark's JSON)
    assert all(type(value) in (int, float, str, type(None)) for value in stats.values()), stats
    json.dumps(stats)
    again = hill_climb(scorer)
    assert again.stats["local_scores_computed"] == 0  # everything cached the second time
    assert again.score == result.score


def test_stop_flag_and_progress(problem):
    """The stop flag is honoured between steps: stopped at the k-th check, whatever the machine's speed."""
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    reports = []
    stop = StopAfter(4)
    control = Control(progress=reports.append, stop=stop, clock=FakeClock(1.0))
    result = tabu_search(scorer, iterations=500, control=control)
    assert result.stats["stopped"] == "stopped"
    assert 1 <= result.stats["iterations"] < stop.calls <= 5
    assert reports and all("score" in r for r in reports)
    assert len(reports) >= result.stats["iterations"]  # the fake clock lets every step's report through


def test_time_limit_on_a_fake_clock(problem):
    data, _ = problem
    scorer = Scorer(data, "bdeu")
    result = tabu_search(scorer, iterations=500, control=Control(time_limit=6.5, clock=FakeClock(1.0)))
    assert result.stats["stopped"] == "time limit"
    assert 1 <= result.stats["iterations"] <= 6  # at most one clock reading per step


@pytest.mark.parametrize("kwargs, message", [
    ({"blacklist": [(0, 1)], "whitelist": [(0, 1)]}, "both blacklisted and whitelisted"),
    ({"max_indegree": -1}, "max_indegree"),
    ({"restarts": 1.5}, "restarts"),
    ({"start": [[2], [0], [1]] + [[]] * 6}, "directed cycle: V0 -> V1 -> V2 -> V0"),
    ({"blacklist": [(3, 4)], "start": [[]] * 4 + [[3]] + [[]] * 4}, "blacklisted arc V3 -> V4"),
    ({"blacklist": ["V1"]}, "pairs"),
    ({"blacklist": [("V1", "nope")]}, "unknown variable 'nope'"),
])
def test_bad_parameters(problem, kwargs, message):
    data, _ = problem
    with pytest.raises(BNExploreError, match=message):
        hill_climb(Scorer(data), **kwargs)


@pytest.mark.parametrize("algorithm", ["hc", "tabu", "rpdag"])
def test_relabelling_states_does_not_change_the_result(problem, algorithm):
    """Ties (u -> v against v -> u, ...) are broken by position, not by rounding noise."""
    from types import SimpleNamespace

    from bnexplore.search import learn

    data, _ = problem
    rng = np.random.default_rng(5)
    codes = np.asarray(data.codes).copy()
    for j, r in enumerate(data.arities):
        codes[:, j] = rng.permutation(int(r))[codes[:, j]]
    relabelled = SimpleNamespace(codes=np.asfortranarray(codes), arities=data.arities, names=data.names)
    options = {"iterations": 40} if algorithm == "tabu" else {}
    a = learn(data, algorithm, **options)
    b = learn(relabelled, algorithm, **options)
    assert a.graph == b.graph
    assert a.score == pytest.approx(b.score, rel=1e-12)


# -- tabu search never ends below the greedy climb from the same start ---------

FULL = os.environ.get("BNEXPLORE_FULL") == "1"
GREEDY = {"tabu": "hc", "rpdag-tabu": "rpdag"}


def assert_tabu_follows_greedy(data, tabu_algorithm, score, **options):
    """Tabu search (aspiration + best seen) makes the greedy climb's moves up to
    its local optimum, then never returns anything below it. Returns both
    results and how many of those moves were tabu (let through by aspiration:
    without it tabu search would have left the greedy path there)."""
    from bnexplore.search import learn

    scorer = Scorer(data, score)
    greedy = learn(data, GREEDY[tabu_algorithm], scorer=scorer)
    tabu = learn(data, tabu_algorithm, scorer=scorer, **options)
    moves = [(s["op"], s["args"]) for s in greedy.trajectory]
    assert [(s["op"], s["args"]) for s in tabu.trajectory[:len(moves)]] == moves
    assert tabu.score >= greedy.score - 1e-9 * abs(greedy.score)
    beyond = tabu.trajectory[len(moves):]
    if beyond:  # the greedy optimum has no improving move, so tabu's next move does not improve
        assert beyond[0]["delta"] <= 1e-9 * abs(greedy.score)
    return greedy, tabu, sum(s["tabu"] for s in tabu.trajectory[:len(moves)])


@pytest.mark.parametrize("tabu_algorithm", ["tabu", "rpdag-tabu"])
def test_tabu_at_or_above_greedy_on_random_problems(tabu_algorithm):
    rng = np.random.default_rng(16)
    gained = 0
    for case in range(8):
        n = int(rng.integers(5, 10))
        data, _ = random_dag_data(rng, n, int(rng.integers(200, 1500)), max_parents=3)
        greedy, tabu, _ = assert_tabu_follows_greedy(data, tabu_algorithm, ("bdeu", "bic")[case % 2],
                                                     tabu_length=int(rng.integers(1, n + 1)))
        gained += tabu.score > greedy.score + 1e-9 * abs(greedy.score)
    if tabu_algorithm == "tabu":
        assert gained > 0  # tabu search does find better graphs than the greedy climb on some of them


def test_tabu_with_no_iterations_is_the_greedy_climb(problem):
    data, _ = problem
    for tabu_algorithm, iterations in (("tabu", 0), ("rpdag-tabu", 0), ("tabu", 3), ("rpdag-tabu", 3)):
        greedy, tabu, _ = assert_tabu_follows_greedy(data, tabu_algorithm, "bdeu", iterations=iterations)
        assert tabu.score == pytest.approx(greedy.score, rel=1e-12)
        assert tabu.stats["iterations"] == len(greedy.trajectory) > 3  # it finished the climb


SHORT_NETWORKS = ["asia", "cancer", "earthquake", "sachs", "survey", "child", "insurance"]
MORE_NETWORKS = ["alarm", "water", "hailfinder", "win95pts", "hepar2"]


@pytest.mark.slow
@pytest.mark.parametrize("tabu_algorithm", ["tabu", "rpdag-tabu"])
def test_tabu_at_or_above_greedy_on_sampled_networks(tabu_algorithm):
    """Data forward-sampled from the bundled networks (fixed seeds). Short form:
    seven networks of 5-27 variables, 2 seeds, 60 iterations; BNEXPLORE_FULL=1
    adds five of 32-76 variables, 3 seeds and the paper's n (n - 1) iterations.
    On insurance some greedy moves are tabu in both spaces (aspiration lets them through)."""
    from pathlib import Path

    from bnexplore.bif import read_bif, sample
    from bnexplore.data import Dataset

    folder = Path(__file__).resolve().parents[1] / "sample_data" / "networks"
    names = SHORT_NETWORKS + (MORE_NETWORKS if FULL else [])
    options = {} if FULL else {"iterations": 60}
    aspirations = 0
    for name in names:
        network = read_bif(folder / f"{name}.bif.gz")
        for seed in range(3 if FULL else 2):
            data = Dataset.from_frame(sample(network, (500, 2000)[seed % 2], seed=seed))
            aspirations += assert_tabu_follows_greedy(data, tabu_algorithm, "bdeu", **options)[2]
    assert aspirations > 0  # some greedy move was tabu: the case aspiration exists for


def test_toggles_with_more_configurations_than_an_int64_holds():
    """Tabu walks on sparse data add parents at no cost (every row has its own
    configuration); a parent set of 64 binary variables has 2^64 configurations,
    which overflowed an int64 product in Scorer.toggles and crashed the dense kernel."""
    from test_scores import table

    rng = np.random.default_rng(64)
    codes = rng.integers(0, 2, (120, 68)).astype(np.uint8)
    data = table(codes, np.full(68, 2))
    scorer = Scorer(data, "bdeu")
    parents = set(range(1, 65))
    values = scorer.toggles(0, parents, [65, 66, 67])
    for u, value in zip((65, 66, 67), values):
        assert value == pytest.approx(naive.local_score(codes, data.arities, 0, sorted(parents | {u}), "bdeu"),
                                      rel=1e-9)



def test_a_start_graph_listing_its_nodes_in_another_order_is_the_same_start():
    """The start is matched to the data by node name (before, by position: [c, b, a] with a -> b started
    the climb from c -> b)."""
    codes = np.random.default_rng(2).integers(0, 2, (300, 3))
    data = Dataset.from_codes(codes, names=["a", "b", "c"])
    starts = [hill_climb(Scorer(data, "bic"), start=DAG.from_arcs([("a", "b")], order)).extra["start"]
              for order in (["a", "b", "c"], ["c", "b", "a"])]
    assert starts[0] == starts[1] == DAG.from_arcs([("a", "b")], ["a", "b", "c"])
