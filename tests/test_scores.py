"""Local scores: kernels against tests/naive.py, hand-computed values,
decomposability, score equivalence, the Scorer's cache and its errors."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

import naive
from bnexplore.errors import ScoreError
from bnexplore.graphs import DAG
from bnexplore.scores import SCORES as REGISTERED
from bnexplore.scores import Scorer, kernels, kl_statistics, pack_parent_sets

SCORES = ["bdeu", "k2", "bic", "aic", "ll"]


def table(codes, arities=None, names=None):
    """A minimal data set from a list of rows."""
    codes = np.asfortranarray(np.asarray(codes, dtype=np.uint8))
    if arities is None:
        arities = codes.max(axis=0).astype(np.int64) + 1
    names = names or [f"V{i}" for i in range(codes.shape[1])]
    return SimpleNamespace(codes=codes, arities=np.asarray(arities), names=names)


def random_dag_data(rng, n_vars, n_rows, max_arity=4, max_parents=3):
    """Data sampled from a random DAG with random CPTs, so variables depend."""
    arities = rng.integers(2, max_arity + 1, n_vars)
    codes = np.zeros((n_rows, n_vars), np.uint8)
    parents = []
    for v in range(n_vars):
        ps = sorted(rng.choice(v, min(v, rng.integers(0, max_parents + 1)), replace=False).tolist()) if v else []
        parents.append(ps)
        config = np.zeros(n_rows, np.int64)
        for p in ps:
            config = config * arities[p] + codes[:, p]
        q = int(np.prod([arities[p] for p in ps])) if ps else 1
        cpt = rng.dirichlet(np.full(arities[v], 0.7), size=q)
        cum = cpt.cumsum(axis=1)
        u = rng.random(n_rows)
        codes[:, v] = np.minimum((u[:, None] > cum[config]).sum(axis=1), arities[v] - 1)
    return table(codes, arities), parents


@pytest.fixture(scope="module")
def data():
    return random_dag_data(np.random.default_rng(7), 8, 400)[0]


def random_families(rng, n_vars, count, max_size):
    fams = []
    for _ in range(count):
        child = int(rng.integers(n_vars))
        others = [v for v in range(n_vars) if v != child]
        size = int(rng.integers(0, max_size + 1))
        fams.append((child, sorted(rng.choice(others, size, replace=False).tolist())))
    return fams


# -- kernels against their naive twins ------------------------------------

@pytest.mark.parametrize("score", SCORES)
def test_local_score_matches_naive(data, score):
    rng = np.random.default_rng(1)
    codes = np.asarray(data.codes)
    scorer = Scorer(data, score, ess=2.5)
    for child, parents in random_families(rng, data.codes.shape[1], 40, 4):
        expected = naive.local_score(codes, data.arities, child, parents, score, ess=2.5)
        assert scorer.local(child, parents) == pytest.approx(expected, rel=1e-10, abs=1e-9)


@pytest.mark.parametrize("score", SCORES)
def test_sparse_counting_equals_dense(data, score):
    """Compressing configurations that occur gives the same scores."""
    rng = np.random.default_rng(2)
    cols = np.ascontiguousarray(np.asarray(data.codes).T)
    arities = np.asarray(data.arities, np.int64)
    code = REGISTERED[score].code
    for child, parents in random_families(rng, cols.shape[0], 40, 5):
        ps = np.array(parents, np.int64)
        dense = kernels.local_score(cols, arities, child, ps, code, 1.0, 1 << 30)
        sparse = kernels.local_score(cols, arities, child, ps, code, 1.0, 1)
        assert sparse == pytest.approx(dense, rel=1e-12, abs=1e-9)


def test_counts_match_naive_in_both_paths(data):
    rng = np.random.default_rng(3)
    codes = np.asarray(data.codes)
    cols = np.ascontiguousarray(codes.T)
    arities = np.asarray(data.arities, np.int64)
    no_extra = np.zeros(0, np.uint8)
    for child, parents in random_families(rng, cols.shape[0], 30, 4):
        expected = naive.family_counts(codes, child, parents)
        nonzero = sorted(sorted(c.values()) for c in expected.values())
        for cells in (1 << 30, 1):
            counts = kernels.family_counts(cols, arities, child, np.array(parents, np.int64), no_extra, cells)
            assert counts.sum() == len(codes)
            rows = sorted(sorted(int(x) for x in row if x) for row in counts if row.sum())
            assert rows == nonzero
        dense = kernels.family_counts(cols, arities, child, np.array(parents, np.int64), no_extra, 1 << 30)
        for config, counter in expected.items():
            j = 0
            for p, s in zip(parents, config):
                j = j * arities[p] + s
            for k, n in counter.items():
                assert dense[j, k] == n


def test_huge_parent_space_never_allocates_it():
    """12 parents with 5 states: 5**12 * 5 cells would be 1.2e9; only occurring ones are counted."""
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 5, (300, 13))
    data = table(codes, arities=np.full(13, 5))
    scorer = Scorer(data, "bdeu")
    parents = list(range(1, 13))
    assert scorer.local(0, parents) == pytest.approx(
        naive.local_score(codes, data.arities, 0, parents, "bdeu"), rel=1e-10)
    assert scorer.local(0, parents) == pytest.approx(
        naive.local_score(codes, data.arities, 0, parents, "bdeu"), rel=1e-10)


def test_key_overflow_is_avoided():
    """40 binary parents of 30 states each would overflow int64 keys without compression."""
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 30, (200, 41))
    data = table(codes, arities=np.full(41, 30))
    parents = list(range(1, 41))
    for score in ("bic", "bdeu"):
        expected = naive.local_score(codes, data.arities, 0, parents, score)
        assert Scorer(data, score).local(0, parents) == pytest.approx(expected, rel=1e-9)


def test_astronomically_many_configurations_are_refused():
    codes = np.zeros((5, 400), np.uint8)
    data = table(codes, arities=np.full(400, 10))
    with pytest.raises(ScoreError, match="more than 1e300 joint states"):
        Scorer(data).local(0, list(range(1, 400)))


def test_entropy_matches_naive(data):
    rng = np.random.default_rng(6)
    codes = np.asarray(data.codes)
    scorer = Scorer(data)
    for child, parents in random_families(rng, codes.shape[1], 20, 4):
        variables = parents + [child]
        assert scorer.entropy(variables) == pytest.approx(naive.entropy(codes, variables), rel=1e-10, abs=1e-12)
        h_joint = naive.entropy(codes, variables)
        h_parents = naive.entropy(codes, parents) if parents else 0.0
        assert scorer.conditional_entropy(child, parents) == pytest.approx(h_joint - h_parents, abs=1e-10)
    assert scorer.entropy([]) == 0.0


def test_kl_statistics_match_naive(data):
    rng = np.random.default_rng(8)
    codes = np.asarray(data.codes)
    labels = (rng.random(len(codes)) < 0.4).astype(np.uint8)
    fams = random_families(rng, codes.shape[1], 40, 3)
    r_vals, df_vals = kl_statistics(data, labels, [c for c, _ in fams], [p for _, p in fams])
    for (child, parents), r_val, df_val in zip(fams, r_vals, df_vals):
        expected_r, expected_df = naive.kl_statistic(codes, data.arities, labels, child, parents)
        assert r_val == pytest.approx(expected_r, rel=1e-10, abs=1e-12)
        assert df_val == expected_df


def test_kl_sparse_equals_dense(data):
    rng = np.random.default_rng(9)
    cols = np.ascontiguousarray(np.asarray(data.codes).T)
    arities = np.asarray(data.arities, np.int64)
    labels = (rng.random(cols.shape[1]) < 0.5).astype(np.uint8)
    for child, parents in random_families(rng, cols.shape[0], 30, 4):
        ps = np.array(parents, np.int64)
        dense = kernels.kl_statistic(cols, arities, labels, child, ps, 1 << 30)
        sparse = kernels.kl_statistic(cols, arities, labels, child, ps, 1)
        assert sparse[0] == pytest.approx(dense[0], rel=1e-12, abs=1e-12)
        assert sparse[1] == dense[1]


# -- hand-computed values ----------------------------------------------------

TINY = [[0, 0], [0, 1], [1, 1], [1, 1]]  # X = col 0, Y = col 1


def test_hand_computed_scores_without_parents():
    data = table(TINY)
    # BDeu, ess = 1, r = 2, q = 1: a_j = 1, a_jk = 1/2; counts X: 2, 2.
    # lgamma(1) - lgamma(5) + 2 (lgamma(2.5) - lgamma(0.5)), Gamma(2.5)/Gamma(0.5) = 1.5 * 0.5
    assert Scorer(data, "bdeu").local(0) == pytest.approx(-math.log(24) + 2 * math.log(0.75), rel=1e-12)
    # K2: lgamma(2) - lgamma(6) + 2 lgamma(3)
    assert Scorer(data, "k2").local(0) == pytest.approx(-math.log(120) + 2 * math.log(2), rel=1e-12)
    assert Scorer(data, "ll").local(0) == pytest.approx(4 * math.log(0.5), rel=1e-12)
    assert Scorer(data, "bic").local(0) == pytest.approx(4 * math.log(0.5) - 0.5 * math.log(4), rel=1e-12)
    assert Scorer(data, "aic").local(0) == pytest.approx(4 * math.log(0.5) - 1, rel=1e-12)


def test_hand_computed_scores_with_a_parent():
    data = table(TINY)
    # Y given X: X=0 -> Y in {0, 1}; X=1 -> Y in {1, 1}.
    ll = 2 * math.log(0.5) + 0.0
    assert Scorer(data, "ll").local(1, [0]) == pytest.approx(ll, abs=1e-12)
    assert Scorer(data, "bic").local(1, [0]) == pytest.approx(ll - 0.5 * math.log(4) * 2, rel=1e-12)
    # BDeu ess = 2: q = 2, a_j = 1, a_jk = 1/2.
    # X=0: lgamma(1) - lgamma(3) + 2 (lgamma(1.5) - lgamma(0.5)) = -log 2 + 2 log 0.5
    # X=1: lgamma(1) - lgamma(3) + lgamma(2.5) - lgamma(0.5) = -log 2 + log 0.75
    expected = (-math.log(2) + 2 * math.log(0.5)) + (-math.log(2) + math.log(0.75))
    assert Scorer(data, "bdeu", ess=2).local(1, [0]) == pytest.approx(expected, rel=1e-12)


def test_hand_computed_kl():
    # X parent, Y child, class label c. Class 0 rows: (0,0), (0,1), (1,1); class 1: (1,0).
    rows = [[0, 0], [0, 1], [1, 1], [1, 0]]
    labels = np.array([0, 0, 0, 1])
    data = table(rows)
    r_val, df_val = kl_statistics(data, labels, [1], [[0]])
    # X=0: P = P0 = (1/2, 1/2) -> 0. X=1: P = (1/2, 1/2), P0 = (0, 1): the cell Y=0 has P0 = 0 and
    # is skipped; the cell Y=1 adds 1 * log((1/2) / 1).
    assert r_val[0] == pytest.approx(math.log(0.5) / 4, rel=1e-12)
    assert df_val[0] == 2


def test_kl_with_uniform_reference_is_loglik_plus_log_r():
    """Balov (2013): with uniform class-0 conditionals R_i = LL_i / n + log r_i."""
    rng = np.random.default_rng(11)
    arities = np.array([3, 2, 4])
    # Class 0: every (X0, X1, X2) combination twice, so P0(X2 | X0, X1) is uniform.
    grid = np.array(np.meshgrid(*[np.arange(a) for a in arities], indexing="ij")).reshape(3, -1).T
    zero = np.repeat(grid, 2, axis=0)
    one = np.stack([rng.integers(0, a, 150) for a in arities], axis=1)
    codes = np.vstack([zero, one])
    labels = np.r_[np.zeros(len(zero)), np.ones(len(one))].astype(np.uint8)
    data = table(codes, arities)
    r_val, _ = kl_statistics(data, labels, [2], [[0, 1]])
    ll = Scorer(data, "ll").local(2, [0, 1])
    assert r_val[0] == pytest.approx(ll / len(codes) + math.log(4), rel=1e-12)


# -- decomposability and score equivalence ----------------------------------

def covered_reversals(parents, rng, steps):
    """Apply random covered-edge reversals (Chickering 1995): each keeps the
    DAG in the same Markov equivalence class."""
    parents = [set(p) for p in parents]
    for _ in range(steps):
        covered = [(u, v) for v in range(len(parents)) for u in parents[v]
                   if parents[v] == parents[u] | {u}]
        if not covered:
            break
        u, v = covered[rng.integers(len(covered))]
        parents[v].discard(u)
        parents[u].add(v)
    return [sorted(p) for p in parents]


def test_score_equivalence_under_covered_reversals():
    rng = np.random.default_rng(12)
    checked = 0
    for trial in range(15):
        data, parents = random_dag_data(rng, 7, 300, max_parents=3)
        for score in ("bdeu", "bic"):
            scorer = Scorer(data, score, ess=rng.uniform(0.5, 10))
            before = scorer.total(parents)
            after_parents = covered_reversals(parents, rng, 6)
            after = scorer.total(after_parents)
            assert after == pytest.approx(before, rel=1e-9)
            checked += after_parents != parents
    assert checked > 5  # the reversals really changed the graphs


def test_k2_is_not_score_equivalent():
    """A sanity check that the equivalence test can fail: K2 is not score equivalent."""
    data = table([[0, 0], [0, 1], [1, 1], [2, 1], [0, 0], [2, 0]])
    scorer = Scorer(data, "k2")
    assert scorer.total([[], [0]]) != pytest.approx(scorer.total([[1], []]), rel=1e-9)


def test_total_is_sum_of_local_scores(data):
    scorer = Scorer(data, "bdeu")
    parents = [[], [0], [0, 1], [2], [], [3, 4], [5], [1, 6]]
    assert scorer.total(parents) == pytest.approx(sum(scorer.local(v, p) for v, p in enumerate(parents)))
    by_name = {data.names[v]: [data.names[p] for p in ps] for v, ps in enumerate(parents)}
    assert scorer.total(by_name) == pytest.approx(scorer.total(parents))


# -- the Scorer object -------------------------------------------------------

def test_local_many_equals_local_and_counts(data):
    rng = np.random.default_rng(13)
    fams = random_families(rng, data.codes.shape[1], 60, 3)
    fams += fams[:10]  # repeats
    scorer = Scorer(data, "bic")
    many = scorer.local_many([c for c, _ in fams], [p for _, p in fams])
    distinct = len({(c, tuple(p)) for c, p in fams})
    assert scorer.computed == distinct
    assert scorer.lookups == len(fams)
    fresh = Scorer(data, "bic", cache=False)
    assert np.allclose(many, [fresh.local(c, p) for c, p in fams], rtol=1e-12)
    scorer.local_many([c for c, _ in fams], [p for _, p in fams])
    assert scorer.computed == distinct and scorer.hits == 2 * len(fams) - distinct


def test_names_and_ints_share_the_cache(data):
    scorer = Scorer(data)
    a = scorer.local("V3", ["V1", "V0"])
    b = scorer.local(3, [0, 1])
    assert a == b and scorer.computed == 1 and scorer.hits == 1
    assert scorer.nvar == 3


def test_pack_parent_sets():
    parents, sizes = pack_parent_sets([(), (3,), (1, 2)])
    assert sizes.tolist() == [0, 1, 2]
    assert parents.tolist() == [[-1, -1], [3, -1], [1, 2]]


@pytest.mark.parametrize("call, message", [
    (lambda s: s.local("nope"), "unknown variable 'nope'"),
    (lambda s: s.local(99), "out of range"),
    (lambda s: s.local(1, [1]), "own parent"),
    (lambda s: s.local(1, [2, 2]), "twice"),
    (lambda s: s.total([[]]), "has 1 nodes but the data has 2"),
    (lambda s: s.local_many([0, 1], [[1]]), "2 children but 1 parent sets"),
])
def test_scorer_errors_name_the_problem(call, message):
    scorer = Scorer(table([[0, 1, 0], [1, 0, 1]]) if "has 1" not in message else table(TINY))
    with pytest.raises(ScoreError, match=message):
        call(scorer)


def test_a_dag_is_scored_by_its_node_names_in_any_order():
    """Before, a DAG whose nodes were listed in another order than the data's was scored by position: c -> b,
    ordered [c, b, a], scored as the data's a -> b; and a node the data lacks as the data's node at its place."""
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, (400, 3))
    codes[:, 1] = (codes[:, 0] + (rng.random(400) < 0.2)) % 3
    scorer = Scorer(table(codes, names=["a", "b", "c"]), "bic")
    for arcs in ([("a", "b")], [("c", "b")], [("b", "a"), ("c", "a")]):
        parents = {v: sorted("abc".index(u) for u, w in arcs if w == v) for v in "abc"}
        expected = sum(naive.local_score(codes, [3, 3, 3], "abc".index(v), parents[v], "bic") for v in "abc")
        for order in (["a", "b", "c"], ["c", "b", "a"], ["b", "c", "a"]):
            assert scorer.total(DAG.from_arcs(arcs, order)) == pytest.approx(expected, rel=1e-12), (arcs, order)
    with pytest.raises(ScoreError, match=r"^the graph's nodes are not the data's variables \(only in the graph: x; "
                                         r"only in the data: a\); score a graph over the data's columns$"):
        scorer.total(DAG.from_arcs([("x", "b")], ["x", "b", "c"]))
    with pytest.raises(ScoreError, match=r"only in the graph: none; only in the data: c\)"):
        scorer.total(DAG.from_arcs([("a", "b")], ["a", "b"]))


@pytest.mark.parametrize("kwargs, message", [
    ({"score": "mdl"}, "unknown score 'mdl'"),
    ({"score": "bdeu", "ess": 0}, "positive"),
    ({"score": "bdeu", "ess": float("nan")}, "positive"),
])
def test_bad_score_settings(kwargs, message):
    with pytest.raises(ScoreError, match=message):
        Scorer(table(TINY), **kwargs)


def test_empty_data_is_refused():
    data = SimpleNamespace(codes=np.zeros((0, 2), np.uint8), arities=np.array([2, 2]), names=["a", "b"])
    with pytest.raises(ScoreError, match="no rows"):
        Scorer(data)


def test_kl_label_errors(data):
    with pytest.raises(ScoreError, match="one class label per row"):
        kl_statistics(data, [0, 1], [0], [[]])
    with pytest.raises(ScoreError, match="0 .reference class. or 1"):
        kl_statistics(data, np.full(data.codes.shape[0], 2), [0], [[]])
    with pytest.raises(ScoreError, match="no row belongs to class 0"):
        kl_statistics(data, np.ones(data.codes.shape[0]), [0], [[]])


@pytest.mark.parametrize("score", SCORES)
def test_toggles_match_naive(data, score):
    """Scorer.toggles (the local-search path, with the shared-parents kernel)."""
    rng = np.random.default_rng(14)
    codes = np.asarray(data.codes)
    n = codes.shape[1]
    for _ in range(10):
        child = int(rng.integers(n))
        parents = set(rng.choice([v for v in range(n) if v != child], int(rng.integers(0, 3)), replace=False).tolist())
        others = [u for u in range(n) if u != child]
        scorer = Scorer(data, score, ess=3.0)
        got = scorer.toggles(child, parents, others)
        for u, value in zip(others, got):
            expected = naive.local_score(codes, data.arities, child, sorted(parents ^ {u}), score, ess=3.0)
            assert value == pytest.approx(expected, rel=1e-10, abs=1e-9)
        assert scorer.computed == len(others) and scorer.hits == 0
        again = scorer.toggles(child, parents, others)
        assert np.array_equal(again, got) and scorer.hits == len(others)


def test_parallel_and_serial_batch_kernels_agree_with_naive(monkeypatch):
    """Batches on both sides of kernels.parallel_pays take the parallel and the serial kernels."""
    monkeypatch.setattr(kernels.config, "NUMBA_NUM_THREADS", 2)  # as on a machine with two cores or more
    data = random_dag_data(np.random.default_rng(15), 70, kernels.PARALLEL_WORK // 69 + 1, max_parents=2)[0]
    codes = np.asarray(data.codes)
    n = codes.shape[1]
    scorer = Scorer(data, "bdeu", cache=False)
    assert kernels.parallel_pays(n - 1, scorer.n_rows) and not kernels.parallel_pays(5, scorer.n_rows)
    others = [u for u in range(n) if u != 3]
    for size in (5, len(others)):
        got = scorer.toggles(3, {1}, others[:size])
        for u, value in zip(others[:size], got):
            assert value == pytest.approx(naive.local_score(codes, data.arities, 3, sorted({1} ^ {u}), "bdeu"),
                                          rel=1e-10)
        fams = [(u, [3]) for u in others[:size]]
        many = scorer.local_many([c for c, _ in fams], [p for _, p in fams])
        for (c, p), value in zip(fams, many):
            assert value == pytest.approx(naive.local_score(codes, data.arities, c, p, "bdeu"), rel=1e-10)
