"""BNKLClassifier (Balov 2013, Algorithm 1) and the stratified cross-validation."""

import math

import numpy as np
import pandas as pd
import pytest

from bnexplore.classifier import BNKLClassifier, cross_validate, stratified_folds
from bnexplore.data import discretize_values
from bnexplore.errors import DataError, SearchError
from test_bnkl import planted_frame


@pytest.fixture(scope="module")
def planted():
    frame = planted_frame(np.random.default_rng(21), 800)
    X, y = frame.drop(columns="cls"), frame["cls"].to_numpy()
    return X[:400], y[:400], X[400:], y[400:]


def test_planted_interaction_beats_chance_on_held_out_rows(planted):
    X, y, X_test, y_test = planted
    model = BNKLClassifier().fit(X, y)
    # the marginals carry no class difference; only the X-Y interaction does
    assert model.score(X_test, y_test) > 0.7
    assert list(model.classes_) == ["a", "b"]
    assert set(model.predict(X_test)) <= {"a", "b"}


def test_training_cut_points_are_applied_unchanged_to_test_rows(planted):
    X, y, X_test, _ = planted
    model = BNKLClassifier().fit(X, y)
    cuts = model.result_.cut_points
    for name in X.columns:
        q1, q2 = np.percentile(X[name], [2.5, 97.5])
        assert cuts[name] == pytest.approx([q1 + (q2 - q1) / 3, q1 + 2 * (q2 - q1) / 3])
    coded = model.result_.encoder.transform(X_test)
    for name in X.columns:
        assert np.array_equal(coded.codes[:, coded.index(name)], discretize_values(X_test[name], cuts[name]))
    # a row is classified the same alone or among others: test rows never move the cut points
    one_by_one = np.concatenate([model.predict(X_test.iloc[[i]]) for i in range(20)])
    assert np.array_equal(one_by_one, model.predict(X_test.iloc[:20]))
    # rows outside the training range fall into the end bins
    extreme = X_test.iloc[:2].copy()
    extreme.iloc[0], extreme.iloc[1] = 1e6, -1e6
    assert model.predict_proba(extreme).shape == (2, 2)


def test_probabilities_are_the_softmax_of_the_two_loglikelihoods():
    """One variable: l_c(x) = log P_c(x), so P(class 1 | x) = P1(x) / (P0(x) + P1(x))."""
    X = pd.DataFrame({"A": ["u", "u", "v", "u", "v", "v", "v", "v"]})
    y = [0, 0, 0, 0, 1, 1, 1, 1]
    model = BNKLClassifier().fit(X, y)
    p0 = {"u": 3 / 4, "v": 1 / 4}
    p1 = {"u": 1 / 24, "v": 1.0}  # zero reset to 1 / (3 * 8), then renormalised
    p1 = {k: v / (1 + 1 / 24) for k, v in p1.items()}
    proba = model.predict_proba(pd.DataFrame({"A": ["u", "v"]}))
    assert proba[:, 1] == pytest.approx([p1[s] / (p0[s] + p1[s]) for s in "uv"])
    assert proba.sum(axis=1) == pytest.approx([1, 1])
    assert model.log_likelihoods(pd.DataFrame({"A": ["v"]})) == pytest.approx(np.array([[math.log(p0["v"]),
                                                                                           math.log(p1["v"])]]))
    assert model.predict(pd.DataFrame({"A": ["u", "v"]})).tolist() == [0, 1]


def test_tie_goes_to_class_zero_and_class0_reorders_classes():
    X = pd.DataFrame({"A": ["u", "v", "u", "v"]})
    model = BNKLClassifier().fit(X, ["no", "no", "yes", "yes"])
    assert model.predict(X).tolist() == ["no"] * 4
    swapped = BNKLClassifier(class0="yes").fit(X, ["no", "no", "yes", "yes"])
    assert list(swapped.classes_) == ["yes", "no"]
    assert swapped.predict(X).tolist() == ["yes"] * 4


def test_arrays_are_accepted():
    rng = np.random.default_rng(22)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=120) > 0).astype(int)
    model = BNKLClassifier(max_parents=1).fit(X, y)
    assert model.result_.names == ["X0", "X1", "X2"]
    assert model.score(X, y) > 0.75


def test_stratified_folds_partition_the_rows():
    y = np.array(["a"] * 23 + ["b"] * 11)
    folds = stratified_folds(y, 5, seed=3)
    assert np.array_equal(np.sort(np.concatenate(folds)), np.arange(34))
    for label, total in (("a", 23), ("b", 11)):
        per_fold = [int(np.sum(y[f] == label)) for f in folds]
        assert max(per_fold) - min(per_fold) <= 1 and sum(per_fold) == total
    sizes = [len(f) for f in folds]
    assert max(sizes) - min(sizes) <= 1
    assert all(np.array_equal(a, b) for a, b in zip(folds, stratified_folds(y, 5, seed=3)))
    assert not all(np.array_equal(a, b) for a, b in zip(folds, stratified_folds(y, 5, seed=4)))


def test_cross_validate_refits_inside_each_fold(planted):
    X, y, _, _ = planted
    result = cross_validate(X, y, cv=4, seed=1, max_parents=1)
    expected = []
    for test in stratified_folds(y, 4, seed=1):
        train = np.setdiff1d(np.arange(len(y)), test)
        model = BNKLClassifier(max_parents=1).fit(X.iloc[train], y[train])
        expected.append(float(np.mean(model.predict(X.iloc[test]) == y[test])))
    assert result["accuracy"] == expected
    assert result["mean"] == pytest.approx(np.mean(expected)) and result["std"] == pytest.approx(np.std(expected))
    assert sum(result["n_test"]) == len(y) and result["cv"] == 4
    assert result["mean"] > 0.65


@pytest.mark.parametrize("call, error, message", [
    (lambda X, y: BNKLClassifier().predict(X), SearchError, "not fitted yet"),
    (lambda X, y: cross_validate(X, y, cv=1), SearchError, "cv must be a whole number of folds >= 2"),
    (lambda X, y: cross_validate(X, y, cv=9), SearchError, "class 'b' has 3"),
    (lambda X, y: cross_validate(X, y, depth=3), SearchError, "no parameter depth"),
    (lambda X, y: cross_validate(X, y[:4]), DataError, "differ in length"),
    (lambda X, y: BNKLClassifier(class0="c").fit(X, y), DataError, "class0='c' is not a label"),
    (lambda X, y: BNKLClassifier().fit(X, ["a"] * 9), DataError, "exactly two labels, found 1"),
    (lambda X, y: BNKLClassifier().fit(X, y).predict(X.assign(A="w")), DataError, "value 'w'"),
])
def test_classifier_errors(call, error, message):
    X = pd.DataFrame({"A": list("uvuvuvuvv")})
    y = np.array(list("aaaaaabbb"))
    with pytest.raises(error, match=message):
        call(X, y)


def test_params_round_trip():
    model = BNKLClassifier(max_parents=1, select="aic")
    assert model.get_params() == {"max_parents": 1, "discretize": "uniform3", "select": "aic", "class0": None,
                                  "missing_values": None}
    assert model.set_params(max_parents=0) is model and model.max_parents == 0
    assert repr(model).startswith("BNKLClassifier(max_parents=0")
