"""Blank cells (``missing="em"``) and row weights in a Dataset (issue 33, section 1 of the contract)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from bnexplore.data import (MISSING_LABEL, Dataset, Encoder, read_csv, require_complete, require_unweighted)
from bnexplore.errors import DataError

SURVEY = "tests/fixtures/survey.csv"


def frame_with_blanks():
    return pd.DataFrame({
        "smoker": ["yes", None, "no", "yes", "no", "yes"],
        "age": [30.5, np.nan, 50.5, 70.5, 40.5, 35.5],
        "town": ["", "a", "b", "a", "b", "a"],
        "level": pd.Categorical(["lo", "hi", None, "lo", "hi", "lo"], categories=["lo", "hi"]),
    })


def test_em_keeps_blank_cells_blank_with_no_missing_state_and_arities_of_observed_values():
    data = Encoder(missing="em", discretize="quantile:2").fit_transform(frame_with_blanks())
    expected = np.zeros((6, 4), dtype=bool)
    expected[1, 0] = expected[1, 1] = expected[0, 2] = expected[2, 3] = True
    assert data.blank is not None and data.blank.flags.f_contiguous
    np.testing.assert_array_equal(data.blank, expected)
    assert data.n_blank == 4 and data.blank_columns() == {"smoker": 1, "age": 1, "town": 1, "level": 1}
    assert all(MISSING_LABEL not in labels for labels in data.states)
    assert data.states[0] == ["no", "yes"] and data.states[2] == ["a", "b"] and data.states[3] == ["lo", "hi"]
    assert data.arities.tolist() == [2, 2, 2, 2]
    assert (data.codes[data.blank] == 0).all()  # the placeholder
    # the same table with missing="state" gets a <missing> state in each of these columns
    assert all(labels[-1] == MISSING_LABEL for labels in Encoder(discretize="quantile:2").fit_transform(
        frame_with_blanks()).states)


def test_a_complete_table_under_em_has_no_blank_mask():
    data = Encoder(missing="em").fit_transform(pd.DataFrame({"a": ["x", "y"], "b": ["u", "v"]}))
    assert data.blank is None and data.n_blank == 0 and data.blank_columns() == {}


def test_em_transform_marks_blanks_in_a_column_that_had_none_when_fitted():
    encoder = Encoder(missing="em").fit(pd.DataFrame({"a": ["x", "y", "x"], "b": ["u", "v", None]}))
    data = encoder.transform(pd.DataFrame({"a": [None, "y"], "b": ["u", "v"]}))
    assert data.blank.tolist() == [[True, False], [False, False]]


def test_an_all_blank_column_is_dropped_naming_it_and_a_table_of_only_such_columns_is_refused():
    frame = pd.DataFrame({"a": ["x", "y", "x"], "empty": [None, None, None], "b": [1, 2, np.nan]})
    with pytest.warns(UserWarning, match="dropped column\\(s\\) 'empty': every cell is blank"):
        data = Encoder(missing="em").fit_transform(frame)
    assert data.names == ["a", "b"] and data.blank_columns() == {"b": 1}
    with pytest.raises(DataError, match="no column is left") as error:
        Encoder(missing="em").fit_transform(pd.DataFrame({"e": [None, None], "f": ["", " "]}))
    assert "\n" not in str(error.value) and "'e', 'f'" in str(error.value)


def test_a_row_with_every_cell_blank_is_dropped_with_a_note_naming_it():
    frame = pd.DataFrame({"a": ["x", None, "y", "x"], "b": ["u", "", "v", None]})
    with pytest.warns(UserWarning, match="dropped 1 of 4 rows whose every cell is blank \\(first: row 2\\)"):
        data = Encoder(missing="em").fit_transform(frame)
    assert data.n_rows == 3 and data.blank.tolist() == [[False, False], [False, False], [False, True]]


def test_from_codes_em_round_trips_minus_one_as_blank():
    codes = np.array([[0, 2, -1], [1, -1, 0], [-1, 0, 1], [1, 1, 1]])
    data = Dataset.from_codes(codes, missing="em")
    np.testing.assert_array_equal(data.blank, codes == -1)
    assert data.arities.tolist() == [2, 3, 2]
    back = np.where(data.blank, -1, data.codes.astype(np.int64))
    np.testing.assert_array_equal(back, codes)
    np.testing.assert_array_equal(Dataset.from_codes(back, missing="em").blank, data.blank)
    floats = Dataset.from_codes(np.where(codes == -1, np.nan, codes), missing="em")
    np.testing.assert_array_equal(floats.blank, data.blank)


def test_from_codes_refuses_negative_codes_unless_em_and_other_negatives_always():
    with pytest.raises(DataError, match="column 'X0' row 2 has code -1; codes must be >= 0, or -1 for a blank "
                                       "cell with missing='em'"):
        Dataset.from_codes([[0], [-1]])
    with pytest.raises(DataError, match="row 2 has code -2"):
        Dataset.from_codes([[0], [-2]], missing="em")
    with pytest.raises(DataError, match="missing='state' is not valid here"):
        Dataset.from_codes([[0]], missing="state")


def test_the_constructor_checks_the_blank_mask_and_stores_an_all_false_one_as_none():
    assert Dataset([[0, 1]], [2, 2], ["a", "b"], [["0", "1"]] * 2, blank=[[False, False]]).blank is None
    data = Dataset([[1, 1]], [2, 2], ["a", "b"], [["0", "1"]] * 2, blank=np.array([[True, False]]))
    assert data.codes.tolist() == [[0, 1]]  # the placeholder under a blank cell
    for blank, match in (([[1, 0]], "blank must be a boolean mask"), ([[True]], "has shape \\(1, 1\\)")):
        with pytest.raises(DataError, match=match):
            Dataset([[0, 1]], [2, 2], ["a", "b"], [["0", "1"]] * 2, blank=blank)


def test_complete_rows_keeps_rows_without_a_blank_and_refuses_when_none_is_complete():
    data = Dataset.from_codes([[0, 1], [-1, 0], [1, 1], [1, -1]], missing="em")
    complete = data.complete_rows()
    assert complete.blank is None and complete.codes.tolist() == [[0, 1], [1, 1]]
    plain = Dataset.from_codes([[0, 1]])
    assert plain.complete_rows() is plain
    with pytest.raises(DataError, match="every one of the 2 rows has a blank cell \\(2 in all; first: column 'X1', "
                                        "row 1\\)") as error:
        Dataset.from_codes([[0, -1], [-1, 1]], missing="em").complete_rows()
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("weights, match", [
    ([1.0, 2.0], "weights has shape \\(2,\\) but the data has 3 rows; give one weight per row"),
    ([1.0, 0.0, 2.0], "weights has 0.0 at row 2; every weight must be a finite number > 0"),
    ([1.0, -1.0, 2.0], "weights has -1.0 at row 2"),
    ([1.0, np.nan, 2.0], "weights has nan at row 2"),
    ([1.0, np.inf, 2.0], "weights has inf at row 2"),
    (["a", "b", "c"], "weights must be numbers, one per row"),
    ([[1.0, 1.0, 1.0]], "weights has shape \\(1, 3\\)"),
])
def test_bad_weights_are_refused_in_one_line_naming_the_keyword(weights, match):
    with pytest.raises(DataError, match=match) as error:
        Dataset([[0], [1], [0]], [2], ["a"], [["0", "1"]], weights=weights)
    assert "\n" not in str(error.value)


def test_weights_are_float64_and_never_go_with_blank_cells():
    data = Dataset([[0], [1]], [2], ["a"], [["0", "1"]], weights=[1, 3])
    assert data.weights.dtype == np.float64 and data.weights.tolist() == [1.0, 3.0]
    with pytest.raises(DataError, match="weights cannot go with blank cells"):
        Dataset([[0], [1]], [2], ["a"], [["0", "1"]], blank=[[True], [False]], weights=[1, 3])


def test_require_complete_and_require_unweighted_say_what_and_what_to_do_in_one_line():
    blank = Dataset.from_codes([[0, 1], [1, -1], [-1, 0]], missing="em")
    with pytest.raises(DataError) as error:
        require_complete(blank, "the G-test")
    assert str(error.value).startswith("the G-test needs complete rows, and the data has 2 blank cells (first: "
                                       "column 'X1', row 2); learn with structural EM (missing='em')")
    assert "missing='drop'" in str(error.value) and "\n" not in str(error.value)
    weighted = Dataset([[0], [1]], [2], ["a"], [["0", "1"]], weights=[0.25, 1.75])
    require_complete(weighted, "x")
    with pytest.raises(DataError, match="^bootstrap cannot use row weights, and the data is weighted \\(2 rows of "
                                        "total weight 2\\)"):
        require_unweighted(weighted, "bootstrap")
    require_unweighted(blank, "x")


def test_read_csv_with_missing_em_keeps_the_survey_blanks():
    options = dict(discretize="quantile:3", types={"respondent_id": "categorical"}, max_levels=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = read_csv(SURVEY, missing="em", **options)
        as_state = read_csv(SURVEY, **options)
    raw = pd.read_csv(SURVEY)
    expected = {name: int(count) for name, count in raw.isna().sum().items() if count}
    assert len(expected) == 6 and data.blank_columns() == expected and data.n_blank == sum(expected.values())
    np.testing.assert_array_equal(data.blank, raw.isna().to_numpy())
    assert all(MISSING_LABEL not in labels for labels in data.states)
    for i, name in enumerate(data.names):
        assert data.arities[i] == as_state.arities[i] - (name in expected), name
        if name in ("gender", "education", "exercise", "satisfaction", "outcome"):
            assert data.arities[i] == raw[name].nunique(), name


def blank_data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2, (n, 3))
    codes[3, 1] = -1
    return Dataset.from_codes(codes, names=["a", "b", "c"], missing="em")


def weighted_data(n=60, seed=0):
    data = blank_data(n, seed).complete_rows()
    return Dataset(data.codes, data.arities, data.names, data.states, weights=np.full(data.n_rows, 0.5))


def one_line(error, start):
    text = str(error.value)
    assert "\n" not in text and text.startswith(start), text
    return text


def test_an_independence_test_refuses_blank_and_weighted_data_in_one_line():
    from bnexplore.independence import IndependenceTest

    with pytest.raises(DataError) as error:
        IndependenceTest(blank_data())
    text = one_line(error, "an independence test (PC, MMHC) needs complete rows, and the data has 1 blank cells")
    assert "(first: column 'b', row 4)" in text
    with pytest.raises(DataError) as error:
        IndependenceTest(weighted_data())
    one_line(error, "an independence test (PC, MMHC) cannot use row weights")


def test_bnkl_refuses_blank_data_through_its_public_functions():
    from bnexplore.bnkl import bnkl, bnkl_search

    labels = np.arange(60) % 2
    with pytest.raises(DataError) as error:
        bnkl_search(blank_data(), labels)
    one_line(error, "BNKL needs complete rows")
    with pytest.raises(DataError) as error:
        bnkl_search(weighted_data(), labels[:59])
    one_line(error, "BNKL cannot use row weights")
    frame = pd.DataFrame({"x": ["u", "v", None, "u"] * 10, "y": ["p", "q", "q", "p"] * 10,
                          "cls": ["a", "b"] * 20})
    with pytest.raises(DataError) as error:
        bnkl(frame, "cls", encoder=Encoder(missing="em"))
    one_line(error, "BNKL needs complete rows")
    result = bnkl(frame, "cls")  # a <missing> state: complete rows
    coded = result.data
    blank = Dataset(coded.codes, coded.arities, coded.names, coded.states, blank=np.eye(40, 2, dtype=bool))
    with pytest.raises(DataError) as error:
        result.log_likelihoods(blank)
    one_line(error, "a BNKL network's log-likelihood of rows needs complete rows")


def test_bootstrap_refuses_blank_and_weighted_data_in_one_line():
    from bnexplore import bootstrap

    with pytest.raises(DataError) as error:
        bootstrap(blank_data(), "hc", R=2, seed=0, workers=1)
    one_line(error, "bootstrap needs complete rows")
    with pytest.raises(DataError) as error:
        bootstrap(weighted_data(), "hc", R=2, seed=0, workers=1)
    one_line(error, "bootstrap cannot use row weights")


def test_a_distributed_parent_set_search_refuses_weighted_data_before_starting_dask():
    from bnexplore.distributed import explore_distributed
    from bnexplore.scores import Scorer

    with pytest.raises(DataError) as error:
        explore_distributed(Scorer(weighted_data()))
    one_line(error, "a parent-set search on a Dask cluster cannot use row weights")


def test_subset_select_to_frame_summary_and_repr_carry_the_blank_cells():
    codes = np.array([[0, 1, -1], [-1, 0, 1], [1, 1, 0], [1, -1, -1]])
    data = Dataset.from_codes(codes, names=["a", "b", "c"], states=[["n", "y"], ["lo", "hi"], ["u", "v"]],
                              missing="em")
    part = data.subset([3, 0])
    assert part.blank.tolist() == [[False, True, True], [False, False, True]] and part.n_blank == 3
    assert data.subset([2]).blank is None
    picked = data.select(["c", "a"])
    assert picked.blank.tolist() == [[True, False], [False, True], [False, False], [True, False]]
    assert data.select(["b"]).blank_columns() == {"b": 1} and data.subset([0, 2]).select(["a", "b"]).blank is None
    frame = data.to_frame()
    assert frame.isna().to_numpy().tolist() == (codes == -1).tolist()
    assert frame["a"].tolist()[2:] == ["y", "y"] and list(frame["c"].cat.categories) == ["u", "v"]
    assert data.summary()["missing"].tolist() == [1, 1, 2]
    assert repr(data) == "Dataset(4 rows x 3 variables: a, b, c; 4 blank cells)"


def test_a_missing_state_and_blank_cells_both_count_in_the_summary():
    data = Dataset([[0, 2], [1, 0], [0, 1]], [2, 3], ["a", "b"], [["x", "y"], ["p", "q", MISSING_LABEL]],
                   blank=[[False, False], [False, True], [False, False]])
    assert data.summary()["missing"].tolist() == [0, 2]


def test_subset_and_select_carry_the_weights():
    data = Dataset([[0, 1], [1, 0], [1, 1]], [2, 2], ["a", "b"], [["0", "1"]] * 2, weights=[0.5, 2.0, 1.5])
    assert data.subset([2, 0]).weights.tolist() == [1.5, 0.5]
    assert data.select(["b"]).weights.tolist() == [0.5, 2.0, 1.5]
    assert data.complete_rows() is data
    assert repr(data) == "Dataset(3 rows x 2 variables: a, b; weighted, total weight 4)"


def test_a_parquet_file_read_with_missing_em_keeps_its_blanks():
    import io

    from bnexplore.data import MISSING_POLICIES, read_table

    assert MISSING_POLICIES == ("state", "drop", "error", "em")
    buffer = io.BytesIO()
    pd.DataFrame({"a": ["x", None, "y"], "b": pd.Categorical(["p", "q", None])}).to_parquet(buffer)
    data = read_table(buffer, missing="em")
    assert data.blank.tolist() == [[False, False], [True, False], [False, True]]
    assert data.states == [["x", "y"], ["p", "q"]]


def test_an_unknown_policy_names_em_among_the_choices():
    with pytest.raises(DataError, match="missing='skip' is not a policy; use 'state', 'drop', 'error' or 'em'"):
        Encoder(missing="skip")
    with pytest.raises(DataError, match="row 2 is missing .* or missing='em' to learn from the values each row has$"):
        Encoder(missing="error").fit_transform(pd.DataFrame({"a": ["x", None]}))
