"""The score registry (bnexplore.scores.SCORES): every registered score's kernel against hand-computed
values and its naive twin, its flags (score equivalence, penalty weight, Dirichlet bound) against their
definitions, and the pruning rules that follow from them."""

import itertools
import math

import numpy as np
import pytest

import naive
from bnexplore.data import Dataset
from bnexplore.errors import ScoreError
from bnexplore.parents import candidate_parent_sets
from bnexplore.parents.explore import score_weight
from bnexplore.parents.pruning import RULES
from bnexplore.scores import SCORES, Scorer, penalty_weight, score_spec
from bnexplore.search.credible import credible_set

TINY = [[0, 0], [0, 1], [1, 1], [1, 1]]  # X = column 0, Y = column 1

HAND = {
    # name: (s(X), s(Y | X)) on TINY, ess = 2 where the score has one. X: 2 zeros, 2 ones; Y given X:
    # X=0 -> Y in {0, 1}, X=1 -> Y in {1, 1}.
    # BDeu, ess 2: s(X): a_j = 2, a_jk = 1: lgamma(2) - lgamma(6) + 2 lgamma(3) = -log 120 + 2 log 2;
    # s(Y | X): q = 2, a_j = 1, a_jk = 1/2: X=0 -log 2 + 2 log 0.5, X=1 -log 2 + log 0.75.
    "bdeu": (-math.log(120) + 2 * math.log(2), 2 * (-math.log(2)) + 2 * math.log(0.5) + math.log(0.75)),
    # K2, a_jk = 1: s(X) as BDeu(2) above; s(Y | X): X=0 lgamma(2) - lgamma(4) = -log 6, X=1 log(2!/3!) = -log 3.
    "k2": (-math.log(120) + 2 * math.log(2), -math.log(6) - math.log(3)),
    # LL: s(X) = 4 log 1/2; s(Y | X) = 2 log 1/2 + 0. BIC subtracts log(4)/2 per free parameter, AIC 1.
    "ll": (4 * math.log(0.5), 2 * math.log(0.5)),
    "bic": (4 * math.log(0.5) - 0.5 * math.log(4), 2 * math.log(0.5) - 0.5 * math.log(4) * 2),
    "aic": (4 * math.log(0.5) - 1, 2 * math.log(0.5) - 2),
}


def tiny():
    return Dataset.from_codes(np.array(TINY))


def random_data(seed, n_vars=5, n_rows=60, max_arity=3):
    """Each variable copies an earlier one with noise, so parents matter."""
    rng = np.random.default_rng(seed)
    arities = rng.integers(2, max_arity + 1, n_vars)
    codes = np.zeros((n_rows, n_vars), np.int64)
    for v in range(n_vars):
        codes[:, v] = rng.integers(0, arities[v], n_rows)
        if v:
            keep = rng.random(n_rows) > 0.3
            codes[keep, v] = codes[keep, rng.integers(0, v)] % arities[v]
    return Dataset.from_codes(codes, arities=arities)


def families(n):
    for v in range(n):
        others = [u for u in range(n) if u != v]
        for k in range(len(others) + 1):
            for ps in itertools.combinations(others, k):
                yield v, ps


@pytest.mark.parametrize("name", list(SCORES))
def test_every_score_agrees_with_hand_computed_values_and_its_naive_twin(name):
    assert name in HAND, f"{name} is registered: add its hand-computed values on TINY to HAND"
    scorer = Scorer(tiny(), name, ess=2)
    x, y_given_x = HAND[name]
    assert scorer.local(0) == pytest.approx(x, rel=1e-12)
    assert scorer.local(1, [0]) == pytest.approx(y_given_x, rel=1e-12, abs=1e-12)
    data = random_data(3)
    scorer = Scorer(data, name, ess=2.5)
    for v, ps in itertools.islice(families(data.n_vars), 0, None, 3):
        expected = naive.local_score(data.codes, data.arities, v, list(ps), name, ess=2.5)
        assert scorer.local(v, ps) == pytest.approx(expected, rel=1e-10, abs=1e-9)


def covered_reversal_pairs(rng, n_vars, trials):
    """Pairs of parent lists of Markov-equivalent DAGs: a random DAG and the same DAG with a covered arc
    reversed (Chickering 1995), starting with a -> b against b -> a."""
    yield [[], [0]] + [[] for _ in range(n_vars - 2)], [[1], []] + [[] for _ in range(n_vars - 2)]
    for _ in range(trials):
        parents = [set(rng.choice(v, rng.integers(0, min(v, 2) + 1), replace=False).tolist()) if v else set()
                   for v in range(n_vars)]
        covered = [(u, v) for v in range(n_vars) for u in parents[v] if parents[v] == parents[u] | {u}]
        if not covered:
            continue
        u, v = covered[rng.integers(len(covered))]
        reversed_ = [set(p) for p in parents]
        reversed_[v].discard(u)
        reversed_[u].add(v)
        yield [sorted(p) for p in parents], [sorted(p) for p in reversed_]


