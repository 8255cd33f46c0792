"""The 10,000-node benchmark's own parts, on a small network: the network drawn and its rows, and
both worker runs (the learner with progress, the learner stopped by its flag) report what the table needs."""

import sys
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_wide_synthetic as bench  # noqa: E402


def test_the_synthetic_network_has_local_parents_and_its_data_follow_it():
    codes, parents = bench.synthetic(60, 4000, 3, 10, seed=2)
    assert codes.shape == (4000, 60) and set(np.unique(codes)) <= {0, 1}
    assert all(len(ps) <= 3 and all(v - 10 <= u < v for u in ps) for v, ps in enumerate(parents))
    again, same = bench.synthetic(60, 4000, 3, 10, seed=2)
    assert (again == codes).all() and same == parents  # a seed gives the same network and rows
    # a child with parents depends on them in its rows: its frequency moves with a parent's state somewhere
    moved = [abs(codes[codes[:, ps[0]] == 0, v].mean() - codes[codes[:, ps[0]] == 1, v].mean())
             for v, ps in enumerate(parents) if len(ps) == 1]
    assert max(moved) > 0.2
    roots = [v for v, ps in enumerate(parents) if not ps]
    assert roots and 0 in roots


def test_both_runs_report_what_the_table_needs():
    args = {"nodes": 40, "rows": 300, "max_parents": 3, "window": 10, "seconds": 3.0, "stop_after": 3, "seed": 1}
    learned = bench.worker_learn(args)
    assert learned["reports"] > 0 and learned["largest_gap_s"] >= 0 and learned["peak_mib"] > 0
    assert learned["bic"] < 0 and learned["true_bic"] < 0 and learned["stats"]["stopped"] == "time limit"
    stopped = bench.worker_stop(args)
    assert stopped["stopped"] == "stopped" and stopped["acyclic"] and stopped["returned_after_stop_s"] >= 0
