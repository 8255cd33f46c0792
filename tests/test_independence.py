"""The conditional independence tests (bnexplore.independence): kernels against their naive twins,
statistics against scipy and hand computation, the degrees-of-freedom convention, the permutation
test's stream and calibration, and the messages of bad input."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import chi2, chi2_contingency

import naive
from bnexplore import errors, independence
from bnexplore.data import Dataset
from bnexplore.errors import BNExploreError, DataError, OptionError
from bnexplore.independence import TESTS, IndependenceTest, Outcome, ci_statistic, permuted_statistics, strata
from bnexplore.search import registry



def random_codes(rng, n_rows, arities):
    """Independent uniform codes, one column per arity (small arities and rows leave empty cells)."""
    return np.column_stack([rng.integers(0, r, n_rows) for r in arities]).astype(np.int64)


def dataset(codes, arities=None, names=None):
    return Dataset.from_codes(codes, arities=arities, names=names)


def rows_of(tables):
    """Rows (z, x, y) with ``tables[z][x, y]`` copies of each: the data behind a stack of count tables."""
    return np.array([(k, a, b) for k, table in enumerate(tables) for (a, b), c in np.ndenumerate(table)
                     for _ in range(c)], np.int64)


# -- kernels against their naive twins --------------------------------------

def test_strata_match_the_naive_twin():
    rng = np.random.default_rng(1)
    for trial in range(40):
        arities = rng.integers(1, 4, 5)
        codes = random_codes(rng, int(rng.integers(0, 60)), arities)
        z = rng.permutation(5)[: rng.integers(0, 4)]
        order, starts = strata(np.ascontiguousarray(codes.T), z.astype(np.int64))
        want_order, want_starts = naive.strata(codes, z)
        assert order.tolist() == want_order, trial
        assert starts.tolist() == want_starts, trial


@pytest.mark.parametrize("pearson", [False, True])
def test_ci_statistic_matches_the_naive_twin_dense_and_by_strata(pearson):
    """Small samples over large arities leave many empty cells; ``dense_cells`` 0 forces the counting by
    strata, a large one the dense table: both give the twin's statistic and dof."""
    rng = np.random.default_rng(2)
    for trial in range(60):
        arities = rng.integers(1, 5, 6)
        codes = random_codes(rng, int(rng.integers(1, 80)), arities)
        x, y, *z = rng.permutation(6)[: 2 + rng.integers(0, 4)].tolist()
        cols = np.ascontiguousarray(codes.T)
        want_stat, want_dof = naive.ci_statistic(codes, x, y, z, pearson)
        for cells in (0, 10**9):
            stat, dof = ci_statistic(cols, arities.astype(np.int64), x, y, np.array(z, np.int64), pearson, cells)
            assert dof == want_dof, (trial, cells)
            assert stat == pytest.approx(want_stat, rel=1e-9, abs=1e-9), (trial, cells)


def test_ci_statistic_reads_uint8_codes_as_a_dataset_stores_them():
    rng = np.random.default_rng(3)
    codes = random_codes(rng, 300, [3, 2, 4, 2])
    data = dataset(codes)
    assert data.codes.dtype == np.uint8
    cols = np.ascontiguousarray(data.codes.T)
    got = ci_statistic(cols, data.arities.astype(np.int64), 0, 2, np.array([1, 3], np.int64), False, 4096)
    assert got[0] == pytest.approx(naive.ci_statistic(codes, 0, 2, [1, 3], False)[0], rel=1e-12)


def test_permuted_statistics_match_the_naive_twin_with_the_same_uniforms():
    rng = np.random.default_rng(4)
    for trial in range(10):
        codes = random_codes(rng, 50, [3, 2, 3])
        order, starts = naive.strata(codes, [2])
        xs = codes[order, 0].tolist()
        ys = codes[order, 1].tolist()
        uniforms = rng.random((7, len(codes)))
        fast_xs = np.array(xs, np.int64)
        got = permuted_statistics(fast_xs, np.array(ys, np.int64), np.array(starts, np.int64), 3, 2, uniforms)
        want = naive.permuted_statistics(xs, ys, starts, uniforms)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9), trial
        assert fast_xs.tolist() == xs  # the same shuffles, left in place
        for k in range(len(starts) - 1):  # a permutation within each stratum keeps its values
            s, e = starts[k], starts[k + 1]
            assert sorted(xs[s:e]) == sorted(codes[order[s:e], 0].tolist())


