"""Credible sets: every DAG exactly once, equality with brute force over all
DAGs, the groupings against their definitions, model averaging, the counting
limit, the stop flag, JSON, and the speed of a 150,000-DAG enumeration."""

import itertools
import json
import math
import os
from collections import defaultdict

import numpy as np
import pytest

import naive
from bnexplore.control import Control
from bnexplore.errors import SearchError
from bnexplore.graphs import DAG, mec_key
from bnexplore.parents import ParentSets
from bnexplore.parents.pruning import candidate_parent_sets, tolerance
from bnexplore.result import Result
from bnexplore.scores import Scorer
from bnexplore.search import credible, kbest
from bnexplore.search.credible import CredibleSet, collect, credible_set
from bnexplore.search.credible import dp as credible_dp
from bnexplore.search.subsets import CandidateArrays, subset_table
from fakes import FakeClock, StopAfter
from test_exact import all_local_scores
from test_pruning import dependent_data

FULL = os.environ.get("BNEXPLORE_FULL") == "1"


def as_dict(cs):
    """``{dag as a tuple of parent masks: score}``."""
    return {tuple(int(m) for m in row): float(s) for row, s in zip(cs.parent_masks, cs.scores)}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_dag_is_enumerated_exactly_once(n):
    # All local scores 0: every DAG ties with the optimum, so all must come out once.
    names = [f"V{i}" for i in range(n)]
    cands = [[(ps, 0.0) for k in range(n) for ps in itertools.combinations(
        [u for u in range(n) if u != v], k)] for v in range(n)]
    candidates = CandidateArrays(ParentSets(names, cands, "bic"))
    table, _ = subset_table(candidates, Control())
    masks, scores, reason, _, complete, _ = collect(candidates, table, 0.0, 0.0, 10**6, Control())
    dags = [tuple(int(m) for m in row) for row in masks]
    assert reason is None and complete == 0.0
    assert len(dags) == len(set(dags)) == {3: 25, 4: 543, 5: 29281}[n]
    assert set(dags) == set(naive.all_dags(n))


@pytest.mark.parametrize("score", ["bic", "bdeu"])
@pytest.mark.parametrize("n, seed, rows", [(4, 0, 30), (5, 1, 40), (5, 2, 120)])
def test_credible_set_equals_brute_force(score, n, seed, rows):
    scorer = Scorer(dependent_data(seed, n, rows), score)
    every, opt = naive.credible_dags(all_local_scores(scorer), n, math.inf, 0.0)
    for eps in (0.0, 0.7, 2.0, 5.0):
        expected = {dag: s for dag, s in every.items() if s >= opt - eps - tolerance(opt)}
        for pruning in (True, False):
            cs = credible_set(scorer, epsilon=eps, pruning=pruning)
            assert cs.opt == pytest.approx(opt, abs=1e-9)
            ours = as_dict(cs)
            assert ours.keys() == expected.keys()
            for dag, s in ours.items():
                assert s == pytest.approx(expected[dag], abs=1e-9)
            assert not cs.truncated and cs.epsilon == eps == cs.complete_epsilon and len(cs) == len(expected)
            assert list(cs.scores) == sorted(cs.scores, reverse=True)


@pytest.fixture(scope="module")
def big_set():
    """A credible set of over a hundred DAGs in a few dozen classes over 5 variables."""
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    cs = credible_set(scorer, bf=math.exp(5.0))
    assert 100 < len(cs) < 29281
    return cs


def partition(dags, key):
    groups = defaultdict(set)
    for dag in dags:
        groups[key(dag)].add(dag)
    return {frozenset(g) for g in groups.values()}


def test_classes_match_skeletons_and_v_structures(big_set):
    dags = as_dict(big_set)
    for classes, key in [(big_set.classes, naive.mec_key), (big_set.rpdag_classes, naive.rpdag_key)]:
        ours = {frozenset(tuple(int(m) for m in big_set.parent_masks[i]) for i in c.members) for c in classes}
        assert ours == partition(dags, key)
    assert len(big_set.rpdag_classes) >= len(big_set.classes)


