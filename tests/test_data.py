"""Tests of bnexplore.data: typing, discretization, coding, reading, bad input."""

import gzip
import io
import json
import math
import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from bnexplore.data import (
    MISSING_LABEL,
    Dataset,
    Encoder,
    code_dtype,
    discretize_values,
    interval_labels,
    learn_cut_points,
    kept_columns,
    read_csv,
    read_frame,
    read_table,
)
from bnexplore.data import csvparse, parallel
from bnexplore.data.dataset import MAX_STATES
from bnexplore.data.sources import Source
from bnexplore.errors import DataError

SHARED = "/work/shared/data/ebnsl"


def quiet(function, *args, **kwargs):
    """Call ``function`` with warnings silenced (for tests that check other things)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ----------------------------------------------------------------------------
# Slow, obviously-correct references
# ----------------------------------------------------------------------------


def percentile_by_hand(values, p):
    """Linear-interpolation percentile (numpy's default), from the sorted values."""
    x = sorted(values)
    h = (len(x) - 1) * p / 100
    low = math.floor(h)
    high = min(low + 1, len(x) - 1)
    return x[low] + (h - low) * (x[high] - x[low])


def code_by_hand(value, cuts):
    """Right-closed bins: the number of cut points strictly below the value."""
    return sum(1 for c in cuts if c < value)


# ----------------------------------------------------------------------------
# Discretization
# ----------------------------------------------------------------------------


def test_uniform3_hand_computed_on_0_to_100():
    # q1 = 2.5, q2 = 97.5, cuts 2.5 + 95/3 and 2.5 + 190/3
    cuts = learn_cut_points("uniform3", np.arange(101.0))
    assert cuts == pytest.approx([34.1666667, 65.8333333])


def test_uniform3_hand_computed_on_five_values():
    # 2.5 percentile of 0..4 sits at index 0.1 -> 0.1; 97.5 at index 3.9 -> 3.9
    # cuts 0.1 + 3.8/3 = 1.36667 and 0.1 + 7.6/3 = 2.63333
    ds = Dataset.from_frame(pd.DataFrame({"y": [0.0, 1, 2, 3, 4]}), discretize={"y": "uniform3"})
    assert ds.encoder.cut_points()["y"] == pytest.approx([1.3666667, 2.6333333])
    assert ds.codes[:, 0].tolist() == [0, 0, 1, 2, 2]


def test_quantile_and_width_hand_computed():
    # quantiles of 1..8 at 1/4, 2/4, 3/4: indices 1.75, 3.5, 5.25 -> 2.75, 4.5, 6.25
    assert learn_cut_points("quantile:4", np.arange(1.0, 9)) == pytest.approx([2.75, 4.5, 6.25])
    assert learn_cut_points("width:4", [0.0, 10, 2, 7]) == pytest.approx([2.5, 5.0, 7.5])
    assert learn_cut_points("manual:1, 2.5", [100.0]).tolist() == [1.0, 2.5]
    assert learn_cut_points([3, 4], [0.0]).tolist() == [3.0, 4.0]


def test_bins_are_right_closed():
    cuts = [1.25, 3.5]
    values = [-10, 1.25, 1.26, 3.5, 3.51, 99]
    assert discretize_values(values, cuts).tolist() == [0, 0, 1, 1, 2, 2]
    assert interval_labels(cuts) == ["(-inf, 1.25]", "(1.25, 3.5]", "(3.5, inf)"]
    assert interval_labels([]) == ["(-inf, inf)"]


def test_interval_labels_round_but_stay_distinct():
    assert interval_labels([34.16666666, 65.8333333]) == ["(-inf, 34.17]", "(34.17, 65.83]", "(65.83, inf)"]
    assert interval_labels([1.000001, 1.000002])[1] == "(1.000001, 1.000002]"
    assert interval_labels([123456.7]) == ["(-inf, 123457]", "(123457, inf)"]


@pytest.mark.parametrize("seed", range(5))
def test_uniform3_and_codes_match_hand_reference_on_random_data(seed):
    rng = np.random.default_rng(seed)
    train = rng.normal(size=int(rng.integers(5, 60))).round(int(rng.integers(0, 3)))
    test = rng.normal(scale=3, size=40)
    q1, q2 = percentile_by_hand(train, 2.5), percentile_by_hand(train, 97.5)
    expected = sorted({c for c in (q1 + (q2 - q1) / 3, q1 + 2 * (q2 - q1) / 3) if c < max(train)})
    encoder = quiet(Encoder(discretize={"g": "uniform3"}).fit, pd.DataFrame({"g": train}))
    assert encoder.cut_points()["g"] == pytest.approx(expected)
    coded = quiet(encoder.transform, pd.DataFrame({"g": test}))
    cuts = encoder.cut_points()["g"]
    assert coded.codes[:, 0].tolist() == [code_by_hand(v, cuts) for v in test]


@pytest.mark.parametrize("seed", range(5))
def test_quantile_and_width_codes_match_hand_reference(seed):
    rng = np.random.default_rng(100 + seed)
    x = rng.exponential(size=50)
    quantile_cuts = learn_cut_points("quantile:5", x)
    assert quantile_cuts == pytest.approx([percentile_by_hand(x, 20 * k) for k in range(1, 5)])
    width_cuts = learn_cut_points("width:3", x)
    assert width_cuts == pytest.approx([x.min() + k * (x.max() - x.min()) / 3 for k in (1, 2)])
    for cuts in (quantile_cuts, width_cuts):
        assert discretize_values(x, cuts).tolist() == [code_by_hand(v, cuts) for v in x]


def test_cut_points_learned_on_training_rows_are_applied_unchanged_to_test_rows():
    train = pd.DataFrame({"g": np.arange(101.0), "c": ["a", "b"] * 50 + ["a"]})
    test = pd.DataFrame({"c": ["b", "a", "a", "b"], "g": [-1000.0, 34.1, 34.2, 1000.0], "extra": 1})
    encoder = Encoder(discretize="uniform3").fit(train)
    before = encoder.cut_points()
    coded = encoder.transform(test)
    assert encoder.cut_points() == before
    assert coded.names == ["g", "c"]
    assert coded.codes[:, 0].tolist() == [0, 0, 1, 2]  # outside the training range: end bins
    assert coded.codes[:, 1].tolist() == [1, 0, 0, 1]
    assert coded.states[0] == ["(-inf, 34.17]", "(34.17, 65.83]", "(65.83, inf)"]


def test_quantile_with_ties_warns_naming_the_column():
    df = pd.DataFrame({"tied": [1.5] * 8 + [2.5, 3.5]})
    with pytest.warns(UserWarning, match="'tied'.*quantile:4 gave 2 bins"):
        ds = Dataset.from_frame(df, discretize="quantile:4")
    assert ds.encoder.cut_points()["tied"] == [1.5]
    assert ds.codes[:, 0].tolist() == [0] * 8 + [1, 1]
    assert any("tied" in w for w in ds.warnings)


def test_discretize_dict_makes_a_column_numeric_and_leaves_others():
    df = pd.DataFrame({"k": [1, 2, 3, 4, 1, 2], "j": [1, 2, 3, 4, 1, 2]})
    ds = Dataset.from_frame(df, discretize={"k": "manual:2"})
    assert ds.encoder.columns["k"].kind == "numeric"
    assert ds.encoder.columns["j"].kind == "categorical"
    assert ds.codes[:, 0].tolist() == [0, 0, 1, 1, 0, 0]
    assert ds.states[1] == ["1", "2", "3", "4"]


# ----------------------------------------------------------------------------
# Typing and states
# ----------------------------------------------------------------------------


def test_column_typing_rules():
    df = pd.DataFrame(
        {
            "text": ["a", "b", "c", "a"],
            "flag": [True, False, True, True],
            "few_ints": [1, 5, 5, 2],
            "ints_with_nan": [1.0, np.nan, 3.0, 3.0],
            "floats": [0.5, 1.5, 2.5, 3.5],
            "cat": pd.Categorical(["lo", "hi", "lo", "hi"], categories=["lo", "hi"]),
        }
    )
    profile = Encoder(max_int_levels=2).profile(df)
    kinds = dict(zip(profile["column"], profile["type"]))
    assert kinds == {"text": "categorical", "flag": "categorical", "few_ints": "numeric",
                     "ints_with_nan": "categorical", "floats": "numeric", "cat": "categorical"}
    kinds_default = dict(zip(Encoder().profile(df)["column"], Encoder().profile(df)["type"]))
    assert kinds_default["few_ints"] == "categorical"
    row = profile.set_index("column").loc["ints_with_nan"]
    assert (row["distinct"], row["missing"], row["min"], row["max"]) == (2, 1, 1.0, 3.0)


def test_many_integer_levels_make_a_column_numeric():
    df = pd.DataFrame({"n": np.arange(11)})
    with pytest.raises(DataError, match="'n'.*discretize='uniform3'"):
        Dataset.from_frame(df)
    assert Dataset.from_frame(df, max_int_levels=11).arities.tolist() == [11]


def test_states_sort_numbers_numerically_and_arity_counts_distinct_values():
    ds = read_csv(io.BytesIO(b"10,a\n2,b\n0,10\n2,2\n"), header=False, types="categorical")
    assert ds.names == ["X0", "X1"]
    assert ds.states == [["0", "2", "10"], ["2", "10", "a", "b"]]
    assert ds.arities.tolist() == [3, 4]  # distinct count, not max + 1
    assert ds.warnings == []  # declared categorical: mixing numbers and text is expected
    assert ds.codes.tolist() == [[2, 2], [1, 3], [0, 1], [1, 0]]


def test_types_overrides_inference():
    df = pd.DataFrame({"g": [0.5, 1.5, 0.5], "n": [1, 2, 3]})
    ds = Dataset.from_frame(df, types={"g": "categorical", "n": "numeric"}, discretize="manual:1.5")
    assert ds.states == [["0.5", "1.5"], ["(-inf, 1.5]", "(1.5, inf)"]]
    assert ds.codes.tolist() == [[0, 0], [1, 1], [0, 1]]


def test_pandas_categorical_keeps_category_order():
    df = pd.DataFrame({"size": pd.Categorical(["high", "low", "mid"], categories=["low", "mid", "high", "none"])})
    ds = Dataset.from_frame(df)
    assert ds.states == [["low", "mid", "high"]]
    assert ds.codes[:, 0].tolist() == [2, 0, 1]


def test_round_trip_to_frame_gives_back_labels():
    rng = np.random.default_rng(7)
    df = pd.DataFrame({
        "colour": rng.choice(["red", "green", "blue"], 200),
        "count": rng.integers(0, 5, 200),
        "flag": rng.choice([True, False], 200),
    })
    ds = Dataset.from_frame(df)
    back = ds.to_frame()
    assert list(back.columns) == ["colour", "count", "flag"]
    for name in df.columns:
        assert back[name].astype(str).tolist() == df[name].astype(str).tolist()
    again = Dataset.from_frame(back)
    assert np.array_equal(again.codes, ds.codes) and again.states == ds.states


def test_from_frame_equals_encoder_fit_transform():
    df = pd.DataFrame({"a": ["x", "y", None], "b": [0.1, 5.0, 2.0]})
    one = Dataset.from_frame(df, discretize="width:2")
    two = Encoder(discretize="width:2").fit_transform(df)
    assert np.array_equal(one.codes, two.codes)
    assert (one.states, one.names, one.arities.tolist()) == (two.states, two.names, two.arities.tolist())
    assert isinstance(one.encoder, Encoder) and one.encoder.cut_points() == two.encoder.cut_points()


# ----------------------------------------------------------------------------
# Codes array
# ----------------------------------------------------------------------------


def test_code_dtype_is_the_smallest_that_fits():
    assert code_dtype(2) == np.uint8 and code_dtype(256) == np.uint8
    assert code_dtype(257) == np.uint16 and code_dtype(65536) == np.uint16
    assert code_dtype(65537) == np.int32


def test_codes_are_fortran_ordered_with_the_smallest_dtype():
    small = Dataset.from_frame(pd.DataFrame({"a": np.arange(255) % 3, "b": np.arange(255)}), types="categorical")
    assert small.codes.dtype == np.uint8 and small.codes.flags.f_contiguous
    wide = Dataset.from_frame(pd.DataFrame({"a": np.arange(300) % 3, "b": np.arange(300)}), types="categorical")
    assert wide.codes.dtype == np.uint16 and wide.codes.flags.f_contiguous
    assert wide.arities.dtype == np.int32 and wide.arities.tolist() == [3, 300]
    huge = Dataset.from_codes(np.array([[0], [70000]]))
    assert huge.codes.dtype == np.int32 and huge.arities.tolist() == [70001]


def test_from_codes_defaults_and_checks():
    ds = Dataset.from_codes([[0, 1], [2, 0], [0, 0]])
    assert ds.names == ["X0", "X1"] and ds.arities.tolist() == [3, 2]
    assert ds.states == [["0", "1", "2"], ["0", "1"]]
    named = Dataset.from_codes(np.array([[0.0, 1.0]]), arities=[2, 3], names=["a", "b"],
                               states=[["n", "y"], ["l", "m", "h"]])
    assert named.to_frame().iloc[0].tolist() == ["n", "m"]
    with pytest.raises(DataError, match="column 'X1' row 2 has code -1"):
        Dataset.from_codes([[0, 0], [1, -1]])
    with pytest.raises(DataError, match="column 'b' row 1 has code 3, outside 0..2"):
        Dataset.from_codes([[0, 3]], arities=[2, 3], names=["a", "b"])
    with pytest.raises(DataError, match="column 'X0' row 1 has 0.5"):
        Dataset.from_codes([[0.5]])
    with pytest.raises(DataError, match="'a' has arity 2 but 3 state labels"):
        Dataset.from_codes([[0]], arities=[2], names=["a"], states=[["x", "y", "z"]])
    with pytest.raises(DataError, match="duplicated variable names: 'a'"):
        Dataset.from_codes([[0, 0]], names=["a", "a"])
    # an arity is bounded before a label is made for each state (before: a trillion labels, the process killed)
    with pytest.raises(DataError, match=r"^variable 'b' has arity 1,000,000,000,000; a variable has 1 to 1,048,576 "
                                        r"states$"):
        Dataset.from_codes([[0, 0]], arities=[2, 10**12], names=["a", "b"])
    with pytest.raises(DataError, match=r"^variable 'X0' has arity 1,000,000,000,001;"):
        Dataset.from_codes([[10**12]])
    with pytest.raises(DataError, match=r"^variable 'a' has arity 0; a variable has 1 to"):
        Dataset([[0]], [0], ["a"], [[]])
    assert Dataset.from_codes([[0, 1]], arities=[MAX_STATES, 2]).arities.tolist() == [MAX_STATES, 2]


# ----------------------------------------------------------------------------
# Dataset methods
# ----------------------------------------------------------------------------


@pytest.fixture
def small():
    df = pd.DataFrame({"a": ["x", "y", "x", None], "b": [1, 2, 1, 2], "g": [0.1, 0.2, 0.3, 9.0]})
    return Dataset.from_frame(df, discretize="manual:0.25")


def test_index_and_indices(small):
    assert small.n_rows == 4 and small.n_vars == 3
    assert small.index("g") == 2 and small.index(1) == 1 and small.index(np.int64(0)) == 0
    assert small.indices(["g", 0]) == [2, 0] and small.indices("b") == [1]
    with pytest.raises(DataError, match="no variable named 'zz'.*'a', 'b', 'g'"):
        small.index("zz")
    with pytest.raises(DataError, match="variable number 3 is out of range"):
        small.index(3)


def test_subset_and_select_keep_states_and_arities(small):
    rows = small.subset([3, 0])
    assert rows.codes.tolist() == [[2, 1, 1], [0, 0, 0]] and rows.codes.flags.f_contiguous
    assert rows.arities.tolist() == small.arities.tolist() and rows.states == small.states
    assert small.subset(np.array([True, False, False, True])).n_rows == 2
    cols = small.select(["g", "a"])
    assert cols.names == ["g", "a"] and cols.codes.tolist() == [[0, 0], [0, 1], [1, 0], [1, 2]]
    assert cols.states == [small.states[2], small.states[0]] and cols.codes.flags.f_contiguous
    with pytest.raises(DataError, match="more than once: 'a'"):
        small.select(["a", 0])
    with pytest.raises(DataError, match="cannot take rows"):
        small.subset([10])


def test_summary_describes_every_variable(small):
    summary = small.summary().set_index("name")
    assert summary.loc["a", "kind"] == "categorical" and summary.loc["a", "levels"] == 3
    assert summary.loc["a", "missing"] == 1 and summary.loc["a", "states"] == "x, y, <missing>"
    assert summary.loc["g", "kind"] == "numeric-discretized" and summary.loc["g", "cuts"] == [0.25]
    assert summary.loc["b", "cuts"] is None and summary.loc["b", "missing"] == 0


def test_encoder_column_specs(small):
    spec = small.encoder.columns["a"]
    assert (spec.kind, spec.missing, spec.missing_state) == ("categorical", 1, True)
    assert (spec.constant, spec.arity, spec.declared) == (False, 3, False)
    numeric = small.encoder.columns["g"]
    assert (numeric.kind, numeric.method, numeric.cuts.tolist()) == ("numeric", "manual:0.25", [0.25])


# ----------------------------------------------------------------------------
# Missing values
# ----------------------------------------------------------------------------


def missing_table():
    return pd.DataFrame({"a": ["x", "", "y", "x", "y"], "b": [1.0, 2.0, None, 1.0, 2.0]})


def test_missing_state_is_the_last_code_only_where_missing_occurs():
    ds = Dataset.from_frame(missing_table())
    assert ds.states == [["x", "y", MISSING_LABEL], ["1", "2", MISSING_LABEL]]
    assert ds.codes.tolist() == [[0, 0], [2, 1], [1, 2], [0, 0], [1, 1]]
    complete = Dataset.from_frame(pd.DataFrame({"a": ["x", "y"], "b": ["u", None]}))
    assert complete.states[0] == ["x", "y"]
    with pytest.raises(DataError, match="column 'a' row 2 is missing, but 'a' had no missing values"):
        complete.encoder.transform(pd.DataFrame({"a": ["x", None], "b": ["u", "u"]}))


def test_missing_state_of_a_discretized_column_follows_its_bins():
    ds = Dataset.from_frame(pd.DataFrame({"g": [0.5, None, 2.5, 1.0]}), discretize="manual:1")
    assert ds.states == [["(-inf, 1]", "(1, inf)", MISSING_LABEL]]
    assert ds.codes[:, 0].tolist() == [0, 2, 1, 0]
    assert ds.encoder.transform(pd.DataFrame({"g": [None, 7.0]})).codes[:, 0].tolist() == [2, 1]


def test_cells_holding_python_numbers_and_numeric_text_get_one_label():
    df = pd.DataFrame({"v": [1, "1", 2.0, "x", None]})
    ds = quiet(Dataset.from_frame, df)
    assert ds.states == [["1", "2", "x", MISSING_LABEL]]
    assert ds.codes[:, 0].tolist() == [0, 0, 1, 2, 3]


def test_warnings_point_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Dataset.from_frame(pd.DataFrame({"same": ["k", "k"], "v": ["a", "b"]}))
    assert [os.path.basename(w.filename) for w in caught] == ["test_data.py"]


def test_missing_drop_drops_rows_and_says_how_many():
    with pytest.warns(UserWarning, match="dropped 2 of 5 rows"):
        ds = Dataset.from_frame(missing_table(), missing="drop")
    assert ds.codes.tolist() == [[0, 0], [0, 0], [1, 1]]
    assert ds.states == [["x", "y"], ["1", "2"]]
    assert any("dropped 2 of 5 rows" in w and "row 2" in w for w in ds.warnings)
    with pytest.raises(DataError, match="all 2 rows have a missing value"):
        Dataset.from_frame(pd.DataFrame({"a": [None, "x"], "b": ["y", None]}), missing="drop")


def test_missing_drop_at_transform_keeps_original_row_numbers_in_messages():
    encoder = quiet(Encoder(missing="drop").fit, missing_table())
    test = pd.DataFrame({"a": [None, "x", "z"], "b": [1.0, 1.0, 2.0]})
    with pytest.raises(DataError, match="column 'a' row 3 has value 'z'"):
        quiet(encoder.transform, test)


def test_missing_error_names_first_column_and_row():
    with pytest.raises(DataError, match="column 'a' row 2 is missing"):
        Dataset.from_frame(missing_table(), missing="error")
    with pytest.raises(DataError, match="column 'b' row 1 is missing"):
        Dataset.from_frame(pd.DataFrame({"a": ["x", None], "b": [None, "u"]}), missing="error")


# ----------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, message",
    [
        ({"discretize": "quantile:1"}, "discretize='quantile:1'.*K >= 2"),
        ({"discretize": "width:0"}, "discretize='width:0'"),
        ({"discretize": "magic"}, "discretize='magic' is not a discretization method"),
        ({"discretize": {"age": "manual:3,1"}}, r"discretize\['age'\]='manual:3,1'.*strictly increasing"),
        ({"discretize": {"age": [3, 1]}}, r"discretize\['age'\].*strictly increasing"),
        ({"discretize": "manual:1,x"}, "must be numbers"),
        # bounded before the cut points are allocated (before: numpy's MemoryError for 75 GiB, or int()'s
        # digit limit), and a long value is shown cut
        ({"discretize": "width:10000000000"}, r"^discretize='width:10000000000' is not valid: width takes at most "
                                              r"1,000 bins, e.g. 'width:5'$"),
        ({"discretize": "quantile:" + "9" * 5000}, r"^discretize='quantile:9{51}\.\.\.' is not valid: quantile takes "
                                                   r"at most 1,000 bins"),
        ({"discretize": "quantile:²"}, "K >= 2"),
        ({"discretize": list(range(1000))}, r"^discretize='\[0, 1, 2, .{40,60}\.\.\.' is not valid: 1,000 cut points "
                                            r"make more than 1,000 bins$"),
        ({"max_levels": 1}, "max_levels=1"),
        ({"max_int_levels": -1}, "max_int_levels=-1"),
        ({"missing": "ignore"}, "missing='ignore'"),
        ({"types": "text"}, "types='text'"),
        ({"types": {"a": "ordinal"}}, r"types\['a'\]='ordinal'"),
    ],
)
def test_impossible_options_name_option_and_value(options, message):
    with pytest.raises(DataError, match=message):
        Encoder(**options)