# -- statistics against scipy and by hand -----------------------------------

@pytest.mark.parametrize("test, lambda_", [("g2", "log-likelihood"), ("chi2", None)])
def test_statistics_and_p_values_match_scipy_summed_over_strata(test, lambda_):
    """Tables with no empty cell: the statistic and dof are scipy's ``chi2_contingency`` (no continuity
    correction) summed over the strata, the p-value the chi-squared tail of that sum."""
    rng = np.random.default_rng(5)
    for trial in range(12):
        m, r_x, r_y = (int(v) for v in rng.integers(1, 5, 3))
        r_x, r_y = r_x + 1, r_y + 1
        tables = rng.integers(1, 30, (m, r_x, r_y))
        out = IndependenceTest(dataset(rows_of(tables), arities=[m, r_x, r_y]), test)(1, 2, (0,))
        want = [chi2_contingency(table, correction=False, lambda_=lambda_) for table in tables]
        statistic = sum(w[0] for w in want)
        dof = sum(w[2] for w in want)
        assert out.dof == dof == m * (r_x - 1) * (r_y - 1)
        assert out.statistic == pytest.approx(statistic, rel=1e-9)
        assert out.p_value == pytest.approx(chi2.sf(statistic, dof), rel=1e-9)


def test_a_tiny_table_by_hand():
    """The 2 x 2 table [[3, 1], [1, 3]]: every expected count is 2, X2 = 4 (1/2) = 2,
    G2 = 2 (2 * 3 log(3/2) + 2 * 1 log(1/2)) = 4 log(27/16); with 1 dof the tail is erfc(sqrt(s / 2))."""
    data = dataset(rows_of([np.array([[3, 1], [1, 3]])])[:, 1:])
    g2 = IndependenceTest(data, "g2")(0, 1)
    x2 = IndependenceTest(data, "chi2")(0, 1)
    assert g2.dof == x2.dof == 1
    assert g2.statistic == pytest.approx(4 * math.log(27 / 16), rel=1e-12)
    assert x2.statistic == pytest.approx(2.0, rel=1e-12)
    assert g2.p_value == pytest.approx(math.erfc(math.sqrt(2 * math.log(27 / 16))), rel=1e-9)
    assert x2.p_value == pytest.approx(math.erfc(1.0), rel=1e-9)


def test_degrees_of_freedom_count_the_states_that_occur_in_each_stratum():
    """x, y, z of 3 states. Stratum z = 0: x in {0, 1, 2}, y in {0, 1}: (3-1)(2-1) = 2; z = 1: x in
    {0, 1}, y in {0, 1, 2}: (2-1)(3-1) = 2; z = 2 does not occur: 0. So 4, not the 3 (3-1)(3-1) = 12
    of the full table (causal-learn's Chisq_or_Gsq gives 4 on this table too)."""
    rows = [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (0, 2, 0), (0, 2, 1), (0, 2, 1),
            (1, 0, 0), (1, 0, 1), (1, 0, 2), (1, 1, 0), (1, 1, 2)]
    data = dataset(np.array(rows), arities=[3, 3, 3])
    for test in ("g2", "chi2", "mi-perm"):
        out = IndependenceTest(data, test, seed=0, permutations=9)(1, 2, (0,))
        assert out.dof == 4, test
    assert naive.ci_statistic(np.array(rows), 1, 2, [0], False)[1] == 4


def test_no_degrees_of_freedom_gives_p_value_one():
    """x constant in every stratum: no stratum can show a dependence, so dof 0 and p = 1 (independent)."""
    rows = np.array([(0, 0, 0), (0, 0, 1), (1, 1, 0), (1, 1, 1), (1, 1, 1)])
    for test in ("g2", "chi2"):
        ci = IndependenceTest(dataset(rows), test)
        assert ci(1, 2, (0,)) == Outcome(1.0, 0.0, 0)
        assert ci.independent(1, 2, (0,))[0]


