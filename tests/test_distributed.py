"""Parent-set identification on Dask: the same candidates as one process, and
no finished variable lost when a worker dies mid-run."""

import os
import signal

import numpy as np
import pytest

from bnexplore.errors import ResourceError
from bnexplore.parents.explore import explore_parent_sets
from bnexplore.scores import Scorer
from bnexplore.search.ordering import ordering_search
from test_compiling import assert_seconds_leave_out_compiling
from test_scores import random_dag_data

distributed = pytest.importorskip("dask.distributed")
from bnexplore.distributed import explore_distributed  # noqa: E402  (needs dask)


@pytest.fixture(scope="module")
def scorer():
    data = random_dag_data(np.random.default_rng(4), 10, 3000, max_arity=3, max_parents=3)[0]
    return Scorer(data, "bic")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c


def assert_same(a, b):
    assert a.names == b.names
    for v in range(a.n_vars):
        assert a.sets(v) == b.sets(v)
        assert a.scores(v).tolist() == b.scores(v).tolist()
    assert a.stats["per_node"]["evaluated"] == b.stats["per_node"]["evaluated"]


@pytest.mark.parametrize("method", ["independence", "greedy"])
def test_two_workers_give_the_single_process_result(scorer, cluster, method):
    options = dict(method=method, max_indegree=3, max_evaluations=60)
    local = explore_parent_sets(scorer, **options)
    remote = explore_distributed(scorer, **options, scheduler=cluster.scheduler_address, chunk_size=3)
    assert_same(local, remote)
    assert remote.stats["workers"] == 2 and remote.stats["chunks"] == 4


def test_its_seconds_leave_out_the_compiling_in_this_process(scorer, cluster):
    assert_seconds_leave_out_compiling(lambda stop: explore_distributed(
        scorer, method="independence", max_indegree=3, max_evaluations=60, scheduler=cluster.scheduler_address,
        chunk_size=3, stop=stop).stats["seconds"])


def test_two_workers_give_the_single_process_result_under_knowledge(scorer, cluster):
    from bnexplore.knowledge import Knowledge

    names = scorer.names
    knowledge = Knowledge(require=[(names[0], names[1]), (names[2], names[1])], forbid=[(names[3], names[4])],
                          tiers=[names[:5], names[5:]])
    options = dict(method="independence", max_indegree=3, max_evaluations=40, knowledge=knowledge)
    local = explore_parent_sets(scorer, **options)
    remote = explore_distributed(scorer, **options, scheduler=cluster.scheduler_address, chunk_size=3)
    assert_same(local, remote)
    bound = knowledge.bind(scorer)
    assert all(bound.parents_ok(v, ps) for v in range(scorer.n_vars) for ps in remote.sets(v))
    assert remote.stats["knowledge"] == knowledge.to_json()


@pytest.mark.slow
def test_local_cluster_started_by_workers(scorer):
    """``workers=2`` starts (and closes) a local cluster for the search."""
    result = ordering_search(scorer, "asobs", parents="sequential", max_indegree=2, max_evaluations=30,
                             workers=2, restarts=2, seed=3)
    single = ordering_search(scorer, "asobs", parents="sequential", max_indegree=2, max_evaluations=30,
                             restarts=2, seed=3)
    assert result.score == single.score and result.graph == single.graph


def test_a_lost_worker_loses_no_finished_variable(scorer, cluster):
    """Kill a worker process once the first chunk is in: Dask reruns its tasks,
    the chunks already gathered are kept, and the result is unchanged."""
    killed = []

    def progress(info):
        if not killed:
            nanny = next(iter(cluster.workers.values()))
            killed.append(nanny.process.process.pid)
            os.kill(killed[0], signal.SIGKILL)

    options = dict(method="independence", max_indegree=3, max_evaluations=400)
    remote = explore_distributed(scorer, **options, scheduler=cluster.scheduler_address, chunk_size=1,
                                 progress=progress)
    assert killed
    assert_same(explore_parent_sets(scorer, **options), remote)
    assert all(remote.stats["explored"])


def test_unreachable_scheduler(scorer, monkeypatch):
    monkeypatch.setattr("bnexplore.distributed.CONNECT_SECONDS", 1)
    with pytest.raises(ResourceError, match="cannot reach the Dask scheduler"):
        explore_distributed(scorer, max_evaluations=5, scheduler="tcp://127.0.0.1:9")
