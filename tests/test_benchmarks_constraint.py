"""The PC / GES / MMHC benchmark's bookkeeping: graphs as pair states, SHD, and the explanation of skeleton differences.

The peers themselves (causal-learn, pgmpy) run only in the benchmark; these tests feed the
script's functions the peers' documented encodings by hand.
"""

import sys
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_pc_ges_mmhc as bench  # noqa: E402
import bench_rpdag_paper  # noqa: E402

from bnexplore.graphs import DAG, shd  # noqa: E402


def test_causallearn_matrix_marks_read_as_arcs_links_and_bidirected_edges():
    # causal-learn: i -> j is graph[i, j] = -1, graph[j, i] = 1; i - j both -1; i <-> j both 1
    g = np.zeros((4, 4), int)
    g[0, 1], g[1, 0] = -1, 1      # 0 -> 1
    g[2, 1], g[1, 2] = -1, 1      # 2 -> 1
    g[2, 3] = g[3, 2] = -1        # 2 - 3
    g[0, 3] = g[3, 0] = 1         # 0 <-> 3
    assert bench.causallearn_states(g) == {(0, 1): 1, (1, 2): 2, (2, 3): 3, (0, 3): 4}


def test_pair_states_give_the_projects_shd_between_cpdags():
    rng = np.random.default_rng(3)
    names = list("abcdef")
    for _ in range(30):
        a, b = (DAG(np.triu(rng.random((6, 6)) < 0.4, 1).astype(int), names).cpdag() for _ in range(2))
        assert bench.shd_states(bench.pdag_states(a.adj), bench.pdag_states(b.adj)) == shd(a, b)


def test_named_edges_become_pair_states_with_opposite_arcs_as_a_conflict():
    names = ["x", "y", "z"]
    states = bench.named_states([("y", "x"), ("x", "z"), ("z", "x")], [("y", "z")], names)
    assert states == {(0, 1): 2, (0, 2): 4, (1, 2): 3}


def test_bdeu_of_a_graph_is_its_extensions_score_and_none_without_one():
    class Scorer:
        def total(self, dag):
            return float(len(dag.arcs()))

    names = ["a", "b", "c"]
    assert bench.bdeu_of({(0, 1): 3, (1, 2): 1}, Scorer(), names) == 2.0
    assert bench.bdeu_of({(0, 1): 4}, Scorer(), names) is None


def test_causallearn_cache_gives_each_pairs_tests_and_removal_level():
    cache = {"0;1": 0.001, "0;1|2": 0.2, "0;1|3": 0.6, "0;2": 0.0, "0;2|1": 0.01, "0;2|1.3": 0.5, "1;2": 0.3,
             "data_hash": "abc", "method_name": "gsq"}
    tests = bench.parse_cache(cache)
    assert tests[(0, 1)] == {(): 0.001, (2,): 0.2, (3,): 0.6}
    assert tests[(0, 2)][(1, 3)] == 0.5
    assert bench.removal_levels_theirs(tests, 0.05) == {(0, 1): 1, (0, 2): 2, (1, 2): 0}


def test_our_removals_are_read_from_the_trajectory_by_name():
    trajectory = [{"op": "remove", "args": ["c", "a"], "sepset": [], "level": 0},
                  {"op": "remove", "args": ["b", "d"], "sepset": ["c", "a"], "level": 2},
                  {"op": "v_structure", "args": ["a", "b", "c"]}]
    levels = bench.removal_levels_ours(trajectory, ["a", "b", "c", "d"])
    assert {pair: (level, sepset) for pair, (level, sepset, _) in levels.items()} == {(0, 2): (0, ()),
                                                                                       (1, 3): (2, (0, 2))}


def test_a_set_is_available_only_within_one_ends_neighbours_at_the_start_of_its_level():
    # 4 nodes; 0 - 2 removed at level 0, so {2} cannot separate 0 and 1 from 0's side,
    # but it can from 1's side unless 1 - 2 was removed too
    assert bench.available({(0, 2): 0}, 4, 0, 1, (2,)) == (True, [])
    can, missing = bench.available({(0, 2): 0, (1, 2): 0}, 4, 0, 1, (2,))
    assert not can and missing == [(0, 2), (1, 2)]
    # a removal at the same level does not shrink that level's neighbour sets (PC-stable)
    assert bench.available({(0, 2): 1, (1, 2): 1}, 4, 0, 1, (2,)) == (True, [])


def test_the_paper_design_table_sets_ges_beside_rpdag_search():
    records = []
    for seed, (rpdag, ges) in enumerate([(-100.0, -90.0), (-100.0, -100.0), (-100.0, -120.0)], start=1):
        for label, bdeu, h in (("DAG", -130.0, 9), ("RPDAG", rpdag, 5), ("GES", ges, 4), ("PC", -200.0, 12),
                               ("MMHC", -140.0, 8)):
            records.append({"network": "alarm", "rows": 3000, "seed": seed, "label": label, "bdeu": bdeu, "H": h,
                            "seconds": 0.5, "true_bdeu": -110.0, "true_edges": 46, "edges": 40, "A": 1, "D": 1,
                            "I": h - 2, "iter": 3, "ind": 4, "estev": 5, "test": 6, "nvar": 1.5})
    text = bench_rpdag_paper.table(records)
    assert "| alarm | 3,000 | 3 | +30.0 / +26.7 / -70.0 / -10.0 | 9.0 / 5.0 / 4.0 / 12.0 / 8.0 |" in text
    assert "| 1 / 1 / 1 | 3 / 0 / 0 |" in text
    assert "GES against RPDAG search, all runs** (wins / ties / losses): BDeu 1/1/1; H 3/0/0." in text