def test_a_huge_conditioning_space_is_counted_by_the_strata_that_occur():
    """Ten conditioning variables of 50 states: 50**10 joint states, so the dense table would need about
    10**17 cells; the 200 rows are counted stratum by stratum and give the twin's answer."""
    rng = np.random.default_rng(6)
    codes = random_codes(rng, 200, [50] * 12)
    ci = IndependenceTest(dataset(codes, arities=[50] * 12), "g2")
    out = ci(0, 1, tuple(range(2, 12)))
    statistic, dof = naive.ci_statistic(codes, 0, 1, list(range(2, 12)), False)
    assert (out.statistic, out.dof) == (pytest.approx(statistic, abs=1e-9), dof)
    assert out.p_value == 1.0  # 200 rows in (almost surely) 200 strata of one row each: no dof


def test_dependence_and_independence_on_sampled_data():
    rng = np.random.default_rng(7)
    n = 2000
    z = rng.integers(0, 3, n)
    x = (z + (rng.random(n) < 0.3)) % 3  # x and y depend on z only
    y = (z + (rng.random(n) < 0.3)) % 3
    ci = IndependenceTest(dataset(np.column_stack([x, y, z])), "g2", alpha=0.01)
    assert not ci.independent(0, 1)[0]
    assert ci.independent(0, 1, (2,))[0]
    assert ci.calls == 2


# -- the permutation test ---------------------------------------------------

def test_the_permutation_p_value_follows_the_naive_twin_on_the_same_stream(monkeypatch):
    """The stream of :meth:`IndependenceTest.stream`, drawn in one piece, gives the naive twin's p-value
    although the test draws it in blocks of two permutations."""
    monkeypatch.setattr(independence, "PERMUTATION_BLOCK", 2 * 120)
    rng = np.random.default_rng(8)
    codes = random_codes(rng, 120, [2, 3, 2, 2])
    codes[:, 0] = np.where(rng.random(120) < 0.3, codes[:, 1] % 2, codes[:, 0])  # a weak dependence
    names = ["D", "B", "A", "C"]  # the shuffled variable is the one whose name sorts first: B (column 1)
    ci = IndependenceTest(dataset(codes, names=names), "mi-perm", permutations=99, seed=11)
    out = ci(0, 1, (3, 2))
    uniforms = ci.stream(0, 1, (2, 3)).random((99, 120))
    order, starts = naive.strata(codes, [2, 3])  # z sorted by name: A, C
    xs, ys = codes[order, 1].tolist(), codes[order, 0].tolist()
    observed, dof = naive.ci_statistic(codes, 1, 0, [2, 3], False)
    perms = naive.permuted_statistics(xs, ys, starts, uniforms)
    want = (1 + sum(s >= observed - 1e-9 * max(1, observed) for s in perms)) / 100
    assert out == (pytest.approx(want), pytest.approx(observed), dof)
    assert 0.01 < want < 1  # neither every permutation above nor below: the comparison matters


def test_the_permutation_p_value_does_not_depend_on_argument_or_column_order():
    rng = np.random.default_rng(9)
    codes = random_codes(rng, 80, [3, 2, 2, 3])
    names = ["w", "x", "y", "z"]
    ci = IndependenceTest(dataset(codes, names=names), "mi-perm", permutations=199, seed=5)
    first = ci(0, 1, (2, 3))
    assert ci(1, 0, (3, 2)) == first
    assert ci(0, 1, (2, 3)) == first  # the same again after other tests: no shared stream
    perm = [3, 1, 0, 2]
    moved = IndependenceTest(dataset(codes[:, perm], names=[names[i] for i in perm]), "mi-perm",
                             permutations=199, seed=5)
    assert moved(2, 1, (3, 0)) == first
    other_seed = IndependenceTest(dataset(codes, names=names), "mi-perm", permutations=199, seed=6)
    assert other_seed(0, 1, (2, 3)).p_value != first.p_value


def test_the_permutation_test_is_calibrated_and_finds_a_dependence():
    """Under conditional independence the permutation p-values of 40 seeded samples of 60 rows are
    spread over (0, 1] (uniform in law: about 4 of 40 at or below 0.1); a strong dependence gets the
    smallest p-value there is, 1 / (1 + permutations)."""
    rng = np.random.default_rng(10)
    p_values = []
    for trial in range(40):
        z = rng.integers(0, 2, 60)
        codes = np.column_stack([(z + (rng.random(60) < 0.4)) % 2, (z + (rng.random(60) < 0.4)) % 2, z])
        p_values.append(IndependenceTest(dataset(codes), "mi-perm", permutations=99, seed=trial)(0, 1, (2,)).p_value)
    assert min(p_values) > 0.01
    assert sum(p <= 0.1 for p in p_values) <= 10
    assert 0.35 < np.mean(p_values) < 0.65
    x = rng.integers(0, 3, 60)
    codes = np.column_stack([x, x, rng.integers(0, 2, 60)])
    assert IndependenceTest(dataset(codes), "mi-perm", permutations=99, seed=0)(0, 1, (2,)).p_value == 0.01


