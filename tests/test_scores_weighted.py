"""Weighted counts (issue 33): the ``weighted_`` kernels against their naive twins, the Scorer
on weighted data against the row-replicated data (scores and searches), a hand-computed
table with fractional weights, and the one-line refusals (blank cells, bad weights, pruning)."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

import naive
from bnexplore.data import Dataset
from bnexplore.errors import DataError, ScoreError, SearchError
from bnexplore.parents import candidate_parent_sets
from bnexplore.scores import SCORES as REGISTERED
from bnexplore.scores import Scorer, kernels, kl_statistics, pack_parent_sets
from bnexplore.search import SEARCHES
from fakes import StopAfter
from test_scores import SCORES, random_dag_data, random_families


def weighted(data, weights):
    """``data`` with row weights (the attributes a weighted Dataset has)."""
    return SimpleNamespace(codes=data.codes, arities=data.arities, names=data.names, weights=np.asarray(weights))


def replicated(data, counts):
    """``data`` with row ``i`` repeated ``counts[i]`` times."""
    codes = np.asfortranarray(np.repeat(np.asarray(data.codes), counts, axis=0))
    return SimpleNamespace(codes=codes, arities=data.arities, names=data.names)


@pytest.fixture(scope="module")
def data():
    return random_dag_data(np.random.default_rng(33), 7, 300)[0]


@pytest.fixture(scope="module")
def fractions(data):
    """Fractional weights, as structural EM's posterior completions have."""
    return np.random.default_rng(34).uniform(0.05, 2.0, data.codes.shape[0])


@pytest.fixture(scope="module")
def integers(data):
    return np.random.default_rng(35).integers(1, 5, data.codes.shape[0])


# -- kernels against their naive twins, on random fractional weights -------------

def test_weighted_family_counts_match_naive_in_both_paths(data, fractions):
    rng = np.random.default_rng(1)
    codes = np.asarray(data.codes)
    cols = np.ascontiguousarray(codes.T)
    arities = np.asarray(data.arities, np.int64)
    for child, parents in random_families(rng, cols.shape[0], 25, 4):
        expected = naive.weighted_family_counts(codes, fractions, child, parents)
        ps = np.array(parents, np.int64)
        dense = kernels.weighted_family_counts(cols, arities, child, ps, fractions, 1 << 30)
        sparse = kernels.weighted_family_counts(cols, arities, child, ps, fractions, 1)
        assert dense.dtype == np.float64 and dense.sum() == pytest.approx(fractions.sum(), rel=1e-12)
        for config, counter in expected.items():
            j = 0
            for p, s in zip(parents, config):
                j = j * arities[p] + s
            for k, w in counter.items():
                assert dense[j, k] == pytest.approx(w, rel=1e-12)
        rows = sorted(sorted(round(x, 9) for x in row if x) for row in sparse if row.sum())
        assert rows == sorted(sorted(round(w, 9) for w in c.values()) for c in expected.values())


@pytest.mark.parametrize("score", SCORES)
def test_weighted_local_score_matches_naive_dense_and_sparse(data, fractions, score):
    rng = np.random.default_rng(2)
    codes = np.asarray(data.codes)
    cols = np.ascontiguousarray(codes.T)
    arities = np.asarray(data.arities, np.int64)
    code = REGISTERED[score].code
    for child, parents in random_families(rng, cols.shape[0], 25, 4):
        expected = naive.weighted_local_score(codes, fractions, data.arities, child, parents, score, ess=2.5)
        ps = np.array(parents, np.int64)
        for cells in (1 << 30, 1):
            got = kernels.weighted_local_score(cols, arities, child, ps, fractions, code, 2.5, cells)
            assert got == pytest.approx(expected, rel=1e-10, abs=1e-9)


