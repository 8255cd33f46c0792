"""BNKL (Balov 2013): the exact complexity path against brute force, the
paper's identities, the IDE order, CPTs, edge contributions and errors."""

import io
import json
import math
from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import naive
from bnexplore.bif import read_bif, write_bif
from bnexplore.data import Dataset
from bnexplore.errors import BIFError, DataError, ResourceError, ScoreError, SearchError
from bnexplore.result import Result
from bnexplore.bnkl import (bnkl, bnkl_search, bnkl_xy, class_networks_from_json, complexity_path, encode_classes,
                            g_test_log_pvalue, ide_order, marginal_divergence, n_statistics, pareto_frontier,
                            rule_values, select_index, welch_log_pvalue)
from bnexplore.bnkl.divergence import _chi2_tail_log_sf, _t_tail_log_sf


def planted_frame(rng, n_rows, n_noise=4):
    """Numeric X, Y: Y follows X in class "b", is independent of it in class "a";
    both have the same N(0, 1)-like marginals in the two classes; noise columns."""
    cls = rng.integers(0, 2, n_rows)
    x = rng.normal(size=n_rows)
    y = np.where(cls == 1, 0.95 * x + 0.3 * rng.normal(size=n_rows), rng.normal(size=n_rows))
    noise = {f"N{i}": rng.normal(size=n_rows) for i in range(n_noise)}
    return pd.DataFrame({"X": x, **noise, "Y": y, "cls": np.where(cls == 1, "b", "a")})


def class_dependent_codes(rng, n_rows, arities):
    """Random codes whose distribution differs between the two classes, and the labels."""
    labels = rng.integers(0, 2, n_rows).astype(np.uint8)
    codes = np.zeros((n_rows, len(arities)), np.int64)
    for i, r in enumerate(arities):
        for c in (0, 1):
            rows = labels == c
            codes[rows, i] = rng.choice(r, rows.sum(), p=rng.dirichlet(np.ones(r)))
        if i:  # some dependence on the previous column, stronger in class 1
            copy = (rng.random(n_rows) < 0.2 + 0.4 * labels)
            codes[copy, i] = codes[copy, i - 1] % r
    return codes, labels


# -- brute force over every order-compatible DAG ------------------------------

def brute_force_points(codes, arities, labels, order, max_parents):
    """(df, R, parent sets) of every DAG compatible with ``order`` with |Pa| <= M,
    R and df from the plain-Python twin of the KL kernel."""
    family = {}

    def stat(v, ps):
        if (v, ps) not in family:
            family[(v, ps)] = naive.kl_statistic(codes, arities, labels, v, list(ps))
        return family[(v, ps)]

    per_node = []
    for p, v in enumerate(order):
        sets = [tuple(sorted(ps)) for k in range(min(max_parents, p) + 1) for ps in combinations(order[:p], k)]
        per_node.append([(v, ps) for ps in sets])
    points = []
    for pick in product(*per_node):
        R = sum(stat(v, ps)[0] for v, ps in pick)
        df = sum(stat(v, ps)[1] for v, ps in pick)
        parents = [()] * len(order)
        for v, ps in pick:
            parents[v] = ps
        points.append((df, R, tuple(parents)))
    return points


def brute_force_frontier(points, tol=1e-9):
    """{df: best R} for the complexities where no simpler DAG reaches that R."""
    best = {}
    for df, R, _ in points:
        best[df] = max(best.get(df, -math.inf), R)
    return {d: r for d, r in best.items() if not any(d2 < d and r2 >= r - tol for d2, r2 in best.items())}


CASES = [(5, 2, 11), (5, 1, 12), (5, 2, 13), (4, 3, 14), (5, 0, 15)]


