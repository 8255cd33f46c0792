"""Saving and loading a whole session: the data source, encoding, settings, knowledge and results."""

import gzip
import json
import random
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import bnexplore as bx
from bnexplore import bundled
from bnexplore.errors import BNExploreError, DataError, ResourceError
from bnexplore.limits import ENVIRONMENT
from bnexplore.session import (MAX_GRAPH_NODES, VERSION, SavedResult, Session, load_session, save_session,
                               table_bytes)


@pytest.fixture(scope="module")
def asia():
    return bx.read_csv(bundled.sample_path("asia"))


def test_bundled_source_round_trip_with_results_and_a_credible_set(asia, tmp_path):
    hc = bx.learn(asia, "hc", score="bic")
    found = bx.credible_set(asia, score="bic", bf=3)
    session = Session({"kind": "bundled", "name": "asia"}, encoding={"missing": "state"}, class_column=None,
                      settings={"score": "bic", "bf": 3.0}, knowledge={"require": [["smoke", "lung"]]},
                      results=[SavedResult("hc · BIC · asia 5k", hc, "sample asia", "sample:asia:x"),
                               SavedResult("credible", found.best_result(), "sample asia", "sample:asia:x", found)],
                      app={"page": "anything the app keeps"})
    save_session(session, tmp_path / "work.bnx")
    again = load_session(tmp_path / "work.bnx")
    assert again.source == session.source and again.settings == session.settings
    assert again.knowledge == {"require": [["smoke", "lung"]]} and again.app == session.app
    assert [r.name for r in again.results] == ["hc · BIC · asia 5k", "credible"]
    assert again.results[0].result.graph == hc.graph and again.results[0].result.score == hc.score
    assert again.results[0].data_key == "sample:asia:x"
    loaded = again.results[1].credible
    assert len(loaded) == len(found) and loaded.opt == found.opt
    assert np.array_equal(loaded.arc_probabilities, found.arc_probabilities)
    data = again.dataset()
    assert data.names == asia.names and np.array_equal(np.asarray(data.codes), np.asarray(asia.codes))


def test_network_source_draws_the_same_rows():
    session = Session({"kind": "network", "name": "cancer", "rows": 300, "seed": 7})
    again = Session.loads(session.dumps())
    assert again.frame().equals(bx.sample(bx.read_bif(bundled.network_path("cancer")), 300, seed=7))


def test_table_source_carries_the_file_and_its_encoding():
    text = "x,group\n" + "".join(f"{v / 10:.1f},{'a' if v % 3 else 'b'}\n" for v in range(60))
    source = Session.table_source(text.encode(), "mine.csv")
    session = Session(source, encoding={"columns": ["x", "group"], "discretize": {"x": "quantile:4"}})
    again = Session.loads(session.dumps())
    assert again.frame().equals(pd.read_csv(__import__("io").StringIO(text)))
    data = again.dataset()
    assert data.arities.tolist() == [4, 2]


def test_table_source_keeps_a_chosen_separator_and_encoding():
    text = "größe;farbe\n1;rot\n2;grün\n"
    source = Session.table_source(text.encode("latin-1"), "de.csv", sep=";", encoding="latin-1")
    frame = Session.loads(Session(source).dumps()).frame()
    assert frame.columns.tolist() == ["größe", "farbe"] and frame["farbe"].tolist() == ["rot", "grün"]


def test_plain_json_is_read_too():
    session = Session({"kind": "bundled", "name": "asia"})
    assert Session.loads(json.dumps(session.to_json())).source == session.source


@pytest.mark.parametrize("data, message", [
    (b"", "is empty"),
    (b"\x1f\x8b\x08\x00garbage", "damaged gzip"),
    (b"\x89PNG\r\n", "neither gzipped JSON nor JSON text"),
    (json.dumps({"algorithm": "hc", "score": 1}).encode(), 'lacks "format"'),
    (json.dumps({"format": "bnexplore-session"}).encode(), "no version number"),
    (json.dumps({"format": "bnexplore-session", "version": VERSION + 1}).encode(), "newer bnexplore"),
    (json.dumps({"format": "bnexplore-session", "version": VERSION}).encode(), "broken"),
    (json.dumps({"format": "bnexplore-session", "version": VERSION, "data": {"source": {"kind": "ftp"}}}).encode(),
     "unknown data source 'ftp'"),
    (gzip.compress(json.dumps({"format": "bnexplore-session", "version": VERSION,
                               "data": {"source": {"kind": "bundled", "name": "asia"}},
                               "results": [{"name": "x", "result": {"graph": 1}}]}).encode()),
     r"broken: results\[0\].result: not a bnexplore result file"),
])
def test_bad_files_say_what_is_wrong(data, message):
    with pytest.raises(DataError, match=message):
        Session.loads(data)