@pytest.mark.parametrize("score", ["bdeu", "bic"])
def test_weighted_batch_kernels_match_naive_parallel_and_serial(data, fractions, score):
    codes = np.asarray(data.codes)
    cols = np.ascontiguousarray(codes.T)
    arities = np.asarray(data.arities, np.int64)
    code = REGISTERED[score].code
    families = random_families(np.random.default_rng(3), cols.shape[0], 40, 3)
    children = np.array([c for c, _ in families], np.int64)
    parents, sizes = pack_parent_sets([p for _, p in families])
    expected = naive.weighted_local_scores(codes, fractions, data.arities, children, [p for _, p in families], score)
    together = kernels.weighted_local_scores(cols, arities, children, parents, sizes, fractions, code, 1.0, 4096)
    serial = kernels.weighted_local_scores_serial(cols, arities, children, parents, sizes, fractions, code, 1.0, 4096)
    assert np.array_equal(together, serial)
    assert together == pytest.approx(expected, rel=1e-10, abs=1e-9)
    base = np.array([1, 4], np.int64)
    extras = np.array([0, 3, 5, 6], np.int64)
    expected = naive.weighted_added_parent_scores(codes, fractions, data.arities, 2, [1, 4], extras.tolist(), score)
    together = kernels.weighted_added_parent_scores(cols, arities, 2, base, extras, fractions, code, 1.0)
    serial = kernels.weighted_added_parent_scores_serial(cols, arities, 2, base, extras, fractions, code, 1.0)
    assert np.array_equal(together, serial)
    assert together == pytest.approx(expected, rel=1e-10, abs=1e-9)


def test_weighted_entropy_matches_naive(data, fractions):
    codes = np.asarray(data.codes)
    cols = np.ascontiguousarray(codes.T)
    arities = np.asarray(data.arities, np.int64)
    for variables in ([], [0], [2, 5], [0, 1, 3, 6]):
        expected = naive.weighted_entropy(codes, fractions, variables)
        for cells in (1 << 30, 1):
            got = kernels.weighted_entropy(cols, arities, np.array(variables, np.int64), fractions, cells)
            assert got == pytest.approx(expected, rel=1e-10, abs=1e-12)


# -- the Scorer: integer weights equal replicated rows ---------------------------

@pytest.mark.parametrize("score", SCORES)
def test_every_scorer_method_equals_the_replicated_data(data, integers, score):
    heavy = Scorer(weighted(data, integers.astype(float)), score, ess=3.0)
    copies = Scorer(replicated(data, integers), score, ess=3.0)
    assert heavy.weighted and not copies.weighted
    assert heavy.n_rows == copies.n_rows == integers.sum() and heavy.rows == data.codes.shape[0]
    families = random_families(np.random.default_rng(4), heavy.n_vars, 30, 3)
    for child, parents in families:
        assert heavy.local(child, parents) == pytest.approx(copies.local(child, parents), rel=1e-12, abs=1e-9)
        assert heavy.conditional_entropy(child, parents) == pytest.approx(copies.conditional_entropy(child, parents),
                                                                          rel=1e-12, abs=1e-12)
        assert heavy.entropy([child, *parents]) == pytest.approx(copies.entropy([child, *parents]), rel=1e-12)
    fresh = Scorer(weighted(data, integers.astype(float)), score, ess=3.0)
    many = fresh.local_many([c for c, _ in families], [p for _, p in families])
    assert many == pytest.approx([copies.local(c, p) for c, p in families], rel=1e-12, abs=1e-9)
    children = np.array([c for c, _ in families], np.int64)
    packed = fresh.score_packed(children, *pack_parent_sets([p for _, p in families]))
    assert np.array_equal(packed, many)
    for child in range(heavy.n_vars):
        parents = {(child + 1) % heavy.n_vars, (child + 3) % heavy.n_vars}
        others = [u for u in range(heavy.n_vars) if u != child]
        toggled = Scorer(weighted(data, integers.astype(float)), score, ess=3.0).toggles(child, parents, others)
        assert toggled == pytest.approx(copies.toggles(child, parents, others), rel=1e-12, abs=1e-9)
    graph = [[], [0], [0, 1], [2], [], [3, 4], [5]]
    assert heavy.local_scores(graph) == pytest.approx(copies.local_scores(graph), rel=1e-12, abs=1e-9)
    assert heavy.total(graph) == pytest.approx(copies.total(graph), rel=1e-12)