@pytest.mark.parametrize("n_vars, max_parents, seed", CASES)
def test_complexity_path_equals_brute_force(n_vars, max_parents, seed):
    rng = np.random.default_rng(seed)
    arities = rng.integers(2, 5, n_vars)
    codes, labels = class_dependent_codes(rng, 120, arities)
    data = Dataset.from_codes(codes, arities)
    order = rng.permutation(n_vars).tolist()
    result = bnkl_search(data, labels, order=order, max_parents=max_parents)
    points = brute_force_points(codes, arities, labels, order, max_parents)
    frontier = brute_force_frontier(points)

    assert [p["df"] for p in result.path] == sorted(frontier)
    for point in result.path:
        assert point["R"] == pytest.approx(frontier[point["df"]], rel=1e-9, abs=1e-12)
        assert point["S"] == pytest.approx(point["R"] / point["df"])
        # the parent sets stored for the point really have that df and R, and respect order and M
        parents = point["parents"]
        R = sum(naive.kl_statistic(codes, arities, labels, v, list(ps))[0] for v, ps in enumerate(parents))
        df = sum(naive.kl_statistic(codes, arities, labels, v, list(ps))[1] for v, ps in enumerate(parents))
        assert (df, R) == (point["df"], pytest.approx(point["R"], rel=1e-9, abs=1e-12))
        for v, ps in enumerate(parents):
            assert len(ps) <= max_parents
            assert all(order.index(u) < order.index(v) for u in ps)

    best_S = max(R / df for df, R, _ in points)
    assert best_S > 0
    assert result.S == pytest.approx(best_S, rel=1e-9)
    assert result.path[result.selected]["S"] == pytest.approx(best_S, rel=1e-9)
    n = len(codes)
    for select, value in (("bic", lambda d, r: n * r - d * math.log(n) / 2), ("aic", lambda d, r: n * r - d)):
        chosen = bnkl_search(data, labels, order=order, max_parents=max_parents, select=select)
        assert value(chosen.df, chosen.R) == pytest.approx(max(value(d, r) for d, r, _ in points), rel=1e-9)


def test_pareto_frontier_by_hand():
    df = [6, 2, 2, 4, 6, 8, 10]
    R = [2.0, 1.0, 1.5, 1.2, 3.0, 2.9, 3.0 + 1e-15]
    # df 2: best is index 2 (1.5); df 4 (1.2) and df 8 (2.9) are dominated; df 6: index 4 (3.0);
    # df 10 gains only rounding noise over df 6
    assert pareto_frontier(df, R).tolist() == [2, 4]
    assert pareto_frontier([], []).tolist() == []


def test_complexity_path_by_hand():
    """Two nodes, options (df, R): node A {(2, 0.1)}, node B {(2, 0.0), (4, 0.5), (6, 0.55)}."""
    df, R, choice = complexity_path([[2], [2, 4, 6]], [[0.1], [0.0, 0.5, 0.53]])
    assert df.tolist() == [4, 6, 8]
    assert R == pytest.approx([0.1, 0.6, 0.63])
    assert choice.tolist() == [[0, 0], [0, 1], [0, 2]]
    assert select_index(df, R, 100, "ratio") == 1  # R / df: 0.025, 0.1, 0.079
    assert select_index(df, R, 100, "aic") == 2  # 100 R - df: 6, 54, 55
    assert select_index(df, R, 100, "bic") == 1  # 100 R - df log(100) / 2: 0.79, 46.2, 44.6


# -- the paper's identity ---------------------------------------------------------