def test_unknown_bundled_name_and_missing_column_are_named():
    with pytest.raises(DataError, match="no bundled data set 'nope'"):
        Session({"kind": "bundled", "name": "nope"}).frame()
    with pytest.raises(DataError, match="no column 'zzz'"):
        Session({"kind": "bundled", "name": "asia"}, encoding={"columns": ["asia", "zzz"]}).dataset()


# -- hostile files (issue 30) ---------------------------------------------------------------------------------


def session_doc(**parts):
    """A valid session's JSON with ``parts`` replaced (``data``, ``settings``, ``knowledge``, ``results``...)."""
    doc = Session({"kind": "bundled", "name": "asia"}, settings={"score": "bdeu", "ess": 1.0, "bf": 20.0}).to_json()
    doc.update(parts)
    return doc


def dumped(doc):
    return gzip.compress(json.dumps(doc).encode())


@pytest.fixture
def private_csv(tmp_path):
    path = tmp_path / "private_data.csv"
    path.write_text("name,salary\nann,1\nbob,2\n")
    return path


def test_source_names_come_only_from_the_bundled_lists(private_csv):
    stem = str(private_csv.with_suffix(""))  # the file is <stem>.csv: an absolute name
    climb = "../" * 12 + stem.lstrip("/")
    for kind in ("bundled", "network"):
        for name in (stem, climb, "asia/../asia", "", 5):
            source = {"kind": kind, "name": name, "rows": 100, "seed": 1}
            with pytest.raises(DataError, match="data.source.name must be a bundled"):
                Session.loads(dumped(session_doc(data={"source": source})))
            with pytest.raises(DataError, match="no bundled"):
                Session(source).frame()  # a Session built in Python is checked too
    for name in (stem, climb):
        with pytest.raises(DataError, match="no bundled data set"):
            bundled.sample_path(name)
        with pytest.raises(DataError, match="no bundled network"):
            bundled.network_path(name)
    assert bundled.sample_path("asia").name == "asia.csv" and bundled.network_path("asia").name == "asia.bif.gz"


def test_a_gzip_bomb_is_refused_before_it_expands(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, "1")
    doc = session_doc(app={"padding": " " * 1000, "more": [0] * 10})
    text = json.dumps(doc).replace('"padding"', " " * (40 << 20) + '"padding"')  # 40 MB of blanks
    bomb = gzip.compress(text.encode(), compresslevel=9)
    assert len(bomb) < 100_000
    tracemalloc.start()
    with pytest.raises(ResourceError, match="the session file expands to more than 1.0 MB"):
        Session.loads(bomb)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 << 20  # never near the 40 MB the file would expand to


def test_a_table_in_the_session_is_bounded_before_decoding_and_before_gunzip(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, "1")
    table = gzip.compress(b"a,b\n" + b"0,1\n" * (1 << 20), compresslevel=9)  # 4 MB of rows in a small gzip
    source = Session.table_source(table, "rows.csv.gz")
    assert len(source["bytes"]) < 100_000
    with pytest.raises(ResourceError, match="the table 'rows.csv.gz' in the session file expands to more than 1.0"):
        Session.loads(dumped(session_doc(data={"source": source})))
    with pytest.raises(ResourceError, match="expands to more than"):
        table_bytes(source)
    big = Session.table_source(b"a,b\n" + b"0,1\n" * (300_000), "big.csv")  # 1.2 MB plain: base64 too long
    with pytest.raises(ResourceError, match="the table 'big.csv' in the session file"):  # a plain JSON file
        Session.loads(json.dumps(session_doc(data={"source": big})).encode())
    small = Session.table_source(gzip.compress(b"a,b\n0,1\n1,0\n"), "ok.csv.gz")
    assert Session.loads(dumped(session_doc(data={"source": small}))).frame().shape == (2, 2)


def test_json_items_are_bounded_before_parsing(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, "1")  # at most 1 MB / 32 = 32,768 items
    doc = json.dumps(session_doc(app={"lists": "X"})).replace('"X"', "[" + "[]," * 40_000 + "[]]")
    with pytest.raises(ResourceError, match="JSON items"):
        Session.loads(gzip.compress(doc.encode()))


