"""Parallel regions only where they pay (issue 29, item 16), and the same numbers either way.

Batches below ``kernels.PARALLEL_WORK`` row visits, and DP slices below
``exact.PARALLEL_STEPS`` steps, run on one thread; the parallel and serial
kernels must give identical results, and so must passes cut into pieces
between stop checks.
"""

import numpy as np
import pytest

import naive
from bnexplore.control import Control
from bnexplore.parents import pruning
from bnexplore.parents.pruning import candidate_parent_sets
from bnexplore.scores import Scorer, kernels, pack_parent_sets
from bnexplore.search import exact
from bnexplore.search.subsets import CandidateArrays, subset_table
from test_exact import random_parent_sets
from test_scores import random_dag_data


def test_the_rule_weighs_rows_as_well_as_families(monkeypatch):
    monkeypatch.setattr(kernels.config, "NUMBA_NUM_THREADS", 2)
    assert not kernels.parallel_pays(1, 10 ** 9)  # one family: nothing to share
    assert not kernels.parallel_pays(64, 100)  # the old rule (64 families) ran 6,400 row visits in parallel
    assert kernels.parallel_pays(64, kernels.PARALLEL_WORK // 64)
    assert kernels.parallel_pays(2, kernels.PARALLEL_WORK // 2) and not kernels.parallel_pays(2, kernels.PARALLEL_WORK // 2 - 1)


def test_one_thread_never_takes_the_parallel_kernels(monkeypatch):
    """With NUMBA_NUM_THREADS=1 every batch runs on the serial kernels (and gives the same scores)."""
    data = random_dag_data(np.random.default_rng(16), 30, kernels.PARALLEL_WORK // 28 + 1, max_parents=2)[0]
    monkeypatch.setattr(kernels.config, "NUMBA_NUM_THREADS", 2)
    assert kernels.parallel_pays(28, len(data.codes))  # with two threads these batches run in parallel
    both = [Scorer(data, "bic", cache=False).toggles(3, {1}, [u for u in range(30) if u not in (1, 3)])]
    monkeypatch.setattr(kernels.config, "NUMBA_NUM_THREADS", 1)
    assert not kernels.parallel_pays(10 ** 6, 10 ** 9)
    calls = []
    for name in ("added_parent_scores", "local_scores"):
        monkeypatch.setattr(kernels, name, lambda *a, name=name: calls.append(name))
    scorer = Scorer(data, "bic", cache=False)
    both.append(scorer.toggles(3, {1}, [u for u in range(30) if u not in (1, 3)]))
    scorer.local_many(list(range(1, 30)), [[0]] * 29)
    assert calls == [] and np.array_equal(both[0], both[1])


@pytest.mark.parametrize("score", ["bdeu", "bic"])
def test_parallel_and_serial_kernels_give_identical_scores(score):
    data = random_dag_data(np.random.default_rng(40), 12, 700, max_parents=3)[0]
    scorer = Scorer(data, score, cache=False)
    rng = np.random.default_rng(41)
    families = [(int(c), sorted(rng.choice([v for v in range(12) if v != c], int(rng.integers(0, 4)),
                                           replace=False).tolist())) for c in rng.integers(0, 12, 200)]
    children = np.array([c for c, _ in families], np.int64)
    parents, sizes = pack_parent_sets([p for _, p in families])
    args = (scorer.cols, scorer.arities, children, parents, sizes, scorer._code, scorer.ess, scorer.dense_cells)
    together = kernels.local_scores(*args)
    assert np.array_equal(together, kernels.local_scores_serial(*args))
    for t, (c, p) in enumerate(families[:20]):
        assert together[t] == pytest.approx(naive.local_score(data.codes, data.arities, c, p, score), rel=1e-10)
    base = np.array([2, 5], np.int64)
    extras = np.array([u for u in range(12) if u not in (2, 5, 7)], np.int64)
    args = (scorer.cols, scorer.arities, 7, base, extras, scorer._code, scorer.ess)
    assert np.array_equal(kernels.added_parent_scores(*args), kernels.added_parent_scores_serial(*args))


@pytest.mark.parametrize("seed", range(3))
def test_dp_layers_filled_in_parallel_or_on_one_thread_are_identical(monkeypatch, seed):
    candidates = CandidateArrays(random_parent_sets(seed, 11))
    monkeypatch.setattr(exact, "PARALLEL_STEPS", 0)
    parallel, size = subset_table(candidates, Control())
    monkeypatch.setattr(exact, "PARALLEL_STEPS", 1 << 62)
    serial, _ = subset_table(candidates, Control())
    assert size == 11 and np.array_equal(parallel, serial)


def test_set_statistics_in_pieces_prune_exactly_as_in_one_piece(monkeypatch):
    """The entropy bound's statistics, computed in batches between stop checks."""
    data = random_dag_data(np.random.default_rng(42), 9, 600, max_parents=3)[0]
    whole = candidate_parent_sets(Scorer(data, "bic"), epsilon=2.0)
    monkeypatch.setattr(pruning, "_SCORE_BATCH", 7)
    pieces = candidate_parent_sets(Scorer(data, "bic"), epsilon=2.0)
    assert whole.table() == pieces.table()
    assert pieces.stats["removed"] == whole.stats["removed"] and whole.stats["removed"]["entropy"] > 0