def test_every_undiscretized_numeric_column_is_named():
    df = pd.DataFrame({"x": [0.1, 0.2], "c": ["a", "b"], "y": [1.5, 2.5]})
    with pytest.raises(DataError, match=r"'x', 'y' need a discretization.*uniform3.*types=\{'x': 'categorical'\}"):
        Dataset.from_frame(df)


def test_options_naming_unknown_columns_are_rejected():
    with pytest.raises(DataError, match="discretize names column.*'agee'"):
        Dataset.from_frame(pd.DataFrame({"age": [1.5, 2.5]}), discretize={"agee": "uniform3"})
    with pytest.raises(DataError, match="'age' is given a discretization but declared categorical"):
        Dataset.from_frame(pd.DataFrame({"age": [1.5]}), discretize={"age": "uniform3"}, types={"age": "categorical"})


def test_too_many_levels_names_column_and_count():
    df = pd.DataFrame({"id": [f"p{i}" for i in range(60)]})
    with pytest.raises(DataError, match="column 'id' has 60 distinct values, more than max_levels=50.*max_levels"):
        Dataset.from_frame(df)
    assert Dataset.from_frame(df, max_levels=None).arities.tolist() == [60]
    assert Dataset.from_frame(df, types="categorical").arities.tolist() == [60]  # declared: exempt