def test_class_summaries(big_set):
    classes = big_set.classes
    assert [c.rank for c in classes] == list(range(1, len(classes) + 1))
    assert [c.score for c in classes] == sorted((c.score for c in classes), reverse=True)
    assert sum(c.n_dags for c in classes) == len(big_set)
    assert sum(c.share for c in classes) == pytest.approx(1.0)
    assert big_set.class_shares.tolist() == pytest.approx([c.share for c in classes])
    for c in classes[:20]:
        assert c.bayes_factor == pytest.approx(math.exp(big_set.opt - c.score))
        assert c.score == max(big_set.scores[c.members])
        members = [big_set.dag(int(i)) for i in c.members]
        assert {mec_key(d) for d in members} == {mec_key(c.cpdag)}
        assert all(d.cpdag() == c.cpdag for d in members)
        assert c.n_dags <= c.size()                     # BIC is score equivalent: the whole class
        assert c.n_dags == c.size()                     # is credible when one member is
    assert big_set.class_index.tolist() == [
        next(c.rank - 1 for c in classes if i in c.members) for i in range(len(big_set))]


def test_arc_and_adjacency_probabilities_match_brute_force(big_set):
    expected = naive.arc_probabilities(as_dict(big_set), big_set.opt)
    np.testing.assert_allclose(big_set.arc_probabilities, expected, rtol=0, atol=1e-12)
    adj = big_set.adjacency_probabilities
    assert np.allclose(adj, adj.T) and np.allclose(adj, big_set.arc_probabilities + big_set.arc_probabilities.T)
    assert big_set.weights.sum() == pytest.approx(1.0)


def test_dags_view_and_best_result(big_set):
    dag, score = big_set.dags[0]
    assert isinstance(dag, DAG) and score == big_set.scores[0] == pytest.approx(big_set.opt, abs=1e-9)
    assert len(big_set.dags) == len(big_set) and len(big_set.dags[2:5]) == 3
    result = big_set.best_result()
    assert isinstance(result, Result) and result.algorithm == "exact"
    assert result.score == big_set.scores[0] and result.graph == dag
    assert result.extra["credible_set"]["n_dags"] == len(big_set)
    with pytest.raises(IndexError):
        big_set.dags[len(big_set)]


def test_json_round_trip(big_set):
    text = big_set.dumps(graphs=3)
    back = CredibleSet.from_json(text)
    assert back.names == big_set.names and back.opt == big_set.opt and back.epsilon == big_set.epsilon
    assert np.array_equal(back.parent_masks, big_set.parent_masks) and np.array_equal(back.scores, big_set.scores)
    assert [c.members.tolist() for c in back.classes] == [c.members.tolist() for c in big_set.classes]
    data = json.loads(text)
    assert data["classes"][0]["cpdag"] == big_set.classes[0].cpdag.to_json()
    assert "cpdag" not in data["classes"][3] and "rpdag" in data["rpdag_classes"][0]
    np.testing.assert_allclose(data["arc_probabilities"], big_set.arc_probabilities, rtol=1e-15)
    with pytest.raises(SearchError, match="credible_set"):
        CredibleSet.from_json({"kind": "result"})
    data["dags"]["parents"][0][0] = [0]
    with pytest.raises(SearchError, match="invalid parent 0"):
        CredibleSet.from_json(data)


def test_counting_limit_truncates_and_says_so():
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    full = credible_set(scorer, epsilon=3.0)
    exact_fit = credible_set(scorer, epsilon=3.0, limit=len(full))
    assert not exact_fit.truncated and len(exact_fit) == len(full) and exact_fit.complete_epsilon == 3.0
    cut = credible_set(scorer, epsilon=3.0, limit=len(full) - 1)
    assert cut.truncated and "counting limit of" in cut.truncated_reason and len(cut) < len(full)
    assert set(as_dict(cut)) < set(as_dict(full))
    assert "truncated" in repr(cut)


