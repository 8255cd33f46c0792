"""The Data and Tune pages through what a user clicks (AppTest): separator and encoding choices, refused
uploads that keep the data in use, tables of two variables, a class column with blank cells, and the upload
limit said on the page (issue 29 items 3, 7, 8, 9; issue 30 items 2, 15, 16, 20, 21)."""

import gzip
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bnexplore.limits import ENVIRONMENT
from test_app import errors, go, new_session, no_exception, paste

ASIA = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]


@pytest.fixture
def at():
    return new_session()


def upload(at, name, content, sep=None, encoding=None):
    go(at, "1_Data")
    at.radio(key="data_source").set_value("Upload a file")
    at.run()
    if sep is not None:
        at.selectbox(key="data_sep").set_value(sep)
    if encoding is not None:
        at.selectbox(key="data_encoding").set_value(encoding)
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv"))
    at.run()
    no_exception(at)


def kept_asia(at):
    assert at.session_state["dataset"].names == ASIA
    assert any("still" in m.value and "asia" in m.value for m in [*at.info, *at.warning])


def survey(sep=",", rows=60):
    lines = [sep.join(["smoker", "cough", "town"])]
    lines += [sep.join(["yes" if i % 3 else "no", "yes" if i % 2 else "no", ["Köln", "Paris", "Wien"][i % 3]])
              for i in range(rows)]
    return "\n".join(lines) + "\n"


# --- issue 29 item 8: separator and encoding ------------------------------------------------------------------


def test_a_semicolon_csv_loads_through_the_upload_and_the_separator_choice_reads_it_again(at):
    upload(at, "europe.csv", survey(";").encode())
    data = at.session_state["dataset"]
    assert data.names == ["smoker", "cough", "town"] and data.n_rows == 60
    at.selectbox(key="data_sep").set_value(",")  # the wrong separator: one column, refused; the data stay
    at.run()
    no_exception(at)
    assert "`upload europe.csv` has one column (`smoker;cough;town`); a network needs at least two" in errors(at)
    assert "is the *Separator* right?" in errors(at)
    assert at.session_state["dataset"] is data
    at.selectbox(key="data_sep").set_value(";")
    at.run()
    assert at.session_state["dataset"].names == ["smoker", "cough", "town"]


def test_a_file_without_a_header_line_is_read_by_unticking_the_first_line_box(at):
    # a UCI-style file: every line is data, and the first line's numbers repeat (duplicated column names)
    rows = "".join(f"{i % 2},{i % 3},{(i // 2) % 2}\n" for i in range(41))
    upload(at, "uci.csv", rows.encode())
    message = errors(at)
    assert "duplicated column names: '0' (columns 1, 2, 3)" in message
    assert "if the first line is a data row, read the file with *First line holds the column names* unticked" \
        in message
    assert at.session_state["dataset"].names == ASIA  # refused: the data in use stay
    at.checkbox(key="data_header").uncheck()
    at.run()
    no_exception(at)
    data = at.session_state["dataset"]
    assert data.names == ["X0", "X1", "X2"] and data.n_rows == 41  # the first line is a row, not names


def test_a_header_line_of_numbers_alone_is_read_but_said(at):
    rows = "7,5,3\n" + "".join(f"{i % 2},{i % 3},{(i // 2) % 2}\n" for i in range(40))
    upload(at, "numbers.csv", rows.encode())
    assert at.session_state["dataset"].names == ["7", "5", "3"] and at.session_state["dataset"].n_rows == 40
    said = " ".join(m.value for m in [*at.warning, *at.info, *at.caption])
    assert "is read as the column names, but '7', '5', '3' are numbers heading columns of numbers" in said
    assert "*First line holds the column names* unticked" in said


def test_a_tab_separated_paste_is_sniffed(at):
    paste(at, survey("\t"))
    assert at.session_state["dataset"].names == ["smoker", "cough", "town"]


def test_a_utf16_upload_names_the_encoding_widget_then_loads_with_it(at):
    content = survey().encode("utf-16-le")  # no byte-order mark
    upload(at, "wide.csv", content)
    message = errors(at)
    assert "'wide.csv' is not a text table" in message and "if it is UTF-16 text, set *Encoding: utf-16*" in message
    assert "encoding=" not in message and "pass " not in message
    kept_asia(at)
    at.selectbox(key="data_encoding").set_value("utf-16")
    at.run()
    no_exception(at)
    data = at.session_state["dataset"]
    assert data.names == ["smoker", "cough", "town"] and data.states[2] == ["Köln", "Paris", "Wien"]


def test_a_ragged_csv_names_the_separator_widget(at):
    upload(at, "ragged.csv", b"a;b\n1;2\n3;4;5\n")
    message = errors(at)
    assert "line 3 has 3 fields where the first line has 2" in message
    assert "read with the separator ';', sniffed from the first lines; if that is wrong, set *Separator*" in message
    assert "sep=" not in message
    kept_asia(at)


# --- issue 30 items 2, 15, 20, 21 through the upload -----------------------------------------------------------