def test_merged_duplicate_rows_weighted_by_their_count_score_as_the_table(data):
    """A completed table merges identical rows and sums their weights: the same scores."""
    distinct, counts = np.unique(np.asarray(data.codes), axis=0, return_counts=True)
    merged = SimpleNamespace(codes=np.asfortranarray(distinct), arities=data.arities, names=data.names,
                             weights=counts.astype(float))
    assert len(distinct) < data.codes.shape[0]
    for score in SCORES:
        graph = [[], [0], [0, 1], [2], [1], [3, 4], [5]]
        assert Scorer(merged, score).total(graph) == pytest.approx(Scorer(data, score).total(graph), rel=1e-12)


@pytest.mark.parametrize("algorithm, options", [
    ("hc", {}), ("tabu", {}), ("rpdag", {}), ("rpdag-tabu", {}), ("ges", {}),
    # OBS and ASOBS explore parent sets with bounds in the sample size N, the total weight
    ("obs", {"max_evaluations": 300, "seed": 0}), ("asobs", {"max_evaluations": 300, "seed": 0}),
])
def test_searches_learn_the_same_network_from_weights_as_from_replicated_rows(algorithm, options):
    data = random_dag_data(np.random.default_rng(36), 7, 250, max_parents=2)[0]
    counts = np.random.default_rng(37).integers(1, 6, data.codes.shape[0])
    search = SEARCHES[algorithm].function
    for score in ("bdeu", "bic"):
        heavy = search(Scorer(weighted(data, counts.astype(float)), score), **options)
        copies = search(Scorer(replicated(data, counts), score), **options)
        assert heavy.graph.arcs() == copies.graph.arcs()
        assert heavy.score == pytest.approx(copies.score, rel=1e-12)
        assert heavy.graph.arcs()  # the data has dependencies: not a trivially empty answer
    unweighted = search(Scorer(data, "bic"), **options)
    assert unweighted.score != pytest.approx(heavy.score)  # the weights did change the scores


# -- fractional weights by hand --------------------------------------------------

def test_fractional_weights_by_hand():
    """X, Y binary; rows (x, y) with weights (0,0) 0.5, (0,1) 1.5, (1,1) 2, (0,0) 0.25.

    Weighted counts of Y given X: x=0 -> (0.75, 1.5), x=1 -> (0, 2); N = 4.25."""
    table = SimpleNamespace(codes=np.asfortranarray([[0, 0], [0, 1], [1, 1], [0, 0]], dtype=np.uint8),
                            arities=np.array([2, 2]), names=["X", "Y"], weights=np.array([0.5, 1.5, 2.0, 0.25]))
    lg = math.lgamma
    ll = 0.75 * math.log(0.75 / 2.25) + 1.5 * math.log(1.5 / 2.25) + 2.0 * math.log(2.0 / 2.0)
    by_hand = {
        "ll": ll,
        "bic": ll - 0.5 * math.log(4.25) * 2 * 1,
        "aic": ll - 2 * 1,
        # BDeu(ess 1): a_j = 1/2, a_jk = 1/4
        "bdeu": (lg(0.5) - lg(0.5 + 2.25) + lg(0.25 + 0.75) - lg(0.25) + lg(0.25 + 1.5) - lg(0.25)
                 + lg(0.5) - lg(0.5 + 2.0) + lg(0.25 + 2.0) - lg(0.25)),
        # K2: a_j = 2, a_jk = 1
        "k2": (lg(2) - lg(2 + 2.25) + lg(1 + 0.75) + lg(1 + 1.5) + lg(2) - lg(2 + 2.0) + lg(1 + 2.0)),
    }
    for score, value in by_hand.items():
        assert Scorer(table, score).local("Y", ["X"]) == pytest.approx(value, rel=1e-12)
    scorer = Scorer(table, "bic")
    assert scorer.n_rows == 4.25 and scorer.rows == 4
    p = np.array([2.25, 2.0]) / 4.25
    assert scorer.entropy(["X"]) == pytest.approx(-(p * np.log(p)).sum(), rel=1e-12)
    assert scorer.conditional_entropy("Y", ["X"]) == pytest.approx(-ll / 4.25, rel=1e-12)
    assert "4 rows of total weight 4.25" in repr(scorer)


# -- refusals ---------------------------------------------------------------------

