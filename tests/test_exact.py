"""The exact search: subset enumeration, the DP table against plain recursion,
the optimum against brute force over every DAG, memory refusal, stop flag,
progress, and the published optimum of the eBNSL wine data."""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

import naive
from bnexplore.data import read_csv
from bnexplore.errors import ResourceError, SearchError
from bnexplore.graphs import DAG
from bnexplore.parents import ParentSets
from bnexplore.parents.pruning import candidate_parent_sets
from bnexplore.scores import Scorer
from bnexplore import resources
from bnexplore.search import exact, subsets
from bnexplore.search.exact import exact_search, optimal_parents, subset_table
from bnexplore.search.subsets import CandidateArrays, binomial_table, dp_memory, next_subset, unrank
from bnexplore.control import Control
from test_pruning import dependent_data

EBNSL = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "ebnsl"


def all_local_scores(scorer):
    """``{(v, parent mask): score}`` for every family."""
    n = scorer.n_vars
    return {(v, m): scorer.local(v, [u for u in range(n) if (m >> u) & 1])
            for v in range(n) for m in range(1 << n) if not (m >> v) & 1}


def test_unrank_and_gosper_walk_every_subset_in_colex_order():
    n = 7
    binom = binomial_table(n)
    for k in range(1, n + 1):
        expected = naive.colex_subsets(n, k)
        walked = [unrank(0, k, binom)]
        for _ in range(len(expected) - 1):
            walked.append(next_subset(walked[-1]))
        assert walked == expected                            # colex order = increasing integers
        assert [unrank(r, k, binom) for r in range(len(expected))] == expected


def random_parent_sets(seed, n):
    """Random candidate lists with random scores (the empty set always included)."""
    rng = np.random.default_rng(seed)
    names = [f"V{i}" for i in range(n)]
    cands = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        subsets = [ps for k in range(n) for ps in itertools.combinations(others, k)]
        chosen = [()] + [subsets[i] for i in rng.choice(np.arange(1, len(subsets)), 6, replace=False)]
        cands.append([(ps, float(rng.normal(-10, 3))) for ps in chosen])
    return ParentSets(names, cands, "bic")


@pytest.mark.parametrize("seed", range(4))
def test_dp_table_matches_plain_recursion(seed):
    n = 5
    parent_sets = random_parent_sets(seed, n)
    local = {(v, sum(1 << u for u in ps)): s for v in range(n)
             for ps, s in zip(parent_sets.sets(v), parent_sets.scores(v))}
    candidates = CandidateArrays(parent_sets)
    table, size = subset_table(candidates, Control())
    assert size == n
    assert table.tolist() == pytest.approx(naive.subset_table(local, n), abs=1e-12)
    ours = optimal_parents(table, (1 << n) - 1, n, candidates.masks, candidates.scores, candidates.offsets)
    assert ours.tolist() == naive.optimal_parents(table, local, n)


@pytest.mark.parametrize("seed", range(3))
def test_dp_scan_lengths_match_their_twin_and_sampling_comes_close(seed):
    n = 7
    candidates = CandidateArrays(random_parent_sets(seed, n))
    expected = naive.scan_lengths(candidates.masks, candidates.offsets, n)
    sizes = np.array([math.comb(n - 1, k) for k in range(n)], np.float64)
    exact_lengths = exact.scan_lengths(candidates.masks, candidates.offsets, n, sizes, 20, seed)  # every layer counted
    assert np.allclose(exact_lengths, np.array(expected), rtol=0, atol=1e-12)
    total = sum(sizes[k] * expected[v][k] for v in range(n) for k in range(n))
    assert exact.dp_checks(candidates) == pytest.approx(total, abs=1e-6)
    sampled = exact.dp_checks(candidates, samples=8, seed=seed)           # the middle layers sampled
    assert sampled != pytest.approx(total, abs=1e-6) and sampled == pytest.approx(total, rel=0.25)


def test_dp_seconds_grow_with_the_candidates_the_scans_check():
    few = CandidateArrays(random_parent_sets(0, 9))
    names = [f"V{i}" for i in range(9)]
    large = [[ps for k in (4, 3) for ps in itertools.combinations([w for w in range(9) if w != v], k)] for v in range(9)]
    many = ParentSets(names, [[(ps, -float(i)) for i, ps in enumerate(sets)] + [((), -1e3)] for sets in large], "bic")
    assert exact.dp_seconds(9) < exact.dp_seconds(9, few) < exact.dp_seconds(9, CandidateArrays(many))
    steps = exact.DP_SECONDS_PER_STEP * 9 * 2 ** 9
    assert exact.dp_seconds(9, few) == pytest.approx(steps + exact.DP_SECONDS_PER_CHECK * exact.dp_checks(few))
    engine, reason, seconds = exact.choose_engine(9, many)                 # the engine choice counts them
    assert engine == "dp" and seconds == pytest.approx(exact.dp_seconds(9, CandidateArrays(many)))