def test_a_gzip_bomb_upload_is_refused_naming_the_file(at, monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, "0.25")
    upload(at, "bomb.csv.gz", gzip.compress(b"a,b\n" + b"0,1\n" * 200_000, 9))
    assert ("file 'bomb.csv.gz' expands to more than 0.2 MB when decompressed, the limit of this server"
            in errors(at))
    kept_asia(at)


def test_a_parquet_upload_with_a_list_column_names_it(at):
    buffer = io.BytesIO()
    pq.write_table(pa.table({"smoker": ["yes", "no"], "tags": pa.array([["a"], ["b", "c"]])}), buffer)
    upload(at, "nested.parquet", buffer.getvalue())
    assert "file 'nested.parquet' column 'tags' holds a list in each cell" in errors(at)
    kept_asia(at)


def test_a_space_only_column_name_is_renamed_and_said(at):
    text = survey().replace("cough", "   ", 1)
    upload(at, "blank.csv", text.encode())
    assert at.session_state["dataset"].names == ["smoker", "column 2", "town"]
    assert any("has no name for column 2 (its name was '   ')" in w.value for w in at.warning)


# --- issue 29 item 7, issue 30 item 16: fewer than two variables; two variables -----------------------------------


def test_a_one_column_csv_is_refused_and_the_tune_page_keeps_working(at):
    upload(at, "one.csv", b"smoker\nyes\nno\nyes\n")
    assert "`upload one.csv` has one column (`smoker`); a network needs at least two variables" in errors(at)
    assert any("Nothing changed" in i.value for i in at.info)
    assert at.session_state["dataset"].names == ASIA
    go(at, "2_Tune")
    assert at.slider(key="tune_indegree").max == 7


def test_leaving_out_all_but_one_column_is_refused(at):
    paste(at, survey())
    key = at.session_state["draft"]["table"].key
    at.multiselect(key=f"col-{key}-leave").set_value(["cough", "town"])
    at.run()
    no_exception(at)
    assert "A network needs at least two variables: leave out fewer columns." in errors(at)
    assert at.session_state["dataset"].names == ["smoker", "cough", "town"]


def test_the_tune_page_works_on_two_variables(at):
    paste(at, "smoker,cough\n" + "".join(f"{'yes' if i % 3 else 'no'},{'yes' if i % 2 else 'no'}\n"
                                         for i in range(40)))
    assert at.session_state["dataset"].n_vars == 2
    go(at, "2_Tune")
    assert not at.slider  # a slider from 1 to 1 is not drawn
    assert any("With 2 variables a node has at most **1 parent**" in m.value for m in at.markdown)
    assert at.session_state["settings"]["max_indegree"] == 1
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Local scores"] == "4"  # 2 · (C(1, 0) + C(1, 1))


def test_a_session_with_one_column_is_refused_by_the_same_rule(at):
    from bnexplore_app import state

    table = state.upload_table("upload one.csv", b"smoker\nyes\nno\n", "one.csv")
    with pytest.raises(Exception, match="upload one.csv has 1 column in use \\('smoker'\\); a network needs"):
        state.encode(table, dict(state.DEFAULT_ENCODING))


# --- issue 29 item 9: the upload limit is said on the page ------------------------------------------------------------


def test_the_upload_limit_is_said_in_the_page(at):
    go(at, "1_Data")
    at.radio(key="data_source").set_value("Upload a file")
    at.run()
    limit = at.file_uploader(key="data_upload").label
    assert limit == "Table file (at most 50 MB)"
    assert any("A file over 50 MB is refused by your browser" in m.value for m in at.markdown)


# --- issue 29 item 3: a class column with blank cells -------------------------------------------------------------


def blank_class_table(rows=60):
    lines = ["smoker,cough,outcome"]
    for i in range(rows):
        outcome = "" if i % 10 == 0 else ("sick" if i % 3 else "well")
        lines.append(f"{'yes' if i % 3 else 'no'},{'yes' if i % 2 else 'no'},{outcome}")
    return "\n".join(lines) + "\n"


def test_a_class_column_with_blanks_is_offered_with_its_blank_rows_left_out(at):
    paste(at, blank_class_table())
    data = at.session_state["dataset"]
    assert data.states[2] == ["sick", "well", "<missing>"]
    box = at.selectbox(key="data_class")
    assert "outcome" in box.options or "outcome (its 6 blank rows left out)" in box.options
    box.set_value("outcome")
    at.run()
    no_exception(at)
    assert at.session_state["class_column"] == "outcome"
    assert any("Two-class analyses use the 54 rows whose outcome is not blank." in c.value for c in at.caption)
    go(at, "2_Tune")
    assert at.radio(key="tune_kl_class0").options == ["sick", "well"]
    assert not at.warning or all("classes, not two" not in w.value for w in at.warning)


def test_a_class_named_column_with_blanks_is_picked_on_loading(at):
    paste(at, blank_class_table().replace("outcome", "diagnosis"))
    assert at.session_state["class_column"] == "diagnosis"
