"""The sidebar's session controls as a user clicks them: Save session gives a file that opens, a hostile or
broken file changes nothing and says which field is wrong, and names from files are shown as text."""

import gzip
import hashlib
import json

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from bnexplore.session import Session
from tests.test_app import ASIA, go, new_session, no_exception, run_search, upload


@pytest.fixture
def at():
    return new_session()


@pytest.fixture
def downloads(monkeypatch):
    """Every file a download button hands to the browser in this test, by file name (the bytes Streamlit
    serves when the user clicks)."""
    files = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def keep(self, path_or_data, mimetype, kind, filename=None):
        files[filename] = path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    return files


def open_file(at, name, data):
    """Open a session file with the sidebar's uploader (whichever uploader the sidebar shows now)."""
    uploader = at.sidebar.get("file_uploader")[0]
    uploader.set_value((name, data, "application/gzip"))
    at.run()
    no_exception(at)


def sidebar_errors(at):
    return " ".join(e.value for e in at.sidebar.error)


def test_save_session_gives_a_file_that_opens_with_its_data_settings_and_results(at, downloads):
    rows = ["smoker,cough,x"] + [f"{'yes' if i % 3 else 'no'},{'yes' if i % 2 else 'no'},{'?' if i % 11 else i % 7}"
                                 for i in range(90)]
    upload(at, "people.csv", ("\n".join(rows) + "\n").encode())
    at.text_input(key=f"col-{at.session_state['draft']['table'].key}-marks").input("?")  # x's mark for no value
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].states[2][-1] == "<missing>"
    go(at, "2_Tune")
    at.radio(key="tune_score").set_value("bic")
    at.run()
    job = run_search(at, algorithms=("hc",))
    assert not job.errors, job.errors
    assert not at.sidebar.get("download_button")  # nothing is written until the user asks
    at.sidebar.button(key="session_save").click()
    at.run()
    no_exception(at)
    [button] = at.sidebar.get("download_button")
    assert button.proto.label == "Download the session file"
    saved = Session.loads(downloads["bnexplore-session.bnx"])  # the bytes the browser receives
    assert saved.source["kind"] == "table" and saved.source["file_name"] == "people.csv"
    assert saved.settings["score"] == "bic"
    [result] = saved.results
    assert result.name == next(iter(at.session_state["results"]))
    assert result.result.graph == job.results[0][1].graph
    assert result.data_key == at.session_state["data_key"]
    assert saved.dataset().names == at.session_state["dataset"].names
    other = new_session()  # the file opens in a new session with everything back
    open_file(other, "bnexplore-session.bnx", downloads["bnexplore-session.bnx"])
    assert other.session_state["data_key"] == at.session_state["data_key"]
    assert other.session_state["settings"]["score"] == "bic"
    assert list(other.session_state["results"]) == list(at.session_state["results"])
    assert other.session_state["encoding"]["missing_values"] == ["?"]
    assert other.session_state["dataset"].states == at.session_state["dataset"].states


def test_the_session_file_chip_goes_once_the_file_is_opened(at):
    saved_file = Session({"kind": "network", "name": "cancer", "rows": 300, "seed": 2}).dumps()
    open_file(at, "cancer.bnx", saved_file)
    assert "cancer" in at.session_state["data_label"]
    [uploader] = at.sidebar.get("file_uploader")
    assert uploader.key != "session_open" and not uploader.value  # a new, empty uploader: no chip of the old file
    go(at, "1_Data")  # other data loaded afterwards: still no chip
    at.selectbox(key="data_sample").set_value("asia")
    at.button(key="data_load_sample").click()
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].names == ASIA
    assert not at.sidebar.get("file_uploader")[0].value


def session_file(**parts):
    doc = Session({"kind": "bundled", "name": "asia"}).to_json()
    doc.update(parts)
    return gzip.compress(json.dumps(doc).encode())