def test_constant_columns_warn_or_are_dropped():
    df = pd.DataFrame({"same": ["k"] * 4, "flat": [2.5] * 4, "v": ["a", "b", "a", "b"]})
    with pytest.warns(UserWarning, match="constant column.*'same', 'flat'"):
        kept = Dataset.from_frame(df, discretize="uniform3")
    assert kept.arities.tolist() == [1, 1, 2] and kept.encoder.columns["flat"].constant
    with pytest.warns(UserWarning, match="dropped constant column.*'same', 'flat'"):
        dropped = Dataset.from_frame(df, discretize="uniform3", drop_constant=True)
    assert dropped.names == ["v"] and any("dropped constant" in w for w in dropped.warnings)
    assert dropped.encoder.transform(df).names == ["v"]
    with pytest.raises(DataError, match="every column is constant"):
        quiet(Dataset.from_frame, df[["same"]], drop_constant=True)


def test_mixed_column_warns_with_row_and_value_then_is_text():
    df = pd.DataFrame({"m": ["1", "2", "oops", "3", "2"]})
    with pytest.warns(UserWarning, match="column 'm' mixes numbers and text \\(row 3: 'oops'\\)"):
        ds = Dataset.from_frame(df)
    assert ds.states == [["1", "2", "3", "oops"]]


