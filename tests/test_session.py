"""Saving and loading a whole session: the data source, encoding, settings, knowledge and results."""

import gzip
import json

import numpy as np
import pandas as pd
import pytest

import bnexplore as bx
from bnexplore import bundled
from bnexplore.errors import DataError
from bnexplore.session import VERSION, SavedResult, Session, load_session, save_session


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
     "broken: not a bnexplore result file"),
])
def test_bad_files_say_what_is_wrong(data, message):
    with pytest.raises(DataError, match=message):
        Session.loads(data)


def test_unknown_bundled_name_and_missing_column_are_named():
    with pytest.raises(DataError, match="no bundled data set 'nope'"):
        Session({"kind": "bundled", "name": "nope"}).frame()
    with pytest.raises(DataError, match="no column 'zzz'"):
        Session({"kind": "bundled", "name": "asia"}, encoding={"columns": ["asia", "zzz"]}).dataset()