def test_uniform_reference_gives_loglik_identity():
    """Balov (2013), after Eq. 5: with uniform class-0 conditionals,
    R(G) = l(G) / n + sum_i log r_i, for every network of the path."""
    rng = np.random.default_rng(3)
    arities = np.array([2, 3, 2, 3])
    grid = np.array(list(product(*[range(r) for r in arities])))
    class0 = np.repeat(grid, 2, axis=0)  # every configuration equally often: all conditionals uniform
    class1 = grid[rng.integers(0, len(grid), 150)]
    class1[:, 3] = np.where(rng.random(150) < 0.7, class1[:, 1], class1[:, 3])
    codes = np.vstack([class0, class1])
    labels = np.r_[np.zeros(len(class0)), np.ones(len(class1))].astype(np.uint8)
    result = bnkl_search(Dataset.from_codes(codes, arities), labels, max_parents=2)
    n = len(codes)
    assert len(result.path) > 1
    for point in result.path:
        ll = sum(naive.local_score(codes, arities, v, list(ps), "ll") for v, ps in enumerate(point["parents"]))
        assert point["R"] == pytest.approx(ll / n + np.log(arities).sum(), rel=1e-10)
    for v, ps in enumerate(result.dag.parent_sets()):
        ll = naive.local_score(codes, arities, v, list(ps), "ll")
        assert result.node_R[v] == pytest.approx(ll / n + math.log(arities[v]), rel=1e-10, abs=1e-12)


# -- IDE order ----------------------------------------------------------------------

def test_welch_test_matches_scipy():
    rng = np.random.default_rng(5)
    for _ in range(5):
        a = rng.normal(0, rng.uniform(0.5, 2), rng.integers(3, 40))
        b = rng.normal(rng.uniform(-1, 1), rng.uniform(0.5, 2), rng.integers(3, 40))
        expected = stats.ttest_ind(a, b, equal_var=False).pvalue
        assert math.exp(welch_log_pvalue(a, b)) == pytest.approx(expected, rel=1e-9)
    assert welch_log_pvalue([1.0], [2.0, 3.0]) == 0.0
    assert welch_log_pvalue([2.0, 2.0], [2.0, 2.0]) == 0.0
    assert welch_log_pvalue([2.0, 2.0], [3.0, 3.0]) == -math.inf
    # far beyond double precision p-values still differ on the log scale
    far, farther = welch_log_pvalue(np.arange(500.0), np.arange(500.0) + 2e4), \
        welch_log_pvalue(np.arange(500.0), np.arange(500.0) + 3e4)
    assert farther < far < -745


def test_tail_formulas_match_scipy_where_scipy_is_finite():
    for t, dof in ((8.0, 5.0), (30.0, 998.0), (40.0, 60.5)):
        assert _t_tail_log_sf(t, dof) == pytest.approx(stats.t.logsf(t, dof), rel=1e-10)
    for g, k in ((50.0, 1), (400.0, 3), (1000.0, 5)):
        assert _chi2_tail_log_sf(g, k) == pytest.approx(stats.chi2.logsf(g, k), rel=1e-10)
    # beyond scipy's range the G-test still ranks bigger differences lower
    labels = np.r_[np.zeros(2000), np.ones(2000)].astype(np.uint8)
    split = np.r_[np.zeros(2000), np.ones(2000)].astype(np.int64)
    noisy = split.copy()
    noisy[:50] = 1
    assert g_test_log_pvalue(split, labels, 2) < g_test_log_pvalue(noisy, labels, 2) < -745


def test_g_test_matches_scipy():
    rng = np.random.default_rng(6)
    for _ in range(5):
        codes = rng.integers(0, 4, 200)
        labels = (rng.random(200) < 0.3 + 0.1 * codes).astype(np.uint8)
        table = np.array([[np.sum((codes == k) & (labels == c)) for c in (0, 1)] for k in range(4)])
        expected = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood").pvalue
        assert math.exp(g_test_log_pvalue(codes, labels, 4)) == pytest.approx(expected, rel=1e-9)
    assert g_test_log_pvalue(np.zeros(10, int), np.r_[np.zeros(5), np.ones(5)].astype(int), 3) == 0.0


def test_ide_order_is_least_differential_first():
    assert ide_order([-3.0, -0.1, -50.0, -0.1, -1e4]) == [1, 3, 0, 2, 4]