def test_leave_out_sets_columns_aside_before_typing_them():
    """An identifier and a free-text column left out: the Dataset is the table without them, their levels never
    checked against max_levels; transform ignores them; a wrong name or type is refused naming it."""
    df = pd.DataFrame({"id": [f"r{i}" for i in range(80)], "smoker": ["yes", "no"] * 40,
                       "note": [f"text {i}" for i in range(80)], "age": np.arange(80.5, 160.5)})
    ds = quiet(Encoder(discretize="quantile:2", leave_out=["id", "note"]).fit_transform, df)
    want = quiet(Encoder(discretize="quantile:2").fit_transform, df[["smoker", "age"]])
    assert ds.names == ["smoker", "age"] and (ds.codes == want.codes).all() and ds.states == want.states
    assert ds.encoder.transform(df).names == ["smoker", "age"]
    assert quiet(read_table, io.BytesIO(df.to_csv(index=False).encode()), discretize="quantile:2",
                 leave_out="note", max_levels=100).names == ["id", "smoker", "age"]
    assert kept_columns(list(df.columns), ("note", "note")) == ["id", "smoker", "age"]
    assert repr(Encoder(leave_out="id")) == "Encoder(leave_out='id')"
    with pytest.raises(DataError, match="'id' has 80 distinct values, more than max_levels=50; leave it out "
                                        "\\(leave_out='id'\\) or raise max_levels"):
        quiet(Encoder(discretize="quantile:2", leave_out="note").fit_transform, df)
    with pytest.raises(DataError, match="leave_out names column\\(s\\) 'ID' that the table does not have; the "
                                        "columns are 'id', 'smoker', 'note', 'age'"):
        Encoder(leave_out=["ID"]).fit(df)
    with pytest.raises(DataError, match="leave_out leaves out every column"):
        Encoder(leave_out=list(df.columns)).fit(df)
    numbered = pd.DataFrame({"n": range(30), "code": range(100, 160, 2), "x": np.arange(30) * 0.5 + 0.25})
    with pytest.raises(DataError, match="categories; 'n', 'code' look like row identifiers: leave them out "
                                        "\\(leave_out=\\['n', 'code'\\]\\)$"):
        Encoder().fit(numbered)
    with pytest.raises(DataError, match="categories; 'n' looks like a row identifier: leave it out "
                                        "\\(leave_out='n'\\)$"):
        Encoder(leave_out="code").fit(numbered)
    for bad in (3, ["id", 3], {"id": True}):
        with pytest.raises(DataError, match="leave_out=.* is not valid; give a column name or a list"):
            Encoder(leave_out=bad)