@pytest.mark.parametrize("parts, message", [
    ({"data": {"source": {"kind": "network", "name": "alarm", "rows": 50_000_000, "seed": 1}}},
     r"data.source.rows must be a whole number from 10 to 200,000, got 50000000"),
    ({"data": {"source": {"kind": "network", "name": "alarm", "rows": 500, "seed": -1}}},
     r"data.source.seed must be a whole number from 0 to 1,000,000,000, got -1"),
    ({"data": {"source": {"kind": "network", "name": "alarm", "rows": 500}}}, r"data.source.seed .*got None"),
    ({"data": {"source": {"kind": "network", "name": "alarm", "rows": True, "seed": 1}}}, r"data.source.rows"),
    ({"data": {"source": {"kind": "table", "label": "x", "file_name": "x.csv", "bytes": "@@not base64@@"}}},
     "data.source.bytes is not valid base64"),
    ({"data": {"source": {"kind": "table", "label": "x", "file_name": "x.csv"}}}, "data.source.bytes must be"),
    ({"data": {"source": {"kind": "table", "label": "x", "bytes": "YQ=="}}}, "data.source.file_name must be"),
    ({"data": {"source": {"kind": "table", "label": "x", "file_name": "x.csv", "bytes": "YQ==", "sep": "a,"}}},
     r"data.source.sep must be one of"),
    ({"data": {"source": {"kind": "table", "label": "x", "file_name": "x.csv", "bytes": "YQ==", "encoding": "rot13"}}},
     r"data.source.encoding must be one of utf-8"),
    ({"data": {"source": {"kind": "table", "label": "x", "file_name": "x.csv", "bytes": "YQ==", "header": "no"}}},
     r"data.source.header must be true, false or absent, got 'no'"),
    ({"data": {}}, "data.source must be an object"),
    ({"data": None}, "data must be an object"),
    ({"data": {"source": {"kind": "bundled", "name": "asia"}, "encoding": {"columns": "asia"}}},
     "data.encoding.columns must be"),
    ({"data": {"source": {"kind": "bundled", "name": "asia"}, "encoding": {"rm -rf": 1}}}, r"data.encoding.rm -rf"),
    ({"data": {"source": {"kind": "bundled", "name": "asia"}, "class_column": ["x"]}}, "data.class_column"),
    ({"settings": {"ess": "abc"}}, r"settings.ess must be a number from 0.01 to 1000, got 'abc'"),
    ({"settings": {"ess": 1e308}}, r"settings.ess must be a number"),
    ({"settings": {"ess": -1}}, r"settings.ess must be a number"),
    ({"settings": {"bf": 0.5}}, r"settings.bf must be a finite number >= 1"),
    ({"settings": {"bf": "inf"}}, r"settings.bf"),
    ({"settings": {"score": "evil"}}, r"settings.score must be one of bdeu"),
    ({"settings": {"max_indegree": 1.5}}, r"settings.max_indegree"),
    ({"settings": {"max_indegree": 11}}, r"settings.max_indegree"),
    ({"settings": {"kl_max_parents": 9}}, r"settings.kl_max_parents"),
    ({"settings": {"kl_select": "x"}}, r"settings.kl_select"),
    ({"settings": {"other": {"deep": 1}}}, r"settings.other must be a plain value"),
    ({"settings": [1]}, r"settings must be an object"),
    ({"knowledge": {"require": "zzz", "tiers": 5}}, r"knowledge: require entries must be"),
    ({"knowledge": {"tiers": 5}}, r"knowledge cannot be read"),
    ({"knowledge": {"nope": []}}, r"knowledge: unknown knowledge key"),
    ({"knowledge": "text"}, r"knowledge must be an object"),
    ({"results": {"a": 1}}, r"results must be a list"),
    ({"results": [5]}, r"results\[0\] must be an object"),
    ({"results": [{"name": "", "result": {}}]}, r"results\[0\].name must be a name"),
    ({"results": [{"name": "x", "result": {"algorithm": "hc", "score": 1, "score_name": "bic", "params": [],
                                             "graph": {"nodes": ["a"]}}}]}, r"results\[0\].result.params"),
    ({"results": [{"name": "x", "result": {"algorithm": "hc", "score": 1, "score_name": "bdeu", "params": {"ess": ""},
                                           "graph": {"nodes": ["a"]}}}]},
     r"results\[0\].result.params.ess must be a number or null, got ''"),  # the Compare page computed with it
    ({"results": [{"name": "x", "result": {"algorithm": "hc", "score": 1, "score_name": "bdeu",
                                           "stats": {"seconds": [1]}, "graph": {"nodes": ["a"]}}}]},
     r"results\[0\].result.stats.seconds must be a number or null"),
    ({"results": [{"name": "x", "result": {"algorithm": "hc", "score": 1, "score_name": "bdeu",
                                           "trajectory": [1, "a"], "graph": {"nodes": ["a"]}}}]},
     r"results\[0\].result.trajectory\[0\] must be a step"),  # the Search page's replay read it
    ({"results": [{"name": "x", "credible": {"names": ["v"] * 70},
                   "result": {"algorithm": "hc", "score": 1, "score_name": "bic", "graph": {"nodes": ["a"]}}}]},
     r"results\[0\].credible.names must be a list of at most 62"),
    ({"app": {"label": "x" * 20_000}}, r"app.label must be at most 10,000 characters"),
])
def test_every_field_is_checked_and_named(parts, message):
    with pytest.raises(DataError, match=message):
        Session.loads(dumped(session_doc(**parts)))


