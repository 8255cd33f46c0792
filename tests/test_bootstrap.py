"""Bootstrap arc strength: strengths against a plain serial count, the
threshold rule by hand, the acyclic repair, stops that keep the resamples
done, and the same result on one or two workers."""

import importlib
import os
import multiprocessing
import time
import tracemalloc
from pathlib import Path

import numpy as np
import psutil
import pytest

from fakes import FakeClock, StopAfter
from bnexplore.control import Control
from bnexplore.bootstrap import MAX_RESAMPLES, averaged_network, bootstrap, l1_fraction, l1_threshold
from bnexplore.data import read_csv
from bnexplore.errors import OptionError, ResourceError, SearchError
from bnexplore.knowledge import Knowledge
from bnexplore.search import learn

bootstrap_module = importlib.import_module("bnexplore.bootstrap")  # the package exports the function of that name
ASIA = Path(__file__).resolve().parents[1] / "sample_data" / "asia.csv"


@pytest.fixture(scope="module")
def asia():
    return read_csv(ASIA).subset(slice(0, 1500))


def naive_strengths(data, seed, R, algorithm, cpdag, **options):
    """Resample, learn and count pair by pair with plain loops."""
    n = data.n_vars
    adjacent = [[0] * n for _ in range(n)]
    forward = [[0.0] * n for _ in range(n)]
    for r in range(R):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(r,)))
        rows = rng.integers(0, data.n_rows, size=data.n_rows)
        graph = learn(data.subset(rows), algorithm, score="bdeu", **options).graph
        if cpdag:
            graph = graph.cpdag()
        arcs, links = set(graph.arcs()), {frozenset(e) for e in graph.links()}
        for u in range(n):
            for v in range(n):
                if (u, v) in arcs:
                    adjacent[u][v] += 1
                    forward[u][v] += 1
                elif (v, u) in arcs:
                    adjacent[u][v] += 1
                elif frozenset((u, v)) in links:
                    adjacent[u][v] += 1
                    forward[u][v] += 0.5
    strength = np.array(adjacent) / R
    direction = np.array([[forward[u][v] / adjacent[u][v] if adjacent[u][v] else 0.0 for v in range(n)]
                          for u in range(n)])
    return strength, direction


@pytest.mark.parametrize("algorithm, cpdag", [("hc", True), ("hc", False), ("tabu", True)])
def test_strengths_match_a_plain_serial_count(asia, algorithm, cpdag):
    result = bootstrap(asia, algorithm, R=12, seed=5, cpdag=cpdag, workers=1)
    strength, direction = naive_strengths(asia, 5, 12, algorithm, cpdag)
    assert result.resamples == 12 and len(result.graphs) == 12
    assert np.array_equal(result.strength, strength)
    assert np.allclose(result.direction, direction, rtol=0, atol=1e-15)
    rows = {(r["from"], r["to"]): r for r in result.table()}
    for u, a in enumerate(asia.names):
        for v, b in enumerate(asia.names):
            if strength[u, v] > 0:
                assert rows[a, b]["strength"] == strength[u, v] and rows[a, b]["direction"] == direction[u, v]
            else:
                assert (a, b) not in rows


def test_the_same_seed_gives_the_same_result_on_two_workers(asia):
    one = bootstrap(asia, "hc", R=6, seed=11, workers=1)
    two = bootstrap(asia, "hc", R=6, seed=11, workers=2, chunk_size=1)
    assert two.stats["backend"] == "processes" and one.stats["backend"] == "serial"
    assert np.array_equal(one.counts, two.counts) and np.array_equal(one.directed, two.directed)
    assert all(np.array_equal(a, b) for a, b in zip(one.graphs, two.graphs))


def test_without_a_seed_the_entropy_is_recorded_and_repeats_the_run(asia):
    first = bootstrap(asia, "hc", R=3, workers=1)
    again = bootstrap(asia, "hc", R=3, seed=first.params["seed"], workers=1)
    assert np.array_equal(first.counts, again.counts)