def test_blank_cells_are_refused_in_one_line():
    holed = Dataset.from_codes([[0, 1], [1, -1], [-1, 0], [1, 1]], names=["a", "b"], missing="em")
    with pytest.raises(DataError) as error:
        Scorer(holed)
    message = str(error.value)
    assert "\n" not in message and "scoring needs complete rows" in message and "2 blank cells" in message
    assert "column 'b', row 2" in message and "structural EM" in message and "drop" in message
    assert Scorer(holed.complete_rows()).n_rows == 2


def test_a_weighted_dataset_is_scored_with_its_weights():
    plain = Dataset.from_codes([[0, 1], [1, 0], [1, 1]], names=["a", "b"])
    heavy = Dataset(plain.codes, plain.arities, plain.names, plain.states, weights=[0.5, 2.0, 1.5])
    scorer = Scorer(heavy, "ll")
    assert scorer.weighted and scorer.n_rows == 4.0 and scorer.rows == 3
    assert scorer.local("b", ["a"]) == pytest.approx(2.0 * math.log(2.0 / 3.5) + 1.5 * math.log(1.5 / 3.5))


@pytest.mark.parametrize("weights, message", [
    (np.ones(5), "300 rows but 5 row weights"),
    (np.r_[np.ones(299), 0.0], "row weight 0.0 at row 300"),
    (np.r_[np.nan, np.ones(299)], "row weight nan at row 1"),
    (np.r_[1.0, -2.0, np.ones(298)], "row weight -2.0 at row 2"),
])
def test_bad_weights_are_refused_in_one_line(data, weights, message):
    with pytest.raises(ScoreError, match=message) as error:
        Scorer(weighted(data, weights))
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("prune", [candidate_parent_sets, SEARCHES["exact"].function])
def test_candidate_parent_sets_refuse_weighted_data_in_one_line(data, integers, prune):
    with pytest.raises(SearchError, match="cannot use row weights") as error:
        prune(Scorer(weighted(data, integers.astype(float)), "bic"))
    assert "\n" not in str(error.value) and "hill climbing" in str(error.value)


# -- stop checks count the rows a pass visits ------------------------------------

@pytest.mark.parametrize("algorithm, options", [("hc", {}), ("tabu", {}), ("rpdag", {}), ("ges", {}),
                                                ("asobs", {"max_evaluations": 30, "seed": 1})])
def test_a_weighted_pass_is_checked_for_stops_as_often_as_its_rows_unweighted(monkeypatch, algorithm, options):
    """Passes check Stop every ``kernels.families_per_check(rows)`` local scores: the work is the rows
    counted, not the total weight (a completed table has many rows of small weight)."""
    n, rows = 120, 50
    codes = np.random.default_rng(38).integers(0, 3, size=(rows, n)).astype(np.uint8)
    plain = Dataset.from_codes(codes, arities=np.full(n, 3))
    light = Dataset(plain.codes, plain.arities, plain.names, plain.states, weights=np.full(rows, 0.1))
    monkeypatch.setattr(kernels, "CHECK_WORK", 5 * (n - 1) * rows)  # a check every 5 columns of the first pass
    search = SEARCHES[algorithm].function
    computed = []
    for data in (plain, light):
        stop = StopAfter(2)
        result = search(Scorer(data, "bic"), stop=stop, **options)
        assert result.stats["stopped"] == "stopped" and stop.calls == 2
        computed.append(result.stats["local_scores_computed"])
    assert computed[1] == computed[0] < n * (n - 1) // 4


def test_the_kl_statistic_refuses_blank_cells_and_weights_in_one_line():
    holed = Dataset.from_codes([[0, 1], [1, -1], [0, 0]], names=["a", "b"], missing="em")
    plain = Dataset.from_codes([[0, 1], [1, 0], [0, 0]], names=["a", "b"])
    heavy = Dataset(plain.codes, plain.arities, plain.names, plain.states, weights=[1.0, 0.5, 2.0])
    labels = np.array([0, 1, 0])
    for data, message in ((holed, "needs complete rows"), (heavy, "cannot use row weights")):
        with pytest.raises(DataError, match=f"the BNKL statistic {message}") as error:
            kl_statistics(data, labels, [1], [[0]])
        assert "\n" not in str(error.value)
    assert kl_statistics(plain, labels, [1], [[0]])[1].tolist() == [2]