def test_a_huge_result_graph_is_refused_before_it_is_built():
    nodes = [f"v{i}" for i in range(30_000)]
    result = {"algorithm": "hc", "score": 0.0, "score_name": "bic", "graph": {"nodes": nodes, "arcs": []}}
    with pytest.raises(DataError, match=rf"results\[0\].result.graph.nodes must be at most {MAX_GRAPH_NODES:,}"):
        Session.loads(dumped(session_doc(results=[{"name": "big", "result": result}])))


def test_json_nested_deep_says_so():
    deep = json.dumps(session_doc(app={"x": "X"})).replace('"X"', "[" * 100_000 + "]" * 100_000)
    with pytest.raises(DataError, match="nested too deep"):
        Session.loads(deep.encode())
    shallow_but_deep = json.dumps(session_doc(app={"x": "X"})).replace('"X"', "[" * 100 + "]" * 100)
    with pytest.raises(DataError, match="nested too deep at app.x"):
        Session.loads(shallow_but_deep.encode())


def valid_files(asia):
    """A few valid session files (every source kind, a result and a credible set) to mutate."""
    hc = bx.learn(asia, "hc", score="bic")
    found = bx.credible_set(asia, score="bic", bf=2)
    results = [SavedResult("hc", hc, "sample asia", "k"), SavedResult("cred", found.best_result(), "", None, found)]
    return [Session({"kind": "bundled", "name": "asia"}, {"missing": "state", "columns": ["asia", "smoke"]}, None,
                    {"score": "bic", "bf": 3.0, "max_indegree": 2}, {"require": [["smoke", "lung"]]}, results,
                    {"encoding": {"missing": "state"}}).dumps(),
            Session({"kind": "network", "name": "cancer", "rows": 50, "seed": 3}).dumps(),
            Session(Session.table_source(b"a,b\n0,1\n1,0\n", "t.csv")).dumps()]


def mutations(rng, data):
    """Ways a file gets broken: flipped bytes, a cut, a field replaced by junk of another type."""
    kind = rng.randrange(4)
    if kind == 0:  # flip bytes of the gzip
        raw = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
        return bytes(raw)
    if kind == 1:  # truncate
        return data[:rng.randrange(len(data))]
    doc = json.loads(gzip.decompress(data))
    junk = [None, True, -1, 0, 2**70, 1e308, float("nan"), "", "../x", "x" * 50, [], [[]], {}, {"nodes": 5},
            {"nodes": ["a", "a"]}, [1, "a", None], {"kind": "table"}, "AAAA" * 3]
    if kind == 2:  # replace one value anywhere by junk
        spots = [(doc, key) for key in doc]
        seen = 0
        while spots and seen < 200:
            parent, key = spots.pop(rng.randrange(len(spots)))
            seen += 1
            child = parent[key]
            inner = list(child.keys()) if isinstance(child, dict) else range(len(child)) \
                if isinstance(child, list) else []
            if inner and rng.random() < 0.7:
                spots = [(child, k) for k in inner]
                continue
            parent[key] = rng.choice(junk)
            break
        return json.dumps(doc).encode()
    return json.dumps(random_json(rng, 4)).encode()  # a random structure


def random_json(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return rng.choice([None, 1, -2.5, "s", "format", True])
    if rng.random() < 0.5:
        return [random_json(rng, depth - 1) for _ in range(rng.randrange(4))]
    keys = ["format", "version", "data", "source", "kind", "name", "results", "settings", "x"]
    doc = {rng.choice(keys): random_json(rng, depth - 1) for _ in range(rng.randrange(5))}
    if rng.random() < 0.5:
        doc.update({"format": "bnexplore-session", "version": 1})
    return doc


@pytest.mark.timeout(600)
def test_fuzz_every_broken_file_loads_or_says_what_is_wrong(asia):
    rng = random.Random(20261125)
    files = valid_files(asia)
    outcomes = {"loaded": 0, "refused": 0}
    for _ in range(600):
        data = mutations(rng, rng.choice(files))
        try:
            session = Session.loads(data)
        except BNExploreError as error:
            assert str(error) and "\n" not in str(error)
            outcomes["refused"] += 1
            continue
        outcomes["loaded"] += 1
        try:  # what loaded also gives its rows, or a one-line reason
            session.frame()
        except BNExploreError:
            pass
    assert outcomes["loaded"] > 20 and outcomes["refused"] > 200, outcomes
