"""Candidate parent sets with the epsilon-relaxed pruning rules: the bounds the
rules rest on, each rule firing, nothing a credible network uses ever removed,
statistics, errors, and agreement with the eBNSL scoring file for wine."""

import gzip
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

import naive
from bnexplore.data import Dataset, read_csv
from bnexplore.errors import ResourceError, SearchError
from bnexplore.parents import pruning
from bnexplore.parents.pruning import RULES, candidate_parent_sets, set_statistics
from bnexplore.scores import Scorer
from bnexplore.search.credible import credible_set

EBNSL = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "ebnsl"


def dependent_data(seed, n_vars, n_rows, max_arity=3, noise=0.25):
    """Random data where each variable copies a random earlier one, with noise."""
    rng = np.random.default_rng(seed)
    arities = rng.integers(2, max_arity + 1, n_vars)
    codes = np.zeros((n_rows, n_vars), np.int64)
    for v in range(n_vars):
        codes[:, v] = rng.integers(0, arities[v], n_rows)
        if v:
            source = codes[:, rng.integers(0, v)] % arities[v]
            keep = rng.random(n_rows) > noise
            codes[keep, v] = source[keep]
    return Dataset.from_codes(codes, arities=arities)


def families(scorer, v):
    """Every parent set of node v as (tuple, mask)."""
    others = [u for u in range(scorer.n_vars) if u != v]
    for k in range(len(others) + 1):
        for ps in itertools.combinations(others, k):
            yield ps, sum(1 << u for u in ps)


def used_families(cs):
    """``{(v, parent mask)}`` over every DAG of a credible set."""
    return {(v, int(m)) for row in cs.parent_masks for v, m in enumerate(row)}


def candidate_families(parent_sets):
    return {(v, int(m)) for v in range(parent_sets.n_vars) for m in parent_sets.masks(v)}


# -- the kernel ---------------------------------------------------------------

def test_set_statistics_matches_naive():
    data = dependent_data(1, 6, 300, max_arity=4)
    rng = np.random.default_rng(2)
    sets = [sorted(rng.choice(6, rng.integers(0, 5), replace=False).tolist()) for _ in range(40)]
    width = max(len(s) for s in sets)
    packed = np.full((len(sets), max(width, 1)), -1, np.int64)
    for t, s in enumerate(sets):
        packed[t, :len(s)] = s
    scorer = Scorer(data, "bic")
    h, occ = set_statistics(scorer.cols, scorer.arities, packed, np.array([len(s) for s in sets], np.int64),
                            scorer.dense_cells)
    for t, s in enumerate(sets):
        expected_h, expected_occ = naive.set_statistics(data.codes, s)
        assert h[t] == pytest.approx(expected_h, abs=1e-12)
        assert occ[t] == expected_occ


# -- the bounds every rule rests on, checked on every family --------------------

@pytest.mark.parametrize("seed", [0, 1])
def test_bounds_behind_the_rules_hold(seed):
    data = dependent_data(seed, 5, 40)
    bic, bdeu = Scorer(data, "bic"), Scorer(data, "bdeu")
    n_rows, w = data.n_rows, 0.5 * math.log(data.n_rows)
    for v in range(5):
        r = int(data.arities[v])
        for ps, _ in families(bic, v):
            q = math.prod(int(data.arities[p]) for p in ps)
            ll = bic.local(v, ps) + w * q * (r - 1)
            assert bic.local(v, ps) <= -w * q * (r - 1) + 1e-9                      # penalty
            occurring = naive.set_statistics(data.codes, ps)[1]
            assert bdeu.local(v, ps) <= -occurring * math.log(r) + 1e-9             # bdeu
            for y in set(range(5)) - set(ps) - {v}:                                 # entropy, one added
                gain = bic.local(v, ps + (y,)) + w * q * int(data.arities[y]) * (r - 1) - ll
                h_x = -ll / n_rows
                h_y = naive.entropy(data.codes, list(ps) + [y]) - naive.entropy(data.codes, list(ps))
                assert gain <= n_rows * min(h_x, h_y) + 1e-9