def test_order_tests_and_pvalues_in_bnkl():
    rng = np.random.default_rng(7)
    n = 300
    cls = rng.integers(0, 2, n)
    frame = pd.DataFrame({"weak": rng.normal(size=n) + 0.2 * cls, "strong": rng.normal(size=n) + 2.0 * cls,
                          "none": rng.normal(size=n), "colour": np.where(rng.random(n) < 0.3 + 0.4 * cls, "r", "g"),
                          "cls": cls})
    result = bnkl(frame, "cls")
    names = result.names
    assert result.tests == ["welch-t" if v != "colour" else "g-test" for v in names]
    x = frame["strong"].to_numpy()
    assert result.pvalues[names.index("strong")] == pytest.approx(
        stats.ttest_ind(x[cls == 0], x[cls == 1], equal_var=False).pvalue, rel=1e-9)
    ordered = [result.pvalues[v] for v in result.order]
    assert ordered == sorted(ordered, reverse=True)
    assert names[result.order[-1]] == "strong"


# -- discretization, CPTs, contributions ---------------------------------------------

def test_uniform3_cut_points_on_known_data():
    """Values 0.0, 0.1, ..., 10.0: the 2.5 / 97.5 percentiles are 0.25 / 9.75,
    so the cut points are 0.25 + 9.5 / 3 and 0.25 + 2 * 9.5 / 3."""
    values = np.arange(101) / 10
    frame = pd.DataFrame({"X": values, "Z": values[::-1], "cls": np.arange(101) % 2})
    result = bnkl(frame, "cls")
    assert result.cut_points["X"] == pytest.approx([0.25 + 9.5 / 3, 0.25 + 19 / 3])
    assert result.cut_points["Z"] == pytest.approx([0.25 + 9.5 / 3, 0.25 + 19 / 3])
    assert result.encoder.cut_points() == result.cut_points


def test_zero_probabilities_reset_to_one_third_n():
    """Balov (2013), Algorithm 1: zeros become 1 / (3 n), then renormalised."""
    frame = pd.DataFrame({"X": ["u", "v", "w", "u", "v", "u", "u", "v", "v", "u"],
                          "cls": ["a"] * 5 + ["b"] * 5})
    result = bnkl(frame, "cls")
    n = 10
    p0 = np.array([2, 2, 1]) / 5
    p1 = np.array([3 / 5, 2 / 5, 1 / (3 * n)])
    assert result.networks[0].cpts[0] == pytest.approx(p0)
    assert result.networks[1].cpts[0] == pytest.approx(p1 / p1.sum())
    ll = result.log_likelihoods(pd.DataFrame({"X": ["w", "u"]}))
    assert ll == pytest.approx(np.log([[p0[2], p1[2] / p1.sum()], [p0[0], p1[0] / p1.sum()]]))


def test_class_cpts_are_class_frequencies():
    rng = np.random.default_rng(8)
    codes, labels = class_dependent_codes(rng, 400, [3, 3, 2])
    result = bnkl_search(Dataset.from_codes(codes, [3, 3, 2]), labels, max_parents=2)
    top = result.at(len(result.path) - 1)
    for c, net in enumerate(top.networks):
        rows = codes[labels == c]
        for v, (ps, table) in enumerate(zip(net.parents, net.cpts)):
            for config in product(*[range(3 if p < 2 else 2) for p in ps]):
                match = np.all(rows[:, ps] == config, axis=1) if ps else np.ones(len(rows), bool)
                counts = np.bincount(rows[match, v], minlength=table.shape[-1]).astype(float)
                if counts.sum() == 0:
                    assert table[config] == pytest.approx(np.full(len(counts), 1 / len(counts)))
                    continue
                freq = counts / counts.sum()
                freq = np.where(freq > 0, freq, 1 / (3 * len(codes)))
                assert table[config] == pytest.approx(freq / freq.sum())