@pytest.mark.parametrize("engine", ["dp", "ilp"])
def test_the_moment_the_limit_was_first_held_is_dated(engine):
    """``seconds_to_limit``: read on the control's clock (a fake one, one second per reading) from
    the start of the search; None for a set the limit never filled."""
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    full = credible_set(scorer, epsilon=3.0, engine=engine, control=Control(clock=FakeClock()))
    assert full.stats["seconds_to_limit"] is None
    clock = FakeClock()
    cut = credible_set(scorer, epsilon=3.0, limit=len(full) // 2, engine=engine, control=Control(clock=clock))
    assert cut.truncated and 0 < cut.stats["seconds_to_limit"] < clock.now
    assert cut.stats["seconds_to_limit"] == int(cut.stats["seconds_to_limit"])  # whole readings of the fake clock
    exact_fit = credible_set(scorer, epsilon=3.0, limit=len(full), engine=engine, control=Control(clock=FakeClock()))
    assert not exact_fit.truncated and exact_fit.stats["seconds_to_limit"] > 0   # held, though nothing overflowed


@pytest.mark.parametrize("score", ["bic", "bdeu"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_truncated_set_is_every_dag_within_a_smaller_margin(score, seed):
    """Cut by the limit, the set keeps the best DAGs: exactly the brute-force credible set of
    its complete_epsilon, which lies between the worst kept DAG and the best dropped one."""
    scorer = Scorer(dependent_data(seed, 5, 40), score)
    every, opt = naive.credible_dags(all_local_scores(scorer), 5, math.inf, 0.0)
    eps = 6.0
    within = sorted((s for s in every.values() if s >= opt - eps - tolerance(opt)), reverse=True)
    for limit in (len(within) // 2, len(within) // 5, 30):
        cut = credible_set(scorer, epsilon=eps, limit=limit)
        assert cut.truncated and len(cut) <= limit
        if cut.complete_epsilon is None:  # the limit fell inside one run of ties
            assert len(cut) == limit and np.ptp(cut.scores) <= 2 * tolerance(opt)
            continue
        assert 0 <= cut.complete_epsilon < eps and f"{math.exp(cut.complete_epsilon):.4g}" in cut.truncated_reason
        expected = {dag for dag, s in every.items() if s >= opt - cut.complete_epsilon}
        assert set(as_dict(cut)) == expected
        dropped = [s for dag, s in every.items() if dag not in expected and s >= opt - eps - tolerance(opt)]
        assert max(dropped) < opt - cut.complete_epsilon <= cut.scores.min()


def test_heap_helpers_keep_the_smallest_key_on_top():
    rng = np.random.default_rng(4)
    for size in (1, 2, 7, 100):
        keys = rng.normal(size=size).round(1)  # with ties
        heap = kbest.heapify(keys)
        assert sorted(heap) == list(range(size))
        for i in range(size):
            for child in (2 * i + 1, 2 * i + 2):
                if child < size:
                    assert keys[heap[i]] <= keys[heap[child]]
        keys[heap[0]] = 10.0  # replace the smallest, as the enumeration does
        kbest.sift_down(heap, keys, 0)
        assert keys[heap[0]] == keys.min()


def test_stop_during_the_enumeration(monkeypatch):
    monkeypatch.setattr(credible_dp, "STEPS", 20)
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    started = []

    def progress(info):
        if "DAGs kept" in info["message"]:
            started.append(1)
    control = Control(progress=progress, stop=lambda: bool(started), min_interval=0)
    cs = credible_set(scorer, epsilon=5.0, control=control)
    assert cs.truncated and cs.truncated_reason.startswith("stopped") and cs.stats["stopped"] == "stopped"
    assert 0 < len(cs) < len(credible_set(scorer, epsilon=5.0))


def test_stop_before_the_optimum():
    cs = credible_set(Scorer(dependent_data(3, 5, 30), "bic"), stop=lambda: True)
    assert cs.opt is None and len(cs) == 0 and cs.truncated
    assert cs.arc_probabilities.sum() == 0 and cs.classes == []
    with pytest.raises(SearchError, match="empty"):
        cs.best_result()


def test_parent_sets_pruned_for_a_smaller_epsilon_are_refused():
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    narrow = candidate_parent_sets(scorer, epsilon=1.0)
    with pytest.raises(SearchError, match="pruned for epsilon=1"):
        credible_set(scorer, epsilon=2.0, parent_sets=narrow)
    wide = candidate_parent_sets(scorer, epsilon=3.0)
    assert as_dict(credible_set(scorer, epsilon=2.0, parent_sets=wide)) == as_dict(credible_set(scorer, epsilon=2.0))


@pytest.mark.parametrize("kwargs, match", [({"bf": 0.5}, "Bayes factor"), ({"epsilon": -1}, "epsilon"),
                                           ({"limit": 0}, "limit"), ({"limit": 2.5}, "limit")])
def test_bad_arguments(kwargs, match):
    with pytest.raises(SearchError, match=match):
        credible_set(dependent_data(0, 3, 20), **kwargs)


@pytest.mark.slow
def test_a_large_enumeration_stops_at_the_limit_with_distinct_dags():
    """150,000 DAGs with BNEXPLORE_FULL=1, 20,000 in the short form (the speed is in bench_exact.py)."""
    limit = 150_000 if FULL else 20_000
    rng = np.random.default_rng(0)
    from bnexplore.data import Dataset

    scorer = Scorer(Dataset.from_codes(rng.integers(0, 2, (40, 12))), "bic")
    parent_sets = candidate_parent_sets(scorer, epsilon=math.log(150))
    cs = credible_set(scorer, bf=150, parent_sets=parent_sets, limit=limit)
    assert limit - 5000 < len(cs) <= limit and cs.truncated and cs.complete_epsilon < cs.epsilon
    assert (cs.scores >= cs.opt - cs.complete_epsilon).all()
    assert len({row.tobytes() for row in cs.parent_masks}) == len(cs)


@pytest.mark.parametrize("engine", ["dp", "ilp"])
def test_a_set_cut_by_the_limit_answers_every_larger_bayes_factor(monkeypatch, engine):
    """More than ``limit`` DAGs within BF 20 means the best ``limit`` at BF 150 are the same DAGs: the second
    request reuses the first set, and equals a fresh search at BF 150."""
    credible.LIMITED_SETS.clear()
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    assert len(credible_set(scorer, bf=20)) > 25                      # so a limit of 25 cuts BF 20
    cut = credible_set(scorer, bf=20, limit=25, engine=engine)
    assert cut.truncated and "counting limit" in cut.truncated_reason and "reused_from_bf" not in cut.stats
    wider = credible_set(scorer, bf=150, limit=25, engine=engine)
    assert wider.stats["reused_from_bf"] == pytest.approx(20) and wider.params["bf"] == pytest.approx(150)
    assert "seconds_enumeration" not in wider.stats and wider.stats["n_classes"] == cut.stats["n_classes"]
    credible.LIMITED_SETS.clear()
    fresh = credible_set(scorer, bf=150, limit=25, engine=engine)
    assert "reused_from_bf" not in fresh.stats
    assert wider.truncated_reason == fresh.truncated_reason and wider.complete_epsilon == fresh.complete_epsilon
    assert np.array_equal(wider.scores, fresh.scores)
    assert {tuple(r) for r in wider.parent_masks.tolist()} == {tuple(r) for r in fresh.parent_masks.tolist()}


def test_only_finished_sets_cut_by_the_limit_are_reused(monkeypatch):
    credible.LIMITED_SETS.clear()
    scorer = Scorer(dependent_data(3, 5, 30), "bic")
    complete = credible_set(scorer, bf=3)                             # every credible DAG: BF 20 has more
    assert not complete.truncated and "reused_from_bf" not in credible_set(scorer, bf=20).stats
    stopped = credible_set(scorer, bf=20, limit=25, stop=StopAfter(3))
    assert stopped.stats["stopped"] and len(credible.LIMITED_SETS) == 0       # neither complete nor stopped sets are kept
    assert "reused_from_bf" not in credible_set(scorer, bf=20, limit=25).stats
    assert "reused_from_bf" not in credible_set(scorer, bf=3, limit=25).stats           # a smaller BF runs
    assert "reused_from_bf" not in credible_set(scorer, bf=150, limit=25, max_indegree=1).stats  # other settings
    assert "reused_from_bf" not in credible_set(scorer, bf=150, limit=25, engine="ilp").stats     # another engine