def test_l1_threshold_by_hand():
    # five zeros, then 0.2, 0.5, 1, 1, 1: knots 0, 0.2, 0.5, 1 cut [0, 1] into [0, .2), [.2, .5), [.5, 1)
    # of widths .2, .3, .5, where the empirical CDF is .5, .6, .7:
    # L1(p) = .2|.5 - p| + .3|.6 - p| + .5|.7 - p| has slope -1 below .5, -.6 on (.5, .6), 0 on (.6, .7)
    # and +1 above .7: flat on [.6, .7], midpoint .65; the type 1 quantile at .65 is the 7th value, 0.5.
    strengths = [0, 0, 0, 0, 0, 0.2, 0.5, 1, 1, 1]
    assert l1_fraction(strengths) == pytest.approx(0.65)
    assert l1_threshold(strengths) == 0.5
    # six zeros and four 0.9: [0, .9) with F = .6 (width .9), [.9, 1) with F = 1 (width .1):
    # the unique minimiser p = .6 gives the 6th value, 0: every pair seen at all is kept.
    assert l1_fraction([0] * 6 + [0.9] * 4) == pytest.approx(0.6)
    assert l1_threshold([0] * 6 + [0.9] * 4) == 0.0


@pytest.mark.parametrize("seed", range(10))
def test_l1_fraction_minimises_the_l1_distance(seed):
    rng = np.random.default_rng(seed)
    x = np.sort(np.round(rng.random(int(rng.integers(1, 30))) ** 2, 2))
    knots = np.unique(np.concatenate([[0], x, [1]]))
    heights = [(x <= t).mean() for t in knots[:-1]]

    def loss(p):
        return sum(w * abs(h - p) for w, h in zip(np.diff(knots), heights))

    p = l1_fraction(x)
    assert loss(p) <= min(loss(q) for q in np.linspace(0, 1, 2001)) + 1e-12
    assert l1_threshold(x) == x[max(1, int(np.ceil(len(x) * p - 1e-9))) - 1]


def test_averaged_network_keeps_strong_pairs_in_their_likelier_direction():
    names = ["A", "B", "C", "D"]
    strength = np.zeros((4, 4))
    direction = np.zeros((4, 4))

    def pair(u, v, s, d):
        strength[u, v] = strength[v, u] = s
        direction[u, v], direction[v, u] = d, 1 - d

    pair(0, 1, 1.0, 0.9)   # A -> B
    pair(1, 2, 0.9, 0.5)   # B - C: no direction preferred, a link
    pair(2, 3, 0.4, 1.0)   # below the threshold
    averaged = averaged_network(names, strength, direction, 0.5)
    assert averaged.graph.to_json() == {"nodes": names, "arcs": [["A", "B"]], "links": [["B", "C"]]}
    assert averaged.dropped == []
    # strength 1 is kept whatever the threshold; above-threshold pairs only otherwise
    assert averaged_network(names, strength, direction, 1.0).graph.to_json()["arcs"] == [["A", "B"]]


def test_the_weakest_arc_closing_a_cycle_is_dropped_and_stated():
    names = ["A", "B", "C"]
    strength = np.zeros((3, 3))
    direction = np.zeros((3, 3))
    for (u, v), s in {(0, 1): 1.0, (1, 2): 0.9, (2, 0): 0.8}.items():
        strength[u, v] = strength[v, u] = s
        direction[u, v], direction[v, u] = 0.8, 0.2
    averaged = averaged_network(names, strength, direction, 0.5)
    assert averaged.graph.to_json()["arcs"] == [["A", "B"], ["B", "C"]]
    assert averaged.dropped == [{"from": "C", "to": "A", "strength": 0.8, "direction": 0.8,
                                 "cycle": ["C", "A", "B", "C"]}]


