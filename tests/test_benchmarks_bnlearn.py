"""bnlearn beside bnexplore in the benchmarks: :func:`harness.bnlearn` and the local search's use of it.

The R runs need ``Rscript`` with bnlearn (the benchmark environment, BENCHMARKS.md); without them those tests
are skipped and the benchmarks say bnlearn is not installed.
"""

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_local_search  # noqa: E402
import harness  # noqa: E402

from bnexplore import Scorer, learn  # noqa: E402
from bnexplore.graphs import DAG  # noqa: E402

needs_bnlearn = pytest.mark.skipif(harness.bnlearn_version() is None, reason="needs R's Rscript with bnlearn")


def test_without_bnlearn_the_local_search_says_not_installed(monkeypatch):
    monkeypatch.setattr(harness, "bnlearn_version", lambda: None)
    _, data = harness.sampled("asia", 200)
    assert bench_local_search.bnlearn_hc(data.to_frame().astype(str), dict(zip(data.names, data.states))) is None


@needs_bnlearn
def test_bnlearns_bdeu_of_its_network_is_ours_and_its_climb_reaches_our_climbs_score():
    _, data = harness.sampled("asia", 3000)
    states = dict(zip(data.names, data.states))
    theirs = harness.bnlearn("hc", states, data.to_frame().astype(str), 300)
    assert theirs["seconds"] >= 0 and theirs["version"] == harness.bnlearn_version()
    graph = DAG.from_arcs(theirs["arcs"], data.names)
    # the same score on the same graph: bnlearn's BDeu (iss 1) and ours agree to rounding
    assert Scorer(data, "bdeu", ess=1.0).total(graph) == pytest.approx(theirs["score"], rel=1e-12, abs=1e-9)
    # both climb that score from the empty graph by single-arc moves: on this sample they end in the same
    # equivalence class (same skeleton, same score), whichever way each orients its arcs
    ours = learn(data, "hc", score="bdeu", ess=1.0)
    assert ours.score == pytest.approx(theirs["score"], rel=1e-12)
    assert (graph.skeleton() == ours.graph.skeleton()).all()
    seconds, arcs = bench_local_search.bnlearn_hc(data.to_frame().astype(str), states)
    assert seconds >= 0 and sorted(arcs) == sorted(theirs["arcs"])