def test_penalty_size_bound_by_hand():
    # X balanced over 8 rows: s({}) = 8 log(1/2) - log(8)/2 = -6.5849; binary parents have
    # penalty (log(8)/2) 2^k, within eps of s({}) while 2^k <= 6.33 (eps 0) or 8.26 (eps 2).
    codes = np.array([[0, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1], [0, 1, 1, 0],
                      [1, 0, 0, 1], [1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 1, 1]])
    scorer = Scorer(Dataset.from_codes(codes), "bic")
    assert scorer.local(0, ()) == pytest.approx(8 * math.log(0.5) - math.log(8) / 2)
    for eps, bound in [(0.0, 2), (2.0, 3)]:
        stats = candidate_parent_sets(scorer, epsilon=eps).stats
        assert stats["per_node"][0]["size_bound"] == bound


# -- each rule fires, and what it removes is never needed ------------------------

def columns(*cols):
    return Dataset.from_codes(np.column_stack(cols))


def rule_cases():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2, 30)
    rare = (np.arange(24) < 2).astype(int)         # low entropy: many occurring configurations cost too much
    return {
        "subset": (Dataset.from_codes(rng.integers(0, 2, (200, 5))), "bic"),
        "penalty": (Dataset.from_codes(rng.integers(0, 3, (30, 5))), "bic"),
        "entropy": (columns(x, x, (x + (rng.random(30) < 0.1)) % 2, rng.integers(0, 2, 30),
                            np.zeros(30, int) + (np.arange(30) == 3)), "bic"),
        "bdeu": (columns(rare, *rng.integers(0, 2, (5, 24))), "bdeu"),
    }


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_fires_and_keeps_every_credible_network(rule):
    data, score = rule_cases()[rule]
    scorer = Scorer(data, score)
    for eps in (0.0, 1.0):
        pruned = candidate_parent_sets(scorer, epsilon=eps, rules=(rule,))
        assert pruned.stats["removed"][rule] > 0
        assert pruned.stats["rules"] == [rule]
        reference = credible_set(scorer, epsilon=eps, pruning=False, limit=10**6)
        assert not reference.truncated
        assert used_families(reference) <= candidate_families(pruned)
        ours = credible_set(scorer, epsilon=eps, parent_sets=pruned, limit=10**6)
        assert set(map(tuple, ours.parent_masks.tolist())) == set(map(tuple, reference.parent_masks.tolist()))


@pytest.mark.parametrize("seed", range(6))
def test_pruning_never_removes_a_credible_parent_set(seed):
    n_vars = 5 + seed % 3
    data = dependent_data(seed, n_vars, [25, 60, 200][seed % 3])
    for score in ("bic", "bdeu"):
        scorer = Scorer(data, score)
        for eps in (0.0, 1.5, 3.0):
            reference = credible_set(scorer, epsilon=eps, pruning=False, limit=10**6)
            assert not reference.truncated
            pruned = candidate_parent_sets(scorer, epsilon=eps)
            assert used_families(reference) <= candidate_families(pruned)
            for v in range(n_vars):                     # kept sets carry their true local scores
                for ps, s in zip(pruned.sets(v), pruned.scores(v)):
                    assert s == scorer.local(v, ps)


def test_larger_epsilon_keeps_more():
    scorer = Scorer(dependent_data(3, 7, 80), "bic")
    counts = [len(candidate_parent_sets(scorer, epsilon=eps)) for eps in (0.0, 1.0, 3.0, 6.0)]
    assert counts == sorted(counts) and counts[0] < counts[-1]


# -- statistics, limits, errors ----------------------------------------------------

def test_statistics_account_for_every_set():
    scorer = Scorer(dependent_data(4, 7, 150), "bic")
    stats = candidate_parent_sets(scorer, epsilon=1.0).stats
    for node in stats["per_node"]:
        assert node["considered"] == node["kept"] + sum(node["removed"].values())
        assert node["kept"] <= node["scored"] <= node["considered"]
        assert node["largest"] <= node["size_bound"]
    for key in ("considered", "scored", "kept"):
        assert stats[key] == sum(node[key] for node in stats["per_node"])
        assert stats[key] == sum(level[key] for level in stats["levels"]) + scorer.n_vars
    assert stats["complete"] and stats["stopped"] is None
    assert stats["rules"] == ["subset", "penalty", "entropy"]      # the BDeu rule does not apply to BIC