def test_missing_values_marks_are_missing_in_every_column_and_every_step():
    """'?' and '-999' marks: a text column of numbers with '?' becomes numeric (cut points as without the marks),
    a number column loses -999 (compared as a number), a categorical loses its '?' category; the marks count
    as missing for every policy, in fit, transform and profile alike; bad values are refused naming them."""
    df = pd.DataFrame({"age": ["34.5", "?", "51.2", "28.1", " ? ", "60.3"], "n": [1.0, -999, 3, 4, 3, 1],
                       "c": pd.Categorical(["u", "v", "?", "u", "v", "u"], categories=["v", "?", "u"])})
    unmarked = Encoder(types={"n": "categorical"}).profile(df).set_index("column").loc["age"]
    assert unmarked["type"] == "categorical" and re.search(
        "column 'age' mixes numbers and text \\(row 2: '\\?'\\).*mark it missing \\(missing_values='\\?'\\)",
        unmarked["note"])
    encoder = Encoder(missing_values=["?", "-999"], discretize="quantile:2", types={"n": "categorical"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no mixed-column warning once the marks are missing
        ds = encoder.fit_transform(df)
    plain = quiet(Encoder(discretize="quantile:2").fit_transform,
                  pd.DataFrame({"age": [34.5, None, 51.2, 28.1, None, 60.3]}))
    assert encoder.columns["age"].kind == "numeric" and encoder.cut_points()["age"] == plain.encoder.cut_points()["age"]
    assert ds.states == [plain.states[0], ["1", "3", "4", "<missing>"], ["v", "u", "<missing>"]]
    assert (ds.codes == np.array([[0, 0, 1], [2, 3, 0], [1, 1, 2], [0, 2, 1], [2, 1, 0], [1, 0, 1]])).all()
    assert (encoder.transform(df).codes == ds.codes).all()
    profile = encoder.profile(df).set_index("column")
    assert profile["missing"].tolist() == [2, 1, 1] and profile.loc["age", "type"] == "numeric"
    em = Encoder(missing_values="?", missing="em", discretize="quantile:2", types={"n": "categorical"})
    assert quiet(em.fit_transform, df).n_blank == 3
    assert quiet(Encoder(missing_values=["?", "-999"], missing="drop", discretize="quantile:2").fit_transform,
                 df).n_rows == 3
    assert repr(Encoder(missing_values="?")) == "Encoder(missing_values='?')"
    for bad in (0, ["?", None]):
        with pytest.raises(DataError, match="missing_values=.* is not valid; give a value or a list of at most 100"):
            Encoder(missing_values=bad)
    with pytest.raises(DataError, match="^missing_values takes at most 100 marks for 'no value'; it has 101$"):
        Encoder(missing_values=[str(i) for i in range(101)])


def test_too_many_levels_of_numbers_stored_as_categories_suggests_discretizing_them():
    df = pd.DataFrame({"n": pd.Categorical([i * 0.5 for i in range(60)])})
    with pytest.raises(DataError, match="'n' has 60 distinct values, more than max_levels=50; leave it out "
                                        "\\(leave_out='n'\\), declare it numeric and discretize it "
                                        "\\(types=\\{'n': 'numeric'\\}, discretize='uniform3'\\), or raise "
                                        "max_levels$"):
        Encoder().fit(df)


def test_a_likely_mark_for_no_value_is_pointed_out_until_it_is_marked():
    """UCI's '?' (and 'unknown', 'missing', any case) in text columns: fitting warns naming the columns, the rows
    and the option, once for all columns; marked, they are missing and nothing is said; numbers are not looked at."""
    df = pd.DataFrame({"work": ["paid", "?", "self", "?", "Unknown"], "sex": ["f", "m", "?", "f", "m"],
                       "n": [1, 2, 3, 4, 5]})
    with pytest.warns(UserWarning) as caught:
        Encoder().fit(df)
    notes = [str(w.message) for w in caught if "no value" in str(w.message)]
    assert notes == ["column(s) 'work', 'sex' hold '?' (3 rows); column(s) 'work' hold 'Unknown' (1 row): if they "
                     "mean 'no value', mark them missing (missing_values=['?', 'Unknown'])"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = Encoder(missing_values=["?", "Unknown"]).fit_transform(df)
    assert data.states[:2] == [["paid", "self", "<missing>"], ["f", "m", "<missing>"]]


def test_too_many_levels_in_a_mixed_column_says_which_value_made_it_text():
    df = pd.DataFrame({"age": [str(20 + i * 0.5) for i in range(59)] + ["unknown"]})
    with pytest.raises(DataError, match="'age' has 60 distinct values, more than max_levels=50: column 'age' mixes "
                                        "numbers and text \\(row 60: 'unknown'\\).*mark it missing "
                                        "\\(missing_values='unknown'\\), if the column should be numeric; otherwise "
                                        "leave it out \\(leave_out='age'\\) or raise max_levels$"):
        quiet(Encoder().fit, df)


def test_unknown_category_at_transform_names_column_row_value():
    encoder = Encoder().fit(pd.DataFrame({"c": ["red", "blue"]}))
    with pytest.raises(DataError, match="column 'c' row 3 has value 'green', which was not seen"):
        encoder.transform(pd.DataFrame({"c": ["red", "blue", "green"]}))
    with pytest.raises(DataError, match="no column 'c'"):
        encoder.transform(pd.DataFrame({"d": ["red"]}))
    with pytest.raises(DataError, match="has not been fitted"):
        Encoder().transform(pd.DataFrame({"c": ["red"]}))


def test_text_in_numeric_column_names_row_and_value():
    encoder = Encoder(discretize="width:2").fit(pd.DataFrame({"g": [0.5, 1.5, 2.5]}))
    with pytest.raises(DataError, match="column 'g' row 2 has 'n/k', which is not a number"):
        encoder.transform(pd.DataFrame({"g": ["1.0", "n/k"]}))
    with pytest.raises(DataError, match="column 'g' row 2 has 'inf', which is infinite"):
        Dataset.from_frame(pd.DataFrame({"g": [0.5, np.inf]}), discretize="width:2")


def test_frame_level_problems():
    with pytest.raises(DataError, match="duplicated column names: 'a'"):
        Dataset.from_frame(pd.DataFrame([[1, 2]], columns=["a", "a"]))
    with pytest.raises(DataError, match="no data rows"):
        Dataset.from_frame(pd.DataFrame({"a": []}))
    with pytest.raises(DataError, match="expected a pandas DataFrame"):
        Dataset.from_frame([[1, 2]])


# ----------------------------------------------------------------------------
# Reading files and buffers
# ----------------------------------------------------------------------------


def test_read_csv_from_path_gzip_and_buffers(tmp_path):
    text = "colour,size,weight\nred,1,0.5\nblue,2,1.5\nred,2,2.5\n"
    plain = tmp_path / "t.csv"
    plain.write_text(text)
    packed = tmp_path / "t.csv.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    for source in (plain, str(packed), io.BytesIO(text.encode()), io.StringIO(text)):
        ds = read_csv(source, discretize={"weight": "manual:1"})
        assert ds.names == ["colour", "size", "weight"]
        assert ds.codes.tolist() == [[1, 0, 0], [0, 1, 1], [1, 1, 1]]


def test_read_csv_crlf_lines_are_clean():
    ds = read_csv(io.BytesIO(b"a,b\r\nx,y\r\nz,y\r\nx,w"))
    assert ds.states == [["x", "z"], ["w", "y"]]
    assert ds.codes.tolist() == [[0, 1], [1, 1], [0, 0]]


@pytest.mark.parametrize("data, message", [(b"", "empty \\(0 bytes\\)"), (b" \n\r\n\t\n", "only whitespace")])
def test_read_csv_empty_file(data, message):
    with pytest.raises(DataError, match=message):
        read_csv(io.BytesIO(data))


def test_read_csv_header_only(tmp_path):
    path = tmp_path / "head.csv"
    path.write_text("a,b,c\n")
    with pytest.raises(DataError, match="'head.csv' has a header line but no data rows"):
        read_csv(path)


def test_read_csv_duplicated_header_names_before_pandas_renames_them():
    with pytest.raises(DataError, match=r"duplicated column names: 'A' \(columns 1, 3\)"):
        read_csv(io.BytesIO(b"A,B,A\n1,2,3\n"))


def test_a_first_line_of_numbers_is_said_to_be_perhaps_a_data_row():
    # UCI files often have no header line: with repeated numbers it cannot be names; with distinct ones it reads
    repeated = b"0,0,no\n1,0,yes\n0,1,yes\n"
    with pytest.raises(DataError, match=r"duplicated column names: '0' \(columns 1, 2\); rename them so every "
                                        r"column has its own name, or, if the first line is a data row, read "
                                        r"the file with header=False$"):
        read_csv(io.BytesIO(repeated))
    assert read_csv(io.BytesIO(repeated), header=False).names == ["X0", "X1", "X2"]
    adult = b"39,State-gov,77516\n50,Self-emp,83311\n38,Private,215646\n"  # UCI's adult.data, three columns
    with pytest.warns(UserWarning, match=r"^the first line of the upload is read as the column names, but '39', "
                                         r"'77516' are numbers heading columns of numbers: if the first line is "
                                         r"a data row, read the file with header=False$"):
        frame, notes = read_frame(io.BytesIO(adult))
    assert list(frame.columns) == ["39", "State-gov", "77516"] and len(frame) == 2 and len(notes) == 1
    assert read_frame(io.BytesIO(adult), header=False)[0].shape == (3, 3)
    # a header of names (or a number over a column of text) is a header: nothing said
    assert read_frame(io.BytesIO(b"age,Q1,2020\n34,yes,a\n51,no,b\n"))[1] == []


def test_the_command_line_names_its_no_header_flag(tmp_path, capsys):
    from bnexplore.cli import main

    path = tmp_path / "uci.csv"
    path.write_bytes(b"0,0,1\n1,0,1\n0,1,0\n")
    assert main(["learn", str(path)]) == 1
    assert capsys.readouterr().err.strip().endswith("if the first line is a data row, read the file with --no-header")
    assert main(["learn", str(path), "--no-header", "--quiet", "--json", str(tmp_path / "out.json")]) == 0
    assert json.loads((tmp_path / "out.json").read_text())["graph"]["nodes"] == ["X0", "X1", "X2"]


def test_read_csv_latin1_falls_back_with_line_number():
    data = "name,town\nann,Paris\nbob,K\u00f6ln\n".encode("latin-1")
    with pytest.warns(UserWarning, match="not valid UTF-8.*line 3"):
        ds = read_csv(io.BytesIO(data))
    assert ds.states[1] == ["Köln", "Paris"]
    assert any("line 3" in w for w in ds.warnings)
    with pytest.raises(DataError, match="line 3 is not valid utf-8"):
        read_csv(io.BytesIO(data), encoding="utf-8")
    cp = read_csv(io.BytesIO("a,b\n\u20ac,x\n\u00e9,y\n".encode("cp1252")), encoding="cp1252")
    assert cp.states == [["é", "€"], ["x", "y"]] and cp.warnings == []


def test_read_csv_utf8_with_bom_and_header_false():
    ds = quiet(read_csv, io.BytesIO("\ufeffa,b\nx,1\n".encode("utf-8")))  # constant columns warn
    assert ds.names == ["a", "b"]
    plain = read_csv(io.BytesIO(b"0,1\n1,0\n"), header=False)
    assert plain.names == ["X0", "X1"] and plain.n_rows == 2


def test_read_csv_bad_input_messages(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        read_csv(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="line 3"):
        read_csv(io.BytesIO(b"a,b\n1,2\n1,2,3\n"))
    with pytest.raises(DataError, match="encoding='klingon'"):
        read_csv(io.BytesIO(b"a\n1\n"), encoding="klingon")
    with pytest.raises(DataError, match="sep=';;'"):
        read_csv(io.BytesIO(b"a\n1\n"), sep=";;")
    with pytest.raises(DataError, match="max_levels=0"):
        read_csv(io.BytesIO(b"a\n1\n"), max_levels=0)


def test_read_csv_missing_cells_and_default_na_strings():
    ds = read_csv(io.BytesIO(b"a,b\nx,1\n,NA\ny,2\n"))
    assert ds.states == [["x", "y", MISSING_LABEL], ["1", "2", MISSING_LABEL]]
    assert ds.codes.tolist() == [[0, 0], [2, 2], [1, 1]]


def test_read_frame_then_profile():
    frame, notes = read_frame(io.BytesIO(b"h,w\n1.5,a\n2.5,b\n"))
    assert notes == [] and frame.shape == (2, 2)
    profile = Encoder(discretize="uniform3").profile(frame)
    assert profile["type"].tolist() == ["numeric", "categorical"]
    assert profile["discretize"].tolist()[0] == "uniform3"


@pytest.mark.skipif(not os.path.isdir(SHARED), reason="benchmark data not available")
def test_read_benchmark_file_with_skipped_codes():
    ds = read_csv(os.path.join(SHARED, "shuttle.csv"), header=False, types="categorical")
    assert ds.n_rows == 58000 and ds.n_vars == 10
    raw = pd.read_csv(os.path.join(SHARED, "shuttle.csv"), header=None)
    assert ds.arities.tolist() == raw.nunique().tolist()
    assert ds.codes.dtype == np.uint16
    column = 5
    order = np.sort(raw[column].unique())
    assert np.array_equal(order[ds.codes[:, column]], raw[column].to_numpy())


# ----------------------------------------------------------------------------
# Arrow's reader reads as pandas' parser did; Parquet and Feather; binary files
# ----------------------------------------------------------------------------


def same_dataset(a, b):
    return (a.names == b.names and a.states == b.states and a.codes.dtype == b.codes.dtype
            and np.array_equal(a.codes, b.codes))


def small_blocks(monkeypatch):
    """Arrow parses 256-byte blocks, so a few hundred rows span many blocks (it fixes column types on the first)."""
    monkeypatch.setattr(csvparse, "CSV_BLOCK", 256)


TRICKY_CSV = {
    "mixed numbers and text": b"m,n\n1,a\n2,b\noops,c\n3,d\n",
    "NA strings and blanks": b"a,b,c\nx,1,NA\n,NaN,null\n y ,2,None\n   ,n/a,#N/A\n",
    "integers with missing": b"i,j\n1,\n2,7\n,7\n3,8\n",
    "floats": b"x,y\n0.5,1e3\n-1.25,2.5E-1\n3,7\n",
    "dates and times as written": b"d,t\n2020-01-02,10:00:00\n2020-01-02T10:00,11:30:00\n2021-12-31,10:00:00\n",
    "quoted separators and newlines": b'q,r\n"a,b",1\n"multi\nline",2\n"say ""hi""",1\n',
    "blank header names": b"a,,b\n1,x,u\n2,y,v\n",
    "crlf and a byte-order mark": "\ufeffc1,c2\r\nx,1\r\ny,2\r\n".encode("utf-8"),
    "blank lines": b"\n\na,b\n1,2\n\n3,4\n",
    "numbers as text": b"k\n007\n7\n1.50\n",
}


@pytest.mark.parametrize("name", TRICKY_CSV)
def test_arrow_reader_gives_the_dataset_pandas_parser_gave(name):
    """The loader before Arrow: pandas' C parser, then Dataset.from_frame (the same encoder)."""
    text = TRICKY_CSV[name]
    pandas = pd.read_csv(io.BytesIO(text), low_memory=False)
    pandas.columns = [f"column {j + 1}" if c.startswith("Unnamed: ") else c for j, c in enumerate(pandas.columns)]
    old = quiet(Dataset.from_frame, pandas, types="categorical")  # a blank name is "column N" here (issue 30, 21)
    new = quiet(read_table, io.BytesIO(text), types="categorical")
    assert same_dataset(new, old)
    frame, _ = quiet(read_frame, io.BytesIO(text))
    assert same_dataset(quiet(Dataset.from_frame, frame, types="categorical"), old)


def test_true_and_false_in_a_csv_stay_the_files_labels():
    """alarm.csv writes TRUE / FALSE: they are state names, kept as written (pandas would make them booleans)."""
    data = read_table(io.BytesIO(b"f,g,h\nTRUE,1,true\nFALSE,0,1\nTRUE,1,\n"), types="categorical")
    assert data.states[0] == ["FALSE", "TRUE"]
    assert data.states[1] == ["0", "1"]
    assert data.states[2][:2] == ["1", "true"] and data.arities.tolist() == [2, 2, 3]
    frame, _ = read_frame(io.BytesIO(b"f\nTRUE\nFALSE\n"))
    assert frame["f"].tolist() == ["TRUE", "FALSE"]


def test_types_fixed_on_the_first_block_widen_for_later_values(monkeypatch):
    small_blocks(monkeypatch)
    rows = [f"{k % 3},{k % 2},,{k % 4}" for k in range(300)]
    rows[250] = "oops,2.5,7,x"
    text = ("ints_then_text,ints_then_float,empty_then_number,ints_then_text_again\n" + "\n".join(rows)).encode()
    old = quiet(Dataset.from_frame, pd.read_csv(io.BytesIO(text)), discretize={"ints_then_float": "manual:1"},
                types={"empty_then_number": "categorical"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        new = read_table(io.BytesIO(text), discretize={"ints_then_float": "manual:1"},
                         types={"empty_then_number": "categorical"})
    assert [str(w.message).split(";")[0] for w in caught] == [
        "column 'ints_then_text' mixes numbers and text (row 251: 'oops')",
        "column 'ints_then_text_again' mixes numbers and text (row 251: 'x')"]
    assert same_dataset(new, old)
    assert new.states[0] == ["0", "1", "2", "oops"] and new.states[2] == ["7", MISSING_LABEL]


def test_problems_after_the_first_block_name_their_line(monkeypatch, tmp_path):
    small_blocks(monkeypatch)
    rows = [f"{k % 5},x" for k in range(300)]
    short = rows.copy()
    short[200] = "5"
    with pytest.raises(DataError, match="line 202 has 1 field where the first line has 2"):
        read_table(io.BytesIO(("a,b\n" + "\n".join(short)).encode()))
    latin = tmp_path / "latin.csv"
    latin.write_bytes(("a,b\n" + "\n".join(rows[:250]) + "\n250,K\u00f6ln\n").encode("latin-1"))
    with pytest.warns(UserWarning, match="'latin.csv' is not valid UTF-8 \\(first undecodable byte on line 252\\)"):
        ds = read_table(latin)
    assert ds.states[1] == ["Köln", "x"]
    with pytest.raises(DataError, match="'latin.csv' line 252 is not valid utf-8 text"):
        read_table(latin, encoding="utf-8")


def test_utf16_text_reads_with_its_byte_order_mark_and_is_refused_without_one():
    text = "town,size\nK\u00f6ln,1\nParis,2\n"
    ds = read_table(io.BytesIO(text.encode("utf-16")))
    assert ds.names == ["town", "size"] and ds.states[0] == ["Köln", "Paris"]
    bare = text.encode("utf-16-le")
    with pytest.raises(DataError, match="not a text table .* if it is UTF-16 text, set encoding='utf-16'"):
        read_table(io.BytesIO(bare))
    assert same_dataset(read_table(io.BytesIO(bare), encoding="utf-16-le"), ds)


def _zipped(name, text):
    """A zip archive holding one member, deflated."""
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.parametrize("name, content, says", [
    ("survey.xlsx", _zipped("xl/worksheets/sheet1.xml", "<row><c><v>1</v></c></row>" * 400),
     "file 'survey.xlsx' is a spreadsheet workbook (Excel or OpenDocument), not a text table; save its sheet as "
     "CSV (File, Save As, CSV) and give that, or a Parquet or Feather file"),
    ("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "file 'old.xls' is a spreadsheet workbook"),
    ("survey.zip", _zipped("survey.csv", "a,b\n1,2\n" * 300),
     "file 'survey.zip' is a zip archive, not a text table; give the CSV inside it (or that CSV gzipped, .csv.gz), "
     "or a Parquet or Feather file"),
])
def test_a_workbook_or_a_zip_is_named_as_such_with_what_to_give_instead(tmp_path, name, content, says):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataError, match=re.escape(says)):
        read_table(path)


@pytest.mark.parametrize("content, found", [
    (np.random.default_rng(3).bytes(4000), "it holds NUL bytes, the first at byte 67"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", "it holds NUL bytes, the first at byte 9"),
    (b"a,b\nx,y\nz,\x00w\n", "it holds NUL bytes, the first at byte 11"),
    (bytes(range(1, 9)) * 50 + b"\na,b\n", "400 of its first 405 characters are control characters"),
])
def test_binary_files_are_refused_as_not_text(tmp_path, content, found):
    path = tmp_path / "data.bin"
    path.write_bytes(content)
    for source, label in ((path, "file 'data.bin'"), (io.BytesIO(content), "the upload")):
        with pytest.raises(DataError, match=re.escape(f"{label} is not a text table ({found}); give a CSV, Parquet "
                                                      f"or Feather file")):
            read_table(source)
    with pytest.raises(DataError, match="not a text table"):
        read_frame(path)


def test_a_nul_byte_far_into_a_text_file_is_found_with_its_offset(tmp_path):
    head = b"a,b\n" + b"1,x\n2,y\n" * 20_000  # 160 kB, beyond what is sniffed before parsing
    path = tmp_path / "long.csv"
    path.write_bytes(head + b"3,\x00\n")
    with pytest.raises(DataError, match=f"'long.csv' is not a text table \\(it holds NUL bytes, the first at byte "
                                        f"{len(head) + 3:,}\\)"):
        read_table(path)


def test_gzipped_text_that_is_broken_names_the_problem():
    with pytest.raises(DataError, match="looks gzip-compressed but cannot be decompressed"):
        read_table(io.BytesIO(gzip.compress(b"a,b\n" + "".join(f"{i},{i * i}\n" for i in range(9999)).encode())[:900]))


def mixed_table(rows=400, seed=5):
    rng = np.random.default_rng(seed)
    missing = rng.random(rows) < 0.1
    return pd.DataFrame({
        "text": pd.Series(np.where(missing, None, rng.choice(["b", "a", "c"], rows)), dtype=object),
        "count": pd.array(np.where(missing[::-1], None, rng.integers(0, 4, rows)), dtype="Int64"),
        "weight": np.where(rng.random(rows) < 0.1, np.nan, rng.normal(size=rows)),
        "flag": pd.array(np.where(rng.random(rows) < 0.1, None, rng.random(rows) < 0.5), dtype="boolean"),
        "size": pd.Categorical(rng.choice(["lo", "mid", "hi", None], rows), categories=["hi", "lo", "mid"]),
    })


@pytest.mark.parametrize("kind", ["parquet", "feather"])
def test_parquet_and_feather_give_the_dataset_of_the_same_table_as_csv(tmp_path, kind):
    df = mixed_table()
    options = {"discretize": {"weight": "quantile:3"}}
    csv_path, path = tmp_path / "t.csv", tmp_path / f"t.{kind}"
    df.to_csv(csv_path, index=False)
    getattr(df, f"to_{kind}")(path)
    expected = read_table(csv_path, **options)
    assert same_dataset(expected, Dataset.from_frame(df, **options))
    assert MISSING_LABEL in expected.states[0] and expected.states[3] == ["False", "True", MISSING_LABEL]
    for source in (path, path.read_bytes(), io.BytesIO(path.read_bytes())):
        got = read_table(source, **options)
        assert same_dataset(got, expected) and got.encoder.cut_points() == expected.encoder.cut_points()
    frame, notes = read_frame(path)
    reference = getattr(pd, f"read_{kind}")(path)
    assert notes == [] and frame.equals(reference) and same_dataset(Dataset.from_frame(frame, **options), expected)


def test_a_stored_categorical_keeps_its_category_order_and_the_index_is_not_data(tmp_path):
    """Unused categories (here 'none') are no states, as for a DataFrame."""
    df = pd.DataFrame({"id": [f"r{i}" for i in range(6)],
                       "grade": pd.Categorical(["low", "high", "mid"] * 2, categories=["low", "mid", "high", "none"]),
                       "n": [1, 2, 3] * 2}).set_index("id")
    path = tmp_path / "graded.parquet"
    df.to_parquet(path)
    ds = read_table(path)
    assert ds.names == ["grade", "n"] and ds.states[0] == ["low", "mid", "high"]
    assert same_dataset(ds, Dataset.from_frame(df))
    assert read_frame(path)[0].index.tolist() == df.index.tolist()


def test_format_comes_from_the_content_and_a_name_that_promises_another_is_refused(tmp_path):
    df = pd.DataFrame({"a": ["x", "y"], "b": [1, 2]})
    buffer = io.BytesIO()
    df.to_parquet(buffer)
    parquet = buffer.getvalue()
    assert read_table(io.BytesIO(parquet), name="upload.csv").names == ["a", "b"]  # content decides
    frame, _ = read_frame(io.BytesIO(parquet), name="x.parquet")
    assert frame.equals(df)
    with pytest.raises(DataError, match="'x.parquet' is named like a Parquet file but is not one"):
        read_table(io.BytesIO(b"a,b\n1,2\n"), name="x.parquet")
    with pytest.raises(DataError, match="'x.feather' is named like a Feather file"):
        read_frame(io.BytesIO(b"a,b\n1,2\n"), name="x.feather")
    with pytest.raises(DataError, match="'cut.parquet' cannot be read as Parquet"):
        read_table(io.BytesIO(parquet[:-20]), name="cut.parquet")
    empty = tmp_path / "empty.parquet"
    df.iloc[:0].to_parquet(empty)
    with pytest.raises(DataError, match="'empty.parquet' has columns \\('a', 'b'\\) but no data rows"):
        read_table(empty)


def row_starts_by_hand(text, targets):
    """Offsets where rows start (after a newline outside quotes), and for each target the first at or after it."""
    starts, quoted = [], False
    for position, byte in enumerate(text):
        if byte == ord('"'):
            quoted = not quoted
        elif byte == ord("\n") and not quoted:
            starts.append(position + 1)
    picked = []
    for target in targets:
        later = [s for s in starts if s >= target and (not picked or s > picked[-1])]
        if later:
            picked.append(later[0])
    return picked


def random_csv(rng, rows):
    """CSV text with quoted fields holding separators, doubled quotes and newlines."""
    cells = ["plain", '"a,b"', '"say ""hi"""', '"two\nlines"', '""', "", '"x\n""y""\nz"']
    lines = ["k,v,w"] + [",".join(rng.choice(cells, 3)) for _ in range(rows)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("seed", range(5))
def test_row_starts_match_a_by_hand_scan_of_quotes(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    text = random_csv(rng, 300)
    targets = sorted(rng.integers(0, len(text), 4).tolist())
    chunks = [text[i: i + 97] for i in range(0, len(text), 97)]  # quotes and newlines straddle chunk ends
    source = Source(text)
    monkeypatch.setattr(source, "chunks", lambda size=None: iter(chunks))
    assert csvparse.row_starts(source, targets) == row_starts_by_hand(text, targets)


@pytest.mark.parametrize("seed", range(3))
def test_text_read_in_parallel_ranges_gives_the_dataset_of_one_reader(seed, monkeypatch, tmp_path):
    rng = np.random.default_rng(seed)
    path = tmp_path / "quoted.csv"
    path.write_bytes(random_csv(rng, 2000))
    one = quiet(read_table, path, types="categorical")
    frame_one, _ = quiet(read_frame, path)
    small_blocks(monkeypatch)
    monkeypatch.setattr(csvparse, "CSV_PART", 1000)
    monkeypatch.setattr(parallel, "WORKERS", 4)
    monkeypatch.setattr(parallel, "THREADED_CELLS", 1)  # columns coded on threads too
    assert len(csvparse.row_ranges(Source(path), "utf8")) == 4
    for source in (path, path.read_bytes()):
        assert same_dataset(quiet(read_table, source, types="categorical"), one)
        assert quiet(read_frame, source)[0].equals(frame_one)
    old = quiet(Dataset.from_frame, pd.read_csv(path), types="categorical")
    assert same_dataset(one, old)


def test_a_range_read_in_parallel_that_finds_a_wider_type_or_a_bad_row_restarts(monkeypatch, tmp_path):
    monkeypatch.setattr(csvparse, "CSV_PART", 1000)
    monkeypatch.setattr(parallel, "WORKERS", 3)
    rows = [f"{k % 4},{k % 3}" for k in range(3000)]
    rows[2500] = "2.5,x"
    path = tmp_path / "late.csv"
    path.write_text("a,b\n" + "\n".join(rows) + "\n")
    ds = read_table(path, discretize={"a": "manual:1,2"}, types={"b": "categorical"}, max_levels=None)
    assert ds.states[1] == ["0", "1", "2", "x"] and ds.n_rows == 3000
    assert same_dataset(ds, quiet(Dataset.from_frame, pd.read_csv(path), discretize={"a": "manual:1,2"},
                                  types={"b": "categorical"}))
    rows[2700] = "1,2,3"
    path.write_text("a,b\n" + "\n".join(rows) + "\n")
    with pytest.raises(DataError, match="line 2702 has 3 fields where the first line has 2"):
        read_table(path)


def test_the_largest_discretization_allowed_gives_its_bins():
    values = pd.DataFrame({"x": np.arange(5000.0) % 2500})  # repeated values: not a row identifier
    assert Encoder(discretize="quantile:1000").fit_transform(values).arities.tolist() == [1000]
    assert Encoder(discretize="quantile:0005").fit_transform(values).arities.tolist() == [5]
    assert Encoder(discretize=list(range(1, 1000))).fit_transform(values).arities.tolist() == [1000]