def test_the_averaged_network_has_a_dag_even_when_its_links_have_no_consistent_extension():
    names = ["A", "B", "C", "D", "E"]
    strength = np.zeros((5, 5))
    direction = np.zeros((5, 5))
    for u, v in [(0, 1), (1, 2), (2, 3), (3, 0)]:  # a chordless cycle of links: no consistent extension
        strength[u, v] = strength[v, u] = 0.9
        direction[u, v] = direction[v, u] = 0.5
    strength[4, 0] = strength[0, 4] = 0.9
    direction[4, 0], direction[0, 4] = 0.9, 0.1  # E -> A
    averaged = averaged_network(names, strength, direction, 0.5)
    assert len(averaged.graph.links()) == 4
    with pytest.raises(SearchError):
        averaged.graph.extension()
    dag = averaged.dag()
    assert dag.names == names and ["E", "A"] in dag.to_json()["arcs"]  # the arc kept; acyclic (a DAG)
    assert {frozenset(e) for e in dag.to_json()["arcs"]} == \
        {frozenset(p) for p in [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A"), ("E", "A")]}
    # with a consistent extension, that is the DAG
    strength[3, 0] = strength[0, 3] = 0.0
    chain = averaged_network(names, strength, direction, 0.5)
    assert chain.dag() == chain.graph.extension()


def test_a_stop_keeps_the_resamples_done(asia):
    full = bootstrap(asia, "hc", R=8, seed=3, workers=1)
    calls = []
    stopped = bootstrap(asia, "hc", R=8, seed=3, workers=1, stop=StopAfter(40), progress=calls.append)
    assert 0 < stopped.resamples < 8 and stopped.stats["stopped"] == "stopped"
    prefix = bootstrap(asia, "hc", R=stopped.resamples, seed=3, workers=1)
    assert np.array_equal(stopped.counts, prefix.counts)
    assert all(np.array_equal(a, b) for a, b in zip(stopped.graphs, full.graphs))
    assert calls[-1]["message"] == f"bootstrap: {stopped.resamples}/8 resamples"
    assert full.stats["stopped"] is None


def test_knowledge_reaches_every_resample(asia):
    knowledge = Knowledge(require=[("asia", "smoke")], forbid=[("either", "xray")], tiers=[["dysp"], ["bronc"]])
    result = bootstrap(asia, "hc", R=4, seed=1, workers=1, knowledge=knowledge, cpdag=False)
    bound = knowledge.bind(asia)
    for cells in result.graphs:
        adj = np.zeros((asia.n_vars, asia.n_vars), np.uint8)
        adj[cells[:, 0], cells[:, 1]] = 1
        assert bound.allows(adj)
    assert result.params["knowledge"] == knowledge.to_json()
    assert result.strength[asia.index("asia"), asia.index("smoke")] == 1.0


def test_bad_arguments_are_refused(asia):
    with pytest.raises(SearchError, match="R must be a whole number >= 1"):
        bootstrap(asia, R=0)
    with pytest.raises(SearchError, match=f"R must be a whole number >= 1 and <= {MAX_RESAMPLES:,}, got 1000000000"):
        bootstrap(asia, R=10**9)
    with pytest.raises(OptionError, match="seed must be a whole number >= 0"):
        bootstrap(asia, R=2, seed="abc")
    with pytest.raises(OptionError, match="workers must be a whole number >= 1"):
        bootstrap(asia, R=2, workers=0)
    with pytest.raises(SearchError, match="unknown algorithm 'hcc'"):
        bootstrap(asia, "hcc")
    with pytest.raises(SearchError, match="hc does not take foo"):
        bootstrap(asia, R=2, workers=1, foo=1)
    with pytest.raises(SearchError, match="threshold must lie in"):
        bootstrap(asia, R=1, seed=1).averaged(1.5)


def test_json_holds_the_strength_table_and_the_averaged_network(asia):
    payload = bootstrap(asia, "hc", R=3, seed=2, workers=1, max_indegree=2).to_json()
    assert {"strength", "averaged", "resamples", "params", "stats"} <= set(payload)
    assert payload["averaged"]["threshold_method"] == "l1" and payload["params"]["options"] == {"max_indegree": 2}
    assert all(0 < row["strength"] <= 1 for row in payload["strength"])


@pytest.mark.filterwarnings("ignore:Port .* is already in use")
def test_a_dask_cluster_gives_the_same_result(asia):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        remote = bootstrap(asia, "hc", R=4, seed=7, scheduler=cluster.scheduler_address, chunk_size=1)
    local = bootstrap(asia, "hc", R=4, seed=7, workers=1)
    assert remote.stats["backend"] == "dask" and remote.resamples == 4
    assert np.array_equal(remote.counts, local.counts) and np.array_equal(remote.directed, local.directed)


def test_a_full_json_round_trip_rebuilds_the_result(asia):
    import json

    result = bootstrap(asia, "hc", R=3, seed=4, workers=1)
    again = type(result).from_json(json.dumps(result.to_json(full=True)))
    assert again.names == result.names and again.resamples == 3
    assert np.array_equal(again.counts, result.counts) and np.array_equal(again.directed, result.directed)
    assert all(np.array_equal(a, b) for a, b in zip(again.graphs, result.graphs))
    assert again.to_json() == result.to_json()
    with pytest.raises(SearchError, match="not a full bootstrap result"):
        type(result).from_json(result.to_json())


@pytest.mark.parametrize("step, backend", [(1e-6, "serial"), (100.0, "processes")])
def test_by_default_processes_start_only_when_the_work_pays_for_them(asia, step, backend, monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    control = Control(clock=FakeClock(step))  # the first resample seems to take `step` seconds
    result = bootstrap(asia, "hc", R=3, seed=9, control=control)
    assert result.stats["backend"] == backend and result.resamples == 3
    assert np.array_equal(result.counts, bootstrap(asia, "hc", R=3, seed=9, workers=1).counts)


class StopRecordingChildren(StopAfter):
    """StopAfter(k) that also records the process ids of this process's children at every check."""

    def __init__(self, k):
        super().__init__(k)
        self.pids = set()

    def __call__(self):
        self.pids.update(p.pid for p in multiprocessing.active_children())
        return super().__call__()


def gone(pid):
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_stop_ends_the_worker_processes_before_returning(asia):
    stop = StopRecordingChildren(6)  # the 1st check precedes the workers; by the 6th both are learning
    result = bootstrap(asia, "hc", R=MAX_RESAMPLES, seed=1, workers=2, chunk_size=1, stop=stop)
    assert result.stats["backend"] == "processes" and result.stats["stopped"] == "stopped"
    assert result.resamples < MAX_RESAMPLES and len(stop.pids) == 2
    # terminated and reaped before bootstrap returned; a generous bound only in case the kernel is slow to tell
    deadline = time.monotonic() + 60
    while not all(gone(pid) for pid in stop.pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(gone(pid) for pid in stop.pids)
    assert not multiprocessing.active_children()


def test_a_worker_that_dies_is_an_error_not_a_hang(asia):
    def kill_one():
        children = multiprocessing.active_children()
        if children:
            children[0].kill()
        return False

    with pytest.raises(ResourceError, match="worker process ended unexpectedly"):
        bootstrap(asia, "hc", R=MAX_RESAMPLES, seed=1, workers=2, chunk_size=1, stop=kill_one)
    assert not multiprocessing.active_children()


def test_a_huge_R_starts_without_memory_growing_with_R(asia, monkeypatch):
    monkeypatch.setattr(bootstrap_module, "MAX_RESAMPLES", 10**7)
    tracemalloc.start()
    try:
        result = bootstrap(asia, "hc", R=10**7, seed=1, workers=1, stop=StopAfter(200))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0 < result.resamples < 10**7 and result.stats["stopped"] == "stopped"
    assert peak < 50 * 2**20  # measured 14 MB (learning 200 checks' worth); a list of 10^7 indices alone is 360 MB


def test_ctrl_c_at_the_command_line_ends_the_workers_and_prints_the_result():
    import json
    import signal
    import subprocess
    import sys

    command = [sys.executable, "-m", "bnexplore", "learn", str(ASIA), "--quiet", "--seed", "1",
               "--bootstrap", str(MAX_RESAMPLES), "--bootstrap-workers", "2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        cli = psutil.Process(process.pid)
        deadline = time.monotonic() + 300  # wait (generously) until both workers are running
        while len(cli.children()) < 3 and time.monotonic() < deadline:  # the workers and the resource tracker
            time.sleep(0.1)
        workers = [p for p in cli.children() if "resource_tracker" not in " ".join(p.cmdline())]
        assert len(workers) == 2
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group gets it
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0 and "Traceback" not in err, err
    payload = json.loads(out)
    assert payload["bootstrap"]["resamples"] < MAX_RESAMPLES and payload["bootstrap"]["stats"]["stopped"] == "stopped"
    assert all(gone(p.pid) for p in workers)


def test_an_error_in_a_worker_process_reaches_the_caller(asia):
    with pytest.raises(SearchError, match="hc does not take foo"):
        bootstrap(asia, "hc", R=4, seed=1, workers=2, chunk_size=1, foo=1)
    assert not multiprocessing.active_children()