@pytest.mark.parametrize("name", list(SCORES))
def test_score_equivalence_flag_matches_the_definition(name):
    """Equivalent DAGs score the same under every score flagged equivalent, and differ somewhere under the others."""
    rng = np.random.default_rng(4)
    differs = []
    for seed in range(3):
        scorer = Scorer(random_data(seed, n_vars=4), name, ess=3.0)
        for a, b in covered_reversal_pairs(rng, 4, 10):
            differs.append(not math.isclose(scorer.total(a), scorer.total(b), rel_tol=1e-9, abs_tol=1e-9))
    assert len(differs) > 10
    assert any(differs) == (not SCORES[name].equivalent)


@pytest.mark.parametrize("name", list(SCORES))
def test_penalty_weight_is_the_scores_own_penalty(name):
    """A score with a weight is LL - w q (r - 1) on every family (LL itself with w = 0); the two searches
    that read the weight (pruning, the explorers) get the one function's answer."""
    data = random_data(5)
    scorer, ll = Scorer(data, name), Scorer(data, "ll")
    w = penalty_weight(name, data.n_rows)
    assert score_weight(scorer) == w
    assert (w is None) == (SCORES[name].penalty is None)
    if w is None:
        return
    for v, ps in families(data.n_vars):
        q = math.prod(int(data.arities[p]) for p in ps)
        assert scorer.local(v, ps) == pytest.approx(ll.local(v, ps) - w * q * (int(data.arities[v]) - 1),
                                                    rel=1e-12, abs=1e-9)


def test_log_likelihood_has_weight_zero_and_bic_log_n_over_two():
    assert penalty_weight("ll", 500) == 0.0
    assert penalty_weight("bic", 500) == pytest.approx(0.5 * math.log(500))
    assert penalty_weight("aic", 500) == 1.0
    assert penalty_weight("bdeu", 500) is None and penalty_weight("k2", 500) is None


@pytest.mark.parametrize("name", [n for n, spec in SCORES.items() if spec.dirichlet_bound])
def test_dirichlet_bound_holds_on_every_family(name):
    """Every occurring parent configuration adds at most -log r (what the "bdeu" pruning rule rests on)."""
    data = random_data(6, n_rows=40)
    scorer = Scorer(data, name, ess=2.0)
    for v, ps in families(data.n_vars):
        occurring = naive.set_statistics(data.codes, list(ps))[1]
        assert scorer.local(v, ps) <= -occurring * math.log(int(data.arities[v])) + 1e-9


@pytest.mark.parametrize("name", list(SCORES))
def test_pruning_applies_the_registered_rules_and_keeps_every_credible_network(name):
    scorer = Scorer(random_data(7, n_vars=5, n_rows=30), name)
    for eps in (0.0, 1.5):
        pruned = candidate_parent_sets(scorer, epsilon=eps)
        assert pruned.stats["rules"] == [rule for rule in RULES if rule in SCORES[name].pruning_rules]
        reference = credible_set(scorer, epsilon=eps, pruning=False, limit=10**6)
        assert not reference.truncated
        used = {(v, int(m)) for row in reference.parent_masks for v, m in enumerate(row)}
        kept = {(v, int(m)) for v in range(pruned.n_vars) for m in pruned.masks(v)}
        assert used <= kept


def test_k2_prunes_with_the_dirichlet_bound():
    """K2 gets the "bdeu" rule from its registry entry, and the rule removes sets."""
    rng = np.random.default_rng(5)
    rare = (np.arange(24) < 2).astype(int)
    data = Dataset.from_codes(np.column_stack([rare, *rng.integers(0, 2, (5, 24))]))
    pruned = candidate_parent_sets(Scorer(data, "k2"), rules=("bdeu",))
    assert pruned.stats["rules"] == ["bdeu"] and pruned.stats["removed"]["bdeu"] > 0


def test_params_and_labels_come_from_the_registry():
    data = tiny()
    assert Scorer(data, "bdeu", ess=2).params == {"score": "bdeu", "ess": 2.0}
    assert Scorer(data, "BIC").params == {"score": "bic"}
    assert SCORES["bdeu"].settings_text({"ess": 2.0}) == "BDeu(2)"
    assert SCORES["bic"].settings_text({"ess": 2.0}) == "BIC"  # no hyperparameter: ess is not its setting
    with pytest.raises(ScoreError, match="unknown score 'mdl': choose one of " + ", ".join(SCORES)):
        score_spec("mdl")


def test_an_ess_too_small_for_the_prior_counts_is_refused():
    # below MIN_ESS BDeu's prior count ess / (q r) heads for 0: at 5e-324 it is 0 and every score was -inf, silently
    from bnexplore import learn
    from bnexplore.scores.registry import MIN_ESS

    data = random_data(1, n_vars=3)
    for ess in (5e-324, 1e-9, 0.0):
        with pytest.raises(ScoreError, match=rf"^ess must be a positive number \(the equivalent sample size\) at "
                                             rf"least 1e-06 and at most 1,000,000, got {ess!r}$"):
            learn(data, "hc", ess=ess)
    scorer = Scorer(data, "bdeu", ess=MIN_ESS)  # the smallest allowed scores like its naive twin
    for v, parents in ((0, []), (1, [0]), (2, [0, 1])):
        expected = naive.local_score(data.codes, data.arities, v, parents, "bdeu", ess=MIN_ESS)
        assert math.isfinite(expected) and scorer.local(v, parents) == pytest.approx(expected, rel=1e-9)
