"""Issue 29 (browser walk): a row-identifier column is recognised, warned about in the library and left out
by default in the app, where the user can put it back."""

import warnings
from pathlib import Path

import pandas as pd
import pytest

from bnexplore.data import Encoder, read_table
from test_app import ASIA, at, go, load_sample, no_exception, run_search, upload  # noqa: F401 (at is a fixture)

SURVEY = Path(__file__).resolve().parent / "fixtures" / "survey.csv"
NOTE = "looks like a row identifier"


def test_the_profile_marks_an_identifier_and_fitting_warns_but_keeps_it():
    frame = pd.read_csv(SURVEY)
    profile = Encoder().profile(frame).set_index("column")
    assert profile["identifier"].tolist() == [name == "respondent_id" for name in frame.columns]
    assert "identifier: every row has its own value (300 distinct values in 300 rows)" in profile.loc[
        "respondent_id", "note"]
    with pytest.warns(UserWarning, match="'respondent_id' looks like a row identifier") as caught:
        data = read_table(SURVEY, discretize="uniform3")
    assert "respondent_id" in data.names  # the API keeps the column: the caller decides
    assert sum(NOTE in str(w.message) for w in caught) == 1


@pytest.mark.parametrize("values, identifier", [
    ([f"p{i}" for i in range(30)], True),                 # text, all distinct
    (list(range(30)), True),                              # whole numbers, all distinct
    ([float(i) for i in range(29)] + [None], True),       # one missing: every non-missing row its own value
    ([i + 0.5 for i in range(30)], False),                # distinct measurements are not identifiers
    (list(range(19)), False),                             # too few rows to tell
    ([i % 29 for i in range(30)], False),                 # one value repeated
])
def test_which_columns_are_identifiers(values, identifier):
    frame = pd.DataFrame({"x": values, "y": ["a", "b"] * (len(values) // 2) + ["a"] * (len(values) % 2)})
    assert Encoder().profile(frame)["identifier"].tolist() == [identifier, False]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Encoder(discretize="uniform3", max_levels=None).fit(frame)
    assert any(NOTE in str(w.message) for w in caught) == identifier


def test_the_survey_upload_leaves_the_identifier_out_and_putting_it_back_works(at):
    upload(at, "survey.csv", SURVEY.read_bytes())
    names = at.session_state["dataset"].names
    assert "respondent_id" not in names and len(names) == 10
    notes = [i.value for i in at.info if NOTE in i.value]
    assert notes == ["`respondent_id` looks like a row identifier (300 distinct values in 300 rows): left out; "
                     "remove it from *Leave out these columns* above to use it."]
    key = at.session_state["draft"]["table"].key
    assert at.multiselect(key=f"col-{key}-leave").value == ["respondent_id"]
    at.multiselect(key=f"col-{key}-leave").set_value([])
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].names[0] == "respondent_id"
    assert not any(NOTE in i.value for i in at.info)


def test_bundled_samples_leave_nothing_out(at):
    assert at.session_state["dataset"].names == ASIA
    load_sample(at, "breast_cancer_wdbc")
    no_exception(at)
    assert at.session_state["encoding"]["leave_out"] == []
    assert not any(NOTE in i.value for i in at.info)


def test_networks_of_the_same_table_under_other_data_page_settings_say_so(at):
    """The walk's Compare page said two networks 'were learned on different data (upload survey.csv and upload
    survey.csv)': the same file, read with other Data page settings. Every place that names other data says
    so now."""
    upload(at, "survey.csv", SURVEY.read_bytes())
    run_search(at)
    first = at.session_state["focus"]
    key = at.session_state["draft"]["table"].key
    go(at, "1_Data")
    at.multiselect(key=f"col-{key}-leave").set_value(["respondent_id", "smoker"])
    at.run()
    no_exception(at)
    run_search(at)
    second = at.session_state["focus"]
    assert "smoker" not in at.session_state["dataset"].names and second == f"{first} (2)"
    go(at, "3_Search")
    others = [e.label for e in at.expander if "other data" in e.label]
    assert others == ["Last search on other data: upload survey.csv, other Data page settings"]
    go(at, "5_Compare")
    picker = at.multiselect(key="cmp_networks")
    assert picker.format_func(first) == f"{first} (other data: upload survey.csv, other Data page settings)"
    picker.set_value([first, second])
    at.run()
    no_exception(at)
    warned = [w.value for w in at.warning if "were learned on" in w.value]
    assert warned == [f"`{first}` and `{second}` were learned on the same table (`upload survey.csv`) with different "
                      "Data page settings: their edges can be compared, their scores cannot."]