def test_planted_interaction_is_found_with_largest_contribution():
    rng = np.random.default_rng(9)
    frame = planted_frame(rng, 600)
    result = bnkl(frame, "cls")
    x, y = result.names.index("X"), result.names.index("Y")
    assert result.dag.adjacent(x, y)
    u, v, kl = max(result.arc_kl, key=lambda arc: arc[2])
    assert {u, v} == {x, y}
    # the contribution is R_v with and without u, recomputed with the plain-Python twin
    codes = np.asarray(result.data.codes)
    parents = list(result.dag.parents(v))
    with_u = naive.kl_statistic(codes, result.data.arities, result.labels, v, parents)[0]
    without = naive.kl_statistic(codes, result.data.arities, result.labels, v, [p for p in parents if p != u])[0]
    assert kl == pytest.approx(with_u - without, rel=1e-10)
    assert result.node_R.sum() == pytest.approx(result.R)
    assert result.marginal_R[v] == pytest.approx(
        naive.kl_statistic(codes, result.data.arities, result.labels, v, [])[0], rel=1e-10)


def test_class0_choice_changes_the_reference():
    rng = np.random.default_rng(10)
    frame = planted_frame(rng, 300)
    default = bnkl(frame, "cls")
    swapped = bnkl(frame, "cls", class0="b")
    assert default.classes == ["a", "b"] and swapped.classes == ["b", "a"]
    assert default.class_counts == swapped.class_counts[::-1]
    codes = np.asarray(swapped.data.codes)
    flipped = (frame["cls"] == "a").to_numpy().astype(np.uint8)
    for v in range(len(swapped.names)):
        assert swapped.marginal_R[v] == pytest.approx(
            naive.kl_statistic(codes, swapped.data.arities, flipped, v, [])[0], rel=1e-10, abs=1e-14)
    assert not np.allclose(default.marginal_R, swapped.marginal_R)


def test_path_walk_json_and_result():
    rng = np.random.default_rng(11)
    frame = planted_frame(rng, 300, n_noise=2)
    result = bnkl(frame, "cls", select="bic")
    assert [p["df"] for p in result.path] == sorted(p["df"] for p in result.path)
    for i in (0, len(result.path) - 1, result.selected):
        other = result.at(i)
        assert other.selected == i
        assert other.R == pytest.approx(result.path[i]["R"], rel=1e-12)
        assert other.df == result.path[i]["df"]
        assert other.dag == result.dag_at(i)
        assert [tuple(ps) for ps in other.dag.parent_sets()] == list(result.path[i]["parents"])
    assert result.at(0).dag.n_edges == 0
    data = json.loads(json.dumps(result.to_json()))
    assert data["graph"] == result.dag.to_json()
    assert data["order"] == [result.names[v] for v in result.order]
    assert len(data["path"]) == len(result.path) and data["selected"] == result.selected
    assert data["classes"] == ["a", "b"] and data["class_column"] == "cls"
    assert set(data["cpts"]) == {"class0", "class1"}
    res = result.to_result()
    n = result.params["n_rows"]
    assert (res.algorithm, res.score_name) == ("bnkl", "kl-bic")
    assert res.score == pytest.approx(n * result.R - result.df * math.log(n) / 2, rel=1e-12)
    assert res.graph == result.dag
    assert json.loads(res.dumps())["extra"]["path"] == data["path"]


def test_n_statistics_counts_every_order_compatible_family():
    for n in range(1, 9):
        for m in range(4):
            families = sum(1 for i in range(n) for k in range(m + 1) for _ in combinations(range(i), k))
            assert n_statistics(n, m) == families


def test_class_networks_survive_json_and_bif():
    """The two class networks rebuilt from a saved result (app export / re-import) are
    the ones learned, and they write and read back as BIF."""
    rng = np.random.default_rng(12)
    result = bnkl(planted_frame(rng, 300, n_noise=2), "cls", select="aic")
    assert result.dag.n_edges > 0
    saved = Result.from_json(result.to_result().dumps())
    rebuilt = class_networks_from_json(saved.extra)
    for learned, again in zip(result.networks, rebuilt):
        back = read_bif(io.StringIO(write_bif(again)))  # interval states such as (-inf, -0.84] are kept
        assert back.name == learned.name and back.names == learned.names
        assert back.states == learned.states
        assert back.parents == learned.parents
        for a, b in zip(back.cpts, learned.cpts):
            assert a == pytest.approx(b, abs=1e-12)
    del saved.extra["states"]
    with pytest.raises(BIFError, match="no state labels"):
        class_networks_from_json(saved.extra)