@pytest.mark.parametrize("score", ["bic", "bdeu"])
@pytest.mark.parametrize("seed", range(3))
def test_optimum_equals_brute_force_over_every_dag(score, seed):
    data = dependent_data(seed, 5, [30, 100, 400][seed])
    scorer = Scorer(data, score)
    local = all_local_scores(scorer)
    best = max(naive.dag_score(local, dag) for dag in naive.all_dags(5))
    result = exact_search(scorer)
    assert isinstance(result.graph, DAG)                     # a DAG object is acyclic by construction
    assert result.score == pytest.approx(best, abs=1e-9)
    assert result.stats["opt"] == pytest.approx(best, abs=1e-9)
    assert scorer.total(result.graph) == result.score
    assert result.algorithm == "exact" and result.stats["exact"] and result.stats["stopped"] is None


def test_max_indegree_is_respected():
    data = dependent_data(7, 5, 400, noise=0.1)
    scorer = Scorer(data, "bic")
    local = {key: s for key, s in all_local_scores(scorer).items() if bin(key[1]).count("1") <= 1}
    best = max(naive.dag_score(local, dag) for dag in naive.all_dags(5)
               if all(bin(m).count("1") <= 1 for m in dag))
    result = exact_search(scorer, max_indegree=1)
    assert max(len(ps) for ps in result.graph.parent_sets()) <= 1
    assert result.score == pytest.approx(best, abs=1e-9)


def test_given_parent_sets_are_used_and_checked():
    data = dependent_data(8, 6, 200)
    scorer = Scorer(data, "bic")
    parent_sets = candidate_parent_sets(scorer, epsilon=1.0)
    assert exact_search(scorer, parent_sets=parent_sets).score == exact_search(scorer).score
    with pytest.raises(SearchError, match="scorer computes bdeu"):
        exact_search(Scorer(data, "bdeu"), parent_sets=parent_sets)
    with pytest.raises(SearchError, match="ParentSets"):
        exact_search(scorer, parent_sets=[[((), 0.0)]] * 6)


def test_memory_needed_and_refusal(monkeypatch):
    assert dp_memory(20) == 8 * 2**20 + subsets.DP_OVERHEAD
    assert dp_memory(26) - dp_memory(25) == 8 * 2**25
    monkeypatch.setattr(resources, "available_memory", lambda: 10 * 2**20)
    with pytest.raises(ResourceError, match=r"needs 64\.0 MiB of memory but only 10\.0 MiB is available; use engine='ilp'"):
        exact_search(Scorer(dependent_data(0, 4, 20), "bic"), engine="dp")
    with pytest.raises(ResourceError, match=r"integer programme over \d+ candidate parent sets needs .* set max_indegree"):
        exact_search(Scorer(dependent_data(0, 4, 20), "bic"))    # auto falls back to the ILP, which is checked too


def test_more_than_62_variables_is_refused():
    data = dependent_data(0, 63, 10, noise=0.5)
    with pytest.raises(ResourceError, match="at most 62 variables"):
        exact_search(Scorer(data, "bic"))


def test_stop_flag_gives_a_valid_dag_and_says_so():
    data = dependent_data(9, 8, 100)
    scorer = Scorer(data, "bic")
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 3                       # stops during the layers of the DP
    parent_sets = candidate_parent_sets(scorer)
    result = exact_search(scorer, parent_sets=parent_sets, stop=stop)
    assert result.stats["stopped"] == "stopped" and not result.stats["exact"] and result.stats["opt"] is None
    assert result.score == scorer.total(result.graph)
    assert result.score <= exact_search(scorer, parent_sets=parent_sets).score


def test_progress_reports_fractions_up_to_one():
    seen = []
    exact_search(Scorer(dependent_data(10, 6, 100), "bic"), progress=lambda info: seen.append(info["done"]))
    fractions = [d for d in seen if d is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_wine_optimum_equals_gobnilp():
    # GOBNILP's optimum on the eBNSL wine data, BIC (eBNSL README): -1258.445909.
    data = read_csv(EBNSL / "wine.csv.gz", header=False, types="categorical")
    result = exact_search(Scorer(data, "bic"))
    assert result.score == pytest.approx(-1258.445909, abs=5e-7)
    assert math.isclose(result.stats["opt"], result.score, rel_tol=1e-12)