def test_no_rules_scores_every_parent_set_up_to_max_indegree():
    scorer = Scorer(dependent_data(5, 5, 50), "bdeu")
    every = candidate_parent_sets(scorer, rules=())
    assert len(every) == 5 * 2 ** 4
    capped = candidate_parent_sets(scorer, rules=(), max_indegree=2)
    assert len(capped) == 5 * (1 + 4 + 6)
    assert max(len(ps) for v in range(5) for ps in capped.sets(v)) == 2


def test_stop_returns_the_empty_sets_and_says_so():
    scorer = Scorer(dependent_data(6, 6, 50), "bic")
    stats = candidate_parent_sets(scorer, stop=lambda: True)
    assert stats.stats["complete"] is False and stats.stats["stopped"] == "stopped"
    assert all(stats.sets(v) == [()] for v in range(6))


def test_a_stop_is_seen_between_the_nodes_of_a_level(monkeypatch):
    scorer = Scorer(dependent_data(6, 6, 50), "bic")
    generated = []
    real = pruning._generate

    def counting(*args):
        generated.append(1)
        return real(*args)
    monkeypatch.setattr(pruning, "_generate", counting)
    stats = candidate_parent_sets(scorer, stop=lambda: len(generated) >= 1)
    assert len(generated) == 1                                          # not the level's other five nodes
    assert stats.stats["complete"] is False and all(stats.sets(v) == [()] for v in range(6))


def test_too_many_sets_is_a_resource_error(monkeypatch):
    monkeypatch.setattr(pruning, "MAX_SETS_PER_LEVEL", 10)
    codes = np.zeros((20, 6), int)
    codes[::2, 1:] = 1
    codes[:, 5] = 0                                                       # a constant column
    with pytest.raises(ResourceError, match="max_indegree=.*'X5'"):
        candidate_parent_sets(Scorer(Dataset.from_codes(codes, arities=[2] * 5 + [1]), "bic"), rules=())


@pytest.mark.parametrize("kwargs, match", [({"epsilon": -1.0}, "epsilon"), ({"epsilon": float("nan")}, "epsilon"),
                                           ({"rules": ("subset", "magic")}, "magic"),
                                           ({"max_indegree": -1}, "max_indegree"),
                                           ({"max_indegree": 1.5}, "max_indegree")])
def test_bad_arguments(kwargs, match):
    with pytest.raises(SearchError, match=match):
        candidate_parent_sets(Scorer(dependent_data(0, 3, 20), "bic"), **kwargs)


# -- the eBNSL scoring file for wine, BIC, BF = 3 (GOBNILP's pruning) -------------

def read_jaakkola(path):
    """``{(child, parent tuple): score}`` of a GOBNILP / Jaakkola local-score file."""
    with gzip.open(path, "rt") as f:
        tokens = [line.split() for line in f if line.strip()]
    out, i = {}, 1
    for _ in range(int(tokens[0][0])):
        child, count = map(int, tokens[i])
        i += 1
        for row in tokens[i:i + count]:
            out[(child, tuple(sorted(map(int, row[2:2 + int(row[1])]))))] = float(row[0])
        i += count
    return out


def test_wine_candidates_agree_with_the_ebnsl_file():
    data = read_csv(EBNSL / "wine.csv.gz", header=False, types="categorical")
    scorer = Scorer(data, "bic")
    ours = candidate_parent_sets(scorer, epsilon=math.log(3))
    theirs = read_jaakkola(EBNSL / "wine.BIC.3.gz")
    mine = {(v, ps): s for v in range(data.n_vars) for ps, s in zip(ours.sets(v), ours.scores(v))}
    assert set(mine) <= set(theirs)
    for key, s in mine.items():
        assert s == pytest.approx(theirs[key], abs=1e-6)
    for v, ps in set(theirs) - set(mine):       # each extra set of theirs is provably useless
        best_subset = max(scorer.local(v, sub) for k in range(len(ps)) for sub in itertools.combinations(ps, k))
        assert best_subset - scorer.local(v, ps) > math.log(3)