@pytest.mark.parametrize("parts, field", [
    ({"settings": {"ess": "abc"}}, "settings.ess must be a number from 0.01 to 1000, got 'abc'"),
    ({"knowledge": {"require": "zzz", "tiers": 5}}, "knowledge: require entries must be"),
    ({"data": {"source": {"kind": "network", "name": "alarm", "rows": 50_000_000, "seed": 1}}},
     "data.source.rows must be a whole number from 10 to 200,000"),
    ({"data": {"source": {"kind": "network", "name": "alarm", "rows": 500, "seed": -1}}}, "data.source.seed"),
    ({"data": {"source": {"kind": "bundled", "name": "../../../../etc/passwd"}}}, "data.source.name must be a bundled"),
    ({"data": {"source": {"kind": "table", "label": "x", "file_name": "x.csv", "bytes": "%%%"}}},
     "data.source.bytes is not valid base64"),
    ({"app": {"encoding": {"leave_out": 5}}}, "app.encoding must be an object with"),
    ({"app": {"encoding": {"default_method": "uniform3", "methods": {}, "as_categorical": [], "as_numeric": [],
                           "leave_out": "asia", "missing": "state", "max_levels": 50}}},
     "app.encoding.leave_out must be a list of column names"),
    ({"app": {"encoding": {"default_method": "uniform3", "methods": {}, "as_categorical": [], "as_numeric": [],
                           "leave_out": [], "missing": "state", "max_levels": 50, "missing_values": ["?"] * 101}}},
     "app.encoding.missing_values must be a list of at most 100 texts of at most 500 characters"),
    ({"results": [{"name": "big", "result": {"algorithm": "hc", "score": 0, "score_name": "bic",
                                             "graph": {"nodes": [f"v{i}" for i in range(30_000)]}}}]},
     "results[0].result.graph.nodes must be at most 5,000 nodes"),
])
def test_a_hostile_session_keeps_everything_and_names_the_field(at, parts, field):
    job = run_search(at, algorithms=("hc",))
    assert not job.errors
    before = (at.session_state["data_key"], dict(at.session_state["settings"]), list(at.session_state["results"]))
    open_file(at, "shared.bnx", session_file(**parts))
    message = sidebar_errors(at)
    assert "`shared.bnx` was not opened, nothing changed" in message and field in message, message
    assert "Please report" not in message and "Something went wrong" not in " ".join(e.value for e in at.error)
    assert (at.session_state["data_key"], at.session_state["settings"], list(at.session_state["results"])) == before
    assert at.session_state["dataset"].names == ASIA