def test_stop_and_progress():
    rng = np.random.default_rng(12)
    codes, labels = class_dependent_codes(rng, 200, [3] * 8)
    data = Dataset.from_codes(codes, [3] * 8)
    seen = []
    full = bnkl_search(data, labels, progress=seen.append)
    assert full.stats["stopped"] is None and seen
    assert full.stats["local_scores_computed"] >= 8 + sum(p + p * (p - 1) // 2 for p in range(8))
    stopped = bnkl_search(data, labels, stop=lambda: True)
    assert stopped.stats["stopped"] == "stopped"
    assert len(stopped.path) == 1 and stopped.dag.n_edges == 0
    assert stopped.R == pytest.approx(stopped.marginal_R.sum())


def test_xy_form_equals_frame_form():
    rng = np.random.default_rng(13)
    frame = planted_frame(rng, 200, n_noise=1)
    a = bnkl(frame, "cls")
    b = bnkl_xy(frame.drop(columns="cls"), frame["cls"].to_numpy())
    assert a.dag == b.dag and a.R == b.R and a.order == b.order
    assert b.class_column is None


# -- errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda f: bnkl(f, "klass"), DataError, "no class column 'klass'"),
    (lambda f: bnkl(f.assign(cls=["a", "b", "c"] * 4), "cls"), DataError, "exactly two labels, found 3: 'a', 'b', 'c'"),
    (lambda f: bnkl(f.assign(cls="a"), "cls"), DataError, "exactly two labels, found 1: 'a'"),
    (lambda f: bnkl(f, "cls", class0="z"), DataError, "class0='z' is not a label of class column 'cls'"),
    (lambda f: bnkl(f, "cls", max_parents=-1), SearchError, "max_parents must be a whole number >= 0"),
    (lambda f: bnkl(f, "cls", max_parents=1.5), SearchError, "max_parents must be a whole number >= 0"),
    (lambda f: bnkl(f, "cls", select="best"), SearchError, "select='best' is not a selection rule"),
    (lambda f: bnkl(f.assign(cls=[None] + ["a", "b"] * 5 + ["a"]), "cls"), DataError, "row 1 is missing"),
    (lambda f: bnkl(f[["cls"]], "cls"), DataError, "only the class column"),
    (lambda f: bnkl_xy(f[["A"]], f["cls"][:5]), DataError, "differ in length"),
])
def test_errors_name_the_problem(call, error, message):
    frame = pd.DataFrame({"A": ["x", "y", "y"] * 4, "cls": ["a", "b"] * 6})
    with pytest.raises(error, match=message.replace("(", r"\(")):
        call(frame)


def test_class_labels_by_text_and_sorted_default():
    codes, classes = encode_classes([2, 10, 2, 10])
    assert classes == [2, 10] and codes.tolist() == [0, 1, 0, 1]
    codes, classes = encode_classes([2, 10, 2], class0="10")
    assert classes == [10, 2] and codes.tolist() == [1, 0, 1]


def test_a_class_label_marked_as_no_value_is_a_missing_class():
    with pytest.raises(DataError, match="class column 'cls' row 2 is missing"):
        encode_classes(["a", " ? ", "b"], column="cls", missing_values=["?"])
    with pytest.raises(DataError, match="class column 'cls' row 3 is missing"):
        encode_classes([1, 0, -999], column="cls", missing_values="-999")
    with pytest.raises(DataError, match="exactly two labels, found 3: '\\?', 'a', 'b'"):  # not a mark: a label
        encode_classes(["a", "?", "b"], column="cls", missing_values="unknown")
    assert encode_classes(["a", "b", "a"], missing_values="?")[0].tolist() == [0, 1, 0]