# -- the protocol and bad input ---------------------------------------------

def test_the_tests_are_the_registry_s_and_any_object_with_codes_arities_and_names_will_do():
    assert TESTS == registry.TESTS
    codes = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    ci = IndependenceTest(SimpleNamespace(codes=codes, arities=[2, 2], names=["a", "b"]), "chi2", alpha=0.5)
    assert (ci.names, ci.n_vars, ci.test, ci.alpha, ci.calls) == (["a", "b"], 2, "chi2", 0.5, 0)
    independent, outcome = ci.independent(0, 1)
    assert independent is True and isinstance(outcome, Outcome) and outcome.p_value == 1.0
    assert isinstance(outcome.dof, int) and isinstance(outcome.statistic, float)
    assert ci.calls == 1


@pytest.mark.parametrize("options, message", [
    (dict(test="fisher"), "test='fisher' is not an independence test: choose one of g2, chi2, mi-perm"),
    (dict(test=None), "test=None is not an independence test"),
    (dict(alpha=0), "alpha must be a positive number at most 1, got 0"),
    (dict(alpha=1.5), "alpha must be a positive number at most 1, got 1.5"),
    (dict(alpha=float("nan")), "alpha must be a positive number"),
    (dict(permutations=0), "permutations must be a whole number >= 1"),
    (dict(permutations=2.5), "permutations must be a whole number >= 1"),
    (dict(permutations=10**7), "permutations must be a whole number >= 1 and <= 1,000,000"),
    (dict(seed=-1), "seed must be a whole number >= 0"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(OptionError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        IndependenceTest(dataset(np.zeros((3, 2), int)), **options)


def test_bad_options_are_named_as_the_command_line_names_them():
    def flag(name, value=errors.NO_VALUE, key=None):
        return f"--{name.replace('_', '-')}" + ("" if value is errors.NO_VALUE else f" {value}")
    with errors.door(flag), pytest.raises(OptionError, match="^--alpha must be a positive number at most 1, got 2"):
        IndependenceTest(dataset(np.zeros((3, 2), int)), alpha=2)


@pytest.mark.parametrize("args, message", [
    ((0, 0, ()), "x and y are both 'a'"),
    ((0, 1, (1,)), "y = 'b' is also in the conditioning set z"),
    ((0, 1, (2, 0)), "x = 'a' is also in the conditioning set z"),
    ((0, 3, ()), r"y must be a column index 0 \.\. 2 of the data, got 3"),
    ((-1, 1, ()), "x must be a column index"),
    ((0, 1, (5,)), "every member of z must be a column index"),
    ((0, 1.0, ()), "y must be a column index"),
    ((0, 1, 2), "z must be a sequence of column indices, got 2"),
    ((0, 1, (2, 2)), "the conditioning set z repeats a variable"),
])
def test_bad_questions_are_refused_with_the_variables_named(args, message):
    ci = IndependenceTest(dataset(np.zeros((3, 3), int), names=["a", "b", "c"]))
    with pytest.raises(OptionError, match="^" + message):
        ci(*args)
    assert ci.calls == 0


def test_bad_data_is_refused():
    with pytest.raises(DataError, match="column 'b' has codes 0 .. 2 outside 0 .. 1"):
        IndependenceTest(SimpleNamespace(codes=np.array([[0, 2], [1, 0]]), arities=[2, 2], names=["a", "b"]))
    with pytest.raises(DataError, match="do not agree"):
        IndependenceTest(SimpleNamespace(codes=np.zeros((2, 3), int), arities=[2, 2], names=["a", "b"]))
    with pytest.raises(BNExploreError, match="must be integers"):
        IndependenceTest(SimpleNamespace(codes=np.zeros((2, 2)), arities=[2, 2], names=["a", "b"]))