def test_json_nested_100000_deep_says_so(at):
    deep = json.dumps(Session({"kind": "bundled", "name": "asia"}).to_json()).replace(
        '"app": {}', '"app": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    open_file(at, "deep.bnx", deep.encode())
    assert "nested too deep" in sidebar_errors(at)


def test_a_label_from_a_session_file_is_shown_as_text(at):
    label = "[Log in again](http://phish.example/login) **now** <b>x</b>"
    source = Session.table_source(b"a,b\n0,1\n1,0\n1,1\n0,0\n", "t.csv", label)
    open_file(at, "t.bnx", Session(source).dumps())
    no_exception(at)
    assert at.session_state["data_label"] == label
    [status] = [c.value for c in at.caption if c.value.startswith("Data in use")]
    assert f"`{label}`" in status  # an inline code span: no link, no bold, no HTML
    [note] = [s.value for s in at.sidebar.success]
    assert f"now using `{label}`" in note


def test_an_upload_is_keyed_by_its_full_digest_and_scorers_are_per_session(at):
    data = b"u,v\n" + b"".join(b"%d,%d\n" % (i % 2, i % 3 % 2) for i in range(60))
    upload(at, "same.csv", data)
    assert hashlib.sha256(data).hexdigest() in at.session_state["data_key"]
    other = new_session()
    upload(other, "same.csv", data)
    assert other.session_state["data_key"] == at.session_state["data_key"]
    for app in (at, other):  # each user counts candidate parent sets: the Tune page scores them
        go(app, "2_Tune")
        app.button(key="tune_prune").click()
        app.run()
        no_exception(app)
    [mine], [theirs] = at.session_state["scorers"].values(), other.session_state["scorers"].values()
    assert mine is not theirs and mine.names == theirs.names == ["u", "v"]


def spots(value, path=()):
    """Every place in a JSON document (paths of keys), lists of more than 6 items only at their first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from spots(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:6]):
            yield (*path, i)
            yield from spots(item, (*path, i))


@pytest.mark.timeout(1800)
def test_fuzz_a_damaged_session_opens_or_is_refused_and_no_page_fails(at):
    """One value anywhere in a real saved session replaced by junk: the file opens or is refused with a
    message, and afterwards every page draws without an unexpected error."""
    import random

    from bnexplore_app import state

    job = run_search(at, algorithms=("hc",))
    assert not job.errors
    base = state.snapshot(at.session_state).to_json()
    places = [p for p in spots(base) if p[0] != "format" and "bytes" not in p]
    junk = [None, True, -1, 0, 2**70, 1e308, "", "x", "../asia", [], {}, [1, "a"], {"a": 1}]
    rng = random.Random(29)
    outcomes = {"opened": 0, "refused": 0}
    for _ in range(30):
        doc = json.loads(json.dumps(base))
        path = rng.choice(places)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = rng.choice(junk)
        app = new_session()
        open_file(app, "damaged.bnx", gzip.compress(json.dumps(doc).encode()))
        outcomes["refused" if app.sidebar.error else "opened"] += 1
        assert "Please report" not in sidebar_errors(app)
        for page in ("2_Tune", "3_Search", "4_Networks", "5_Compare"):
            go(app, page)
            unexpected = [e.value for e in app.error if "Something went wrong" in e.value]
            assert not unexpected, (path, parent[path[-1]], page, unexpected)
    assert outcomes["opened"] and outcomes["refused"], outcomes


def test_a_table_read_with_a_chosen_separator_and_encoding_comes_back_the_same(at, downloads):
    text = "größe;farbe\n" + "".join(f"{i % 3};{'rot' if i % 2 else 'grün'}\n" for i in range(40))
    go(at, "1_Data")
    at.radio(key="data_source").set_value("Upload a file")
    at.run()
    at.selectbox(key="data_sep").set_value(";")
    at.selectbox(key="data_encoding").set_value("latin-1")
    at.file_uploader(key="data_upload").set_value(("de.csv", text.encode("latin-1"), "text/csv"))
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].names == ["größe", "farbe"]
    at.sidebar.button(key="session_save").click()
    at.run()
    saved = downloads["bnexplore-session.bnx"]
    source = Session.loads(saved).source
    assert (source["sep"], source["encoding"]) == (";", "latin-1")
    other = new_session()
    open_file(other, "de.bnx", saved)
    assert other.session_state["data_key"] == at.session_state["data_key"]  # the same data: results attach
    assert other.session_state["dataset"].names == ["größe", "farbe"]


def test_a_table_read_without_a_header_line_comes_back_the_same(at, downloads):
    rows = "".join(f"{i % 2},{i % 3}\n" for i in range(30))
    go(at, "1_Data")
    at.radio(key="data_source").set_value("Upload a file")
    at.run()
    at.checkbox(key="data_header").uncheck()
    at.file_uploader(key="data_upload").set_value(("uci.csv", rows.encode(), "text/csv"))
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].n_rows == 30
    at.sidebar.button(key="session_save").click()
    at.run()
    saved = downloads["bnexplore-session.bnx"]
    assert Session.loads(saved).source["header"] is False
    other = new_session()
    open_file(other, "uci.bnx", saved)
    assert other.session_state["data_key"] == at.session_state["data_key"]
    assert other.session_state["dataset"].names == ["X0", "X1"] and other.session_state["dataset"].n_rows == 30