def test_low_level_errors():
    data = Dataset.from_codes(np.array([[0, 1], [1, 0], [1, 1]]))
    with pytest.raises(SearchError, match="no row belongs to class 1"):
        bnkl_search(data, [0, 0, 0])
    with pytest.raises(ScoreError, match="must be 0"):
        bnkl_search(data, [0, 1, 2])
    with pytest.raises(SearchError, match="every variable once"):
        bnkl_search(data, [0, 1, 0], order=[0, 0])
    result = bnkl_search(data, [0, 1, 0], order=["X1", "X0"])
    assert result.order == [1, 0]
    with pytest.raises(SearchError, match="path index 7 is out of range"):
        result.at(7)
    with pytest.raises(DataError, match="learned from coded data"):
        result.log_likelihoods(pd.DataFrame({"X0": [0], "X1": [1]}))
    with pytest.raises(DataError, match="single state"):
        bnkl_search(Dataset.from_codes(np.zeros((4, 2), int)), [0, 1, 0, 1])


def test_too_many_parent_sets_is_refused():
    rng = np.random.default_rng(14)
    data = Dataset.from_codes(rng.integers(0, 2, (6, 2000)), np.full(2000, 2))
    with pytest.raises(ResourceError, match="max_parents=3 on 2000 variables"):
        bnkl_search(data, [0, 1] * 3, max_parents=3)


def test_marginal_divergence_by_hand_and_never_negative():
    """A state with no class-0 rows: the score's sdnet R_i skips it and goes negative; the divergence counts it."""
    # variable 0: states 0/1; class 0 rows are all state 0, class 1 rows are mostly state 1
    codes = np.array([[0]] * 6 + [[0]] * 1 + [[1]] * 3)
    labels = np.array([0] * 6 + [1] * 4, np.uint8)
    data = Dataset.from_codes(codes, arities=[2])
    n = 10
    p = np.array([7, 3]) / n
    p0 = np.array([1.0, 1 / (3 * n)])
    p0 /= p0.sum()
    expected = float(np.sum(p * np.log(p / p0)))
    got = marginal_divergence(data, labels)
    assert got[0] == pytest.approx(expected, rel=1e-12)
    sdnet = 0.7 * math.log(0.7 / 1.0)  # only the cell with class-0 rows: negative
    assert sdnet < 0 < got[0]
    rng = np.random.default_rng(3)
    for _ in range(20):
        codes, labels = class_dependent_codes(rng, 60, [2, 3, 4])
        assert (marginal_divergence(Dataset.from_codes(codes, arities=[2, 3, 4]), labels) >= 0).all()
    same = Dataset.from_codes(np.array([[0], [1], [0], [1]]), arities=[2])
    assert marginal_divergence(same, np.array([0, 0, 1, 1])) == pytest.approx([0.0], abs=1e-15)


@pytest.mark.parametrize("select", ["ratio", "bic", "aic"])
def test_result_score_is_the_value_the_rule_maximised(select):
    rng = np.random.default_rng(5)
    frame = planted_frame(rng, 400)
    result = bnkl(frame, "cls", select=select)
    res = result.to_result()
    n = result.params["n_rows"]
    values = {"ratio": result.R / result.df, "bic": n * result.R - result.df * math.log(n) / 2,
              "aic": n * result.R - result.df}
    assert res.score_name == f"kl-{select}" and res.score == pytest.approx(values[select], rel=1e-12)
    path_values = [rule_values([p["df"]], [p["R"]], n, select)[0] for p in result.path]
    assert res.score == pytest.approx(max(path_values), rel=1e-12)
    assert result.marginal_kl.shape == (len(result.names),) and (result.marginal_kl >= 0).all()
